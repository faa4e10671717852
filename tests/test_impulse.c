/* The impulse-noise filters (adaptive and switching median, the density
 * estimate, auto) on the CPU backend against brute-force references of
 * their definitions, on random data at awkward sizes, every border, noise
 * densities from 0 to 1, flat images, and a real photo. */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int SIZES[][2] = {{1, 1}, {7, 5}, {33, 17}, {64, 3}, {2, 9}};
#define NSIZES (int)(sizeof SIZES / sizeof SIZES[0])
static const double DENSITIES[] = {0.0, 0.1, 0.5, 0.9, 1.0};
#define NDENS (int)(sizeof DENSITIES / sizeof DENSITIES[0])

/* kind 0: adaptive; 1: switching; 2: switching with refine. */
static void check_one(jf_context *ctx, const jf_image *src, int kind, int kmax, jf_border b,
                      const char *what)
{
    jf_image got = t_poisoned_like(src, 3), want = t_poisoned_like(src, 0);
    jf_status st = t_impulse_run(kind, ctx, src, &got, kmax, b, JF_VARIANT_CPU);
    if (st != JF_OK)
        fail_msg("%s: %s", what, jf_last_error());
    if (kind == 0)
        t_adaptive_reference(src, kmax, b, &want);
    else
        t_switching_reference(src, kmax, b, kind == 2, &want);
    if (!t_images_equal(&got, &want))
        fail_msg("%s %s k<=%d %s differs from the reference", kind == 0 ? "adaptive" :
                 kind == 1 ? "switching" : "switching+refine", what, kmax, jf_border_name(b));
    jf_image_free(&got);
    jf_image_free(&want);
}

static void test_impulse_matches_brute_force(void **state)
{
    static const int ks[] = {3, 5, 7, 11, 31};
    jf_context *ctx = t_cpu_context(3);
    /* emulation, sanitizers: one border a source, each border still met */
    const int quick = getenv("JF_TEST_QUICK") != NULL;
    int s, ch, b, d, k, kind;
    char what[64];
    (void)state;
    for (s = 0; s < NSIZES; s++)
        for (ch = 1; ch <= 3; ch += 2)
            for (d = 0; d < NDENS; d++) {
                jf_image src = t_random_image(SIZES[s][0], SIZES[s][1], ch, 2, (uint64_t)(s * 31 + d));
                t_salt_pepper(&src, DENSITIES[d], (uint64_t)(d + 5));
                snprintf(what, sizeof what, "%dx%dx%d at %g", src.width, src.height, ch, DENSITIES[d]);
                for (b = 0; b < JF_BORDER_COUNT; b++)
                    for (k = 0; k < (int)(sizeof ks / sizeof ks[0]); k++)
                        for (kind = 0; kind < 3; kind++)
                            if (!quick || b == (s + ch + d + k) % JF_BORDER_COUNT)
                                check_one(ctx, &src, kind, ks[k], (jf_border)b, what);
                jf_image_free(&src);
            }
    jf_context_destroy(ctx);
}

/* Noise over a few values with long runs: windows that must grow, ties in
 * the clean samples, even counts, regions of 0s and 255s. */
static void test_impulse_structured(void **state)
{
    jf_context *ctx = t_cpu_context(2);
    jf_image src = t_random_image(97, 61, 3, 1, 9);
    int x, y, c, b, kind;
    (void)state;
    for (y = 0; y < src.height; y++)
        for (x = 0; x < src.width; x++)
            for (c = 0; c < 3; c++) /* bands of 0, 40, 41, 255 with a square of 255 */
                src.data[(size_t)y * src.stride + (size_t)x * 3 + c] =
                    (unsigned char)(x > 20 && x < 40 && y > 10 && y < 35 ? 255
                                    : (x / 7 + y / 5 + c) % 4 == 0 ? 0 : (x / 7 + y / 5 + c) % 4 == 3 ? 255
                                    : 40 + (x / 7 + y / 5 + c) % 2);
    t_salt_pepper(&src, 0.6, 3);
    for (b = 0; b < JF_BORDER_COUNT; b++)
        for (kind = 0; kind < 3; kind++) {
            check_one(ctx, &src, kind, 5, (jf_border)b, "bands");
            check_one(ctx, &src, kind, 9, (jf_border)b, "bands");
        }
    jf_image_free(&src);
    jf_context_destroy(ctx);
}

