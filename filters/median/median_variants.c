/*
 * The median's variant table: which kernel runs which k, sample type and
 * device, its block and shared memory, and the order `auto` prefers them in
 * (filters/ops.h).  The resolver reads it for every call; the Nano launch
 * list and the GPU tests are made from it.
 */
#include "filters/median/median.h"
#include "filters/median/median_shapes.h"
#include "filters/ops.h"
#include "filters/resolve.h"

#include <stdio.h>


static int bps(const jf_shape *s) { return s->sample == JF_SAMPLE_U16 ? 2 : 1; }
/* The kernels that read windows from global memory pad the image first. */
static void emit_pad_planes(const jf_shape *s, jf_emit_fn emit, void *user)
{
    char name[64];
    snprintf(name, sizeof name, "pad_planes_kernel<%s>", jf_cuda_type_name(s));
    emit(user, name, 32, 8, 0);
}

static void global_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                            jf_emit_fn emit, void *user)
{
    char name[64];
    (void)dev, (void)k;
    emit_pad_planes(s, emit, user);
    snprintf(name, sizeof name, "median_global_kernel<%s>", jf_cuda_type_name(s));
    emit(user, name, bx, by, 0);
}

static void float_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                           jf_emit_fn emit, void *user)
{
    (void)dev, (void)s, (void)k;
    emit(user, "median_float_kernel", bx, by, 0);
}

/* ---- shared: a window a thread (k <= 3), sliding histograms (k >= 5) ------ */

static size_t window_smem(const jf_shape *s, int k, int bx, int by)
{
    (void)s;
    return jf_median_shared_tile_bytes(bx, by, k);
}

static void window_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                            jf_emit_fn emit, void *user)
{
    (void)dev;
    emit(user, "median_shared_kernel", bx, by, window_smem(s, k, bx, by));
}

/* The least the histogram kernel runs with: its counters (the tile goes
 * when it does not fit as well, median_shared.cu). */
static size_t hist_smem(const jf_shape *s, int k, int bx, int by)
{
    (void)s;
    return jf_median_hist_bytes(bx * by, k);
}

/* The most it asks of this device: the ring kernel's long strips where
 * they run (large k), else the longest strip whose tile fits. */
static void hist_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                          jf_emit_fn emit, void *user)
{
    char name[64];
    int tiled = 1, strip, chunk;
    const size_t ring = jf_median_ring_plan(s->width, s->height, s->channels, bx * by, k,
                                            dev->multiprocessors, jf_device_smem_limit(dev), &strip,
                                            &chunk);
    const size_t smem = jf_median_hist_launch_smem(bx, by, k, JF_MEDIAN_STRIP_MAX,
                                                   jf_device_smem_limit(dev), NULL, &tiled);
    if (ring > 0) {
        emit(user, "median_shared_ring_kernel", bx, by, ring);
        return;
    }
    if (!tiled)
        emit_pad_planes(s, emit, user);
    snprintf(name, sizeof name, "median_shared_hist_kernel<(int)%d,(bool)%d>", jf_median_hist_bits(k), tiled);
    emit(user, name, bx, by, smem);
}

/* ---- fast: min/max networks shared by blocks of outputs -------------------- */

static size_t fast1_smem(const jf_shape *s, int k, int bx, int by)
{
    int tile_w;
    return jf_median_fast_smem(k, 1, s->channels, bps(s), bx, by, &tile_w);
}

static size_t fast2_smem(const jf_shape *s, int k, int bx, int by)
{
    int tile_w;
    return jf_median_fast_smem(k, 2, s->channels, bps(s), bx, by, &tile_w);
}

static void fast_launch(const jf_shape *s, int k, int lanes, int bx, int by, jf_emit_fn emit,
                        void *user)
{
    char name[96];
    int tile_w;
    if (s->channels > 1)
        snprintf(name, sizeof name, "median_fast_interleaved_kernel<(int)%d,(int)%d,%s>", k, lanes,
                 jf_cuda_type_name(s));
    else if (k == 3) /* its own kernel: a register bound on compute capability 9.0 */
        snprintf(name, sizeof name, "median_fast_kernel3<(int)%d,%s>", lanes, jf_cuda_type_name(s));
    else
        snprintf(name, sizeof name, "median_fast_kernel<(int)%d,(int)%d,%s>", k, lanes, jf_cuda_type_name(s));
    emit(user, name, bx, by, jf_median_fast_smem(k, lanes, s->channels, bps(s), bx, by, &tile_w));
}

static void fast1_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                           jf_emit_fn emit, void *user)
{
    (void)dev;
    fast_launch(s, k, 1, bx, by, emit, user);
}

