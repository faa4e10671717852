/* PSNR and SSIM against scikit-image's numbers (tests/data/make_reference.py)
 * and against values known in closed form. */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every pair of a reference file ("A B psnr_db ssim" lines): PSNR to 1e-9,
 * SSIM to `ssim_tol` (the stated bound is 1e-4).  Returns the pairs read. */
static int check_reference_file(const char *rel, double ssim_tol, jf_sample sample)
{
    FILE *f = fopen(t_source_path(rel), "r");
    char line[1024], a_path[512], b_path[512];
    int pairs = 0;
    assert_non_null(f);
    while (fgets(line, sizeof line, f)) {
        double want_psnr, want_ssim, psnr, ssim, mse;
        jf_picture a, b;
        if (line[0] == '#')
            continue;
        assert_int_equal(sscanf(line, "%511s %511s %lf %lf", a_path, b_path, &want_psnr, &want_ssim), 4);
        assert_int_equal(jf_picture_read(t_source_path(a_path), &a), JF_OK);
        assert_int_equal(jf_picture_read(t_source_path(b_path), &b), JF_OK);
        assert_int_equal(a.color.sample, sample);
        assert_int_equal(jf_psnr(NULL, &a.color, &b.color, &psnr, &mse), JF_OK);
        assert_int_equal(jf_ssim(NULL, &a.color, &b.color, &ssim), JF_OK);
        if (fabs(psnr - want_psnr) > 1e-9 || fabs(ssim - want_ssim) > ssim_tol)
            fail_msg("%s vs %s: psnr %.12f (skimage %.12f), ssim %.12f (skimage %.12f)", a_path,
                     b_path, psnr, want_psnr, ssim, want_ssim);
        jf_picture_free(&a);
        jf_picture_free(&b);
        pairs++;
    }
    fclose(f);
    return pairs;
}

static void test_against_scikit_image(void **state)
{
    (void)state;
    /* the stated tolerance is 1e-4; in practice the two agree far closer */
    assert_int_equal(check_reference_file("tests/data/reference_metrics.txt", 1e-9, JF_SAMPLE_U8), 4);
}

/* 16 bits: L = 65535 (tests/data/make_reference16.py); and the closed
 * form PSNR of a one-level difference. */
static void test_16bit_against_scikit_image(void **state)
{
    jf_image x, y;
    double psnr, mse;
    int i;
    (void)state;
    assert_int_equal(check_reference_file("tests/data/reference_metrics16.txt", 1e-9, JF_SAMPLE_U16), 1);
    x = t_random_image16(40, 30, 1, 0, 0, 9);
    y = t_random_image16(40, 30, 1, 0, 0, 9);
    for (i = 0; i < 40 * 30; i++) {
        uint16_t *px = (uint16_t *)(void *)x.data, *py = (uint16_t *)(void *)y.data;
        px[i] = (uint16_t)(px[i] % 65535);
        py[i] = (uint16_t)(px[i] + 1);
    }
    assert_int_equal(jf_psnr(NULL, &x, &y, &psnr, &mse), JF_OK);
    assert_true(fabs(mse - 1.0) < 1e-15);
    assert_true(fabs(psnr - 20.0 * log10(65535.0)) < 1e-12);
    jf_image_free(&x);
    jf_image_free(&y);
}

static void test_identical_images(void **state)
{
    jf_image a = t_random_image(57, 31, 3, 3, 5);
    double psnr = 0, mse = -1, ssim = 0;
    (void)state;
    assert_int_equal(jf_psnr(NULL, &a, &a, &psnr, &mse), JF_OK);
    assert_true(isinf(psnr) && psnr > 0);
    assert_true(mse == 0.0);
    assert_int_equal(jf_ssim(NULL, &a, &a, &ssim), JF_OK);
    assert_true(fabs(ssim - 1.0) < 1e-12);
    jf_image_free(&a);
}