/* All 0 or all 255: no clean sample anywhere; every filter keeps the image. */
static void test_impulse_flat_images(void **state)
{
    jf_context *ctx = t_cpu_context(2);
    int v, kind, b;
    (void)state;
    for (v = 0; v < 2; v++) {
        jf_image src = t_random_image(13, 11, 3, 1, 1), got = {0};
        int y;
        for (y = 0; y < src.height; y++)
            memset(src.data + (size_t)y * src.stride, v ? 255 : 0, (size_t)src.width * 3);
        for (kind = 0; kind < 3; kind++)
            for (b = 0; b < JF_BORDER_COUNT; b++) {
                jf_impulse_options o = t_impulse_opts(kind ? 7 : 3, (jf_border)b, JF_VARIANT_CPU, kind == 2);
                assert_int_equal(kind == 0 ? jf_adaptive_median(ctx, &src, &got, &o)
                                           : jf_switching_median(ctx, &src, &got, &o), JF_OK);
                if (!(b == JF_BORDER_ZERO && v == 1)) /* zero borders make 0s at a 255 image's edge */
                    assert_true(t_images_equal(&got, &src));
                jf_image_free(&got);
                check_one(ctx, &src, kind, 5, (jf_border)b, v ? "all 255" : "all 0");
            }
        jf_image_free(&src);
    }
    jf_context_destroy(ctx);
}

static double psnr_of(const jf_image *a, const jf_image *b)
{
    double v;
    assert_int_equal(jf_psnr(NULL, a, b, &v, NULL), JF_OK);
    return v;
}

/* `out` (freed) is the switching median's reference of `noisy`. */
static void expect_switching(jf_image *out, const jf_image *noisy, int kmax, int refine)
{
    jf_image want = t_poisoned_like(noisy, 0);
    t_switching_reference(noisy, kmax, JF_BORDER_REPLICATE, refine, &want);
    assert_true(t_images_equal(out, &want));
    jf_image_free(&want);
    jf_image_free(out);
}

/* A real photo at 30% noise: equal to the reference, the impulses' count
 * estimated, and the quality the filters exist for: at least 5 dB over the
 * best plain median. */
static void test_impulse_real_photo(void **state)
{
    jf_context *ctx = t_cpu_context(2);
    jf_picture pic;
    jf_image noisy, out = {0};
    double best_median = 0, density, p;
    int k;
    jf_impulse_options o = t_impulse_opts(7, JF_BORDER_REPLICATE, JF_VARIANT_CPU, 1);
    jf_impulse_choice choice;
    (void)state;
    assert_int_equal(jf_picture_read(t_source_path("samples/images/chelsea.png"), &pic), JF_OK);
    noisy = t_poisoned_like(&pic.color, 0);
    assert_int_equal(jf_image_copy(&pic.color, &noisy), JF_OK);
    /* a clean photo: nothing to remove, nothing changed */
    assert_int_equal(jf_impulse_density(ctx, &pic.color, &density), JF_OK);
    assert_true(density < JF_IMPULSE_CLEAN_DENSITY);
    assert_int_equal(jf_impulse_auto(ctx, &pic.color, &out, NULL, &choice), JF_OK);
    assert_int_equal(choice.filtered, 0);
    assert_true(t_images_equal(&out, &pic.color));
    jf_image_free(&out);

    t_salt_pepper(&noisy, 0.3, 11);
    assert_int_equal(jf_impulse_density(ctx, &noisy, &density), JF_OK);
    assert_true(fabs(density - t_impulse_density_reference(&noisy)) < 1e-12);
    assert_true(fabs(density - 0.3) < 0.01);
    for (k = 3; k <= 9; k += 2) {
        jf_median_options mo = t_median_opts(k, JF_BORDER_REPLICATE, JF_VARIANT_CPU);
        assert_int_equal(jf_median(ctx, &noisy, &out, &mo), JF_OK);
        p = psnr_of(&out, &pic.color);
        best_median = p > best_median ? p : best_median;
        jf_image_free(&out);
    }
    check_one(ctx, &noisy, 0, 7, JF_BORDER_REFLECT, "chelsea");
    check_one(ctx, &noisy, 2, 7, JF_BORDER_REPLICATE, "chelsea");
    assert_int_equal(jf_switching_median(ctx, &noisy, &out, &o), JF_OK);
    p = psnr_of(&out, &pic.color);
    if (p < best_median + 5.0)
        fail_msg("switching median %.2f dB, best plain median %.2f dB", p, best_median);
    jf_image_free(&out);
    /* auto: the same as the switching median with refine at its window */
    assert_int_equal(jf_impulse_auto(ctx, &noisy, &out, NULL, &choice), JF_OK);
    assert_int_equal(choice.filtered, 2); /* dense noise: with the smoothing pass */
    assert_true(choice.density == density);
    assert_true(choice.max_ksize >= 3 && choice.max_ksize % 2 == 1);
    expect_switching(&out, &noisy, choice.max_ksize, 1);
    jf_image_free(&noisy);
    jf_picture_free(&pic);
    jf_context_destroy(ctx);
}

