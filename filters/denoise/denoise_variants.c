/*
 * The denoisers' variant tables (filters/ops.h): non-local means, the
 * bilateral and guided filters, the noise estimate.  For non-local means k
 * is the reach of a pixel's result, search + patch - 1 (what its tile's
 * shared memory holds around it).
 */
#include "filters/denoise/denoise.h"
#include "filters/ops.h"

#include <stdio.h>

#define S8_16 (S8 | S16)
#define NLM_KMAX (JF_NLM_MAX_SEARCH + JF_NLM_MAX_PATCH - 1)

/* The planes a call's kernels read: made by these two (denoise_cuda.cu). */
static void plane_launches(const jf_shape *s, jf_emit_fn emit, void *user, int in)
{
    char name[64];
    snprintf(name, sizeof name, in ? "to_planes_kernel<%s>" : "from_planes_kernel<%s>",
             jf_cuda_type_name(s));
    emit(user, name, 32, 8, 0);
}

static int colour_of(const jf_shape *s) { return s->channels >= 3 ? 3 : 1; }

/* ---- non-local means ------------------------------------------------------------ */

/* A block of bx x by threads makes a tile of bx x 4 by pixels; it keeps
 * the tile's planes with their reach, the patch differences and their
 * column sums (patch at most k / 2 across, and 9). */
size_t jf_nlm_tile_smem(int colour, int k, int bx, int by)
{
    const int r = k / 2, f = r < JF_NLM_MAX_PATCH / 2 ? r : JF_NLM_MAX_PATCH / 2;
    const size_t tw = (size_t)bx, th = (size_t)by * 4;
    return sizeof(float) * ((size_t)colour * (tw + 2 * r) * (th + 2 * r) + (tw + 2 * f) * (th + 2 * f) +
                            th * (tw + 2 * f));
}

static size_t nlm_tile_smem(const jf_shape *s, int k, int bx, int by)
{
    return jf_nlm_tile_smem(colour_of(s), k, bx, by);
}

static void nlm_tile_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                              jf_emit_fn emit, void *user)
{
    char name[48];
    (void)dev;
    plane_launches(s, emit, user, 1);
    snprintf(name, sizeof name, "nlm_tile_kernel<(int)%d>", colour_of(s));
    emit(user, name, bx, by, nlm_tile_smem(s, k, bx, by));
    plane_launches(s, emit, user, 0);
}

static void nlm_global_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                                jf_emit_fn emit, void *user)
{
    char name[48];
    (void)dev, (void)k;
    plane_launches(s, emit, user, 1);
    snprintf(name, sizeof name, "nlm_global_kernel<(int)%d>", colour_of(s));
    emit(user, name, bx, by, 0);
    plane_launches(s, emit, user, 0);
}

static const jf_variant_row NLM_ROWS[] = {
    {.variant = JF_VARIANT_CPU, .kernel = "", .kmin = 1, .kmax = NLM_KMAX, .samples = S8_16,
     .what = "tiles, an offset at a time, on the CPU's threads"},
    {.variant = JF_VARIANT_FAST, .kernel = "nlm_tile_kernel", .kmin = 1, .kmax = NLM_KMAX,
     .samples = S8_16, .what = "shared-memory tiles, an offset at a time, column sums",
     .block_x = 32, .block_y = 8, .smem = nlm_tile_smem, .launches = nlm_tile_launches,
     .run = JF_GPU_RUN(jf_nlm_tile_run)},
    {.variant = JF_VARIANT_GLOBAL, .kernel = "nlm_global_kernel", .kmin = 1, .kmax = NLM_KMAX,
     .samples = S8_16, .what = "a thread a pixel, every patch distance from global memory",
     .block_x = 32, .block_y = 8, .launches = nlm_global_launches,
     .run = JF_GPU_RUN(jf_nlm_global_run)},
};

static const jf_auto_pref NLM_PREFS[] = {
    {JF_VARIANT_FAST, 1, NLM_KMAX, 0, "tiles in shared memory"},
    {JF_VARIANT_GLOBAL, 1, NLM_KMAX, 0, "where a tile does not fit"},
};

const jf_family jf_nlmeans_family = {"nlmeans", NLM_ROWS, (int)(sizeof NLM_ROWS / sizeof NLM_ROWS[0]),
                                     NLM_PREFS, (int)(sizeof NLM_PREFS / sizeof NLM_PREFS[0]), 0};

/* ---- bilateral -------------------------------------------------------------------- */

/* A tile of bx x by pixels and its reach, in float planes, the window's
 * spatial weights and (8 bits) the colour weight of each level. */
