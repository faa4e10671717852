/*
 * bench_median_cpu: the CPU reference median on real photos, for comparison
 * with OpenCV's medianBlur (benchmarks/opencv_median.py runs the same cells).
 *
 *   bench_median_cpu [PHOTO] [THREADS] [REPS] [WxH] [fresh|same] [KMAX]
 *
 * The photo is tiled to each size (no zeros), converted to grey and RGB;
 * each cell runs REPS times after one warm-up and reports the median wall
 * time.  Border replicate, as medianBlur's.  The output is made once and
 * written again by every call; with `fresh` each call makes its own and
 * frees it, as a caller without an output of its own does.  KMAX: the
 * largest k (default every k to 63).
 */
#include "jetfilter.h"
#include "benchmarks/bench_util.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    static const int sizes[][2] = {{345, 194}, {1440, 810}, {1920, 1080}, {3840, 2160}};
    static const int ks[] = {3, 5, 7, 9, 11, 15, 21, 31, 41, 51, 63};
    const char *photo = argc > 1 ? argv[1] : "samples/images/retina.jpg";
    int threads = argc > 2 ? atoi(argv[2]) : 0;
    int reps = argc > 3 ? atoi(argv[3]) : 7;
    jf_context_options o = jf_context_defaults();
    jf_context *ctx;
    jf_picture pic;
    double *t = malloc(sizeof(double) * (size_t)reps);
    int s, k, ch, r, only_w = 0, only_h = 0;
    const int fresh = argc > 5 && strcmp(argv[5], "fresh") == 0;
    const int kmax = argc > 6 ? atoi(argv[6]) : 63;

    if (argc > 4 && sscanf(argv[4], "%dx%d", &only_w, &only_h) != 2) {
        fprintf(stderr, "bench_median_cpu: size %s: want WxH\n", argv[4]);
        return 2;
    }
    o.backend = JF_BACKEND_CPU;
    o.threads = threads;
    if (jf_picture_read(photo, &pic) != JF_OK || pic.color.channels != 3 ||
        jf_context_create(&o, &ctx) != JF_OK) {
        fprintf(stderr, "bench_median_cpu: %s\n", jf_last_error());
        return 1;
    }
    printf("# jetfilter %s CPU median, %d threads, photo %s, median of %d runs%s\n", jf_version(),
           jf_context_threads(ctx), photo, reps, fresh ? ", a new output each call" : "");
    printf("width,height,channels,k,ms\n");
    for (s = 0; s < (only_w ? 1 : 4); s++)
        for (ch = 1; ch <= 3; ch += 2) {
            jf_image src = {0}, dst = {0};
            const int w = only_w ? only_w : sizes[s][0], h = only_w ? only_h : sizes[s][1];
            if (jf_bench_tile(&pic.color, w, h, ch, 0, &src) != JF_OK) {
                fprintf(stderr, "bench_median_cpu: %s\n", jf_last_error());
                return 1;
            }
            for (k = 0; k < (int)(sizeof ks / sizeof ks[0]) && ks[k] <= kmax; k++) {
                jf_median_options mo = jf_median_defaults();
                mo.ksize = ks[k];
                mo.variant = JF_VARIANT_CPU;
                jf_median(ctx, &src, &dst, &mo); /* warm-up */
                for (r = 0; r < reps; r++) {
                    double t0;
                    if (fresh)
                        jf_image_free(&dst);
                    t0 = jf_now_ms();
                    jf_median(ctx, &src, &dst, &mo);
                    t[r] = jf_now_ms() - t0;
                }
                printf("%d,%d,%d,%d,%.3f\n", src.width, src.height, ch, ks[k],
                       jf_sort_median(t, reps));
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
