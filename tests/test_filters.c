/* Pad, median and convolution on the CPU backend against independent
 * references, on random data at awkward sizes with padded strides. */
#include "common.h"
#include "benchmarks/bench_util.h"
#include "filters/conv/conv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int SIZES[][2] = {{1, 1}, {7, 5}, {33, 17}, {64, 3}, {2, 9}};
#define NSIZES (int)(sizeof SIZES / sizeof SIZES[0])

static void test_border_index_matches_definition(void **state)
{
    /* the scipy examples for n = 4 ("abcd"), as documented in scipy.ndimage */
    static const int reflect[] = {1, 0, 0, 1, 2, 3, 3, 2};   /* b a | a b c d | d c */
    static const int mirror[] = {2, 1, 0, 1, 2, 3, 2, 1};    /* c b | a b c d | c b */
    static const int replicate[] = {0, 0, 0, 1, 2, 3, 3, 3};
    jf_image src = t_random_image(4, 1, 1, 0, 1), dst = {0};
    int i;
    (void)state;
    assert_int_equal(jf_pad(NULL, &src, 2, JF_BORDER_REFLECT, &dst), JF_OK);
    for (i = 0; i < 8; i++)
        assert_int_equal(dst.data[2 * dst.stride + i], src.data[reflect[i]]);
    assert_int_equal(jf_pad(NULL, &src, 2, JF_BORDER_MIRROR, &dst), JF_OK);
    for (i = 0; i < 8; i++)
        assert_int_equal(dst.data[2 * dst.stride + i], src.data[mirror[i]]);
    assert_int_equal(jf_pad(NULL, &src, 2, JF_BORDER_REPLICATE, &dst), JF_OK);
    for (i = 0; i < 8; i++)
        assert_int_equal(dst.data[2 * dst.stride + i], src.data[replicate[i]]);
    assert_int_equal(jf_pad(NULL, &src, 2, JF_BORDER_ZERO, &dst), JF_OK);
    assert_int_equal(dst.data[0], 0);
    assert_int_equal(dst.data[2 * dst.stride + 1], 0);
    assert_int_equal(dst.data[2 * dst.stride + 2], src.data[0]);
    jf_image_free(&src);
    jf_image_free(&dst);
}

static void test_pad_all_modes_sizes(void **state)
{
    int s, b, ch, r, x, y, c;
    (void)state;
    for (s = 0; s < NSIZES; s++)
        for (ch = 1; ch <= 3; ch += 2)
            for (b = 0; b < JF_BORDER_COUNT; b++)
                for (r = 0; r <= 31; r += (r < 3 ? 1 : 14)) {
                    jf_image src = t_random_image(SIZES[s][0], SIZES[s][1], ch, 3, (uint64_t)s * 7 + ch);
                    jf_image dst = {0};
                    assert_int_equal(jf_pad(NULL, &src, r, (jf_border)b, &dst), JF_OK);
                    assert_int_equal(dst.width, src.width + 2 * r);
                    assert_int_equal(dst.height, src.height + 2 * r);
                    for (y = 0; y < dst.height; y++)
                        for (x = 0; x < dst.width; x++)
                            for (c = 0; c < ch; c++) {
                                int sx = t_border_index(x - r, src.width, (jf_border)b);
                                int sy = t_border_index(y - r, src.height, (jf_border)b);
                                int want = sx < 0 || sy < 0 ? 0
                                         : src.data[(size_t)sy * src.stride + (size_t)sx * ch + c];
                                if (dst.data[(size_t)y * dst.stride + (size_t)x * ch + c] != want)
                                    fail_msg("pad %s r=%d %dx%dx%d at %d,%d", jf_border_name((jf_border)b),
                                             r, src.width, src.height, ch, x, y);
                            }
                    jf_image_free(&src);
                    jf_image_free(&dst);
                }
}

static void check_median(jf_context *ctx, int w, int h, int ch, int k, jf_border b, uint64_t seed)
{
    jf_image src = t_random_image(w, h, ch, 5, seed);
    jf_image got = t_poisoned_like(&src, 7);
    jf_image want = t_poisoned_like(&src, 0);
    jf_median_options mo = t_median_opts(k, b, JF_VARIANT_AUTO);
    assert_int_equal(jf_median(ctx, &src, &got, &mo), JF_OK);
    t_median_reference(&src, k, b, &want);
    if (!t_images_equal(&got, &want))
        fail_msg("median k=%d %s %dx%dx%d differs from the brute-force median", k,
                 jf_border_name(b), w, h, ch);
    jf_image_free(&src);
    jf_image_free(&got);
    jf_image_free(&want);
}

static void test_median_matches_brute_force(void **state)
{
    static const int ks[] = {1, 3, 5, 7, 9, 11, 15, 21, 31, 63};
    jf_context *ctx = t_cpu_context(3);
    int s, b, ch, k;
    (void)state;
    for (s = 0; s < NSIZES; s++)
        for (ch = 1; ch <= 3; ch += 2)
            for (b = 0; b < JF_BORDER_COUNT; b++)
                for (k = 0; k < (int)(sizeof ks / sizeof ks[0]); k++)
                    check_median(ctx, SIZES[s][0], SIZES[s][1], ch, ks[k], (jf_border)b,
                                 (uint64_t)(s * 100 + k));
    jf_context_destroy(ctx);
}

/* 16 bits: every border, 1 to 4 channels, k up to 63, full-range samples
 * and samples of 16 levels (windows full of ties), against sorting. */
static void check_median16(jf_context *ctx, int w, int h, int ch, int k, jf_border b, int shift,
                           uint64_t seed)
{
    jf_image src = t_random_image16(w, h, ch, 3, shift, seed);
    jf_image got = t_poisoned_like(&src, 1), want = t_poisoned_like(&src, 0);
    jf_median_options mo = t_median_opts(k, b, JF_VARIANT_AUTO);
    assert_int_equal(jf_median(ctx, &src, &got, &mo), JF_OK);
    t_median_reference(&src, k, b, &want);
    if (!t_images_equal(&got, &want))
        fail_msg("16-bit median k=%d %s %dx%dx%d (shift %d) differs from sorting", k,
                 jf_border_name(b), w, h, ch, shift);
    jf_image_free(&src);
    jf_image_free(&got);
    jf_image_free(&want);
}

