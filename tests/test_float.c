/*
 * float32 images through the public API, and the median that leaves
 * samples out (jf_median_options.ignore): conversions, the operations that
 * take floats and those that refuse them by name, the median against
 * NumPy's order, the convolution against a double sum, padding, PSNR and
 * SSIM with their data range, and the valid-sample median and weighted
 * mean against brute force at every depth.  (check_rows holds every CPU and GPU row to its
 * reference at many sizes; here the entry points.)
 */
#include "common.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int SIZES[][2] = {{1, 1}, {7, 5}, {37, 23}, {97, 61}};

/* u8 -> f32 -> u8 is exact; f32 -> u8 rounds, clamps and sends NaN to 0. */
static void test_convert(void **state)
{
    jf_image src = t_random_image(13, 7, 3, 2, 1), f = {0}, back = {0}, deep = {0};
    float odd[6] = {-0.5f, 0.25f, 1.5f, NAN, INFINITY, 0.5f / 255.0f};
    jf_image weird = jf_image_wrap_as(odd, 6, 1, 1, 0, JF_SAMPLE_F32), q = {0};
    (void)state;
    f.sample = JF_SAMPLE_F32;
    assert_int_equal(jf_image_convert(&src, &f), JF_OK);
    assert_int_equal(f.stride, 13 * 3 * 4);
    assert_true(fabs(t_fpx(&f, 4, 2, 1) - t_px(&src, 4, 2, 1) / 255.0) < 1e-7);
    back.sample = JF_SAMPLE_U8;
    assert_int_equal(jf_image_convert(&f, &back), JF_OK);
    assert_true(t_images_equal(&src, &back));
    deep.sample = JF_SAMPLE_U16;
    assert_int_equal(jf_image_convert(&f, &deep), JF_OK);
    assert_int_equal(t_px(&deep, 4, 2, 1), t_px(&src, 4, 2, 1) * 257u);
    q.sample = JF_SAMPLE_U8;
    assert_int_equal(jf_image_convert(&weird, &q), JF_OK);
    assert_int_equal(t_px(&q, 0, 0, 0), 0);   /* below the range */
    assert_int_equal(t_px(&q, 1, 0, 0), 64);  /* 63.75 */
    assert_int_equal(t_px(&q, 2, 0, 0), 255); /* above */
    assert_int_equal(t_px(&q, 3, 0, 0), 0);   /* NaN */
    assert_int_equal(t_px(&q, 4, 0, 0), 255); /* +inf */
    assert_int_equal(t_px(&q, 5, 0, 0), 1);   /* 0.5: half a level rounds up */
    assert_string_equal(jf_sample_name(JF_SAMPLE_F32), "f32");
    assert_int_equal(jf_sample_size(JF_SAMPLE_F32), 4);
    assert_int_equal(jf_sample_max(JF_SAMPLE_F32), 1);
    weird.data += 2; /* float rows must stay 4-byte aligned */
    jf_image_free(&q);
    q.sample = JF_SAMPLE_U8;
    assert_int_equal(jf_image_convert(&weird, &q), JF_ERR_ARG);
    jf_image_free(&q);
    jf_image_free(&src);
    jf_image_free(&f);
    jf_image_free(&back);
    jf_image_free(&deep);
}

/* The operations that do not take floats say which do. */
static void test_refused_by_name(void **state)
{
    jf_image src = t_random_float(9, 9, 1, 0, 2, 3), dst = {0};
    jf_noise_options no = jf_noise_defaults();
    jf_noise_estimate e;
    jf_plan *p = NULL;
    (void)state;
    assert_int_equal(jf_plan_create("erode", &p), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_run(NULL, p, &src, &dst, NULL), JF_ERR_UNSUPPORTED);
    assert_non_null(strstr(jf_last_error(), "float32 images go to the median"));
    jf_plan_free(p);
    assert_int_equal(jf_plan_create("nlmeans", &p), JF_OK);
    assert_int_equal(jf_plan_set(p, "noise-sigma", "5"), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_run(NULL, p, &src, &dst, NULL), JF_ERR_UNSUPPORTED);
    jf_plan_free(p);
    assert_int_equal(jf_add_noise(NULL, &src, &no), JF_ERR_UNSUPPORTED);
    memset(&e, 0, sizeof e);
    e.size = sizeof e;
    assert_int_equal(jf_estimate_noise(NULL, &src, &e), JF_ERR_UNSUPPORTED);
    src.data += 2; /* misaligned floats: an argument error, not a crash */
    assert_int_equal(jf_median(NULL, &src, &dst, NULL), JF_ERR_ARG);
    src.data -= 2;
    jf_image_free(&src);
}

