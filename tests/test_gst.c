/*
 * The GStreamer element against the C library, with GStreamer's test
 * harness: every caps format at odd sizes, every filter of the table, every
 * border, byte for byte what the library makes of each plane (each plane
 * bordered at its own edges, as `jetfilter stream`; alpha and padding bytes
 * untouched); properties changed while playing; settings and caps that do
 * not fit refused with a message.  The plane geometry here is written out
 * by hand, not taken from GStreamer, so a wrong plane in the element shows.
 * Run with GST_PLUGIN_PATH naming the plugin's folder (CTest does).
 * JF_GST_BACKEND=cuda runs the element on the GPU (scripts/gpu.sh gst): the
 * library's CPU result is still the reference, medians to the byte, the
 * convolutions within one level.  Built with GStreamer's CUDA library, the
 * same frames also go in and out in CUDA memory (the element's own context,
 * and another's), on a GPU; here the caps are checked.
 */
#include "common.h"

#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#ifdef JF_GST_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct plane_geom {
    int wdiv, hdiv, channels, bytes; /* size: ceil(W / wdiv) x ceil(H / hdiv) */
} plane_geom;

typedef struct format_case {
    const char *name;
    int nplanes;
    plane_geom p[3];
    int keep_byte; /* packed 4-byte pixels: the byte that passes unchanged, else -1 */
} format_case;

static const format_case FORMATS[] = {
    {"GRAY8", 1, {{1, 1, 1, 1}}, -1},
    {"GRAY16_LE", 1, {{1, 1, 1, 2}}, -1},
    {"I420", 3, {{1, 1, 1, 1}, {2, 2, 1, 1}, {2, 2, 1, 1}}, -1},
    {"YV12", 3, {{1, 1, 1, 1}, {2, 2, 1, 1}, {2, 2, 1, 1}}, -1},
    {"NV12", 2, {{1, 1, 1, 1}, {2, 2, 2, 1}}, -1},
    {"Y42B", 3, {{1, 1, 1, 1}, {2, 1, 1, 1}, {2, 1, 1, 1}}, -1},
    {"Y444", 3, {{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}}, -1},
    {"RGB", 1, {{1, 1, 3, 1}}, -1},
    {"BGR", 1, {{1, 1, 3, 1}}, -1},
    {"RGBA", 1, {{1, 1, 4, 1}}, 3},
    {"BGRA", 1, {{1, 1, 4, 1}}, 3},
    {"RGBx", 1, {{1, 1, 4, 1}}, 3},
    {"BGRx", 1, {{1, 1, 4, 1}}, 3},
};
#define NFORMATS (int)(sizeof FORMATS / sizeof FORMATS[0])

static jf_context *g_cpu;
static const char *g_backend = "cpu";
/* where the frames one_frame pushes are: system memory, CUDA memory of the
 * element's context, or of another context */
enum { IN_SYSTEM, IN_CUDA, IN_CUDA_ELSEWHERE };
static int g_memory = IN_SYSTEM;
static int g_luma_only; /* one_frame's element has planes=luma */

static int cdiv(int a, int b) { return (a + b - 1) / b; }

/* A frame as planes of random samples, tightly packed (our own layout). */
typedef struct frame_planes {
    jf_image plane[3];
} frame_planes;

static frame_planes make_frame(const format_case *f, int w, int h, uint64_t seed)
{
    frame_planes fp;
    int i;
    memset(&fp, 0, sizeof fp);
    for (i = 0; i < f->nplanes; i++)
        fp.plane[i] = f->p[i].bytes == 2
                          ? t_random_image16(cdiv(w, f->p[i].wdiv), cdiv(h, f->p[i].hdiv),
                                             f->p[i].channels, 0, 0, seed + (uint64_t)i)
                          : t_random_image(cdiv(w, f->p[i].wdiv), cdiv(h, f->p[i].hdiv),
                                           f->p[i].channels, 0, seed + (uint64_t)i);
    return fp;
}

static void free_frame(frame_planes *fp)
{
    int i;
    for (i = 0; i < 3; i++)
        jf_image_free(&fp->plane[i]);
}

