/*
 * Median, shared-memory tiles (the seed report's second kernel, finished).
 *
 * The block first loads its tile plus halo into shared memory straight from
 * the image, the border applied as it loads (jf_load_tile_src: coalesced
 * 4-byte words), so each input byte comes from DRAM once per block.
 * Then the selection:
 *
 * k = 1, 3: each thread takes its window from the tile (jf_median_select, the
 *   9-element network for k = 3).
 *
 * k >= 5: a sliding histogram per thread.  Thread (tx, ty) owns one column of
 *   the block and a strip of output rows in it (8 to 32).  Moving down one row
 *   removes the window's top row and adds a new bottom row: 2k histogram
 *   updates and a short walk of the median marker (Huang), instead of the
 *   8k^2 compares that selecting each window afresh costs (which is what the
 *   global variant does; that work, not memory traffic, bounds it for k >= 5).
 *   The updates are atomic adds nobody waits for (count_add): faster than a
 *   load, add and store each, the more so the larger k; with the tile,
 *   k = 5 to 29 run their rows with k a constant (slide_strip), faster again
 *   (docs/kernels/studies.md, "Histogram updates nobody waits for").
 *
 *      tile in shared memory          histograms in shared memory
 *      +----------------------+       word w of thread t at [w * threads + t]
 *      |  x x x x x   (halo)  |       4 bins of 8 bits (k <= 15, counts <= 225)
 *      |  | | | | |  strip of |       or 2 of 16 bits per word
 *      |  v v v v v  strip of |
 *      |            rows each |
 *      +----------------------+
 *
 *   Bank conflicts: thread t's words sit at w * threads + t; with threads a
 *   multiple of 32 the 32 lanes of a warp always hit 32 different banks,
 *   whatever bins their data selects.  Counters of one word belong to one
 *   thread, so a word is never shared between lanes.
 *
 *   The tile grows with k (rows: strip x block height + k - 1; columns:
 *   block width + k - 1), the counters do not (256 or 512 bytes a thread).
 *   Where the tile would pass the device's shared memory per block (48 KiB on
 *   the Nano: k >= 83 with the default block), the launcher first shortens
 *   the strips, then drops the tile: the same kernel reads the window's rows
 *   from padded planes in global memory (through L1; the one case here that
 *   runs the pad pass), and only the counters stay in shared memory, 32 KiB at most.  Never a failure for a
 *   large k.
 *
 * k >= 31 (JF_MEDIAN_RING_MIN_K; 25 on large images), where a 32-row strip
 *   spends as much on filling its histogram (k^2 counts) as on sliding (2k a
 *   row): strips of
 *   up to 256 rows (median_shared_ring_kernel), the block's 64 threads side
 *   by side, the window rows passing through a ring of 32 + k tile rows
 *   refilled 32 rows at a time, so the tile stays small and each image row
 *   is loaded once a block (docs/kernels/studies.md, "Long strips").  Below k = 31 the
 *   ring's extra work a row cost more than it saved.
 */
#include "filters/filter_cuda.cuh"
#include "filters/median/median.h"
#include "filters/median/median_shapes.h"
#include "filters/median/median_select.cuh"
#include "filters/resolve.h"
#include "filters/tile.cuh"

#define STRIP_MAX JF_MEDIAN_STRIP_MAX
#define STRIP_MIN JF_MEDIAN_STRIP_MIN

__global__ void median_shared_kernel(const jf_tile_src src, int w, int h, int ch, int k,
                                     unsigned char *__restrict__ out, size_t out_pitch,
                                     int tile_w)
{
    extern __shared__ unsigned int s_tile[];
    const int c = blockIdx.z;
    const int x0 = blockIdx.x * blockDim.x, y0 = blockIdx.y * blockDim.y;
    const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    jf_load_tile_src<unsigned char>(s_tile, tile_w, blockDim.y + k - 1, src, c, x0, y0);
    if (x >= w || y >= h)
        return;
    out[(size_t)y * out_pitch + (size_t)x * ch + c] = jf_median_select(
        (const unsigned char *)s_tile + threadIdx.y * tile_w + threadIdx.x, (size_t)tile_w, k);
}

