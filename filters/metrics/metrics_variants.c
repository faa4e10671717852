/* The metrics' variant tables: the CPU reference and one CUDA kernel each
 * (filters/ops.h). */
#include "filters/ops.h"

#include <stdio.h>

/* Squared differences summed exactly in integers, a partial a block. */
static void sse_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                         jf_emit_fn emit, void *user)
{
    char name[64];
    (void)dev, (void)k;
    snprintf(name, sizeof name, "sse_kernel<%s>", jf_cuda_type_name(s));
    emit(user, name, bx, by, 0);
}

/* A tile of 32 x 32 outputs a block where a multiprocessor has 96 KiB of
 * shared memory or more, else 32 x 16 (the Nano); static shared memory. */
static void ssim_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                          jf_emit_fn emit, void *user)
{
    char name[64];
    (void)k;
    snprintf(name, sizeof name, "ssim_tile_kernel<(int)%d,%s>",
             dev->shared_per_sm >= 96 * 1024 ? 4 : 2, jf_cuda_type_name(s));
    emit(user, name, bx, by, 0);
}

static const jf_variant_row PSNR_ROWS[] = {
    {.variant = JF_VARIANT_CPU, .kernel = "", .kmin = 1, .kmax = 1, .samples = S8 | S16 | SF,
     .what = "the CPU reference"},
    {.variant = JF_VARIANT_GLOBAL, .kernel = "sse_kernel", .kmin = 1, .kmax = 1,
     .samples = S8 | S16, .what = "one kernel", .block_x = 256, .block_y = 1,
     .launches = sse_launches},
};

static const jf_variant_row SSIM_ROWS[] = {
    {.variant = JF_VARIANT_CPU, .kernel = "", .kmin = 1, .kmax = 1, .samples = S8 | S16 | SF,
     .what = "the CPU reference"},
    {.variant = JF_VARIANT_GLOBAL, .kernel = "ssim_tile_kernel", .kmin = 1, .kmax = 1,
     .samples = S8 | S16, .what = "one kernel a channel", .block_x = 32, .block_y = 8,
     .launches = ssim_launches},
};

static const jf_auto_pref PREFS[] = {
    {JF_VARIANT_GLOBAL, 1, 1, 0, "the one CUDA kernel"},
};

const jf_family jf_psnr_family = {
    "psnr", PSNR_ROWS, (int)(sizeof PSNR_ROWS / sizeof PSNR_ROWS[0]), PREFS, 1, 0};
const jf_family jf_ssim_family = {
    "ssim", SSIM_ROWS, (int)(sizeof SSIM_ROWS / sizeof SSIM_ROWS[0]), PREFS, 1, 0};
