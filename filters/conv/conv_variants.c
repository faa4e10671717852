/*
 * The convolution's variant table (every operation with weights: box,
 * gauss, sharpen, laplace, conv): which kernel runs which k, sample type,
 * weights and device, its block and shared memory, and the order `auto`
 * prefers them in (filters/ops.h).
 */
#include "filters/conv/conv.h"
#include "filters/conv/conv_fast_fixed.h"
#include "filters/conv/conv_shapes.h"
#include "filters/ops.h"
#include "filters/resolve.h"

#include <stdio.h>


static int bps(const jf_shape *s) { return s->sample == JF_SAMPLE_U16 ? 2 : 1; }
static void global_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                            jf_emit_fn emit, void *user)
{
    char name[64];
    (void)dev, (void)k;
    snprintf(name, sizeof name, "pad_planes_kernel<%s>", jf_cuda_type_name(s));
    emit(user, name, 32, 8, 0);
    snprintf(name, sizeof name, "conv_global_kernel<%s>", jf_cuda_type_name(s));
    emit(user, name, bx, by, 0);
}

static size_t float_tile_smem(const jf_shape *s, int k, int bx, int by)
{
    return jf_conv_float_smem(k, s->channels, bx, by);
}

static void float_tile_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                                jf_emit_fn emit, void *user)
{
    (void)dev;
    emit(user, "conv_float_tile_kernel", bx, by, float_tile_smem(s, k, bx, by));
}

static void float_regs_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                                jf_emit_fn emit, void *user)
{
    (void)dev, (void)s, (void)k;
    emit(user, "conv_float_regs_kernel", bx, by, 0);
}

/* float32, rank-1 weights: the row pass, then the column pass. */
static void float_sep_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                               jf_emit_fn emit, void *user)
{
    (void)dev, (void)s, (void)k;
    emit(user, "conv_float_rows_kernel", bx, by, 0);
    emit(user, "conv_float_cols_kernel", bx, by, 0);
}

static size_t shared_smem(const jf_shape *s, int k, int bx, int by)
{
    (void)s;
    return jf_conv_shared_smem(k, bx, by);
}

static void shared_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                            jf_emit_fn emit, void *user)
{
    (void)dev;
    emit(user, "conv_shared_kernel", bx, by, shared_smem(s, k, bx, by));
}

/* ---- fast, separable (rank-1 weights from k = 7) ---------------------------- */

static size_t sep_smem(const jf_shape *s, int k, int bx, int by)
{
    int tile_w;
    return jf_conv_sep_smem(k, s->channels, bps(s), bx, by, &tile_w);
}

/* 32 x 8 (128 output rows at k >= 15) unless that leaves fewer than 3
 * blocks an SM: then 32 x 4 (H100, 1920x1080 RGB: docs/kernels/studies.md, "separable"). */
static void sep_block(const jf_device_info *dev, const jf_shape *s, int k, int *bx, int *by)
{
    const int rows = jf_conv_sep_rows(k) * 8, sms = dev->multiprocessors > 0 ? dev->multiprocessors : 1;
    const long blocks = (long)((s->width + 127) / 128) * ((s->height + rows - 1) / rows);
    *bx = 32;
    *by = blocks >= 3L * sms ? 8 : 4;
}

static void sep_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                         jf_emit_fn emit, void *user)
{
    char name[96];
    (void)dev;
    snprintf(name, sizeof name, "conv_separable%s_kernel<%s,(int)%d>",
             s->channels > 1 ? "_interleaved" : "", jf_cuda_type_name(s), jf_conv_sep_rows(k));
    emit(user, name, bx, by, sep_smem(s, k, bx, by));
}

/* ---- fast, unrolled (k = 3 to 13) -------------------------------------------- */

static size_t fast_smem(const jf_shape *s, int k, int bx, int by)
{
    int tile_w;
    return jf_conv_fast_smem(k, s->channels, bps(s), bx, by, &tile_w);
}

/* 32 x 8 (the dilated rows of several channels to k = 5 as grey). */
static void fast_block(const jf_device_info *dev, const jf_shape *s, int k, int *bx, int *by)
{
    (void)dev;
    (void)s;
    (void)k;
    *bx = 32;
    *by = 8;
}

static void fast_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                          jf_emit_fn emit, void *user)
{
    char name[96];
    (void)dev;
    if (jf_conv_fast_dilated(k, s->channels))
        snprintf(name, sizeof name, "conv_fast_dilated_kernel<(int)%d,(int)%d,%s>", k, s->channels,
                 jf_cuda_type_name(s));
    else
        snprintf(name, sizeof name, "conv_fast%s_kernel<(int)%d,%s>",
                 s->channels > 1 ? "_interleaved" : "", k, jf_cuda_type_name(s));
    emit(user, name, bx, by, fast_smem(s, k, bx, by));
}

/* ---- fast, k = 3 in fixed point (conv_fast_fixed.cu) ------------------------- */

