/*
 * Median, fast variant (k = 3 to 11): shared min/max networks over blocks
 * of outputs.
 *
 * The windows of neighbouring outputs overlap almost entirely, so each
 * thread computes a block of outputs (4 x 8 at k = 3, 2 x 8 above) with
 * one network that sorts what the windows share once (median_fast_net.cuh,
 * generated and checked by scripts/gen_median_fast.py): per output 16.2
 * min/max at k = 3, 65 at 5, 138 at 7, 237 at 9, 352 at 11, where selecting every window afresh
 * costs 30 min/max at k = 3 and 8k^2 compare-and-adds at 5 and 7 (the
 * global variant) or a histogram walk (the shared one).
 * The block's tile comes through shared memory as in the other variants;
 * each thread reads its (2 + k - 1) x (8 + k - 1) inputs in pieces of 8
 * samples (8 or 16 bytes).
 *
 * Two lanes per register where the GPU has 16-bit SIMD min/max (compute
 * capability 9.0: min.u16x2 / max.u16x2 are single instructions): each
 * register carries one sample of the thread's block in its high half and
 * the same sample of a second block further down the tile in its low half,
 * so every min/max does two outputs' work.  Each sample sits in the high
 * byte of its 16-bit lane and the low byte is whatever the byte permute
 * left there: a min or max of 16-bit lanes orders them by the high byte
 * first, so the high byte of every result is exactly the min or max of the
 * high bytes, whatever the low bytes hold.  Elsewhere (the Nano's sm_53,
 * where 16-bit SIMD min/max is emulated) one sample per register, and only
 * up to k = 7 (jf_median_fast_runs); there grey 8-bit k = 5 and 7 run the
 * same networks as byte-selecting video instructions (fast_block_video).
 *
 * 16-bit samples run the same networks: two lanes hold two whole samples
 * (a 16-bit min or max is exact on them), one lane one sample; only the
 * tile (twice the bytes) and the unpacking differ (fast_sample).
 *
 * Several channels: the block runs the channels one after another through the
 * same tile (each gathered from the interleaved image), keeps the outputs
 * in a planar output tile and writes them interleaved in 16-byte pieces (as
 * the fast convolution does).
 */
#include "filters/filter_cuda.cuh"
#include "filters/median/median.h"
#include "filters/median/median_shapes.h"
#include "filters/median/median_select.cuh" /* jf_min / jf_max: one sample per register */
#include "filters/tile.cuh"

/* Two samples per register, one in the high byte of each 16-bit lane. */
struct jf_lanes2 {
    unsigned v;
};
__device__ __forceinline__ jf_lanes2 jf_min(jf_lanes2 a, jf_lanes2 b)
{
    jf_lanes2 r = {__vminu2(a.v, b.v)};
    return r;
}
__device__ __forceinline__ jf_lanes2 jf_max(jf_lanes2 a, jf_lanes2 b)
{
    jf_lanes2 r = {__vmaxu2(a.v, b.v)};
    return r;
}

/* after every jf_min / jf_max (the networks call them on their template
 * type) and the video instructions (the video networks call them) */
#include "filters/median/median_video.cuh"
#include "filters/median/median_fast_net.cuh"

/* A thread's block: ROWS x COLS outputs from IN_ROWS x IN_COLS inputs,
 * read as PIECES of 8 samples a row (8 bytes at 8 bits, 16 at 16); with two
 * lanes a second block lies `lane_rows` below the first. */
template <int K>
struct fast_block {
    typedef jf_median_net<K> Net;
    enum { ROWS = Net::ROWS, COLS = Net::COLS, IN_ROWS = Net::IN_ROWS, IN_COLS = Net::IN_COLS,
           PIECES = (IN_COLS + 7) / 8 /* 8-sample pieces per input row */ };
    /* the variant table sizes blocks from median_shapes.h: the same shape */
    static_assert(ROWS == JF_MEDIAN_FAST_ROWS(K) && COLS == JF_MEDIAN_FAST_COLS &&
                      IN_COLS == COLS + K - 1,
                  "median_shapes.h and median_fast_net.cuh disagree");
};

