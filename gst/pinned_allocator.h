/* Page-locked host memory that a CUDA GPU maps (pinned_allocator.c): the
 * pool the element offers upstream on a CUDA backend, so frames reach the
 * kernels with no staging copy. */
#ifndef JF_GST_PINNED_ALLOCATOR_H
#define JF_GST_PINNED_ALLOCATOR_H

#include <gst/gst.h>
#include <jetfilter.h>

G_BEGIN_DECLS

/* An allocator of page-locked, mapped memory on the device of `ctx` (a CUDA
 * context; the allocator keeps its own, on the same device). */
GstAllocator *jf_gst_pinned_allocator_new(jf_context *ctx);

/* Is `mem` from such an allocator? */
gboolean jf_gst_is_pinned(GstMemory *mem);

G_END_DECLS

#endif
