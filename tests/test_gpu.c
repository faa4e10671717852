/*
 * CUDA variants against the CPU reference (itself checked against brute
 * force and scipy in test_filters).  Median and padding must match byte for
 * byte; convolution within 1 level (float accumulation order and fused
 * multiply-adds move values that sit on .5); PSNR exactly (integer sums);
 * SSIM within 1e-6 relative.  Outputs are poisoned before every run.
 *
 * Without a CUDA device (or in a build without CUDA) it prints why and exits
 * with 77, which CTest reports as skipped.  `test_gpu --quick` runs a smaller
 * matrix, for compute-sanitizer.
 */
#define _DEFAULT_SOURCE /* nanosleep */
#include "common.h"
#include "core/util.h"
#include "filters/conv/conv.h"
#include "filters/conv/conv_fast_fixed.h"
#include "filters/median/median.h"
#include "filters/median/median_shapes.h"
#include "filters/ops.h"
#include "filters/resolve.h"
#include "io/io.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef JF_HAVE_CUDA
#include <cuda_runtime.h>

/* Allocations of host and device memory, counted by wrapping the calls at
 * link time (tests/CMakeLists.txt): a frame loop must make none. */
static atomic_long g_allocs;
#define JF_COUNTED(ret, name, params, args)                                   \
    ret __real_##name params;                                                 \
    ret __wrap_##name params;                                                 \
    ret __wrap_##name params                                                  \
    {                                                                         \
        atomic_fetch_add(&g_allocs, 1);                                       \
        return __real_##name args;                                            \
    }
JF_COUNTED(void *, malloc, (size_t n), (n))
JF_COUNTED(void *, calloc, (size_t n, size_t m), (n, m))
JF_COUNTED(void *, realloc, (void *p, size_t n), (p, n))
JF_COUNTED(cudaError_t, cudaMalloc, (void **p, size_t n), (p, n))
JF_COUNTED(cudaError_t, cudaMallocPitch, (void **p, size_t *pitch, size_t w, size_t h), (p, pitch, w, h))
JF_COUNTED(cudaError_t, cudaHostAlloc, (void **p, size_t n, unsigned int f), (p, n, f))
JF_COUNTED(cudaError_t, cudaMallocManaged, (void **p, size_t n, unsigned int f), (p, n, f))
#endif

static int g_quick = 0;
static jf_context *g_cpu, *g_gpu, *g_managed;

static const int FULL_SIZES[][2] = {{1, 1}, {7, 5}, {33, 17}, {1023, 577}, {1920, 1080}};
static const int QUICK_SIZES[][2] = {{1, 1}, {7, 5}, {33, 17}, {161, 97}};
static const int FULL_KS[] = {1, 3, 5, 7, 9, 11, 13, 15, 21, 31};
static const int QUICK_KS[] = {1, 3, 5, 7, 15, 21, 31};
/* every variant by name, and auto; a variant asked for where it has no
 * kernel (the median's networks beyond k = 11, say) must be refused */
static const jf_variant VARIANTS[] = {JF_VARIANT_GLOBAL, JF_VARIANT_SHARED, JF_VARIANT_FAST,
                                      JF_VARIANT_AUTO};
#define CONV_VARIANTS VARIANTS

#define NSIZES (g_quick ? 4 : 5)
#define SIZE(i) (g_quick ? QUICK_SIZES[i] : FULL_SIZES[i])
#define NKS (g_quick ? 7 : 10)
#define KS(i) (g_quick ? QUICK_KS[i] : FULL_KS[i])

static jf_context *make_context(jf_backend backend, jf_memory memory)
{
    jf_context_options o = t_context_opts(backend, 0, memory);
    jf_context *ctx = NULL;
    o.stats = 256;
    if (jf_context_create(&o, &ctx) != JF_OK)
        fail_msg("context: %s", jf_last_error());
    return ctx;
}

/* Does variant v of family f run k on `img` on the test GPU?  The
 * resolver's own answer, from the variant table and the device. */
static int runs_here(const jf_family *f, jf_variant v, const jf_image *img, int k, int rank1)
{
    jf_device_info d;
    jf_shape s;
    if (v == JF_VARIANT_AUTO || v == JF_VARIANT_CPU)
        return 1;
    assert_int_equal(jf_context_device(g_gpu, &d), JF_OK);
    memset(&s, 0, sizeof s); /* no weights: the rows that take any */
    s.width = img->width;
    s.height = img->height;
    s.channels = img->channels;
    s.sample = img->sample;
    s.rank1 = rank1;
    return jf_variant_runs(f, v, &d, &s, k);
}

/* Explicit variants the device refused as the header promises. */
static int g_refused;

/* A GPU call with variant v: JF_OK where it runs (returns 1: compare the
 * output); where it cannot, JF_ERR_UNSUPPORTED naming the variant, never
 * another variant in silence (returns 0). */
static int gpu_call(jf_status st, const jf_family *f, jf_variant v, const jf_image *img, int k,
                    int rank1, const char *what)
{
    if (!runs_here(f, v, img, k, rank1)) {
        if (st != JF_ERR_UNSUPPORTED || !strstr(jf_last_error(), jf_variant_name(v)))
            fail_msg("%s %s k=%d: refused as unsupported expected, got %s (%s)", what,
                     jf_variant_name(v), k, jf_status_str(st), jf_last_error());
        g_refused++;
        return 0;
    }
    if (st != JF_OK)
        fail_msg("%s %s k=%d %dx%dx%d: %s", what, jf_variant_name(v), k, img->width, img->height,
                 img->channels, jf_last_error());
    return 1;
}

static int rank1_of(const float *w, int k)
{
    float col[JF_CONV_MAX_KSIZE], row[JF_CONV_MAX_KSIZE];
    return k > 1 && jf_kernel_separate(w, k, col, row);
}

static void test_median_all_variants(void **state)
{
    int s, ch, b, k, v, cases = 0;
    (void)state;
    for (s = 0; s < NSIZES; s++)
        for (ch = 1; ch <= 3; ch += 2) {
            jf_image src = t_random_image(SIZE(s)[0], SIZE(s)[1], ch, 5, (uint64_t)(s * 10 + ch));
            if (s % 2) /* four levels: windows full of ties */
                t_map_bytes(&src, 6);
            for (b = 0; b < JF_BORDER_COUNT; b++)
                for (k = 0; k < NKS; k++) {
                    jf_median_options mo = t_median_opts(KS(k), (jf_border)b, JF_VARIANT_CPU);
                    jf_image want = {0};
                    assert_int_equal(jf_median(g_cpu, &src, &want, &mo), JF_OK);
                    for (v = 0; v < 4; v++) {
                        jf_image got = t_poisoned_like(&src, 3);
                        mo.variant = VARIANTS[v];
                        if (!gpu_call(jf_median(g_gpu, &src, &got, &mo), &jf_median_family,
                                      VARIANTS[v], &src, KS(k), 0, "median")) {
                            jf_image_free(&got);
                            continue;
                        }
                        if (!t_images_equal(&got, &want))
                            fail_msg("median %s k=%d %s %dx%dx%d differs from the CPU",
                                     jf_variant_name(VARIANTS[v]), KS(k), jf_border_name((jf_border)b),
                                     src.width, src.height, ch);
                        jf_image_free(&got);
                        cases++;
                    }
                    jf_image_free(&want);
                }
            jf_image_free(&src);
        }
    print_message("median: %d cases byte-identical, %d refused\n", cases, g_refused);
    /* sizes x channels x borders x k x (auto and the variants that run) */
    assert_true(cases >= NSIZES * 2 * JF_BORDER_COUNT * NKS * 2);
}

/* The fast median of src in each of n block shapes, byte for byte against
 * the CPU; the cases run. */
static int fast_median_blocks(const jf_image *src, int k, jf_border border, const int (*shapes)[2], int n)
{
    jf_median_options mo = t_median_opts(k, border, JF_VARIANT_CPU);
    jf_image want = {0};
    int i;
    assert_int_equal(jf_median(g_cpu, src, &want, &mo), JF_OK);
    for (i = 0; i < n; i++) {
        jf_image got = t_poisoned_like(src, 3);
        mo.variant = JF_VARIANT_FAST;
        mo.block_x = shapes[i][0];
        mo.block_y = shapes[i][1];
        assert_int_equal(jf_median(g_gpu, src, &got, &mo), JF_OK);
        if (!t_images_equal(&got, &want))
            fail_msg("median fast k=%d %dx%dx%d block %dx%d differs from the CPU", k, src->width,
                     src->height, src->channels, shapes[i][0], shapes[i][1]);
        jf_image_free(&got);
    }
    jf_image_free(&want);
    return n;
}

/* The fast median at k = 3, 8 bits, where it runs as strips of rows
 * through registers (compute capability 9.0 with code made for it, not under
 * the Nano's limits):
 * strips inside the image and at its edges (rows of bytes that are no
 * multiple of the 8 or 16 a thread owns, heights short of a strip, warps
 * past the row), 1 to 4 channels, every border, with and without ties;
 * blocks other than the default (a 256-thread block, and 12 threads, which
 * the networks take); an RGB image just under 32 M samples, and a grey one
 * just over (the networks).  Byte for byte against the CPU. */
static void test_median_strips(void **state)
{
    static const int sizes[][2] = {{1, 1}, {7, 5}, {17, 3}, {33, 17}, {129, 9}, {200, 64}, {1031, 70}, {2050, 33}};
    static const int big[][3] = {{4000, 2790, 3}, {8200, 4100, 1}};
    jf_device_info d;
    jf_resolve_in in;
    jf_choice c;
    int s, ch, b, i, cases = 0;
    (void)state;
    assert_int_equal(jf_context_device(g_gpu, &d), JF_OK);
    memset(&in, 0, sizeof in);
    in.family = &jf_median_family;
    in.fn = "test";
    in.dev = &d;
    in.shape.width = 1031;
    in.shape.height = 70;
    in.shape.channels = 3;
    in.shape.sample = JF_SAMPLE_U8;
    in.k = 3;
    in.asked = JF_VARIANT_FAST;
    assert_int_equal(jf_resolve(&in, &c), JF_OK);
    /* the strips need the device's 9.0 and code made for it: a build for the
     * Nano (PTX for 5.3, compiled at load) runs the networks on an H100 too */
    if (d.limited || d.cc_major * 10 + d.cc_minor < JF_MEDIAN_LANES2_MIN_CC ||
        (d.code_cc > 0 && d.code_cc < JF_MEDIAN_LANES2_MIN_CC)) {
        assert_string_not_equal(c.row->kernel, "median_fast_strip_kernel");
        skip();
    }
    assert_string_equal(c.row->kernel, "median_fast_strip_kernel");
    for (s = 0; s < 8; s++)
        for (ch = 1; ch <= 4; ch++) {
            jf_image src = t_random_image(sizes[s][0], sizes[s][1], ch, 3, (uint64_t)(900 + 10 * s + ch));
            if ((s + ch) % 2) /* four levels: windows full of ties */
                t_map_bytes(&src, 6);
            for (b = 0; b < JF_BORDER_COUNT; b++) {
                jf_median_options mo = t_median_opts(3, (jf_border)b, JF_VARIANT_CPU);
                jf_image want = {0}, got = t_poisoned_like(&src, 3);
                assert_int_equal(jf_median(g_cpu, &src, &want, &mo), JF_OK);
                mo.variant = JF_VARIANT_FAST;
                assert_int_equal(jf_median(g_gpu, &src, &got, &mo), JF_OK);
                if (!t_images_equal(&got, &want))
                    fail_msg("median strips %s %dx%dx%d differs from the CPU", jf_border_name((jf_border)b),
                             src.width, src.height, ch);
                jf_image_free(&got);
                jf_image_free(&want);
                cases++;
            }
            jf_image_free(&src);
        }
    { /* other blocks: 256 threads; 12 (not whole warps: the networks) */
        static const int shapes[][2] = {{256, 1}, {64, 4}, {12, 1}};
        jf_image src = t_random_image(2100, 77, 3, 0, 977);
        cases += fast_median_blocks(&src, 3, JF_BORDER_MIRROR, shapes, 3);
        jf_image_free(&src);
    }
    for (i = 0; i < (g_quick ? 1 : 2); i++) { /* either side of 32 M samples */
        jf_image src = t_random_image(big[i][0], big[i][1], big[i][2], 0, (uint64_t)(990 + i));
        jf_median_options mo = t_median_opts(3, i ? JF_BORDER_ZERO : JF_BORDER_REFLECT, JF_VARIANT_CPU);
        jf_image want = {0}, got = t_poisoned_like(&src, 3);
        assert_int_equal(jf_median_strips_run(src.width, src.height, src.channels, 128), i == 0);
        assert_int_equal(jf_median(g_cpu, &src, &want, &mo), JF_OK);
        mo.variant = JF_VARIANT_FAST;
        assert_int_equal(jf_median(g_gpu, &src, &got, &mo), JF_OK);
        if (!t_images_equal(&got, &want))
            fail_msg("median strips %dx%dx%d (32 M samples either side) differs from the CPU", src.width,
                     src.height, src.channels);
        jf_image_free(&got);
        jf_image_free(&want);
        jf_image_free(&src);
        cases++;
    }
    print_message("median strips: %d cases byte-identical\n", cases);
    assert_int_equal(cases, 8 * 4 * JF_BORDER_COUNT + 3 + (g_quick ? 1 : 2));
}

/* The fast median at k = 3, 5 and 7 on grey 8-bit images, at sizes whose
 * blocks (256 x 32 outputs for the k = 3 video kernel the Nano runs, whose
 * blocks inside the image read it directly and the others through a tile;
 * 256 x 8 for the k = 5 and 7 ones) lie wholly inside the image, across its edges, and
 * past a width or height that is no multiple of 16: every border, byte for
 * byte against the CPU, with and without ties.  Under the Nano's limits the
 * kernels must be the video ones. */
static void test_median_fast_video_grey(void **state)
{
    static const int sizes[][2] = {{1553, 41}, {2049, 35}, {600, 19}, {17, 3}, {1040, 150}, {777, 101}};
    static const int ks[] = {3, 5, 7};
    static const char *const video[] = {"median_fast_video_kernel", "median_fast_video_net_kernel",
                                        "median_fast_video_net_kernel"};
    int s, b, i, cases = 0;
    jf_device_info d;
    (void)state;
    assert_int_equal(jf_context_device(g_gpu, &d), JF_OK);
    for (i = 0; i < 3; i++) {
        const int k = ks[i];
        jf_resolve_in in;
        jf_choice c;
        memset(&in, 0, sizeof in);
        in.family = &jf_median_family;
        in.fn = "test";
        in.dev = &d;
        in.shape.width = 1553;
        in.shape.height = 41;
        in.shape.channels = 1;
        in.shape.sample = JF_SAMPLE_U8;
        in.k = k;
        in.asked = JF_VARIANT_FAST;
        assert_int_equal(jf_resolve(&in, &c), JF_OK);
        if (d.limited || d.cc_major * 10 + d.cc_minor <= JF_MEDIAN_VIDEO_MAX_CC)
            assert_string_equal(c.row->kernel, video[i]);
        for (s = 0; s < 6; s++) {
            jf_image src = t_random_image(sizes[s][0], sizes[s][1], 1, 5, (uint64_t)(700 + 10 * k + s));
            if (s % 2)
                t_map_bytes(&src, 6);
            for (b = 0; b < JF_BORDER_COUNT; b++) {
                jf_median_options mo = t_median_opts(k, (jf_border)b, JF_VARIANT_CPU);
                jf_image want = {0}, got = t_poisoned_like(&src, 3);
                assert_int_equal(jf_median(g_cpu, &src, &want, &mo), JF_OK);
                mo.variant = JF_VARIANT_FAST;
                assert_int_equal(jf_median(g_gpu, &src, &got, &mo), JF_OK);
                if (!t_images_equal(&got, &want))
                    fail_msg("median fast k=%d (%s) %s %dx%d differs from the CPU", k, c.row->kernel,
                             jf_border_name((jf_border)b), src.width, src.height);
                jf_image_free(&got);
                jf_image_free(&want);
                cases++;
            }
            jf_image_free(&src);
        }
        { /* other blocks: narrower, wider, a row of threads */
            static const int shapes[][2] = {{64, 1}, {16, 2}, {4, 8}, {32, 4}};
            jf_image src = t_random_image(2100, 77, 1, 5, (uint64_t)(770 + k));
            cases += fast_median_blocks(&src, k, JF_BORDER_REFLECT, shapes, 4);
            jf_image_free(&src);
        }
        print_message("median fast k=%d grey (%s): byte-identical\n", k, c.row->kernel);
    }
    assert_int_equal(cases, 3 * (6 * JF_BORDER_COUNT + 4));
}

