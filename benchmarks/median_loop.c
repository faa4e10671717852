/*
 * One thread, one size: jf_median on the CPU in a loop, its output kept
 * (no allocation, no page faults in the timing), the min and median of
 * the calls; for comparing builds of the CPU median where the image sits
 * in the caches (docs/kernels/studies.md, "k = 3: two output rows at once").
 *
 *   build-cpu/median_loop W H CHANNELS K [CALLS] [DEPTH] [PHOTO]   (a CMake target)
 *
 * Pixels from a fixed linear congruential sequence, or (8-bit) a photo's
 * tiled over the size, its first CHANNELS channels (the large-k medians'
 * cost depends on how the median moves, which noise makes its worst);
 * prints a checksum of the output, so two builds can be seen to agree.
 */
#include <jetfilter.h>

#include "core/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    jf_context_options co = jf_context_defaults();
    jf_median_options mo = jf_median_defaults();
    jf_context *ctx;
    jf_image src = {0}, dst = {0};
    double *t;
    uint64_t sum = 0;
    unsigned s = 1;
    int w, h, ch, calls, depth, r;
    size_t x, y, row;
    if (argc < 5) {
        fprintf(stderr, "usage: %s W H CHANNELS K [CALLS] [DEPTH] [PHOTO]\n", argv[0]);
        return 2;
    }
    w = atoi(argv[1]);
    h = atoi(argv[2]);
    ch = atoi(argv[3]);
    mo.ksize = atoi(argv[4]);
    calls = argc > 5 ? atoi(argv[5]) : 40;
    depth = argc > 6 ? atoi(argv[6]) : 8;
    co.backend = JF_BACKEND_CPU;
    co.threads = 1;
    if (calls < 1 || jf_context_create(&co, &ctx) != JF_OK ||
        jf_image_alloc_as(&src, w, h, ch, depth == 16 ? JF_SAMPLE_U16 : JF_SAMPLE_U8) != JF_OK ||
        jf_image_alloc_as(&dst, w, h, ch, src.sample) != JF_OK || !(t = malloc(sizeof *t * calls))) {
        fprintf(stderr, "median_loop: %s\n", jf_last_error());
        return 1;
    }
    row = (size_t)w * ch * (depth == 16 ? 2 : 1);
    if (argc > 7 && depth == 8) {
        jf_picture pic;
        const jf_image *p = &pic.color;
        if (jf_picture_read(argv[7], &pic) != JF_OK || p->channels < ch) {
            fprintf(stderr, "median_loop: %s: %s\n", argv[7], jf_last_error());
            return 1;
        }
        for (y = 0; y < (size_t)h; y++)
            for (x = 0; x < (size_t)w * ch; x++)
                src.data[y * src.stride + x] =
                    p->data[(y % (size_t)p->height) * p->stride +
                            (x / ch % (size_t)p->width) * p->channels + x % ch];
        jf_picture_free(&pic);
    } else {
        for (y = 0; y < (size_t)h; y++)
            for (x = 0; x < row; x++) {
                s = s * 1103515245u + 12345u;
                src.data[y * src.stride + x] = (unsigned char)(s >> 16);
            }
    }
    for (r = -3; r < calls; r++) {
        const double t0 = jf_now_ms();
        if (jf_median(ctx, &src, &dst, &mo) != JF_OK) {
            fprintf(stderr, "median_loop: %s\n", jf_last_error());
            return 1;
        }
        if (r >= 0)
            t[r] = jf_now_ms() - t0;
    }
    jf_sort_median(t, calls);
    for (y = 0; y < (size_t)h; y++)
        for (x = 0; x < row; x++)
            sum = sum * 31 + dst.data[y * dst.stride + x];
    printf("%dx%d, %d channel(s), k = %d, %d-bit: min %.4f ms, median %.4f ms (output %016llx)\n", w, h, ch,
           mo.ksize, depth, t[0], t[calls / 2], (unsigned long long)sum);
    free(t);
    jf_image_free(&src);
    jf_image_free(&dst);
    jf_context_destroy(ctx);
    return 0;
}