static void test_psnr_closed_form(void **state)
{
    /* b = a + 1 everywhere: MSE 1, PSNR = 20 log10(255) */
    jf_image a = t_random_image(40, 30, 1, 0, 9), b = t_random_image(40, 30, 1, 0, 9);
    double psnr, mse;
    int i;
    (void)state;
    for (i = 0; i < 40 * 30; i++) {
        a.data[i] = (unsigned char)(a.data[i] % 255);
        b.data[i] = (unsigned char)(a.data[i] + 1);
    }
    assert_int_equal(jf_psnr(NULL, &a, &b, &psnr, &mse), JF_OK);
    assert_true(fabs(mse - 1.0) < 1e-15);
    assert_true(fabs(psnr - 20.0 * log10(255.0)) < 1e-12);
    jf_image_free(&a);
    jf_image_free(&b);
}

static void test_metric_arguments(void **state)
{
    jf_image a = t_random_image(20, 20, 1, 0, 1), b = t_random_image(21, 20, 1, 0, 2);
    jf_image small = t_random_image(10, 30, 1, 0, 3);
    double v;
    (void)state;
    assert_int_equal(jf_psnr(NULL, &a, &b, &v, NULL), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "differ in shape"));
    assert_int_equal(jf_ssim(NULL, &small, &small, &v), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "11x11"));
    jf_image_free(&a);
    jf_image_free(&b);
    jf_image_free(&small);
}

static void test_ssim_independent_of_threads(void **state)
{
    jf_image a = t_random_image(200, 150, 3, 0, 1), b = t_random_image(200, 150, 3, 0, 2);
    jf_context_options o1 = t_context_opts(JF_BACKEND_CPU, 1, JF_MEMORY_AUTO), o5 = t_context_opts(JF_BACKEND_CPU, 5, JF_MEMORY_AUTO);
    jf_context *c1, *c5;
    double s1, s5;
    (void)state;
    assert_int_equal(jf_context_create(&o1, &c1), JF_OK);
    assert_int_equal(jf_context_create(&o5, &c5), JF_OK);
    assert_int_equal(jf_ssim(c1, &a, &b, &s1), JF_OK);
    assert_int_equal(jf_ssim(c5, &a, &b, &s5), JF_OK);
    assert_true(s1 == s5);
    assert_true(s1 > -1.0 && s1 < 0.1); /* unrelated random images */
    jf_context_destroy(c1);
    jf_context_destroy(c5);
    jf_image_free(&a);
    jf_image_free(&b);
}

/* Noise: reproducible, of the requested strength. */
static void test_noise(void **state)
{
    jf_image a = t_random_image(300, 200, 3, 4, 1), b = t_random_image(300, 200, 3, 4, 1);
    jf_image c = t_random_image(300, 200, 3, 4, 1), orig = t_random_image(300, 200, 3, 4, 1);
    jf_noise_options sp = t_noise_opts(JF_NOISE_SALT_PEPPER, 0.1, 7);
    jf_noise_options g = t_noise_opts(JF_NOISE_GAUSSIAN, 10.0, 7);
    int x, y, hits = 0, extremes = 0;
    double sum = 0, sum2 = 0, n = 0;
    (void)state;
    assert_int_equal(jf_add_noise(NULL, &a, &sp), JF_OK);
    assert_int_equal(jf_add_noise(NULL, &b, &sp), JF_OK);
    assert_true(t_images_equal(&a, &b));
    sp.seed = 8;
    assert_int_equal(jf_add_noise(NULL, &c, &sp), JF_OK);
    assert_false(t_max_abs_diff(&a, &c) == 0);
    for (y = 0; y < 200; y++)
        for (x = 0; x < 300; x++) {
            const unsigned char *p = a.data + y * a.stride + x * 3;
            const unsigned char *o = orig.data + y * orig.stride + x * 3;
            if (memcmp(p, o, 3) != 0) {
                hits++;
                extremes += (p[0] == p[1] && p[1] == p[2] && (p[0] == 0 || p[0] == 255));
            }
        }
    /* 60000 pixels at density 0.1: 6000 +- 4 sigma (sigma ~ 73) */
    assert_true(hits > 5700 && hits < 6300);
    assert_int_equal(extremes, hits);
    jf_image_free(&b);
    b = t_random_image(300, 200, 3, 4, 1);
    for (y = 0; y < 200; y++) /* mid-grey so clipping does not bias the spread */
        memset(b.data + y * b.stride, 128, 900);
    assert_int_equal(jf_add_noise(NULL, &b, &g), JF_OK);
    for (y = 0; y < 200; y++) {
        int moved = 0; /* sigma 10: nearly every sample moves, in every row */
        for (x = 0; x < 900; x++) {
            double d = b.data[y * b.stride + x] - 128.0;
            sum += d;
            sum2 += d * d;
            n++;
            moved += d != 0.0;
        }
        assert_true(moved > 800);
    }
    assert_true(fabs(sum / n) < 0.2);
    assert_true(fabs(sqrt(sum2 / n) - 10.0) < 0.2);
    /* density 1: every pixel of every row and column is salt or pepper */
    sp.amount = 1.0;
    assert_int_equal(jf_add_noise(NULL, &c, &sp), JF_OK);
    for (y = 0; y < 200; y++)
        for (x = 0; x < 300; x++) {
            const unsigned char *p = c.data + y * c.stride + x * 3;
            assert_true(p[0] == p[1] && p[1] == p[2] && (p[0] == 0 || p[0] == 255));
        }
    sp.amount = 1.5;
    assert_int_equal(jf_add_noise(NULL, &a, &sp), JF_ERR_ARG);
    jf_image_free(&a);
    jf_image_free(&b);
    jf_image_free(&c);
    jf_image_free(&orig);
}