/* Other block shapes than the defaults: tiles, strips and partial blocks. */
static void test_block_shapes(void **state)
{
    static const int shapes[][2] = {{64, 1}, {32, 4}, {96, 2}, {128, 1}};
    static const int ks[] = {3, 5, 9, 17};
    jf_image src = t_random_image(g_quick ? 157 : 1023, g_quick ? 71 : 577, 3, 1, 31);
    int s, k, v;
    (void)state;
    for (k = 0; k < 4; k++) {
        jf_median_options mo = t_median_opts(ks[k], JF_BORDER_REFLECT, JF_VARIANT_CPU);
        jf_image want = {0};
        assert_int_equal(jf_median(g_cpu, &src, &want, &mo), JF_OK);
        for (s = 0; s < 4; s++)
            for (v = 0; v < 3; v++) {
                jf_image got = t_poisoned_like(&src, 0);
                jf_device_info d;
                mo.variant = VARIANTS[v];
                mo.block_x = shapes[s][0];
                mo.block_y = shapes[s][1];
                /* the shape adapts to the device: the histogram kernel's
                 * counters alone (256 or 512 bytes a thread) may not fit a
                 * small device's shared memory, and that must be said */
                assert_int_equal(jf_context_device(g_gpu, &d), JF_OK);
                if (!runs_here(&jf_median_family, mo.variant, &src, ks[k], 0)) {
                    assert_int_equal(jf_median(g_gpu, &src, &got, &mo), JF_ERR_UNSUPPORTED);
                    jf_image_free(&got);
                    continue;
                }
                if (mo.variant == JF_VARIANT_SHARED && ks[k] >= 5 &&
                    jf_median_hist_bytes(shapes[s][0] * shapes[s][1], ks[k]) > (size_t)d.shared_per_block_optin) {
                    assert_int_equal(jf_median(g_gpu, &src, &got, &mo), JF_ERR_ARG);
                    assert_non_null(strstr(jf_last_error(), "shared memory"));
                    jf_image_free(&got);
                    continue;
                }
                if (jf_median(g_gpu, &src, &got, &mo) != JF_OK)
                    fail_msg("median %s block %dx%d k=%d: %s", jf_variant_name(VARIANTS[v]),
                             shapes[s][0], shapes[s][1], ks[k], jf_last_error());
                if (!t_images_equal(&got, &want))
                    fail_msg("median %s block %dx%d k=%d differs", jf_variant_name(VARIANTS[v]),
                             shapes[s][0], shapes[s][1], ks[k]);
                jf_image_free(&got);
            }
        jf_image_free(&want);
    }
    /* the fast convolution with the same shapes, grey and RGB */
    for (k = 0; k < 3; k++) {
        int ch;
        for (ch = 1; ch <= 3; ch += 2) {
            jf_image img = t_random_image(g_quick ? 157 : 1023, g_quick ? 71 : 577, ch, 2, 40 + k);
            jf_kernel kern;
            jf_image want = {0};
            assert_int_equal(jf_kernel_make(JF_KERNEL_GAUSS, ks[k], 0.0, &kern), JF_OK);
            {
                jf_conv_options co = t_conv_opts(ks[k], kern.weights, JF_BORDER_MIRROR, JF_VARIANT_CPU);
                assert_int_equal(jf_convolve(g_cpu, &img, &want, &co), JF_OK);
                for (s = 0; s < 4; s++) {
                    jf_image got = t_poisoned_like(&img, 0);
                    co.variant = JF_VARIANT_FAST;
                    co.block_x = shapes[s][0];
                    co.block_y = shapes[s][1];
                    if (!gpu_call(jf_convolve(g_gpu, &img, &got, &co), &jf_conv_family, co.variant,
                                  &img, ks[k], 1, "conv fast with a block")) {
                        jf_image_free(&got);
                        continue;
                    }
                    if (t_max_abs_diff(&got, &want) > 1)
                        fail_msg("conv fast block %dx%d k=%d ch=%d differs", shapes[s][0],
                                 shapes[s][1], ks[k], ch);
                    jf_image_free(&got);
                }
            }
            jf_image_free(&want);
            jf_kernel_free(&kern);
            jf_image_free(&img);
        }
    }
    jf_image_free(&src);
}

static void test_pad_exact(void **state)
{
    int s, ch, b, k;
    (void)state;
    for (s = 0; s < NSIZES; s++)
        for (ch = 1; ch <= 3; ch += 2) {
            jf_image src = t_random_image(SIZE(s)[0], SIZE(s)[1], ch, 1, (uint64_t)(s + 70));
            for (b = 0; b < JF_BORDER_COUNT; b++)
                for (k = 0; k < NKS; k++) {
                    jf_image want = {0}, got = {0};
                    assert_int_equal(jf_pad(g_cpu, &src, KS(k) / 2, (jf_border)b, &want), JF_OK);
                    got = t_poisoned_like(&want, 9);
                    if (jf_pad(g_gpu, &src, KS(k) / 2, (jf_border)b, &got) != JF_OK)
                        fail_msg("pad: %s", jf_last_error());
                    if (!t_images_equal(&got, &want))
                        fail_msg("pad r=%d %s %dx%dx%d differs", KS(k) / 2,
                                 jf_border_name((jf_border)b), src.width, src.height, ch);
                    jf_image_free(&want);
                    jf_image_free(&got);
                }
            jf_image_free(&src);
        }
}

static float *random_weights(int k, uint64_t seed)
{
    float *w = malloc(sizeof(float) * (size_t)k * k);
    double sum = 0;
    int i;
    for (i = 0; i < k * k; i++) {
        w[i] = (float)((double)(t_rand(&seed) >> 11) / 9007199254740992.0 - 0.3);
        sum += w[i];
    }
    for (i = 0; i < k * k; i++)
        w[i] = (float)(w[i] / sum);
    return w;
}

/* The variant the last `name` record of ctx says ran ("fast-separable", ...). */
static const char *last_variant(const jf_context *ctx, const char *name)
{
    size_t i = jf_stats_count(ctx);
    while (i-- > 0) {
        const jf_stat *st = jf_stats_at(ctx, i);
        if (strcmp(st->name, name) == 0)
            return st->variant;
    }
    return "";
}

#ifdef JF_HAVE_CUDA
/* Whether the context's stats since the last jf_stats_clear hold a record
 * of this stage. */
static int has_record(const jf_context *ctx, const char *name)
{
    size_t i;
    for (i = 0; i < jf_stats_count(ctx); i++)
        if (strcmp(jf_stats_at(ctx, i)->name, name) == 0)
            return 1;
    return 0;
}

/* Whether a pad pass ran for the last `name` call although it did not run
 * the global variant (the one kernel family that reads padded planes, with
 * the impulse filters and the untiled histogram median). */
static int padded_outside_global(const jf_context *ctx, const char *name)
{
    return has_record(ctx, "pad") && strcmp(last_variant(ctx, name), "global") != 0;
}

/* After a call made with the stats just cleared (`what` recorded as
 * `stat`): it succeeded and ran a pad pass only if it ran the global
 * variant (1), or the variant has no kernel here and was refused (0). */
static int fused_call_ok(jf_status st, const jf_family *f, const jf_image *img, int rank1,
                         const char *what, const char *stat, jf_variant var, int k, int depth)
{
    if (!gpu_call(st, f, var, img, k, rank1, what))
        return 0;
    if (padded_outside_global(g_gpu, stat))
        fail_msg("%s %s k=%d %d-bit ran a pad pass (%s)", what, jf_variant_name(var), k, depth,
                 last_variant(g_gpu, stat));
    return 1;
}

/* The tiled kernels read the border themselves: no pad pass runs (no "pad"
 * record) for fast and shared medians, fast, separable and shared
 * convolution, whatever the input's layout.  Device images at odd addresses
 * and pitches take the tile loads' sample-by-sample path (and jf_pad's byte
 * path), aligned ones the shifted 16-byte loads; results as the CPU's, for
 * every border, 8 and 16 bits, 1 to 4 channels.  The global variants
 * still pad (a record). */
static void test_fused_border(void **state)
{
    static const int sizes[][2] = {{1, 1}, {7, 5}, {37, 23}, {203, 61}};
    static const int chans[] = {1, 2, 3, 4};
    int s, c, depth, off, b, cases = 0;
    (void)state;
    for (s = 0; s < 4; s++)
        for (c = 0; c < 4; c++)
            for (depth = 8; depth <= 16; depth += 8)
                for (off = 0; off < 2; off++) {
                    const int w = sizes[s][0], h = sizes[s][1], ch = chans[c], bps = depth / 8;
                    /* off 1: one sample past a 16-byte boundary, pitch an odd number of samples */
                    const size_t row = (size_t)w * ch * bps, pitch = off ? row + 3 * bps : row;
                    jf_image src = depth == 8 ? t_random_image(w, h, ch, 0, (uint64_t)(s * 9 + c))
                                              : t_random_image16(w, h, ch, 0, s % 2 ? 12 : 0, (uint64_t)(s * 9 + c));
                    unsigned char *buf = NULL;
                    jf_image d;
                    assert_int_equal(cudaMalloc((void **)&buf, pitch * (size_t)h + 64), cudaSuccess);
                    assert_int_equal(cudaMemcpy2D(buf + (off ? 16 + bps : 0), pitch, src.data, src.stride,
                                                  row, (size_t)h, cudaMemcpyHostToDevice), cudaSuccess);
                    d = jf_image_wrap_device(buf + (off ? 16 + bps : 0), w, h, ch, pitch, JF_LOC_DEVICE);
                    d.sample = src.sample;
                    for (b = 0; b < JF_BORDER_COUNT; b++) {
                        static const int ks[] = {3, 5, 7, 9, 15};
                        jf_image pwant = {0}, pgot;
                        int k;
                        for (k = 0; k < 5; k++) {
                            jf_median_options mo = t_median_opts(ks[k], (jf_border)b, JF_VARIANT_CPU);
                            jf_kernel kern = {0};
                            float *rw = random_weights(ks[k], (uint64_t)ks[k]);
                            jf_conv_options co = t_conv_opts(ks[k], rw, (jf_border)b, JF_VARIANT_CPU);
                            jf_conv_options go;
                            jf_image want = {0}, cwant = {0}, gwant = {0};
                            int v;
                            assert_int_equal(jf_kernel_make(JF_KERNEL_GAUSS, ks[k], 0.0, &kern), JF_OK);
                            go = t_conv_opts(ks[k], kern.weights, (jf_border)b, JF_VARIANT_CPU);
                            assert_int_equal(jf_median(g_cpu, &src, &want, &mo), JF_OK);
                            assert_int_equal(jf_convolve(g_cpu, &src, &cwant, &co), JF_OK);
                            assert_int_equal(jf_convolve(g_cpu, &src, &gwant, &go), JF_OK);
                            for (v = 0; v < 2; v++) { /* fast; shared (8-bit only) */
                                const jf_variant var = v ? JF_VARIANT_SHARED : JF_VARIANT_FAST;
                                jf_image got = t_poisoned_like(&src, 0), cgot = t_poisoned_like(&src, 0);
                                jf_image ggot = t_poisoned_like(&src, 0);
                                int dc, dg;
                                if (var == JF_VARIANT_SHARED && depth == 16)
                                    break;
                                mo.variant = co.variant = go.variant = var;
                                /* only the global variant pads; a variant with no kernel here
                                 * (the median's networks beyond k = 11, or 7 with one lane) is
                                 * refused */
                                jf_stats_clear(g_gpu);
                                if (!fused_call_ok(jf_median(g_gpu, &d, &got, &mo), &jf_median_family,
                                                   &src, 0, "median", "median", var, ks[k], depth))
                                    jf_image_copy(&want, &got);
                                jf_stats_clear(g_gpu);
                                if (!fused_call_ok(jf_convolve(g_gpu, &d, &cgot, &co), &jf_conv_family,
                                                   &src, 0, "conv", "conv", var, ks[k], depth))
                                    jf_image_copy(&cwant, &cgot);
                                jf_stats_clear(g_gpu);
                                if (!fused_call_ok(jf_convolve(g_gpu, &d, &ggot, &go), &jf_conv_family,
                                                   &src, 1, "gauss", "conv", var, ks[k], depth))
                                    jf_image_copy(&gwant, &ggot);
                                if (!t_images_equal(&got, &want))
                                    fail_msg("median %s k=%d %s %dx%dx%d %d-bit offset %d differs from the CPU",
                                             jf_variant_name(var), ks[k], jf_border_name((jf_border)b),
                                             w, h, ch, depth, off);
                                dc = t_max_abs_diff(&cgot, &cwant);
                                dg = t_max_abs_diff(&ggot, &gwant);
                                if (dc > 1 || dg > 1)
                                    fail_msg("conv %s k=%d %s %dx%dx%d %d-bit offset %d: off by %d / %d",
                                             jf_variant_name(var), ks[k], jf_border_name((jf_border)b),
                                             w, h, ch, depth, off, dc, dg);
                                jf_image_free(&got);
                                jf_image_free(&cgot);
                                jf_image_free(&ggot);
                                cases += 3;
                            }
                            {   /* the global variant reads padded planes */
                                jf_image got = t_poisoned_like(&src, 0);
                                mo.variant = JF_VARIANT_GLOBAL;
                                jf_stats_clear(g_gpu);
                                assert_int_equal(jf_median(g_gpu, &d, &got, &mo), JF_OK);
                                assert_true(t_images_equal(&got, &want));
                                assert_true(has_record(g_gpu, "pad"));
                                jf_image_free(&got);
                            }
                            jf_image_free(&want);
                            jf_image_free(&cwant);
                            jf_image_free(&gwant);
                            jf_kernel_free(&kern);
                            free(rw);
                        }
                        /* jf_pad from the same odd layout, radius past the image */
                        assert_int_equal(jf_pad(g_cpu, &src, 9, (jf_border)b, &pwant), JF_OK);
                        pgot = t_poisoned_like(&pwant, 0);
                        if (jf_pad(g_gpu, &d, 9, (jf_border)b, &pgot) != JF_OK)
                            fail_msg("pad: %s", jf_last_error());
                        if (!t_images_equal(&pgot, &pwant))
                            fail_msg("pad r=9 %s %dx%dx%d %d-bit offset %d differs",
                                     jf_border_name((jf_border)b), w, h, ch, depth, off);
                        jf_image_free(&pwant);
                        jf_image_free(&pgot);
                    }
                    assert_int_equal(cudaFree(buf), cudaSuccess);
                    jf_image_free(&src);
                }
    print_message("fused borders: %d cases as the CPU, no pad pass\n", cases);
    /* sizes x channels x depths x layouts x borders x k, three operations each */
    assert_true(cases >= 4 * 4 * 2 * 2 * JF_BORDER_COUNT * 5 * 3);
}
#endif

/* The convolution at k = 3 on 8-bit images, grey and 2, 3 and 4
 * interleaved channels, with weights that are small dyadic fractions
 * (sharpen, Laplace, Sobel, a binomial, an uneven average): every sum is
 * exact in float as in fixed point, so `fast` and `auto` equal the CPU
 * reference byte for byte, at sizes whose blocks (256 x 64 or 256 x 16
 * output bytes) lie inside the image, across its edges and past widths
 * that are no multiple of 8, in each of the kernel's shapes (8, 4 and 2
 * rows a thread), every border; weights that are not such fractions (rounded
 * there) within one level.  The kernel must be the fixed-point one: in
 * video instructions under the Nano's limits, in dot products elsewhere
 * (from compute capability 6.1). */
