/* Internal to the CLI: reading a --json report of denoise or noise (its
 * own or a merged one) in bounded memory (report_read.c). */
#ifndef JF_CLI_REPORT_READ_H
#define JF_CLI_REPORT_READ_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

typedef struct report_callbacks {
    /* each top-level member but "files": the callback owns `value` (0 goes on) */
    int (*on_member)(void *user, const char *key, json_t *value);
    /* each element of "files", in order: its text as it stands in the file
     * (n bytes), and parsed when parse_files is set (else NULL; freed after) */
    int (*on_file)(void *user, const char *text, size_t n, json_t *item);
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