/* Count of value v in a thread's histogram (see the layout above). */
template <int BITS>
__device__ __forceinline__ int bin_count(const unsigned int *hist, int nt, int v)
{
    return (int)((hist[(v / (32 / BITS)) * nt] >> ((v % (32 / BITS)) * BITS)) & ((1u << BITS) - 1u));
}

/* Sum of the counters packed in one word (no carries: 4 x 225 and 2 x 65025
 * fit in the lanes used). */
template <int BITS>
__device__ __forceinline__ int word_sum(unsigned int w)
{
    if (BITS == 8) {
        w = (w & 0x00FF00FFu) + ((w >> 8) & 0x00FF00FFu);
        return (int)((w & 0xFFFFu) + (w >> 16));
    }
    return (int)((w & 0xFFFFu) + (w >> 16));
}

/* Counter updates are shared-memory atomic adds whose results nobody reads,
 * so a thread issues a row's 2k of them without waiting on any.  As a load,
 * an add and a store, each update waited for the one before (the compiler
 * cannot tell two bins apart, so it keeps them in order): about three
 * shared-memory latencies an update.  The counters stay private to their
 * thread; the atomics are for the issue, not for sharing.  `dec` adds minus
 * one: the counter is at least one, so no borrow crosses into the next.
 * The funnel shift takes its count modulo 32: v * BITS is the bin's shift. */
template <int BITS>
__device__ __forceinline__ void count_add(unsigned int *hist, int nt, unsigned v, bool dec)
{
    enum { PER = 32 / BITS };
    atomicAdd((unsigned int *)((char *)hist + (v / PER) * (unsigned)(nt * 4)),
              __funnelshift_l(0u, dec ? ~0u : 1u, v * BITS));
}

/* 1 if a sample v is below m (both 0..256): v - m is then negative. */
__device__ __forceinline__ int below(unsigned v, int m) { return -(((int)v - m) >> 31); }

/* Samples are read BATCH at a time before their updates: a load after an
 * update waits for it (the same memory), so a load just before each update
 * put a load's latency between every two. */
#define BATCH 8

/* The counters of the window whose k rows start at t (stride apart), added
 * to zeroed counters, and its median: m, with lt the count below it. */
template <int BITS>
__device__ __forceinline__ void first_median(unsigned int *hist, int nt, const unsigned char *t,
                                             size_t stride, int k, int rank, int &m, int &lt)
{
    enum { PER = 32 / BITS };
    for (int j = 0; j < k; j++) {
        const unsigned char *row = t + j * stride;
        int i = 0;
        for (; i + BATCH <= k; i += BATCH) {
            unsigned v[BATCH];
#pragma unroll
            for (int b = 0; b < BATCH; b++)
                v[b] = row[i + b];
#pragma unroll
            for (int b = 0; b < BATCH; b++)
                count_add<BITS>(hist, nt, v[b], false);
        }
        for (; i < k; i++)
            count_add<BITS>(hist, nt, row[i], false);
    }
    /* whole words of counters at a time, then single bins */
    for (int n; m < 256 && lt + (n = word_sum<BITS>(hist[(m / PER) * nt])) <= rank; m += PER)
        lt += n;
    while (lt + bin_count<BITS>(hist, nt, m) <= rank)
        lt += bin_count<BITS>(hist, nt, m++);
}

/* One row down: the row `gone` leaves the window, `come` enters; m and lt
 * follow (Huang's walk).  K > 0: k is K, and the row's 2K samples are all
 * read before the first update (no loop, no tail read one by one). */
