/* What the damaged-data check of the GPU's JPEG path costs a core: the
 * walk over the Huffman codes (io/jpeg_scan_check.c) against libjpeg-turbo
 * reading the file at an eighth of the size, on the same files, each way's
 * median of 5 passes, ms a file; and the verdicts of both.
 *   bench_jpeg_check FILE.jpg...
 * (scripts/gpu.sh codec-costs runs it on the GPU machine's files.) */
#define _POSIX_C_SOURCE 200809L
#include "core/util.h"
#include "io/io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    static const jf_jpeg_check_how ways[3] = {JF_JPEG_CHECK_LIBJPEG, JF_JPEG_CHECK_WALK,
                                              JF_JPEG_CHECK_FULL};
    static const char *const names[3] = {"libjpeg-turbo, an eighth", "walk", "check (walk, then libjpeg)"};
    unsigned char **data;
    size_t *size, bytes = 0;
    int i, w, pass, nfiles = argc - 1, clean[3] = {0, 0, 0};
    double t[3][5];
    if (nfiles < 1) {
        fprintf(stderr, "usage: bench_jpeg_check FILE.jpg...\n");
        return 2;
    }
    data = (unsigned char **)calloc((size_t)nfiles, sizeof *data);
    size = (size_t *)calloc((size_t)nfiles, sizeof *size);
    for (i = 0; i < nfiles; i++) {
        if (jf_read_file(argv[i + 1], (size_t)1 << 30, &data[i], &size[i]) != JF_OK) {
            fprintf(stderr, "bench_jpeg_check: %s: %s\n", argv[i + 1], jf_last_error());
            return 1;
        }
        bytes += size[i];
    }
    for (pass = 0; pass < 5; pass++)
        for (w = 0; w < 3; w++) {
            const double t0 = jf_now_ms();
            int ok = 0;
            for (i = 0; i < nfiles; i++)
                ok += jf_jpeg_check_entropy_how(data[i], size[i], ways[w]) == JF_OK;
            t[w][pass] = (jf_now_ms() - t0) / nfiles;
            clean[w] = ok;
        }
    printf("%d files, %.0f KB on average\n", nfiles, bytes / 1024.0 / nfiles);
    for (w = 0; w < 3; w++) {
        printf("%-28s %7.3f ms a file (%d of %d clean)\n", names[w], jf_sort_median(t[w], 5), clean[w],
               nfiles);
    }
    return 0;
}
