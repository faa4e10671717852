/* jetfilter report merge: the --json reports of the shards of one run, read
 * back (with Jansson), checked to share their settings and inputs and to
 * cover every file exactly once, and combined into one summary and report. */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "cli/json.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct report {
    const char *name;
    json_t *settings, *per_shard; /* kept (the rest of the document is not) */
    const char *command_text, *backend_text, *operation_text, *version_text;
    json_t *keep;                 /* owns the strings above */
    int index, count, files_in_inputs, files, ignored, passed;
    char digest[24];
    double seconds, mpix;
} report;

typedef struct file_key {
    char *path;
    int report;
} file_key;

typedef struct totals {
    int files, ok, failed, skipped;
    cli_ref_means refs;
} totals;

static int bad(const char *name, const char *why)
{
    cli_log("jetfilter report: %s: not a jetfilter --json report of denoise or noise (%s)", name, why);
    return -1;
}

static int int_of(json_t *obj, const char *key, int *out)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 2000000000)
        return 0;
    *out = (int)json_integer_value(v);
    return 1;
}

/* A PSNR as the reports write it: a number, or "inf" for identical images. */
static int psnr_of(json_t *item, const char *key, double *out)
{
    json_t *v = json_object_get(item, key);
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return 1;
    }
    if (json_is_string(v) && strcmp(json_string_value(v), "inf") == 0) {
        *out = INFINITY;
        return 1;
    }
    return 0;
}

static void add_reference(totals *t, json_t *item)
{
    double pin, pout, sin, sout;
    if (!psnr_of(item, "psnr_in_db", &pin) || !psnr_of(item, "psnr_out_db", &pout) ||
        !json_is_number(json_object_get(item, "ssim_in")) ||
        !json_is_number(json_object_get(item, "ssim_out")))
        return;
    sin = json_number_value(json_object_get(item, "ssim_in"));
    sout = json_number_value(json_object_get(item, "ssim_out"));
    cli_ref_means_add(&t->refs, pin, pout, sin, sout);
}

/* Read one report: its header into `r`, its files' paths into `keys`, the
 * files' records as text into `out` (when a merged report is wanted). */