/* The median at every border, several k (networks and selection), in
 * place and out, against NumPy's order. */
static void test_median_numpy_order(void **state)
{
    static const int ks[] = {1, 3, 5, 7, 9, 11};
    int s, ki, b, kind;
    (void)state;
    for (s = 0; s < 4; s++)
        for (kind = 0; kind < 2; kind++)
            for (ki = 0; ki < 6; ki++)
                for (b = 0; b < JF_BORDER_COUNT; b++) {
                    jf_image src = t_random_float(SIZES[s][0], SIZES[s][1], 3, 1, kind,
                                                  (uint64_t)(s * 97 + ki * 7 + b + kind * 1000));
                    jf_image want = t_poisoned_like(&src, 0), got = {0}, inplace = {0}, orig = {0};
                    jf_median_options o = t_median_opts(ks[ki], (jf_border)b, JF_VARIANT_AUTO);
                    t_median_reference_f(&src, ks[ki], (jf_border)b, &want);
                    orig.sample = JF_SAMPLE_F32;
                    assert_int_equal(jf_image_convert(&src, &orig), JF_OK);
                    assert_int_equal(jf_median(NULL, &src, &got, &o), JF_OK);
                    assert_int_equal(got.sample, JF_SAMPLE_F32);
                    assert_int_equal(t_float_mismatches(&got, &want), 0);
                    assert_int_equal(memcmp(orig.data, src.data, orig.stride), 0); /* untouched */
                    jf_image_free(&orig);
                    inplace.sample = JF_SAMPLE_F32;
                    assert_int_equal(jf_image_convert(&src, &inplace), JF_OK);
                    assert_int_equal(jf_median(NULL, &inplace, &inplace, &o), JF_OK);
                    assert_int_equal(t_float_mismatches(&inplace, &want), 0);
                    jf_image_free(&src);
                    jf_image_free(&want);
                    jf_image_free(&got);
                    jf_image_free(&inplace);
                }
}

/* A window of NaN and infinities: NaN sorts after +inf. */
static void test_median_nan_last(void **state)
{
    float v[9] = {NAN, NAN, NAN, NAN, INFINITY, -INFINITY, 1.0f, -0.0f, 2.0f}, out[9];
    float w[9] = {NAN, NAN, NAN, NAN, NAN, 0.0f, 1.0f, 2.0f, 3.0f};
    jf_image a = jf_image_wrap_as(v, 3, 3, 1, 0, JF_SAMPLE_F32);
    jf_image o = jf_image_wrap_as(out, 3, 3, 1, 0, JF_SAMPLE_F32);
    jf_median_options opt = t_median_opts(3, JF_BORDER_ZERO, JF_VARIANT_CPU);
    (void)state;
    assert_int_equal(jf_median(NULL, &a, &o, &opt), JF_OK);
    /* centre: -inf -0 1 2 inf NaN NaN NaN NaN -> inf */
    assert_true(isinf(out[4]) && out[4] > 0);
    a.data = (unsigned char *)w;
    assert_int_equal(jf_median(NULL, &a, &o, &opt), JF_OK);
    assert_true(isnan(out[4])); /* 0 1 2 3 NaN x5: the fifth is NaN */
}

/* The convolution within k^2 FLT_EPSILON of the double sum of its terms;
 * NaN wherever the window holds one. */