/* The two-lane kernels are compiled only where they can be launched
 * (median_variants.c): elsewhere their bodies are empty, so the Nano's
 * sm_53 build carries no code for them (it spilled there). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < JF_MEDIAN_LANES2_MIN_CC * 10
#define JF_LANES_COMPILED(lanes) ((lanes) == 1)
#else
#define JF_LANES_COMPILED(lanes) 1
#endif

/* How a sample type sits in the tile and in the network's registers. */
template <typename T> struct fast_sample;

/* 8 bits: a piece is two words of four samples.  Two lanes: sample i of
 * piece a into bits 8-15, of piece b into bits 24-31 (the low byte of each
 * lane is left over from the permute and never reaches the high byte of a
 * 16-bit min or max). */
template <> struct fast_sample<unsigned char> {
    enum { WORDS = 2 };
    static __device__ __forceinline__ void load(const unsigned char *p, unsigned (&w)[WORDS])
    {
        const uint2 v = *(const uint2 *)p;
        w[0] = v.x;
        w[1] = v.y;
    }
    static __device__ __forceinline__ unsigned one(const unsigned (&w)[WORDS], int i)
    {
        return (w[i >> 2] >> (8 * (i & 3))) & 0xFFu;
    }
    static __device__ __forceinline__ unsigned two(const unsigned (&a)[WORDS],
                                                   const unsigned (&b)[WORDS], int i)
    {
        const unsigned s = (unsigned)(i & 3);
        return __byte_perm(b[i >> 2], a[i >> 2], s | ((s + 4) << 4) | (s << 8) | (s << 12));
    }
    static __device__ __forceinline__ unsigned char lane(unsigned v, int l)
    {
        return (unsigned char)(v >> (l ? 24 : 8));
    }
};

/* 16 bits: a piece is four words of two samples.  Two lanes: sample i of
 * piece a in the low half, of piece b in the high half, whole: a 16-bit
 * min or max orders them exactly. */
template <> struct fast_sample<unsigned short> {
    enum { WORDS = 4 };
    static __device__ __forceinline__ void load(const unsigned char *p, unsigned (&w)[WORDS])
    {
        const uint4 v = *(const uint4 *)p;
        w[0] = v.x;
        w[1] = v.y;
        w[2] = v.z;
        w[3] = v.w;
    }
    static __device__ __forceinline__ unsigned one(const unsigned (&w)[WORDS], int i)
    {
        return (w[i >> 1] >> (16 * (i & 1))) & 0xFFFFu;
    }
    static __device__ __forceinline__ unsigned two(const unsigned (&a)[WORDS],
                                                   const unsigned (&b)[WORDS], int i)
    {
        return __byte_perm(a[i >> 1], b[i >> 1], (i & 1) ? 0x7632u : 0x5410u);
    }
    static __device__ __forceinline__ unsigned short lane(unsigned v, int l)
    {
        return (unsigned short)(l ? v >> 16 : v & 0xFFFFu);
    }
};

/* The medians of the thread's block(s): res[lane][row][col].  `lx` counts
 * samples, `tile_w` bytes. */
template <int K, int LANES, typename T>
__device__ __forceinline__ void fast_block_medians(const unsigned char *s_tile, int tile_w, int lx,
                                                   int ly, int lane_rows,
                                                   T (&res)[LANES][jf_median_net<K>::ROWS]
                                                           [jf_median_net<K>::COLS])
{
    typedef fast_block<K> B;
    typedef fast_sample<T> S;
    const unsigned char *base = s_tile + lx * (int)sizeof(T);
    if (LANES == 1) {
        unsigned in[B::IN_ROWS][B::IN_COLS], out[B::ROWS][B::COLS];
#pragma unroll
        for (int r = 0; r < B::IN_ROWS; r++) {
#pragma unroll
            for (int q = 0; q < B::PIECES; q++) {
                unsigned w[S::WORDS];
                S::load(base + (ly + r) * tile_w + 8 * q * (int)sizeof(T), w);
#pragma unroll
                for (int i = 0; i < 8 && 8 * q + i < B::IN_COLS; i++)
                    in[r][8 * q + i] = S::one(w, i);
            }
        }
        jf_median_net<K>::run(in, out);
#pragma unroll
        for (int r = 0; r < B::ROWS; r++)
#pragma unroll
            for (int c = 0; c < B::COLS; c++)
                res[0][r][c] = (T)out[r][c];
    } else {
        jf_lanes2 in[B::IN_ROWS][B::IN_COLS], out[B::ROWS][B::COLS];
#pragma unroll
        for (int r = 0; r < B::IN_ROWS; r++) {
#pragma unroll
            for (int q = 0; q < B::PIECES; q++) {
                unsigned a[S::WORDS], b[S::WORDS];
                S::load(base + (ly + r) * tile_w + 8 * q * (int)sizeof(T), a);
                S::load(base + (ly + lane_rows + r) * tile_w + 8 * q * (int)sizeof(T), b);
#pragma unroll
                for (int i = 0; i < 8 && 8 * q + i < B::IN_COLS; i++)
                    in[r][8 * q + i].v = S::two(a, b, i);
            }
        }
        jf_median_net<K>::run(in, out);
#pragma unroll
        for (int r = 0; r < B::ROWS; r++)
#pragma unroll
            for (int c = 0; c < B::COLS; c++) {
                res[0][r][c] = S::lane(out[r][c].v, 0);
                res[LANES - 1][r][c] = S::lane(out[r][c].v, 1);
            }
    }
}

