/*
 * The `jetfilter` element: a GstVideoFilter that runs one operation of
 * jetfilter's table on every frame, plane by plane (each plane bordered at
 * its own edges, a window of k of its own samples, as `jetfilter stream`),
 * on the CPU or a CUDA GPU, with the same bytes as the C library.
 *
 * Memory: system memory frames go to the library as host images (on a
 * CUDA context: copied in and out through its page-locked buffers).  On a
 * CUDA backend the element offers upstream a buffer pool of page-locked,
 * GPU-mapped memory (pinned_allocator.c); frames in it are read by the
 * kernels in place, with no staging copy.  Built with GStreamer's CUDA
 * library (1.22 and later, cuda_memory.c), it also takes and gives frames
 * in CUDA memory: the kernels read and write them where they are, on
 * CUDA's legacy default stream as that library's copies are, with no copy
 * and no wait for the GPU in the element.
 *
 * Uses GStreamer 1.14's API only (JetPack 4.6's); scripts/gst-api-level.sh
 * checks every GStreamer function the plugin calls against the versions
 * in the GObject-introspection files.
 */
#include "gst/element.h"
#include "gst/cuda_memory.h"
#include "gst/nvmm_memory.h"
#include "gst/pinned_allocator.h"
#include "gst/properties.h"

#include <math.h>
#include <string.h>
#ifdef JF_GST_CUDA
#include <cuda.h> /* CU_STREAM_LEGACY */
#endif

GST_DEBUG_CATEGORY_STATIC(jf_gst_debug);
#define GST_CAT_DEFAULT jf_gst_debug

#define FORMATS "{ GRAY8, GRAY16_LE, I420, YV12, NV12, Y42B, Y444, RGB, BGR, RGBA, BGRA, RGBx, BGRx }"
#define SIZES "width = (int) [ 1, max ], height = (int) [ 1, max ], framerate = (fraction) [ 0, max ]"
#ifdef JF_GST_CUDA
/* in CUDA memory: the formats GStreamer's CUDA memory lays out (no grey)
 * without a byte to keep (alpha, padding) */
#define CUDA_CAPS "; video/x-raw(" JF_GST_CUDA_FEATURE "), format = (string) { I420, YV12, NV12, Y42B, Y444, RGB, BGR }, " SIZES
#else
#define CUDA_CAPS ""
#endif
#ifdef JF_GST_NVMM
/* a Jetson's surfaces: the planar YUV of its cameras, decoders and nvvidconv */
#define NVMM_CAPS "; video/x-raw(" JF_GST_NVMM_FEATURE "), format = (string) { NV12, I420 }, " SIZES
#else
#define NVMM_CAPS ""
#endif
#define CAPS "video/x-raw, format = (string) " FORMATS ", " SIZES CUDA_CAPS NVMM_CAPS
enum { MEMORY_SYSTEM, MEMORY_CUDA, MEMORY_NVMM };

struct _GstJetfilter {
    GstVideoFilter parent;
    GMutex lock;           /* the settings, against the streaming thread */
    int filter;            /* index into the filter enum */
    int backend, device, planes;
    GValue *values;        /* one per parameter of jf_gst_params() (unset: G_TYPE_INVALID) */
    int value_count;
    gboolean dirty;        /* settings changed: make the plan again */
    jf_plan *plan;         /* streaming thread's: the operation, resolved */
    jf_context *ctx;       /* made at start */
    GstAllocator *pinned;  /* offered upstream on a CUDA context */
    int memory;            /* the negotiated caps': MEMORY_SYSTEM, MEMORY_CUDA, MEMORY_NVMM */
#ifdef JF_GST_CUDA
    GstCudaContext *cuda;  /* the device's primary context, shared with the neighbours */
    gboolean told_foreign; /* a frame from another context was logged */
#endif
    /* measured */
    guint64 frames;
    double ms_total, ms_max_recent;
    GstClockTime latency;  /* what the element answers in latency queries */
};

G_DEFINE_TYPE(GstJetfilter, gst_jetfilter, GST_TYPE_VIDEO_FILTER)

static const char *filter_name(int index)
{
    GEnumClass *k = (GEnumClass *)g_type_class_ref(jf_gst_filter_enum());
    GEnumValue *v = g_enum_get_value(k, index);
    const char *name = v ? v->value_nick : "median";
    g_type_class_unref(k);
    return name;
}