/* Windows chosen from the estimated density (max_ksize 0): the adaptive
 * median bridges dense noise that its default window of 7 cannot. */
static void test_impulse_windows_from_density(void **state)
{
    jf_context *ctx = t_cpu_context(2);
    jf_picture pic;
    jf_image noisy, out = {0}, want;
    double fixed, chosen;
    jf_impulse_options o = t_impulse_opts(7, JF_BORDER_REPLICATE, JF_VARIANT_CPU, 0);
    (void)state;
    assert_int_equal(jf_picture_read(t_source_path("samples/images/chelsea.png"), &pic), JF_OK);
    noisy = t_poisoned_like(&pic.color, 0);
    assert_int_equal(jf_image_copy(&pic.color, &noisy), JF_OK);
    t_salt_pepper(&noisy, 0.8, 5);
    assert_int_equal(jf_adaptive_median(ctx, &noisy, &out, &o), JF_OK);
    fixed = psnr_of(&out, &pic.color);
    jf_image_free(&out);
    o.max_ksize = 0;
    assert_int_equal(jf_adaptive_median(ctx, &noisy, &out, &o), JF_OK);
    chosen = psnr_of(&out, &pic.color);
    if (chosen < fixed + 3.0)
        fail_msg("adaptive median at 80%%: window from the density %.2f dB, k<=7 %.2f dB", chosen,
                 fixed);
    want = t_poisoned_like(&noisy, 0);
    t_adaptive_reference(&noisy, JF_IMPULSE_MAX_KSIZE, JF_BORDER_REPLICATE, &want);
    assert_true(t_images_equal(&out, &want)); /* 31 from 75% */
    jf_image_free(&want);
    jf_image_free(&out);
    {   /* auto-impulse's window too: the largest from 75% */
        jf_impulse_choice choice;
        assert_int_equal(jf_impulse_auto(ctx, &noisy, &out, NULL, &choice), JF_OK);
        assert_int_equal(choice.max_ksize, JF_IMPULSE_MAX_KSIZE);
        jf_image_free(&out);
    }
    jf_image_free(&noisy);
    jf_picture_free(&pic);
    jf_context_destroy(ctx);
}

/* At low densities auto-impulse asks each image whether the smoothing pass
 * helps: yes on a smooth photo, no on a textured one, and never worse than
 * the switching median at its defaults. */
static void test_impulse_auto_asks_the_image(void **state)
{
    static const struct { const char *photo; int smoothed; } cases[] = {
        {"samples/images/hubble_deep_field.jpg", 2}, {"samples/images/astronaut.png", 1}};
    jf_context *ctx = t_cpu_context(2);
    jf_impulse_options o = t_impulse_opts(7, JF_BORDER_REPLICATE, JF_VARIANT_CPU, 0);
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        jf_picture pic;
        jf_image noisy, out = {0}, plain = {0};
        jf_impulse_choice choice;
        double p_auto, p_plain;
        assert_int_equal(jf_picture_read(t_source_path(cases[i].photo), &pic), JF_OK);
        noisy = t_poisoned_like(&pic.color, 0);
        assert_int_equal(jf_image_copy(&pic.color, &noisy), JF_OK);
        t_salt_pepper(&noisy, 0.1, 6);
        assert_int_equal(jf_impulse_auto(ctx, &noisy, &out, NULL, &choice), JF_OK);
        if (choice.filtered != cases[i].smoothed)
            fail_msg("%s: filtered %d, want %d", cases[i].photo, choice.filtered, cases[i].smoothed);
        assert_int_equal(jf_switching_median(ctx, &noisy, &plain, &o), JF_OK);
        p_auto = psnr_of(&out, &pic.color);
        p_plain = psnr_of(&plain, &pic.color);
        if (p_auto < p_plain)
            fail_msg("%s: auto-impulse %.2f dB, switching median %.2f dB", cases[i].photo, p_auto, p_plain);
        jf_image_free(&plain);
        expect_switching(&out, &noisy, choice.max_ksize, choice.filtered == 2);
        jf_image_free(&noisy);
        jf_picture_free(&pic);
    }
    jf_context_destroy(ctx);
}