static int read_report(const char *name, int ri, report *r, file_key **keys, size_t *nkeys,
                       size_t *capkeys, totals *t, json_buf *out, int *failures_listed)
{
    json_error_t err;
    json_t *root = json_load_file(name, JSON_REJECT_DUPLICATES, &err), *files, *summary, *shard,
           *item;
    size_t i;
    char why[256];
    memset(r, 0, sizeof *r);
    r->name = name;
    if (!root) {
        snprintf(why, sizeof why, "line %d: %s", err.line, err.text);
        return bad(name, why);
    }
    files = json_object_get(root, "files");
    summary = json_object_get(root, "summary");
    shard = json_object_get(root, "shard");
    r->settings = json_object_get(root, "settings");
    r->per_shard = json_object_get(shard, "files_per_shard");
    r->keep = root;
    r->command_text = json_string_value(json_object_get(root, "command"));
    r->backend_text = json_string_value(json_object_get(root, "backend"));
    r->operation_text = json_string_value(json_object_get(root, "operation"));
    r->version_text = json_string_value(json_object_get(root, "jetfilter"));
    if (!json_is_object(root) || !r->version_text || !r->command_text || !json_is_array(files) ||
        !json_is_object(summary))
        return bad(name, "no jetfilter, command, files or summary");
    if (!json_is_object(r->settings) || !json_is_object(shard) || !json_is_array(r->per_shard))
        return bad(name, "no settings or shard record: written by jetfilter before 1.2? run it again");
    if (!int_of(shard, "index", &r->index) || !int_of(shard, "count", &r->count) || r->count < 1 ||
        r->index >= r->count || (int)json_array_size(r->per_shard) != r->count ||
        !int_of(shard, "files_in_inputs", &r->files_in_inputs) ||
        !json_is_string(json_object_get(shard, "inputs_digest")))
        return bad(name, "its shard record is incomplete");
    snprintf(r->digest, sizeof r->digest, "%s", json_string_value(json_object_get(shard, "inputs_digest")));
    int_of(summary, "ignored", &r->ignored);
    int_of(summary, "passed_over", &r->passed);
    r->seconds = json_number_value(json_object_get(summary, "seconds"));
    json_array_foreach(files, i, item) {
        const char *path = json_string_value(json_object_get(item, "path"));
        const char *status = json_string_value(json_object_get(item, "status"));
        if (!path || !status)
            return bad(name, "a file without path or status");
        if (*nkeys == *capkeys) {
            size_t cap = *capkeys ? *capkeys * 2 : 1024;
            file_key *grown = (file_key *)realloc(*keys, cap * sizeof *grown);
            if (!grown)
                return bad(name, "out of memory");
            *keys = grown;
            *capkeys = cap;
        }
        if (!((*keys)[*nkeys].path = strdup(path)))
            return bad(name, "out of memory");
        (*keys)[(*nkeys)++].report = ri;
        r->files++;
        t->files++;
        if (strcmp(status, "ok") == 0) {
            int w = 0, h = 0;
            t->ok++;
            if (int_of(item, "width", &w) && int_of(item, "height", &h))
                r->mpix += (double)w * h / 1e6;
            add_reference(t, item);
        } else if (strcmp(status, "skipped") == 0) {
            t->skipped++;
        } else {
            const char *error = json_string_value(json_object_get(item, "error"));
            t->failed++;
            if (!cli_quiet && (*failures_listed)++ < 20)
                cli_log("  failed: %s: %s", path, error ? error : "(no reason given)");
        }
        if (out) {
            char *text = json_dumps(item, JSON_COMPACT | JSON_ENSURE_ASCII);
            if (!text)
                return bad(name, "out of memory");
            json_key(out, NULL);
            json_raw(out, text);
            free(text);
        }
    }
    /* keep what the checks need; free the files */
    json_object_del(root, "files");
    return 0;
}

static int cmp_key(const void *a, const void *b)
{
    const file_key *x = (const file_key *)a, *y = (const file_key *)b;
    int c = strcmp(x->path, y->path);
    return c ? c : x->report - y->report;
}