static void gst_jetfilter_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
    GstJetfilter *self = GST_JETFILTER(object);
    int n;
    g_mutex_lock(&self->lock);
    switch (id) {
    case PROP_FILTER: self->filter = g_value_get_enum(value); break;
    case PROP_BACKEND: self->backend = g_value_get_enum(value); break;
    case PROP_DEVICE: self->device = g_value_get_int(value); break;
    case PROP_PLANES: self->planes = g_value_get_enum(value); break;
    default:
        jf_gst_params(&n);
        if (id >= PROP_PARAM0 && (int)(id - PROP_PARAM0) < n) {
            GValue *v = &self->values[id - PROP_PARAM0];
            if (G_IS_VALUE(v))
                g_value_unset(v);
            g_value_init(v, G_VALUE_TYPE(value));
            g_value_copy(value, v);
        } else {
            G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
        }
    }
    self->dirty = TRUE; /* the next frame makes the plan again */
    g_mutex_unlock(&self->lock);
}

static char *stats_text(GstJetfilter *self)
{
    jf_stat_total t[32];
    size_t n = self->ctx ? jf_stats_totals(self->ctx, t, 32) : 0, i;
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "frames %" G_GUINT64_FORMAT ", %.3f ms a frame, latency %.3f ms",
                           self->frames, self->frames ? self->ms_total / self->frames : 0.0,
                           self->latency / 1e6);
    for (i = 0; i < n && i < 32; i++)
        g_string_append_printf(s, "; %s%s%s %.3f ms a call (%" G_GUINT64_FORMAT " calls)", t[i].name,
                               t[i].variant[0] ? "/" : "", t[i].variant,
                               t[i].calls ? t[i].ms / t[i].calls : 0.0, (guint64)t[i].calls);
    return g_string_free(s, FALSE);
}

static void gst_jetfilter_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    GstJetfilter *self = GST_JETFILTER(object);
    int n;
    g_mutex_lock(&self->lock);
    switch (id) {
    case PROP_FILTER: g_value_set_enum(value, self->filter); break;
    case PROP_BACKEND: g_value_set_enum(value, self->backend); break;
    case PROP_DEVICE: g_value_set_int(value, self->device); break;
    case PROP_PLANES: g_value_set_enum(value, self->planes); break;
    case PROP_STATS: g_value_take_string(value, stats_text(self)); break;
    default:
        jf_gst_params(&n);
        if (id >= PROP_PARAM0 && (int)(id - PROP_PARAM0) < n) {
            GValue *v = &self->values[id - PROP_PARAM0];
            if (G_IS_VALUE(v))
                g_value_copy(v, value);
            else
                g_param_value_set_default(pspec, value);
        } else {
            G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
        }
    }
    g_mutex_unlock(&self->lock);
}

/* The plan from the settings, under the lock.  A parameter the filter does
 * not take is left out; a value the filter refuses posts an error naming
 * it (the library's message). */
static gboolean make_plan(GstJetfilter *self)
{
    const jf_gst_param *params;
    const jf_op_info *op;
    jf_plan *plan = NULL;
    jf_status st;
    int i, n;
    if (!self->dirty && self->plan)
        return TRUE;
    params = jf_gst_params(&n);
    if ((st = jf_plan_create(filter_name(self->filter), &plan)) != JF_OK)
        goto fail;
    op = jf_plan_op(plan);
    for (i = 0; i < n; i++) {
        const GValue *v = &self->values[i];
        if (!G_IS_VALUE(v) || !jf_op_param(op, params[i].name))
            continue;
        switch (params[i].type) {
        case JF_PARAM_INT:
            st = g_value_get_int(v) ? jf_plan_set_int(plan, params[i].name, g_value_get_int(v)) : JF_OK;
            break;
        case JF_PARAM_DOUBLE:
            st = g_value_get_double(v) > 0 ? jf_plan_set_double(plan, params[i].name, g_value_get_double(v))
                                           : JF_OK;
            break;
        case JF_PARAM_CHOICE:
            st = jf_plan_set(plan, params[i].name, params[i].choices[g_value_get_enum(v)]);
            break;
        default:
            st = g_value_get_string(v) ? jf_plan_set(plan, params[i].name, g_value_get_string(v)) : JF_OK;
        }
        if (st != JF_OK)
            goto fail;
    }
    if ((st = jf_plan_prepare(plan)) != JF_OK)
        goto fail;
    jf_plan_free(self->plan);
    self->plan = plan;
    self->dirty = FALSE;
    GST_INFO_OBJECT(self, "filter: %s", jf_plan_describe(plan));
    return TRUE;
fail:
    jf_plan_free(plan);
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("jetfilter: %s", jf_last_error()),
                      ("the element's settings do not make a plan (%s)", jf_status_str(st)));
    return FALSE;
}