static void test_conv_against_double(void **state)
{
    static const int ks[] = {1, 3, 5, 9};
    int s, ki, b, x, y, c, i;
    (void)state;
    for (s = 0; s < 4; s++)
        for (ki = 0; ki < 4; ki++)
            for (b = 0; b < JF_BORDER_COUNT; b++) {
                const int k = ks[ki];
                jf_image src = t_random_float(SIZES[s][0], SIZES[s][1], 2, 3, 0, (uint64_t)(s * 5 + ki + b * 13));
                jf_image got = {0};
                float *w = malloc(sizeof(float) * (size_t)(k * k));
                jf_conv_options o;
                uint64_t seed = (uint64_t)(k * 7 + b);
                assert_non_null(w);
                for (i = 0; i < k * k; i++)
                    w[i] = (float)((double)(t_rand(&seed) >> 11) / 9007199254740992.0 - 0.3);
                o = t_conv_opts(k, w, (jf_border)b, JF_VARIANT_AUTO);
                assert_int_equal(jf_convolve(NULL, &src, &got, &o), JF_OK);
                for (y = 0; y < src.height; y++)
                    for (x = 0; x < src.width; x++)
                        for (c = 0; c < 2; c++) {
                            const double want = t_conv_reference_at(&src, x, y, c, k, w, (jf_border)b);
                            const double g = t_fpx(&got, x, y, c);
                            double terms = 0.0;
                            int p, q;
                            if (isnan(want)) {
                                assert_true(isnan(g));
                                continue;
                            }
                            if (isinf(want)) {
                                assert_true(g == want);
                                continue;
                            }
                            for (q = 0; q < k; q++)
                                for (p = 0; p < k; p++)
                                    terms += fabs(w[q * k + p] *
                                                  t_sample_at(&src, x + p - k / 2, y + q - k / 2, c, (jf_border)b));
                            assert_true(fabs(g - want) <= k * k * FLT_EPSILON * terms);
                        }
                free(w);
                jf_image_free(&src);
                jf_image_free(&got);
            }
}

/* A box on floats is the mean, unrounded and unclamped. */
static void test_box_unclamped(void **state)
{
    float v[3] = {-3.0f, 1.0f, 10.0f}, out[3];
    jf_image a = jf_image_wrap_as(v, 3, 1, 1, 0, JF_SAMPLE_F32);
    jf_image o = jf_image_wrap_as(out, 3, 1, 1, 0, JF_SAMPLE_F32);
    jf_plan *p = NULL;
    (void)state;
    assert_int_equal(jf_plan_create("box", &p), JF_OK);
    assert_int_equal(jf_plan_set(p, "ksize", "3"), JF_OK);
    assert_int_equal(jf_plan_set(p, "border", "zero"), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_run(NULL, p, &a, &o, NULL), JF_OK);
    jf_plan_free(p);
    assert_true(fabs(out[0] - (-2.0 / 9)) < 1e-6);
    assert_true(fabs(out[1] - (8.0 / 9)) < 1e-6);
    assert_true(fabs(out[2] - (11.0 / 9)) < 1e-6);
}

/* Padding moves float samples as they are, signed zeros and NaN's bits
 * included. */
static void test_pad_floats(void **state)
{
    jf_image src = t_random_float(7, 5, 3, 2, 0, 9), dst = {0};
    int b, x, y, c;
    (void)state;
    for (b = 0; b < JF_BORDER_COUNT; b++) {
        assert_int_equal(jf_pad(NULL, &src, 3, (jf_border)b, &dst), JF_OK);
        assert_int_equal(dst.sample, JF_SAMPLE_F32);
        for (y = 0; y < dst.height; y++)
            for (x = 0; x < dst.width; x++)
                for (c = 0; c < 3; c++) {
                    const double want = t_sample_at(&src, x - 3, y - 3, c, (jf_border)b);
                    const double got = t_fpx(&dst, x, y, c);
                    assert_true((isnan(want) && isnan(got)) || (want == got && signbit(want) == signbit(got)));
                }
        jf_image_free(&dst);
    }
    jf_image_free(&src);
}

/* PSNR and SSIM of floats: the data range defaults to 1, and an 8-bit
 * pair scaled to 0..1 scores as the pair itself. */
