/* libFuzzer harness: any bytes through the reader of `report merge`
 * (cli/report_read.c), which splits a report into pieces by hand before
 * Jansson sees them: never a crash or a read past the window, and the
 * pieces it hands over are whole JSON values, the same ones whether or not
 * it parses them itself. */
#define _GNU_SOURCE
#include "cli/report_read.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct tally {
    size_t members, files;
} tally;

static int on_member(void *user, const char *key, json_t *value)
{
    tally *t = (tally *)user;
    if (!key || !value)
        abort();
    json_decref(value);
    t->members++;
    return 0;
}

static int on_file(void *user, const char *text, size_t n, json_t *item)
{
    tally *t = (tally *)user;
    char *copy;
    if (n == 0)
        abort();
    if (item) { /* the piece alone parses to what the reader found */
        copy = (char *)malloc(n);
        if (copy) {
            json_t *again;
            memcpy(copy, text, n); /* a fresh buffer: a read past n is caught */
            again = json_loadb(copy, n, JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK, NULL);
            if (again && !json_equal(again, item))
                abort();
            json_decref(again);
            free(copy);
        }
    }
    t->files++;
    return 0;
}

static int read_all(const uint8_t *data, size_t size, int parse, tally *t)
{
    report_callbacks cb = {on_member, on_file, parse};
    char why[256];
    FILE *f = fmemopen((void *)data, size, "rb");
    int rc;
    if (!f)
        return -2;
    memset(t, 0, sizeof *t);
    rc = report_read_stream(f, &cb, t, why, sizeof why);
    fclose(f);
    if (rc != 0 && !why[0])
        abort(); /* a refusal always says why */
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tally parsed, raw;
    int a, b;
    if (size == 0)
        return 0;
    report_read_set_chunk(64);
    a = read_all(data, size, 1, &parsed);
    b = read_all(data, size, 0, &raw);
    if (a == 0 && (b != 0 || raw.files != parsed.files || raw.members != parsed.members))
        abort(); /* what parses as pieces also splits into the same pieces */
    return 0;
}