static void test_conv_fixed(void **state)
{
    /* pixels, but the last two bytes a row (pixels: that over the channels) */
    int sizes[][2] = {{1, 1}, {7, 5}, {17, 3}, {300, 70}, {1023, 577}, {515, 131}, {4101, 0}, {4101, 0}};
    static const float kernels[][9] = {
        {0, -1, 0, -1, 5, -1, 0, -1, 0},
        {1, 1, 1, 1, -8, 1, 1, 1, 1},
        {-1, 0, 1, -2, 0, 2, -1, 0, 1},
        {1 / 16.f, 2 / 16.f, 1 / 16.f, 2 / 16.f, 4 / 16.f, 2 / 16.f, 1 / 16.f, 2 / 16.f, 1 / 16.f},
        {0.125f, 0.125f, 0.125f, 0.125f, 0.0f, 0.125f, 0.125f, 0.125f, 0.25f},
        {0.0625f, 0.1249f, 0.0625f, 0.1249f, 0.2503f, 0.1249f, 0.0625f, 0.1249f, 0.0628f}};
    static const jf_variant variants[] = {JF_VARIANT_FAST, JF_VARIANT_AUTO};
    int s, b, w, v, ch, tall, across, cases = 0, shapes = 0;
    jf_device_info d;
    jf_resolve_in in;
    jf_choice c;
    (void)state;
    assert_int_equal(jf_context_device(g_gpu, &d), JF_OK);
    /* the fixed-point row the resolver takes here (the video kernel under
     * the Nano's limits) and its block; the last two sizes tall enough for
     * 4 and for 8 rows a thread on this device in those blocks (under the
     * Nano's limits 8 both; 515 x 131 grey takes 4 there, the first five 2
     * on a big GPU) */
    memset(&in, 0, sizeof in);
    in.family = &jf_conv_family;
    in.fn = "test_conv_fixed";
    in.dev = &d;
    in.shape.width = sizes[6][0];
    in.shape.height = 1;
    in.shape.channels = 1;
    in.shape.sample = JF_SAMPLE_U8;
    in.shape.weights = kernels[0];
    in.k = 3;
    in.asked = JF_VARIANT_FAST;
    assert_int_equal(jf_resolve(&in, &c), JF_OK);
    assert_non_null(c.row);
    assert_true(strcmp(c.row->kernel, "conv_fast_dp_kernel") == 0 ||
                strcmp(c.row->kernel, "conv_fast_video_kernel") == 0);
    tall = c.block_y * JF_CONV_FAST_FIXED_ROWS; /* a block's rows at 8 rows a thread */
    across = (sizes[6][0] + c.block_x * JF_CONV_FAST_FIXED_COLS - 1) / (c.block_x * JF_CONV_FAST_FIXED_COLS);
    sizes[6][1] = tall * ((JF_CONV_FAST_FIXED_TWO_BELOW_TENTHS * d.multiprocessors + 10 * across - 1) /
                          (10 * across)) + 7;
    sizes[7][1] = tall * ((JF_CONV_FAST_FIXED_FOUR_BELOW * d.multiprocessors + across - 1) / across) + 7;
    for (s = 0; s < 8; s++) /* every shape on grey */
        switch (jf_conv_fast_fixed_rows(sizes[s][0], sizes[s][1], c.block_x, c.block_y, d.multiprocessors)) {
        case JF_CONV_FAST_FIXED_ROWS: shapes |= 1; break;
        case JF_CONV_FAST_FIXED_ROWS_MID: shapes |= 2; break;
        default: shapes |= 4; break;
        }
    assert_int_equal(shapes, 7);
    for (ch = 1; ch <= 4; ch++)
        for (s = 0; s < 8; s++) {
            const int width = s < 6 ? sizes[s][0] : (sizes[s][0] + ch - 1) / ch;
            jf_image src = t_random_image(width, sizes[s][1], ch, 1, (uint64_t)(900 + 10 * ch + s));
            for (w = 0; w < 6; w++)
                for (b = 0; b < JF_BORDER_COUNT; b++) {
                    jf_conv_options co = t_conv_opts(3, kernels[w], (jf_border)b, JF_VARIANT_CPU);
                    jf_image want = {0};
                    assert_int_equal(jf_convolve(g_cpu, &src, &want, &co), JF_OK);
                    for (v = 0; v < 2; v++) {
                        jf_image got = t_poisoned_like(&src, 2);
                        const int exact = w < 5;
                        int diff;
                        co.variant = variants[v];
                        jf_stats_clear(g_gpu);
                        assert_int_equal(jf_convolve(g_gpu, &src, &got, &co), JF_OK);
                        diff = t_max_abs_diff(&got, &want);
                        if (diff > (exact ? 0 : 1))
                            fail_msg("conv %s k=3 weights %d (%s) %s %dx%dx%d: off by %d",
                                     jf_variant_name(variants[v]), w, last_variant(g_gpu, "conv"),
                                     jf_border_name((jf_border)b), src.width, src.height, ch, diff);
                        assert_string_equal(last_variant(g_gpu, "conv"), "fast-fixed");
                        jf_image_free(&got);
                        cases++;
                    }
                    jf_image_free(&want);
                }
            jf_image_free(&src);
        }
    print_message("conv k=3 1-4 channels, dyadic weights: byte-identical (fixed point in %s)\n",
                  d.limited ? "video instructions" : "dot products");
    assert_int_equal(cases, 4 * 8 * 6 * JF_BORDER_COUNT * 2);
}

static void test_conv_all_variants(void **state)
{
    int s, ch, b, k, v, worst = 0, cases = 0;
    (void)state;
    for (s = 0; s < NSIZES; s++)
        for (ch = 1; ch <= 3; ch += 2) {
            jf_image src = t_random_image(SIZE(s)[0], SIZE(s)[1], ch, 2, (uint64_t)(s * 3 + ch));
            for (b = 0; b < JF_BORDER_COUNT; b++)
                for (k = 0; k < NKS; k++) {
                    float *w = random_weights(KS(k), (uint64_t)(k + 1));
                    jf_conv_options co = t_conv_opts(KS(k), w, (jf_border)b, JF_VARIANT_CPU);
                    jf_image want = {0};
                    assert_int_equal(jf_convolve(g_cpu, &src, &want, &co), JF_OK);
                    for (v = 0; v < 4; v++) {
                        jf_image got = t_poisoned_like(&src, 1);
                        int d;
                        co.variant = CONV_VARIANTS[v];
                        if (!gpu_call(jf_convolve(g_gpu, &src, &got, &co), &jf_conv_family,
                                      co.variant, &src, KS(k), rank1_of(w, KS(k)), "conv")) {
                            jf_image_free(&got);
                            continue;
                        }
                        d = t_max_abs_diff(&got, &want);
                        if (d > 1)
                            fail_msg("conv %s k=%d %s %dx%dx%d: off by %d levels",
                                     jf_variant_name(CONV_VARIANTS[v]), KS(k),
                                     jf_border_name((jf_border)b), src.width, src.height, ch, d);
                        worst = d > worst ? d : worst;
                        jf_image_free(&got);
                        cases++;
                    }
                    jf_image_free(&want);
                    free(w);
                }
            jf_image_free(&src);
        }
    print_message("conv: %d cases, largest difference from the CPU %d level(s)\n", cases, worst);
    /* sizes x channels x borders x k: auto and global at least */
    assert_true(cases >= NSIZES * 2 * JF_BORDER_COUNT * NKS * 2);
}

/* Rank-1 weights (box, Gaussian, and an outer product of two random
 * vectors with negative taps) at every k to 63: `fast` and `auto` take the
 * separable kernel, within 1 level of the CPU's separable path; 8 and 16
 * bits, 1, 3 and 4 channels, every border. */
static void test_conv_separable(void **state)
{
    static const int full_ks[] = {3, 5, 7, 11, 13, 15, 21, 31, 45, 63};
    static const int quick_ks[] = {7, 15, 63};
    static const int chans[] = {1, 3, 4};
    const int nks = g_quick ? 3 : 10;
    int s, c, k, b, kind, v, depth, cases = 0, worst = 0;
    (void)state;
    for (s = 0; s < NSIZES && SIZE(s)[0] < 1500; s++) /* up to 1023 x 577: the CPU's k = 63 */
        for (c = 0; c < 3; c++)
            for (depth = 8; depth <= 16; depth += 8) {
                const int ch = chans[c];
                jf_image src = depth == 8 ? t_random_image(SIZE(s)[0], SIZE(s)[1], ch, 1, (uint64_t)(s * 7 + c))
                                          : t_random_image16(SIZE(s)[0], SIZE(s)[1], ch, 2, 0, (uint64_t)(s * 7 + c));
                for (k = 0; k < nks; k++) {
                    const int ks = g_quick ? quick_ks[k] : full_ks[k];
                    for (kind = 0; kind < 3; kind++) {
                        jf_kernel kern = {0};
                        float *w = NULL;
                        if (kind < 2) {
                            assert_int_equal(jf_kernel_make(kind == 0 ? JF_KERNEL_BOX : JF_KERNEL_GAUSS,
                                                            ks, 0.0, &kern), JF_OK);
                            w = kern.weights;
                        } else { /* col x row, taps of both signs, sum near 1 */
                            float col[JF_CONV_MAX_KSIZE], row[JF_CONV_MAX_KSIZE];
                            uint64_t seed = (uint64_t)ks * 31 + 5;
                            int i, j;
                            w = malloc(sizeof(float) * (size_t)ks * ks);
                            for (i = 0; i < ks; i++) {
                                col[i] = (float)((double)(t_rand(&seed) >> 11) / 9007199254740992.0 - 0.3) * 2.0f / ks;
                                row[i] = (float)((double)(t_rand(&seed) >> 11) / 9007199254740992.0 - 0.2) * 2.0f / ks;
                            }
                            for (j = 0; j < ks; j++)
                                for (i = 0; i < ks; i++)
                                    w[j * ks + i] = col[j] * row[i];
                        }
                        /* --quick (compute-sanitizer): one border per case, in turn */
                        for (b = g_quick ? (k + kind) % JF_BORDER_COUNT : 0; b < JF_BORDER_COUNT;
                             b += g_quick ? JF_BORDER_COUNT : 1) {
                            jf_conv_options co = t_conv_opts(ks, w, (jf_border)b, JF_VARIANT_CPU);
                            jf_image want = {0};
                            assert_int_equal(jf_convolve(g_cpu, &src, &want, &co), JF_OK);
                            for (v = 0; v < 2; v++) {
                                jf_image got = t_poisoned_like(&src, 2);
                                int d;
                                co.variant = v == 0 ? JF_VARIANT_FAST : JF_VARIANT_AUTO;
                                if (!gpu_call(jf_convolve(g_gpu, &src, &got, &co), &jf_conv_family,
                                              co.variant, &src, ks, 1, "separable conv"))
                                    fail_msg("rank-1 k=%d: the fast kernels must run here", ks);
                                if (ks >= JF_CONV_SEPARABLE_MIN_K &&
                                    strcmp(last_variant(g_gpu, "conv"), "fast-separable") != 0)
                                    fail_msg("rank-1 k=%d %s ran %s, not fast-separable", ks,
                                             jf_variant_name(co.variant), last_variant(g_gpu, "conv"));
                                d = t_max_abs_diff(&got, &want);
                                if (d > 1)
                                    fail_msg("separable conv %s k=%d kind %d %s %dx%dx%d %d-bit: off by %d levels",
                                             jf_variant_name(co.variant), ks, kind,
                                             jf_border_name((jf_border)b), src.width, src.height, ch,
                                             depth, d);
                                worst = d > worst ? d : worst;
                                cases++;
                                jf_image_free(&got);
                            }
                            jf_image_free(&want);
                        }
                        if (kind < 2)
                            jf_kernel_free(&kern);
                        else
                            free(w);
                    }
                }
                jf_image_free(&src);
            }
    print_message("separable conv: %d cases, largest difference from the CPU %d level(s)\n", cases,
                  worst);
    /* at least: k x kinds x channels x depths x (fast, auto), on one size */
    assert_true(cases >= nks * 3 * 3 * 2 * 2);
}

/* Arbitrary weights at the largest unrolled k (13) and beyond (15 to 63):
 * `fast` and `auto` run the fast kernels (the record says "fast"), within 1 level
 * of the CPU; 8 and 16 bits, 1, 3 and 4 channels, every border (one in turn
 * under --quick).  k >= 29 on the smaller sizes (the CPU's k^2 loop).
 * Within 48 KiB of shared memory (JETFILTER_DEVICE_LIMITS=nano) every case
 * still runs fast, on smaller blocks where 32 x 4 threads do not fit. */
static void test_conv_wide(void **state)
{
    static const int sizes[][2] = {{1, 1}, {7, 5}, {33, 17}, {203, 149}, {1023, 577}};
    static const int ks[] = {13, 15, 17, 29, 45, 63};
    static const int chans[] = {1, 3, 4};
    const int nsizes = g_quick ? 4 : 5;
    int s, c, depth, k, b, v, cases = 0, worst = 0;
    (void)state;
    for (s = 0; s < nsizes; s++)
        for (c = 0; c < 3; c++)
            for (depth = 8; depth <= 16; depth += 8) {
                const int ch = chans[c], w = sizes[s][0], h = sizes[s][1];
                jf_image src = depth == 8 ? t_random_image(w, h, ch, 1, (uint64_t)(s * 7 + c + 40))
                                          : t_random_image16(w, h, ch, 2, 0, (uint64_t)(s * 7 + c + 40));
                for (k = 0; k < 6; k++) {
                    float *wt;
                    if (ks[k] >= 29 && w > 500)
                        continue;
                    wt = random_weights(ks[k], (uint64_t)(ks[k] * 3 + depth));
                    for (b = g_quick ? (s + k) % JF_BORDER_COUNT : 0; b < JF_BORDER_COUNT;
                         b += g_quick ? JF_BORDER_COUNT : 1) {
                        jf_conv_options co = t_conv_opts(ks[k], wt, (jf_border)b, JF_VARIANT_CPU);
                        jf_image want = {0};
                        assert_int_equal(jf_convolve(g_cpu, &src, &want, &co), JF_OK);
                        for (v = 0; v < 2; v++) {
                            jf_image got = t_poisoned_like(&src, 2);
                            const char *ran;
                            int d;
                            co.variant = v == 0 ? JF_VARIANT_FAST : JF_VARIANT_AUTO;
                            if (!gpu_call(jf_convolve(g_gpu, &src, &got, &co), &jf_conv_family,
                                          co.variant, &src, ks[k], 0, "wide conv"))
                                fail_msg("k=%d: the fast kernels must fit here", ks[k]);
                            ran = last_variant(g_gpu, "conv");
                            if (strcmp(ran, "fast") != 0)
                                fail_msg("conv k=%d %s %d-bit %d channels ran %s, not fast", ks[k],
                                         jf_variant_name(co.variant), depth, ch, ran);
                            d = t_max_abs_diff(&got, &want);
                            if (d > 1)
                                fail_msg("wide conv %s (ran %s) k=%d %s %dx%dx%d %d-bit: off by %d levels",
                                         jf_variant_name(co.variant), ran, ks[k],
                                         jf_border_name((jf_border)b), w, h, ch, depth, d);
                            worst = d > worst ? d : worst;
                            cases++;
                            jf_image_free(&got);
                        }
                        jf_image_free(&want);
                    }
                    free(wt);
                }
                jf_image_free(&src);
            }
    print_message("wide conv: %d cases, largest difference from the CPU %d level(s)\n", cases, worst);
    /* sizes x channels x depths x (fast, auto), at three k or more each */
    assert_true(cases >= nsizes * 3 * 2 * 2 * 3);
}