static gboolean gst_jetfilter_start(GstBaseTransform *trans)
{
    GstJetfilter *self = GST_JETFILTER(trans);
    jf_context_options o = jf_context_defaults();
    jf_status st;
    o.backend = (jf_backend)self->backend;
    o.device = self->device;
    o.stats = 256; /* the stats property and the debug log */
#ifdef JF_GST_CUDA
    if (self->cuda) /* ordered with GStreamer's CUDA copies, which use it */
        o.stream = (void *)CU_STREAM_LEGACY;
#endif
    if ((st = jf_context_create(&o, &self->ctx)) != JF_OK) {
        GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("jetfilter: %s", jf_last_error()),
                          ("backend %d, device %d", self->backend, self->device));
        return FALSE;
    }
    if (jf_context_note(self->ctx)[0])
        GST_WARNING_OBJECT(self, "%s", jf_context_note(self->ctx));
    /* settings that make no plan fail the state change, before any frame
     * flows (a flow error before preroll can leave gst-launch waiting) */
    g_mutex_lock(&self->lock);
    self->dirty = TRUE;
    if (!make_plan(self)) {
        g_mutex_unlock(&self->lock);
        jf_context_destroy(self->ctx);
        self->ctx = NULL;
        return FALSE;
    }
    g_mutex_unlock(&self->lock);
    self->frames = 0;
    self->ms_total = self->ms_max_recent = 0;
    self->latency = 0;
    return TRUE;
}

static gboolean gst_jetfilter_stop(GstBaseTransform *trans)
{
    GstJetfilter *self = GST_JETFILTER(trans);
    jf_context_destroy(self->ctx);
    self->ctx = NULL;
    if (self->pinned) {
        gst_object_unref(self->pinned);
        self->pinned = NULL;
    }
    return TRUE;
}

/* One plane of a frame of `info` as the library's image: its samples at
 * `data`, rows `stride` bytes apart, where `loc` says. */
static jf_image plane_image_at(const GstVideoInfo *info, int plane, void *data, size_t stride, jf_location loc)
{
    const GstVideoFormatInfo *fi = info->finfo;
    int comp = 0, c;
    jf_image img;
    for (c = 0; c < (int)GST_VIDEO_FORMAT_INFO_N_COMPONENTS(fi); c++)
        if ((int)GST_VIDEO_FORMAT_INFO_PLANE(fi, c) == plane) {
            comp = c;
            break;
        }
    {
        const int sample_bytes = GST_VIDEO_FORMAT_INFO_DEPTH(fi, comp) > 8 ? 2 : 1;
        const int pstride = GST_VIDEO_INFO_COMP_PSTRIDE(info, comp);
        img = jf_image_wrap_as(data, GST_VIDEO_INFO_COMP_WIDTH(info, comp), GST_VIDEO_INFO_COMP_HEIGHT(info, comp),
                               pstride / sample_bytes, stride, sample_bytes == 2 ? JF_SAMPLE_U16 : JF_SAMPLE_U8);
    }
    img.location = loc;
    return img;
}

static jf_image plane_image(GstVideoFrame *f, int plane, jf_location loc)
{
    return plane_image_at(&f->info, plane, GST_VIDEO_FRAME_PLANE_DATA(f, plane),
                          (size_t)GST_VIDEO_FRAME_PLANE_STRIDE(f, plane), loc);
}

/* A packed format's alpha or padding byte (RGBA, RGBx ...): its offset in
 * the pixel, or -1.  The filter runs on all four; this byte is then put
 * back as it came. */
static int untouched_byte(const GstVideoFormatInfo *fi)
{
    int used[4] = {0}, c, i;
    if (GST_VIDEO_FORMAT_INFO_N_PLANES(fi) != 1 || GST_VIDEO_FORMAT_INFO_PSTRIDE(fi, 0) != 4 ||
        GST_VIDEO_FORMAT_INFO_IS_GRAY(fi))
        return -1;
    for (c = 0; c < 3; c++)
        used[GST_VIDEO_FORMAT_INFO_POFFSET(fi, c)] = 1;
    for (i = 0; i < 4; i++)
        if (!used[i])
            return i;
    return -1;
}

