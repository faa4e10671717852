/*
 * bench_gpu: the seed report's sweep on the CUDA backend.
 *
 *   bench_gpu [--csv FILE] [--reps N] [--ncu] [--block WxH]
 *
 * Sizes 345x194, 493x277, 705x396, 1007x567, 1440x810 (the seed's, width x
 * height), 1920x1080 and 3840x2160; k = 3, 5, 7, 9, 11; median and
 * convolution (Gaussian weights, applied as a full k x k kernel), variants
 * global and shared; grey (the seed's) and, for the two largest sizes, RGB.
 *
 * Inputs are retina.jpg tiled to size (never zeros), resident on the device,
 * rotated among 4 buffers holding the same pixels.  Each cell: 3 warm-up calls, then N timed calls;
 * the kernel's CUDA-event time is read from the stats, and the median, min
 * and max are reported with the effective bandwidth BW = (R + W) / t
 * (padded input read once, output written once) and its share of the
 * theoretical bandwidth.  Each cell's output is checked once against the CPU
 * reference (median: identical; convolution: within 1 level).
 *
 * --ncu: one call per variant at 1920x1080 grey, k = 5 and 11, for Nsight
 * Compute to profile.
 */
#include "jetfilter.h"
#include "benchmarks/bench_util.h"
#include "pipeline/context.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROTATE 4

static void die(const char *what)
{
    fprintf(stderr, "bench_gpu: %s: %s\n", what, jf_last_error());
    exit(1);
}

