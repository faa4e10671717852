/*
 * Merging reports (`jetfilter report merge`, jf_job "report"): the --json
 * reports of the shards of one run, checked to share their settings and
 * inputs and to cover every file exactly once, and combined into one
 * summary and report.
 *
 * Bounded memory whatever the number of files: each report is read a piece
 * at a time (report_read.c); what the checks keep of a file is a 16-byte
 * digest of its name in a hash set (duplicates found as they come); the
 * merged report is written in a second pass that copies each file's record
 * as it stands.
 */
#define _POSIX_C_SOURCE 200809L
#include "jobs/jobs.h"
#include "jobs/json.h"
#include "jobs/report_read.h"
#include "io/io.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct report {
    const char *name;
    json_t *head;         /* the top-level members but "files" */
    json_t *settings, *per_shard;
    const char *command_text, *backend_text, *operation_text, *version_text;
    int index, count, files_in_inputs, files, ignored, earlier, passed;
    char digest[24];
    double seconds, mpix;
} report;

/* A set of 16-byte digests of file names, with the report each came from. */
typedef struct entry {
    uint64_t a, b; /* b == 0 (and a == 0): empty */
    int report;
    int copied;    /* pass 2: its record is in the merged report */
} entry;

typedef struct digests {
    entry *slots;
    size_t cap, count;
} digests;

typedef struct merge {
    report *r;
    int n;
    digests seen;
    int twice, failures_listed;
    int files, ok, failed, skipped;
    job_ref_means refs;
    FILE *out;            /* pass 2: the merged report */
    long long written;
    int current;
    char why[256];        /* what a callback refused */
} merge;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* 128 bits of a name: two 64-bit FNV-1a hashes from different bases,
 * each mixed (a collision among a billion names: about 1 in 10^20). */
static void digest_of(const char *s, uint64_t *a, uint64_t *b)
{
    uint64_t x = 0xCBF29CE484222325ull, y = 0x84222325CBF29CE4ull;
    for (; *s; s++) {
        x = (x ^ (unsigned char)*s) * 0x100000001B3ull;
        y = (y ^ (unsigned char)*s) * 0x100000001B3ull + 0x9E3779B97F4A7C15ull;
    }
    *a = mix(x);
    *b = mix(y) | 1; /* never 0: 0 marks an empty slot */
}

static entry *digests_find(const digests *d, uint64_t a, uint64_t b)
{
    size_t i;
    if (!d->cap)
        return NULL;
    for (i = a & (d->cap - 1); d->slots[i].b; i = (i + 1) & (d->cap - 1))
        if (d->slots[i].a == a && d->slots[i].b == b)
            return &d->slots[i];
    return NULL;
}

/* Add a digest; the report that had it first when it was there already
 * (else -1), or -2 out of memory. */
static int digests_add(digests *d, uint64_t a, uint64_t b, int from)
{
    size_t i;
    if (2 * (d->count + 1) > d->cap) {
        digests g = {NULL, d->cap ? 2 * d->cap : 4096, 0};
        if (!(g.slots = (entry *)calloc(g.cap, sizeof *g.slots)))
            return -2;
        for (i = 0; i < d->cap; i++)
            if (d->slots[i].b)
                digests_add(&g, d->slots[i].a, d->slots[i].b, d->slots[i].report);
        free(d->slots);
        *d = g;
    }
    for (i = a & (d->cap - 1); d->slots[i].b; i = (i + 1) & (d->cap - 1))
        if (d->slots[i].a == a && d->slots[i].b == b)
            return d->slots[i].report;
    d->slots[i].a = a;
    d->slots[i].b = b;
    d->slots[i].report = from;
    d->count++;
    return -1;
}

static int bad(const char *name, const char *why)
{
    job_error("jetfilter report: %s: not a jetfilter --json report of denoise or noise (%s)", name, why);
    return -1;
}

