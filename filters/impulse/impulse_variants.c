/*
 * The impulse filters' variant table (adaptive, switching and auto
 * median): the CPU reference and one set of CUDA kernels (filters/ops.h).
 */
#include "filters/impulse/impulse.h"
#include "filters/ops.h"


/* Padded planes, then per level a kernel over the samples still undecided
 * (a queue), for either rule; the smoothing pass; the density count of
 * auto-impulse on device images. */
static void global_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                            jf_emit_fn emit, void *user)
{
    (void)dev, (void)s, (void)k;
    emit(user, "pad_planes_kernel<unsignedchar>", 32, 8, 0);
    emit(user, "impulse_first_kernel<(bool)1>", bx, by, 0);
    emit(user, "impulse_level_kernel<(bool)1>", bx, by, 0);
    emit(user, "impulse_first_kernel<(bool)0>", bx, by, 0);
    emit(user, "impulse_level_kernel<(bool)0>", bx, by, 0);
    emit(user, "impulse_refine_kernel", bx, by, 0);
    emit(user, "impulse_count_kernel", 256, 1, 0);
}

static const jf_variant_row ROWS[] = {
    {.variant = JF_VARIANT_CPU, .kernel = "", .kmin = 3, .kmax = JF_IMPULSE_MAX_KSIZE,
     .samples = S8, .what = "the CPU reference"},
    {.variant = JF_VARIANT_GLOBAL, .kernel = "impulse_level_kernel", .kmin = 3,
     .kmax = JF_IMPULSE_MAX_KSIZE, .samples = S8,
     .what = "a kernel per window size over the samples still undecided", .block_x = 128,
     .block_y = 1, .launches = global_launches},
};

static const jf_auto_pref PREFS[] = {
    {JF_VARIANT_GLOBAL, 3, JF_IMPULSE_MAX_KSIZE, 0, "the one CUDA variant"},
};

const jf_family jf_impulse_family = {
    "impulse", ROWS, (int)(sizeof ROWS / sizeof ROWS[0]), PREFS, (int)(sizeof PREFS / sizeof PREFS[0]), 0};