static void test_median16_matches_brute_force(void **state)
{
    static const int ks[] = {1, 3, 5, 7, 9, 11, 21, 63};
    jf_context *ctx = t_cpu_context(3);
    int s, b, ch, k, shift;
    (void)state;
    for (s = 0; s < NSIZES; s++)
        for (ch = 1; ch <= 4; ch++)
            for (b = 0; b < JF_BORDER_COUNT; b++)
                for (k = 0; k < (int)(sizeof ks / sizeof ks[0]); k++)
                    for (shift = 0; shift <= 12; shift += 12)
                        if (ks[k] < 63 || ch == 1) /* sorting 63 x 63 windows is the slow part */
                            check_median16(ctx, SIZES[s][0], SIZES[s][1], ch, ks[k], (jf_border)b,
                                       shift, (uint64_t)(s * 1000 + ch * 100 + k * 10 + b));
    check_median16(ctx, 1023, 577, 1, 5, JF_BORDER_REFLECT, 0, 5);
    check_median16(ctx, 151, 99, 3, 31, JF_BORDER_MIRROR, 4, 6);
    check_median16(ctx, 1023, 577, 3, 3, JF_BORDER_ZERO, 0, 7);
    check_median16(ctx, 1023, 577, 3, 5, JF_BORDER_REPLICATE, 12, 8);
    jf_context_destroy(ctx);
}

/* k = 3 makes a row's first and last 64 samples from copies (the samples
 * the border names beside them), those between straight from the rows in
 * whole vectors (the last over the one before), and rows of fewer than
 * 136 samples in pieces: widths about each of those lengths, 1 to 4
 * channels, every border, odd and even heights (a lone last row), 8 and
 * 16 bits and float32. */
static void test_median3_row_lengths(void **state)
{
    static const int samples[] = {1, 2, 63, 64, 65, 71, 72, 127, 128, 129, 131, 135, 136, 137, 191, 192, 193, 200, 263};
    jf_context *ctx = t_cpu_context(1);
    int i, ch, b, h, last = 0;
    (void)state;
    for (ch = 1; ch <= 4; ch++)
        for (i = 0; i < (int)(sizeof samples / sizeof samples[0]); i++) {
            const int w = (samples[i] + ch - 1) / ch;
            if (w == last)
                continue;
            last = w;
            for (b = 0; b < JF_BORDER_COUNT; b++)
                for (h = 3; h <= 4; h++) {
                    const uint64_t seed = (uint64_t)(ch * 10000 + w * 10 + b * 2 + h);
                    check_median(ctx, w, h, ch, 3, (jf_border)b, seed);
                    check_median16(ctx, w, h, ch, 3, (jf_border)b, 12 * (b & 1), seed);
                    if (ch == 1 || ch == 3) {
                        jf_image src = t_random_float(w, h, ch, 1, b & 1, seed);
                        jf_image want = t_poisoned_like(&src, 0), got = {0};
                        jf_median_options o = t_median_opts(3, (jf_border)b, JF_VARIANT_AUTO);
                        t_median_reference_f(&src, 3, (jf_border)b, &want);
                        assert_int_equal(jf_median(ctx, &src, &got, &o), JF_OK);
                        if (t_float_mismatches(&got, &want))
                            fail_msg("float median k=3 %s %dx%dx%d differs from sorting",
                                     jf_border_name((jf_border)b), w, h, ch);
                        jf_image_free(&src);
                        jf_image_free(&want);
                        jf_image_free(&got);
                    }
                }
        }
    jf_context_destroy(ctx);
}

/* Rows longer than the k = 5 network's 8 KiB chunks (8192 samples at 8
 * bits, 4096 at 16): two and three chunks, the last short and not whole
 * vectors; for k = 3 rows of many vectors, the last over the one before;
 * odd heights leave a band's last row alone (rows are made in pairs);
 * every border. */
static void test_median_rows_over_a_chunk(void **state)
{
    jf_context *ctx = t_cpu_context(2);
    /* emulation, sanitizers: the zero border and one the border names */
    const int quick = getenv("JF_TEST_QUICK") != NULL;
    int b, k;
    (void)state;
    for (b = 0; b < JF_BORDER_COUNT; b += 1 + quick)
        for (k = 3; k <= 5; k += 2) {
            check_median(ctx, 8209, 5, 1, k, (jf_border)b, (uint64_t)(40 + b * 2 + k));
            check_median(ctx, 3001, 7, 3, k, (jf_border)b, (uint64_t)(50 + b * 2 + k));
            check_median16(ctx, 4111, 5, 1, k, (jf_border)b, 12, (uint64_t)(60 + b * 2 + k));
            check_median16(ctx, 2999, 3, 3, k, (jf_border)b, 0, (uint64_t)(70 + b * 2 + k));
        }
    jf_context_destroy(ctx);
}

/* Rows wider than the constant-time median's strips (384 output columns
 * each): three strips, the last short; every border at k = 15 in grey and
 * RGB, then k = 21 and 63 at one border each. */
static void test_median_over_strips(void **state)
{
    jf_context *ctx = t_cpu_context(2);
    const int quick = getenv("JF_TEST_QUICK") != NULL;
    int b;
    (void)state;
    for (b = 0; b < JF_BORDER_COUNT; b += 1 + quick) {
        check_median(ctx, 801, 9, 1, 15, (jf_border)b, (uint64_t)(80 + b));
        check_median(ctx, 787, 7, 3, 15, (jf_border)b, (uint64_t)(90 + b));
    }
    if (!quick) {
        check_median(ctx, 800, 11, 3, 21, JF_BORDER_REFLECT, 98);
        check_median(ctx, 770, 5, 1, 63, JF_BORDER_MIRROR, 99);
    }
    jf_context_destroy(ctx);
}

