/* Padding's variant table: the CPU copy and one CUDA kernel (filters/ops.h). */
#include "filters/ops.h"

/* 16 bytes of a padded row a thread (pad_cuda.cu). */
static void rows_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                          jf_emit_fn emit, void *user)
{
    (void)dev, (void)s, (void)k;
    emit(user, "pad_rows_kernel", bx, by, 0);
}

static const jf_variant_row ROWS[] = {
    {.variant = JF_VARIANT_CPU, .kernel = "", .kmin = 1, .kmax = 8193, .samples = S8 | S16 | SF,
     .what = "row copies on the CPU"},
    {.variant = JF_VARIANT_GLOBAL, .kernel = "pad_rows_kernel", .kmin = 1, .kmax = 8193,
     .samples = S8 | S16, .what = "one kernel", .block_x = 128, .block_y = 2,
     .launches = rows_launches},
};

static const jf_auto_pref PREFS[] = {
    {JF_VARIANT_GLOBAL, 1, 8193, 0, "the one CUDA kernel"},
};

const jf_family jf_pad_family = {
    "pad", ROWS, (int)(sizeof ROWS / sizeof ROWS[0]), PREFS, (int)(sizeof PREFS / sizeof PREFS[0]), 0};