/* The estimate against its definition, and against the noise put in. */
static void test_impulse_density(void **state)
{
    jf_context *ctx = t_cpu_context(3);
    int s, d;
    double v;
    (void)state;
    for (s = 0; s < NSIZES; s++)
        for (d = 0; d < NDENS; d++) {
            jf_image img = t_random_image(SIZES[s][0], SIZES[s][1], 3, 1, (uint64_t)s);
            t_salt_pepper(&img, DENSITIES[d], (uint64_t)d);
            assert_int_equal(jf_impulse_density(ctx, &img, &v), JF_OK);
            assert_true(fabs(v - t_impulse_density_reference(&img)) < 1e-12);
            jf_image_free(&img);
        }
    {
        jf_image img = t_random_image(512, 384, 1, 0, 4);
        t_salt_pepper(&img, 0.5, 2);
        assert_int_equal(jf_impulse_density(ctx, &img, &v), JF_OK);
        assert_true(fabs(v - 0.5) < 0.02);
        jf_image_free(&img);
    }
    assert_int_equal(jf_impulse_density(ctx, NULL, &v), JF_ERR_ARG);
    jf_context_destroy(ctx);
}

static void test_impulse_rejects_bad_options(void **state)
{
    jf_image src = t_random_image(9, 9, 1, 0, 3), dst = {0};
    jf_impulse_options o = jf_impulse_defaults();
    (void)state;
    assert_int_equal(o.size, sizeof o);
    assert_int_equal(o.max_ksize, 7);
    assert_int_equal(o.refine, 0);
    assert_int_equal(jf_switching_median(NULL, &src, &dst, NULL), JF_ERR_ARG);
    o.max_ksize = 4;
    assert_int_equal(jf_switching_median(NULL, &src, &dst, &o), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "odd"));
    o.max_ksize = 1;
    assert_int_equal(jf_adaptive_median(NULL, &src, &dst, &o), JF_ERR_ARG);
    o.max_ksize = -1;
    assert_int_equal(jf_adaptive_median(NULL, &src, &dst, &o), JF_ERR_ARG);
    o.max_ksize = JF_IMPULSE_MAX_KSIZE + 2;
    assert_int_equal(jf_adaptive_median(NULL, &src, &dst, &o), JF_ERR_ARG);
    o = jf_impulse_defaults();
    o.refine = 1;
    assert_int_equal(jf_adaptive_median(NULL, &src, &dst, &o), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "refine"));
    o.refine = 2;
    assert_int_equal(jf_switching_median(NULL, &src, &dst, &o), JF_ERR_ARG);
    o = jf_impulse_defaults();
    o.variant = JF_VARIANT_SHARED;
    assert_int_equal(jf_switching_median(NULL, &src, &dst, &o), JF_ERR_UNSUPPORTED);
    o = jf_impulse_defaults();
    o.border = (jf_border)99;
    assert_int_equal(jf_switching_median(NULL, &src, &dst, &o), JF_ERR_ARG);
    o = jf_impulse_defaults();
    o.size = 3; /* never initialised */
    assert_int_equal(jf_switching_median(NULL, &src, &dst, &o), JF_ERR_ARG);
    /* auto: NULL options are its defaults; a window it is given is checked */
    assert_int_equal(jf_impulse_auto(NULL, &src, &dst, NULL, NULL), JF_OK);
    o = jf_impulse_defaults();
    o.max_ksize = 8;
    assert_int_equal(jf_impulse_auto(NULL, &src, &dst, &o, NULL), JF_ERR_ARG);
    jf_image_free(&src);
    jf_image_free(&dst);
}

