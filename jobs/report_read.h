/* Reading a --json report of denoise or noise (its own or a merged one) in
 * bounded memory (report_read.c), for the merge (report_merge.c). */
#ifndef JF_JOBS_REPORT_READ_H
#define JF_JOBS_REPORT_READ_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* What the merge reads of a file's record, without a JSON document: the
 * strings decoded (NULL when absent; valid during the callback), the
 * numbers with a flag each. */
typedef struct report_record {
    const char *path, *path_b64, *status, *error;
    int have_width, have_height;
    long long width, height;
    /* PSNRs: a number, or infinite (null beside "<key>_infinite": true,
     * or "inf" as reports before 1.7 wrote it) */
    int have_psnr_in, have_psnr_out, have_ssim_in, have_ssim_out;
    double psnr_in, psnr_out, ssim_in, ssim_out;
} report_record;

typedef struct report_callbacks {
    /* each top-level member but "files": the callback owns `value` (0 goes on) */
    int (*on_member)(void *user, const char *key, json_t *value);
    /* each element of "files", in order: its text as it stands in the file
     * (n bytes), checked to be one JSON object; with parse_files, what the
     * merge needs of it (else NULL) */
    int (*on_file)(void *user, const char *text, size_t n, const report_record *record);
    int parse_files;
} report_callbacks;

/* Read `path`; 0, or -1 with the reason in `why`. */
int report_read(const char *path, const report_callbacks *cb, void *user, char *why, size_t why_n);
/* The same from an open stream, read to its end (not closed). */
int report_read_stream(FILE *f, const report_callbacks *cb, void *user, char *why, size_t why_n);

/* The step the reading window grows by (16 bytes to 1 MB, the default): a
 * fuzzer sets a small one, which is faster there and slides the window
 * often. */
void report_read_set_chunk(size_t bytes);

#endif
