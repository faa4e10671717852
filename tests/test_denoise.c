/*
 * The camera-noise denoisers against the textbook formulas, written here
 * the slow and plain way in double (every pixel, every offset, every patch
 * pixel, the border rule per sample): non-local means, the bilateral filter
 * and the guided filter on awkward sizes, every border, 8 and 16 bits, grey
 * and colour, images smaller than their patch or search window.  The
 * Anscombe pair; the noise estimate on photos and synthetic textures with
 * noise of known level and model; the parameters' ranges; `auto`'s choice.
 */
#include "common.h"
#include "filters/denoise/denoise.h"
#include "filters/denoise/denoise_math.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jf_context *g_ctx;

static int setup(void **state)
{
    (void)state;
    g_ctx = t_cpu_context(2);
    return g_ctx ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    jf_context_destroy(g_ctx);
    return 0;
}

/* A sample of the image at (x, y) through the border rule (0 for zero). */
static double at(const jf_image *img, int x, int y, int c, jf_border b)
{
    const int sx = t_border_index(x, img->width, b), sy = t_border_index(y, img->height, b);
    return sx < 0 || sy < 0 ? 0.0 : (double)t_px(img, sx, sy, c);
}

/* The planes a colour pixel is compared in (the orthonormal transform). */
static void dec_at(const jf_image *img, int x, int y, jf_border b, int colour, double *v)
{
    int c;
    for (c = 0; c < colour; c++)
        v[c] = at(img, x, y, c, b);
    if (colour == 3) {
        const double r = v[0], g = v[1], bl = v[2];
        v[0] = (r + g + bl) / sqrt(3.0);
        v[1] = (r - bl) / sqrt(2.0);
        v[2] = (r - 2 * g + bl) / sqrt(6.0);
    }
}

static unsigned round_sat(double v, unsigned top)
{
    v = v < 0 ? 0 : v > top ? top : v;
    return (unsigned)(v + 0.5);
}

/* Non-local means as the IPOL text defines it, with our colour space. */
static void nlm_reference(const jf_image *src, int search, int patch, double sigma, double h,
                          jf_border b, jf_image *dst)
{
    const int colour = src->channels >= 3 ? 3 : 1, r = search / 2, f = patch / 2;
    const unsigned top = jf_sample_max(src->sample);
    int x, y, dx, dy, u, v, c;
    for (y = 0; y < src->height; y++)
        for (x = 0; x < src->width; x++) {
            double acc[3] = {0, 0, 0}, den = 0, wmax = 0, self[3], out[3];
            dec_at(src, x, y, b, colour, self);
            for (dy = -r; dy <= r; dy++)
                for (dx = -r; dx <= r; dx++) {
                    double d = 0, w, q[3];
                    if (!dx && !dy)
                        continue;
                    for (v = -f; v <= f; v++)
                        for (u = -f; u <= f; u++) {
                            double p1[3], p2[3];
                            dec_at(src, x + u, y + v, b, colour, p1);
                            dec_at(src, x + dx + u, y + dy + v, b, colour, p2);
                            for (c = 0; c < colour; c++)
                                d += (p1[c] - p2[c]) * (p1[c] - p2[c]);
                        }
                    d /= (double)patch * patch * colour;
                    w = exp(-fmax(d - 2 * sigma * sigma, 0.0) / (h * h));
                    dec_at(src, x + dx, y + dy, b, colour, q);
                    for (c = 0; c < colour; c++)
                        acc[c] += w * q[c];
                    den += w;
                    wmax = fmax(wmax, w);
                }
            wmax = fmax(wmax, 1e-38);
            for (c = 0; c < colour; c++)
                out[c] = (acc[c] + wmax * self[c]) / (den + wmax);
            if (colour == 3) {
                const double ya = out[0] / sqrt(3.0), vc = out[2] / sqrt(6.0);
                const double rr = ya + out[1] / sqrt(2.0) + vc, gg = ya - 2 * vc,
                             bb = ya - out[1] / sqrt(2.0) + vc;
                out[0] = rr, out[1] = gg, out[2] = bb;
            }
            for (c = 0; c < src->channels; c++)
                t_set_px(dst, x, y, c, c < colour ? round_sat(out[c], top) : t_px(src, x, y, c));
        }
}

