/*
 * Frames in CUDA memory, through GStreamer's CUDA library.
 *
 * One context for everyone: the element wraps the device's primary CUDA
 * context (the one the CUDA runtime, and so the library, runs in) as a
 * GstCudaContext and answers its neighbours' context queries with it, so
 * cudaupload, nvh264dec and cudadownload allocate their frames where the
 * kernels can read them.  The driver's functions come from libcuda at run
 * time (GStreamer loads it the same way): the plugin links no driver and
 * loads where there is none.
 */
#include "gst/cuda_memory.h"

#include <dlfcn.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>

typedef CUresult (*cu_init_fn)(unsigned int);
typedef CUresult (*cu_device_get_fn)(CUdevice *, int);
typedef CUresult (*cu_retain_fn)(CUcontext *, CUdevice);
typedef CUresult (*cu_release_fn)(CUdevice);

/* what a wrapped primary context holds: released with the GstCudaContext */
typedef struct primary_ref {
    void *driver;
    cu_release_fn release;
    CUdevice device;
} primary_ref;

static void primary_release(gpointer data)
{
    primary_ref *r = (primary_ref *)data;
    r->release(r->device);
    dlclose(r->driver);
    g_free(r);
}

GstCudaContext *jf_gst_cuda_context_new(int device)
{
    cu_init_fn init;
    cu_device_get_fn device_get;
    cu_retain_fn retain;
    primary_ref *r;
    CUcontext handle;
    GstCudaContext *ctx;
    void *driver;
    if (device < 0 || !gst_cuda_load_library() || !(driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)))
        return NULL;
    r = g_new0(primary_ref, 1);
    r->driver = driver;
    init = (cu_init_fn)dlsym(driver, "cuInit");
    device_get = (cu_device_get_fn)dlsym(driver, "cuDeviceGet");
    retain = (cu_retain_fn)dlsym(driver, "cuDevicePrimaryCtxRetain");
    r->release = (cu_release_fn)dlsym(driver, "cuDevicePrimaryCtxRelease_v2");
    if (!r->release)
        r->release = (cu_release_fn)dlsym(driver, "cuDevicePrimaryCtxRelease");
    if (!init || !device_get || !retain || !r->release || init(0) != CUDA_SUCCESS ||
        device_get(&r->device, device) != CUDA_SUCCESS || retain(&handle, r->device) != CUDA_SUCCESS) {
        dlclose(driver);
        g_free(r);
        return NULL;
    }
    if (!(ctx = gst_cuda_context_new_wrapped(handle, r->device))) {
        primary_release(r);
        return NULL;
    }
    g_object_set_data_full(G_OBJECT(ctx), "jetfilter-primary", r, primary_release);
    gst_cuda_memory_init_once();
    return ctx;
}

void jf_gst_cuda_context_free(GstCudaContext *ctx)
{
    if (ctx)
        gst_object_unref(ctx);
}

static gboolean same_context(GstCudaContext *a, GstCudaContext *b)
{
    return a && b && gst_cuda_context_get_handle(a) == gst_cuda_context_get_handle(b);
}

gboolean jf_gst_cuda_frame_map(GstVideoFrame *frame, const GstVideoInfo *info, GstBuffer *buf,
                               GstMapFlags flags, GstCudaContext *ctx)
{
    guint i, n = gst_buffer_n_memory(buf);
    if (!ctx || n == 0)
        return FALSE;
    for (i = 0; i < n; i++) {
        GstMemory *m = gst_buffer_peek_memory(buf, i);
        if (!gst_is_cuda_memory(m) || !same_context(GST_CUDA_MEMORY_CAST(m)->context, ctx))
            return FALSE;
    }
    return gst_video_frame_map(frame, (GstVideoInfo *)info, buf, (GstMapFlags)(flags | GST_MAP_CUDA));
}

/* A CUDA pool in ctx for caps, its buffers' size (pitched rows: larger
 * than the caps' size) in *size. */
static GstBufferPool *cuda_pool(GstCudaContext *ctx, GstBufferPool *pool, GstCaps *caps, guint *size,
                                guint min, guint max)
{
    GstStructure *config;
    if (!pool)
        pool = gst_cuda_buffer_pool_new(ctx);
    config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_set_params(config, caps, *size, min, max);
    if (!gst_buffer_pool_set_config(pool, config)) {
        gst_object_unref(pool);
        return NULL;
    }
    config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_get_params(config, NULL, size, NULL, NULL);
    gst_structure_free(config);
    return pool;
}

void jf_gst_cuda_propose(GstQuery *query, GstCudaContext *ctx)
{
    GstCaps *caps;
    gboolean need_pool;
    GstVideoInfo info;
    GstBufferPool *pool;
    guint size;
    gst_query_parse_allocation(query, &caps, &need_pool);
    if (!caps || !gst_video_info_from_caps(&info, caps))
        return;
    gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
    size = (guint)GST_VIDEO_INFO_SIZE(&info);
    if (need_pool && (pool = cuda_pool(ctx, NULL, caps, &size, 0, 0))) {
        gst_query_add_allocation_pool(query, pool, size, 0, 0);
        gst_object_unref(pool);
    }
}

gboolean jf_gst_cuda_decide(GstQuery *query, GstCudaContext *ctx)
{
    GstCaps *caps;
    GstVideoInfo info;
    GstBufferPool *pool = NULL;
    guint size, min = 0, max = 0;
    const gboolean update = gst_query_get_n_allocation_pools(query) > 0;
    gst_query_parse_allocation(query, &caps, NULL);
    if (!ctx || !caps || !gst_video_info_from_caps(&info, caps))
        return FALSE;
    size = (guint)GST_VIDEO_INFO_SIZE(&info);
    if (update) {
        gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min, &max);
        /* downstream's pool is taken only if its memory is in our context */
        if (pool && (!GST_IS_CUDA_BUFFER_POOL(pool) || !same_context(GST_CUDA_BUFFER_POOL(pool)->context, ctx))) {
            gst_object_unref(pool);
            pool = NULL;
        }
    }
    if (!(pool = cuda_pool(ctx, pool, caps, &size, min, max)))
        return FALSE;
    if (update)
        gst_query_set_nth_allocation_pool(query, 0, pool, size, min, max);
    else
        gst_query_add_allocation_pool(query, pool, size, min, max);
    gst_object_unref(pool);
    return TRUE;
}