/* Name every setting that differs between two reports. */
static void settings_differ(const report *a, const report *b)
{
    const char *key;
    json_t *va, *vb;
    cli_log("jetfilter report: %s and %s come from different settings:", a->name, b->name);
    json_object_foreach(a->settings, key, va) {
        vb = json_object_get(b->settings, key);
        if (!vb || !json_equal(va, vb)) {
            char *ta = json_dumps(va, JSON_COMPACT | JSON_ENCODE_ANY);
            char *tb = vb ? json_dumps(vb, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
            cli_log("  %s: %s against %s", key, ta ? ta : "?", tb ? tb : "(not set)");
            free(ta);
            free(tb);
        }
    }
    json_object_foreach(b->settings, key, vb)
        if (!json_object_get(a->settings, key))
            cli_log("  %s: (not set) against the other's", key);
}

/* The shards: one report each, all of them, from one walk of the inputs. */
static int check_shards(report *r, int n)
{
    int problems = 0, i, k, count = r[0].count;
    int *owner;
    for (i = 1; i < n; i++)
        if (r[i].count != count) {
            cli_log("jetfilter report: %s is shard %d of %d, %s shard %d of %d: one run has one "
                    "number of shards", r[i].name, r[i].index, r[i].count, r[0].name, r[0].index, count);
            return 1;
        }
    if (!(owner = (int *)malloc(sizeof *owner * (size_t)count)))
        return 1;
    for (k = 0; k < count; k++)
        owner[k] = -1;
    for (i = 0; i < n; i++) {
        if (owner[r[i].index] >= 0) {
            cli_log("jetfilter report: shard %d of %d given twice: %s and %s", r[i].index, count,
                    r[owner[r[i].index]].name, r[i].name);
            problems++;
        } else {
            owner[r[i].index] = i;
        }
        if (strcmp(r[i].digest, r[0].digest) != 0 || r[i].files_in_inputs != r[0].files_in_inputs ||
            !json_equal(r[i].per_shard, r[0].per_shard)) {
            cli_log("jetfilter report: %s found %d files in the inputs, %s found %d%s: the inputs "
                    "changed between the shards' runs (run the shards on one unchanging tree)",
                    r[i].name, r[i].files_in_inputs, r[0].name, r[0].files_in_inputs,
                    r[i].files_in_inputs == r[0].files_in_inputs ? " with other names" : "");
            problems++;
        }
    }
    for (k = 0; k < count; k++) {
        json_int_t expected = json_integer_value(json_array_get(r[0].per_shard, (size_t)k));
        if (owner[k] < 0) {
            if (problems++ < 50)
                cli_log("jetfilter report: shard %d of %d: no report (%lld file%s missing)", k,
                        count, (long long)expected, expected == 1 ? "" : "s");
        } else if (r[owner[k]].files != expected) {
            cli_log("jetfilter report: %s: shard %d of %d lists %d files, the inputs hold %lld "
                    "for it", r[owner[k]].name, k, count, r[owner[k]].files, (long long)expected);
            problems++;
        }
    }
    free(owner);
    return problems;
}

static int check_paths(file_key *keys, size_t n, const report *r)
{
    size_t i;
    int twice = 0;
    qsort(keys, n, sizeof *keys, cmp_key);
    for (i = 1; i < n; i++)
        if (strcmp(keys[i].path, keys[i - 1].path) == 0) {
            if (twice++ < 50)
                cli_log("jetfilter report: %s counted twice (%s and %s)", keys[i].path,
                        r[keys[i - 1].report].name, r[keys[i].report].name);
        }
    if (twice > 50)
        cli_log("jetfilter report: ... %d files counted twice in all", twice);
    return twice;
}

static void write_merged(const char *target, report *r, int n, const totals *t, json_buf *items,
                         double seconds, double seconds_sum, double mpix, int complete)
{
    json_buf j = {0};
    char *settings = json_dumps(r[0].settings, JSON_COMPACT | JSON_ENSURE_ASCII);
    const char *backend = r[0].backend_text;
    int i;
    for (i = 1; i < n; i++)
        if (!backend || !r[i].backend_text || strcmp(backend, r[i].backend_text) != 0)
            backend = "mixed";
    json_report_open(&j, r[0].command_text);
    json_str(&j, "backend", backend);
    if (r[0].operation_text)
        json_str(&j, "operation", r[0].operation_text);
    json_key(&j, "settings");
    json_raw(&j, settings ? settings : "{}");
    json_open(&j, "shard", '{');
    json_int(&j, "index", 0);
    json_int(&j, "count", 1);
    json_str(&j, "source", "report merge");
    json_int(&j, "files_in_inputs", r[0].files_in_inputs);
    json_open(&j, "files_per_shard", '[');
    json_int(&j, NULL, t->files);
    json_close(&j, ']');
    json_str(&j, "inputs_digest", r[0].digest);
    json_open(&j, "merged", '[');
    for (i = 0; i < n; i++) {
        json_open(&j, NULL, '{');
        json_path(&j, "report", r[i].name);
        json_int(&j, "index", r[i].index);
        json_int(&j, "count", r[i].count);
        json_num(&j, "seconds", r[i].seconds);
        json_close(&j, '}');
    }
    json_close(&j, ']');
    json_close(&j, '}');
    json_key(&j, "files");
    json_raw(&j, "[");
    json_raw(&j, items->data ? items->data : "");
    json_raw(&j, "]");
    j.need_comma = 1;
    json_open(&j, "summary", '{');
    json_int(&j, "files", t->files);
    json_int(&j, "ok", t->ok);
    json_int(&j, "failed", t->failed);
    json_int(&j, "skipped", t->skipped);
    json_int(&j, "ignored", r[0].ignored);
    json_int(&j, "passed_over", r[0].passed);
    json_num(&j, "seconds", seconds);
    json_num(&j, "seconds_all_shards", seconds_sum);
    json_num(&j, "mpix", mpix);
    json_num(&j, "mpix_per_s", seconds > 0 ? mpix / seconds : 0.0);
    json_str(&j, "complete", complete ? "yes" : "no");
    cli_ref_means_json(&j, &t->refs);
    json_close(&j, '}');
    json_close(&j, '}');
    json_raw(&j, "\n");
    if (j.fail || !cli_json_write(target, j.data, j.len))
        cli_log("jetfilter report: %s: %s", target, j.fail ? "out of memory" : jf_last_error());
    free(settings);
    free(j.data);
}

int cli_report(cli_settings *s)
{
    const int n = s->input_count - 1;
    report *r;
    file_key *keys = NULL;
    size_t nkeys = 0, capkeys = 0, k;
    totals t;
    json_buf items = {0};
    int i, problems = 0, listed = 0;
    double seconds = 0, seconds_sum = 0, mpix = 0;

    if (s->input_count < 1 || strcmp(s->inputs[0], "merge") != 0) {
        fprintf(stderr, "jetfilter report: want 'report merge REPORT.json...' (see jetfilter report --help)\n");
        return JF_EXIT_USAGE;
    }
    if (n < 1) {
        fprintf(stderr, "jetfilter report merge: name the --json reports to merge\n");
        return JF_EXIT_USAGE;
    }
    {
        cli_outputs o = {"report merge", s->inputs + 1, n, {{"-o", s->output, CLI_OUT_REPORT}}, 1,
                         s->force};
        if (cli_outputs_check(&o) != 0)
            return JF_EXIT_USAGE;
    }
    if (!(r = (report *)calloc((size_t)n, sizeof *r)))
        return JF_EXIT_FAILED;
    memset(&t, 0, sizeof t);
    for (i = 0; i < n && !problems; i++)
        if (read_report(s->inputs[i + 1], i, &r[i], &keys, &nkeys, &capkeys, &t,
                        s->output ? &items : NULL, &listed) != 0)
            problems++;
    if (!problems) {
        for (i = 1; i < n; i++) {
            if (strcmp(r[i].command_text, r[0].command_text) != 0) {
                cli_log("jetfilter report: %s is a report of %s, %s of %s", r[i].name,
                        r[i].command_text, r[0].name, r[0].command_text);
                problems++;
            } else if (!json_equal(r[i].settings, r[0].settings)) {
                settings_differ(&r[0], &r[i]);
                problems++;
            } else if (strcmp(r[i].version_text, r[0].version_text) != 0 && !cli_quiet) {
                cli_log("jetfilter report: note: %s was written by jetfilter %s, %s by %s",
                        r[i].name, r[i].version_text, r[0].name, r[0].version_text);
            }
        }
        if (!problems)
            problems += check_shards(r, n);
        problems += check_paths(keys, nkeys, r);
        for (i = 0; i < n; i++) {
            seconds = r[i].seconds > seconds ? r[i].seconds : seconds;
            seconds_sum += r[i].seconds;
            mpix += r[i].mpix;
        }
        if (!cli_quiet) {
            cli_log("jetfilter report: %d report%s, %d shard%s of %d: %d files: %d ok, %d failed, "
                    "%d skipped; %.1f MPix, longest shard %.2f s (%.1f MPix/s together), %.2f s "
                    "in all shards", n, n == 1 ? "" : "s", n, n == 1 ? "" : "s", r[0].count,
                    t.files, t.ok, t.failed, t.skipped, mpix, seconds,
                    seconds > 0 ? mpix / seconds : 0.0, seconds_sum);
            cli_ref_means_log(&t.refs);
            if (problems)
                cli_log("jetfilter report: the reports do not cover every file exactly once");
        }
        if (s->output && !items.fail)
            write_merged(s->output, r, n, &t, &items, seconds, seconds_sum, mpix, problems == 0);
    }
    for (i = 0; i < n; i++)
        json_decref(r[i].keep);
    for (k = 0; k < nkeys; k++)
        free(keys[k].path);
    free(keys);
    free(items.data);
    free(r);
    return problems || t.failed ? JF_EXIT_FAILED : JF_EXIT_OK;
}