/* The bilateral filter: a circular window, Euclidean colour distance. */
static void bilateral_reference(const jf_image *src, int k, double sc, double ss, jf_border b,
                                jf_image *dst)
{
    const int colour = src->channels >= 3 ? 3 : 1, r = k / 2;
    const unsigned top = jf_sample_max(src->sample);
    int x, y, u, v, c;
    for (y = 0; y < src->height; y++)
        for (x = 0; x < src->width; x++) {
            double acc[3] = {0, 0, 0}, den = 0;
            for (v = -r; v <= r; v++)
                for (u = -r; u <= r; u++) {
                    double d = 0, w;
                    if (u * u + v * v > r * r)
                        continue;
                    for (c = 0; c < colour; c++) {
                        const double e = at(src, x + u, y + v, c, b) - at(src, x, y, c, b);
                        d += e * e;
                    }
                    w = exp(-(double)(u * u + v * v) / (2 * ss * ss)) * exp(-d / (2 * sc * sc));
                    for (c = 0; c < colour; c++)
                        acc[c] += w * at(src, x + u, y + v, c, b);
                    den += w;
                }
            for (c = 0; c < src->channels; c++)
                t_set_px(dst, x, y, c, c < colour ? round_sat(acc[c] / den, top) : t_px(src, x, y, c));
        }
}

/* The guided filter, each channel its own guide, windows through the border. */
static void guided_reference(const jf_image *src, int k, double eps, jf_border b, jf_image *dst)
{
    const int colour = src->channels >= 3 ? 3 : 1, r = k / 2, W = src->width, H = src->height;
    const unsigned top = jf_sample_max(src->sample);
    const int w1 = W + 2 * r, h1 = H + 2 * r;
    double *a = (double *)malloc(sizeof(double) * (size_t)w1 * h1 * 2), *bb = a + (size_t)w1 * h1;
    int x, y, u, v, c;
    assert_non_null(a);
    for (c = 0; c < src->channels; c++) {
        if (c >= colour) {
            for (y = 0; y < H; y++)
                for (x = 0; x < W; x++)
                    t_set_px(dst, x, y, c, t_px(src, x, y, c));
            continue;
        }
        for (y = 0; y < h1; y++) /* region pixel (x, y) is image pixel (x - r, y - r) */
            for (x = 0; x < w1; x++) {
                double m = 0, mm = 0, var, s;
                for (v = -r; v <= r; v++)
                    for (u = -r; u <= r; u++) {
                        const double p = at(src, x - r + u, y - r + v, c, b);
                        m += p;
                        mm += p * p;
                    }
                m /= (double)k * k;
                mm /= (double)k * k;
                var = fmax(mm - m * m, 0.0);
                s = var / (var + eps);
                a[(size_t)y * w1 + x] = s;
                bb[(size_t)y * w1 + x] = m - s * m;
            }
        for (y = 0; y < H; y++)
            for (x = 0; x < W; x++) {
                double ma = 0, mb = 0;
                for (v = 0; v < k; v++)
                    for (u = 0; u < k; u++) {
                        ma += a[(size_t)(y + v) * w1 + x + u];
                        mb += bb[(size_t)(y + v) * w1 + x + u];
                    }
                ma /= (double)k * k;
                mb /= (double)k * k;
                t_set_px(dst, x, y, c, round_sat(ma * t_px(src, x, y, c) + mb, top));
            }
    }
    free(a);
}

/* A plan of `op` with name=value pairs ("search", "7", ..., NULL). */
static jf_plan *plan_of(const char *op, ...)
{
    jf_plan *p = NULL;
    va_list ap;
    const char *name;
    assert_int_equal(jf_plan_create(op, &p), JF_OK);
    va_start(ap, op);
    while ((name = va_arg(ap, const char *)) != NULL) {
        const char *value = va_arg(ap, const char *);
        if (jf_plan_set(p, name, value) != JF_OK)
            fail_msg("%s %s=%s: %s", op, name, value, jf_last_error());
    }
    va_end(ap);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    return p;
}

static const int SIZES[][2] = {{1, 1}, {7, 5}, {2, 9}, {13, 4}, {37, 19}};
static const jf_border BORDERS[] = {JF_BORDER_ZERO, JF_BORDER_REPLICATE, JF_BORDER_REFLECT,
                                    JF_BORDER_MIRROR};

/* No context (NULL): each denoiser and the estimate-driven auto run with a
 * temporary one, as every other operation does, and give what a context
 * gives. */
