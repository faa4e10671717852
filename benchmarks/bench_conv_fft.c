/* Where the CPU's FFT convolution (filters/conv/conv_cpu_fft.c) stands
 * against the direct sum: the figures behind its two constants.
 *
 *   bench_conv_fft error          the transforms' worst error against an exact
 *                                 (double) sum, 16-bit noise, signed weights,
 *                                 at sum |w| x range = 2^20 (FFT_SPAN_MAX)
 *                                 and 4 x it, k = 11, 21, 63
 *   bench_conv_fft time WxH CH    direct sum against FFT tiles, 8-bit, k = 5
 *                                 to 15, 2 threads, median of 7 calls, with
 *                                 what `auto` picks (jf_conv_fft_plan)
 */
#include "jetfilter.h"
#include "core/util.h"
#include "filters/conv/conv.h"
#include "filters/filters.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

static int noise_image(jf_image *img, int w, int h, int ch, jf_sample sample)
{
    const double top = sample == JF_SAMPLE_U16 ? 65535.0 : 255.0;
    int x, y;
    if (jf_image_alloc_as(img, w, h, ch, sample) != JF_OK)
        return 0;
    for (y = 0; y < h; y++)
        for (x = 0; x < w * ch; x++) {
            const unsigned v = (unsigned)floor(uniform() * (top + 1.0));
            if (sample == JF_SAMPLE_U16)
                ((uint16_t *)(void *)(img->data + (size_t)y * img->stride))[x] = (uint16_t)v;
            else
                img->data[(size_t)y * img->stride + (size_t)x] = (unsigned char)v;
        }
    return 1;
}

static unsigned sample_at(const jf_image *img, int x, int y)
{
    const unsigned char *row = img->data + (size_t)y * img->stride;
    return img->sample == JF_SAMPLE_U16 ? ((const uint16_t *)(const void *)row)[x] : row[x];
}

/* The largest |result - exact sum| over every third row where the exact
 * sum is in range (reflect border), for weights summing to 1 with
 * sum |w| = span / 65535. */
static int error_at(jf_context *ctx, int k, double span)
{
    const int w = 600, h = 400, r = k / 2;
    jf_image src = {0}, dst = {0};
    float *wt = malloc(sizeof(float) * (size_t)(k * k));
    double total = 0.0, worst = 0.0;
    long off = 0, n = 0;
    int i, j, x, y;
    if (!wt || !noise_image(&src, w, h, 1, JF_SAMPLE_U16) ||
        jf_image_alloc_as(&dst, w, h, 1, JF_SAMPLE_U16) != JF_OK)
        return 1;
    for (i = 0; i < k * k; i++) {
        wt[i] = (float)(uniform() - 0.5);
        total += fabs(wt[i]);
    }
    for (i = 0; i < k * k; i++)
        wt[i] = (float)(wt[i] * (span / 65535.0 - 1.0) / total);
    wt[r * k + r] += 1.0f;
    if (jf_conv_cpu_fft(ctx, &src, k, JF_BORDER_REFLECT, wt, &dst) != JF_OK)
        return 1;
    for (y = 0; y < h; y += 3)
        for (x = 0; x < w; x++) {
            double exact = 0.0, d;
            for (j = 0; j < k; j++)
                for (i = 0; i < k; i++) {
                    const int sy = jf_border_index(y + j - r, h, JF_BORDER_REFLECT);
                    const int sx = jf_border_index(x + i - r, w, JF_BORDER_REFLECT);
                    exact += wt[j * k + i] * (double)sample_at(&src, sx, sy);
                }
            if (exact < 0.0 || exact > 65535.0)
                continue;
            d = fabs((double)sample_at(&dst, x, y) - exact);
            worst = d > worst ? d : worst;
            off += sample_at(&dst, x, y) != (unsigned)floor(exact + 0.5);
            n++;
        }
    printf("k=%d sum|w|*range=%.0f: worst |result - exact| %.4f (rounding alone: 0.5), "
           "%.2f%% not the exact sum rounded, %ld outputs\n",
           k, span, worst, 100.0 * (double)off / (double)n, n);
    free(wt);
    jf_image_free(&src);
    jf_image_free(&dst);
    return 0;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median ms of 7 calls after one. */
static double timed(jf_context *ctx, const jf_image *src, int k, const float *wt, int fft, jf_image *dst)
{
    double t[7], t0;
    int i;
    for (i = -1; i < 7; i++) {
        t0 = jf_now_ms();
        if (fft)
            jf_conv_cpu_fft(ctx, src, k, JF_BORDER_REPLICATE, wt, dst);
        else
            jf_conv_cpu(ctx, src, k, JF_BORDER_REPLICATE, wt, NULL, NULL, dst);
        if (i >= 0)
            t[i] = jf_now_ms() - t0;
    }
    qsort(t, 7, sizeof t[0], by_value);
    return t[3];
}

int main(int argc, char **argv)
{
    jf_context_options o = jf_context_defaults();
    jf_context *ctx = NULL;
    o.backend = JF_BACKEND_CPU;
    o.threads = 2;
    if (jf_context_create(&o, &ctx) != JF_OK)
        return 1;
    if (argc == 2 && !strcmp(argv[1], "error")) {
        static const int ks[] = {11, 21, 63};
        int i;
        for (i = 0; i < 3; i++)
            if (error_at(ctx, ks[i], 1048576.0) || error_at(ctx, ks[i], 4194304.0))
                return 1;
    } else if (argc == 4 && !strcmp(argv[1], "time")) {
        jf_image src = {0}, dst = {0};
        float wt[15 * 15];
        int w, h, k;
        if (sscanf(argv[2], "%dx%d", &w, &h) != 2 ||
            !noise_image(&src, w, h, atoi(argv[3]), JF_SAMPLE_U8) ||
            jf_image_alloc_as(&dst, w, h, src.channels, JF_SAMPLE_U8) != JF_OK)
            return 1;
        for (k = 5; k <= 15; k += 2) {
            int i;
            for (i = 0; i < k * k; i++)
                wt[i] = (float)(uniform() + 0.05) / (float)(k * k);
            printf("%s x%d k=%2d: direct %8.3f ms, fft %8.3f ms, auto picks %s\n", argv[2],
                   src.channels, k, timed(ctx, &src, k, wt, 0, &dst), timed(ctx, &src, k, wt, 1, &dst),
                   jf_conv_fft_plan(&src, k, wt) ? "fft" : "direct");
        }
        jf_image_free(&src);
        jf_image_free(&dst);
    } else {
        fprintf(stderr, "usage: bench_conv_fft error | time WxH CHANNELS\n");
        return 2;
    }
    jf_context_destroy(ctx);
    return 0;
}