static void test_metrics_data_range(void **state)
{
    jf_image a = t_random_image(40, 30, 3, 0, 21), b = t_random_image(40, 30, 3, 0, 22);
    jf_image fa = {0}, fb = {0};
    double p8, pf, p2, mse, s8, sf, s2;
    float nan_img[121 * 3];
    (void)state;
    fa.sample = fb.sample = JF_SAMPLE_F32;
    assert_int_equal(jf_image_convert(&a, &fa), JF_OK);
    assert_int_equal(jf_image_convert(&b, &fb), JF_OK);
    assert_int_equal(jf_psnr(NULL, &a, &b, &p8, NULL), JF_OK);
    assert_int_equal(jf_psnr(NULL, &fa, &fb, &pf, &mse), JF_OK);
    assert_true(fabs(p8 - pf) < 1e-5);
    assert_int_equal(jf_psnr_range(NULL, &fa, &fb, 2.0, &p2, NULL), JF_OK);
    assert_true(fabs(p2 - (pf + 20 * log10(2.0))) < 1e-9);
    assert_int_equal(jf_psnr_range(NULL, &a, &b, 255.0, &p2, NULL), JF_OK);
    assert_true(p2 == p8);
    assert_int_equal(jf_ssim(NULL, &a, &b, &s8), JF_OK);
    assert_int_equal(jf_ssim(NULL, &fa, &fb, &sf), JF_OK);
    assert_true(fabs(s8 - sf) < 1e-6);
    assert_int_equal(jf_ssim_range(NULL, &fa, &fb, 0.5, &s2), JF_OK);
    assert_true(s2 < sf); /* a smaller range: the constants matter less */
    assert_int_equal(jf_psnr_range(NULL, &fa, &fb, -1.0, &p2, NULL), JF_ERR_ARG);
    assert_int_equal(jf_ssim_range(NULL, &fa, &fb, NAN, &s2), JF_ERR_ARG);
    assert_int_equal(jf_psnr(NULL, &a, &fb, &p2, NULL), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "u8 vs f32"));
    memset(nan_img, 0, sizeof nan_img);
    nan_img[60] = NAN;
    {
        jf_image n = jf_image_wrap_as(nan_img, 11, 11, 3, 0, JF_SAMPLE_F32);
        jf_image z = t_random_float(11, 11, 3, 0, 2, 4);
        assert_int_equal(jf_psnr(NULL, &n, &z, &p2, NULL), JF_OK);
        assert_true(isnan(p2));
        jf_image_free(&z);
    }
    jf_image_free(&a);
    jf_image_free(&b);
    jf_image_free(&fa);
    jf_image_free(&fb);
}

/* ---- the median of the valid samples --------------------------------------- */

/* Brute force: the window's samples other than the ignored, sorted
 * (NumPy's order for floats), the lower middle; the source where none. */
static void valid_reference(const jf_image *src, int k, jf_border border, jf_ignore ignore,
                            double value, jf_image *dst)
{
    double *win = malloc(sizeof(double) * (size_t)k * (size_t)k);
    int x, y, c, i, n, m, a, b;
    assert_non_null(win);
    for (y = 0; y < src->height; y++)
        for (x = 0; x < src->width; x++)
            for (c = 0; c < src->channels; c++) {
                m = t_window(src, x, y, c, k, border, win);
                for (i = n = 0; i < m; i++) /* the valid ones, in order */
                    if (!(ignore == JF_IGNORE_NAN ? isnan(win[i]) : win[i] == value))
                        win[n++] = win[i];
                for (a = 1; a < n; a++) /* insertion sort, NaN last */
                    for (b = a; b > 0 && (isnan(win[b - 1]) ? !isnan(win[b]) : win[b - 1] > win[b]); b--) {
                        const double t = win[b];
                        win[b] = win[b - 1];
                        win[b - 1] = t;
                    }
                if (src->sample == JF_SAMPLE_F32)
                    t_set_fpx(dst, x, y, c, n ? win[(n - 1) / 2] : t_fpx(src, x, y, c));
                else
                    t_set_px(dst, x, y, c, n ? (unsigned)win[(n - 1) / 2] : t_px(src, x, y, c));
            }
    free(win);
}