static void restore_byte(GstVideoFrame *in, GstVideoFrame *out, int offset)
{
    const int w = GST_VIDEO_FRAME_WIDTH(in), h = GST_VIDEO_FRAME_HEIGHT(in);
    int x, y;
    for (y = 0; y < h; y++) {
        const guint8 *s = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA(in, 0) + (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE(in, 0);
        guint8 *d = (guint8 *)GST_VIDEO_FRAME_PLANE_DATA(out, 0) + (gsize)y * GST_VIDEO_FRAME_PLANE_STRIDE(out, 0);
        for (x = 0; x < w; x++)
            d[4 * x + offset] = s[4 * x + offset];
    }
}

/* Memory the GPU addresses (our pinned pool's): the library reads it in place. */
static jf_location frame_location(GstBuffer *buf)
{
    guint i;
    for (i = 0; i < gst_buffer_n_memory(buf); i++)
        if (!jf_gst_is_pinned(gst_buffer_peek_memory(buf, i)))
            return JF_LOC_HOST;
    return gst_buffer_n_memory(buf) ? JF_LOC_MAPPED : JF_LOC_HOST;
}

/* A frame of `info` through the plan, plane by plane (src[p] to dst[p],
 * wherever they are); with planes=luma the others copied unchanged (by
 * the GPU where a plane is in device memory: the library waits for that
 * copy).  `wait`: the frame is read on the host next (mapped pinned
 * memory, NVMM surfaces), so the GPU is waited for. */
static GstFlowReturn filter_planes(GstJetfilter *self, const GstVideoInfo *info, jf_image *src, jf_image *dst,
                                   int nplanes, gboolean wait)
{
    gint64 t0 = g_get_monotonic_time();
    int p, planes;
    jf_status st = JF_OK;
    double ms;
    g_mutex_lock(&self->lock);
    if (!make_plan(self)) {
        g_mutex_unlock(&self->lock);
        return GST_FLOW_ERROR;
    }
    planes = self->planes == 1 ? 1 : nplanes; /* luma: the rest passes unchanged */
    for (p = 0; p < nplanes && st == JF_OK; p++) {
        if (p >= planes)
            st = src[p].location == JF_LOC_HOST && dst[p].location == JF_LOC_HOST
                     ? jf_image_copy(&src[p], &dst[p])
                     : jf_image_transfer(self->ctx, &src[p], &dst[p]);
        else
            st = jf_plan_run(self->ctx, self->plan, &src[p], &dst[p], NULL);
    }
    if (st == JF_OK && wait)
        st = jf_context_sync(self->ctx); /* the frame goes downstream now */
    g_mutex_unlock(&self->lock);
    if (st != JF_OK) {
        GST_ELEMENT_ERROR(self, STREAM, FAILED, ("jetfilter: %s", jf_last_error()),
                          ("plane %d of a %dx%d %s frame", p - 1, GST_VIDEO_INFO_WIDTH(info),
                           GST_VIDEO_INFO_HEIGHT(info), gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(info))));
        return GST_FLOW_ERROR;
    }
    ms = (g_get_monotonic_time() - t0) / 1000.0;
    self->frames++;
    self->ms_total += ms;
    /* the latency answered: the slowest frame lately (decaying, so one slow
     * first frame does not stay), posted when it grows by a quarter */
    self->ms_max_recent = MAX(ms, self->ms_max_recent * 0.99);
    if (self->ms_max_recent * 1e6 > self->latency * 1.25 + 100000) {
        self->latency = (GstClockTime)(self->ms_max_recent * 1.25 * 1e6);
        gst_element_post_message(GST_ELEMENT(self), gst_message_new_latency(GST_OBJECT(self)));
    }
    GST_LOG_OBJECT(self, "frame %" G_GUINT64_FORMAT ": %.3f ms", self->frames, ms);
    return GST_FLOW_OK;
}

/* A mapped frame through the plan, its planes where `in_loc` and `out_loc`
 * say; a packed format's kept byte put back (on the host: such formats are
 * never in device memory). */