static void test_impulse_threads_do_not_change_results(void **state)
{
    jf_image src = t_random_image(301, 97, 3, 0, 77), a = {0}, b = {0};
    jf_context *one = t_cpu_context(1), *many = t_cpu_context(7);
    jf_impulse_options o = t_impulse_opts(9, JF_BORDER_MIRROR, JF_VARIANT_CPU, 1);
    (void)state;
    t_salt_pepper(&src, 0.7, 1);
    assert_int_equal(jf_switching_median(one, &src, &a, &o), JF_OK);
    assert_int_equal(jf_switching_median(many, &src, &b, &o), JF_OK);
    assert_true(t_images_equal(&a, &b));
    o.refine = 0;
    assert_int_equal(jf_adaptive_median(one, &src, &a, &o), JF_OK);
    assert_int_equal(jf_adaptive_median(many, &src, &b, &o), JF_OK);
    assert_true(t_images_equal(&a, &b));
    jf_image_free(&a);
    jf_image_free(&b);
    jf_image_free(&src);
    jf_context_destroy(one);
    jf_context_destroy(many);
}

/* Edges the random images miss: halves of black and white have lone
 * extremes only where they meet (the row below the last is not read), an
 * image of five channels is refused, and the record of a run counts the
 * padded source read and the output written. */
static void test_impulse_edges(void **state)
{
    enum { W = 8, H = 6 };
    unsigned char bytes[(H + 1) * W];
    jf_image flat, five, src, dst = {0};
    jf_context_options co = t_context_opts(JF_BACKEND_CPU, 2, JF_MEMORY_AUTO);
    jf_context *ctx;
    jf_impulse_options o = jf_impulse_defaults();
    const jf_stat *st = NULL;
    size_t i;
    double v = -1.0;
    (void)state;
    co.stats = 16;
    assert_int_equal(jf_context_create(&co, &ctx), JF_OK);
    /* black on the left, white on the right: only the two middle columns
     * are lone extremes, 2 x 6 of 48 samples; the row below is grey */
    for (i = 0; i < (size_t)(H * W); i++)
        bytes[i] = i % W < W / 2 ? 0 : 255;
    memset(bytes + H * W, 128, W);
    flat = jf_image_wrap(bytes, W, H, 1, W);
    assert_int_equal(jf_impulse_density(ctx, &flat, &v), JF_OK);
    assert_true(fabs(v - 0.25) < 1e-12);
    assert_true(fabs(t_impulse_density_reference(&flat) - 0.25) < 1e-12);
    five = jf_image_wrap(bytes, 1, 1, 1, 5);
    five.channels = 5;
    assert_int_equal(jf_switching_median(ctx, &five, &dst, &o), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "invalid shape 1x1x5"));
    src = t_random_image(9, 7, 3, 0, 11);
    assert_int_equal(jf_switching_median(ctx, &src, &dst, &o), JF_OK);
    for (i = 0; i < jf_stats_count(ctx); i++)
        if (jf_stats_at(ctx, i)->ksize == o.max_ksize && strcmp(jf_stats_at(ctx, i)->variant, "cpu") == 0)
            st = jf_stats_at(ctx, i);
    assert_non_null(st);
    assert_int_equal(st->bytes_read, (uint64_t)(9 + o.max_ksize - 1) * (7 + o.max_ksize - 1) * 3);
    assert_int_equal(st->bytes_written, (uint64_t)9 * 7 * 3);
    jf_image_free(&src);
    jf_image_free(&dst);
    jf_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_impulse_matches_brute_force),
        cmocka_unit_test(test_impulse_structured),
        cmocka_unit_test(test_impulse_flat_images),
        cmocka_unit_test(test_impulse_real_photo),
        cmocka_unit_test(test_impulse_windows_from_density),
        cmocka_unit_test(test_impulse_auto_asks_the_image),
        cmocka_unit_test(test_impulse_density),
        cmocka_unit_test(test_impulse_rejects_bad_options),
        cmocka_unit_test(test_impulse_threads_do_not_change_results),
        cmocka_unit_test(test_impulse_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