static void test_without_context(void **state)
{
    static const char *const ops[] = {"nlmeans", "bilateral", "guided", "auto"};
    jf_image src = t_random_image(11, 7, 3, 3, 5);
    size_t i;
    (void)state;
    for (i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        jf_plan *p = plan_of(ops[i], NULL);
        jf_image want = {0}, got = {0};
        assert_int_equal(jf_plan_run(g_ctx, p, &src, &want, NULL), JF_OK);
        if (jf_plan_run(NULL, p, &src, &got, NULL) != JF_OK)
            fail_msg("%s without a context: %s", ops[i], jf_last_error());
        assert_true(t_images_equal(&got, &want));
        jf_image_free(&want);
        jf_image_free(&got);
        jf_plan_free(p);
    }
    jf_image_free(&src);
}

/* Every size, border, depth and channel count against the reference: at
 * most `tol` levels apart (float sums against double). */
static void against(const char *op, const char *const *params, int k, double a1, double a2,
                    void (*ref)(const jf_image *, int, double, double, jf_border, jf_image *), int tol)
{
    int si, bi, ch, depth, cases = 0;
    static const int CHANNELS[] = {1, 3, 4};
    for (si = 0; si < 5; si++)
        for (bi = 0; bi < 4; bi++)
            for (ch = 0; ch < 3; ch++)
                for (depth = 0; depth < 2; depth++) {
                    const int w = SIZES[si][0], h = SIZES[si][1], c = CHANNELS[ch];
                    jf_image src = depth ? t_random_image16(w, h, c, 2, 0, (uint64_t)(si * 31 + ch))
                                         : t_random_image(w, h, c, 3, (uint64_t)(si * 31 + ch));
                    jf_image got = {0}, want = {0};
                    jf_plan *p;
                    jf_status st;
                    assert_int_equal(jf_plan_create(op, &p), JF_OK);
                    assert_int_equal(jf_plan_set(p, "border", jf_border_name(BORDERS[bi])), JF_OK);
                    for (int i = 0; params[i]; i += 2)
                        assert_int_equal(jf_plan_set(p, params[i], params[i + 1]), JF_OK);
                    assert_int_equal(jf_plan_prepare(p), JF_OK);
                    want.sample = src.sample;
                    assert_int_equal(jf_image_alloc_as(&want, w, h, c, src.sample), JF_OK);
                    st = jf_plan_run(g_ctx, p, &src, &got, NULL);
                    if (st != JF_OK)
                        fail_msg("%s %dx%dx%d: %s", op, w, h, c, jf_last_error());
                    ref(&src, k, a1, a2, BORDERS[bi], &want);
                    if (t_max_abs_diff(&got, &want) > tol)
                        fail_msg("%s %dx%dx%d %d-bit %s: %d levels from the reference", op, w, h, c,
                                 depth ? 16 : 8, jf_border_name(BORDERS[bi]), t_max_abs_diff(&got, &want));
                    cases++;
                    jf_plan_free(p);
                    jf_image_free(&src);
                    jf_image_free(&got);
                    jf_image_free(&want);
                }
    assert_int_equal(cases, 5 * 4 * 3 * 2);
}

/* ---- the references, adapted to against()'s shape ---- */
static int g_search, g_patch;
/* Levels in the parameters are 8-bit ones: x 257 at 16 bits. */
static double lv(const jf_image *s) { return s->sample == JF_SAMPLE_U16 ? 257.0 : 1.0; }

static void nlm_ref(const jf_image *s, int k, double sigma, double h, jf_border b, jf_image *d)
{
    (void)k;
    nlm_reference(s, g_search, g_patch, sigma * lv(s), h * lv(s), b, d);
}
static double g_space;
static void bl_ref(const jf_image *s, int k, double sc, double unused, jf_border b, jf_image *d)
{
    (void)unused;
    bilateral_reference(s, k, sc * lv(s), g_space, b, d);
}
static void gd_ref(const jf_image *s, int k, double eps, double unused, jf_border b, jf_image *d)
{
    (void)unused;
    guided_reference(s, k, eps * lv(s) * lv(s), b, d);
}

static void test_nlmeans_reference(void **state)
{
    /* given noise (nothing estimated), a search window and patches larger
     * than some of the images; h = 0.8 sigma for 3 x 3 patches */
    static const char *const P3[] = {"noise-sigma", "20", "search", "5", "patch", "3", NULL};
    static const char *const P5[] = {"noise-sigma", "40", "search", "7", "patch", "5", "strength", "1.5", NULL};
    (void)state;
    g_search = 5;
    g_patch = 3;
    against("nlmeans", P3, 0, 20.0, 0.8 * 20.0, nlm_ref, 1);
    g_search = 7;
    g_patch = 5;
    against("nlmeans", P5, 0, 40.0, 1.5 * 0.6 * 40.0, nlm_ref, 1);
}

