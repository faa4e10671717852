/*
 * A Jetson's NVMM buffers (`video/x-raw(memory:NVMM)`): NvBufSurface
 * surfaces, mapped for CUDA through EGL.  Built only where JetPack's
 * nvbufsurface.h is (JF_GST_NVMM): JetPack 5 and 6, or JetPack 4.6 with
 * DeepStream.  Unverified without a board (DESIGN.md).
 */
#ifndef JF_GST_NVMM_MEMORY_H
#define JF_GST_NVMM_MEMORY_H

#ifdef JF_GST_NVMM
#include <gst/gst.h>

#define JF_GST_NVMM_FEATURE "memory:NVMM"

/* One buffer's surface as CUDA sees it while mapped. */
typedef struct jf_gst_nvmm_frame {
    GstBuffer *buf;
    GstMapInfo map;
    void *surface;                 /* the NvBufSurface, its EGLImage made */
    struct cudaGraphicsResource *resource;
    int planes;
    void *data[4];                 /* each plane's device address */
    size_t pitch[4];
} jf_gst_nvmm_frame;

/* The buffer's first surface registered with CUDA (pitch-linear surfaces
 * only); FALSE with the reason in *why, nothing left mapped. */
gboolean jf_gst_nvmm_map(GstBuffer *buf, GstMapFlags flags, jf_gst_nvmm_frame *f, const char **why);
/* Unregistered and unmapped, after the GPU is done with it. */
void jf_gst_nvmm_unmap(jf_gst_nvmm_frame *f);
#endif

#endif