static void test_median_large_image(void **state)
{
    jf_context *ctx = t_cpu_context(2);
    /* emulation, sanitizers: two borders here, the other two on the photo */
    const int quick = getenv("JF_TEST_QUICK") != NULL;
    int b;
    (void)state;
    for (b = quick; b < JF_BORDER_COUNT; b += 1 + quick) {
        check_median(ctx, 1023, 577, 1, 3, (jf_border)b, 11);
        check_median(ctx, 1023, 577, 3, 5, (jf_border)b, 12);
    }
    check_median(ctx, 301, 199, 3, 11, JF_BORDER_MIRROR, 13);
    jf_context_destroy(ctx);
}

/* A photo-like image (few distinct values, long runs) stresses the
 * histogram's median walk differently from uniform noise. */
static void test_median_real_photo(void **state)
{
    jf_picture pic;
    jf_context *ctx = t_cpu_context(2);
    const int quick = getenv("JF_TEST_QUICK") != NULL;
    int k, b;
    (void)state;
    assert_int_equal(jf_picture_read(t_source_path("samples/images/chelsea.png"), &pic), JF_OK);
    for (k = 3; k <= 9; k += 6)
        for (b = 0; b < JF_BORDER_COUNT; b += 1 + quick) {
            jf_image got = t_poisoned_like(&pic.color, 0), want = t_poisoned_like(&pic.color, 0);
            jf_median_options mo = t_median_opts(k, (jf_border)b, JF_VARIANT_AUTO);
            assert_int_equal(jf_median(ctx, &pic.color, &got, &mo), JF_OK);
            t_median_reference(&pic.color, k, (jf_border)b, &want);
            assert_true(t_images_equal(&got, &want));
            jf_image_free(&got);
            jf_image_free(&want);
        }
    jf_picture_free(&pic);
    jf_context_destroy(ctx);
}

/* scipy.ndimage.median_filter outputs, made by tests/data/make_reference.py:
 * an implementation that shares no code or author with this one. */
static void test_median_matches_scipy(void **state)
{
    static const char *modes[] = {"constant", "nearest", "reflect", "mirror"};
    jf_picture in, ref;
    char name[128];
    int b, k;
    (void)state;
    assert_int_equal(jf_picture_read(t_source_path("tests/data/random_37x23.png"), &in), JF_OK);
    for (b = 0; b < JF_BORDER_COUNT; b++)
        for (k = 3; k <= 7; k += 4) {
            jf_image got = t_poisoned_like(&in.color, 0);
            jf_median_options mo = t_median_opts(k, (jf_border)b, JF_VARIANT_AUTO);
            snprintf(name, sizeof name, "tests/data/scipy_median_k%d_%s.png", k, modes[b]);
            assert_int_equal(jf_picture_read(t_source_path(name), &ref), JF_OK);
            assert_int_equal(jf_median(NULL, &in.color, &got, &mo), JF_OK);
            if (!t_images_equal(&got, &ref.color))
                fail_msg("median differs from scipy: %s", name);
            jf_image_free(&got);
            jf_picture_free(&ref);
        }
    jf_picture_free(&in);
}

/* The same at 16 bits on a real photo's data (tests/data/make_reference16.py). */
static void test_median16_matches_scipy(void **state)
{
    static const char *modes[] = {"constant", "nearest", "reflect", "mirror"};
    static const int ks[] = {3, 7, 15};
    jf_picture in, ref;
    char name[128];
    int b, k;
    (void)state;
    assert_int_equal(jf_picture_read(t_source_path("tests/data/deep_grey_96x64.png"), &in), JF_OK);
    assert_int_equal(in.color.sample, JF_SAMPLE_U16);
    for (b = 0; b < JF_BORDER_COUNT; b++)
        for (k = 0; k < 3; k++) {
            jf_image got = t_poisoned_like(&in.color, 0);
            jf_median_options mo = t_median_opts(ks[k], (jf_border)b, JF_VARIANT_AUTO);
            snprintf(name, sizeof name, "tests/data/scipy16_median_k%d_%s.png", ks[k], modes[b]);
            assert_int_equal(jf_picture_read(t_source_path(name), &ref), JF_OK);
            assert_int_equal(jf_median(NULL, &in.color, &got, &mo), JF_OK);
            if (!t_images_equal(&got, &ref.color))
                fail_msg("16-bit median differs from scipy: %s", name);
            jf_image_free(&got);
            jf_picture_free(&ref);
        }
    jf_picture_free(&in);
}

static void test_median_rejects_bad_k(void **state)
{
    jf_image src = t_random_image(9, 9, 1, 0, 3), dst = {0};
    jf_median_options mo = t_median_opts(4, JF_BORDER_REPLICATE, JF_VARIANT_AUTO);
    (void)state;
    assert_int_equal(jf_median(NULL, &src, &dst, &mo), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "odd"));
    mo.ksize = -3;
    assert_int_equal(jf_median(NULL, &src, &dst, &mo), JF_ERR_ARG);
    mo.ksize = JF_MEDIAN_MAX_KSIZE + 2;
    assert_int_equal(jf_median(NULL, &src, &dst, &mo), JF_ERR_ARG);
    mo.ksize = 3;
    mo.variant = JF_VARIANT_SHARED; /* CUDA-only variant on the CPU backend */
    assert_int_equal(jf_median(NULL, &src, &dst, &mo), JF_ERR_ARG);
    assert_null(dst.data);
    jf_image_free(&src);
}

static void check_conv_depth(jf_context *ctx, int w, int h, int ch, int k, const float *wts,
                             jf_border b, uint64_t seed, int wide)
{
    jf_image src = wide ? t_random_image16(w, h, ch, 2, 0, seed) : t_random_image(w, h, ch, 2, seed);
    jf_image got = t_poisoned_like(&src, 1);
    jf_conv_options co = t_conv_opts(k, wts, b, JF_VARIANT_AUTO);
    const double top = wide ? 65535 : 255;
    int x, y, c;
    assert_int_equal(jf_convolve(ctx, &src, &got, &co), JF_OK);
    assert_int_equal(got.sample, src.sample);
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++)
            for (c = 0; c < ch; c++) {
                double ref = t_conv_reference_at(&src, x, y, c, k, wts, b);
                double want = ref <= 0 ? 0 : ref >= top ? top : floor(ref + 0.5);
                int v = (int)t_px(&got, x, y, c);
                /* stated tolerance: 1 level, for float accumulation near .5 */
                if (fabs(v - want) > 1.0)
                    fail_msg("conv k=%d %s at %d,%d,%d: got %d, double reference %.4f", k,
                             jf_border_name(b), x, y, c, v, ref);
            }
    jf_image_free(&src);
    jf_image_free(&got);
}