static void test_bilateral_reference(void **state)
{
    static const char *const P5[] = {"ksize", "5", "sigma-color", "30", "sigma-space", "1.5", NULL};
    static const char *const P9[] = {"ksize", "9", "sigma-color", "80", NULL};
    (void)state;
    g_space = 1.5;
    against("bilateral", P5, 5, 30.0, 0, bl_ref, 1);
    g_space = 3.0; /* ksize / 3 */
    against("bilateral", P9, 9, 80.0, 0, bl_ref, 1);
}

static void test_guided_reference(void **state)
{
    static const char *const P5[] = {"ksize", "5", "eps", "400", NULL};
    static const char *const P11[] = {"ksize", "11", "eps", "50", NULL};
    (void)state;
    /* eps is in 8-bit levels squared: x 257^2 at 16 bits */
    against("guided", P5, 5, 400.0, 0, gd_ref, 1);
    against("guided", P11, 11, 50.0, 0, gd_ref, 1);
}

/* The generalised Anscombe pair: the transform's inverse of the transform
 * is the identity where the noise is absent (the unbiased inverse of a
 * noiseless value is that value, to the expansion's accuracy), and the
 * inverse is 0 in the dark. */
/* The weights' exponential: exp(-x) to 1e-5 relative (the float product
 * x log2(e) rounds to about that near x = 87), and from x = 87 the GPU's
 * floor, exp(-87), so that a pixel whose every weight is that small gets
 * the same mean on both (the GPU clamps its __expf there). */
static void test_weight_floor(void **state)
{
    static const float xs[] = {0.0f, 0.5f, 3.0f, 20.0f, 60.0f, 86.5f};
    static const float beyond[] = {87.0f, 87.2f, 87.4f, 90.0f, 1e3f, 1e30f};
    const double floor87 = exp(-87.0);
    size_t i;
    (void)state;
    for (i = 0; i < sizeof xs / sizeof xs[0]; i++)
        assert_true(fabs(jf_exp_neg(xs[i]) / exp(-(double)xs[i]) - 1.0) < 1e-5);
    for (i = 0; i < sizeof beyond / sizeof beyond[0]; i++)
        if (fabs(jf_exp_neg(beyond[i]) / floor87 - 1.0) > 1e-5)
            fail_msg("exp(-%g) gave %g, not the floor exp(-87) = %g", (double)beyond[i],
                     (double)jf_exp_neg(beyond[i]), floor87);
}

static void test_anscombe_pair(void **state)
{
    static const float models[][2] = {{1.0f, 0.0f}, {6.375f, 9.0f}, {0.5f, 25.0f}, {20.0f, 400.0f}};
    int m, v;
    (void)state;
    for (m = 0; m < 4; m++) {
        const float a = models[m][0], b = models[m][1];
        for (v = 0; v <= 255; v++) {
            /* the mean of the transform of noisy values, by its Taylor
             * expansion: f(y) - f''(y) var / 2 ... checked against the
             * closed form: the inverse of the transformed expectation
             * comes back within a level above 20 photons */
            const float d = jf_gat_forward((float)v, a, b);
            const float back = jf_gat_inverse(d, a, b);
            assert_true(back >= 0.0f);
            if (v / a > 20.0f && fabsf(back - (float)v) > 0.02f * v + 1.5f * a)
                fail_msg("a %g b %g: %d -> %g -> %g", a, b, v, d, back);
        }
        assert_true(jf_gat_inverse(0.0f, a, b) == 0.0f);
    }
}