/* Our planes into a GstBuffer laid out as GStreamer lays out `info`. */
static GstBuffer *to_buffer(const format_case *f, const frame_planes *fp, GstVideoInfo *info)
{
    GstBuffer *buf = gst_buffer_new_allocate(NULL, GST_VIDEO_INFO_SIZE(info), NULL);
    GstVideoFrame vf;
    int i, y;
    assert_true(gst_video_frame_map(&vf, info, buf, GST_MAP_WRITE));
    for (i = 0; i < f->nplanes; i++) {
        const jf_image *p = &fp->plane[i];
        const size_t row = (size_t)p->width * p->channels * f->p[i].bytes;
        assert_int_equal(GST_VIDEO_FRAME_COMP_WIDTH(&vf, i == 0 ? 0 : i), p->width);
        for (y = 0; y < p->height; y++)
            memcpy((guint8 *)GST_VIDEO_FRAME_PLANE_DATA(&vf, i) + (size_t)y * GST_VIDEO_FRAME_PLANE_STRIDE(&vf, i),
                   p->data + (size_t)y * p->stride, row);
    }
    gst_video_frame_unmap(&vf);
    return buf;
}

#ifdef JF_GST_CUDA
/* The element's CUDA context, as its neighbours get it: the context query. */
static GstCudaContext *element_context(GstHarness *hn)
{
    GstQuery *q = gst_query_new_context("gst.cuda.context");
    GstContext *c = NULL;
    GstCudaContext *ctx = NULL;
    assert_true(gst_pad_peer_query(hn->srcpad, q));
    gst_query_parse_context(q, &c);
    assert_non_null(c);
    {   /* the field's name is the library's own ("gst.cuda.context" in 1.22): found by its type */
        const GstStructure *st = gst_context_get_structure(c);
        int i;
        for (i = 0; i < gst_structure_n_fields(st) && !ctx; i++) {
            const GValue *v = gst_structure_get_value(st, gst_structure_nth_field_name(st, (guint)i));
            if (G_VALUE_HOLDS(v, GST_TYPE_CUDA_CONTEXT))
                ctx = (GstCudaContext *)g_value_dup_object(v);
        }
    }
    assert_non_null(ctx);
    gst_query_unref(q);
    return ctx;
}

/* Our planes in a buffer of CUDA memory (the element's context, or a
 * context of its own), written through GStreamer's host mapping. */
