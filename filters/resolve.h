/*
 * Internal: the variant resolver.  One pure function decides, for every
 * entry point (the public calls, plans, the bench, calibrate), which
 * variant, kernel and block run an operation of a family on an image, and
 * says why.  It reads only its arguments: the family's variant table, a
 * description of the device (NULL: the CPU), the image's shape, k, what the
 * caller asked for and the device's tuning profile, so it is tested on the
 * CPU with made-up devices (tests/test_resolve.c).
 *
 * The contract the public header states: an explicit variant that cannot
 * run here (no kernel at this k, a sample type it does not take, a device
 * it needs) is JF_ERR_UNSUPPORTED with the reason; `auto` passes over what
 * cannot run and says what it chose and why.  A block the caller gives is
 * used as given (JF_ERR_ARG when it is malformed or needs more shared
 * memory than the device has).  Registers are the launch's own check.
 */
#ifndef JF_FILTERS_RESOLVE_H
#define JF_FILTERS_RESOLVE_H

#include "filters/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

struct jf_profile;

typedef struct jf_resolve_in {
    const jf_family *family;
    const char *fn;               /* the caller, named in errors ("jf_median") */
    const jf_device_info *dev;    /* NULL: the CPU backend */
    jf_shape shape;
    int k;
    jf_variant asked;             /* AUTO, CPU or a GPU variant */
    int block_x, block_y;         /* 0 x 0: the row's default */
    const struct jf_profile *profile; /* the device's tuning profile, or NULL */
} jf_resolve_in;

typedef struct jf_choice {
    jf_variant variant;
    const jf_variant_row *row;    /* NULL: the CPU */
    int block_x, block_y;
    size_t smem;                  /* dynamic shared memory of that block */
    char reason[160];
} jf_choice;

/* Decide.  JF_OK with *out filled; JF_ERR_UNSUPPORTED (an explicit variant
 * that cannot run; nothing at all that can) or JF_ERR_ARG (a malformed or
 * too large block) with the detail in jf_last_error(). */
jf_status jf_resolve(const jf_resolve_in *in, jf_choice *out);

/* Take `row` itself, as `auto` might not (tests/check_rows.c runs every
 * row): JF_OK with its default block (or in->block_x x block_y), or
 * JF_ERR_UNSUPPORTED where it cannot run this here, with the reason. */
jf_status jf_resolve_row(const jf_resolve_in *in, const jf_variant_row *row, jf_choice *out);

/* Shared memory a block may use on this device: the opt-in amount where
 * the device offers more than the default. */
size_t jf_device_smem_limit(const jf_device_info *dev);

/* Can `row` run k on this shape and device (its default block fitting)?
 * If not, why, in `why` (may be NULL). */
int jf_row_runs(const jf_variant_row *row, const jf_device_info *dev, const jf_shape *s, int k,
                char *why, size_t n);

/* Does variant v of family f run k on this shape and device (NULL: the
 * CPU, where only the CPU variant runs)? */
int jf_variant_runs(const jf_family *f, jf_variant v, const jf_device_info *dev, const jf_shape *s,
                    int k);

/* Does family f run its CPU calls through rows (jf_variant_row.cpu)? */
int jf_family_runs_cpu_rows(const jf_family *f);

/* Host memory a CPU call of family f takes on this shape besides its
 * images, with `threads` workers (--max-memory's estimate): the larger of
 * what `auto`'s row and the row asked for by name take (their cpu_work). */
size_t jf_cpu_work_bytes(const jf_family *f, const jf_shape *s, int k, int threads);

/* The tuning profile's key of a family for these weights ("conv-rank1"). */
const char *jf_family_profile_key(const jf_family *f, int rank1);

/* A row's or operation's sample types in words ("8- and 16-bit"). */
const char *jf_samples_words(unsigned samples);

/* Record a choice in the context (what jf_plan_run's result reports). */
void jf_choice_record(jf_context *ctx, const jf_choice *c);

#ifdef __cplusplus
}
#endif
#endif