/* A textured and a flat synthetic image of 384 x 384. */
static jf_image synthetic(int kind)
{
    jf_image img = {0};
    int x, y;
    assert_int_equal(jf_image_alloc(&img, 384, 384, 1), JF_OK);
    for (y = 0; y < 384; y++)
        for (x = 0; x < 384; x++) {
            double v = kind == 0 ? 60 + 0.3 * x + 0.2 * y /* a smooth ramp */
                                 : 128 + 18 * sin(x * 0.35) * cos(y * 0.25) + 9 * sin((x + 2 * y) * 0.12);
            img.data[(size_t)y * img.stride + x] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    return img;
}

/* Gaussian noise of level sigma (PNG-like rounding and clipping). */
static void add_gauss(const jf_image *clean, double sigma, uint64_t seed, jf_image *out)
{
    jf_noise_options o = t_noise_opts(JF_NOISE_GAUSSIAN, sigma, seed);
    *out = (jf_image){0};
    out->sample = clean->sample;
    assert_int_equal(jf_image_alloc_as(out, clean->width, clean->height, clean->channels, clean->sample), JF_OK);
    assert_int_equal(jf_image_copy(clean, out), JF_OK);
    assert_int_equal(jf_add_noise(NULL, out, &o), JF_OK);
}

/* The estimate on ten photos and textures (one at 16 bits, a smooth ramp,
 * a periodic texture, a smooth crop), noise from 5 to 50 levels: within
 * 10%, and no impulses read into it. */
static void test_estimate_gaussian(void **state)
{
    static const char *const photos[] = {"samples/images/astronaut.png", "samples/images/chelsea.png",
                                         "samples/images/coffee.png", "samples/images/rocket.jpg",
                                         "samples/images/astronaut.png", /* again, at 16 bits */
                                         "samples/images/retina.jpg", "tests/data/coffee_grey_a.png"};
    static const double sigmas[] = {5, 10, 20, 35, 50};
    const int quick = getenv("JF_TEST_QUICK") != NULL; /* emulation, sanitizers */
    jf_image imgs[10];
    int n = 0, i, s;
    (void)state;
    for (i = 0; i < 7; i++) {
        jf_picture pic;
        assert_int_equal(jf_picture_read(t_source_path(photos[i]), &pic), JF_OK);
        if (i == 4) { /* 16 bits: the same levels x 257, the noise too */
            jf_image wide = {0};
            wide.sample = JF_SAMPLE_U16;
            assert_int_equal(jf_image_convert(&pic.color, &wide), JF_OK);
            imgs[n] = wide;
        } else {
            imgs[n] = pic.color;
            pic.color.data = NULL;
            pic.color.owned = 0;
        }
        jf_picture_free(&pic);
        n++;
    }
    imgs[n++] = synthetic(0);
    imgs[n++] = synthetic(1);
    {   /* a smooth crop of the retina (little structure, no clipping) */
        jf_image flat = {0};
        assert_int_equal(jf_image_alloc(&flat, 200, 200, 3), JF_OK);
        for (i = 0; i < 200; i++)
            memcpy(flat.data + (size_t)i * flat.stride,
                   imgs[5].data + (size_t)(i + 600) * imgs[5].stride + 200 * 3, 200 * 3);
        imgs[n++] = flat;
    }
    assert_int_equal(n, 10);
    for (i = 0; i < n; i++)
        for (s = 0; s < 5; s++) {
            jf_image noisy;
            jf_noise_estimate e;
            /* the quick set: 8 and 16 bits of one photo, a grey
             * synthetic image and the smooth crop, at three sigmas */
            if (quick && (!(i == 0 || i == 4 || i == 7 || i == 9) || s % 2))
                continue;
            add_gauss(&imgs[i], sigmas[s], (uint64_t)(i * 7 + s + 1), &noisy);
            assert_int_equal(jf_estimate_noise(g_ctx, &noisy, &e), JF_OK);
            if (fabs(e.sigma / (sigmas[s] * (noisy.sample == JF_SAMPLE_U16 ? 257 : 1)) - 1.0) > 0.10)
                fail_msg("image %d at sigma %g: estimated %g", i, sigmas[s], e.sigma);
            if (e.impulse_density > 0.002)
                fail_msg("image %d at sigma %g: impulses %g in Gaussian noise", i, sigmas[s],
                         e.impulse_density);
            jf_image_free(&noisy);
        }
    for (i = 0; i < n; i++)
        jf_image_free(&imgs[i]);
}

/* Noise clipped at black: a dark flat frame (level 25, sigma 20: a tenth
 * of its samples at 0) reads within 4% of its sigma once the clipping of
 * each patch is accounted for (without it, 5% low and more). */
static void test_estimate_clipped(void **state)
{
    jf_image img = {0};
    jf_noise_estimate e;
    uint64_t seed = 2024;
    size_t i;
    (void)state;
    assert_int_equal(jf_image_alloc(&img, 256, 256, 1), JF_OK);
    for (i = 0; i < (size_t)256 * 256; i++) {
        const double u1 = ((double)(t_rand(&seed) >> 11) + 1) / 9007199254740993.0;
        const double u2 = (double)(t_rand(&seed) >> 11) / 9007199254740992.0;
        const double v = 25.0 + 20.0 * sqrt(-2 * log(u1)) * cos(6.283185307 * u2);
        img.data[i] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5);
    }
    assert_int_equal(jf_estimate_noise(g_ctx, &img, &e), JF_OK);
    if (fabs(e.sigma / 20.0 - 1.0) > 0.04)
        fail_msg("sigma %g for 20 clipped at black", e.sigma);
    jf_image_free(&img);
}