/* A tuning profile for this device makes `auto` take its choice (median
 * k = 3 on the shared kernel with 32 x 4 blocks, which the built-in table
 * never picks there); a profile of another device is ignored with the
 * reason in the context's note.  Outputs match the CPU either way. */
static void test_profile_auto(void **state)
{
    char dir[256], name[256], path[600];
    jf_context_options o = t_context_opts(JF_BACKEND_CUDA, 0, JF_MEMORY_AUTO);
    jf_context *ctx = NULL;
    jf_device_info dev;
    jf_image src = t_random_image(700, 500, 1, 0, 41), want = {0}, got = {0};
    jf_median_options mo = t_median_opts(3, JF_BORDER_REFLECT, JF_VARIANT_CPU);
    int pass;
    FILE *f;
    (void)state;
    assert_int_equal(jf_context_device(g_gpu, &dev), JF_OK);
    assert_int_equal(jf_median(g_cpu, &src, &want, &mo), JF_OK);
    snprintf(dir, sizeof dir, "/tmp/jf-gpu-profiles-%d", (int)getpid());
    mkdir(dir, 0700);
    jf_profile_file_name(&dev, NULL, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    o.stats = 16;
    for (pass = 0; pass < 2; pass++) {
        f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "jetfilter-profile 1\ndevice %s\ncompute_capability %d.%d\nmultiprocessors %d\n"
                   "device_limits %s\npower_mode none\n"
                   "choice median 1 640x480 3 shared 32x4 0.01\n"
                   "choice median 1 640x480 5 fast 3x1 0.01\n", /* refused: 3 is not a multiple of 4 */
                pass == 0 ? dev.name : "Some Other GPU", dev.cc_major, dev.cc_minor,
                dev.multiprocessors, dev.limited ? "nano" : "full");
        fclose(f);
        assert_int_equal(jf_profiles_use(dir, NULL), JF_OK);
        assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
        mo.variant = JF_VARIANT_AUTO;
        got = t_poisoned_like(&src, 0);
        assert_int_equal(jf_median(ctx, &src, &got, &mo), JF_OK);
        assert_true(t_images_equal(&got, &want));
        if (pass == 0) {
            assert_non_null(jf_context_profile(ctx));
            assert_string_equal(jf_context_profile(ctx), path);
            assert_string_equal(last_variant(ctx, "median"), "shared");
            assert_non_null(strstr(jf_context_note(ctx), "1 entry ignored (line 8"));
        } else {
            assert_null(jf_context_profile(ctx));
            assert_non_null(strstr(jf_context_note(ctx), "Some Other GPU"));
            assert_string_not_equal(last_variant(ctx, "median"), "shared");
        }
        jf_image_free(&got);
        jf_context_destroy(ctx);
    }
    assert_int_equal(jf_profiles_use(NULL, NULL), JF_OK);
    unlink(path);
    rmdir(dir);
    jf_image_free(&src);
    jf_image_free(&want);
}

static void test_real_photos(void **state)
{
    static const char *photos[] = {"samples/images/retina.jpg", "samples/images/astronaut.png"};
    int p, k, v;
    (void)state;
    for (p = 0; p < 2; p++) {
        jf_picture pic;
        jf_kernel gauss;
        assert_int_equal(jf_picture_read(t_source_path(photos[p]), &pic), JF_OK);
        assert_int_equal(jf_kernel_make(JF_KERNEL_GAUSS, 0, 2.0, &gauss), JF_OK);
        for (k = 3; k <= 9; k += 2) {
            jf_median_options mo = t_median_opts(k, JF_BORDER_REFLECT, JF_VARIANT_CPU);
            jf_image want = {0};
            assert_int_equal(jf_median(g_cpu, &pic.color, &want, &mo), JF_OK);
            for (v = 0; v < 3; v++) {
                jf_image got = t_poisoned_like(&pic.color, 0);
                mo.variant = VARIANTS[v];
                if (gpu_call(jf_median(g_gpu, &pic.color, &got, &mo), &jf_median_family, mo.variant,
                             &pic.color, k, 0, "median on a photo"))
                    assert_true(t_images_equal(&got, &want));
                jf_image_free(&got);
            }
            jf_image_free(&want);
        }
        {
            jf_conv_options co = t_conv_opts(gauss.ksize, gauss.weights, JF_BORDER_MIRROR, JF_VARIANT_CPU);
            jf_image want = {0};
            assert_int_equal(jf_convolve(g_cpu, &pic.color, &want, &co), JF_OK);
            for (v = 0; v < 4; v++) {
                jf_image got = t_poisoned_like(&pic.color, 0);
                co.variant = CONV_VARIANTS[v];
                if (gpu_call(jf_convolve(g_gpu, &pic.color, &got, &co), &jf_conv_family, co.variant,
                             &pic.color, gauss.ksize, 1, "gauss on a photo"))
                    assert_true(t_max_abs_diff(&got, &want) <= 1);
                jf_image_free(&got);
            }
            jf_image_free(&want);
        }
        jf_kernel_free(&gauss);
        jf_picture_free(&pic);
    }
}

/* SSIM on the GPU is single precision (ssim_cuda.cu): within this of the
 * CPU's double result. */
#define SSIM_GPU_TOLERANCE 1e-5
static double g_ssim_worst = 0;

static void check_metrics(const jf_image *a, const jf_image *b)
{
    double pc, pg, mc, mg, sc, sg;
    assert_int_equal(jf_psnr(g_cpu, a, b, &pc, &mc), JF_OK);
    assert_int_equal(jf_psnr(g_gpu, a, b, &pg, &mg), JF_OK);
    assert_true(mc == mg); /* integer sums: exact */
    assert_true(pc == pg || (isinf(pc) && isinf(pg)));
    if (a->width >= 11 && a->height >= 11) {
        assert_int_equal(jf_ssim(g_cpu, a, b, &sc), JF_OK);
        if (jf_ssim(g_gpu, a, b, &sg) != JF_OK)
            fail_msg("ssim: %s", jf_last_error());
        if (fabs(sg - sc) > g_ssim_worst)
            g_ssim_worst = fabs(sg - sc);
        if (fabs(sg - sc) > SSIM_GPU_TOLERANCE)
            fail_msg("ssim %dx%dx%d: GPU %.12f, CPU %.12f", a->width, a->height, a->channels, sg, sc);
    }
}

static void test_metrics(void **state)
{
    static const int sizes[][2] = {{11, 11}, {12, 40}, {33, 17}, {1023, 577}, {1920, 1080}};
    int s, ch;
    jf_picture clean, noisy;
    (void)state;
    for (s = 0; s < (g_quick ? 3 : 5); s++)
        for (ch = 1; ch <= 3; ch += 2) {
            jf_image a = t_random_image(sizes[s][0], sizes[s][1], ch, 3, (uint64_t)s);
            jf_image b = t_random_image(sizes[s][0], sizes[s][1], ch, 0, (uint64_t)s);
            jf_noise_options no = t_noise_opts(JF_NOISE_GAUSSIAN, 12.0, 3);
            assert_int_equal(jf_add_noise(NULL, &b, &no), JF_OK);
            check_metrics(&a, &b);
            check_metrics(&a, &a);
            jf_image_free(&a);
            jf_image_free(&b);
        }
    assert_int_equal(jf_picture_read(t_source_path("samples/images/chelsea.png"), &clean), JF_OK);
    assert_int_equal(jf_picture_read(t_source_path("tests/data/chelsea_noisy.png"), &noisy), JF_OK);
    check_metrics(&clean.color, &noisy.color);
    jf_picture_free(&clean);
    jf_picture_free(&noisy);
    {
        /* where float cancels worst: smooth, bright, nearly equal images */
        jf_image a = {0}, b = {0};
        int x, y;
        assert_int_equal(jf_image_alloc(&a, 1023, 577, 1), JF_OK);
        assert_int_equal(jf_image_alloc(&b, 1023, 577, 1), JF_OK);
        for (y = 0; y < 577; y++)
            for (x = 0; x < 1023; x++) {
                a.data[(size_t)y * a.stride + x] = (unsigned char)(250 + (x / 200 + y / 150) % 6);
                b.data[(size_t)y * b.stride + x] = (unsigned char)(a.data[(size_t)y * a.stride + x] -
                                                                   ((x * 7 + y * 13) % 5 == 0));
            }
        check_metrics(&a, &b);
        check_metrics(&a, &a);
        jf_image_free(&a);
        jf_image_free(&b);
    }
    printf("ssim: largest GPU - CPU difference %.3g (tolerance %.0e)\n", g_ssim_worst,
           SSIM_GPU_TOLERANCE);
}

/* 16-bit samples (global and fast kernels, and what auto picks; shared
 * refused with the reason) and four channels (CMYK) at 8 bits in every variant:
 * median and padding byte-identical to the CPU, convolution within 1
 * level, PSNR exact, SSIM within the tolerance. */
static void test_16bit_and_four_channels(void **state)
{
    static const int chans[] = {1, 3, 4};
    int s, c, b, k, v, cases = 0, worst = 0;
    (void)state;
    for (s = 0; s < NSIZES; s++)
        for (c = 0; c < 3; c++) {
            const int ch = chans[c];
            jf_image deep = t_random_image16(SIZE(s)[0], SIZE(s)[1], ch, 3, s % 2 ? 13 : 0,
                                             (uint64_t)(s * 10 + ch));
            jf_image four = t_random_image(SIZE(s)[0], SIZE(s)[1], 4, 1, (uint64_t)(s + ch));
            jf_image deep2 = t_random_image16(SIZE(s)[0], SIZE(s)[1], ch, 0, 0, (uint64_t)(s + 99));
            for (b = 0; b < JF_BORDER_COUNT; b++)
                for (k = 0; k < NKS; k++) {
                    jf_median_options mo = t_median_opts(KS(k), (jf_border)b, JF_VARIANT_CPU);
                    float *w = random_weights(KS(k), (uint64_t)(k + 5));
                    jf_conv_options co = t_conv_opts(KS(k), w, (jf_border)b, JF_VARIANT_CPU);
                    jf_image want = {0}, cwant = {0}, pwant = {0}, want4 = {0};
                    assert_int_equal(jf_median(g_cpu, &deep, &want, &mo), JF_OK);
                    assert_int_equal(jf_convolve(g_cpu, &deep, &cwant, &co), JF_OK);
                    assert_int_equal(jf_pad(g_cpu, &deep, KS(k) / 2, (jf_border)b, &pwant), JF_OK);
                    for (v = 0; v < 3; v++) { /* global, fast, auto */
                        static const jf_variant deep_variants[] = {JF_VARIANT_GLOBAL,
                                                                   JF_VARIANT_FAST, JF_VARIANT_AUTO};
                        jf_image got = t_poisoned_like(&deep, 3), cgot = t_poisoned_like(&deep, 1);
                        int d;
                        mo.variant = co.variant = deep_variants[v];
                        if (gpu_call(jf_median(g_gpu, &deep, &got, &mo), &jf_median_family,
                                     mo.variant, &deep, KS(k), 0, "16-bit median") &&
                            !t_images_equal(&got, &want))
                            fail_msg("16-bit median %s k=%d %s %dx%dx%d differs from the CPU",
                                     jf_variant_name(mo.variant), KS(k), jf_border_name((jf_border)b),
                                     deep.width, deep.height, ch);
                        if (!gpu_call(jf_convolve(g_gpu, &deep, &cgot, &co), &jf_conv_family,
                                      co.variant, &deep, KS(k), rank1_of(w, KS(k)), "16-bit conv"))
                            jf_image_copy(&cwant, &cgot);
                        d = t_max_abs_diff(&cgot, &cwant);
                        if (d > 1)
                            fail_msg("16-bit conv %s k=%d %s %dx%dx%d: off by %d levels",
                                     jf_variant_name(co.variant), KS(k),
                                     jf_border_name((jf_border)b), deep.width, deep.height, ch, d);
                        worst = d > worst ? d : worst;
                        jf_image_free(&got);
                        jf_image_free(&cgot);
                        cases++;
                    }
                    {
                        jf_image got = t_poisoned_like(&deep, 3);
                        jf_image pgot = t_poisoned_like(&pwant, 5);
                        mo.variant = JF_VARIANT_SHARED;
                        assert_int_equal(jf_median(g_gpu, &deep, &got, &mo), JF_ERR_UNSUPPORTED);
                        assert_non_null(strstr(jf_last_error(), "8-bit samples only"));
                        if (jf_pad(g_gpu, &deep, KS(k) / 2, (jf_border)b, &pgot) != JF_OK)
                            fail_msg("16-bit pad: %s", jf_last_error());
                        if (!t_images_equal(&pgot, &pwant))
                            fail_msg("16-bit pad r=%d %s differs", KS(k) / 2, jf_border_name((jf_border)b));
                        jf_image_free(&got);
                        jf_image_free(&pgot);
                    }
                    if (c == 0) { /* four 8-bit channels, every variant */
                        mo.variant = JF_VARIANT_CPU;
                        assert_int_equal(jf_median(g_cpu, &four, &want4, &mo), JF_OK);
                        for (v = 0; v < 4; v++) {
                            jf_image got = t_poisoned_like(&four, 3);
                            mo.variant = VARIANTS[v];
                            if (gpu_call(jf_median(g_gpu, &four, &got, &mo), &jf_median_family,
                                         mo.variant, &four, KS(k), 0, "median 4 channels") &&
                                !t_images_equal(&got, &want4))
                                fail_msg("median %s k=%d %s %dx%dx4 differs from the CPU",
                                         jf_variant_name(VARIANTS[v]), KS(k),
                                         jf_border_name((jf_border)b), four.width, four.height);
                            jf_image_free(&got);
                            cases++;
                        }
                        jf_image_free(&want4);
                    }
                    jf_image_free(&want);
                    jf_image_free(&cwant);
                    jf_image_free(&pwant);
                    free(w);
                }
            check_metrics(&deep, &deep2);
            check_metrics(&deep, &deep);
            if (s == 2 && ch != 4) { /* a 16-bit picture in device memory encodes as PNG */
                jf_picture pic = {0}, back;
                jf_encode_options po = t_encode_opts(JF_FORMAT_PNG, 0, 1);
                unsigned char *bytes = NULL;
                size_t n = 0;
                int on_gpu = 1;
                pic.format = JF_FORMAT_PNG;
                assert_int_equal(jf_image_alloc_on_as(g_gpu, &pic.color, deep.width, deep.height, ch,
                                                      JF_LOC_DEVICE, JF_SAMPLE_U16), JF_OK);
                assert_int_equal(jf_image_transfer(g_gpu, &deep, &pic.color), JF_OK);
                if (jf_picture_encode_frame(g_gpu, &pic, &po, &bytes, &n, &on_gpu) != JF_OK)
                    fail_msg("16-bit encode from the device: %s", jf_last_error());
                assert_int_equal(on_gpu, 0);
                assert_int_equal(jf_picture_decode(bytes, n, "deep.png", &back), JF_OK);
                assert_true(t_images_equal(&back.color, &deep));
                jf_picture_free(&back);
                free(bytes);
                jf_image_free(&pic.color);
            }
            jf_image_free(&deep);
            jf_image_free(&deep2);
            jf_image_free(&four);
        }
    assert_true(cases >= NSIZES * 3 * JF_BORDER_COUNT * NKS);
    print_message("16-bit and 4 channels: %d median cases byte-identical, conv within %d level(s)\n",
                  cases, worst);
}