static GstBuffer *to_cuda_buffer(GstHarness *hn, const format_case *f, const frame_planes *fp, GstVideoInfo *info)
{
    GstCudaContext *ctx = g_memory == IN_CUDA ? element_context(hn) : gst_cuda_context_new(0);
    GstBufferPool *pool = gst_cuda_buffer_pool_new(ctx);
    GstStructure *config = gst_buffer_pool_get_config(pool);
    GstCaps *caps = gst_video_info_to_caps(info);
    GstBuffer *buf = NULL;
    GstVideoFrame vf;
    int i, y;
    gst_caps_set_features(caps, 0, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
    gst_buffer_pool_config_set_params(config, caps, (guint)GST_VIDEO_INFO_SIZE(info), 0, 0);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    assert_true(gst_buffer_pool_set_config(pool, config));
    assert_true(gst_buffer_pool_set_active(pool, TRUE));
    assert_int_equal(gst_buffer_pool_acquire_buffer(pool, &buf, NULL), GST_FLOW_OK);
    assert_true(gst_is_cuda_memory(gst_buffer_peek_memory(buf, 0)));
    assert_true(gst_video_frame_map(&vf, info, buf, GST_MAP_WRITE));
    for (i = 0; i < f->nplanes; i++) {
        const jf_image *p = &fp->plane[i];
        const size_t row = (size_t)p->width * p->channels * f->p[i].bytes;
        for (y = 0; y < p->height; y++)
            memcpy((guint8 *)GST_VIDEO_FRAME_PLANE_DATA(&vf, i) + (size_t)y * GST_VIDEO_FRAME_PLANE_STRIDE(&vf, i),
                   p->data + (size_t)y * p->stride, row);
    }
    gst_video_frame_unmap(&vf);
    gst_caps_unref(caps);
    gst_buffer_pool_set_active(pool, FALSE);
    gst_object_unref(pool);
    gst_object_unref(ctx);
    return buf;
}
#else
static GstBuffer *to_cuda_buffer(GstHarness *hn, const format_case *f, const frame_planes *fp, GstVideoInfo *info)
{
    (void)hn, (void)f, (void)fp, (void)info;
    fail_msg("built without GStreamer's CUDA library");
    return NULL;
}
#endif

/* What the element must produce: each plane through the plan on the CPU. */
static frame_planes expected(const format_case *f, const frame_planes *in, const jf_plan *plan)
{
    frame_planes out;
    int i;
    memset(&out, 0, sizeof out);
    for (i = 0; i < f->nplanes; i++) {
        jf_image src = in->plane[i];
        out.plane[i].sample = src.sample;
        if (g_luma_only && i > 0) {
            assert_int_equal(jf_image_alloc(&out.plane[i], src.width, src.height, src.channels), JF_OK);
            assert_int_equal(jf_image_copy(&src, &out.plane[i]), JF_OK);
        }
        else
            assert_int_equal(jf_plan_run(g_cpu, plan, &src, &out.plane[i], NULL), JF_OK);
    }
    if (f->keep_byte >= 0) { /* alpha or padding: as it came */
        jf_image *o = &out.plane[0];
        const jf_image *s = &in->plane[0];
        int x, y;
        for (y = 0; y < o->height; y++)
            for (x = 0; x < o->width; x++)
                o->data[(size_t)y * o->stride + 4 * x + f->keep_byte] =
                    s->data[(size_t)y * s->stride + 4 * x + f->keep_byte];
    }
    return out;
}

/* The element's output, plane by plane, against ours: every byte, or
 * within one level where the operation's GPU variants are not exact. */
static void compare(const format_case *f, GstBuffer *buf, GstVideoInfo *info, const frame_planes *want,
                    const char *what, int exact)
{
    GstVideoFrame vf;
    int i, y;
    size_t x;
    assert_true(gst_video_frame_map(&vf, info, buf, GST_MAP_READ));
    for (i = 0; i < f->nplanes; i++) {
        const jf_image *p = &want->plane[i];
        const size_t row = (size_t)p->width * p->channels * f->p[i].bytes;
        for (y = 0; y < p->height; y++) {
            const guint8 *got = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA(&vf, i) +
                                (size_t)y * GST_VIDEO_FRAME_PLANE_STRIDE(&vf, i);
            const guint8 *ref = p->data + (size_t)y * p->stride;
            if (exact || f->p[i].bytes == 2) {
                if (memcmp(got, ref, row) != 0) {
                    for (x = 0; got[x] == ref[x]; x++)
                        continue;
                    fail_msg("%s %s %dx%d: plane %d row %d byte %zu: %d, the library's %d", what, f->name,
                             GST_VIDEO_INFO_WIDTH(info), GST_VIDEO_INFO_HEIGHT(info), i, y, x, got[x], ref[x]);
                }
                continue;
            }
            for (x = 0; x < row; x++)
                if (abs((int)got[x] - (int)ref[x]) > 1)
                    fail_msg("%s %s: plane %d row %d byte %zu: %d against %d", what, f->name, i, y,
                             x, got[x], ref[x]);
        }
    }
    gst_video_frame_unmap(&vf);
}

static GstHarness *harness(const char *format, int w, int h, const char *settings)
{
    GstHarness *hn = gst_harness_new("jetfilter");
    char caps[256];
    gchar **kv = g_strsplit(settings, " ", -1);
    int i;
    gst_util_set_object_arg(G_OBJECT(hn->element), "backend", g_backend);
    for (i = 0; kv[i]; i++) {
        gchar **pair = g_strsplit(kv[i], "=", 2);
        if (pair[0] && pair[1])
            gst_util_set_object_arg(G_OBJECT(hn->element), pair[0], pair[1]);
        g_strfreev(pair);
    }
    g_strfreev(kv);
    snprintf(caps, sizeof caps, "video/x-raw%s,format=%s,width=%d,height=%d,framerate=30/1",
             g_memory == IN_SYSTEM ? "" : "(memory:CUDAMemory)", format, w, h);
    gst_harness_set_src_caps_str(hn, caps);
    {   /* a bus of its own, where errors can be read back */
        GstBus *bus = gst_bus_new();
        gst_element_set_bus(hn->element, bus);
        gst_object_unref(bus);
    }
    return hn;
}

/* One frame of `f` at w x h through the element with `settings` ("filter=median
 * ksize=5") against the library's plan of `op` with `params` ("ksize=5"). */
static void one_frame(const format_case *f, int w, int h, const char *settings, const char *op,
                      const char *params, uint64_t seed)
{
    GstHarness *hn = harness(f->name, w, h, settings);
    GstVideoInfo info;
    GstCaps *caps = gst_caps_from_string("video/x-raw");
    frame_planes in = make_frame(f, w, h, seed), want;
    jf_plan *plan;
    GstBuffer *out;
    gchar **kv = g_strsplit(params, " ", -1);
    int i;
    gst_caps_unref(caps);
    gst_video_info_set_format(&info, gst_video_format_from_string(f->name), (guint)w, (guint)h);
    assert_int_equal(jf_plan_create(op, &plan), JF_OK);
    for (i = 0; kv[i]; i++) {
        gchar **pair = g_strsplit(kv[i], "=", 2);
        if (pair[0] && pair[1])
            assert_int_equal(jf_plan_set(plan, pair[0], pair[1]), JF_OK);
        g_strfreev(pair);
    }
    g_strfreev(kv);
    assert_int_equal(jf_plan_prepare(plan), JF_OK);
    want = expected(f, &in, plan);
    out = gst_harness_push_and_pull(hn, g_memory == IN_SYSTEM ? to_buffer(f, &in, &info)
                                                              : to_cuda_buffer(hn, f, &in, &info));
    assert_non_null(out);
#ifdef JF_GST_CUDA
    /* written by the GPU where it lies: GStreamer's flag for a host copy
     * still to make (a write through a host mapping sets the upload flag) */
    if (g_memory != IN_SYSTEM)
        assert_true(GST_MEMORY_FLAG_IS_SET(gst_buffer_peek_memory(out, 0), GST_CUDA_MEMORY_TRANSFER_NEED_DOWNLOAD) &&
                    !GST_MEMORY_FLAG_IS_SET(gst_buffer_peek_memory(out, 0), GST_CUDA_MEMORY_TRANSFER_NEED_UPLOAD));
#endif
    compare(f, out, &info, &want, settings, jf_plan_op(plan)->exact || strcmp(g_backend, "cpu") == 0);
    gst_buffer_unref(out);
    gst_harness_teardown(hn);
    jf_plan_free(plan);
    free_frame(&in);
    free_frame(&want);
}

/* Every format at odd sizes (4:2:0 at 33x17: chroma 17x9), median k = 5. */
static void test_every_format_and_size(void **state)
{
    static const int sizes[][2] = {{1, 1}, {7, 5}, {33, 17}, {1023, 577}};
    int f, s, n = 0;
    (void)state;
    for (f = 0; f < NFORMATS; f++)
        for (s = 0; s < 4; s++, n++)
            one_frame(&FORMATS[f], sizes[s][0], sizes[s][1], "filter=median ksize=5", "median",
                      "ksize=5", 100 + (uint64_t)n);
    assert_int_equal(n, NFORMATS * 4);
    print_message("%d formats x 4 sizes: byte for byte as the library\n", NFORMATS);
}

/* Every filter of the table (its defaults), and every border. */
static void test_every_filter_and_border(void **state)
{
    char path[1024];
    const char *dir = t_make_tmpdir();
    FILE *k;
    int i, filters = 0;
    (void)state;
    snprintf(path, sizeof path, "%s/jf-gst-kernel.txt", dir);
    k = fopen(path, "w");
    fprintf(k, "0 -1 0\n-1 5 -1\n0 -1 0\n");
    fclose(k);
    for (i = 0; i < jf_op_count(); i++) {
        const jf_op_info *op = jf_op_get(i);
        char settings[1200], params[1100] = "";
        if (op->kind != JF_OP_FILTER)
            continue;
        if (strcmp(op->name, "conv") == 0)
            snprintf(params, sizeof params, "kernel=%s", path);
        if (strcmp(op->name, "gauss") == 0)
            snprintf(params, sizeof params, "sigma=1.5");
        snprintf(settings, sizeof settings, "filter=%s %s", op->name, params);
        one_frame(&FORMATS[2], 65, 41, settings, op->name, params, 7 + (uint64_t)i); /* I420 */
        one_frame(&FORMATS[7], 31, 20, settings, op->name, params, 9 + (uint64_t)i); /* RGB */
        filters++;
    }
    assert_true(filters >= 9);
    {
        static const char *const borders[] = {"zero", "replicate", "reflect", "mirror"};
        for (i = 0; i < 4; i++) {
            char settings[64], params[64];
            snprintf(settings, sizeof settings, "filter=box ksize=7 border=%s", borders[i]);
            snprintf(params, sizeof params, "ksize=7 border=%s", borders[i]);
            one_frame(&FORMATS[4], 40, 30, settings, "box", params, 50 + (uint64_t)i); /* NV12 */
        }
    }
    t_rmtree(dir);
}

/* planes=luma: chroma passes unchanged; properties changed while playing
 * take effect at the next frame. */
static void test_luma_and_changes_while_playing(void **state)
{
    const format_case *f = &FORMATS[2];
    GstHarness *hn = harness("I420", 64, 48, "filter=median ksize=3 planes=luma");
    GstVideoInfo info;
    frame_planes in = make_frame(f, 64, 48, 77), want;
    jf_plan *p3, *p7;
    GstBuffer *out;
    (void)state;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_I420, 64, 48);
    assert_int_equal(jf_plan_create("median", &p3), JF_OK);
    assert_int_equal(jf_plan_prepare(p3), JF_OK);
    want = expected(f, &in, p3);
    jf_image_free(&want.plane[1]);
    jf_image_free(&want.plane[2]);
    assert_int_equal(jf_image_alloc(&want.plane[1], 32, 24, 1), JF_OK);
    assert_int_equal(jf_image_copy(&in.plane[1], &want.plane[1]), JF_OK);
    assert_int_equal(jf_image_alloc(&want.plane[2], 32, 24, 1), JF_OK);
    assert_int_equal(jf_image_copy(&in.plane[2], &want.plane[2]), JF_OK);
    out = gst_harness_push_and_pull(hn, to_buffer(f, &in, &info));
    compare(f, out, &info, &want, "planes=luma", 1);
    gst_buffer_unref(out);
    free_frame(&want);
    /* now k = 7 on every plane, in the same stream */
    gst_util_set_object_arg(G_OBJECT(hn->element), "ksize", "7");
    gst_util_set_object_arg(G_OBJECT(hn->element), "planes", "all");
    assert_int_equal(jf_plan_create("median", &p7), JF_OK);
    assert_int_equal(jf_plan_set(p7, "ksize", "7"), JF_OK);
    assert_int_equal(jf_plan_prepare(p7), JF_OK);
    want = expected(f, &in, p7);
    out = gst_harness_push_and_pull(hn, to_buffer(f, &in, &info));
    compare(f, out, &info, &want, "ksize 3 -> 7 while playing", 1);
    gst_buffer_unref(out);
    {   /* the stats property counts the frames */
        gchar *stats = NULL;
        g_object_get(hn->element, "stats", &stats, NULL);
        assert_non_null(strstr(stats, "frames 2"));
        g_free(stats);
    }
    gst_harness_teardown(hn);
    jf_plan_free(p3);
    jf_plan_free(p7);
    free_frame(&in);
    free_frame(&want);
}