static GstFlowReturn filter_frame(GstJetfilter *self, GstVideoFrame *in, GstVideoFrame *out,
                                  jf_location in_loc, jf_location out_loc, gboolean wait)
{
    jf_image src[GST_VIDEO_MAX_PLANES], dst[GST_VIDEO_MAX_PLANES];
    const int nplanes = GST_VIDEO_FRAME_N_PLANES(in);
    GstFlowReturn ret;
    int p, alpha;
    for (p = 0; p < nplanes; p++) {
        src[p] = plane_image(in, p, in_loc);
        dst[p] = plane_image(out, p, out_loc);
    }
    ret = filter_planes(self, &in->info, src, dst, nplanes, wait);
    if (ret == GST_FLOW_OK && (alpha = untouched_byte(in->info.finfo)) >= 0)
        restore_byte(in, out, alpha);
    return ret;
}

static GstFlowReturn gst_jetfilter_transform_frame(GstVideoFilter *filter, GstVideoFrame *in,
                                                   GstVideoFrame *out)
{
    GstJetfilter *self = GST_JETFILTER(filter);
    const jf_location in_loc = self->pinned ? frame_location(in->buffer) : JF_LOC_HOST;
    const jf_location out_loc = self->pinned ? frame_location(out->buffer) : JF_LOC_HOST;
    return filter_frame(self, in, out, in_loc, out_loc, in_loc != JF_LOC_HOST || out_loc != JF_LOC_HOST);
}

#if defined(JF_GST_CUDA) || defined(JF_GST_NVMM)
/* Whether structure i of caps names frames in `feature`'s memory. */
static gboolean structure_in(const GstCaps *caps, guint i, const char *feature)
{
    GstCapsFeatures *f = gst_caps_get_features(caps, i);
    return f && !gst_caps_features_is_any(f) && gst_caps_features_contains(f, feature);
}

/* Whether caps (fixed or not) name frames in `feature`'s memory. */
static gboolean caps_in(const GstCaps *caps, const char *feature)
{
    guint i;
    for (i = 0; caps && i < gst_caps_get_size(caps); i++)
        if (structure_in(caps, i, feature))
            return TRUE;
    return FALSE;
}

/* `caps` without its structures in `feature`'s memory. */
static GstCaps *caps_without(GstCaps *caps, const char *feature)
{
    guint i;
    if (!caps_in(caps, feature))
        return caps;
    caps = gst_caps_make_writable(caps);
    for (i = gst_caps_get_size(caps); i-- > 0;)
        if (structure_in(caps, i, feature))
            gst_caps_remove_structure(caps, i);
    return caps;
}
#endif

#ifdef JF_GST_CUDA
/* Frames in CUDA memory: mapped for the GPU where their memory is in our
 * context; another context's (an application's own) through host memory,
 * as GStreamer maps it, said once in the log. */
static gboolean map_cuda_frame(GstJetfilter *self, GstVideoFrame *f, const GstVideoInfo *info,
                               GstBuffer *buf, GstMapFlags flags, jf_location *loc)
{
    if (jf_gst_cuda_frame_map(f, info, buf, flags, self->cuda)) {
        *loc = JF_LOC_DEVICE;
        return TRUE;
    }
    if (!self->told_foreign) {
        GST_WARNING_OBJECT(self, "a frame in CUDA memory of another context: copied through host memory");
        self->told_foreign = TRUE;
    }
    *loc = JF_LOC_HOST;
    return gst_video_frame_map(f, (GstVideoInfo *)info, buf, flags);
}

static GstFlowReturn transform_cuda(GstJetfilter *self, GstBuffer *inbuf, GstBuffer *outbuf)
{
    GstVideoFilter *filter = GST_VIDEO_FILTER(self);
    GstVideoFrame in, out;
    jf_location in_loc, out_loc;
    GstFlowReturn ret;
    if (!map_cuda_frame(self, &in, &filter->in_info, inbuf, GST_MAP_READ, &in_loc))
        goto unmappable;
    if (!map_cuda_frame(self, &out, &filter->out_info, outbuf, GST_MAP_WRITE, &out_loc)) {
        gst_video_frame_unmap(&in);
        goto unmappable;
    }
    ret = filter_frame(self, &in, &out, in_loc, out_loc, FALSE);
    gst_video_frame_unmap(&out);
    gst_video_frame_unmap(&in);
    return ret;
unmappable:
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("jetfilter: a frame in CUDA memory could not be mapped"), (NULL));
    return GST_FLOW_ERROR;
}