static void check_conv(jf_context *ctx, int w, int h, int ch, int k, const float *wts,
                       jf_border b, uint64_t seed)
{
    check_conv_depth(ctx, w, h, ch, k, wts, b, seed, 0);
}

/* 16 bits: the same rule (float sums, half away from zero, 0..65535),
 * direct and separable, within 1 level of a double reference. */
static void test_conv16(void **state)
{
    static const int ks[] = {1, 3, 7, 15};
    jf_context *ctx = t_cpu_context(2);
    uint64_t rs = 77;
    int s, b, k, i, ch;
    (void)state;
    for (k = 0; k < (int)(sizeof ks / sizeof ks[0]); k++) {
        const int n = ks[k] * ks[k];
        float *w = malloc(sizeof(float) * (size_t)n);
        jf_kernel g;
        assert_int_equal(jf_kernel_make(JF_KERNEL_GAUSS, ks[k], 0, &g), JF_OK);
        for (i = 0; i < n; i++) /* sums near 1 with negative taps: saturates both ways */
            w[i] = (float)((double)(t_rand(&rs) >> 40) / (double)(1 << 24) * 2.4 - 1.0) / (float)n * 3.0f;
        for (s = 0; s < NSIZES; s++)
            for (ch = 1; ch <= 4; ch += 3)
                for (b = 0; b < JF_BORDER_COUNT; b++) {
                    check_conv_depth(ctx, SIZES[s][0], SIZES[s][1], ch, ks[k], w, (jf_border)b,
                                     (uint64_t)(s + 31 * k), 1);
                    check_conv_depth(ctx, SIZES[s][0], SIZES[s][1], ch, ks[k], g.weights,
                                     (jf_border)b, (uint64_t)(s + 17 * k), 1);
                }
        jf_kernel_free(&g);
        free(w);
    }
    jf_context_destroy(ctx);
}

static void test_conv_random_weights(void **state)
{
    static const int ks[] = {1, 3, 5, 7, 9, 15, 31};
    jf_context *ctx = t_cpu_context(2);
    /* emulation, sanitizers: a smaller odd-sized image in place of
     * 1023 x 577 (the sums on it, the reference's too, were most of the
     * run under qemu) */
    const int quick = getenv("JF_TEST_QUICK") != NULL;
    uint64_t rs = 42;
    int s, b, k, i;
    (void)state;
    for (k = 0; k < (int)(sizeof ks / sizeof ks[0]); k++) {
        int n = ks[k] * ks[k];
        float *w = malloc(sizeof(float) * (size_t)n);
        double sum = 0;
        for (i = 0; i < n; i++) {
            w[i] = (float)((double)(t_rand(&rs) >> 11) / 9007199254740992.0 - 0.3);
            sum += w[i];
        }
        for (i = 0; i < n; i++)
            w[i] = (float)(w[i] / sum); /* keep outputs mostly in range */
        for (s = 0; s < NSIZES; s++)
            for (b = 0; b < JF_BORDER_COUNT; b++)
                check_conv(ctx, SIZES[s][0], SIZES[s][1], 1 + 2 * (s % 2), ks[k], w, (jf_border)b,
                           (uint64_t)(k * 10 + s));
        check_conv(ctx, quick ? 301 : 1023, quick ? 173 : 577, 3, ks[k] > 9 ? 9 : ks[k], w,
                   JF_BORDER_REFLECT, 99);
        free(w);
    }
    jf_context_destroy(ctx);
}

static void test_conv_presets_separable(void **state)
{
    static const jf_kernel_preset presets[] = {JF_KERNEL_BOX, JF_KERNEL_GAUSS, JF_KERNEL_SHARPEN};
    jf_context *ctx = t_cpu_context(2);
    int p, k, b;
    (void)state;
    for (p = 0; p < 3; p++)
        for (k = 3; k <= 31; k += (k < 11 ? 2 : 10))
            for (b = 0; b < JF_BORDER_COUNT; b++) {
                jf_kernel kern;
                assert_int_equal(jf_kernel_make(presets[p], k, 0.0, &kern), JF_OK);
                check_conv(ctx, 67, 41, 3, k, kern.weights, (jf_border)b, (uint64_t)(p * 100 + k));
                jf_kernel_free(&kern);
            }
    jf_context_destroy(ctx);
}

/* The variant the context's last convolution recorded. */
static const char *last_conv_variant(const jf_context *ctx)
{
    const jf_stat *st = jf_bench_last_stat(ctx, "conv");
    return st ? st->variant : "";
}

/* got against the reference ref, sample by sample: at most one level
 * apart (a failure names `label` and the sample); adds the differences and
 * their count to *sum and *n. */
static void check_within_one_level(const jf_image *got, const jf_image *ref, const char *label,
                                   long *sum, long *n)
{
    int x, y, c;
    for (y = 0; y < ref->height; y++)
        for (x = 0; x < ref->width; x++)
            for (c = 0; c < ref->channels; c++) {
                const int d = (int)t_px(got, x, y, c) - (int)t_px(ref, x, y, c);
                if (d < -1 || d > 1)
                    fail_msg("%s at %d,%d,%d: %d against the reference's %d", label, x, y, c,
                             (int)t_px(got, x, y, c), (int)t_px(ref, x, y, c));
                *sum += d;
                (*n)++;
            }
}

/* Sample by sample, fixed-point result minus the float reference's: at
 * most one level apart, and unbiased (the mean difference near 0; dropping
 * the taps / 2 that centres each pass's truncation moves it by ~k / 256). */