static int refuse(merge *m, const char *why)
{
    snprintf(m->why, sizeof m->why, "%s", why);
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

static void add_reference(merge *m, const report_record *r)
{
    if (r->have_psnr_in && r->have_psnr_out && r->have_ssim_in && r->have_ssim_out)
        job_ref_means_add(&m->refs, r->psnr_in, r->psnr_out, r->ssim_in, r->ssim_out);
}

static int on_member(void *user, const char *key, json_t *value)
{
    merge *m = (merge *)user;
    return json_object_set_new(m->r[m->current].head, key, value) == 0 ? 0 : -1;
}

/* Pass 1: each file counted, its name into the set, its results summed. */
static int on_file(void *user, const char *text, size_t n, const report_record *item)
{
    merge *m = (merge *)user;
    report *r = &m->r[m->current];
    const char *path = item->path, *raw = item->path_b64, *status = item->status;
    uint64_t a, b;
    int first;
    (void)text, (void)n;
    if (!path || !status)
        return refuse(m, "a file without path or status");
    digest_of(raw ? raw : path, &a, &b); /* a name that is not UTF-8: its bytes, in base64 */
    if ((first = digests_add(&m->seen, a, b, m->current)) == -2)
        return refuse(m, "out of memory");
    r->files++;
    if (first >= 0) { /* counted once, where it came first */
        if (m->twice++ < 50)
            job_log("jetfilter report: %s counted twice (%s and %s)", path, m->r[first].name,
                    r->name);
        return 0;
    }
    m->files++;
    if (strcmp(status, "ok") == 0) {
        m->ok++;
        if (item->have_width && item->have_height)
            r->mpix += (double)item->width * (double)item->height / 1e6;
        add_reference(m, item);
    } else if (strcmp(status, "skipped") == 0) {
        m->skipped++;
    } else {
        const char *error = item->error;
        m->failed++;
        if (!job_quiet && m->failures_listed++ < 20)
            job_log("  failed: %s: %s", path, error ? error : "(no reason given)");
    }
    return 0;
}

/* A report's header, read and checked. */
static int read_head(report *r)
{
    json_t *h = r->head, *summary = json_object_get(h, "summary"), *shard = json_object_get(h, "shard");
    r->settings = json_object_get(h, "settings");
    r->per_shard = json_object_get(shard, "files_per_shard");
    r->command_text = json_string_value(json_object_get(h, "command"));
    r->backend_text = json_string_value(json_object_get(h, "backend"));
    r->operation_text = json_string_value(json_object_get(h, "operation"));
    r->version_text = json_string_value(json_object_get(h, "jetfilter"));
    if (!r->version_text || !r->command_text || !json_is_object(summary))
        return bad(r->name, "no jetfilter, command, files or summary");
    if (!json_is_object(r->settings) || !json_is_object(shard) || !json_is_array(r->per_shard))
        return bad(r->name, "no settings or shard record: written by jetfilter before 1.2? run it again");
    if (!int_of(shard, "index", &r->index) || !int_of(shard, "count", &r->count) || r->count < 1 ||
        r->index >= r->count || (int)json_array_size(r->per_shard) != r->count ||
        !int_of(shard, "files_in_inputs", &r->files_in_inputs) ||
        !json_is_string(json_object_get(shard, "inputs_digest")))
        return bad(r->name, "its shard record is incomplete");
    snprintf(r->digest, sizeof r->digest, "%s", json_string_value(json_object_get(shard, "inputs_digest")));
    int_of(summary, "ignored", &r->ignored);
    int_of(summary, "earlier_outputs", &r->earlier);
    int_of(summary, "passed_over", &r->passed);
    r->seconds = json_number_value(json_object_get(summary, "seconds"));
    return 0;
}

/* Name every setting that differs, down to the innermost key that does
 * ("parameters.ksize: 3 against 5"), not the whole object around it. */
static void name_differences(const char *prefix, json_t *a, json_t *b)
{
    const char *key;
    json_t *va, *vb;
    char path[256];
    json_object_foreach(a, key, va) {
        vb = json_object_get(b, key);
        snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", key);
        if (vb && json_is_object(va) && json_is_object(vb)) {
            name_differences(path, va, vb);
        } else if (!vb || !json_equal(va, vb)) {
            char *ta = json_dumps(va, JSON_COMPACT | JSON_ENCODE_ANY);
            char *tb = vb ? json_dumps(vb, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
            job_log("  %s: %s against %s", path, ta ? ta : "?", tb ? tb : "(not set)");
            free(ta);
            free(tb);
        }
    }
    json_object_foreach(b, key, vb)
        if (!json_object_get(a, key)) {
            char *tb = json_dumps(vb, JSON_COMPACT | JSON_ENCODE_ANY);
            job_log("  %s%s%s: (not set) against %s", prefix, *prefix ? "." : "", key, tb ? tb : "?");
            free(tb);
        }
}

static void settings_differ(const report *a, const report *b)
{
    job_log("jetfilter report: %s and %s come from different settings:", a->name, b->name);
    name_differences("", a->settings, b->settings);
}

/* The shards: one report each, all of them, from one walk of the inputs. */
static int check_shards(report *r, int n)
{
    int problems = 0, i, k, count = r[0].count;
    int *owner;
    for (i = 1; i < n; i++)
        if (r[i].count != count) {
            job_log("jetfilter report: %s is shard %d of %d, %s shard %d of %d: one run has one "
                    "number of shards", r[i].name, r[i].index, r[i].count, r[0].name, r[0].index, count);
            return 1;
        }
    if (!(owner = (int *)malloc(sizeof *owner * (size_t)count)))
        return 1;
    for (k = 0; k < count; k++)
        owner[k] = -1;
    for (i = 0; i < n; i++) {
        if (owner[r[i].index] >= 0) {
            job_log("jetfilter report: shard %d of %d given twice: %s and %s", r[i].index, count,
                    r[owner[r[i].index]].name, r[i].name);
            problems++;
        } else {
            owner[r[i].index] = i;
        }
        if (strcmp(r[i].digest, r[0].digest) != 0 || r[i].files_in_inputs != r[0].files_in_inputs ||
            !json_equal(r[i].per_shard, r[0].per_shard)) {
            job_log("jetfilter report: %s found %d files in the inputs, %s found %d%s: the inputs "
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
                job_log("jetfilter report: shard %d of %d: no report (%lld file%s missing)", k,
                        count, (long long)expected, expected == 1 ? "" : "s");
        } else if (r[owner[k]].files != expected) {
            job_log("jetfilter report: %s: shard %d of %d lists %d files, the inputs hold %lld "
                    "for it", r[owner[k]].name, k, count, r[owner[k]].files, (long long)expected);
            problems++;
        }
    }
    free(owner);
    return problems;
}

/* Pass 2: each file's record copied as it stands. */
static int copy_file(void *user, const char *text, size_t n, const report_record *item)
{
    merge *m = (merge *)user;
    uint64_t a, b;
    entry *e;
    if (item) {
        digest_of(item->path_b64 ? item->path_b64 : item->path ? item->path : "", &a, &b);
        if ((e = digests_find(&m->seen, a, b)) != NULL && e->copied++)
            return 0; /* a file given twice is in the merged report once */
    }
    if (fputs(m->written++ ? ",\n" : "\n", m->out) == EOF || fwrite(text, 1, n, m->out) != n)
        return -1;
    return 0;
}

/* The merged report's members before "files" (and its opening bracket,
 * with_files) */
static void json_head(json_buf *j, const merge *m, int with_files)
{
    const report *r = m->r;
    const char *backend = r[0].backend_text;
    int i;
    for (i = 1; i < m->n; i++)
        if (!backend || !r[i].backend_text || strcmp(backend, r[i].backend_text) != 0)
            backend = "mixed";
    json_report_open(j, r[0].command_text);
    json_str(j, "backend", backend);
    if (r[0].operation_text)
        json_str(j, "operation", r[0].operation_text);
    json_key(j, "settings");
    {
        char *settings = json_dumps(r[0].settings, JSON_COMPACT | JSON_ENSURE_ASCII);
        json_raw(j, settings ? settings : "{}");
        free(settings);
    }
    json_open(j, "shard", '{');
    json_int(j, "index", 0);
    json_int(j, "count", 1);
    json_str(j, "source", "report merge");
    json_int(j, "files_in_inputs", r[0].files_in_inputs);
    json_open(j, "files_per_shard", '[');
    json_int(j, NULL, m->files);
    json_close(j, ']');
    json_str(j, "inputs_digest", r[0].digest);
    json_open(j, "merged", '[');
    for (i = 0; i < m->n; i++) {
        json_open(j, NULL, '{');
        json_path(j, "report", r[i].name);
        json_int(j, "index", r[i].index);
        json_int(j, "count", r[i].count);
        json_num(j, "seconds", r[i].seconds);
        json_close(j, '}');
    }
    json_close(j, ']');
    json_close(j, '}');
    if (with_files) {
        json_key(j, "files");
        json_raw(j, "[");
    }
}

static void json_tail(json_buf *j, const merge *m, double seconds, double seconds_sum, double mpix,
                      int complete, int with_files)
{
    if (with_files) {
        json_raw(j, "\n]");
        j->need_comma = 1;
    }
    json_open(j, "summary", '{');
    json_int(j, "files", m->files);
    json_int(j, "ok", m->ok);
    json_int(j, "failed", m->failed);
    json_int(j, "skipped", m->skipped);
    /* an incomplete set: the counts above have each file once */
    json_int(j, "doubled", m->twice);
    json_int(j, "missing", m->r[0].files_in_inputs > m->files ? m->r[0].files_in_inputs - m->files : 0);
    json_int(j, "ignored", m->r[0].ignored);
    json_int(j, "earlier_outputs", m->r[0].earlier);
    json_int(j, "passed_over", m->r[0].passed);
    json_num(j, "seconds", seconds);
    json_num(j, "seconds_all_shards", seconds_sum);
    json_num(j, "mpix", mpix);
    json_num(j, "mpix_per_s", seconds > 0 ? mpix / seconds : 0.0);
    json_bool(j, "complete", complete);
    job_ref_means_json(j, &m->refs);
    json_close(j, '}');
    json_close(j, '}');
    json_raw(j, "\n");
}

static int write_piece(FILE *f, json_buf *j)
{
    int ok = !j->fail && fwrite(j->data, 1, j->len, f) == j->len;
    free(j->data);
    memset(j, 0, sizeof *j);
    return ok;
}

/* The merged report: standard output, or a file that appears complete. */
static int write_merged(const char *target, merge *m, double seconds, double seconds_sum,
                        double mpix, int complete)
{
    jf_atomic_file af;
    json_buf j = {0};
    char why[512];
    /* a file given twice is copied once: its name is read when one was */
    report_callbacks cb = {NULL, copy_file, m->twice > 0};
    int i, ok = 1, atomic = strcmp(target, "-") != 0;
    if (!atomic) {
        m->out = stdout;
    } else if (jf_atomic_open(target, &af) != JF_OK || !(m->out = fdopen(af.fd, "w"))) {
        job_log("jetfilter report: %s", jf_last_error());
        jf_atomic_abort(&af);
        return 0;
    }
    json_head(&j, m, 1);
    ok = write_piece(m->out, &j);
    for (i = 0; i < m->n && ok; i++)
        if (report_read(m->r[i].name, &cb, m, why, sizeof why) != 0) {
            job_log("jetfilter report: %s: %s", m->r[i].name, why);
            ok = 0;
        }
    if (ok) {
        json_tail(&j, m, seconds, seconds_sum, mpix, complete, 1);
        ok = write_piece(m->out, &j) && fflush(m->out) == 0;
    }
    if (atomic) {
        if (ok && ((af.fd = dup(fileno(m->out))) < 0 || jf_atomic_commit(&af) != JF_OK))
            ok = 0;
        if (!ok && af.slot >= 0) {
            af.fd = -1; /* the FILE owns it */
            jf_atomic_abort(&af);
        }
        fclose(m->out);
    }
    if (!ok)
        job_log("jetfilter report: %s: the merged report could not be written", target);
    return ok;
}

int job_report_command(job_settings *s)
{
    job_settings reports = *s;
    if (s->input_count < 1 || strcmp(s->inputs[0], "merge") != 0) {
        job_error("jetfilter report: want 'report merge REPORT.json...' (see jetfilter report --help)");
        return JF_EXIT_USAGE;
    }
    reports.inputs = s->inputs + 1;
    reports.input_count = s->input_count - 1;
    return job_report_merge(&reports, NULL);
}

int job_report_merge(job_settings *s, struct jf_job *job)
{
    const int n = s->input_count;
    report_callbacks cb = {on_member, on_file, 1};
    merge m;
    char why[512];
    int i, unreadable = 0, problems = 0, differ = 0;
    double seconds = 0, seconds_sum = 0, mpix = 0;

    if (n < 1) {
        job_error("jetfilter report merge: name the --json reports to merge");
        return JF_EXIT_USAGE;
    }
    {
        job_outputs o = {"report merge", s->inputs, n, {{"-o", s->output, JOB_OUT_REPORT}}, 1,
                         s->force};
        if (job_outputs_check(&o) != 0)
            return JF_EXIT_USAGE;
    }
    memset(&m, 0, sizeof m);
    if (!(m.r = (report *)calloc((size_t)n, sizeof *m.r)))
        return JF_EXIT_FAILED;
    m.n = n;
    for (i = 0; i < n && !unreadable; i++) {
        m.current = i;
        m.r[i].name = s->inputs[i];
        m.why[0] = '\0';
        if (!(m.r[i].head = json_object()) ||
            report_read(m.r[i].name, &cb, &m, why, sizeof why) != 0) {
            bad(m.r[i].name, m.why[0] ? m.why : why[0] ? why : "out of memory");
            unreadable++;
        } else if (read_head(&m.r[i]) != 0) {
            unreadable++;
        }
    }
    if (!unreadable) {
        for (i = 1; i < n; i++) {
            if (strcmp(m.r[i].command_text, m.r[0].command_text) != 0) {
                job_log("jetfilter report: %s is a report of %s, %s of %s", m.r[i].name,
                        m.r[i].command_text, m.r[0].name, m.r[0].command_text);
                differ++;
            } else if (!json_equal(m.r[i].settings, m.r[0].settings)) {
                settings_differ(&m.r[0], &m.r[i]);
                differ++;
            } else if (strcmp(m.r[i].version_text, m.r[0].version_text) != 0 && !job_quiet) {
                job_log("jetfilter report: note: %s was written by jetfilter %s, %s by %s",
                        m.r[i].name, m.r[i].version_text, m.r[0].name, m.r[0].version_text);
            }
        }
        /* shards of different runs: their coverage means nothing together */
        if (!differ)
            problems = check_shards(m.r, n) + m.twice;
        if (m.twice > 50)
            job_log("jetfilter report: ... %d files counted twice in all", m.twice);
        for (i = 0; i < n; i++) {
            seconds = m.r[i].seconds > seconds ? m.r[i].seconds : seconds;
            seconds_sum += m.r[i].seconds;
            mpix += m.r[i].mpix;
        }
        if (!job_quiet) {
            /* a report given twice is one shard */
            int shards = 0, j;
            for (i = 0; i < n; i++) {
                for (j = 0; j < i && m.r[j].index != m.r[i].index; j++)
                    ;
                shards += j == i;
            }
            job_log("jetfilter report: %d report%s, %d shard%s of %d: %d files: %d ok, %d failed, "
                    "%d skipped; %.1f MPix, longest shard %.2f s (%.1f MPix/s together), %.2f s "
                    "in all shards", n, n == 1 ? "" : "s", shards, shards == 1 ? "" : "s", m.r[0].count,
                    m.files, m.ok, m.failed, m.skipped, mpix, seconds,
                    seconds > 0 ? mpix / seconds : 0.0, seconds_sum);
            job_ref_means_log(&m.refs);
            if (problems && !differ)
                job_log("jetfilter report: the reports do not cover every file exactly once");
        }
        if (differ)
            job_error("jetfilter report: the reports come from different runs; not merged");
        else if (job) { /* the caller's report: the merged one but its files */
            json_buf j = {0};
            json_head(&j, &m, 0);
            json_tail(&j, &m, seconds, seconds_sum, mpix, problems == 0, 0);
            if (!j.fail)
                job_keep_report(job, j.data);
            else
                free(j.data);
        }
        if (s->output && !differ &&
            !write_merged(s->output, &m, seconds, seconds_sum, mpix, problems == 0))
            problems++;
    }
    for (i = 0; i < n; i++)
        json_decref(m.r[i].head);
    free(m.r);
    free(m.seen.slots);
    return unreadable || differ || problems || m.failed ? JF_EXIT_FAILED : JF_EXIT_OK;
}