/* Settings that make no plan, and caps it does not take: an error message
 * naming the reason, no frame out. */
static void test_refusals(void **state)
{
    GstHarness *hn;
    GstVideoInfo info;
    GstMessage *msg;
    GError *err = NULL;
    gchar *debug = NULL;
    frame_planes in = make_frame(&FORMATS[0], 16, 16, 5);
    (void)state;
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_GRAY8, 16, 16);
    hn = harness("GRAY8", 16, 16, "filter=conv"); /* conv without weights */
    assert_int_equal(gst_harness_push(hn, to_buffer(&FORMATS[0], &in, &info)), GST_FLOW_ERROR);
    msg = gst_bus_pop_filtered(GST_ELEMENT_BUS(hn->element), GST_MESSAGE_ERROR);
    assert_non_null(msg);
    gst_message_parse_error(msg, &err, &debug);
    print_message("refused: %s\n", err->message);
    assert_non_null(strstr(err->message, "jetfilter: conv"));
    assert_non_null(strstr(err->message, "weights"));
    g_error_free(err);
    g_free(debug);
    gst_message_unref(msg);
    gst_harness_teardown(hn);
    hn = gst_harness_new("jetfilter");
    gst_harness_set_src_caps_str(hn, "video/x-raw,format=UYVY,width=16,height=16,framerate=30/1");
    assert_int_not_equal(gst_harness_push(hn, gst_buffer_new_allocate(NULL, 16 * 16 * 2, NULL)), GST_FLOW_OK);
    gst_harness_teardown(hn);
    free_frame(&in);
}