static void check_fixed_against_reference(jf_context *ctx, const jf_image *src, int k,
                                          const float *wts, jf_border b, const char *what)
{
    jf_image fixed = t_poisoned_like(src, 1), ref = t_poisoned_like(src, 1);
    jf_conv_options co = t_conv_opts(k, wts, b, JF_VARIANT_AUTO);
    char label[128];
    long sum = 0, n = 0;
    assert_int_equal(jf_convolve(ctx, src, &fixed, &co), JF_OK);
    assert_string_equal(last_conv_variant(ctx), "cpu-fixed");
    co.variant = JF_VARIANT_CPU;
    assert_int_equal(jf_convolve(ctx, src, &ref, &co), JF_OK);
    assert_string_equal(last_conv_variant(ctx), "cpu-separable");
    snprintf(label, sizeof label, "fixed %s k=%d %s %dx%dx%d", what, k, jf_border_name(b),
             src->width, src->height, src->channels);
    check_within_one_level(&fixed, &ref, label, &sum, &n);
    /* (black and white sums take few values, each on one side of a half) */
    if (n >= 20000 && strcmp(what, "b/w") != 0 && fabs((double)sum / (double)n) > 0.02)
        fail_msg("fixed %s k=%d: mean difference %.4f from the reference", what, k,
                 (double)sum / (double)n);
    jf_image_free(&fixed);
    jf_image_free(&ref);
}

/* `auto` on the CPU runs 8-bit separable non-negative weights (Gaussian,
 * box) in 16-bit fixed point: within one level of the float reference at
 * every k, border, size and channel count, unbiased on large images, even
 * on black and white noise (the largest products); weights it cannot take
 * (a negative factor, a sum above 1, 16 bits) run the reference's loop. */
static void test_conv_fixed_point(void **state)
{
    static const int ks[] = {3, 5, 7, 9, 13, 15, 21, 31, 41, 63};
    static const double sigmas[] = {0.0, 0.6, 4.0, 40.0};
    jf_context_options o = t_context_opts(JF_BACKEND_CPU, 2, JF_MEMORY_AUTO);
    jf_context *ctx = NULL;
    jf_image big = t_random_image(301, 173, 3, 5, 11), bw = t_random_image(257, 97, 1, 0, 12);
    float sharp[9] = {0, -1, 0, -1, 5, -1, 0, -1, 0}, doubled[25], outer[9];
    jf_image got = {0}, want = {0};
    jf_conv_options co;
    int k, s, b, i;
    (void)state;
    o.stats = 4; /* the variant each call ran */
    assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
    for (i = 0; i < bw.width * bw.height; i++)
        bw.data[i] = bw.data[i] & 1 ? 255 : 0;
    for (k = 0; k < (int)(sizeof ks / sizeof ks[0]); k++)
        for (s = 0; s < (int)(sizeof sigmas / sizeof sigmas[0]); s++) {
            jf_kernel g, box;
            assert_int_equal(jf_kernel_make(JF_KERNEL_GAUSS, ks[k], sigmas[s], &g), JF_OK);
            assert_int_equal(jf_kernel_make(JF_KERNEL_BOX, ks[k], 0.0, &box), JF_OK);
            for (i = 0; i < NSIZES; i++)
                for (b = 0; b < JF_BORDER_COUNT; b++) {
                    jf_image src = t_random_image(SIZES[i][0], SIZES[i][1], 1 + (i + b) % 4, 3,
                                                  (uint64_t)(100 * k + 10 * s + i));
                    check_fixed_against_reference(ctx, &src, ks[k], g.weights, (jf_border)b, "gauss");
                    jf_image_free(&src);
                }
            check_fixed_against_reference(ctx, &big, ks[k], g.weights,
                                          (jf_border)((k + s) % JF_BORDER_COUNT), "gauss");
            check_fixed_against_reference(ctx, &bw, ks[k], g.weights, JF_BORDER_REFLECT, "b/w");
            if (s == 0) {
                check_fixed_against_reference(ctx, &big, ks[k], box.weights, JF_BORDER_ZERO, "box");
                check_fixed_against_reference(ctx, &bw, ks[k], box.weights, JF_BORDER_MIRROR, "b/w");
            }
            jf_kernel_free(&g);
            jf_kernel_free(&box);
        }
    /* the reference's loop, same bits: a negative factor, a sum of 2 */
    for (i = 0; i < 9; i++)
        outer[i] = (float)((i / 3 == 1 ? -2 : 1) * (i % 3 == 1 ? 2 : 1)) / 16.0f;
    for (i = 0; i < 25; i++)
        doubled[i] = 2.0f / 25.0f;
    co = t_conv_opts(3, outer, JF_BORDER_REPLICATE, JF_VARIANT_AUTO);
    assert_int_equal(jf_convolve(ctx, &big, &got, &co), JF_OK);
    assert_string_equal(last_conv_variant(ctx), "cpu-separable");
    co = t_conv_opts(5, doubled, JF_BORDER_REPLICATE, JF_VARIANT_AUTO);
    assert_int_equal(jf_convolve(ctx, &big, &got, &co), JF_OK);
    assert_string_equal(last_conv_variant(ctx), "cpu-separable");
    co.variant = JF_VARIANT_CPU;
    assert_int_equal(jf_convolve(ctx, &big, &want, &co), JF_OK);
    assert_memory_equal(got.data, want.data, (size_t)got.stride * (size_t)got.height);
    co = t_conv_opts(3, sharp, JF_BORDER_REPLICATE, JF_VARIANT_AUTO);
    assert_int_equal(jf_convolve(ctx, &big, &got, &co), JF_OK);
    assert_string_equal(last_conv_variant(ctx), "cpu");
    jf_image_free(&got);
    jf_image_free(&want);
    jf_image_free(&big);
    jf_image_free(&bw);
    jf_context_destroy(ctx);
}

/* The FFT tiles (run directly, whatever the cost model would pick) against
 * the float reference (check_within_one_level). */