/* Poisson-Gaussian noise: variance a * value + b, the model recovered
 * (sigma at mid-grey within 15%) and called signal-dependent; Gaussian
 * noise of the same size not. */
static void test_estimate_poisson(void **state)
{
    jf_picture pic;
    jf_image img;
    jf_noise_estimate e;
    uint64_t seed = 99;
    size_t i, n;
    (void)state;
    assert_int_equal(jf_picture_read(t_source_path("samples/images/chelsea.png"), &pic), JF_OK);
    img = pic.color;
    n = (size_t)img.width * img.channels;
    for (int y = 0; y < img.height; y++)
        for (i = 0; i < n; i++) {
            unsigned char *p = img.data + (size_t)y * img.stride + i;
            /* 40 electrons at white, read noise 3 levels: a = 255/40, b = 9 */
            const double a = 255.0 / 40.0, lam = *p / a;
            double k = 0, L = exp(-lam), prod = 1, g, v;
            do { /* Knuth's Poisson, fine for lam <= 40 */
                prod *= (double)(t_rand(&seed) >> 11) / 9007199254740992.0;
                k++;
            } while (prod > L);
            g = sqrt(-2 * log(((double)(t_rand(&seed) >> 11) + 1) / 9007199254740993.0)) *
                cos(6.283185307 * (double)(t_rand(&seed) >> 11) / 9007199254740992.0);
            v = (k - 1) * a + 3.0 * g;
            *p = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5);
        }
    assert_int_equal(jf_estimate_noise(g_ctx, &img, NULL), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "out is NULL"));
    {   /* too small for patches: the Haar band's level, and every field the
         * estimate's own whatever the struct held before */
        jf_image tiny = t_random_image(9, 9, 1, 1, 77);
        memset(&e, 0x55, sizeof e);
        assert_int_equal(jf_estimate_noise(g_ctx, &tiny, &e), JF_OK);
        assert_int_equal(e.size, sizeof e);
        assert_int_equal(e.patches, 0);
        assert_true(e.poisson_a == 0.0 && e.signal_dependent == 0);
        if (!(e.sigma >= 0.0 && e.sigma < 255.0 && e.poisson_b == e.sigma * e.sigma))
            fail_msg("sigma %g, b %g", e.sigma, e.poisson_b);
        jf_image_free(&tiny);
    }
    assert_int_equal(jf_estimate_noise(g_ctx, &img, &e), JF_OK);
    {
        const double want = sqrt(255.0 / 40.0 * 128 + 9), got = sqrt(e.poisson_a * 128 + e.poisson_b);
        if (fabs(got / want - 1) > 0.15 || !e.signal_dependent)
            fail_msg("Poisson-Gaussian: a %g b %g (sigma at 128: %g, want %g), signal dependent %d",
                     e.poisson_a, e.poisson_b, got, want, e.signal_dependent);
    }
    jf_picture_free(&pic);
}

/* Ranges: a strength, search or patch out of range is refused naming the
 * parameter; the table's defaults are what an unset plan runs with. */
static void test_parameters(void **state)
{
    jf_plan *p = NULL;
    char v[64];
    (void)state;
    assert_int_equal(jf_plan_create("nlmeans", &p), JF_OK);
    assert_int_equal(jf_plan_set(p, "search", "37"), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "search"));
    assert_int_equal(jf_plan_set(p, "search", "4"), JF_ERR_ARG);
    assert_int_equal(jf_plan_set(p, "patch", "11"), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "patch"));
    assert_int_equal(jf_plan_set(p, "strength", "0"), JF_ERR_ARG);
    assert_int_equal(jf_plan_set(p, "noise-sigma", "-1"), JF_ERR_ARG);
    assert_int_equal(jf_plan_prepare(p), JF_OK);
    assert_int_equal(jf_plan_value(p, "search", v, sizeof v), JF_OK);
    assert_string_equal(v, "21");
    assert_int_equal(jf_plan_value(p, "strength", v, sizeof v), JF_OK);
    assert_string_equal(v, "1");
    jf_plan_free(p);
    assert_int_equal(jf_plan_create("bilateral", &p), JF_OK);
    assert_int_equal(jf_plan_set(p, "ksize", "33"), JF_ERR_ARG);
    assert_int_equal(jf_plan_set(p, "sigma-color", "0"), JF_ERR_ARG);
    jf_plan_free(p);
    assert_int_equal(jf_plan_create("guided", &p), JF_OK);
    assert_int_equal(jf_plan_set(p, "eps", "0"), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "eps"));
    jf_plan_free(p);
}

