/*
 * A GstAllocator of page-locked host memory mapped into the GPU's address
 * space, allocated through the library (jf_image_alloc_on, MAPPED) on the
 * element's device.  GStreamer's own CUDA allocators would need its CUDA
 * library, which GStreamer 1.14 (a Jetson's) does not have.
 */
#include "gst/pinned_allocator.h"

#include <string.h>

#define JF_PINNED_MEMORY_TYPE "JetfilterPinned"

typedef struct {
    GstMemory mem;
    jf_image img;      /* the allocation (a parent's; a shared one holds a reference) */
} PinnedMemory;

typedef struct {
    GstAllocator parent;
    jf_context *ctx;   /* its own context on the element's device */
} PinnedAllocator;

typedef struct {
    GstAllocatorClass parent;
} PinnedAllocatorClass;

GType jf_gst_pinned_allocator_get_type(void);
G_DEFINE_TYPE(PinnedAllocator, jf_gst_pinned_allocator, GST_TYPE_ALLOCATOR)

static GstMemory *pinned_alloc(GstAllocator *allocator, gsize size, GstAllocationParams *params)
{
    PinnedAllocator *self = (PinnedAllocator *)allocator;
    const gsize align = params ? params->align : 0, prefix = params ? params->prefix : 0;
    const gsize padding = params ? params->padding : 0, total = prefix + size + padding;
    PinnedMemory *m = g_new0(PinnedMemory, 1);
    if (!self->ctx || total > (gsize)G_MAXINT ||
        jf_image_alloc_on(self->ctx, &m->img, (int)total, 1, 1, JF_LOC_MAPPED) != JF_OK) {
        GST_WARNING("jetfilter: no page-locked memory of %" G_GSIZE_FORMAT " bytes: %s", total,
                    jf_last_error());
        g_free(m);
        return NULL;
    }
    gst_memory_init(GST_MEMORY_CAST(m), params ? params->flags : (GstMemoryFlags)0, allocator, NULL,
                    total, align, prefix, size);
    return GST_MEMORY_CAST(m);
}

static void pinned_free(GstAllocator *allocator, GstMemory *mem)
{
    PinnedMemory *m = (PinnedMemory *)mem;
    (void)allocator;
    if (!mem->parent)
        jf_image_free(&m->img); /* cudaFreeHost; a share's parent frees it */
    g_free(m);
}

static gpointer pinned_map(GstMemory *mem, gsize maxsize, GstMapFlags flags)
{
    PinnedMemory *m = (PinnedMemory *)(mem->parent ? mem->parent : mem);
    (void)maxsize, (void)flags;
    return m->img.data;
}

static void pinned_unmap(GstMemory *mem)
{
    (void)mem;
}

static GstMemory *pinned_share(GstMemory *mem, gssize offset, gssize size)
{
    PinnedMemory *sub = g_new0(PinnedMemory, 1);
    GstMemory *parent = mem->parent ? mem->parent : mem;
    if (size == -1)
        size = (gssize)mem->size - offset;
    gst_memory_init(GST_MEMORY_CAST(sub),
                    (GstMemoryFlags)(GST_MINI_OBJECT_FLAGS(parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY),
                    mem->allocator, parent, mem->maxsize, mem->align, mem->offset + offset, (gsize)size);
    return GST_MEMORY_CAST(sub);
}

static void pinned_finalize(GObject *object)
{
    PinnedAllocator *self = (PinnedAllocator *)object;
    jf_context_destroy(self->ctx);
    G_OBJECT_CLASS(jf_gst_pinned_allocator_parent_class)->finalize(object);
}

static void jf_gst_pinned_allocator_class_init(PinnedAllocatorClass *klass)
{
    GstAllocatorClass *a = GST_ALLOCATOR_CLASS(klass);
    a->alloc = pinned_alloc;
    a->free = pinned_free;
    G_OBJECT_CLASS(klass)->finalize = pinned_finalize;
}

static void jf_gst_pinned_allocator_init(PinnedAllocator *self)
{
    GstAllocator *a = GST_ALLOCATOR_CAST(self);
    a->mem_type = JF_PINNED_MEMORY_TYPE;
    a->mem_map = pinned_map;
    a->mem_unmap = pinned_unmap;
    a->mem_share = pinned_share;
    GST_OBJECT_FLAG_SET(self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *jf_gst_pinned_allocator_new(jf_context *ctx)
{
    PinnedAllocator *self = (PinnedAllocator *)g_object_new(jf_gst_pinned_allocator_get_type(), NULL);
    jf_device_info d;
    jf_context_options o = jf_context_defaults();
    o.backend = JF_BACKEND_CUDA;
    o.device = jf_context_device(ctx, &d) == JF_OK ? d.index : 0;
    if (jf_context_create(&o, &self->ctx) != JF_OK)
        self->ctx = NULL; /* alloc then fails, and upstream uses its own memory */
    gst_object_ref_sink(self);
    return GST_ALLOCATOR_CAST(self);
}

gboolean jf_gst_is_pinned(GstMemory *mem)
{
    return mem && gst_memory_is_type(mem, JF_PINNED_MEMORY_TYPE);
}