static jf_image holed_source(int w, int h, int ch, jf_sample sample, uint64_t seed)
{
    jf_image img = sample == JF_SAMPLE_F32  ? t_random_float(w, h, ch, 1, 0, seed)
                   : sample == JF_SAMPLE_U16 ? t_random_image16(w, h, ch, 1, 0, seed)
                                             : t_random_image(w, h, ch, 1, seed);
    uint64_t s = seed + 5;
    int x, y, c;
    for (y = 0; y < h; y++) /* a third of the samples holes (0), some areas all holes */
        for (x = 0; x < w; x++)
            for (c = 0; c < ch; c++)
                if (t_rand(&s) % 3 == 0 || (x > w / 2 && y < h / 3)) {
                    if (sample == JF_SAMPLE_F32)
                        t_set_fpx(&img, x, y, c, (t_rand(&s) & 1) ? 0.0 : -0.0);
                    else
                        t_set_px(&img, x, y, c, 0);
                }
    return img;
}

static void test_valid_median(void **state)
{
    static const int ks[] = {1, 3, 5, 7};
    int s, ki, b, smp, mode;
    (void)state;
    for (smp = 0; smp < JF_SAMPLE_COUNT; smp++)
        for (mode = JF_IGNORE_VALUE; mode <= JF_IGNORE_NAN; mode++) {
            if (mode == JF_IGNORE_NAN && smp != JF_SAMPLE_F32)
                continue;
            for (s = 0; s < 4; s++)
                for (ki = 0; ki < 4; ki++)
                    for (b = 0; b < JF_BORDER_COUNT; b++) {
                        jf_image src = holed_source(SIZES[s][0], SIZES[s][1], 2, (jf_sample)smp,
                                                    (uint64_t)(s * 31 + ki * 3 + b + smp * 100));
                        jf_image want = t_poisoned_like(&src, 0), got = {0};
                        jf_median_options o = t_median_opts(ks[ki], (jf_border)b, JF_VARIANT_AUTO);
                        o.ignore = (jf_ignore)mode;
                        o.ignore_value = 0.0;
                        valid_reference(&src, ks[ki], (jf_border)b, (jf_ignore)mode, 0.0, &want);
                        assert_int_equal(jf_median(NULL, &src, &got, &o), JF_OK);
                        if (smp == JF_SAMPLE_F32)
                            assert_int_equal(t_float_mismatches(&got, &want), 0);
                        else
                            assert_true(t_images_equal(&got, &want));
                        assert_int_equal(jf_median(NULL, &src, &src, &o), JF_OK); /* in place */
                        if (smp == JF_SAMPLE_F32)
                            assert_int_equal(t_float_mismatches(&src, &want), 0);
                        else
                            assert_true(t_images_equal(&src, &want));
                        jf_image_free(&src);
                        jf_image_free(&want);
                        jf_image_free(&got);
                    }
        }
}

/* A value that is not a level, NaN on integers, an unknown mode. */
static void test_valid_median_refusals(void **state)
{
    jf_image src = t_random_image16(9, 9, 1, 0, 0, 4), dst = {0};
    jf_median_options o = t_median_opts(3, JF_BORDER_REPLICATE, JF_VARIANT_AUTO);
    jf_plan *p = NULL;
    char value[32];
    (void)state;
    o.ignore = JF_IGNORE_NAN;
    assert_int_equal(jf_median(NULL, &src, &dst, &o), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "ignoring NaN needs float32 samples"));
    o.ignore = JF_IGNORE_VALUE;
    o.ignore_value = 0.5;
    assert_int_equal(jf_median(NULL, &src, &dst, &o), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "not a level of a u16 image"));
    o.ignore_value = 65536;
    assert_int_equal(jf_median(NULL, &src, &dst, &o), JF_ERR_ARG);
    o.ignore_value = 65535;
    assert_int_equal(jf_median(NULL, &src, &dst, &o), JF_OK);
    o.ignore = (jf_ignore)7;
    assert_int_equal(jf_median(NULL, &src, &dst, &o), JF_ERR_ARG);
    /* the plan: --ignore-value alone means --ignore value */
    assert_int_equal(jf_plan_create("median", &p), JF_OK);
    assert_int_equal(jf_plan_set(p, "ignore-value", "3"), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_value(p, "ignore-value", value, sizeof value), JF_OK);
    assert_string_equal(value, "3");
    assert_int_equal(jf_plan_run(NULL, p, &src, &dst, NULL), JF_OK);
    jf_plan_free(p);
    {
        jf_image want = t_poisoned_like(&src, 0);
        valid_reference(&src, 3, JF_BORDER_REPLICATE, JF_IGNORE_VALUE, 3.0, &want);
        assert_true(t_images_equal(&dst, &want));
        jf_image_free(&want);
    }
    assert_int_equal(jf_plan_create("median", &p), JF_OK);
    assert_int_equal(jf_plan_set(p, "ignore", "maybe"), JF_ERR_ARG);
    jf_plan_free(p);
    jf_image_free(&src);
    jf_image_free(&dst);
}