template <int BITS, int K>
__device__ __forceinline__ void slide_median(unsigned int *hist, int nt, const unsigned char *gone,
                                             const unsigned char *come, int k, int rank, int &m,
                                             int &lt)
{
    int i = 0;
    if (K > 0) {
        unsigned vo[K > 0 ? K : 1], vi[K > 0 ? K : 1];
#pragma unroll
        for (int b = 0; b < K; b++) {
            vo[b] = gone[b];
            vi[b] = come[b];
        }
#pragma unroll
        for (int b = 0; b < K; b++) {
            count_add<BITS>(hist, nt, vo[b], true);
            count_add<BITS>(hist, nt, vi[b], false);
            lt += below(vi[b], m) - below(vo[b], m);
        }
        i = K;
    }
    for (; K == 0 && i + BATCH <= k; i += BATCH) {
        unsigned vo[BATCH], vi[BATCH];
#pragma unroll
        for (int b = 0; b < BATCH; b++) {
            vo[b] = gone[i + b];
            vi[b] = come[i + b];
        }
#pragma unroll
        for (int b = 0; b < BATCH; b++) {
            count_add<BITS>(hist, nt, vo[b], true);
            count_add<BITS>(hist, nt, vi[b], false);
            lt += below(vi[b], m) - below(vo[b], m);
        }
    }
    for (; K == 0 && i < k; i++) {
        const unsigned vo = gone[i], vi = come[i];
        count_add<BITS>(hist, nt, vo, true);
        count_add<BITS>(hist, nt, vi, false);
        lt += below(vi, m) - below(vo, m);
    }
    while (lt > rank)
        lt -= bin_count<BITS>(hist, nt, --m);
    while (lt + bin_count<BITS>(hist, nt, m) <= rank)
        lt += bin_count<BITS>(hist, nt, m++);
}

/* Rows 1.. of a strip whose first window is counted (slide_median's K). */
template <int BITS, int K>
__device__ __forceinline__ void slide_strip(unsigned int *hist, int nt, const unsigned char *t,
                                            size_t stride, int k, int rank, int m, int lt,
                                            unsigned char *o, size_t out_pitch, int rows)
{
    for (int r = 1; r < rows; r++) {
        slide_median<BITS, K>(hist, nt, t + (r - 1) * stride, t + (r + k - 1) * stride, k, rank, m,
                              lt);
        o[(size_t)r * out_pitch] = (unsigned char)m;
    }
}

/* slide_strip with k a constant where k is one of K, K + 2, ..., KMAX,
 * else with k at run time. */
template <int BITS, int K, int KMAX, bool PAST = (K > KMAX)>
struct strip_k {
    static __device__ __forceinline__ void run(unsigned int *hist, int nt, const unsigned char *t,
                                               size_t stride, int k, int rank, int m, int lt,
                                               unsigned char *o, size_t out_pitch, int rows)
    {
        if (k == K)
            return slide_strip<BITS, K>(hist, nt, t, stride, k, rank, m, lt, o, out_pitch, rows);
        strip_k<BITS, K + 2, KMAX>::run(hist, nt, t, stride, k, rank, m, lt, o, out_pitch, rows);
    }
};
template <int BITS, int K, int KMAX>
struct strip_k<BITS, K, KMAX, true> {
    static __device__ __forceinline__ void run(unsigned int *hist, int nt, const unsigned char *t,
                                               size_t stride, int k, int rank, int m, int lt,
                                               unsigned char *o, size_t out_pitch, int rows)
    {
        slide_strip<BITS, 0>(hist, nt, t, stride, k, rank, m, lt, o, out_pitch, rows);
    }
};

/* TILED: the window rows come from the tile in shared memory, loaded from
 * `src`; else straight from the padded planes (large k on a device with
 * little shared memory). */