/* 16 bits: salt and pepper at 0 and 65535 on the same pixels as at 8
 * bits (one random sequence), Gaussian sigma in 8-bit levels times 257. */
static void test_noise16(void **state)
{
    jf_image a8 = t_random_image(300, 200, 1, 0, 3), a16 = {0}, g16 = {0};
    jf_noise_options sp = t_noise_opts(JF_NOISE_SALT_PEPPER, 0.1, 7);
    jf_noise_options g = t_noise_opts(JF_NOISE_GAUSSIAN, 10.0, 7);
    double sum2 = 0;
    int x, y;
    (void)state;
    a16.sample = g16.sample = JF_SAMPLE_U16;
    assert_int_equal(jf_image_convert(&a8, &a16), JF_OK);
    assert_int_equal(jf_add_noise(NULL, &a8, &sp), JF_OK);
    assert_int_equal(jf_add_noise(NULL, &a16, &sp), JF_OK);
    for (y = 0; y < 200; y++)
        for (x = 0; x < 300; x++) {
            const unsigned v8 = t_px(&a8, x, y, 0), v16 = t_px(&a16, x, y, 0);
            assert_int_equal(v16, v8 * 257u); /* 0 -> 0, 255 -> 65535, the rest v * 257 */
        }
    assert_int_equal(jf_image_alloc_as(&g16, 300, 200, 1, JF_SAMPLE_U16), JF_OK);
    for (y = 0; y < 200; y++)
        for (x = 0; x < 300; x++)
            t_set_px(&g16, x, y, 0, 32768);
    assert_int_equal(jf_add_noise(NULL, &g16, &g), JF_OK);
    for (y = 0; y < 200; y++)
        for (x = 0; x < 300; x++) {
            const double d = (double)t_px(&g16, x, y, 0) - 32768.0;
            sum2 += d * d;
        }
    assert_true(fabs(sqrt(sum2 / 60000.0) - 2570.0) < 50.0);
    jf_image_free(&a8);
    jf_image_free(&a16);
    jf_image_free(&g16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_scikit_image),
        cmocka_unit_test(test_16bit_against_scikit_image),
        cmocka_unit_test(test_identical_images),
        cmocka_unit_test(test_psnr_closed_form),
        cmocka_unit_test(test_metric_arguments),
        cmocka_unit_test(test_ssim_independent_of_threads),
        cmocka_unit_test(test_noise),
        cmocka_unit_test(test_noise16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