/* Images that already live on the GPU, mapped or managed: no staging. */
static void test_locations_and_memory_modes(void **state)
{
    static const jf_location locs[] = {JF_LOC_DEVICE, JF_LOC_MAPPED, JF_LOC_MANAGED};
    jf_image src = t_random_image(517, 301, 3, 0, 8), want = {0};
    jf_median_options mo = t_median_opts(7, JF_BORDER_MIRROR, JF_VARIANT_CPU);
    int l;
    (void)state;
    assert_int_equal(jf_median(g_cpu, &src, &want, &mo), JF_OK);
    mo.variant = JF_VARIANT_SHARED;
    for (l = 0; l < 3; l++) {
        jf_image d_src = {0}, d_dst = {0}, back = t_poisoned_like(&src, 0);
        if (jf_image_alloc_on(g_gpu, &d_src, 517, 301, 3, locs[l]) != JF_OK ||
            jf_image_alloc_on(g_gpu, &d_dst, 517, 301, 3, locs[l]) != JF_OK)
            fail_msg("alloc location %d: %s", (int)locs[l], jf_last_error());
        assert_int_equal(jf_image_transfer(g_gpu, &src, &d_src), JF_OK);
        if (jf_median(g_gpu, &d_src, &d_dst, &mo) != JF_OK)
            fail_msg("median on location %d: %s", (int)locs[l], jf_last_error());
        assert_int_equal(jf_image_transfer(g_gpu, &d_dst, &back), JF_OK);
        assert_true(t_images_equal(&back, &want));
        jf_image_free(&d_src);
        jf_image_free(&d_dst);
        jf_image_free(&back);
    }
    /* the managed memory mode (the Jetson's default) on host images */
    {
        jf_image got = t_poisoned_like(&src, 0);
        assert_int_equal(jf_context_memory(g_managed), JF_MEMORY_MANAGED);
        assert_int_equal(jf_median(g_managed, &src, &got, &mo), JF_OK);
        assert_true(t_images_equal(&got, &want));
        jf_image_free(&got);
    }
    jf_image_free(&src);
    jf_image_free(&want);
}

/* Frames (what the batch decodes into and encodes from): pinned host memory
 * in copy mode, which the copy engine takes with no staging copy, and
 * managed memory in managed mode, which the kernels use in place.  Results
 * as the CPU's; after the first image, no allocation and no stage records. */
static void test_frames(void **state)
{
    jf_image src = t_random_image(1023, 577, 3, 0, 21), want = {0};
    jf_median_options mo = t_median_opts(5, JF_BORDER_REFLECT, JF_VARIANT_CPU);
    jf_context *ctxs[2];
    int c, round, y;
    (void)state;
    ctxs[0] = g_gpu;
    ctxs[1] = g_managed;
    assert_int_equal(jf_median(g_cpu, &src, &want, &mo), JF_OK);
    mo.variant = JF_VARIANT_AUTO;
    for (c = 0; c < 2; c++) {
        long before = 0;
        for (round = 0; round < 3; round++) {
            jf_image in, out;
            size_t i;
#ifdef JF_HAVE_CUDA
            if (round == 1)
                before = atomic_load(&g_allocs);
#endif
            assert_int_equal(jf_context_frame(ctxs[c], 0, src.width, src.height, 3, &in), JF_OK);
            assert_int_equal(jf_context_frame(ctxs[c], 1, src.width, src.height, 3, &out), JF_OK);
            assert_int_equal(in.location, c == 0 ? JF_LOC_HOST : JF_LOC_MANAGED);
            for (y = 0; y < src.height; y++) { /* as a decoder would write it */
                memcpy(in.data + (size_t)y * in.stride, src.data + (size_t)y * src.stride,
                       (size_t)src.width * 3);
                memset(out.data + (size_t)y * out.stride, 0xA5, (size_t)src.width * 3);
            }
            jf_stats_clear(ctxs[c]);
            if (jf_median(ctxs[c], &in, &out, &mo) != JF_OK || jf_context_sync(ctxs[c]) != JF_OK)
                fail_msg("median on frames (%s): %s", c ? "managed" : "copy", jf_last_error());
            assert_true(t_images_equal(&out, &want));
            for (i = 0; i < jf_stats_count(ctxs[c]); i++) {
                const char *name = jf_stats_at(ctxs[c], i)->name;
                if (strcmp(name, "stage") == 0 || strcmp(name, "unstage") == 0 ||
                    (c == 1 && (strcmp(name, "upload") == 0 || strcmp(name, "download") == 0)))
                    fail_msg("a %s record with frames (%s memory)", name, c ? "managed" : "copy");
            }
        }
#ifdef JF_HAVE_CUDA
        assert_int_equal(atomic_load(&g_allocs) - before, 0);
#else
        (void)before;
#endif
    }
    jf_image_free(&src);
    jf_image_free(&want);
}

static void test_stats_and_errors(void **state)
{
    jf_image src = t_random_image(640, 480, 1, 0, 4), dst = {0};
    jf_median_options mo = t_median_opts(5, JF_BORDER_ZERO, JF_VARIANT_SHARED);
    jf_device_info info;
    size_t i;
    int found = 0;
    (void)state;
    assert_int_equal(jf_context_device(g_gpu, &info), JF_OK);
    assert_true(info.theoretical_gbps > 0);
    jf_stats_clear(g_gpu);
    assert_int_equal(jf_median(g_gpu, &src, &dst, &mo), JF_OK);
    for (i = 0; i < jf_stats_count(g_gpu); i++) {
        const jf_stat *s = jf_stats_at(g_gpu, i);
        if (strcmp(s->name, "median") == 0) {
            found = 1;
            assert_string_equal(s->variant, "shared");
            assert_true(s->ms > 0);
            /* the tiled kernel reads the image itself, border and all */
            assert_true(s->bytes_read == 640u * 480u && s->bytes_written == 640u * 480u);
            assert_true(s->peak_gbps == info.theoretical_gbps);
            assert_true(jf_stat_percent(s) > 0);
        }
        assert_string_not_equal(s->name, "pad");
    }
    assert_true(found);
    /* the global variant reads padded planes, which a pad record makes */
    mo.variant = JF_VARIANT_GLOBAL;
    jf_stats_clear(g_gpu);
    assert_int_equal(jf_median(g_gpu, &src, &dst, &mo), JF_OK);
    found = 0;
    for (i = 0; i < jf_stats_count(g_gpu); i++) {
        const jf_stat *s = jf_stats_at(g_gpu, i);
        if (strcmp(s->name, "median") == 0)
            assert_true(s->bytes_read == 644u * 484u && s->bytes_written == 640u * 480u);
        found += strcmp(s->name, "pad") == 0;
    }
    assert_int_equal(found, 1);
    mo.variant = JF_VARIANT_SHARED;
    mo.block_x = 30; /* not a multiple of 4 */
    assert_int_equal(jf_median(g_gpu, &src, &dst, &mo), JF_ERR_ARG);
    mo.block_x = 1024;
    mo.block_y = 1;
    mo.ksize = 201; /* 1024 threads x 512 bytes of counters alone: too much */
    assert_int_equal(jf_median(g_gpu, &src, &dst, &mo), JF_ERR_ARG);
    /* said before launching: shared memory, or registers on a small device */
    assert_true(strstr(jf_last_error(), "shared memory") || strstr(jf_last_error(), "registers"));
    jf_image_free(&src);
    jf_image_free(&dst);
    src = t_random_image(40, 30, 1, 0, 5);
    mo.variant = JF_VARIANT_GLOBAL; /* the global variant keeps no counters */
    mo.block_x = 256;
    assert_int_equal(jf_median(g_gpu, &src, &dst, &mo), JF_OK);
    jf_image_free(&src);
    jf_image_free(&dst);
}

/* A plan of one operation of the table: k (the impulse filters' largest
 * window), a border, arbitrary weights for the one that takes weights. */
static jf_status op_plan(const jf_op *op, int k, jf_border border, jf_op_plan *plan)
{
    jf_op_args a = jf_op_args_defaults();
    static float weights[15 * 15];
    int i;
    a.ksize = k;
    if (jf_op_takes(op, JF_P_MAX_KSIZE)) {
        a.ksize = 0;
        a.max_ksize = k;
    }
    a.border = border;
    if (jf_op_takes(op, JF_P_WEIGHTS)) {
        uint64_t seed = (uint64_t)k;
        for (i = 0; i < k * k; i++)
            weights[i] = (float)((double)(t_rand(&seed) >> 11) / 9007199254740992.0 - 0.2) / (float)k;
        a.weights = weights;
        a.weights_ksize = k;
    }
    return jf_op_prepare(op, &a, plan);
}

/* The same plan with variant v, on one image. */
static jf_status op_apply(const jf_op_plan *plan, jf_variant v, jf_context *ctx, jf_image *src,
                          jf_image *dst)
{
    jf_op_plan p = *plan;
    p.args.variant = v;
    return jf_op_apply(ctx, &p, src, dst, NULL);
}

/* One filter of the table, every k, border and GPU variant it has, against
 * its CPU variant on `src`: the variants that run here compared, the rest
 * refused as unsupported.  Counts into compared[v]. */
static void ops_table_filter(const jf_op *op, jf_image *src, const char *input, int *compared)
{
    static const int ks[] = {1, 3, 5, 9, 15};
    static const jf_border borders[] = {JF_BORDER_ZERO, JF_BORDER_MIRROR};
    int k, b, v;
    for (k = 0; k < 5; k++)
        for (b = 0; b < 2; b++) {
            jf_image want = {0};
            jf_op_plan plan;
            if (op_plan(op, ks[k], borders[b], &plan) != JF_OK)
                continue; /* a k the operation does not take (laplace beyond 3) */
            assert_int_equal(op_apply(&plan, JF_VARIANT_CPU, g_cpu, src, &want), JF_OK);
            for (v = JF_VARIANT_AUTO; v < JF_VARIANT_COUNT; v++) {
                jf_image got;
                if (v == JF_VARIANT_CPU || !jf_op_has_variant(op, (jf_variant)v, ks[k]))
                    continue;
                got = t_poisoned_like(src, 2);
                if (gpu_call(op_apply(&plan, (jf_variant)v, g_gpu, src, &got), op->family,
                             (jf_variant)v, src, plan.ksize, plan.rank1, op->name)) {
                    if (t_max_abs_diff(&got, &want) > (op->exact ? 0 : 1))
                        fail_msg("%s %s k=%d %s on %s differs from the CPU by %d", op->name,
                                 jf_variant_name((jf_variant)v), ks[k], jf_border_name(borders[b]),
                                 input, t_max_abs_diff(&got, &want));
                    compared[v]++;
                }
                jf_image_free(&got);
            }
            jf_image_free(&want);
            jf_op_plan_free(&plan);
        }
}

/* Does the operation's family have a row of variant v? */
static int family_has(const jf_op *op, jf_variant v)
{
    int r;
    for (r = 0; r < op->family->row_count; r++)
        if (op->family->rows[r].variant == v)
            return 1;
    return 0;
}

/* Every filter of the operation table against the CPU, on random data and
 * on the same with 40% salt and pepper: bytes equal for the exact
 * operations (the medians), within 1 level for the convolutions.  Every
 * GPU variant a filter's family has must have been compared somewhere. */
static void test_ops_table(void **state)
{
    const int w = g_quick ? 157 : 1023, h = g_quick ? 71 : 577;
    jf_image random = t_random_image(w, h, 3, 3, 77), noisy = t_random_image(w, h, 3, 3, 78);
    int o, v, cases = 0, filters = 0;
    (void)state;
    t_salt_pepper(&noisy, 0.4, 5);
    for (o = 0; o < jf_op_total; o++) {
        const jf_op *op = &jf_ops[o];
        int compared[JF_VARIANT_COUNT] = {0};
        if (op->kind != JF_OP_FILTER)
            continue;
        filters++;
        ops_table_filter(op, &random, "random data", compared);
        ops_table_filter(op, &noisy, "40% salt and pepper", compared);
        for (v = 0; v < JF_VARIANT_COUNT; v++) {
            if ((family_has(op, (jf_variant)v) && v != JF_VARIANT_CPU) || v == JF_VARIANT_AUTO) {
                if (!compared[v])
                    fail_msg("%s: no case of variant %s was compared", op->name,
                             jf_variant_name((jf_variant)v));
                cases += compared[v];
            }
        }
    }
    print_message("operation table: %d filters, %d GPU cases against the CPU, %d refused\n",
                  filters, cases, g_refused);
    assert_true(filters >= 9);
    assert_true(cases >= filters * 2 * 2);
    jf_image_free(&random);
    jf_image_free(&noisy);
}

static jf_image photo_crop(const jf_image *src, int w, int h, int ch, int seed);

/* One operation with its defaults (3 x 3 weights where it needs some),
 * every variant, against the CPU on `src`. */
static void defaults_case(const jf_op *op, jf_border border, jf_image *src, const char *input,
                          int *cases)
{
    static const float weights[9] = {0.0625f, 0.125f, 0.0625f, 0.125f, 0.25f,
                                     0.125f, 0.0625f, 0.125f, -0.0625f};
    jf_op_args a = jf_op_args_defaults();
    jf_op_plan plan;
    jf_image want = {0};
    int v;
    if (!(op->samples & (1u << src->sample)))
        return;
    a.border = border;
    if (jf_op_takes(op, JF_P_WEIGHTS)) {
        a.weights = weights;
        a.weights_ksize = 3;
    }
    assert_int_equal(jf_op_prepare(op, &a, &plan), JF_OK);
    assert_int_equal(op_apply(&plan, JF_VARIANT_CPU, g_cpu, src, &want), JF_OK);
    for (v = JF_VARIANT_AUTO; v < JF_VARIANT_COUNT; v++) {
        jf_image got;
        jf_status st;
        if (v == JF_VARIANT_CPU || (v != JF_VARIANT_AUTO && !family_has(op, (jf_variant)v)))
            continue;
        got = t_poisoned_like(src, 2);
        st = op_apply(&plan, (jf_variant)v, g_gpu, src, &got);
        if (st == JF_ERR_UNSUPPORTED && v != JF_VARIANT_AUTO) {
            g_refused++;
        } else {
            if (st != JF_OK)
                fail_msg("%s %s %dx%dx%d %d-bit %s: %s", op->name, jf_variant_name((jf_variant)v),
                         src->width, src->height, src->channels, 8 * (int)jf_sample_size(src->sample),
                         input, jf_last_error());
            if (t_max_abs_diff(&got, &want) > (op->exact ? 0 : 1))
                fail_msg("%s %s %dx%dx%d %d-bit %s %s differs from the CPU by %d", op->name,
                         jf_variant_name((jf_variant)v), src->width, src->height, src->channels,
                         8 * (int)jf_sample_size(src->sample), input, jf_border_name(border),
                         t_max_abs_diff(&got, &want));
            (*cases)++;
        }
        jf_image_free(&got);
    }
    jf_image_free(&want);
    jf_op_plan_free(&plan);
}

/* Every filter of the table with its defaults (for the denoisers: search,
 * patch and h chosen per image), shape after shape in one context, as a
 * caller's mixed calls come: what one operation leaves in the context's
 * kept buffers must not upset the next.  Grey, grey and alpha, three and
 * four channels, 8 and 16 bits, images smaller than a search window;
 * random data and a photo with Gaussian noise.  Each variant against the
 * CPU (bytes equal for the exact operations, else within 1 level). */
static void test_table_shape_after_shape(void **state)
{
    static const int shapes[][3] = {{1, 1, 1}, {7, 5, 2},   {33, 17, 3}, {120, 64, 4},
                                    {64, 120, 4}, {157, 71, 1}, {97, 130, 2}, {301, 45, 3}};
    const int nshapes = g_quick ? 5 : (int)(sizeof shapes / sizeof shapes[0]);
    jf_picture photo;
    int o, s, cases = 0;
    (void)state;
    assert_int_equal(jf_picture_read(t_source_path("samples/images/retina.jpg"), &photo), JF_OK);
    for (s = 0; s < nshapes; s++) {
        const int w = shapes[s][0], h = shapes[s][1], ch = shapes[s][2];
        jf_image random = t_random_image(w, h, ch, 3, (uint64_t)(s + 7));
        jf_image deep = t_random_image16(w, h, ch, 2, s % 2 ? 4 : 0, (uint64_t)(s + 11));
        jf_image noisy = photo_crop(&photo.color, w, h, ch, s + 1);
        jf_noise_options no = t_noise_opts(JF_NOISE_GAUSSIAN, 15.0, (uint64_t)s);
        assert_int_equal(jf_add_noise(NULL, &noisy, &no), JF_OK);
        for (o = 0; o < jf_op_total; o++) {
            const jf_op *op = &jf_ops[o];
            if (op->kind != JF_OP_FILTER)
                continue;
            defaults_case(op, JF_BORDER_REPLICATE, &random, "random data", &cases);
            defaults_case(op, s % 2 ? JF_BORDER_ZERO : JF_BORDER_MIRROR, &deep, "random data", &cases);
            defaults_case(op, JF_BORDER_REFLECT, &noisy, "a noisy photo", &cases);
        }
        jf_image_free(&random);
        jf_image_free(&deep);
        jf_image_free(&noisy);
    }
    jf_picture_free(&photo);
    print_message("the table shape after shape: %d GPU cases against the CPU\n", cases);
    assert_true(cases >= nshapes * 2 * 9);
}