static GstStateChangeReturn gst_jetfilter_change_state(GstElement *element, GstStateChange change)
{
    GstJetfilter *self = GST_JETFILTER(element);
    GstStateChangeReturn ret;
    /* before the neighbours start and ask for a context */
    if (change == GST_STATE_CHANGE_NULL_TO_READY && !self->cuda && self->backend != JF_BACKEND_CPU) {
        self->cuda = jf_gst_cuda_context_new(self->device);
        GST_DEBUG_OBJECT(self, "CUDA memory: %s", self->cuda ? "the device's primary context"
                                                                : "no CUDA driver or device");
    }
    ret = GST_ELEMENT_CLASS(gst_jetfilter_parent_class)->change_state(element, change);
    if (change == GST_STATE_CHANGE_READY_TO_NULL) {
        jf_gst_cuda_context_free(self->cuda);
        self->cuda = NULL;
    }
    return ret;
}
#endif

#ifdef JF_GST_NVMM
/* A Jetson's NVMM surfaces, registered with CUDA through EGL for the
 * frame; the engines downstream (encoders, nvvidconv) know no CUDA stream,
 * so the frame is waited for before the surfaces are let go. */
static GstFlowReturn transform_nvmm(GstJetfilter *self, GstBuffer *inbuf, GstBuffer *outbuf)
{
    const GstVideoInfo *info = &GST_VIDEO_FILTER(self)->in_info;
    const int nplanes = GST_VIDEO_INFO_N_PLANES(info);
    jf_image src[GST_VIDEO_MAX_PLANES], dst[GST_VIDEO_MAX_PLANES];
    jf_gst_nvmm_frame in, out;
    const char *why = NULL;
    GstFlowReturn ret = GST_FLOW_ERROR;
    int p;
    if (!jf_gst_nvmm_map(inbuf, GST_MAP_READ, &in, &why))
        goto fail;
    if (!jf_gst_nvmm_map(outbuf, GST_MAP_WRITE, &out, &why)) {
        jf_gst_nvmm_unmap(&in);
        goto fail;
    }
    if (in.planes == nplanes && out.planes == nplanes) {
        for (p = 0; p < nplanes; p++) {
            src[p] = plane_image_at(info, p, in.data[p], in.pitch[p], JF_LOC_DEVICE);
            dst[p] = plane_image_at(info, p, out.data[p], out.pitch[p], JF_LOC_DEVICE);
        }
        ret = filter_planes(self, info, src, dst, nplanes, TRUE);
    } else {
        why = "the surface's planes are not those of the caps' format";
    }
    jf_gst_nvmm_unmap(&out);
    jf_gst_nvmm_unmap(&in);
    if (ret == GST_FLOW_OK || !why)
        return ret;
fail:
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("jetfilter: a frame in NVMM memory: %s", why), (NULL));
    return GST_FLOW_ERROR;
}
#endif

#if defined(JF_GST_CUDA) || defined(JF_GST_NVMM)
static GstFlowReturn (*parent_transform)(GstBaseTransform *, GstBuffer *, GstBuffer *);

static GstFlowReturn gst_jetfilter_transform(GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
    GstJetfilter *self = GST_JETFILTER(trans);
#ifdef JF_GST_CUDA
    if (self->memory == MEMORY_CUDA)
        return transform_cuda(self, inbuf, outbuf);
#endif
#ifdef JF_GST_NVMM
    if (self->memory == MEMORY_NVMM)
        return transform_nvmm(self, inbuf, outbuf);
#endif
    return parent_transform(trans, inbuf, outbuf);
}

/* The memory the negotiated caps name: the same on both pads. */
static int caps_memory(const GstCaps *caps)
{
#ifdef JF_GST_CUDA
    if (caps_in(caps, JF_GST_CUDA_FEATURE))
        return MEMORY_CUDA;
#endif
#ifdef JF_GST_NVMM
    if (caps_in(caps, JF_GST_NVMM_FEATURE))
        return MEMORY_NVMM;
#endif
    return MEMORY_SYSTEM;
}