/* ---- the convolution of the valid samples ------------------------------------- */

/* Brute force in double: the weighted mean of the window's valid samples,
 * the source where none has weight. */
static double valid_mean(const jf_image *src, int x, int y, int c, int k, const float *w,
                         jf_border border, jf_ignore ignore, double value)
{
    double win[49], num = 0, den = 0;
    int i;
    const int m = t_window(src, x, y, c, k, border, win);
    for (i = 0; i < m; i++)
        if (!(ignore == JF_IGNORE_NAN ? isnan(win[i]) : win[i] == value)) {
            num += (double)w[i] * win[i];
            den += w[i];
        }
    return den > 0 ? num / den : t_fpx(src, x, y, c);
}

/* Samples that differ by more than a level (integers) or 1e-5 relative
 * (floats: NaN and infinities where the reference has them). */
static long valid_mismatches(const jf_image *got, const jf_image *src, int k, const float *w,
                             jf_border border, jf_ignore ignore, double value)
{
    long bad = 0;
    int x, y, c;
    for (y = 0; y < src->height; y++)
        for (x = 0; x < src->width; x++)
            for (c = 0; c < src->channels; c++) {
                const double want = valid_mean(src, x, y, c, k, w, border, ignore, value);
                const double have = t_fpx(got, x, y, c);
                int ok;
                if (src->sample == JF_SAMPLE_F32)
                    ok = isnan(want) ? isnan(have) : isinf(want) ? have == want
                                                                 : fabs(have - want) <= 1e-5 * (1 + fabs(want));
                else
                    ok = fabs(have - floor(fmin(fmax(want, 0), jf_sample_max(src->sample)) + 0.5)) <= 1;
                if (!ok && bad++ == 0)
                    print_error("(%d,%d,%d) k=%d border %d: %.9g, want %.9g\n", x, y, c, k, (int)border,
                                have, want);
            }
    return bad;
}

static void test_valid_conv(void **state)
{
    static const int ks[] = {1, 3, 5, 7};
    int s, ki, b, smp, mode, kind;
    (void)state;
    for (smp = 0; smp < JF_SAMPLE_COUNT; smp++)
        for (mode = JF_IGNORE_VALUE; mode <= JF_IGNORE_NAN; mode++) {
            if (mode == JF_IGNORE_NAN && smp != JF_SAMPLE_F32)
                continue;
            for (s = 0; s < 3; s++)
                for (ki = 0; ki < 4; ki++)
                    for (kind = 0; kind < 3; kind++) /* box, Gaussian, weights of no rank */
                        for (b = 0; b < JF_BORDER_COUNT; b++) {
                            jf_image src = holed_source(SIZES[s][0], SIZES[s][1], 1 + 2 * (kind == 1),
                                                        (jf_sample)smp, (uint64_t)(s * 31 + ki * 3 + b + kind * 7));
                            jf_image got = {0};
                            jf_conv_options o = jf_conv_defaults();
                            jf_kernel kern;
                            int i;
                            uint64_t seed = (uint64_t)ki + 1;
                            assert_int_equal(jf_kernel_make(kind == 1 ? JF_KERNEL_GAUSS : JF_KERNEL_BOX,
                                                            ks[ki], 0, &kern), JF_OK);
                            if (kind == 2) /* zero and positive weights, not separable */
                                for (i = 0; i < ks[ki] * ks[ki]; i++)
                                    kern.weights[i] = (float)(t_rand(&seed) % 4) * 0.25f;
                            o.ksize = ks[ki];
                            o.weights = kern.weights;
                            o.border = (jf_border)b;
                            o.ignore = (jf_ignore)mode;
                            assert_int_equal(jf_convolve(NULL, &src, &got, &o), JF_OK);
                            assert_int_equal(valid_mismatches(&got, &src, ks[ki], kern.weights, (jf_border)b,
                                                              (jf_ignore)mode, 0.0), 0);
                            if (b == JF_BORDER_MIRROR) { /* in place */
                                jf_image in = t_poisoned_like(&src, 1);
                                assert_int_equal(jf_image_copy(&src, &in), JF_OK);
                                assert_int_equal(jf_convolve(NULL, &in, &in, &o), JF_OK);
                                assert_true(t_images_equal(&in, &got));
                                jf_image_free(&in);
                            }
                            jf_kernel_free(&kern);
                            jf_image_free(&src);
                            jf_image_free(&got);
                        }
        }
}