static void impulse_case(int kind, const jf_image *src, int kmax, jf_border b, int *cases)
{
    static const char *kinds[] = {"adaptive", "switching", "switching+refine"};
    jf_image want = t_poisoned_like(src, 0), got = t_poisoned_like(src, 1);
    assert_int_equal(t_impulse_run(kind, g_cpu, src, &want, kmax, b, JF_VARIANT_CPU), JF_OK);
    if (t_impulse_run(kind, g_gpu, src, &got, kmax, b, JF_VARIANT_GLOBAL) != JF_OK)
        fail_msg("%s k<=%d: %s", kinds[kind], kmax, jf_last_error());
    if (!t_images_equal(&got, &want))
        fail_msg("%s %dx%dx%d k<=%d %s differs from the CPU", kinds[kind], src->width, src->height,
                 src->channels, kmax, jf_border_name(b));
    jf_image_free(&want);
    jf_image_free(&got);
    (*cases)++;
}

/* The impulse filters' level kernels against the CPU: awkward sizes, every
 * border, densities from 0 to 1 (every sample queued to the last level). */
static void test_impulse_matches_cpu(void **state)
{
    static const double dens[] = {0.0, 0.1, 0.5, 0.9, 1.0};
    static const int kmaxes[] = {3, 7, 31};
    int s, ch, d, b, k, kind, cases = 0;
    (void)state;
    for (s = 0; s < NSIZES; s++)
        for (ch = 1; ch <= 3; ch += 2)
            for (d = 0; d < 5; d++) {
                jf_image src = t_random_image(SIZE(s)[0], SIZE(s)[1], ch, 3, (uint64_t)(s + 10 * d));
                t_salt_pepper(&src, dens[d], (uint64_t)d);
                for (b = 0; b < JF_BORDER_COUNT; b++)
                    for (k = 0; k < 3; k++)
                        for (kind = 0; kind < 3; kind++)
                            if (kmaxes[k] < 31 || src.width * src.height < 100000)
                                impulse_case(kind, &src, kmaxes[k], (jf_border)b, &cases);
                jf_image_free(&src);
            }
    print_message("impulse filters: %d GPU cases against the CPU\n", cases);
    /* sizes x channels x densities x borders x kinds, at two windows or more */
    assert_true(cases >= NSIZES * 2 * 5 * JF_BORDER_COUNT * 3 * 2);
}

/* Kept buffers of other shapes: the guided filter's tall work rows, then the
 * adaptive median's long 1-row queue in the same slot, then back; neither
 * may grow into the product of the two (a 1080p RGB pair: 60 GB). */
static void test_impulse_after_guided(void **state)
{
    jf_image src = t_random_image(1920, 1080, 3, 3, 21), want = {0}, got = {0};
    const jf_op *guided = jf_op_find("guided");
    jf_op_plan plan;
    int round;
    (void)state;
    assert_non_null(guided);
    t_salt_pepper(&src, 0.3, 6);
    assert_int_equal(op_plan(guided, 5, JF_BORDER_MIRROR, &plan), JF_OK);
    for (round = 0; round < 2; round++) {
        assert_int_equal(op_apply(&plan, JF_VARIANT_AUTO, g_gpu, &src, &got), JF_OK);
        assert_int_equal(t_impulse_run(0, g_gpu, &src, &got, 7, JF_BORDER_MIRROR, JF_VARIANT_GLOBAL), JF_OK);
    }
    assert_int_equal(t_impulse_run(0, g_cpu, &src, &want, 7, JF_BORDER_MIRROR, JF_VARIANT_CPU), JF_OK);
    assert_true(t_images_equal(&got, &want));
    jf_op_plan_free(&plan);
    jf_image_free(&src);
    jf_image_free(&want);
    jf_image_free(&got);
}

/* More rows than a grid's y dimension holds (65535): the kernels loop. */
static void test_impulse_tall_image(void **state)
{
    jf_image src = t_random_image(5, 70001, 1, 0, 3);
    int kind, cases = 0;
    (void)state;
    t_salt_pepper(&src, 0.5, 4);
    for (kind = 0; kind < 3; kind++)
        impulse_case(kind, &src, 5, JF_BORDER_REFLECT, &cases);
    jf_image_free(&src);
}

/* Device images: the filters stay queued; the density and auto count on the
 * GPU and agree with the CPU. */
static void test_impulse_device_images(void **state)
{
    jf_image src = t_random_image(641, 359, 3, 0, 12), want = {0}, d_src = {0}, d_dst = {0};
    jf_image back = t_poisoned_like(&src, 0);
    jf_impulse_choice cc, gc;
    double dc, dg;
    int kind;
    (void)state;
    t_salt_pepper(&src, 0.45, 2);
    assert_int_equal(jf_image_alloc_on(g_gpu, &d_src, 641, 359, 3, JF_LOC_DEVICE), JF_OK);
    assert_int_equal(jf_image_alloc_on(g_gpu, &d_dst, 641, 359, 3, JF_LOC_DEVICE), JF_OK);
    assert_int_equal(jf_image_transfer(g_gpu, &src, &d_src), JF_OK);
    for (kind = 0; kind < 3; kind++) {
        assert_int_equal(t_impulse_run(kind, g_cpu, &src, &want, 9, JF_BORDER_MIRROR, JF_VARIANT_CPU), JF_OK);
        assert_int_equal(t_impulse_run(kind, g_gpu, &d_src, &d_dst, 9, JF_BORDER_MIRROR, JF_VARIANT_AUTO), JF_OK);
        assert_int_equal(jf_image_transfer(g_gpu, &d_dst, &back), JF_OK);
        assert_true(t_images_equal(&back, &want));
        jf_image_free(&want);
    }
    assert_int_equal(jf_impulse_density(g_cpu, &src, &dc), JF_OK);
    assert_int_equal(jf_impulse_density(g_gpu, &d_src, &dg), JF_OK);
    assert_true(dc == dg && fabs(dc - 0.45) < 0.02);
    assert_int_equal(jf_impulse_auto(g_cpu, &src, &want, NULL, &cc), JF_OK);
    assert_int_equal(jf_impulse_auto(g_gpu, &d_src, &d_dst, NULL, &gc), JF_OK);
    /* 45%: dense enough for the smoothing pass, which the CPU and GPU agree on */
    assert_true(cc.density == gc.density && cc.max_ksize == gc.max_ksize && gc.filtered == cc.filtered &&
                gc.filtered == 2);
    assert_int_equal(jf_image_transfer(g_gpu, &d_dst, &back), JF_OK);
    assert_true(t_images_equal(&back, &want));
    jf_image_free(&want);
    jf_image_free(&back);
    jf_image_free(&src);
    jf_image_free(&d_src);
    jf_image_free(&d_dst);
}

/* Large k on the shared variant: the tile no longer fits 48 KiB from about
 * k = 83; shorter strips, then the untiled histogram, must give the same
 * bytes, never an error.  At 16 bits the global select, k = 63 to 255. */
static void test_median_large_k(void **state)
{
    static const int ks[] = {63, 83, 101, 127, 255};
    /* 8 bits: shared and auto; 16 bits (full range, and 16 levels full of
     * ties): global and auto */
    jf_image srcs[3];
    int k, v, i;
    (void)state;
    srcs[0] = t_random_image(97, 61, 3, 1, 13);
    srcs[1] = t_random_image16(97, 61, 3, 1, 0, 14);
    srcs[2] = t_random_image16(61, 43, 1, 0, 12, 15);
    for (i = 0; i < 3; i++)
        for (k = 0; k < (g_quick ? 3 : 5); k++) {
            jf_median_options mo = t_median_opts(ks[k], JF_BORDER_REFLECT, JF_VARIANT_CPU);
            jf_image want = {0};
            assert_int_equal(jf_median(g_cpu, &srcs[i], &want, &mo), JF_OK);
            for (v = 0; v < 2; v++) {
                jf_image got = t_poisoned_like(&srcs[i], 0);
                mo.variant = v ? JF_VARIANT_AUTO : i ? JF_VARIANT_GLOBAL : JF_VARIANT_SHARED;
                if (jf_median(g_gpu, &srcs[i], &got, &mo) != JF_OK)
                    fail_msg("median k=%d %s: %s", ks[k], jf_variant_name(mo.variant), jf_last_error());
                if (!t_images_equal(&got, &want))
                    fail_msg("median k=%d %s %d-bit differs from the CPU", ks[k],
                             jf_variant_name(mo.variant), i ? 16 : 8);
                jf_image_free(&got);
            }
            jf_image_free(&want);
        }
    for (i = 0; i < 3; i++)
        jf_image_free(&srcs[i]);
}

/* The histogram median's long strips at large k (median_shared_ring_kernel)
 * against the CPU, byte for byte: images large enough that the launcher
 * takes the ring on this device (asserted from its plan; the strips span
 * several chunks, so the ring wraps), every border, grey and RGB, random
 * and four-level data. */
static void test_median_ring(void **state)
{
    static const int ks[] = {31, 45, 63, 25}; /* 25: the ring on large images only */
    static const int sizes[][3] = {{1024, 37, 1}, {700, 13, 3}}; /* width, extra rows, channels */
    jf_device_info d;
    int s, k, b, cases = 0;
    (void)state;
    assert_int_equal(jf_context_device(g_gpu, &d), JF_OK);
    for (s = 0; s < 2; s++) {
        /* 64-row strips give every SM 4 blocks of 64 columns (the plan's
         * least), and a last strip cut short */
        const int per_row = (sizes[s][0] + 63) / 64 * sizes[s][2];
        const int h = 64 * ((4 * d.multiprocessors + per_row - 1) / per_row) + sizes[s][1];
        jf_image src = t_random_image(sizes[s][0], h, sizes[s][2], 3, (uint64_t)(800 + s));
        if (s)
            t_map_bytes(&src, 6);
        for (k = 0; k < (g_quick ? 2 : 4); k++) {
            int strip, chunk;
            if (ks[k] < JF_MEDIAN_RING_MIN_K) {
                /* as many rows again as the early ring asks for */
                const double least = JF_MEDIAN_RING_EARLY_SAMPLES * d.multiprocessors / 132.0;
                const int rows = (int)(least / ((double)src.width * src.channels)) + h;
                jf_image_free(&src);
                src = t_random_image(sizes[s][0], rows, sizes[s][2], 3, (uint64_t)(810 + s));
                if (s)
                    t_map_bytes(&src, 6);
            }
            const size_t smem = jf_median_ring_plan(src.width, src.height, src.channels, 64, ks[k],
                                                    d.multiprocessors, jf_device_smem_limit(&d),
                                                    &strip, &chunk);
            if (smem == 0 || strip <= chunk)
                fail_msg("median ring k=%d %dx%dx%d: the plan (strip %d, chunk %d) leaves no ring "
                         "to test on this device", ks[k], src.width, src.height, src.channels, strip,
                         chunk);
            for (b = 0; b < JF_BORDER_COUNT; b++) {
                jf_median_options mo = t_median_opts(ks[k], (jf_border)b, JF_VARIANT_CPU);
                jf_image want = {0}, got = t_poisoned_like(&src, 3);
                assert_int_equal(jf_median(g_cpu, &src, &want, &mo), JF_OK);
                mo.variant = JF_VARIANT_SHARED;
                assert_int_equal(jf_median(g_gpu, &src, &got, &mo), JF_OK);
                if (!t_images_equal(&got, &want))
                    fail_msg("median ring k=%d (strip %d, chunk %d) %s %dx%dx%d differs from the CPU",
                             ks[k], strip, chunk, jf_border_name((jf_border)b), src.width, src.height,
                             src.channels);
                jf_image_free(&want);
                jf_image_free(&got);
                cases++;
            }
        }
        jf_image_free(&src);
    }
    print_message("median ring: %d cases byte-identical\n", cases);
    assert_true(cases >= 2 * 2 * JF_BORDER_COUNT);
}

/* A block the device cannot run (registers, threads, shared memory) is
 * refused with a reason before launching: never a failed launch. */
static void test_big_user_blocks(void **state)
{
    jf_image src = t_random_image(300, 200, 3, 0, 21), dst = {0};
    jf_kernel gauss;
    int shape;
    (void)state;
    assert_int_equal(jf_kernel_make(JF_KERNEL_GAUSS, 11, 0, &gauss), JF_OK);
    for (shape = 0; shape < 3; shape++) {
        static const int blocks[][2] = {{1024, 1}, {512, 2}, {128, 8}};
        jf_median_options mo = t_median_opts(7, JF_BORDER_ZERO, JF_VARIANT_GLOBAL);
        jf_conv_options co = t_conv_opts(11, gauss.weights, JF_BORDER_ZERO, JF_VARIANT_FAST);
        jf_status st;
        mo.block_x = co.block_x = blocks[shape][0];
        mo.block_y = co.block_y = blocks[shape][1];
        st = jf_median(g_gpu, &src, &dst, &mo);
        assert_true(st == JF_OK || (st == JF_ERR_ARG && strstr(jf_last_error(), "block")));
        st = jf_convolve(g_gpu, &src, &dst, &co);
        assert_true(st == JF_OK || (st == JF_ERR_ARG && strstr(jf_last_error(), "block")));
    }
    jf_kernel_free(&gauss);
    jf_image_free(&src);
    jf_image_free(&dst);
}

#ifdef JF_HAVE_CUDA
/* The embedded-vision loop: frames in memory another library owns, on the
 * caller's stream, several operations queued before one wait, nothing
 * allocated after the first frame, results equal to the CPU's. */