static void fast2_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                           jf_emit_fn emit, void *user)
{
    (void)dev;
    fast_launch(s, k, 2, bx, by, emit, user);
}

static size_t video_smem(const jf_shape *s, int k, int bx, int by)
{
    int tile_w;
    (void)s, (void)k;
    return jf_median_video_smem(bx, by, &tile_w);
}

static void video_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                           jf_emit_fn emit, void *user)
{
    (void)dev;
    emit(user, "median_fast_video_kernel", bx, by, video_smem(s, k, bx, by));
}

static void video_net_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                               jf_emit_fn emit, void *user)
{
    char name[64];
    (void)dev;
    snprintf(name, sizeof name, "median_fast_video_net_kernel<(int)%d>", k);
    emit(user, name, bx, by, fast1_smem(s, k, bx, by));
}

/* The strips, or where they do not run (large images, blocks that are
 * not whole warps) the two-lane networks in their own block. */
static void strip_launches(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                           jf_emit_fn emit, void *user)
{
    char name[64];
    (void)dev;
    if (!jf_median_strips_run(s->width, s->height, s->channels, bx * by)) {
        fast_launch(s, k, 2, JF_MEDIAN_FAST_BLOCK_X, JF_MEDIAN_FAST_BLOCK_Y, emit, user);
        return;
    }
    snprintf(name, sizeof name, "median_fast_strip_kernel<(int)%d>", s->channels);
    emit(user, name, bx * by, 1, 0);
}

static const jf_variant_row ROWS[] = {
    /* The CPU: no padded copy at k = 3 to 9 (each band pads the rows it
     * reads; float32 to 7: k = 9's networks are the largest code compiled,
     * kept to the integer depths); beyond, Perreault and Hebert's
     * histograms (median_cpu.c) */
    {.variant = JF_VARIANT_CPU, .kernel = "median_cpu_networks", .kmin = 3, .kmax = 7,
     .samples = S8 | S16 | SF, .what = "min/max networks over rows",
     .cpu = jf_median_networks_cpu, .cpu_work = jf_median_keys_bytes},
    {.variant = JF_VARIANT_CPU, .kernel = "median_cpu_networks", .kmin = 9, .kmax = 9,
     .samples = S8 | S16, .what = "min/max networks over rows",
     .cpu = jf_median_networks_cpu, .cpu_work = jf_median_keys_bytes},
    {.variant = JF_VARIANT_CPU, .kernel = "median_cpu_histogram", .kmin = 1,
     .kmax = JF_MEDIAN_MAX_KSIZE, .samples = S8, .what = "sliding histograms",
     .cpu = jf_median_histogram_cpu, .cpu_work = jf_median_padded_bytes},
    {.variant = JF_VARIANT_CPU, .kernel = "median_cpu_histogram16", .kmin = 1,
     .kmax = JF_MEDIAN_MAX_KSIZE, .samples = S16, .what = "two-level histograms of 16-bit samples",
     .cpu = jf_median_histogram16_cpu, .cpu_work = jf_median_padded_bytes},
    /* float32 beyond the networks: a selection in each window, on keys */
    {.variant = JF_VARIANT_CPU, .kernel = "median_cpu_select", .kmin = 1,
     .kmax = JF_MEDIAN_MAX_KSIZE, .samples = SF, .what = "a selection in each window",
     .cpu = jf_median_select_cpu, .cpu_work = jf_median_select_bytes},
    /* float32 at k = 3: the window read from the image itself, the network
     * on keys (median_float.cu); at 5 it measured slower than the padded
     * planes below */
    {.variant = JF_VARIANT_GLOBAL, .kernel = "median_float_kernel", .kmin = 3, .kmax = 3,
     .samples = SF, .what = "networks on float keys, the window from the image",
     .block_x = 64, .block_y = 4, .launches = float_launches,
     .run = JF_GPU_RUN(jf_median_float_run)},
    {.variant = JF_VARIANT_GLOBAL, .kernel = "median_global_kernel", .kmin = 1,
     .kmax = JF_MEDIAN_MAX_KSIZE, .samples = S8 | S16 | SF,
     .what = "bitwise selection from padded planes", .block_x = 32, .block_y = 8,
     .launches = global_launches, .run = JF_GPU_RUN(jf_median_global_run)},
    {.variant = JF_VARIANT_SHARED, .kernel = "median_shared_kernel", .kmin = 1, .kmax = 3,
     .samples = S8, .what = "a window a thread from the block's tile", .block_x = 32,
     .block_y = 8, .smem = window_smem, .launches = window_launches,
     .run = JF_GPU_RUN(jf_median_shared_run)},
    {.variant = JF_VARIANT_SHARED, .kernel = "median_shared_hist_kernel", .kmin = 5,
     .kmax = JF_MEDIAN_MAX_KSIZE, .samples = S8, .what = "sliding histograms", .block_x = 32,
     .block_y = 2, .smem = hist_smem, .launches = hist_launches,
     .run = JF_GPU_RUN(jf_median_shared_run)},
    /* k = 3, 8 bits, where 16-bit SIMD min/max and its three-input form are
     * one instruction: strips of rows through registers, ahead of the
     * networks (docs/kernels/studies.md, "Column strips through registers") */
    {.variant = JF_VARIANT_FAST, .kernel = "median_fast_strip_kernel", .kmin = 3, .kmax = 3,
     .samples = S8, .min_cc = JF_MEDIAN_LANES2_MIN_CC, .full_device = 1,
     .what = "strips of rows through registers, two samples a register", .block_x = 128,
     .block_y = 1, .launches = strip_launches, .lanes = 2, .run = JF_GPU_RUN(jf_median_strip_run)},
    /* two samples a register where 16-bit SIMD min/max is one instruction */
    {.variant = JF_VARIANT_FAST, .kernel = "median_fast_kernel", .kmin = 3, .kmax = 11,
     .samples = S8 | S16, .min_cc = JF_MEDIAN_LANES2_MIN_CC, .full_device = 1,
     .what = "min/max networks shared by blocks of outputs, two samples a register",
     .block_x = JF_MEDIAN_FAST_BLOCK_X, .block_y = JF_MEDIAN_FAST_BLOCK_Y, .smem = fast2_smem,
     .launches = fast2_launches, .lanes = 2, .run = JF_GPU_RUN(jf_median_fast_run)},
    /* k = 3, grey, 8 bits where video min/max with a second operation is
     * one instruction (the Nano): ahead of the networks below there */
    {.variant = JF_VARIANT_FAST, .kernel = "median_fast_video_kernel", .kmin = 3, .kmax = 3,
     .samples = S8, .grey_only = 1, .max_cc = JF_MEDIAN_VIDEO_MAX_CC,
     .what = "byte-selecting video min/max over column triples", .block_x = 8, .block_y = 4,
     .smem = video_smem, .launches = video_launches, .run = JF_GPU_RUN(jf_median_video_run)},
    /* k = 5 and 7 there: the networks below in video instructions, no unpacking */
    {.variant = JF_VARIANT_FAST, .kernel = "median_fast_video_net_kernel", .kmin = 5, .kmax = 7,
     .samples = S8, .grey_only = 1, .max_cc = JF_MEDIAN_VIDEO_MAX_CC,
     .what = "min/max networks in byte-selecting video instructions", .block_x = 32,
     .block_y = 4, .smem = fast1_smem, .launches = video_net_launches, .lanes = 1,
     .run = JF_GPU_RUN(jf_median_video_networks_run)},
    /* one sample a register: to k = 7 (at 9 and 11 these measured no faster
     * than the sliding histograms: docs/kernels/studies.md, "The fast GPU median") */
    {.variant = JF_VARIANT_FAST, .kernel = "median_fast_kernel", .kmin = 3, .kmax = 7,
     .samples = S8 | S16, .what = "min/max networks shared by blocks of outputs",
     .block_x = 32, .block_y = 4, .smem = fast1_smem, .launches = fast1_launches, .lanes = 1,
     .run = JF_GPU_RUN(jf_median_fast_run)},
};