/* Negative weights, NaN on integers, a value that is not a level; the
 * plan's --ignore-value on gauss; a window of holes keeps its hole. */
static void test_valid_conv_refusals(void **state)
{
    jf_image src = t_random_image(9, 9, 1, 0, 4), dst = {0};
    jf_conv_options o = jf_conv_defaults();
    jf_kernel sharpen, gauss;
    jf_plan *p = NULL;
    int x, y;
    (void)state;
    assert_int_equal(jf_kernel_make(JF_KERNEL_SHARPEN, 3, 0, &sharpen), JF_OK);
    assert_int_equal(jf_kernel_make(JF_KERNEL_GAUSS, 3, 0, &gauss), JF_OK);
    o.ksize = 3;
    o.weights = sharpen.weights;
    o.ignore = JF_IGNORE_VALUE;
    assert_int_equal(jf_convolve(NULL, &src, &dst, &o), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "takes weights of zero or more"));
    o.weights = gauss.weights;
    o.ignore = JF_IGNORE_NAN;
    assert_int_equal(jf_convolve(NULL, &src, &dst, &o), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "ignoring NaN needs float32 samples"));
    o.ignore = JF_IGNORE_VALUE;
    o.ignore_value = 256;
    assert_int_equal(jf_convolve(NULL, &src, &dst, &o), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "not a level of a u8 image"));
    o.ignore = (jf_ignore)9;
    assert_int_equal(jf_convolve(NULL, &src, &dst, &o), JF_ERR_ARG);
    for (y = 2; y < 7; y++) /* a 5x5 hole: its middle has no valid neighbour */
        for (x = 2; x < 7; x++)
            t_set_px(&src, x, y, 0, 0);
    assert_int_equal(jf_plan_create("gauss", &p), JF_OK);
    assert_int_equal(jf_plan_set(p, "ksize", "3"), JF_OK);
    assert_int_equal(jf_plan_set(p, "ignore-value", "0"), JF_OK);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_run(NULL, p, &src, &dst, NULL), JF_OK);
    jf_plan_free(p);
    assert_int_equal(t_px(&dst, 4, 4, 0), 0);
    assert_true(t_px(&dst, 2, 2, 0) > 0); /* the hole's corner sees valid samples */
    assert_int_equal(valid_mismatches(&dst, &src, 3, gauss.weights, JF_BORDER_REPLICATE,
                                      JF_IGNORE_VALUE, 0.0), 0);
    jf_kernel_free(&sharpen);
    jf_kernel_free(&gauss);
    jf_image_free(&src);
    jf_image_free(&dst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convert),
        cmocka_unit_test(test_refused_by_name),
        cmocka_unit_test(test_median_numpy_order),
        cmocka_unit_test(test_median_nan_last),
        cmocka_unit_test(test_conv_against_double),
        cmocka_unit_test(test_box_unclamped),
        cmocka_unit_test(test_pad_floats),
        cmocka_unit_test(test_metrics_data_range),
        cmocka_unit_test(test_valid_median),
        cmocka_unit_test(test_valid_median_refusals),
        cmocka_unit_test(test_valid_conv),
        cmocka_unit_test(test_valid_conv_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