/* 8-bit grey where video min/max is one instruction (compute capability
 * 5.x and 6.x, the Nano; jf_median_vnet): the window's rows go into the
 * network as the words they are in the tile, 4 samples each, and come out
 * as whole registers, so no sample is unpacked; per output 53.6
 * instructions for 65.1 min/max at k = 5, 118 for 137.5 at k = 7 (a min or
 * max that feeds only one other is one instruction with it). */
template <int K, typename T>
__device__ __forceinline__ void fast_block_video(const unsigned char *s_tile, int tile_w, int lx,
                                                 int ly,
                                                 T (&res)[jf_median_net<K>::ROWS]
                                                         [jf_median_net<K>::COLS])
{
    typedef jf_median_vnet<K> Net;
    static_assert(Net::ROWS == fast_block<K>::ROWS && Net::COLS == fast_block<K>::COLS &&
                      Net::IN_COLS == fast_block<K>::IN_COLS,
                  "the video network's block is the fast variant's");
    const unsigned char *base = s_tile + lx; /* 8-byte aligned: lx is a multiple of 8 */
    unsigned w[Net::IN_ROWS][Net::IN_WORDS], out[Net::ROWS][Net::COLS];
#pragma unroll
    for (int r = 0; r < Net::IN_ROWS; r++) {
        const unsigned char *row = base + (ly + r) * tile_w;
#pragma unroll
        for (int q = 0; q + 1 < Net::IN_WORDS; q += 2) {
            const uint2 v = *(const uint2 *)(row + 4 * q);
            w[r][q] = v.x;
            w[r][q + 1] = v.y;
        }
        if (Net::IN_WORDS % 2)
            w[r][Net::IN_WORDS - 1] = *(const unsigned *)(row + 4 * (Net::IN_WORDS - 1));
    }
    Net::run(w, out);
#pragma unroll
    for (int r = 0; r < Net::ROWS; r++)
#pragma unroll
        for (int c = 0; c < Net::COLS; c++)
            res[r][c] = (T)out[r][c];
}

/* Which of the two computes a block: VIDEO only with one lane of 8 bits. */
template <bool VIDEO>
struct fast_block_run {
    template <int K, int LANES, typename T>
    static __device__ __forceinline__ void run(const unsigned char *s_tile, int tile_w, int lx, int ly,
                                               int lane_rows,
                                               T (&res)[LANES][jf_median_net<K>::ROWS]
                                                       [jf_median_net<K>::COLS])
    {
        fast_block_medians<K, LANES, T>(s_tile, tile_w, lx, ly, lane_rows, res);
    }
};
template <>
struct fast_block_run<true> {
    template <int K, int LANES, typename T>
    static __device__ __forceinline__ void run(const unsigned char *s_tile, int tile_w, int lx, int ly,
                                               int,
                                               T (&res)[LANES][jf_median_net<K>::ROWS]
                                                       [jf_median_net<K>::COLS])
    {
        fast_block_video<K, T>(s_tile, tile_w, lx, ly, res[0]);
    }
};

/* A row of 8 results as words, samples in memory order. */
template <typename T>
__device__ __forceinline__ void fast_row_words(const T (&row)[8], unsigned (&wd)[2 * sizeof(T)])
{
#pragma unroll
    for (int q = 0; q < 2 * (int)sizeof(T); q++) {
        wd[q] = 0;
#pragma unroll
        for (int j = 0; j < 4 / (int)sizeof(T); j++)
            wd[q] |= (unsigned)row[q * (4 / (int)sizeof(T)) + j] << (8 * (int)sizeof(T) * j);
    }
}