static void check_fft_against_reference(jf_context *ctx, const jf_image *src, int k,
                                        const float *wts, jf_border b, long *sum, long *n)
{
    jf_image fft = t_poisoned_like(src, 1), ref = t_poisoned_like(src, 1);
    jf_conv_options co = t_conv_opts(k, wts, b, JF_VARIANT_CPU);
    char label[128];
    assert_int_equal(jf_conv_cpu_fft(ctx, src, k, b, wts, &fft), JF_OK);
    assert_int_equal(jf_convolve(ctx, src, &ref, &co), JF_OK);
    snprintf(label, sizeof label, "fft k=%d %s %dx%dx%d %d-bit", k, jf_border_name(b), src->width,
             src->height, src->channels, (int)jf_sample_size(src->sample) * 8);
    check_within_one_level(&fft, &ref, label, sum, n);
    jf_image_free(&fft);
    jf_image_free(&ref);
}

/* What `auto` ran for src with these options. */
static const char *auto_ran(jf_context *ctx, const jf_image *src, const jf_conv_options *co)
{
    jf_image out = {0};
    assert_int_equal(jf_convolve(ctx, src, &out, co), JF_OK);
    jf_image_free(&out);
    return last_conv_variant(ctx);
}

/* The kind of weights `auto` sends through the FFT on the CPU: within one
 * level of the float reference at every border, 1 to 4 channels, 8 and 16
 * bits, images smaller than a tile and spanning several, positive and
 * signed weights, unbiased on large images; and `auto` picks it only where
 * it is the cheaper and its error stays small. */
static void test_conv_fft(void **state)
{
    static const int ks[] = {3, 9, 15, 31, 63};
    jf_context_options o = t_context_opts(JF_BACKEND_CPU, 2, JF_MEMORY_AUTO);
    jf_context *ctx = NULL;
    jf_image big = t_random_image(1023, 577, 1, 3, 21), big16 = t_random_image16(301, 173, 3, 2, 0, 22);
    float *w = malloc(sizeof(float) * JF_CONV_MAX_KSIZE * JF_CONV_MAX_KSIZE);
    jf_conv_options co;
    /* emulation, sanitizers: the large images to k = 15 (the reference's
     * k x k sums on them at 31 and 63 were most of the run under qemu) */
    const int quick = getenv("JF_TEST_QUICK") != NULL;
    long sum = 0, n = 0;
    int k, i, b;
    (void)state;
    assert_non_null(w);
    o.stats = 4; /* the variant each call ran */
    assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
    for (k = 0; k < (int)(sizeof ks / sizeof ks[0]); k++) {
        jf_kernel sharp;
        assert_int_equal(jf_kernel_make(JF_KERNEL_SHARPEN, ks[k], 0.0, &sharp), JF_OK);
        jf_bench_arbitrary_weights(w, ks[k]);
        for (i = 0; i < NSIZES; i++)
            for (b = 0; b < JF_BORDER_COUNT; b++) {
                jf_image s8 = t_random_image(SIZES[i][0], SIZES[i][1], 1 + (i + b) % 4, 3,
                                             (uint64_t)(100 * k + 10 * b + i));
                jf_image s16 = t_random_image16(SIZES[i][1], SIZES[i][0], 1 + (i + b + 1) % 4, 1, 0,
                                                (uint64_t)(100 * k + 10 * b + i));
                check_fft_against_reference(ctx, &s8, ks[k], w, (jf_border)b, &sum, &n);
                check_fft_against_reference(ctx, &s8, ks[k], sharp.weights, (jf_border)b, &sum, &n);
                check_fft_against_reference(ctx, &s16, ks[k], w, (jf_border)b, &sum, &n);
                jf_image_free(&s8);
                jf_image_free(&s16);
            }
        if (!quick || ks[k] <= 15) {
            sum = n = 0;
            check_fft_against_reference(ctx, &big, ks[k], w, (jf_border)(k % JF_BORDER_COUNT), &sum, &n);
            check_fft_against_reference(ctx, &big16, ks[k], w, (jf_border)((k + 1) % JF_BORDER_COUNT),
                                        &sum, &n);
            check_fft_against_reference(ctx, &big16, ks[k], sharp.weights, JF_BORDER_REFLECT, &sum, &n);
            if (fabs((double)sum / (double)n) > 0.01)
                fail_msg("fft k=%d: mean difference %.4f from the reference", ks[k],
                         (double)sum / (double)n);
        }
        jf_kernel_free(&sharp);
    }
    /* what `auto` runs: the FFT for large k on a large image ... */
    jf_bench_arbitrary_weights(w, 31);
    co = t_conv_opts(31, w, JF_BORDER_REPLICATE, JF_VARIANT_AUTO);
    assert_string_equal(auto_ran(ctx, &big, &co), "cpu-fft");
    assert_string_equal(auto_ran(ctx, &big16, &co), "cpu-fft");
    /* ... the direct sum for small k, for a tiny image, and for weights
     * whose sum |w| x range would let the transforms' error near half a level */
    co.ksize = 5;
    jf_bench_arbitrary_weights(w, 5);
    assert_string_equal(auto_ran(ctx, &big, &co), "cpu");
    {
        jf_image tiny = t_random_image(7, 5, 1, 0, 23);
        co.ksize = 63;
        jf_bench_arbitrary_weights(w, 63);
        assert_string_equal(auto_ran(ctx, &tiny, &co), "cpu");
        jf_image_free(&tiny);
    }
    co.ksize = 31;
    jf_bench_arbitrary_weights(w, 31);
    for (i = 0; i < 31 * 31; i++)
        w[i] *= i % 2 ? 9.0f : -9.0f; /* sum |w| about 9: 8 bits yes, 16 bits no */
    assert_string_equal(auto_ran(ctx, &big, &co), "cpu-fft");
    assert_string_equal(auto_ran(ctx, &big16, &co), "cpu-fft");
    for (i = 0; i < 31 * 31; i++)
        w[i] *= 2.0f; /* about 18 */
    assert_string_equal(auto_ran(ctx, &big16, &co), "cpu");
    free(w);
    jf_image_free(&big);
    jf_image_free(&big16);
    jf_context_destroy(ctx);
}

