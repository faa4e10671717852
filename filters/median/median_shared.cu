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
 */
#include "filters/filter_cuda.cuh"
#include "filters/median/median.h"
#include "filters/median/median_shapes.h"
#include "filters/median/median_select.cuh"
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
    for (int j = 0; j < k; j++)
        for (int i = 0; i < k; i++) {
            const unsigned v = t[j * stride + i];
            hist[(v / PER) * nt] += 1u << ((v % PER) * BITS);
        }
    /* first median: whole words of counters at a time, then single bins */
    for (int n; m < 256 && lt + (n = word_sum<BITS>(hist[(m / PER) * nt])) <= rank; m += PER)
        lt += n;
    while (lt + bin_count<BITS>(hist, nt, m) <= rank)
        lt += bin_count<BITS>(hist, nt, m++);
    o[0] = (unsigned char)m;

    for (int r = 1; r < rows; r++) {
        const unsigned char *gone = t + (r - 1) * stride, *come = t + (r + k - 1) * stride;
        for (int i = 0; i < k; i++) {
            const unsigned vo = gone[i], vi = come[i];
            hist[(vo / PER) * nt] -= 1u << ((vo % PER) * BITS);
            hist[(vi / PER) * nt] += 1u << ((vi % PER) * BITS);
            lt += ((int)vi < m) - ((int)vo < m);
        }
        while (lt > rank)
            lt -= bin_count<BITS>(hist, nt, --m);
        while (lt + bin_count<BITS>(hist, nt, m) <= rank)
            lt += bin_count<BITS>(hist, nt, m++);
        o[(size_t)r * out_pitch] = (unsigned char)m;
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

/* The histogram kernel for this k: 8- or 16-bit counters, tiled or not. */
static const void *hist_kernel(int k, bool tiled)
{
    if (k <= 15)
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

static jf_status launch_hist(jf_context *ctx, const jf_filter_in *in, int k, int bx, int by,
                             const jf_dview *out)
{
    const jf_image *shape = in->shape;
    jf_dview planes = {NULL, 0};
    int plane_rows = 0;
    const int threads = bx * by, tile_w = jf_tile_width(bx, k);
    const dim3 block((unsigned)bx, (unsigned)by);
    int strip = choose_strip(shape, bx, by, ctx->gpu->info.multiprocessors);
    bool tiled = true;
    size_t smem;
    jf_status st;
    int id;
    if (threads % 32 != 0)
        return jf_fail(JF_ERR_ARG, "median shared: block %dx%d: for k >= 5 the thread count "
                       "must be a multiple of 32", bx, by);
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
    if (k <= 15 && tiled)
        median_shared_hist_kernel<8, true><<<grid, block, smem, ctx->gpu->stream>>>(JF_HIST_ARGS);
    else if (k <= 15)
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