/* Emulation and the sanitizers (JF_TEST_QUICK): a part of the photo, at
 * most w x h from x0, y0 (-1: centred), for the slow whole-pipeline tests
 * (the arithmetic is checked whole by the reference tests above). */
static void quick_part(jf_picture *pic, int x0, int y0, int w, int h)
{
    jf_image part = {0};
    const size_t px = (size_t)pic->color.channels * jf_sample_size(pic->color.sample);
    int y;
    if (!getenv("JF_TEST_QUICK") || (pic->color.width <= w && pic->color.height <= h))
        return;
    w = w < pic->color.width ? w : pic->color.width;
    h = h < pic->color.height ? h : pic->color.height;
    x0 = x0 < 0 || x0 > pic->color.width - w ? (pic->color.width - w) / 2 : x0;
    y0 = y0 < 0 || y0 > pic->color.height - h ? (pic->color.height - h) / 2 : y0;
    assert_int_equal(jf_image_alloc_as(&part, w, h, pic->color.channels, pic->color.sample), JF_OK);
    for (y = 0; y < h; y++)
        memcpy(part.data + (size_t)y * part.stride,
               pic->color.data + (size_t)(y0 + y) * pic->color.stride + (size_t)x0 * px, (size_t)w * px);
    jf_image_free(&pic->color);
    pic->color = part;
}

/* auto: salt and pepper to the impulse filter, Gaussian noise to non-local
 * means at about its level, a clean photo left as it is; what was decided
 * in the result. */
static void test_auto(void **state)
{
    jf_picture pic;
    jf_image noisy, out = {0};
    jf_plan *p = plan_of("auto", NULL);
    jf_op_result r = JF_OP_RESULT_INIT;
    jf_noise_options sp = t_noise_opts(JF_NOISE_SALT_PEPPER, 0.2, 3);
    (void)state;
    assert_int_equal(jf_picture_read(t_source_path("samples/images/coffee.png"), &pic), JF_OK);
    quick_part(&pic, -1, -1, 256, 256);
    assert_int_equal(jf_plan_run(g_ctx, p, &pic.color, &out, &r), JF_OK);
    assert_non_null(strstr(r.decision, "none: clean"));
    assert_true(t_images_equal(&out, &pic.color));
    jf_image_free(&out);
    add_gauss(&pic.color, 15, 5, &noisy);
    assert_int_equal(jf_plan_run(g_ctx, p, &noisy, &out, &r), JF_OK);
    assert_non_null(strstr(r.decision, "nlmeans"));
    assert_true(fabs(r.estimate - 15) < 1.5);
    jf_image_free(&out);
    jf_image_free(&noisy);
    add_gauss(&pic.color, 0, 5, &noisy);
    assert_int_equal(jf_add_noise(NULL, &noisy, &sp), JF_OK);
    assert_int_equal(jf_plan_run(g_ctx, p, &noisy, &out, &r), JF_OK);
    assert_non_null(strstr(r.decision, "auto-impulse"));
    assert_true(fabs(r.estimate - 0.2) < 0.03);
    jf_image_free(&out);
    jf_image_free(&noisy);
    jf_plan_free(p);
    jf_picture_free(&pic);
}

/* PSNR of one channel of two 8-bit images. */
static double channel_psnr(const jf_image *a, const jf_image *b, int c)
{
    double se = 0.0;
    int x, y;
    for (y = 0; y < a->height; y++)
        for (x = 0; x < a->width; x++) {
            const double d = (double)a->data[(size_t)y * a->stride + (size_t)x * a->channels + c] -
                             (double)b->data[(size_t)y * b->stride + (size_t)x * b->channels + c];
            se += d * d;
        }
    return 10.0 * log10(255.0 * 255.0 / (se / ((double)a->width * a->height)));
}

/* The denoisers take noise away: on a noisy photo each is nearer the clean
 * one than the noisy input was (PSNR up by dB they must reach), in every
 * colour channel (a channel left out would pass on the mean). */