static void test_frame_loop_async(void **state)
{
    enum { W = 641, H = 359, FRAMES = 12 };
    jf_image host = t_random_image(W, H, 1, 0, 31), want_mid = {0}, want_out = {0};
    jf_image back = t_poisoned_like(&host, 0);
    jf_median_options mo = t_median_opts(5, JF_BORDER_MIRROR, JF_VARIANT_AUTO);
    jf_kernel gauss;
    jf_conv_options co;
    jf_context_options o = t_context_opts(JF_BACKEND_CUDA, 0, JF_MEMORY_COPY);
    jf_context *ctx;
    cudaStream_t stream;
    void *d_in, *d_mid, *d_out;
    size_t p_in, p_mid, p_out;
    jf_image in, mid, out;
    long allocs = 0;
    int f;
    (void)state;
    assert_int_equal(jf_kernel_make(JF_KERNEL_GAUSS, 0, 1.2, &gauss), JF_OK);
    co = t_conv_opts(gauss.ksize, gauss.weights, JF_BORDER_REFLECT, JF_VARIANT_AUTO);
    assert_int_equal(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    o.stream = stream;
    assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
    assert_true(jf_context_stream(ctx) == (void *)stream);
    assert_int_equal(cudaMallocPitch(&d_in, &p_in, W, H), cudaSuccess);
    assert_int_equal(cudaMallocPitch(&d_mid, &p_mid, W, H), cudaSuccess);
    assert_int_equal(cudaMallocPitch(&d_out, &p_out, W, H), cudaSuccess);
    in = jf_image_wrap_device(d_in, W, H, 1, p_in, JF_LOC_DEVICE);
    mid = jf_image_wrap_device(d_mid, W, H, 1, p_mid, JF_LOC_DEVICE);
    out = jf_image_wrap_device(d_out, W, H, 1, p_out, JF_LOC_DEVICE);
    mo.variant = JF_VARIANT_CPU;
    co.variant = JF_VARIANT_CPU;
    assert_int_equal(jf_median(g_cpu, &host, &want_mid, &mo), JF_OK);
    assert_int_equal(jf_convolve(g_cpu, &want_mid, &want_out, &co), JF_OK);
    mo.variant = co.variant = JF_VARIANT_AUTO;
    for (f = 0; f < FRAMES; f++) {
        if (f == 1)
            allocs = atomic_load(&g_allocs);
        assert_int_equal(cudaMemcpy2DAsync(d_in, p_in, host.data, host.stride, W, H,
                                           cudaMemcpyHostToDevice, stream), cudaSuccess);
        assert_int_equal(jf_median(ctx, &in, &mid, &mo), JF_OK);   /* queued */
        assert_int_equal(jf_convolve(ctx, &mid, &out, &co), JF_OK); /* queued */
        assert_int_equal(jf_context_sync(ctx), JF_OK);              /* one wait */
    }
    assert_int_equal(atomic_load(&g_allocs) - allocs, 0);
    assert_int_equal(cudaMemcpy2D(back.data, back.stride, d_out, p_out, W, H, cudaMemcpyDeviceToHost),
                     cudaSuccess);
    assert_true(t_max_abs_diff(&back, &want_out) <= 1);
    jf_context_destroy(ctx);
    cudaStreamDestroy(stream); /* the caller's: the context left it alone */
    cudaFree(d_in);
    cudaFree(d_mid);
    cudaFree(d_out);
    jf_kernel_free(&gauss);
    jf_image_free(&host);
    jf_image_free(&back);
    jf_image_free(&want_mid);
    jf_image_free(&want_out);
}

static void CUDART_CB sleep_on_stream(void *ms)
{
    struct timespec t;
    t.tv_sec = *(int *)ms / 1000;
    t.tv_nsec = (long)(*(int *)ms % 1000) * 1000000L;
    nanosleep(&t, NULL);
}

/* jf_context_set_stream: work queued after a switch runs after what was
 * queued before it, with no host wait (a stream held up 300 ms behind a
 * host callback: the switch returns at once, and the output is right);
 * the special streams and the way home work; jf_memory_locate tells the
 * four kinds of memory apart. */
static void test_stream_switch_and_locate(void **state)
{
    enum { W = 1023, H = 577 };
    static int delay_ms = 300;
    jf_image host = t_random_image(W, H, 1, 0, 77), want_mid = {0}, want_out = {0};
    jf_image back = t_poisoned_like(&host, 0);
    jf_median_options mo = t_median_opts(7, JF_BORDER_REPLICATE, JF_VARIANT_AUTO);
    jf_conv_options co;
    jf_kernel box;
    jf_context_options o = t_context_opts(JF_BACKEND_CUDA, 0, JF_MEMORY_COPY);
    jf_context *ctx;
    cudaStream_t a, b;
    void *d_in, *d_mid, *d_out, *managed, *mapped, *plain;
    size_t p_in, p_mid, p_out;
    jf_image in, mid, out;
    jf_location loc;
    int dev, round;
    double t0;
    (void)state;
    assert_int_equal(jf_kernel_make(JF_KERNEL_BOX, 5, 0, &box), JF_OK);
    co = t_conv_opts(box.ksize, box.weights, JF_BORDER_REFLECT, JF_VARIANT_AUTO);
    mo.variant = co.variant = JF_VARIANT_CPU;
    assert_int_equal(jf_median(g_cpu, &host, &want_mid, &mo), JF_OK);
    assert_int_equal(jf_convolve(g_cpu, &want_mid, &want_out, &co), JF_OK);
    mo.variant = co.variant = JF_VARIANT_AUTO;
    assert_int_equal(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), cudaSuccess);
    assert_int_equal(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), cudaSuccess);
    assert_int_equal(cudaMallocPitch(&d_in, &p_in, W, H), cudaSuccess);
    assert_int_equal(cudaMallocPitch(&d_mid, &p_mid, W, H), cudaSuccess);
    assert_int_equal(cudaMallocPitch(&d_out, &p_out, W, H), cudaSuccess);
    in = jf_image_wrap_device(d_in, W, H, 1, p_in, JF_LOC_DEVICE);
    mid = jf_image_wrap_device(d_mid, W, H, 1, p_mid, JF_LOC_DEVICE);
    out = jf_image_wrap_device(d_out, W, H, 1, p_out, JF_LOC_DEVICE);
    assert_int_equal(cudaMemcpy2D(d_in, p_in, host.data, host.stride, W, H, cudaMemcpyHostToDevice),
                     cudaSuccess);
    for (round = 0; round < 3; round++) {
        /* round 0: the context's own stream to B; 1: A to B; 2: A to the
         * legacy default stream */
        void *second = round == 2 ? (void *)cudaStreamLegacy : (void *)b;
        o.stream = round == 0 ? NULL : (void *)a;
        assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
        assert_int_equal(cudaMemset2D(d_mid, p_mid, 0x5a, W, H), cudaSuccess);
        assert_int_equal(cudaMemset2D(d_out, p_out, 0xa5, W, H), cudaSuccess);
        assert_int_equal(cudaLaunchHostFunc((cudaStream_t)jf_context_stream(ctx), sleep_on_stream,
                                            &delay_ms), cudaSuccess);
        assert_int_equal(jf_median(ctx, &in, &mid, &mo), JF_OK); /* queued behind 300 ms */
        t0 = jf_now_ms();
        assert_int_equal(jf_context_set_stream(ctx, second), JF_OK);
        assert_true(jf_now_ms() - t0 < 100); /* no host wait */
        assert_true(jf_context_stream(ctx) == second);
        assert_int_equal(jf_convolve(ctx, &mid, &out, &co), JF_OK); /* on the new stream */
        assert_int_equal(jf_context_sync(ctx), JF_OK);
        assert_int_equal(cudaMemcpy2D(back.data, back.stride, d_out, p_out, W, H,
                                      cudaMemcpyDeviceToHost), cudaSuccess);
        assert_true(t_max_abs_diff(&back, &want_out) <= 1);
        /* home again (made now when the context never had one), then host images */
        assert_int_equal(jf_context_set_stream(ctx, NULL), JF_OK);
        assert_true(jf_context_stream(ctx) != NULL && jf_context_stream(ctx) != second);
        assert_int_equal(jf_context_set_stream(ctx, cudaStreamPerThread), JF_OK);
        {
            jf_image got = {0};
            assert_int_equal(jf_median(ctx, &host, &got, &mo), JF_OK);
            assert_int_equal(t_max_abs_diff(&got, &want_mid), 0);
            jf_image_free(&got);
        }
        jf_context_destroy(ctx);
    }
    /* managed memory follows the stream: a managed-mode context's buffers */
    o = t_context_opts(JF_BACKEND_CUDA, 0, JF_MEMORY_MANAGED);
    assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
    {
        jf_image got = {0};
        assert_int_equal(jf_median(ctx, &host, &got, &mo), JF_OK); /* buffers made, attached */
        jf_image_free(&got);
        assert_int_equal(jf_context_set_stream(ctx, b), JF_OK);
        assert_int_equal(jf_median(ctx, &host, &got, &mo), JF_OK);
        assert_int_equal(t_max_abs_diff(&got, &want_mid), 0);
        jf_image_free(&got);
    }
    jf_context_destroy(ctx);
    /* where memory lives */
    assert_int_equal(cudaMallocManaged(&managed, 4096, cudaMemAttachGlobal), cudaSuccess);
    assert_int_equal(cudaHostAlloc(&mapped, 4096, cudaHostAllocMapped), cudaSuccess);
    plain = malloc(4096);
    assert_int_equal(jf_memory_locate(d_in, &loc, &dev), JF_OK);
    assert_true(loc == JF_LOC_DEVICE && dev == 0);
    assert_int_equal(jf_memory_locate((char *)d_in + 100, &loc, &dev), JF_OK); /* inside */
    assert_true(loc == JF_LOC_DEVICE && dev == 0);
    assert_int_equal(jf_memory_locate(managed, &loc, &dev), JF_OK);
    assert_true(loc == JF_LOC_MANAGED);
    assert_int_equal(jf_memory_locate(mapped, &loc, &dev), JF_OK);
    assert_true(loc == JF_LOC_MAPPED && dev == 0);
    assert_int_equal(jf_memory_locate(plain, &loc, &dev), JF_OK);
    assert_true(loc == JF_LOC_HOST && dev == -1);
    free(plain);
    cudaFreeHost(mapped);
    cudaFree(managed);
    cudaFree(d_in);
    cudaFree(d_mid);
    cudaFree(d_out);
    cudaStreamDestroy(a);
    cudaStreamDestroy(b);
    jf_kernel_free(&box);
    jf_image_free(&host);
    jf_image_free(&back);
    jf_image_free(&want_mid);
    jf_image_free(&want_out);
}

/* Calls leave the caller's current device as it was. */
static void test_device_restored(void **state)
{
    jf_context_options o = t_context_opts(JF_BACKEND_CUDA, 0, JF_MEMORY_COPY);
    jf_image src = t_random_image(64, 48, 1, 0, 2), dst = {0};
    jf_median_options mo = t_median_opts(3, JF_BORDER_ZERO, JF_VARIANT_AUTO);
    jf_context *ctx;
    int dev = -1, n = jf_device_count();
    (void)state;
    o.device = n - 1;
    assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
    assert_int_equal(cudaSetDevice(0), cudaSuccess);
    assert_int_equal(jf_median(ctx, &src, &dst, &mo), JF_OK);
    assert_int_equal(cudaGetDevice(&dev), cudaSuccess);
    assert_int_equal(dev, 0);
    if (n < 2)
        print_message("one device: restoring was checked on device 0 only\n");
    jf_context_destroy(ctx);
    jf_image_free(&src);
    jf_image_free(&dst);
}
#endif

/* nvJPEG against libjpeg-turbo.  The decoders differ (nvJPEG's own IDCT,
 * and its chroma upsampling where libjpeg-turbo interpolates), so pixels
 * agree within a stated tolerance, not bit for bit: over every case, PSNR
 * of one decode against the other >= NVJPEG_MIN_PSNR dB and mean absolute
 * difference <= NVJPEG_MAX_MEAN levels (docs/kernels/studies.md, "nvJPEG",
 * gives the measured figures).  Photo crops at awkward sizes, grey, 4:4:4,
 * 4:2:2, 4:4:0 and 4:2:0, two qualities.  A truncated file gets the CPU
 * decoder's refusal; a PNG stays on the CPU.  Skips (with a line)
 * where nvJPEG cannot be loaded, unless JF_REQUIRE_NVJPEG is set. */
#define NVJPEG_MIN_PSNR 40.0
#define NVJPEG_MAX_MEAN 0.5

static jf_image photo_crop(const jf_image *src, int w, int h, int ch, int seed)
{
    jf_image img = {0};
    int x, y, c;
    assert_int_equal(jf_image_alloc(&img, w, h, ch), JF_OK);
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++)
            for (c = 0; c < ch; c++) {
                int sx = (x + seed * 131) % src->width, sy = (y + seed * 71) % src->height;
                img.data[(size_t)y * img.stride + (size_t)x * ch + c] =
                    src->data[(size_t)sy * src->stride + (size_t)sx * src->channels +
                              (c < src->channels ? c : 0)];
            }
    return img;
}

static double mean_abs_diff(const jf_image *a, const jf_image *b)
{
    double sum = 0;
    int x, y;
    for (y = 0; y < a->height; y++)
        for (x = 0; x < a->width * a->channels; x++)
            sum += abs((int)a->data[(size_t)y * a->stride + x] - (int)b->data[(size_t)y * b->stride + x]);
    return sum / ((double)a->width * a->height * a->channels);
}

/* Decode `bytes` on the CPU and with nvJPEG; the GPU's pixels, on the host. */
static void decode_both(jf_context *nv, const unsigned char *bytes, size_t size, jf_picture *cpu,
                        jf_image *gpu_host, int *engine)
{
    jf_picture g;
    assert_int_equal(jf_picture_decode(bytes, size, "t.jpg", cpu), JF_OK);
    assert_int_equal(jf_picture_decode_frame(nv, bytes, size, "t.jpg", &g), JF_OK);
    *engine = g.decoded_on_gpu;
    assert_true(g.decoded_on_gpu == 1 || g.decoded_on_gpu == 2);
    assert_int_equal(g.color.location, JF_LOC_DEVICE);
    assert_int_equal(jf_image_alloc(gpu_host, g.color.width, g.color.height, g.color.channels), JF_OK);
    assert_int_equal(jf_image_transfer(nv, &g.color, gpu_host), JF_OK);
    assert_int_equal(g.exif_size, cpu->exif_size);
    assert_int_equal(g.extra_count, cpu->extra_count);
    jf_picture_free(&g);
}

/* Decode on `nv`'s path and on the CPU: the same status and, for a
 * refusal, the CPU decoder's message word for word.  Returns the status. */
static jf_status decode_frame_as_cpu(jf_context *nv, const unsigned char *bytes, size_t size)
{
    jf_picture cpu, gpu;
    char msg[512];
    jf_status want = jf_picture_decode(bytes, size, "t.jpg", &cpu);
    snprintf(msg, sizeof msg, "%s", jf_last_error());
    if (want == JF_OK)
        jf_picture_free(&cpu);
    assert_int_equal(jf_picture_decode_frame(nv, bytes, size, "t.jpg", &gpu), want);
    if (want != JF_OK)
        assert_string_equal(jf_last_error(), msg);
    else
        jf_picture_free(&gpu);
    return want;
}