template <int BITS, bool TILED>
__global__ void median_shared_hist_kernel(const jf_tile_src src,
                                          const unsigned char *__restrict__ planes, size_t pitch,
                                          int plane_rows, int w, int h, int ch, int k,
                                          unsigned char *__restrict__ out, size_t out_pitch,
                                          int tile_w, int strip)
{
    enum { PER = 32 / BITS, WORDS = 256 / PER };
    extern __shared__ unsigned int smem[];
    const int nt = blockDim.x * blockDim.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int rows_out = blockDim.y * strip;
    const int tile_h = TILED ? rows_out + k - 1 : 0;
    unsigned int *hist = smem + (tile_h * tile_w) / 4 + tid;
    const int c = blockIdx.z;
    const int x0 = blockIdx.x * blockDim.x, y0 = blockIdx.y * rows_out;
    const int x = x0 + threadIdx.x, ys = y0 + threadIdx.y * strip;
    const int rank = (k * k) / 2;
    const unsigned char *plane = TILED ? planes : planes + (size_t)c * plane_rows * pitch;
    if (TILED)
        jf_load_tile_src<unsigned char>(smem, tile_w, tile_h, src, c, x0, y0);
    if (x >= w || ys >= h)
        return;

    /* t: the first window row of this thread's strip; rows `stride` apart */
    const size_t stride = TILED ? (size_t)tile_w : pitch;
    const unsigned char *t = TILED
        ? (const unsigned char *)smem + threadIdx.y * strip * tile_w + threadIdx.x
        : plane + (size_t)ys * pitch + x;
    unsigned char *o = out + (size_t)ys * out_pitch + (size_t)x * ch + c;
    const int rows = h - ys < strip ? h - ys : strip;
    int m = 0, lt = 0;

    for (int i = 0; i < WORDS; i++)
        hist[i * nt] = 0u;
    first_median<BITS>(hist, nt, t, stride, k, rank, m, lt);
    o[0] = (unsigned char)m;
    if (TILED) /* k = 5..15 (8-bit counters), 17..29 (16-bit) as constants */
        return strip_k<BITS, BITS == 8 ? 5 : 17, BITS == 8 ? 15 : 29>::run(
            hist, nt, t, stride, k, rank, m, lt, o, out_pitch, rows);
    slide_strip<BITS, 0>(hist, nt, t, stride, k, rank, m, lt, o, out_pitch, rows);
}

/* Long strips at large k (16-bit counters): the block's bx x by threads
 * are consecutive columns, each sliding down a strip of `strip` rows; the
 * window rows pass through a ring of chunk + k tile rows (strip row j in
 * slot j % ring), refilled `chunk` rows at a time, so each image row is
 * loaded once a block however long the strip (median_shapes.h says when). */
__global__ void median_shared_ring_kernel(const jf_tile_src src, int w, int h, int ch, int k,
                                          unsigned char *__restrict__ out, size_t out_pitch,
                                          int tile_w, int strip, int chunk)
{
    enum { BITS = 16, WORDS = 256 * BITS / 32 };
    extern __shared__ unsigned int smem[];
    const int nt = blockDim.x * blockDim.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int ring = chunk + k;
    unsigned int *hist = smem + (size_t)ring * tile_w / 4 + tid;
    const int c = blockIdx.z;
    const int x0 = blockIdx.x * nt, ys = blockIdx.y * strip, x = x0 + tid;
    const int rank = (k * k) / 2, rows = h - ys < strip ? h - ys : strip;
    const size_t stride = (size_t)tile_w;
    /* strip rows r - 1 and r + k - 1 as r slides; `end`: past the last slot */
    const unsigned char *const base = (const unsigned char *)smem + tid;
    const unsigned char *const end = base + ring * stride;
    const unsigned char *gone = base, *come = base + k * stride;
    unsigned char *o = out + (size_t)ys * out_pitch + (size_t)x * ch + c;
    int m = 0, lt = 0, loaded = 0;

    for (int r0 = 0; r0 < rows; r0 += chunk) {
        const int r1 = rows - r0 < chunk ? rows : r0 + chunk;
        int r = r0;
        /* rows up to r1 + k - 2; the slots they take held rows before r0 - 1 */
        if (r0 > 0)
            __syncthreads();
        while (loaded < r1 + k - 1) {
            const int slot = loaded % ring, left = r1 + k - 1 - loaded;
            const int n = left < ring - slot ? left : ring - slot;
            jf_load_tile_src<unsigned char>(smem + (size_t)slot * tile_w / 4, tile_w, n, src, c, x0,
                                            ys + loaded);
            loaded += n;
        }
        if (x >= w)
            continue; /* past the image: loads and barriers only */
        if (r == 0) {
            /* 4 at a time: unrolled wholly, the addresses took 128 registers */
#pragma unroll 4
            for (int i = 0; i < WORDS; i++)
                hist[i * nt] = 0u;
            first_median<BITS>(hist, nt, base, stride, k, rank, m, lt);
            o[0] = (unsigned char)m;
            r = 1;
        }
        for (; r < r1; r++) {
            slide_median<BITS, 0>(hist, nt, gone, come, k, rank, m, lt);
            o[(size_t)r * out_pitch] = (unsigned char)m;
            gone = gone + stride == end ? base : gone + stride;
            come = come + stride == end ? base : come + stride;
        }
    }
}

