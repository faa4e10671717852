/* Helpers the benchmark programs share. */
#include "benchmarks/bench_util.h"

#include <stdlib.h>
#include <string.h>

jf_status jf_bench_tile(const jf_image *photo, int w, int h, int ch, int shift, jf_image *out)
{
    jf_status st = jf_image_alloc(out, w, h, ch);
    int x, y, c;
    if (st != JF_OK)
        return st;
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++) {
            const unsigned char *px = photo->data +
                                      (size_t)((y + 7 * shift) % photo->height) * photo->stride +
                                      (size_t)((x + 13 * shift) % photo->width) * photo->channels;
            for (c = 0; c < ch; c++) /* grey the mean; a fourth channel an opaque alpha */
                out->data[(size_t)y * out->stride + (size_t)x * ch + c] =
                    ch == 1 ? (unsigned char)((px[0] + px[1] + px[2]) / 3) : c < 3 ? px[c] : 255;
        }
    return JF_OK;
}

int jf_bench_max_diff(const jf_image *a, const jf_image *b)
{
    int x, y, m = 0;
    const int wide = a->sample == JF_SAMPLE_U16;
    for (y = 0; y < a->height; y++) {
        const unsigned char *ra = a->data + (size_t)y * a->stride, *rb = b->data + (size_t)y * b->stride;
        for (x = 0; x < a->width * a->channels; x++) {
            int d = wide ? abs((int)((const uint16_t *)(const void *)ra)[x] -
                               (int)((const uint16_t *)(const void *)rb)[x])
                         : abs((int)ra[x] - (int)rb[x]);
            m = d > m ? d : m;
        }
    }
    return m;
}

const jf_stat *jf_bench_last_stat(const jf_context *ctx, const char *name)
{
    size_t i = jf_stats_count(ctx);
    while (i-- > 0)
        if (strcmp(jf_stats_at(ctx, i)->name, name) == 0)
            return jf_stats_at(ctx, i);
    return NULL;
}

/* `conv` without a file measures arbitrary weights: seeded, not rank 1,
 * summing to 1, so no separable shortcut applies. */
void jf_bench_arbitrary_weights(float *w, int k)
{
    uint64_t state = 0x2545F4914F6CDD1Dull;
    double sum = 0.0;
    int i;
    for (i = 0; i < k * k; i++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        w[i] = (float)((double)(state >> 40) / (double)(1u << 24) + 0.05);
        sum += w[i];
    }
    for (i = 0; i < k * k; i++)
        w[i] = (float)(w[i] / sum);
}

uint64_t jf_bench_random_bytes(unsigned char *p, size_t n, uint64_t state)
{
    size_t i;
    for (i = 0; i < n; i++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        p[i] = (unsigned char)(state >> 24);
    }
    return state;
}
