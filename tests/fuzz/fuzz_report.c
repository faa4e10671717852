/* libFuzzer harness: any bytes through the reader of `report merge`
 * (jobs/report_read.c), which splits a report into pieces by hand and reads
 * each file's record in place: never a crash or a read past the window;
 * the pieces it hands over are whole JSON values, the same ones whether or
 * not it reads the records; and a record it accepts is one Jansson parses
 * to an object with the same members the merge reads. */
#define _GNU_SOURCE
#include "jobs/report_read.h"

#include <math.h>
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

/* A string member as the reader decodes it: a lone \udcXX is U+E0XX. */
static void same_string(json_t *obj, const char *key, const char *got)
{
    json_t *v = json_object_get(obj, key);
    if (!got) {
        if (json_is_string(v))
            abort();
        return;
    }
    if (!json_is_string(v) || strcmp(json_string_value(v), got) != 0)
        abort();
}

static void same_number(json_t *obj, const char *key, int have, double got)
{
    json_t *v = json_object_get(obj, key);
    if (have && json_is_number(v) && json_number_value(v) != got)
        abort();
    if (!have && json_is_number(v) && strncmp(key, "psnr", 4) != 0 && strcmp(key, "width") &&
        strcmp(key, "height"))
        abort();
}

static int on_file(void *user, const char *text, size_t n, const report_record *r)
{
    tally *t = (tally *)user;
    char *copy;
    size_t i;
    if (n == 0)
        abort();
    if (r && (copy = (char *)malloc(n)) != NULL) {
        json_t *item;
        memcpy(copy, text, n); /* a fresh buffer: a read past n is caught */
        for (i = 0; i + 1 < n; i++) { /* the reader's reading of a lone \udcXX */
            unsigned long cp;
            char hex[5] = {0};
            if (copy[i] != '\\')
                continue;
            if (copy[i + 1] != 'u' || i + 6 > n) {
                i++;
                continue;
            }
            memcpy(hex, copy + i + 2, 4);
            cp = strtoul(hex, NULL, 16);
            if (cp >= 0xD800 && cp <= 0xDBFF && i + 12 <= n && copy[i + 6] == '\\')
                i += 6; /* a pair, or what Jansson refuses */
            else if (cp >= 0xDC00 && cp <= 0xDCFF)
                copy[i + 2] = 'e', copy[i + 3] = '0';
            i += 5;
        }
        item = json_loadb(copy, n, JSON_DISABLE_EOF_CHECK, NULL);
        if (!json_is_object(item))
            abort(); /* accepted here, refused there */
        same_string(item, "path", r->path);
        same_string(item, "path_b64", r->path_b64);
        same_string(item, "status", r->status);
        same_string(item, "error", r->error);
        same_number(item, "ssim_in", r->have_ssim_in, r->ssim_in);
        same_number(item, "ssim_out", r->have_ssim_out, r->ssim_out);
        if (r->have_psnr_in && !isinf(r->psnr_in))
            same_number(item, "psnr_in_db", 1, r->psnr_in);
        json_decref(item);
        free(copy);
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