/* Grey: each thread stores its own outputs, a row of 8 in one 8- or 16-byte
 * store (words, or samples, where the output's alignment does not allow
 * it). */
template <int K, int LANES, typename T, bool VIDEO>
__device__ __forceinline__ void median_fast_grey(const jf_tile_src &src, int w, int h,
                                                 unsigned char *__restrict__ out, size_t out_pitch,
                                                 int tile_w, int word_stores)
{
    typedef fast_block<K> B;
    extern __shared__ unsigned int s_tile[];
    if (!JF_LANES_COMPILED(LANES))
        return;
    const int lane_rows = blockDim.y * B::ROWS;
    const int x0 = blockIdx.x * blockDim.x * B::COLS, y0 = blockIdx.y * lane_rows * LANES;
    const int lx = threadIdx.x * B::COLS, ly = threadIdx.y * B::ROWS;
    T res[LANES][B::ROWS][B::COLS];
    static_assert(B::COLS == 8, "a row of outputs is one 8-sample store");

    jf_load_tile_src16<T, 1>(s_tile, tile_w, lane_rows * LANES + K - 1, src, 0, x0, y0);
    const int ox = x0 + lx;
    if (ox >= w || y0 + ly >= h)
        return;
    fast_block_run<VIDEO>::template run<K, LANES, T>((const unsigned char *)s_tile, tile_w, lx, ly,
                                                     lane_rows, res);
#pragma unroll
    for (int l = 0; l < LANES; l++)
#pragma unroll
        for (int r = 0; r < B::ROWS; r++) {
            const int y = y0 + ly + l * lane_rows + r;
            if (y >= h)
                break;
            unsigned char *o = out + (size_t)y * out_pitch + (size_t)ox * sizeof(T);
            if (word_stores && ox + B::COLS <= w) {
                unsigned wd[2 * sizeof(T)];
                fast_row_words<T>(res[l][r], wd);
                if (word_stores == 2) /* one store a row */
                    jf_store_words(o, wd);
                else
#pragma unroll
                    for (int q = 0; q < 2 * (int)sizeof(T); q++)
                        ((unsigned *)o)[q] = wd[q];
            } else {
#pragma unroll
                for (int c = 0; c < B::COLS; c++)
                    if (ox + c < w)
                        ((T *)o)[c] = res[l][r][c];
            }
        }
}

template <int K, int LANES, typename T>
__global__ void median_fast_kernel(const jf_tile_src src, int w, int h, unsigned char *__restrict__ out,
                                   size_t out_pitch, int tile_w, int word_stores)
{
    median_fast_grey<K, LANES, T, false>(src, w, h, out, out_pitch, tile_w, word_stores);
}

/* 8-bit grey through the video networks (the variant table runs it on
 * compute capability 5.x and 6.x, and under the Nano's limits). */
template <int K>
__global__ void median_fast_video_net_kernel(const jf_tile_src src, int w, int h,
                                             unsigned char *__restrict__ out, size_t out_pitch,
                                             int tile_w, int word_stores)
{
    median_fast_grey<K, 1, unsigned char, true>(src, w, h, out, out_pitch, tile_w, word_stores);
}