static void test_nvjpeg_decode(void **state)
{
    static const int sizes[][2] = {{1, 1}, {7, 5}, {33, 17}, {1023, 577}, {1920, 1080}};
    static const int layouts[][3] = {{1, 0, 0}, {3, 1, 1}, {3, 2, 1}, {3, 1, 2}, {3, 2, 2}};
    static const char *layout_names[] = {"grey", "4:4:4", "4:2:2", "4:4:0", "4:2:0"};
    static const int qualities[] = {92, 50};
    jf_context_options o = t_context_opts(JF_BACKEND_CUDA, 0, JF_MEMORY_AUTO);
    jf_context *nv = NULL;
    jf_picture photo, cpu;
    char detail[256];
    double worst_psnr = 1e9, worst_mean = 0;
    int worst_max = 0, si, li, qi, hw = 0, hybrid = 0, cases = 0, damaged_refused = 0;
    (void)state;
    if (jf_codec_probe(JF_CODEC_NVJPEG, 0, detail, sizeof detail) != JF_OK) {
        printf("nvJPEG: not tested: %s\n", jf_last_error());
        if (getenv("JF_REQUIRE_NVJPEG"))
            fail_msg("JF_REQUIRE_NVJPEG is set");
        return;
    }
    printf("nvJPEG: %s\n", detail);
    o.codec = JF_CODEC_NVJPEG;
    assert_int_equal(jf_context_create(&o, &nv), JF_OK);
    assert_int_equal(jf_picture_read(t_source_path("samples/images/retina.jpg"), &photo), JF_OK);
    for (si = 0; si < (g_quick ? 4 : 5); si++)
        for (li = 0; li < 5; li++)
            for (qi = 0; qi < 2; qi++) {
                jf_picture pic;
                jf_encode_options e = jf_encode_defaults();
                jf_image src = photo_crop(&photo.color, sizes[si][0], sizes[si][1], layouts[li][0],
                                          si + li), got = {0};
                unsigned char *bytes = NULL;
                size_t size = 0;
                double psnr = 0, mean;
                int engine = 0, maxd;
                memset(&pic, 0, sizeof pic);
                pic.color = src;
                pic.jpeg_h_samp = layouts[li][1];
                pic.jpeg_v_samp = layouts[li][2];
                e.format = JF_FORMAT_JPEG;
                e.quality = qualities[qi];
                assert_int_equal(jf_picture_encode(&pic, &e, &bytes, &size), JF_OK);
                decode_both(nv, bytes, size, &cpu, &got, &engine);
                assert_int_equal(got.width, cpu.color.width);
                assert_int_equal(got.channels, cpu.color.channels);
                maxd = t_max_abs_diff(&got, &cpu.color);
                mean = mean_abs_diff(&got, &cpu.color);
                assert_int_equal(jf_psnr(g_cpu, &cpu.color, &got, &psnr, NULL), JF_OK);
                if (sizes[si][0] >= 1023)
                    printf("nvJPEG %4dx%-4d %-5s q%d %s: max %3d, mean %.4f, PSNR %.2f dB\n",
                           sizes[si][0], sizes[si][1], layout_names[li], qualities[qi],
                           engine == 1 ? "hardware" : "hybrid  ", maxd, mean, psnr);
                worst_psnr = psnr < worst_psnr ? psnr : worst_psnr;
                worst_mean = mean > worst_mean ? mean : worst_mean;
                worst_max = maxd > worst_max ? maxd : worst_max;
                hw += engine == 1;
                hybrid += engine == 2;
                cases++;
                /* cut short: the CPU decoder's refusal, word for word */
                assert_int_not_equal(decode_frame_as_cpu(nv, bytes, size / 2), JF_OK);
                if (sizes[si][0] >= 1023) {
                    /* entropy-coded data damaged mid-scan (no marker bytes
                     * made): the engine decodes it in silence, so the GPU
                     * path must refuse it as the CPU decoder does */
                    unsigned char *hurt = (unsigned char *)malloc(size);
                    size_t k;
                    assert_non_null(hurt);
                    memcpy(hurt, bytes, size);
                    for (k = 0; k < 64; k++)
                        hurt[size / 2 + k] = (unsigned char)((k * 73 + 29 + si * 7 + li) % 254);
                    damaged_refused += decode_frame_as_cpu(nv, hurt, size) != JF_OK;
                    free(hurt);
                }
                jf_picture_free(&cpu);
                jf_image_free(&got);
                jf_image_free(&src);
                free(bytes);
            }
    printf("nvJPEG: %d cases (%d hardware, %d hybrid): worst PSNR %.2f dB, worst mean %.4f, "
           "largest difference %d levels\n", cases, hw, hybrid, worst_psnr, worst_mean, worst_max);
    printf("nvJPEG: %d damaged files refused as on the CPU\n", damaged_refused);
    if (strstr(detail, "hardware")) {
        /* -v's line on the engine's service counts what it decoded */
        char tally[512];
        long files = 0;
        assert_true(hw > 0);
        assert_int_equal(jf_nvjpeg_tally(0, tally, sizeof tally), 1);
        printf("nvJPEG %s\n", tally);
        assert_int_equal(sscanf(tally, "engine: %ld files", &files), 1);
        assert_true(files >= hw);
    }
    assert_true(damaged_refused > 0); /* the damage is of a kind the CPU decoder refuses */
    assert_true(worst_psnr >= NVJPEG_MIN_PSNR);
    assert_true(worst_mean <= NVJPEG_MAX_MEAN);
    {
        /* a PNG through the same context stays on the CPU, in frame 0 */
        jf_picture png;
        unsigned char *bytes = NULL;
        size_t size = 0;
        jf_encode_options e = jf_encode_defaults();
        e.format = JF_FORMAT_PNG;
        assert_int_equal(jf_picture_encode(&photo, &e, &bytes, &size), JF_OK);
        assert_int_equal(jf_picture_decode_frame(nv, bytes, size, "t.png", &png), JF_OK);
        assert_int_equal(png.decoded_on_gpu, 0);
        assert_int_not_equal(png.color.location, JF_LOC_DEVICE);
        jf_picture_free(&png);
        free(bytes);
    }
    jf_picture_free(&photo);
    jf_context_destroy(nv);
}

/* nvJPEG's encoder on device pictures: the file keeps the picture's EXIF
 * and markers, and its quality (PSNR against the source after a CPU
 * decode) is within NVJPEG_ENC_MAX_LOSS dB of libjpeg-turbo's at the same
 * quality and subsampling.  Sizes, layouts and qualities as above. */
#define NVJPEG_ENC_MAX_LOSS 1.0

static void test_nvjpeg_encode(void **state)
{
    static const int sizes[][2] = {{7, 5}, {33, 17}, {1023, 577}, {1920, 1080}};
    static const int layouts[][3] = {{1, 0, 0}, {3, 1, 1}, {3, 2, 1}, {3, 2, 2}};
    static const unsigned char exif[] = {'I', 'I', 42, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    jf_context_options o = t_context_opts(JF_BACKEND_CUDA, 0, JF_MEMORY_AUTO);
    jf_context *nv = NULL;
    jf_picture photo;
    double worst = -1e9;
    int si, li, qi, on_gpu_count = 0, cases = 0;
    (void)state;
    if (jf_codec_probe(JF_CODEC_NVJPEG, 0, NULL, 0) != JF_OK) {
        printf("nvJPEG encoder: not tested: %s\n", jf_last_error());
        if (getenv("JF_REQUIRE_NVJPEG"))
            fail_msg("JF_REQUIRE_NVJPEG is set");
        return;
    }
    o.codec = JF_CODEC_NVJPEG;
    assert_int_equal(jf_context_create(&o, &nv), JF_OK);
    assert_int_equal(jf_picture_read(t_source_path("samples/images/retina.jpg"), &photo), JF_OK);
    for (si = 0; si < 4; si++)
        for (li = 0; li < 4; li++)
            for (qi = 0; qi < 2; qi++) {
                const int q = qi ? 50 : 92;
                jf_picture pic, back_gpu, back_cpu;
                jf_encode_options e = jf_encode_defaults();
                jf_image src = photo_crop(&photo.color, sizes[si][0], sizes[si][1], layouts[li][0],
                                          si * 3 + li);
                unsigned char *gpu_bytes = NULL, *cpu_bytes = NULL;
                size_t gpu_size = 0, cpu_size = 0;
                double psnr_gpu = 0, psnr_cpu = 0;
                int on_gpu = 0;
                memset(&pic, 0, sizeof pic);
                pic.exif = (unsigned char *)exif;
                pic.exif_size = sizeof exif;
                pic.jpeg_h_samp = layouts[li][1];
                pic.jpeg_v_samp = layouts[li][2];
                e.format = JF_FORMAT_JPEG;
                e.quality = q;
                pic.color = src;
                assert_int_equal(jf_picture_encode(&pic, &e, &cpu_bytes, &cpu_size), JF_OK);
                assert_int_equal(jf_context_frame(nv, 3, src.width, src.height, src.channels,
                                                  &pic.color), JF_OK);
                assert_int_equal(jf_image_transfer(nv, &src, &pic.color), JF_OK);
                assert_int_equal(jf_picture_encode_frame(nv, &pic, &e, &gpu_bytes, &gpu_size,
                                                         &on_gpu), JF_OK);
                on_gpu_count += on_gpu;
                assert_int_equal(jf_picture_decode(gpu_bytes, gpu_size, "gpu.jpg", &back_gpu), JF_OK);
                assert_int_equal(jf_picture_decode(cpu_bytes, cpu_size, "cpu.jpg", &back_cpu), JF_OK);
                assert_int_equal(back_gpu.color.channels, src.channels);
                assert_int_equal(back_gpu.exif_size, sizeof exif);
                assert_memory_equal(back_gpu.exif, exif, sizeof exif);
                if (src.channels == 3 && on_gpu) /* the input's subsampling is kept */
                    assert_true(back_gpu.jpeg_h_samp == layouts[li][1] &&
                                back_gpu.jpeg_v_samp == layouts[li][2]);
                assert_int_equal(jf_psnr(g_cpu, &src, &back_gpu.color, &psnr_gpu, NULL), JF_OK);
                assert_int_equal(jf_psnr(g_cpu, &src, &back_cpu.color, &psnr_cpu, NULL), JF_OK);
                if (sizes[si][0] >= 1023)
                    printf("nvJPEG encode %4dx%-4d %dch %d:%d q%d %s: %.2f dB %zu bytes, "
                           "libjpeg-turbo %.2f dB %zu bytes\n", sizes[si][0], sizes[si][1],
                           src.channels, layouts[li][1], layouts[li][2], q,
                           on_gpu ? "GPU" : "CPU", psnr_gpu, gpu_size, psnr_cpu, cpu_size);
                if (psnr_cpu - psnr_gpu > worst)
                    worst = psnr_cpu - psnr_gpu;
                assert_true(psnr_gpu >= psnr_cpu - NVJPEG_ENC_MAX_LOSS);
                cases++;
                jf_picture_free(&back_gpu);
                jf_picture_free(&back_cpu);
                free(gpu_bytes);
                free(cpu_bytes);
                jf_image_free(&src);
            }
    printf("nvJPEG encode: %d cases, %d on the GPU; largest loss against libjpeg-turbo %.2f dB\n",
           cases, on_gpu_count, worst);
    assert_true(on_gpu_count > cases / 2);
    jf_picture_free(&photo);
    jf_context_destroy(nv);
}

/* Jobs encoding at once share the service's encoders: each job's images
 * come back as the bytes one job alone gets for them (no state shared
 * between encoders, no request answered with another's image). */
#define ENC_JOBS 8
#define ENC_EACH 6
typedef struct enc_job {
    const jf_image *src[ENC_EACH];
    unsigned char *bytes[ENC_EACH];
    size_t size[ENC_EACH];
    int failed;
} enc_job;

static void *encode_job(void *arg)
{
    enc_job *j = (enc_job *)arg;
    jf_context_options o = t_context_opts(JF_BACKEND_CUDA, 0, JF_MEMORY_AUTO);
    jf_context *ctx = NULL;
    int i;
    o.codec = JF_CODEC_NVJPEG;
    j->failed = jf_context_create(&o, &ctx) != JF_OK;
    for (i = 0; i < ENC_EACH && !j->failed; i++) {
        jf_picture pic;
        jf_encode_options e = jf_encode_defaults();
        int on_gpu = 0;
        memset(&pic, 0, sizeof pic);
        e.format = JF_FORMAT_JPEG;
        j->failed = jf_context_frame(ctx, 3, j->src[i]->width, j->src[i]->height,
                                     j->src[i]->channels, &pic.color) != JF_OK ||
                    jf_image_transfer(ctx, j->src[i], &pic.color) != JF_OK ||
                    jf_picture_encode_frame(ctx, &pic, &e, &j->bytes[i], &j->size[i], &on_gpu) !=
                        JF_OK ||
                    !on_gpu;
    }
    jf_context_destroy(ctx);
    return NULL;
}

static void test_nvjpeg_encode_concurrent(void **state)
{
    jf_picture photo;
    jf_image src[ENC_JOBS * ENC_EACH];
    enc_job alone, jobs[ENC_JOBS];
    pthread_t tid[ENC_JOBS];
    int i, k;
    (void)state;
    if (jf_codec_probe(JF_CODEC_NVJPEG, 0, NULL, 0) != JF_OK) {
        printf("nvJPEG encoders at once: not tested: %s\n", jf_last_error());
        return;
    }
    assert_int_equal(jf_picture_read(t_source_path("samples/images/retina.jpg"), &photo), JF_OK);
    for (i = 0; i < ENC_JOBS * ENC_EACH; i++) /* every image its own crop and size */
        src[i] = photo_crop(&photo.color, 401 + 37 * (i % 7), 233 + 19 * i, 3, i);
    memset(jobs, 0, sizeof jobs);
    for (k = 0; k < ENC_JOBS; k++)
        for (i = 0; i < ENC_EACH; i++)
            jobs[k].src[i] = &src[k * ENC_EACH + i];
    for (k = 0; k < ENC_JOBS; k++)
        assert_int_equal(pthread_create(&tid[k], NULL, encode_job, &jobs[k]), 0);
    for (k = 0; k < ENC_JOBS; k++)
        pthread_join(tid[k], NULL);
    for (k = 0; k < ENC_JOBS; k++) {
        assert_false(jobs[k].failed);
        memset(&alone, 0, sizeof alone);
        memcpy(alone.src, jobs[k].src, sizeof alone.src);
        encode_job(&alone); /* one job, nothing beside it */
        assert_false(alone.failed);
        for (i = 0; i < ENC_EACH; i++) {
            assert_int_equal(jobs[k].size[i], alone.size[i]);
            assert_memory_equal(jobs[k].bytes[i], alone.bytes[i], alone.size[i]);
            free(jobs[k].bytes[i]);
            free(alone.bytes[i]);
        }
    }
    printf("nvJPEG encoders at once: %d jobs x %d images, each as encoded alone\n", ENC_JOBS,
           ENC_EACH);
    for (i = 0; i < ENC_JOBS * ENC_EACH; i++)
        jf_image_free(&src[i]);
    jf_picture_free(&photo);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pad_exact),
        cmocka_unit_test(test_median_all_variants),
        cmocka_unit_test(test_median_fast_video_grey),
        cmocka_unit_test(test_median_strips),
        cmocka_unit_test(test_block_shapes),
        cmocka_unit_test(test_conv_all_variants),
        cmocka_unit_test(test_conv_fixed),
        cmocka_unit_test(test_conv_separable),
        cmocka_unit_test(test_conv_wide),
        cmocka_unit_test(test_profile_auto),
        cmocka_unit_test(test_real_photos),
        cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_16bit_and_four_channels),
        cmocka_unit_test(test_locations_and_memory_modes),
        cmocka_unit_test(test_frames),
        cmocka_unit_test(test_stats_and_errors),
        cmocka_unit_test(test_ops_table),
        cmocka_unit_test(test_table_shape_after_shape),
        cmocka_unit_test(test_median_large_k),
        cmocka_unit_test(test_median_ring),
        cmocka_unit_test(test_impulse_matches_cpu),
        cmocka_unit_test(test_impulse_tall_image),
        cmocka_unit_test(test_impulse_after_guided),
        cmocka_unit_test(test_impulse_device_images),
        cmocka_unit_test(test_big_user_blocks),
        cmocka_unit_test(test_nvjpeg_decode),
        cmocka_unit_test(test_nvjpeg_encode),
        cmocka_unit_test(test_nvjpeg_encode_concurrent),
#ifdef JF_HAVE_CUDA
        cmocka_unit_test(test_fused_border),
        cmocka_unit_test(test_frame_loop_async),
        cmocka_unit_test(test_stream_switch_and_locate),
        cmocka_unit_test(test_device_restored),
#endif
    };
    jf_device_info info;
    int rc;
    g_quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    if (getenv("JF_TEST_FILTER")) /* e.g. "test_nvjpeg*": one test while working on it */
        cmocka_set_test_filter(getenv("JF_TEST_FILTER"));
    if (!jf_built_with_cuda() || jf_device_count() == 0) {
        printf("SKIP: no CUDA device: %s\n", jf_last_error());
        return 77;
    }
    if (jf_device_query(0, &info) == JF_OK)
        printf("device 0: %s, compute capability %d.%d, %d SMs, %.0f GB/s theoretical (%s)%s\n",
               info.name, info.cc_major, info.cc_minor, info.multiprocessors,
               info.theoretical_gbps, info.theoretical_source,
               info.limited ? "; Jetson Nano limits (JETFILTER_DEVICE_LIMITS)" : "");
    g_cpu = make_context(JF_BACKEND_CPU, JF_MEMORY_AUTO);
    g_gpu = make_context(JF_BACKEND_CUDA, JF_MEMORY_COPY);
    g_managed = make_context(JF_BACKEND_CUDA, JF_MEMORY_MANAGED);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    jf_context_destroy(g_cpu);
    jf_context_destroy(g_gpu);
    jf_context_destroy(g_managed);
    return rc;
}