static size_t hist_bytes(int threads, int k) { return jf_median_hist_bytes(threads, k); }
static size_t tile_bytes(int bx, int rows, int k) { return jf_median_shared_tile_bytes(bx, rows, k); }

/* Longest strip (STRIP_MAX..STRIP_MIN) that still gives every SM 12 blocks. */
static int choose_strip(const jf_image *shape, int bx, int by, int sms)
{
    int strip = STRIP_MAX;
    while (strip > STRIP_MIN) {
        long long blocks = (long long)((shape->width + bx - 1) / bx) *
                           ((shape->height + by * strip - 1) / (by * strip)) * shape->channels;
        if (blocks >= 12LL * sms)
            break;
        strip /= 2;
    }
    return strip;
}

/* The histogram kernel for this k: 8- or 16-bit counters
 * (jf_median_hist_bits), tiled or not. */
static const void *hist_kernel(int k, bool tiled)
{
    if (jf_median_hist_bits(k) == 8)
        return tiled ? (const void *)median_shared_hist_kernel<8, true>
                     : (const void *)median_shared_hist_kernel<8, false>;
    return tiled ? (const void *)median_shared_hist_kernel<16, true>
                 : (const void *)median_shared_hist_kernel<16, false>;
}

static jf_status launch_window(jf_context *ctx, const jf_filter_in *in, int k, int bx, int by,
                               const jf_dview *out)
{
    const jf_image *shape = in->shape;
    const dim3 block((unsigned)bx, (unsigned)by);
    const int tile_w = jf_tile_width(bx, k);
    const size_t smem = tile_bytes(bx, by, k);
    jf_status st;
    int id;
    if ((st = jf_gpu_launch_fits(ctx, (const void *)median_shared_kernel, "median shared",
                                 bx * by, smem)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    median_shared_kernel<<<jf_grid(shape->width, shape->height, shape->channels, block), block,
                           smem, ctx->gpu->stream>>>(in->src, shape->width, shape->height, shape->channels,
                                                     k, out->ptr, out->pitch, tile_w);
    return jf_gpu_filter_done(ctx, id, "median_shared_kernel", "median", "shared", k, shape, 0);
}

/* The ring kernel over strips of `strip` rows (jf_median_ring_strip). */
static jf_status launch_ring(jf_context *ctx, const jf_filter_in *in, int k, int bx, int by,
                             int strip, int chunk, size_t smem, const jf_dview *out)
{
    const jf_image *shape = in->shape;
    const int threads = bx * by, tile_w = jf_tile_width(threads, k);
    const dim3 block((unsigned)bx, (unsigned)by);
    jf_status st;
    int id;
    if ((st = jf_gpu_launch_fits(ctx, (const void *)median_shared_ring_kernel, "median shared",
                                 threads, smem)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    median_shared_ring_kernel<<<jf_grid(shape->width, shape->height, shape->channels,
                                        dim3((unsigned)threads, (unsigned)strip)),
                                block, smem, ctx->gpu->stream>>>(in->src, shape->width, shape->height,
                                                                 shape->channels, k, out->ptr,
                                                                 out->pitch, tile_w, strip, chunk);
    return jf_gpu_filter_done(ctx, id, "median_shared_ring_kernel", "median", "shared", k, shape, 0);
}

static jf_status launch_hist(jf_context *ctx, const jf_filter_in *in, int k, int bx, int by,
                             const jf_dview *out)
{
    const jf_image *shape = in->shape;
    jf_dview planes = {NULL, 0};
    int plane_rows = 0;
    const int threads = bx * by, tile_w = jf_tile_width(bx, k);
    const dim3 block((unsigned)bx, (unsigned)by);
    int strip = choose_strip(shape, bx, by, ctx->gpu->info.multiprocessors);
    int long_strip, ring_chunk;
    const size_t ring_smem = jf_median_ring_plan(shape->width, shape->height, shape->channels, threads,
                                                 k, ctx->gpu->info.multiprocessors,
                                                 jf_device_smem_limit(&ctx->gpu->info), &long_strip,
                                                 &ring_chunk);
    bool tiled = true;
    size_t smem;
    jf_status st;
    int id;
    if (threads % 32 != 0)
        return jf_fail(JF_ERR_ARG, "median shared: block %dx%d: for k >= 5 the thread count "
                       "must be a multiple of 32", bx, by);
    if (ring_smem > 0)
        return launch_ring(ctx, in, k, bx, by, long_strip, ring_chunk, ring_smem, out);
    /* shorter strips, then no tile, until it fits the device */
    while (!jf_gpu_launch_ok(ctx, hist_kernel(k, true), threads,
                             tile_bytes(bx, by * strip, k) + hist_bytes(threads, k)) && strip > 1)
        strip /= 2;
    smem = tile_bytes(bx, by * strip, k) + hist_bytes(threads, k);
    if (!jf_gpu_launch_ok(ctx, hist_kernel(k, true), threads, smem)) {
        tiled = false;
        strip = choose_strip(shape, bx, by, ctx->gpu->info.multiprocessors);
        smem = hist_bytes(threads, k);
        if ((st = jf_gpu_filter_planes(ctx, in, &planes, &plane_rows)) != JF_OK)
            return st;
    }
    if ((st = jf_gpu_launch_fits(ctx, hist_kernel(k, tiled), "median shared", threads, smem)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    const dim3 grid = jf_grid(shape->width, shape->height, shape->channels,
                              dim3((unsigned)bx, (unsigned)(by * strip)));
#define JF_HIST_ARGS in->src, planes.ptr, planes.pitch, plane_rows, shape->width, shape->height, \
                     shape->channels, k, out->ptr, out->pitch, tile_w, strip
    if (jf_median_hist_bits(k) == 8 && tiled)
        median_shared_hist_kernel<8, true><<<grid, block, smem, ctx->gpu->stream>>>(JF_HIST_ARGS);
    else if (jf_median_hist_bits(k) == 8)
        median_shared_hist_kernel<8, false><<<grid, block, smem, ctx->gpu->stream>>>(JF_HIST_ARGS);
    else if (tiled)
        median_shared_hist_kernel<16, true><<<grid, block, smem, ctx->gpu->stream>>>(JF_HIST_ARGS);
    else
        median_shared_hist_kernel<16, false><<<grid, block, smem, ctx->gpu->stream>>>(JF_HIST_ARGS);
#undef JF_HIST_ARGS
    return jf_gpu_filter_done(ctx, id, "median_shared_hist_kernel", "median", "shared", k, shape, !tiled);
}

/* The blocks are the variant table's (median_variants.c): 32 x 8 for the
 * window kernel; 32 x 2 for the histogram kernel (64 threads x 256 or 512
 * bytes of counters leave room for a tile in 48 KiB, the Nano's limit). */
jf_status jf_median_shared_launch(jf_context *ctx, const jf_filter_in *in, int k, const jf_choice *c,
                                  const jf_dview *out)
{
    return k >= 5 ? launch_hist(ctx, in, k, c->block_x, c->block_y, out)
                  : launch_window(ctx, in, k, c->block_x, c->block_y, out);
}