static void test_denoising_helps(void **state)
{
    static const struct {
        const char *op;
        double gain;
    } ops[] = {{"nlmeans", 6.0}, {"bilateral", 3.0}, {"guided", 3.0}, {"auto", 6.0}};
    jf_picture pic;
    jf_image noisy;
    double before, after;
    int i, c;
    (void)state;
    assert_int_equal(jf_picture_read(t_source_path("samples/images/chelsea.png"), &pic), JF_OK);
    assert_int_equal(pic.color.channels, 3);
    quick_part(&pic, -1, -1, 128, 128);
    add_gauss(&pic.color, 20, 11, &noisy);
    assert_int_equal(jf_psnr(g_ctx, &pic.color, &noisy, &before, NULL), JF_OK);
    for (i = 0; i < 4; i++) {
        jf_plan *p = plan_of(ops[i].op, NULL);
        jf_image out = {0};
        assert_int_equal(jf_plan_run(g_ctx, p, &noisy, &out, NULL), JF_OK);
        assert_int_equal(jf_psnr(g_ctx, &pic.color, &out, &after, NULL), JF_OK);
        if (after < before + ops[i].gain)
            fail_msg("%s: PSNR %.2f -> %.2f dB", ops[i].op, before, after);
        for (c = 0; c < pic.color.channels; c++)
            if (channel_psnr(&pic.color, &out, c) < channel_psnr(&pic.color, &noisy, c) + ops[i].gain - 1.0)
                fail_msg("%s: channel %d PSNR %.2f -> %.2f dB", ops[i].op, c,
                         channel_psnr(&pic.color, &noisy, c), channel_psnr(&pic.color, &out, c));
        jf_image_free(&out);
        jf_plan_free(p);
    }
    jf_image_free(&noisy);
    jf_picture_free(&pic);
}

/* With nothing set, SURE may keep part of each noisy pixel: at light noise
 * on a detailed photo that keeps detail that averaging would take, and it
 * beats the same patch and h without it. */
static void test_nlmeans_keeps_detail(void **state)
{
    jf_picture pic;
    jf_image noisy, out = {0}, plain = {0};
    jf_plan *p = plan_of("nlmeans", NULL), *fixed;
    jf_op_result r = JF_OP_RESULT_INIT;
    double with_keep, without;
    const char *at;
    char patch[8];
    (void)state;
    assert_int_equal(jf_picture_read(t_source_path("samples/images/astronaut.png"), &pic), JF_OK);
    quick_part(&pic, 128, 256, 192, 192); /* the suit's patches: detail */
    add_gauss(&pic.color, 5, 21, &noisy);
    assert_int_equal(jf_plan_run(g_ctx, p, &noisy, &out, &r), JF_OK);
    if (!strstr(r.decision, "keep") || !(at = strstr(r.decision, "patch ")))
        fail_msg("no share kept: %s", r.decision);
    snprintf(patch, sizeof patch, "%d", atoi(at + 6));
    fixed = plan_of("nlmeans", "patch", patch, NULL); /* the same h: the candidates' factor */
    assert_int_equal(jf_plan_run(g_ctx, fixed, &noisy, &plain, NULL), JF_OK);
    assert_int_equal(jf_psnr(g_ctx, &pic.color, &out, &with_keep, NULL), JF_OK);
    assert_int_equal(jf_psnr(g_ctx, &pic.color, &plain, &without, NULL), JF_OK);
    if (with_keep < without + 0.5)
        fail_msg("%s: %.2f dB; without the share kept %.2f dB", r.decision, with_keep, without);
    jf_image_free(&out);
    jf_image_free(&plain);
    jf_image_free(&noisy);
    jf_plan_free(p);
    jf_plan_free(fixed);
    jf_picture_free(&pic);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nlmeans_reference),
        cmocka_unit_test(test_bilateral_reference),
        cmocka_unit_test(test_guided_reference),
        cmocka_unit_test(test_weight_floor),
        cmocka_unit_test(test_anscombe_pair),
        cmocka_unit_test(test_estimate_gaussian),
        cmocka_unit_test(test_estimate_poisson),
        cmocka_unit_test(test_estimate_clipped),
        cmocka_unit_test(test_parameters),
        cmocka_unit_test(test_without_context),
        cmocka_unit_test(test_auto),
        cmocka_unit_test(test_denoising_helps),
        cmocka_unit_test(test_nlmeans_keeps_detail),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
