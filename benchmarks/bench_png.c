/*
 * bench_png: PNG writing at every zlib level and row filter, on real photos.
 *
 *   bench_png [--reps N] [--csv FILE] PHOTO...
 *
 * Each photo is decoded once; each (level, filter) cell encodes it N times
 * (default 5, after one warm-up) into memory and keeps the median wall time
 * and the size.  The table sums time and bytes over the photos and compares
 * both with level 6 + adaptive filtering (what jetfilter 1.0 wrote, and what
 * libpng does by default).  One thread: the batch runs one encoder per job.
 */
#include "jetfilter.h"
#include "core/util.h"
#include "io/io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEVELS 10

typedef struct cell {
    double ms;    /* summed over the photos */
    double bytes; /* summed over the photos */
} cell;

static int encode_timed(const jf_picture *pic, int level, int filter, int reps, double *times,
                        double *ms, size_t *bytes)
{
    jf_encode_options e = jf_encode_defaults();
    int r;
    e.format = JF_FORMAT_PNG;
    e.png_level = level;
    e.png_filter = filter;
    for (r = -1; r < reps; r++) { /* r = -1: the warm-up */
        unsigned char *out = NULL;
        double t0 = jf_now_ms();
        if (jf_picture_encode(pic, &e, &out, bytes) != JF_OK)
            return -1;
        if (r >= 0)
            times[r] = jf_now_ms() - t0;
        free(out);
    }
    *ms = jf_sort_median(times, reps);
    return 0;
}

int main(int argc, char **argv)
{
    static cell cells[LEVELS][JF_PNG_FILTER_COUNT];
    int reps = 5, i, level, f, photos = 0;
    const char *csv_path = NULL;
    double pixels = 0, *times;
    FILE *csv = NULL;
    for (i = 1; i < argc && argv[i][0] == '-'; i += 2) {
        if (i + 1 < argc && strcmp(argv[i], "--reps") == 0)
            reps = atoi(argv[i + 1]);
        else if (i + 1 < argc && strcmp(argv[i], "--csv") == 0)
            csv_path = argv[i + 1];
        else
            break;
    }
    if (i >= argc || reps < 1) {
        fprintf(stderr, "usage: bench_png [--reps N] [--csv FILE] PHOTO...\n");
        return 2;
    }
    if (csv_path && !(csv = fopen(csv_path, "w"))) {
        perror(csv_path);
        return 1;
    }
    if (csv)
        fprintf(csv, "photo,width,height,channels,level,filter,ms,bytes\n");
    times = malloc(sizeof(double) * (size_t)reps);
    for (; i < argc; i++) {
        jf_picture pic;
        if (jf_picture_read(argv[i], &pic) != JF_OK) {
            fprintf(stderr, "bench_png: %s\n", jf_last_error());
            return 1;
        }
        pixels += (double)pic.color.width * pic.color.height * pic.color.channels;
        photos++;
        for (level = 0; level < LEVELS; level++)
            for (f = JF_PNG_FILTER_NONE; f < JF_PNG_FILTER_COUNT; f++) {
                double ms;
                size_t bytes;
                if (encode_timed(&pic, level, f, reps, times, &ms, &bytes) != 0) {
                    fprintf(stderr, "bench_png: %s: %s\n", argv[i], jf_last_error());
                    return 1;
                }
                cells[level][f].ms += ms;
                cells[level][f].bytes += (double)bytes;
                if (csv)
                    fprintf(csv, "%s,%d,%d,%d,%d,%s,%.3f,%zu\n", argv[i], pic.color.width,
                            pic.color.height, pic.color.channels, level, jf_png_filter_names[f], ms,
                            bytes);
            }
        jf_picture_free(&pic);
    }
    printf("# %d photos, %.1f Msamples; median of %d encodes; time and size summed over the photos\n",
           photos, pixels / 1e6, reps);
    printf("# vs: against level 6 + adaptive (jetfilter 1.0's and libpng's default)\n");
    printf("%-5s %-9s %10s %9s %10s %8s %8s\n", "level", "filter", "ms", "MB/s", "bytes", "time vs",
           "size vs");
    for (level = 0; level < LEVELS; level++)
        for (f = JF_PNG_FILTER_NONE; f < JF_PNG_FILTER_COUNT; f++) {
            const cell *c = &cells[level][f], *ref = &cells[6][JF_PNG_FILTER_ADAPTIVE];
            printf("%-5d %-9s %10.2f %9.1f %10.0f %7.2fx %7.2fx\n", level, jf_png_filter_names[f],
                   c->ms, pixels / 1e3 / c->ms, c->bytes, c->ms / ref->ms, c->bytes / ref->bytes);
        }
    free(times);
    if (csv)
        fclose(csv);
    return 0;
}