static void test_conv_rounding_and_saturation(void **state)
{
    unsigned char px[4] = {3, 5, 200, 1};
    jf_image src = jf_image_wrap(px, 4, 1, 1, 4), dst = {0};
    float half = 0.5f, neg = -1.0f, big = 2.0f;
    jf_conv_options co = t_conv_opts(1, &half, JF_BORDER_ZERO, JF_VARIANT_AUTO);
    (void)state;
    assert_int_equal(jf_convolve(NULL, &src, &dst, &co), JF_OK);
    assert_int_equal(dst.data[0], 2);   /* 1.5 rounds half away from zero */
    assert_int_equal(dst.data[1], 3);   /* 2.5 -> 3 */
    assert_int_equal(dst.data[2], 100);
    assert_int_equal(dst.data[3], 1);   /* 0.5 -> 1 */
    co.weights = &neg;
    assert_int_equal(jf_convolve(NULL, &src, &dst, &co), JF_OK);
    assert_int_equal(dst.data[0], 0);   /* negative saturates to 0 */
    co.weights = &big;
    assert_int_equal(jf_convolve(NULL, &src, &dst, &co), JF_OK);
    assert_int_equal(dst.data[2], 255); /* 400 saturates to 255 */
    assert_int_equal(dst.data[1], 10);
    jf_image_free(&dst);
}

static void test_kernel_presets(void **state)
{
    jf_kernel k;
    double sum;
    int i;
    (void)state;
    assert_int_equal(jf_kernel_make(JF_KERNEL_GAUSS, 0, 1.0, &k), JF_OK);
    assert_int_equal(k.ksize, 7); /* 2*ceil(3 sigma)+1 */
    for (sum = 0, i = 0; i < 49; i++)
        sum += k.weights[i];
    assert_true(fabs(sum - 1.0) < 1e-5);
    assert_true(fabsf(k.weights[0] - k.weights[48]) < 1e-9f);
    assert_true(k.weights[24] > k.weights[23]);
    jf_kernel_free(&k);
    assert_int_equal(jf_kernel_make(JF_KERNEL_SHARPEN, 5, 0, &k), JF_OK);
    for (sum = 0, i = 0; i < 25; i++)
        sum += k.weights[i];
    assert_true(fabs(sum - 1.0) < 1e-5);
    jf_kernel_free(&k);
    assert_int_equal(jf_kernel_make(JF_KERNEL_LAPLACE, 0, 0, &k), JF_OK);
    assert_int_equal(k.ksize, 3);
    assert_true(k.weights[4] == -4.0f && k.weights[1] == 1.0f && k.weights[0] == 0.0f);
    jf_kernel_free(&k);
    assert_int_equal(jf_kernel_make(JF_KERNEL_LAPLACE, 5, 0, &k), JF_ERR_ARG);
    assert_int_equal(jf_kernel_make(JF_KERNEL_BOX, 4, 0, &k), JF_ERR_ARG);
    assert_int_equal(jf_kernel_make(JF_KERNEL_BOX, JF_CONV_MAX_KSIZE + 2, 0, &k), JF_ERR_ARG);
}

static const char *write_text(const char *dir, const char *name, const char *text)
{
    static char path[4096];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_kernel_files(void **state)
{
    const char *dir = t_make_tmpdir();
    jf_kernel k;
    (void)state;
    assert_int_equal(jf_kernel_load(write_text(dir, "ok.txt",
                     "# emboss\n-2 -1 0\n-1, 1, 1\n 0 1 2 # last row\n\n"), &k), JF_OK);
    assert_int_equal(k.ksize, 3);
    assert_true(k.weights[0] == -2.0f && k.weights[4] == 1.0f && k.weights[8] == 2.0f);
    jf_kernel_free(&k);
    assert_int_equal(jf_kernel_load(write_text(dir, "word.txt", "1 2 x\n"), &k), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "word.txt:1: 'x' is not a number"));
    assert_int_equal(jf_kernel_load(write_text(dir, "ragged.txt", "1 2 3\n4 5\n6 7 8\n"), &k),
                     JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "ragged.txt:2"));
    assert_int_equal(jf_kernel_load(write_text(dir, "even.txt", "1 2\n3 4\n"), &k), JF_ERR_ARG);
    assert_int_equal(jf_kernel_load(write_text(dir, "short.txt", "1 2 3\n4 5 6\n"), &k), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "2 rows"));
    assert_int_equal(jf_kernel_load(write_text(dir, "long.txt", "1\n2\n"), &k), JF_ERR_ARG);
    assert_int_equal(jf_kernel_load(write_text(dir, "empty.txt", "# nothing\n"), &k), JF_ERR_ARG);
    assert_int_equal(jf_kernel_load(write_text(dir, "nan.txt", "nan\n"), &k), JF_ERR_ARG);
    assert_int_equal(jf_kernel_load("/nonexistent/kernel.txt", &k), JF_ERR_IO);
    assert_null(k.weights);
    t_rmtree(dir);
}

/* The parser from memory: tiny numbers are numbers, numbers that no float
 * holds are refused at parse time, NUL bytes and long lines say what they
 * are. */
