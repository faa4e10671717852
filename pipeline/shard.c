/* Shards: parsing --shard and the stable hash that assigns files. */
#include "pipeline/shard.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return -1;
}

/* A whole number of decimal digits only (no sign, no spaces), <= max. */
static int whole(const char *s, size_t len, long max, long *out)
{
    long v = 0;
    size_t i;
    if (len == 0 || len > 12)
        return 0;
    for (i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    if (v > max)
        return 0;
    *out = v;
    return 1;
}

static int env_number(const char *name, long max, long *out, int *present)
{
    const char *v = getenv(name);
    *present = v != NULL && v[0] != '\0';
    return *present && whole(v, strlen(v), max, out);
}

static int from_environment(long given_count, jf_shard *out, char *why, size_t n)
{
    long index, count = given_count, min = 0, step = 1, id, env_count;
    int present, have_count;
    if (env_number("JOB_COMPLETION_INDEX", JF_SHARD_MAX_COUNT, &index, &present)) {
        have_count = env_number("JETFILTER_SHARD_COUNT", JF_SHARD_MAX_COUNT, &env_count, &present);
        if (present && !have_count)
            return fail(why, n, "JETFILTER_SHARD_COUNT='%s' is not a count", getenv("JETFILTER_SHARD_COUNT"));
        if (have_count && given_count && env_count != given_count)
            return fail(why, n, "auto/%ld but JETFILTER_SHARD_COUNT=%ld", given_count, env_count);
        if (have_count)
            count = env_count;
        if (!count)
            return fail(why, n, "JOB_COMPLETION_INDEX is set but not the number of shards: give "
                        "--shard auto/N or set JETFILTER_SHARD_COUNT (the Job's completions)");
        snprintf(out->source, sizeof out->source, "JOB_COMPLETION_INDEX");
    } else if (present) {
        return fail(why, n, "JOB_COMPLETION_INDEX='%s' is not an index", getenv("JOB_COMPLETION_INDEX"));
    } else if (env_number("SLURM_ARRAY_TASK_ID", 100000000, &id, &present)) {
        snprintf(out->source, sizeof out->source, "SLURM_ARRAY_TASK_ID");
        if (given_count) {
            /* auto/N: the array is numbered 0..N-1 and the task id is the
             * shard, so one task re-run alone (--array=5) stays shard 5 */
            index = id;
        } else {
            have_count = env_number("SLURM_ARRAY_TASK_COUNT", JF_SHARD_MAX_COUNT, &count, &present);
            if (!have_count)
                return fail(why, n, present ? "SLURM_ARRAY_TASK_COUNT='%s' is not a count"
                                            : "SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT%s; "
                                              "give --shard auto/N", present ? getenv("SLURM_ARRAY_TASK_COUNT") : "");
            if (!env_number("SLURM_ARRAY_TASK_MIN", 100000000, &min, &present) && present)
                return fail(why, n, "SLURM_ARRAY_TASK_MIN='%s' is not a number", getenv("SLURM_ARRAY_TASK_MIN"));
            if ((!env_number("SLURM_ARRAY_TASK_STEP", 100000000, &step, &present) && present) || step < 1)
                return fail(why, n, "SLURM_ARRAY_TASK_STEP='%s' is not a step", getenv("SLURM_ARRAY_TASK_STEP"));
            /* one task: most likely a task of a larger array run again
             * alone (--array=5), which as shard 0 of 1 would do every file */
            if (count == 1)
                return fail(why, n, "SLURM_ARRAY_TASK_COUNT=1: an array of one task (task %ld) "
                            "would be shard 0 of 1 and process every file; for a task of a "
                            "larger array run again alone, give --shard auto/N (the array "
                            "numbered 0..N-1) or --shard I/N", id);
            if (id < min || (id - min) % step)
                return fail(why, n, "SLURM_ARRAY_TASK_ID=%ld is not in the array %ld, %ld+%ld, ...", id,
                            min, min, step);
            index = (id - min) / step;
        }
    } else if (present) {
        return fail(why, n, "SLURM_ARRAY_TASK_ID='%s' is not an index", getenv("SLURM_ARRAY_TASK_ID"));
    } else {
        return fail(why, n, "auto: neither JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) nor "
                    "SLURM_ARRAY_TASK_ID (a Slurm job array) is set; give INDEX/COUNT");
    }
    if (index >= count)
        return fail(why, n, "%s gives shard %ld of %ld: the index must be below the count",
                    out->source, index, count);
    out->index = (int)index;
    out->count = (int)count;
    return 0;
}

int jf_shard_parse(const char *text, jf_shard *out, char *why, size_t n)
{
    const char *slash = strchr(text, '/');
    long index, count = 0;
    memset(out, 0, sizeof *out);
    if (strncmp(text, "auto", 4) == 0 && (text[4] == '\0' || text[4] == '/')) {
        if (slash && (!whole(slash + 1, strlen(slash + 1), JF_SHARD_MAX_COUNT, &count) || count < 1))
            return fail(why, n, "'%s': want auto or auto/COUNT, COUNT from 1 to %d", text, JF_SHARD_MAX_COUNT);
        return from_environment(count, out, why, n);
    }
    if (!slash || !whole(text, (size_t)(slash - text), JF_SHARD_MAX_COUNT, &index) ||
        !whole(slash + 1, strlen(slash + 1), JF_SHARD_MAX_COUNT, &count))
        return fail(why, n, "'%s': want INDEX/COUNT (INDEX from 0, COUNT from 1 to %d) or auto",
                    text, JF_SHARD_MAX_COUNT);
    if (count < 1 || index >= count)
        return fail(why, n, "'%s': INDEX counts from 0 and must be below COUNT (e.g. 0/%ld .. %ld/%ld)",
                    text, count ? count : 4, count ? count - 1 : 3, count ? count : 4);
    out->index = (int)index;
    out->count = (int)count;
    snprintf(out->source, sizeof out->source, "--shard");
    return 0;
}

size_t jf_shard_key_length(const char *rel)
{
    const char *slash = strrchr(rel, '/');
    const char *base = slash ? slash + 1 : rel;
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? (size_t)(dot - rel) : strlen(rel);
}

uint64_t jf_shard_hash(const char *bytes, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ (unsigned char)bytes[i]) * 1099511628211ull;
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    return h;
}

int jf_shard_of(const char *rel, int count)
{
    if (count <= 1)
        return 0;
    return (int)(jf_shard_hash(rel, jf_shard_key_length(rel)) % (uint64_t)count);
}
