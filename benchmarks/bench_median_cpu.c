/*
 * bench_median_cpu: the CPU reference median on real photos, for comparison
 * with OpenCV's medianBlur (benchmarks/opencv_median.py runs the same cells).
 *
 *   bench_median_cpu [PHOTO] [THREADS] [REPS]
 *
 * The photo is tiled to each size (no zeros), converted to grey and RGB;
 * each cell runs REPS times after one warm-up and reports the median wall
 * time.  Border replicate, as medianBlur's.
 */
#include "jetfilter.h"
#include "pipeline/context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static jf_image tiled(const jf_image *src, int w, int h, int ch)
{
    jf_image img = {0};
    int x, y, c;
    if (jf_image_alloc(&img, w, h, ch) != JF_OK)
        exit(1);
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++) {
            const unsigned char *p = src->data + (size_t)(y % src->height) * src->stride +
                                     (size_t)(x % src->width) * src->channels;
            for (c = 0; c < ch; c++)
                img.data[(size_t)y * img.stride + (size_t)x * ch + c] =
                    ch == 1 ? (unsigned char)((p[0] + p[1] + p[2]) / 3) : p[c];
        }
    return img;
}

int main(int argc, char **argv)
{
    static const int sizes[][2] = {{345, 194}, {1440, 810}, {1920, 1080}, {3840, 2160}};
    static const int ks[] = {3, 5, 7, 9, 11, 15, 21, 31};
    const char *photo = argc > 1 ? argv[1] : "samples/images/retina.jpg";
    int threads = argc > 2 ? atoi(argv[2]) : 0;
    int reps = argc > 3 ? atoi(argv[3]) : 7;
    jf_context_options o = {JF_BACKEND_CPU, 0, threads, NULL};
    jf_context *ctx;
    jf_picture pic;
    double *t = malloc(sizeof(double) * (size_t)reps);
    int s, k, ch, r;

    if (jf_picture_read(photo, &pic) != JF_OK || pic.color.channels != 3 ||
        jf_context_create(&o, &ctx) != JF_OK) {
        fprintf(stderr, "bench_median_cpu: %s\n", jf_last_error());
        return 1;
    }
    printf("# jetfilter %s CPU median, %d threads, photo %s, median of %d runs\n", jf_version(),
           jf_context_threads(ctx), photo, reps);
    printf("width,height,channels,k,ms\n");
    for (s = 0; s < 4; s++)
        for (ch = 1; ch <= 3; ch += 2) {
            jf_image src = tiled(&pic.color, sizes[s][0], sizes[s][1], ch), dst = {0};
            for (k = 0; k < (int)(sizeof ks / sizeof ks[0]); k++) {
                jf_median_options mo = {ks[k], JF_BORDER_REPLICATE, JF_VARIANT_CPU};
                jf_median(ctx, &src, &dst, &mo); /* warm-up */
                for (r = 0; r < reps; r++) {
                    double t0 = jf_now_ms();
                    jf_median(ctx, &src, &dst, &mo);
                    t[r] = jf_now_ms() - t0;
                }
                qsort(t, (size_t)reps, sizeof *t, cmp_double);
                printf("%d,%d,%d,%d,%.3f\n", src.width, src.height, ch, ks[k], t[reps / 2]);
                fflush(stdout);
            }
            jf_image_free(&src);
            jf_image_free(&dst);
        }
    jf_picture_free(&pic);
    jf_context_destroy(ctx);
    free(t);
    return 0;
}