static void test_kernel_parse(void **state)
{
    static const char nul[] = "1 2 3\n4 5 6\n7 8 9\n";
    static const char beyond[] = "1 2 1\n2 4 2\n1 2 1 9 9 9 9 9 9 9 9 9 9 9 9 9";
    char long_line[20000];
    jf_kernel k;
    (void)state;
    assert_int_equal(jf_kernel_parse("1e-320 1 2\n3 4 5\n6 7 8\n", 23, "tiny", &k), JF_OK);
    assert_int_equal(k.ksize, 3);
    assert_true(k.weights[0] >= 0.0f && k.weights[0] < 1e-30f);
    jf_kernel_free(&k);
    assert_int_equal(jf_kernel_parse("1e39\n", 5, "big", &k), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "big:1: 1e39 is too large"));
    assert_int_equal(jf_kernel_parse("1e400\n", 6, "huge", &k), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "too large"));
    assert_int_equal(jf_kernel_parse("-inf\n", 5, "inf", &k), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "not a finite number"));
    assert_int_equal(jf_kernel_parse(nul, sizeof nul, "nul", &k), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "NUL byte"));
    memset(long_line, '1', sizeof long_line);
    assert_int_equal(jf_kernel_parse(long_line, sizeof long_line, "long", &k), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "too long"));
    assert_int_equal(jf_kernel_parse("1, 2, 3 # commas\r\n4 5 6\r\n7\t8 9", 30, "crlf", &k), JF_OK);
    assert_true(k.weights[8] == 9.0f);
    jf_kernel_free(&k);
    assert_int_equal(jf_kernel_parse(NULL, 0, "none", &k), JF_ERR_ARG);
    /* the text ends at `size`, not at a NUL: a last line without its newline
     * stops there, whatever follows it in memory */
    assert_int_equal(jf_kernel_parse(beyond, 17, "beyond", &k), JF_OK);
    assert_int_equal(k.ksize, 3);
    assert_true(k.weights[8] == 1.0f);
    jf_kernel_free(&k);
    /* one number is a 1 x 1 kernel (a gain), comments and blank lines aside */
    assert_int_equal(jf_kernel_parse("# gain\n\n2.5\n", 12, "gain", &k), JF_OK);
    assert_int_equal(k.ksize, 1);
    assert_true(k.weights[0] == 2.5f);
    jf_kernel_free(&k);
}

static void test_threads_do_not_change_results(void **state)
{
    jf_image src = t_random_image(301, 97, 3, 0, 77);
    jf_image a = {0}, b2 = {0};
    jf_context *one = t_cpu_context(1), *many = t_cpu_context(7);
    jf_median_options mo = t_median_opts(7, JF_BORDER_MIRROR, JF_VARIANT_AUTO);
    float w[31 * 31];
    jf_conv_options co = t_conv_opts(31, w, JF_BORDER_REFLECT, JF_VARIANT_AUTO);
    (void)state;
    assert_int_equal(jf_median(one, &src, &a, &mo), JF_OK);
    assert_int_equal(jf_median(many, &src, &b2, &mo), JF_OK);
    assert_true(t_images_equal(&a, &b2));
    /* the FFT convolution: tiles shared out among the workers */
    jf_bench_arbitrary_weights(w, 31);
    assert_true(jf_conv_fft_plan(&src, 31, w));
    assert_int_equal(jf_convolve(one, &src, &a, &co), JF_OK);
    assert_int_equal(jf_convolve(many, &src, &b2, &co), JF_OK);
    assert_true(t_images_equal(&a, &b2));
    jf_image_free(&a);
    jf_image_free(&b2);
    jf_image_free(&src);
    jf_context_destroy(one);
    jf_context_destroy(many);
}

/* A caller may filter in place (the output is the source): the result is
 * the same as into a new image, though the CPU filters read rows of the
 * source after writing rows above them. */
static void test_in_place_equals_out_of_place(void **state)
{
    jf_context *ctx = t_cpu_context(3);
    jf_kernel gauss;
    float w[9] = {0.1f, -0.2f, 0.3f, 0.05f, 0.5f, 0.05f, 0.3f, -0.2f, 0.1f};
    int k, deep;
    (void)state;
    assert_int_equal(jf_kernel_make(JF_KERNEL_GAUSS, 5, 0.0, &gauss), JF_OK);
    for (deep = 0; deep < 2; deep++)
        for (k = 0; k < 5; k++) {
            jf_image src = deep ? t_random_image16(97, 61, 3, 8, 0, 40 + (uint64_t)k)
                                : t_random_image(97, 61, 3, 8, 40 + (uint64_t)k);
            jf_image want = {0}, in_place = src;
            jf_median_options mo = t_median_opts(3 + 2 * (k % 3), JF_BORDER_REFLECT, JF_VARIANT_AUTO);
            jf_conv_options co = k == 3 ? t_conv_opts(5, gauss.weights, JF_BORDER_REPLICATE, JF_VARIANT_AUTO)
                                        : t_conv_opts(3, w, JF_BORDER_MIRROR, JF_VARIANT_AUTO);
            if (k < 3) {
                assert_int_equal(jf_median(ctx, &src, &want, &mo), JF_OK);
                assert_int_equal(jf_median(ctx, &src, &in_place, &mo), JF_OK);
            } else {
                assert_int_equal(jf_convolve(ctx, &src, &want, &co), JF_OK);
                assert_int_equal(jf_convolve(ctx, &src, &in_place, &co), JF_OK);
            }
            assert_true(t_images_equal(&want, &src));
            jf_image_free(&want);
            jf_image_free(&src);
        }
    jf_kernel_free(&gauss);
    jf_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_border_index_matches_definition),
        cmocka_unit_test(test_pad_all_modes_sizes),
        cmocka_unit_test(test_median_matches_brute_force),
        cmocka_unit_test(test_median_large_image),
        cmocka_unit_test(test_median_real_photo),
        cmocka_unit_test(test_median_matches_scipy),
        cmocka_unit_test(test_median16_matches_brute_force),
        cmocka_unit_test(test_median3_row_lengths),
        cmocka_unit_test(test_median_rows_over_a_chunk),
        cmocka_unit_test(test_median_over_strips),
        cmocka_unit_test(test_median16_matches_scipy),
        cmocka_unit_test(test_conv16),
        cmocka_unit_test(test_median_rejects_bad_k),
        cmocka_unit_test(test_conv_random_weights),
        cmocka_unit_test(test_conv_presets_separable),
        cmocka_unit_test(test_conv_fixed_point),
        cmocka_unit_test(test_conv_fft),
        cmocka_unit_test(test_conv_rounding_and_saturation),
        cmocka_unit_test(test_kernel_presets),
        cmocka_unit_test(test_kernel_files),
        cmocka_unit_test(test_kernel_parse),
        cmocka_unit_test(test_threads_do_not_change_results),
        cmocka_unit_test(test_in_place_equals_out_of_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