static gboolean gst_jetfilter_set_info(GstVideoFilter *filter, GstCaps *incaps, GstVideoInfo *in_info,
                                       GstCaps *outcaps, GstVideoInfo *out_info)
{
    GstJetfilter *self = GST_JETFILTER(filter);
    (void)in_info;
    (void)out_info;
    self->memory = caps_memory(incaps);
    if (self->memory != caps_memory(outcaps)) {
        GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("jetfilter: frames in one memory in and another out: put "
                                                    "cudaupload, cudadownload or nvvidconv beside it"),
                          (NULL));
        return FALSE;
    }
    return TRUE;
}

/* Device memory caps only where they can be run: CUDA memory with a CUDA
 * context (not the CPU backend, a driver there), NVMM not on the CPU. */
static GstCaps *gst_jetfilter_transform_caps(GstBaseTransform *trans, GstPadDirection dir, GstCaps *caps,
                                             GstCaps *filter)
{
    GstJetfilter *self = GST_JETFILTER(trans);
    GstCaps *ret = GST_BASE_TRANSFORM_CLASS(gst_jetfilter_parent_class)->transform_caps(trans, dir, caps, filter);
#ifdef JF_GST_CUDA
    if (!self->cuda)
        ret = caps_without(ret, JF_GST_CUDA_FEATURE);
#endif
#ifdef JF_GST_NVMM
    if (self->backend == JF_BACKEND_CPU)
        ret = caps_without(ret, JF_GST_NVMM_FEATURE);
#endif
    (void)self;
    return ret;
}

static gboolean gst_jetfilter_decide_allocation(GstBaseTransform *trans, GstQuery *query)
{
    GstJetfilter *self = GST_JETFILTER(trans);
    GstCaps *caps;
    gst_query_parse_allocation(query, &caps, NULL);
#ifdef JF_GST_CUDA
    if (caps_in(caps, JF_GST_CUDA_FEATURE))
        return jf_gst_cuda_decide(query, self->cuda);
#endif
#ifdef JF_GST_NVMM
    /* NVMM surfaces come from downstream's pool (nvvidconv's, an encoder's) */
    if (caps_in(caps, JF_GST_NVMM_FEATURE) && gst_query_get_n_allocation_pools(query) == 0) {
        GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("jetfilter: no pool of NVMM buffers downstream: put nvvidconv "
                                                    "after the element"), (NULL));
        return FALSE;
    }
#endif
    (void)self;
    return GST_BASE_TRANSFORM_CLASS(gst_jetfilter_parent_class)->decide_allocation(trans, query);
}
#endif

static gboolean gst_jetfilter_query(GstBaseTransform *trans, GstPadDirection dir, GstQuery *query)
{
    GstJetfilter *self = GST_JETFILTER(trans);
    if (GST_QUERY_TYPE(query) == GST_QUERY_LATENCY && dir == GST_PAD_SRC) {
        GstClockTime min, max;
        gboolean live;
        if (!gst_pad_peer_query(GST_BASE_TRANSFORM_SINK_PAD(trans), query))
            return FALSE;
        gst_query_parse_latency(query, &live, &min, &max);
        min += self->latency;
        if (max != GST_CLOCK_TIME_NONE)
            max += self->latency;
        gst_query_set_latency(query, live, min, max);
        return TRUE;
    }
#ifdef JF_GST_CUDA
    if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT && self->cuda &&
        gst_cuda_handle_context_query(GST_ELEMENT(self), query, self->cuda))
        return TRUE;
#endif
    return GST_BASE_TRANSFORM_CLASS(gst_jetfilter_parent_class)->query(trans, dir, query);
}

/* On a CUDA context, upstream is offered a pool of page-locked memory the
 * GPU maps: frames in it reach the kernels with no staging copy. */
