/*
 * Test noise, seeded and reproducible on every platform: the generator is
 * splitmix64 (Steele, Lea, Flood 2014), not rand(), and pixels are visited in
 * a fixed order.
 *   salt and pepper: each pixel, with probability `amount`, becomes 0 or the
 *                    largest level (even odds) in all its channels, like the
 *                    seed report's impulse noise;
 *   Gaussian:        each sample gets N(0, amount^2) added (Box-Muller), then
 *                    is rounded and saturated.  `amount` is in 8-bit levels:
 *                    at 16 bits it is scaled by 257, so one setting gives the
 *                    same visible noise at either depth.
 * 16-bit images draw the same random numbers in the same order as 8-bit
 * ones.
 */
#include "filters/filters.h"
#include "filters/ops.h"
#include "filters/resolve.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/image.h"
#include "core/options.h"
#include "core/stats.h"
#include "core/util.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static double uniform(uint64_t *state) { return (double)(splitmix64(state) >> 11) * 0x1.0p-53; }

jf_noise_options jf_noise_defaults(void)
{
    jf_noise_options o = JF_NOISE_OPTIONS_INIT;
    return o;
}

jf_status jf_add_noise(jf_context *ctx, jf_image *img, const jf_noise_options *user)
{
    jf_noise_options o = jf_noise_defaults();
    const jf_noise_options *opt = &o;
    uint64_t state;
    int x, y, c, ch, wide;
    double top;
    jf_choice choice;
    jf_status st;
    double t0 = jf_now_ms();

    if (!user)
        return jf_fail(JF_ERR_ARG, "jf_add_noise: options are NULL");
    if ((st = jf_options_read("jf_add_noise", "jf_noise_defaults", &o, sizeof o, user)) != JF_OK ||
        (st = jf_check_host_image("jf_add_noise", "target", img)) != JF_OK ||
        (st = jf_choose(ctx, &jf_noise_family, "jf_add_noise", img, 1, 0, NULL, JF_VARIANT_AUTO, 0, 0,
                        &choice)) != JF_OK)
        return st;
    state = opt->seed;
    ch = img->channels;
    wide = img->sample == JF_SAMPLE_U16;
    top = jf_sample_max(img->sample);
    switch (opt->kind) {
    case JF_NOISE_SALT_PEPPER:
        if (!(opt->amount >= 0.0 && opt->amount <= 1.0))
            return jf_fail(JF_ERR_ARG, "salt-and-pepper density %g outside 0..1", opt->amount);
        for (y = 0; y < img->height; y++) {
            unsigned char *row = img->data + (size_t)y * img->stride;
            uint16_t *row16 = (uint16_t *)(void *)row;
            for (x = 0; x < img->width; x++) {
                double u = uniform(&state);
                if (u < opt->amount) {
                    const int salt = (int)(splitmix64(&state) >> 63);
                    for (c = 0; c < ch; c++) {
                        if (wide)
                            row16[x * ch + c] = salt ? 65535 : 0;
                        else
                            row[x * ch + c] = salt ? 255 : 0;
                    }
                }
            }
        }
        break;
    case JF_NOISE_GAUSSIAN:
        if (!(opt->amount >= 0.0 && opt->amount <= 1000.0))
            return jf_fail(JF_ERR_ARG, "Gaussian sigma %g outside 0..1000", opt->amount);
        for (y = 0; y < img->height; y++) {
            unsigned char *row = img->data + (size_t)y * img->stride;
            uint16_t *row16 = (uint16_t *)(void *)row;
            const double sigma = wide ? opt->amount * 257.0 : opt->amount;
            for (x = 0; x < img->width * ch; x++) {
                double u1 = uniform(&state), u2 = uniform(&state);
                double n = sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * 3.14159265358979323846 * u2);
                double v = (wide ? row16[x] : row[x]) + sigma * n;
                v = v <= 0.0 ? 0.0 : v >= top ? top : floor(v + 0.5);
                if (wide)
                    row16[x] = (uint16_t)v;
                else
                    row[x] = (unsigned char)v;
            }
        }
        break;
    default:
        return jf_fail(JF_ERR_ARG, "jf_add_noise: unknown noise kind %d", (int)opt->kind);
    }
    jf_record(ctx, "noise", "cpu", 0, img, jf_now_ms() - t0, 0, 0);
    return JF_OK;
}