/* the most it takes: 8 rows a thread (fewer on small images) */
static size_t fixed_smem(const jf_shape *s, int k, int bx, int by)
{
    int tile_w;
    (void)s, (void)k;
    return jf_conv_fast_fixed_smem(bx, by, JF_CONV_FAST_FIXED_ROWS, &tile_w);
}

static void fixed_launch(const char *kernel, const jf_device_info *dev, const jf_shape *s, int bx, int by,
                         jf_emit_fn emit, void *user)
{
    const int rows = jf_conv_fast_fixed_rows(s->width * s->channels, s->height, bx, by,
                                             dev ? dev->multiprocessors : 1);
    char name[64];
    int tile_w;
    snprintf(name, sizeof name, "%s<(int)%d,(int)%d>", kernel, rows, s->channels);
    emit(user, name, bx, by, jf_conv_fast_fixed_smem(bx, by, rows, &tile_w));
}

static void video_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                           jf_emit_fn emit, void *user)
{
    (void)k;
    fixed_launch("conv_fast_video_kernel", dev, s, bx, by, emit, user);
}

static void dp_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                        jf_emit_fn emit, void *user)
{
    (void)k;
    fixed_launch("conv_fast_dp_kernel", dev, s, bx, by, emit, user);
}

/* ---- fast, k at run time (k >= 15) ------------------------------------------- */

static size_t wide_smem(const jf_shape *s, int k, int bx, int by)
{
    int tile_w;
    size_t at;
    return jf_conv_wide_smem(k, s->channels, bps(s), bx, by, &tile_w, &at);
}

/* 32 x 4; where that does not fit the device (48 KiB: RGB and 16-bit tiles
 * at large k), the block with the most threads that does (32 x 2, 16 x 4,
 * 32 x 1, ... down to 8 x 1): a device with one SM, the Nano, has only that
 * block's warps to keep its schedulers busy.  0 x 0 where none fits. */
static void wide_block(const jf_device_info *dev, const jf_shape *s, int k, int *bx, int *by)
{
    const size_t limit = jf_device_smem_limit(dev);
    int threads, x;
    for (threads = 128; threads >= 8; threads /= 2)
        for (x = 32; x >= 8; x /= 2)
            if (threads / x >= 1 && threads / x <= 4 && wide_smem(s, k, x, threads / x) <= limit) {
                *bx = x;
                *by = threads / x;
                return;
            }
    *bx = *by = 0;
}

static void wide_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                          jf_emit_fn emit, void *user)
{
    char name[96];
    (void)dev;
    snprintf(name, sizeof name, "conv_wide%s_kernel<%s>", s->channels > 1 ? "_interleaved" : "",
             jf_cuda_type_name(s));
    emit(user, name, bx, by, wide_smem(s, k, bx, by));
}