/* Whether the element's sink template takes `format` in CUDA memory. */
static int in_cuda_caps(GstHarness *hn, const char *format)
{
    GstCaps *tmpl = gst_pad_get_pad_template_caps(GST_BASE_TRANSFORM_SINK_PAD(hn->element));
    GstCaps *one = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, format, "width", G_TYPE_INT, 64,
                                       "height", G_TYPE_INT, 48, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
    int in;
    gst_caps_set_features(one, 0, gst_caps_features_new("memory:CUDAMemory", NULL));
    in = gst_caps_is_subset(one, tmpl);
    gst_caps_unref(one);
    gst_caps_unref(tmpl);
    return in;
}

/* Frames in CUDA memory: on a GPU, every format the caps take at odd sizes,
 * every filter, luma only, and frames from another context, all as the
 * library's CPU result; without one, no CUDA memory caps negotiate. */
static void test_cuda_memory(void **state)
{
    /* even heights: GStreamer 1.22 lays a 4:2:0 frame of odd height out with
     * its V plane starting mid-row, and its host mapping (how this test
     * writes and reads the frames) copies only a row's width of each row */
    static const int sizes[][2] = {{1, 2}, {7, 6}, {33, 18}, {1023, 578}};
    GstHarness *hn;
    int f, s, i, n = 0;
    (void)state;
#ifndef JF_GST_CUDA
    skip();
#endif
    hn = gst_harness_new("jetfilter");
    assert_true(in_cuda_caps(hn, "NV12") && in_cuda_caps(hn, "I420") && !in_cuda_caps(hn, "RGBA"));
    gst_harness_teardown(hn);
    if (strcmp(g_backend, "cuda") != 0) {
        /* the CPU: the caps are refused at negotiation, not at the first frame */
        hn = gst_harness_new("jetfilter");
        gst_util_set_object_arg(G_OBJECT(hn->element), "backend", "cpu");
        gst_element_set_state(hn->element, GST_STATE_NULL);
        gst_element_set_state(hn->element, GST_STATE_PLAYING);
        gst_harness_set_src_caps_str(hn, "video/x-raw(memory:CUDAMemory),format=GRAY8,width=8,height=8,framerate=30/1");
        assert_int_not_equal(gst_harness_push(hn, gst_buffer_new_allocate(NULL, 64, NULL)), GST_FLOW_OK);
        gst_harness_teardown(hn);
        print_message("no GPU: frames in CUDA memory refused at negotiation; the GPU run checks them\n");
        return;
    }
    g_memory = IN_CUDA;
    hn = gst_harness_new("jetfilter");
    for (f = 0; f < NFORMATS; f++) {
        if (!in_cuda_caps(hn, FORMATS[f].name)) /* grey, RGBA and kin: system memory only */
            continue;
        for (s = 0; s < 4; s++, n++)
            one_frame(&FORMATS[f], sizes[s][0], sizes[s][1], "filter=median ksize=5", "median", "ksize=5",
                      300 + (uint64_t)n);
    }
    for (i = 0; i < jf_op_count(); i++) {
        const jf_op_info *op = jf_op_get(i);
        const char *params = strcmp(op->name, "gauss") == 0 ? "sigma=1.5" : "";
        char settings[128];
        if (op->kind != JF_OP_FILTER || strcmp(op->name, "conv") == 0)
            continue;
        snprintf(settings, sizeof settings, "filter=%s %s", op->name, params);
        one_frame(&FORMATS[4], 65, 41, settings, op->name, params, 400 + (uint64_t)i); /* NV12 */
    }
    gst_harness_teardown(hn);
    g_luma_only = 1; /* chroma copied on the GPU */
    one_frame(&FORMATS[2], 64, 48, "filter=median ksize=3 planes=luma", "median", "ksize=3", 500);
    g_luma_only = 0;
    g_memory = IN_CUDA_ELSEWHERE;
    one_frame(&FORMATS[2], 1023, 578, "filter=median ksize=7", "median", "ksize=7", 501);
    g_memory = IN_SYSTEM;
    print_message("%d frames in CUDA memory: byte for byte as the library\n", n);
}

static int setup(void **state)
{
    jf_context_options o = jf_context_defaults();
    (void)state;
    gst_init(NULL, NULL);
    if (getenv("JF_GST_BACKEND"))
        g_backend = getenv("JF_GST_BACKEND");
    o.backend = JF_BACKEND_CPU;
    return jf_context_create(&o, &g_cpu) == JF_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    jf_context_destroy(g_cpu);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_format_and_size),
        cmocka_unit_test(test_every_filter_and_border),
        cmocka_unit_test(test_luma_and_changes_while_playing),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_cuda_memory),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