static gboolean gst_jetfilter_propose_allocation(GstBaseTransform *trans, GstQuery *decide, GstQuery *query)
{
    GstJetfilter *self = GST_JETFILTER(trans);
    GstCaps *caps;
    GstVideoInfo info;
    GstBufferPool *pool;
    GstStructure *config;
    if (!GST_BASE_TRANSFORM_CLASS(gst_jetfilter_parent_class)->propose_allocation(trans, decide, query))
        return FALSE;
    gst_query_parse_allocation(query, &caps, NULL);
#if defined(JF_GST_CUDA) || defined(JF_GST_NVMM)
    /* frames in device memory: a pool in our CUDA context; NVMM surfaces
     * come from upstream's own pool.  The pinned pool is system memory's. */
    switch (caps_memory(caps)) {
#ifdef JF_GST_CUDA
    case MEMORY_CUDA:
        if (self->cuda)
            jf_gst_cuda_propose(query, self->cuda);
        return TRUE;
#endif
    case MEMORY_NVMM:
        return TRUE;
    default:
        break;
    }
#endif
    if (!self->ctx || jf_context_backend(self->ctx) != JF_BACKEND_CUDA)
        return TRUE;
    if (!caps || !gst_video_info_from_caps(&info, caps))
        return TRUE;
    if (!self->pinned)
        self->pinned = jf_gst_pinned_allocator_new(self->ctx);
    pool = gst_video_buffer_pool_new();
    config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, (guint)GST_VIDEO_INFO_SIZE(&info), 2, 0);
    gst_buffer_pool_config_set_allocator(config, self->pinned, NULL);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config(pool, config)) {
        gst_object_unref(pool);
        return TRUE;
    }
    gst_query_add_allocation_pool(query, pool, (guint)GST_VIDEO_INFO_SIZE(&info), 2, 0);
    gst_query_add_allocation_param(query, self->pinned, NULL);
    gst_object_unref(pool);
    GST_DEBUG_OBJECT(self, "offered a pool of page-locked, GPU-mapped buffers");
    return TRUE;
}

static void gst_jetfilter_finalize(GObject *object)
{
    GstJetfilter *self = GST_JETFILTER(object);
    int i;
    for (i = 0; i < self->value_count; i++)
        if (G_IS_VALUE(&self->values[i]))
            g_value_unset(&self->values[i]);
    g_free(self->values);
    jf_plan_free(self->plan);
    g_mutex_clear(&self->lock);
    G_OBJECT_CLASS(gst_jetfilter_parent_class)->finalize(object);
}

static void gst_jetfilter_class_init(GstJetfilterClass *klass)
{
    GObjectClass *gobject = G_OBJECT_CLASS(klass);
    GstElementClass *element = GST_ELEMENT_CLASS(klass);
    GstBaseTransformClass *trans = GST_BASE_TRANSFORM_CLASS(klass);
    GstVideoFilterClass *video = GST_VIDEO_FILTER_CLASS(klass);
    GstCaps *caps = gst_caps_from_string(CAPS);
    GST_DEBUG_CATEGORY_INIT(jf_gst_debug, "jetfilter", 0, "jetfilter: filters on frames");
    gobject->set_property = gst_jetfilter_set_property;
    gobject->get_property = gst_jetfilter_get_property;
    gobject->finalize = gst_jetfilter_finalize;
    jf_gst_install_properties(gobject);
    gst_element_class_set_static_metadata(element, "jetfilter", "Filter/Effect/Video",
        "Median filters (plain, adaptive, switching, automatic for impulse noise), box, Gaussian, "
        "sharpen, Laplace and k x k convolutions on every frame, on a CUDA GPU or the CPU, "
        "byte for byte as the jetfilter library", "jetfilter");
    gst_element_class_add_pad_template(element, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
    gst_element_class_add_pad_template(element, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
    gst_caps_unref(caps);
    trans->start = gst_jetfilter_start;
    trans->stop = gst_jetfilter_stop;
    trans->query = gst_jetfilter_query;
    trans->propose_allocation = gst_jetfilter_propose_allocation;
    video->transform_frame = gst_jetfilter_transform_frame;
#if defined(JF_GST_CUDA) || defined(JF_GST_NVMM)
    parent_transform = trans->transform;
    trans->transform = gst_jetfilter_transform;
    trans->transform_caps = gst_jetfilter_transform_caps;
    trans->decide_allocation = gst_jetfilter_decide_allocation;
    video->set_info = gst_jetfilter_set_info;
#endif
#ifdef JF_GST_CUDA
    element->change_state = gst_jetfilter_change_state;
#endif
}

static void gst_jetfilter_init(GstJetfilter *self)
{
    int n;
    jf_gst_params(&n);
    g_mutex_init(&self->lock);
    self->values = g_new0(GValue, n); /* unset: the filter's own defaults */
    self->value_count = n;
    self->dirty = TRUE;
    /* every frame filtered, in order: no quality-of-service dropping */
    gst_base_transform_set_qos_enabled(GST_BASE_TRANSFORM(self), FALSE);
}

gboolean jf_gst_register(GstPlugin *plugin)
{
    return gst_element_register(plugin, "jetfilter", GST_RANK_NONE, GST_TYPE_JETFILTER);
}