static const jf_variant_row ROWS[] = {
    /* The CPU: `auto` takes 16-bit fixed point or the FFT where they apply
     * (within one level); asked for by name, the float reference */
    {.variant = JF_VARIANT_CPU, .kernel = "conv_cpu_fixed", .kmin = 3, .kmax = JF_CONV_MAX_KSIZE,
     .samples = S8, .rank1 = 1, .what = "16-bit fixed point, separable",
     .cpu = jf_conv_fixed_cpu, .takes = jf_conv_fixed_takes, .cpu_work = jf_conv_fixed_work},
    {.variant = JF_VARIANT_CPU, .kernel = "conv_cpu_fft", .kmin = 3, .kmax = JF_CONV_MAX_KSIZE,
     .samples = S8 | S16, .what = "overlap-save FFT tiles", .cpu = jf_conv_fft_cpu,
     .takes = jf_conv_fft_takes, .cpu_work = jf_conv_fft_work},
    {.variant = JF_VARIANT_CPU, .kernel = "conv_cpu", .kmin = 1, .kmax = JF_CONV_MAX_KSIZE,
     .samples = S8 | S16 | SF, .what = "the float sum (separable for rank-1 weights)",
     .cpu = jf_conv_float_cpu, .cpu_work = jf_conv_float_work},
    {.variant = JF_VARIANT_GLOBAL, .kernel = "conv_global_kernel", .kmin = 1,
     .kmax = JF_CONV_MAX_KSIZE, .samples = S8 | S16 | SF, .what = "k x k taps from padded planes",
     .block_x = 32, .block_y = 8, .launches = global_launches, .run = JF_GPU_RUN(jf_conv_global_run)},
    {.variant = JF_VARIANT_SHARED, .kernel = "conv_shared_kernel", .kmin = 1,
     .kmax = JF_CONV_MAX_KSIZE, .samples = S8, .what = "k x k taps from the block's tile",
     .block_x = 32, .block_y = 8, .smem = shared_smem, .launches = shared_launches,
     .run = JF_GPU_RUN(jf_conv_shared_run)},
    /* k = 3, 8 bits: fixed point for the weights it holds within half a
     * level, ahead of the float kernels, in the instructions each GPU has
     * natively (video multiply-adds on the Nano, two-way dot products from
     * 6.1) */
    {.variant = JF_VARIANT_FAST, .kernel = "conv_fast_video_kernel", .kmin = 3, .kmax = 3,
     .samples = S8, .max_cc = JF_CONV_VIDEO_MAX_CC,
     .what = "fixed-point video multiply-adds, one an input sample",
     .block_x = JF_CONV_FAST_FIXED_BLOCK_X_VIDEO, .block_y = JF_CONV_FAST_FIXED_BLOCK_Y,
     .smem = fixed_smem, .launches = video_launches, .takes = jf_conv_fast_fixed_takes,
     .run = JF_GPU_RUN(jf_conv_video_run)},
    {.variant = JF_VARIANT_FAST, .kernel = "conv_fast_dp_kernel", .kmin = 3, .kmax = 3,
     .samples = S8, .min_cc = JF_CONV_DP_MIN_CC,
     .what = "fixed-point dot products, two input samples each",
     .block_x = JF_CONV_FAST_FIXED_BLOCK_X_DP, .block_y = JF_CONV_FAST_FIXED_BLOCK_Y,
     .smem = fixed_smem, .launches = dp_launches, .takes = jf_conv_fast_fixed_takes,
     .run = JF_GPU_RUN(jf_conv_dp_run)},
    {.variant = JF_VARIANT_FAST, .kernel = "conv_separable_kernel", .kmin = JF_CONV_SEPARABLE_MIN_K,
     .kmax = JF_CONV_MAX_KSIZE, .samples = S8 | S16, .rank1 = 1,
     .what = "separable: a column pass over row sums, for rank-1 weights", .block = sep_block,
     .smem = sep_smem, .launches = sep_launches, .run = JF_GPU_RUN(jf_conv_separable_run)},
    {.variant = JF_VARIANT_FAST, .kernel = "conv_fast_kernel", .kmin = 3,
     .kmax = JF_CONV_FAST_UNROLLED_MAX_K, .samples = S8 | S16,
     .what = "unrolled taps over a block of outputs a thread", .block = fast_block,
     .smem = fast_smem, .launches = fast_launches, .run = JF_GPU_RUN(jf_conv_unrolled_run)},
    {.variant = JF_VARIANT_FAST, .kernel = "conv_wide_kernel", .kmin = JF_CONV_FAST_UNROLLED_MAX_K + 2,
     .kmax = JF_CONV_MAX_KSIZE, .samples = S8 | S16,
     .what = "8 x 8 outputs a thread, k at run time", .block = wide_block, .smem = wide_smem,
     .launches = wide_launches, .run = JF_GPU_RUN(jf_conv_wide_run)},
    /* float32 and rank-1 weights: the zero-weight padding of the kernel
     * above would turn a NaN or an infinity into NaN past k (conv_float.cu);
     * k <= 11 in registers, larger in one pass where the tile fits, else two */
    {.variant = JF_VARIANT_FAST, .kernel = "conv_float_regs_kernel", .kmin = 3, .kmax = 11,
     .samples = SF, .rank1 = 1, .what = "float row and column sums in registers, 4 x 4 outputs a thread (4 x 8 from k = 9)",
     .block_x = 64, .block_y = 4, .launches = float_regs_launches,
     .run = JF_GPU_RUN(jf_conv_float_regs_run)},
    {.variant = JF_VARIANT_FAST, .kernel = "conv_float_tile_kernel", .kmin = 13,
     .kmax = JF_CONV_MAX_KSIZE, .samples = SF, .rank1 = 1,
     .what = "float row and column sums in the block's shared memory", .block_x = 32,
     .block_y = 8, .smem = float_tile_smem, .launches = float_tile_launches,
     .run = JF_GPU_RUN(jf_conv_float_tile_run)},
    {.variant = JF_VARIANT_FAST, .kernel = "conv_float_cols_kernel", .kmin = 3,
     .kmax = JF_CONV_MAX_KSIZE, .samples = SF, .rank1 = 1,
     .what = "float row sums, then column sums, through global memory", .block_x = 64,
     .block_y = 4, .launches = float_sep_launches, .run = JF_GPU_RUN(jf_conv_float_run)},
};

/* From the sweeps on an H200 and an H100 (docs/kernels/studies.md): the fast variant
 * wherever it runs (2-6x the others at k <= 13); the tiled kernel where its
 * tile does not fit (8 bits), else global; global at k = 1 (no window to
 * share). */
static const jf_auto_pref PREFS[] = {
    {JF_VARIANT_GLOBAL, 1, 1, 0, "k = 1 has no window to share"},
    {JF_VARIANT_FAST, 3, JF_CONV_MAX_KSIZE, 0, "the fastest measured where it runs"},
    {JF_VARIANT_SHARED, 1, JF_CONV_MAX_KSIZE, 0, "where the fast kernels do not fit"},
    {JF_VARIANT_GLOBAL, 1, JF_CONV_MAX_KSIZE, 0, "where nothing faster runs"},
};

const jf_family jf_conv_family = {
    "conv", ROWS, (int)(sizeof ROWS / sizeof ROWS[0]), PREFS, (int)(sizeof PREFS / sizeof PREFS[0]), 1};