int main(int argc, char **argv)
{
    static const int sizes[][2] = {{345, 194}, {493, 277}, {705, 396}, {1007, 567},
                                   {1440, 810}, {1920, 1080}, {3840, 2160}};
    static const int ks[] = {3, 5, 7, 9, 11};
    static const jf_variant variants[] = {JF_VARIANT_GLOBAL, JF_VARIANT_SHARED};
    jf_context_options go = {JF_BACKEND_CUDA, 0, 0, NULL, JF_MEMORY_COPY, 0.0};
    jf_context_options co = {JF_BACKEND_CPU, 0, 0, NULL, JF_MEMORY_AUTO, 0.0};
    jf_context *gpu, *cpu;
    jf_device_info dev;
    jf_picture photo;
    FILE *csv = NULL;
    int reps = 50, ncu = 0, bx = 0, by = 0, s, k, v, f, ch, r, a;
    double *t;

    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--csv") == 0 && a + 1 < argc) {
            csv = fopen(argv[++a], "w");
            if (!csv) { perror(argv[a]); return 1; }
        } else if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc) {
            reps = atoi(argv[++a]);
        } else if (strcmp(argv[a], "--ncu") == 0) {
            ncu = 1;
        } else if (strcmp(argv[a], "--block") == 0 && a + 1 < argc) {
            if (sscanf(argv[++a], "%dx%d", &bx, &by) != 2) { fprintf(stderr, "--block WxH\n"); return 2; }
        } else {
            fprintf(stderr, "usage: bench_gpu [--csv FILE] [--reps N] [--ncu] [--block WxH]\n");
            return 2;
        }
    }
    if (reps < 1)
        reps = 1;
    t = malloc(sizeof(double) * (size_t)reps);
    if (jf_context_create(&go, &gpu) != JF_OK) die("CUDA context");
    if (jf_context_create(&co, &cpu) != JF_OK) die("CPU context");
    if (jf_context_device(gpu, &dev) != JF_OK) die("device");
    if (jf_picture_read("samples/images/retina.jpg", &photo) != JF_OK) die("photo");
    printf("# %s, cc %d.%d, %d SMs, theoretical %.0f GB/s (%s); jetfilter %s; median of %d runs\n",
           dev.name, dev.cc_major, dev.cc_minor, dev.multiprocessors, dev.theoretical_gbps,
           dev.theoretical_source, jf_version(), reps);
    printf("%-10s %2s %-6s %-6s %2s %9s %9s %9s %9s %8s %7s %s\n", "size", "ch", "filter",
           "variant", "k", "pad_ms", "ms", "min", "max", "GB/s", "%peak", "check");
    if (csv)
        fprintf(csv, "device,width,height,channels,filter,variant,k,pad_ms,ms,min_ms,max_ms,"
                     "bytes_read,bytes_written,gbps,pct_theoretical,check\n");

    for (s = 0; s < 7; s++)
        for (ch = 1; ch <= 3; ch += 2) {
            jf_image h_src[ROTATE], d_src[ROTATE], d_dst = {0}, h_out = {0};
            if (ch == 3 && s < 5)
                continue;
            if (ncu && (s != 5 || ch != 1))
                continue;
            for (r = 0; r < ROTATE; r++) {
                /* the same pixels in ROTATE separate buffers: calls rotate among
                 * addresses (the recorded seed sweep was made this way) */
                if (jf_bench_tile(&photo.color, sizes[s][0], sizes[s][1], ch, 0, &h_src[r]) != JF_OK)
                    die("alloc");
                if (jf_image_alloc_on(gpu, &d_src[r], sizes[s][0], sizes[s][1], ch, JF_LOC_DEVICE) != JF_OK ||
                    jf_image_transfer(gpu, &h_src[r], &d_src[r]) != JF_OK)
                    die("upload");
            }
            if (jf_image_alloc_on(gpu, &d_dst, sizes[s][0], sizes[s][1], ch, JF_LOC_DEVICE) != JF_OK ||
                jf_image_alloc(&h_out, sizes[s][0], sizes[s][1], ch) != JF_OK)
                die("alloc");
            for (f = 0; f < 2; f++)
                for (k = 0; k < 5; k++) {
                    jf_kernel gauss;
                    jf_image want = {0};
                    if (ncu && ks[k] != 5 && ks[k] != 11)
                        continue;
                    if (jf_kernel_make(JF_KERNEL_GAUSS, ks[k], 0.0, &gauss) != JF_OK) die("kernel");
                    for (v = 0; v < 2; v++) {
                        jf_median_options mo = {ks[k], JF_BORDER_REPLICATE, variants[v], bx, by};
                        jf_conv_options cvo = {ks[k], gauss.weights, JF_BORDER_REPLICATE, variants[v], bx, by};
                        const char *fname = f == 0 ? "median" : "conv";
                        const jf_stat *st = NULL, *pad = NULL;
                        double pad_ms = 0;
                        int reps_here = ncu ? 1 : reps, warm = ncu ? 0 : 3, i, diff;
                        char check[16];
                        for (i = -warm; i < reps_here; i++) {
                            jf_image *in = &d_src[(i + warm) % ROTATE];
                            jf_stats_clear(gpu);
                            if ((f == 0 ? jf_median(gpu, in, &d_dst, &mo)
                                        : jf_convolve(gpu, in, &d_dst, &cvo)) != JF_OK)
                                die(fname);
                            st = jf_bench_last_stat(gpu, fname);
                            pad = jf_bench_last_stat(gpu, "pad");
                            if (i >= 0) {
                                t[i] = st->ms;
                                pad_ms += pad ? pad->ms : 0;
                            }
                        }
                        jf_sort_median(t, reps_here);
                        /* verify the last output (input copy (warm+reps-1) % ROTATE) */
                        {
                            jf_image *in = &h_src[(reps_here - 1 + warm) % ROTATE];
                            if (!want.data || v == 0) {
                                jf_image_free(&want);
                                if ((f == 0 ? jf_median(cpu, in, &want, &(jf_median_options){ks[k], JF_BORDER_REPLICATE, JF_VARIANT_CPU})
                                            : jf_convolve(cpu, in, &want, &(jf_conv_options){ks[k], gauss.weights, JF_BORDER_REPLICATE, JF_VARIANT_CPU})) != JF_OK)
                                    die("cpu reference");
                            }
                            if (jf_image_transfer(gpu, &d_dst, &h_out) != JF_OK) die("download");
                            diff = jf_bench_max_diff(&h_out, &want);
                            snprintf(check, sizeof check, "%s", diff == 0 ? "exact" : diff <= (f ? 1 : 0) ? "<=1" : "FAIL");
                        }
                        {
                            double ms = t[reps_here / 2];
                            double gbps = (double)(st->bytes_read + st->bytes_written) / (ms * 1e6);
                            char size[24];
                            snprintf(size, sizeof size, "%dx%d", sizes[s][0], sizes[s][1]);
                            printf("%-10s %2d %-6s %-6s %2d %9.4f %9.4f %9.4f %9.4f %8.1f %6.2f%% %s\n", size,
                                   ch, fname, jf_variant_name(variants[v]), ks[k], pad_ms / reps_here, ms,
                                   t[0], t[reps_here - 1], gbps, 100.0 * gbps / dev.theoretical_gbps, check);
                            if (csv)
                                fprintf(csv, "\"%s\",%d,%d,%d,%s,%s,%d,%.5f,%.5f,%.5f,%.5f,%llu,%llu,%.2f,%.3f,%s\n",
                                        dev.name, sizes[s][0], sizes[s][1], ch, fname,
                                        jf_variant_name(variants[v]), ks[k], pad_ms / reps_here, ms, t[0],
                                        t[reps_here - 1], (unsigned long long)st->bytes_read,
                                        (unsigned long long)st->bytes_written, gbps,
                                        100.0 * gbps / dev.theoretical_gbps, check);
                            fflush(stdout);
                        }
                    }
                    jf_image_free(&want);
                    jf_kernel_free(&gauss);
                }
            for (r = 0; r < ROTATE; r++) {
                jf_image_free(&h_src[r]);
                jf_image_free(&d_src[r]);
            }
            jf_image_free(&d_dst);
            jf_image_free(&h_out);
        }
    if (csv)
        fclose(csv);
    jf_picture_free(&photo);
    jf_context_destroy(gpu);
    jf_context_destroy(cpu);
    free(t);
    return 0;
}