/* k = 3 held to 64 registers on compute capability 9.0 (the bound any
 * block up to 1024 threads implies there): unbounded, ptxas gives the
 * two-lane 8-bit kernel 66, 7 blocks of 128 threads an SM where 8 fit at
 * 64, and the 1020 blocks of a 3840x2160 image then need a second, nearly
 * empty wave on 132 SMs; held to 64, 4 bytes spill and 4K and 8K grey ran
 * faster on the H200 (docs/kernels/studies.md, "The fast GPU median").
 * Elsewhere unbounded: the Nano allows 32K registers a block, so the same
 * bound would mean 32 a thread and spills; the larger k spill heavily at
 * 64 and stay unbounded everywhere. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define JF_MEDIAN_FAST3_BOUNDS __launch_bounds__(1024)
#else
#define JF_MEDIAN_FAST3_BOUNDS
#endif
template <int LANES, typename T>
__global__ void JF_MEDIAN_FAST3_BOUNDS
    median_fast_kernel3(const jf_tile_src src, int w, int h, unsigned char *__restrict__ out,
                        size_t out_pitch, int tile_w, int word_stores)
{
    median_fast_grey<3, LANES, T, false>(src, w, h, out, out_pitch, tile_w, word_stores);
}

typedef void (*fast_grey_fn)(const jf_tile_src, int, int, unsigned char *, size_t, int, int);
template <int K, int LANES, typename T, bool VIDEO = false>
struct fast_grey {
    static fast_grey_fn kernel() { return median_fast_kernel<K, LANES, T>; }
    static const char *name() { return "median_fast_kernel"; }
};
template <int LANES, typename T>
struct fast_grey<3, LANES, T, false> {
    static fast_grey_fn kernel() { return median_fast_kernel3<LANES, T>; }
    static const char *name() { return "median_fast_kernel"; }
};
template <int K>
struct fast_grey<K, 1, unsigned char, true> {
    static fast_grey_fn kernel() { return median_fast_video_net_kernel<K>; }
    static const char *name() { return "median_fast_video_net_kernel"; }
};

/* Several channels: each channel in turn through one tile, each thread's
 * rows of 8 outputs stored whole into that channel's plane of the output
 * tile, which the block then writes interleaved (jf_write_out_planes). */
template <int K, int LANES, typename T>
__global__ void median_fast_interleaved_kernel(const jf_tile_src src, int w, int h, int ch,
                                               unsigned char *__restrict__ out, size_t out_pitch,
                                               int tile_w, int out_piece)
{
    typedef fast_block<K> B;
    extern __shared__ unsigned int smem[];
    if (!JF_LANES_COMPILED(LANES))
        return;
    const int lane_rows = blockDim.y * B::ROWS;
    const int rows_out = lane_rows * LANES, cols_out = blockDim.x * B::COLS;
    const int tile_h = rows_out + K - 1;
    unsigned char *s_out = (unsigned char *)(smem + tile_h * tile_w / 4);
    const int row_bytes = cols_out * (int)sizeof(T), plane_bytes = rows_out * row_bytes;
    const int x0 = blockIdx.x * cols_out, y0 = blockIdx.y * rows_out;
    const int lx = threadIdx.x * B::COLS, ly = threadIdx.y * B::ROWS;
    T res[LANES][B::ROWS][B::COLS];

    for (int c = 0; c < ch; c++) {
        if (c > 0)
            __syncthreads(); /* everyone is done with the previous plane's tile */
        jf_load_tile_src16<T>(smem, tile_w, tile_h, src, c, x0, y0);
        fast_block_medians<K, LANES, T>((const unsigned char *)smem, tile_w, lx, ly, lane_rows,
                                        res);
#pragma unroll
        for (int l = 0; l < LANES; l++)
#pragma unroll
            for (int r = 0; r < B::ROWS; r++) {
                unsigned wd[2 * sizeof(T)];
                fast_row_words<T>(res[l][r], wd);
                jf_store_words(s_out + c * plane_bytes + (ly + l * lane_rows + r) * row_bytes +
                                   lx * (int)sizeof(T),
                               wd);
            }
    }
    __syncthreads();
    jf_write_out_planes<T>(s_out, row_bytes, plane_bytes, out, out_pitch, x0, y0,
                           w - x0 < cols_out ? w - x0 : cols_out, h - y0 < rows_out ? h - y0 : rows_out,
                           ch, out_piece);
}

template <int K, int LANES, typename T, bool VIDEO>
static const void *fast_kernel(int ch)
{
    return ch == 1 ? (const void *)fast_grey<K, LANES, T, VIDEO>::kernel()
                   : (const void *)median_fast_interleaved_kernel<K, LANES, T>;
}

/* The block is the variant table's (median_variants.c: 32 x 4, fewer rows
 * where that does not fit the device), its shared memory median_shapes.h's. */