/* From the sweeps in docs/kernels/studies.md ("The fast GPU median", "Histogram updates
 * nobody waits for"): the networks wherever they run to k = 9, and at
 * k = 11 below about 5 million samples (from there the histograms measured
 * faster: 1080p RGB, 4K and up), but below about 4 million samples at
 * k = 3 the global kernel (the networks' straight-line code costs a fixed
 * time however small the image); the histograms beyond the networks; a
 * copy at k = 1. */
static const jf_auto_pref PREFS[] = {
    {JF_VARIANT_GLOBAL, 1, 1, 0, "k = 1 is a copy"},
    {JF_VARIANT_GLOBAL, 3, 3, 4e6, "a small image at k = 3"},
    {JF_VARIANT_FAST, 3, 9, 0, "the fastest measured where it runs"},
    {JF_VARIANT_FAST, 11, 11, 5e6, "below about 5 M samples at k = 11"},
    {JF_VARIANT_SHARED, 1, JF_MEDIAN_MAX_KSIZE, 0, "beyond the networks"},
    {JF_VARIANT_GLOBAL, 1, JF_MEDIAN_MAX_KSIZE, 0, "where nothing faster runs"},
};

const jf_family jf_median_family = {
    "median", ROWS, (int)(sizeof ROWS / sizeof ROWS[0]), PREFS, (int)(sizeof PREFS / sizeof PREFS[0]),
    1};