size_t jf_bilateral_tile_smem(int colour, int k, int bx, int by)
{
    const size_t r = (size_t)(k / 2);
    return sizeof(float) * ((size_t)colour * (bx + 2 * r) * (by + 2 * r) + (size_t)k * k + 256);
}

static size_t bl_tile_smem(const jf_shape *s, int k, int bx, int by)
{
    return jf_bilateral_tile_smem(colour_of(s), k, bx, by);
}

static void bl_tile_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                             jf_emit_fn emit, void *user)
{
    char name[64];
    (void)dev;
    snprintf(name, sizeof name, "bilateral_tile_kernel<%s,(int)%d>",
             jf_cuda_type_name(s), colour_of(s));
    emit(user, name, bx, by, bl_tile_smem(s, k, bx, by));
}

static void bl_global_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                               jf_emit_fn emit, void *user)
{
    char name[64];
    (void)dev, (void)k;
    snprintf(name, sizeof name, "bilateral_global_kernel<%s,(int)%d>",
             jf_cuda_type_name(s), colour_of(s));
    emit(user, name, bx, by, 0);
}

static const jf_variant_row BL_ROWS[] = {
    {.variant = JF_VARIANT_CPU, .kernel = "", .kmin = 1, .kmax = JF_BILATERAL_MAX_KSIZE,
     .samples = S8_16, .what = "rows of a tap at a time on the CPU's threads"},
    {.variant = JF_VARIANT_FAST, .kernel = "bilateral_tile_kernel", .kmin = 1,
     .kmax = JF_BILATERAL_MAX_KSIZE, .samples = S8_16, .what = "shared-memory tiles",
     .block_x = 32, .block_y = 8, .smem = bl_tile_smem, .launches = bl_tile_launches,
     .run = JF_GPU_RUN(jf_bilateral_tile_run)},
    {.variant = JF_VARIANT_GLOBAL, .kernel = "bilateral_global_kernel", .kmin = 1,
     .kmax = JF_BILATERAL_MAX_KSIZE, .samples = S8_16, .what = "a thread a pixel from global memory",
     .block_x = 32, .block_y = 8, .launches = bl_global_launches,
     .run = JF_GPU_RUN(jf_bilateral_global_run)},
};

static const jf_auto_pref BL_PREFS[] = {
    {JF_VARIANT_FAST, 1, JF_BILATERAL_MAX_KSIZE, 0, "tiles in shared memory"},
    {JF_VARIANT_GLOBAL, 1, JF_BILATERAL_MAX_KSIZE, 0, "where a tile does not fit"},
};

const jf_family jf_bilateral_family = {"bilateral", BL_ROWS, (int)(sizeof BL_ROWS / sizeof BL_ROWS[0]),
                                       BL_PREFS, (int)(sizeof BL_PREFS / sizeof BL_PREFS[0]), 0};

/* ---- guided --------------------------------------------------------------------------- */

static void gd_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                        jf_emit_fn emit, void *user)
{
    (void)dev, (void)k;
    plane_launches(s, emit, user, 1);
    emit(user, "box_rows_kernel", bx, by, 0);
    emit(user, "guided_ab_kernel", bx, by, 0);
    emit(user, "box_rows_kernel", bx, by, 0);
    emit(user, "guided_out_kernel", bx, by, 0);
    plane_launches(s, emit, user, 0);
}

static const jf_variant_row GD_ROWS[] = {
    {.variant = JF_VARIANT_CPU, .kernel = "", .kmin = 1, .kmax = JF_GUIDED_MAX_KSIZE,
     .samples = S8_16, .what = "integral images on the CPU"},
    {.variant = JF_VARIANT_GLOBAL, .kernel = "guided_ab_kernel", .kmin = 1, .kmax = JF_GUIDED_MAX_KSIZE,
     .samples = S8_16, .what = "row sums, then column sums of the window means, in global memory",
     .block_x = 32, .block_y = 8, .launches = gd_launches},
};

static const jf_auto_pref GD_PREFS[] = {
    {JF_VARIANT_GLOBAL, 1, JF_GUIDED_MAX_KSIZE, 0, "the one CUDA variant"},
};

const jf_family jf_guided_family = {"guided", GD_ROWS, (int)(sizeof GD_ROWS / sizeof GD_ROWS[0]),
                                    GD_PREFS, (int)(sizeof GD_PREFS / sizeof GD_PREFS[0]), 0};

/* ---- the estimate ------------------------------------------------------------------------ */

static const jf_variant_row EST_ROWS[] = {
    {.variant = JF_VARIANT_CPU, .kernel = "", .kmin = 1, .kmax = 1, .samples = S8_16,
     .what = "the CPU"},
};

const jf_family jf_estimate_family = {"estimate", EST_ROWS, 1, NULL, 0, 0};