template <int K, int LANES, typename T, bool VIDEO = false>
static jf_status launch(jf_context *ctx, const jf_filter_in *in, int bx, int by,
                        const jf_dview *out)
{
    typedef fast_block<K> B;
    const jf_image *shape = in->shape;
    const int ch = shape->channels;
    int tile_w;
    const size_t smem = jf_median_fast_smem(K, LANES, ch, (int)sizeof(T), bx, by, &tile_w);
    const int rows_out = by * B::ROWS * LANES, cols_out = bx * B::COLS;
    const dim3 block((unsigned)bx, (unsigned)by);
    const dim3 grid = jf_grid(shape->width, shape->height, 1,
                              dim3((unsigned)cols_out, (unsigned)rows_out));
    /* 2: rows of 8 outputs start aligned to their size (one store); 1: to 4 bytes */
    const uintptr_t at = (uintptr_t)out->ptr | out->pitch;
    const int word_stores = at % (8 * sizeof(T)) == 0 ? 2 : at % 4 == 0 ? 1 : 0;
    const cudaStream_t stream = ctx->gpu->stream;
    jf_status st;
    int id;
    if ((st = jf_gpu_launch_fits(ctx, fast_kernel<K, LANES, T, VIDEO>(ch), "median fast", bx * by,
                                 smem)) !=
            JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    if (ch == 1)
        fast_grey<K, LANES, T, VIDEO>::kernel()<<<grid, block, smem, stream>>>(
            in->src, shape->width, shape->height, out->ptr,
            out->pitch, tile_w, word_stores);
    else
        median_fast_interleaved_kernel<K, LANES, T><<<grid, block, smem, stream>>>(
            in->src, shape->width, shape->height, ch, out->ptr,
            out->pitch, tile_w, jf_out_piece(out->ptr, out->pitch));
    return jf_gpu_filter_done(ctx, id, fast_grey<K, LANES, T, VIDEO>::name(), "median", "fast", K,
                              shape, 0);
}

template <int K, int LANES>
static jf_status launch_sample(jf_context *ctx, const jf_filter_in *in, int bx, int by,
                               const jf_dview *out)
{
    if (in->shape->sample == JF_SAMPLE_U16)
        return launch<K, LANES, unsigned short>(ctx, in, bx, by, out);
    return launch<K, LANES, unsigned char>(ctx, in, bx, by, out);
}

/* The lanes the chosen row runs with (one sample a register, or two);
 * ONE_LANE: whether the one-sample kernels exist for this K (not for 9 and
 * 11: median_variants.c). */
template <int K, bool ONE_LANE>
static jf_status launch_k(jf_context *ctx, const jf_filter_in *in, const jf_choice *c,
                          const jf_dview *out)
{
    if (c->row->lanes == 2)
        return launch_sample<K, 2>(ctx, in, c->block_x, c->block_y, out);
    if (ONE_LANE)
        return launch_sample<K, ONE_LANE ? 1 : 2>(ctx, in, c->block_x, c->block_y, out);
    return jf_fail(JF_ERR_INTERNAL, "median fast k=%d: needs two samples a register", K);
}

jf_status jf_median_fast_launch(jf_context *ctx, const jf_filter_in *in, int k, const jf_choice *c,
                                const jf_dview *out)
{
    switch (k) {
    case 3: return launch_k<3, true>(ctx, in, c, out);
    case 5: return launch_k<5, true>(ctx, in, c, out);
    case 7: return launch_k<7, true>(ctx, in, c, out);
    case 9: return launch_k<9, false>(ctx, in, c, out);
    case 11: return launch_k<11, false>(ctx, in, c, out);
    default: /* the variant table's row holds k to these */
        return jf_fail(JF_ERR_INTERNAL, "median fast: no kernel for k=%d (odd, 3 to 11)", k);
    }
}

jf_status jf_median_fast_networks3_launch(jf_context *ctx, const jf_filter_in *in, const jf_dview *out)
{
    return launch_sample<3, 2>(ctx, in, JF_MEDIAN_FAST_BLOCK_X, JF_MEDIAN_FAST_BLOCK_Y, out);
}

jf_status jf_median_fast_video_launch(jf_context *ctx, const jf_filter_in *in, int k,
                                      const jf_choice *c, const jf_dview *out)
{
    if (in->shape->channels == 1 && in->shape->sample == JF_SAMPLE_U8) {
        if (k == 5)
            return launch<5, 1, unsigned char, true>(ctx, in, c->block_x, c->block_y, out);
        if (k == 7)
            return launch<7, 1, unsigned char, true>(ctx, in, c->block_x, c->block_y, out);
    }
    return jf_fail(JF_ERR_INTERNAL, "median fast (video networks): no network for k=%d", k);
}
