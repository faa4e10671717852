/*
 * Shards: a deterministic split of a batch's files over independent
 * processes (Slurm array tasks, Kubernetes Indexed Job pods, GNU parallel
 * jobs) with no coordinator.  A file's shard depends only on its path
 * relative to the folder it was found in, so every process agrees without
 * talking, whatever the machine, walk order or files already done.
 */
#ifndef JF_PIPELINE_SHARD_H
#define JF_PIPELINE_SHARD_H

#include <stddef.h>
#include <stdint.h>

#define JF_SHARD_MAX_COUNT 1000000

typedef struct jf_shard {
    int index;         /* 0 .. count-1 */
    int count;         /* 1: no sharding */
    char source[64];   /* where the numbers came from ("--shard", "SLURM_ARRAY_TASK_ID", ...) */
} jf_shard;

/* "INDEX/COUNT", "auto" or "auto/COUNT".  `auto` reads JOB_COMPLETION_INDEX
 * (Kubernetes) with the count from COUNT or JETFILTER_SHARD_COUNT, else
 * SLURM_ARRAY_TASK_ID: with COUNT given, the task id is the shard (an array
 * numbered 0..COUNT-1, so a task re-run alone keeps its shard); without,
 * the task's place in the array from SLURM_ARRAY_TASK_MIN and _STEP, of
 * SLURM_ARRAY_TASK_COUNT.  Returns 0, or -1 with the reason in `why`. */
int jf_shard_parse(const char *text, jf_shard *out, char *why, size_t why_size);

/* The key a file is sharded by: its relative path without the extension,
 * so inputs that would write the same output (a.jpg and a.png with
 * --format png) always meet in one shard, where the clash is caught. */
size_t jf_shard_key_length(const char *rel);

/* FNV-1a 64 of the bytes, finished with splitmix64's mixer so that the low
 * bits are as good as the high ones.  Fixed forever: changing it moves
 * files between shards of runs already under way (the tests pin values). */
uint64_t jf_shard_hash(const char *bytes, size_t n);

/* The shard of relative path `rel` among `count`. */
int jf_shard_of(const char *rel, int count);

#endif
