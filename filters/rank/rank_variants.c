/* The rank filters' variant table (filters/ops.h). */
#include "filters/rank/rank.h"
#include "filters/ops.h"

#include <stdio.h>

#define S8_16 (S8 | S16)

/* A kernel instance of the rank filters' sample type, as cu++filt names it. */
static void emit_typed(jf_emit_fn emit, void *user, const char *kernel, const jf_shape *s, int bx,
                       int by)
{
    char name[64];
    snprintf(name, sizeof name, "%s<%s>", kernel, jf_cuda_type_name(s));
    emit(user, name, bx, by, 0);
}

static void global_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                            jf_emit_fn emit, void *user)
{
    (void)dev, (void)k;
    emit_typed(emit, user, "pad_planes_kernel", s, 32, 8);
    emit_typed(emit, user, "rank_global_kernel", s, bx, by);
}

static void separable_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                               jf_emit_fn emit, void *user)
{
    (void)dev, (void)k;
    emit_typed(emit, user, "pad_planes_kernel", s, 32, 8);
    emit_typed(emit, user, "rank_rows_kernel", s, bx, by);
    emit_typed(emit, user, "rank_columns_kernel", s, bx, by);
}

static const jf_variant_row ROWS[] = {
    {.variant = JF_VARIANT_CPU, .kernel = "rank_cpu", .kmin = 1, .kmax = JF_RANK_MAX_KSIZE,
     .samples = S8_16, .what = "running extremes along rows, then columns",
     .cpu = jf_rank_cpu_run, .cpu_work = jf_rank_cpu_bytes},
    {.variant = JF_VARIANT_GLOBAL, .kernel = "rank_global_kernel", .kmin = 1,
     .kmax = JF_RANK_MAX_KSIZE, .samples = S8_16, .what = "the k x k window from padded planes",
     .block_x = 32, .block_y = 8, .launches = global_launches, .run = JF_GPU_RUN(jf_rank_global_run)},
    {.variant = JF_VARIANT_FAST, .kernel = "rank_columns_kernel", .kmin = 3,
     .kmax = JF_RANK_MAX_KSIZE, .samples = S8_16,
     .what = "separable: along the rows into a buffer, then down its columns", .block_x = 32,
     .block_y = 8, .launches = separable_launches, .run = JF_GPU_RUN(jf_rank_separable_run)},
};

/* On the H200 (RESULTS.md, "Erosion and dilation"): the window itself at
 * k = 3, where 9 reads cost less than a second pass; separable from 5
 * (2k reads an output against k^2: 22x faster at k = 63) */
static const jf_auto_pref PREFS[] = {
    {JF_VARIANT_GLOBAL, 1, 3, 0, "a 3 x 3 window costs less than a second pass"},
    {JF_VARIANT_FAST, 5, JF_RANK_MAX_KSIZE, 0, "separable"},
    {JF_VARIANT_GLOBAL, 1, JF_RANK_MAX_KSIZE, 0, "where nothing faster runs"},
};

const jf_family jf_rank_family = {"rank", ROWS, (int)(sizeof ROWS / sizeof ROWS[0]), PREFS,
                                  (int)(sizeof PREFS / sizeof PREFS[0]), 0};
