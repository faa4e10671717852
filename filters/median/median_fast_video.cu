/*
 * Median, fast variant at k = 3 for 8-bit grey images on GPUs with native
 * video min/max (compute capability 5.x and 6.x: the Jetson Nano's sm_53).
 *
 * There a VMNMX instruction takes two bytes picked out of any registers,
 * orders them, and applies a second min or max with a third value:
 * max(min(a.b1, b.b2), c) is one instruction.  So the window's samples
 * need no unpacking, a 3-sample min, max or median costs 1, 1 and 2
 * instructions, and the 3 x 3 median per output is
 *   column triples (shared by the two output rows whose windows hold the
 *   middle pair, and by three output columns): 4 instructions a triple,
 *   max of the 3 column minimums, min of the 3 maximums (1 each),
 *   median of the 3 medians and of those three values (2 each),
 * 4 (32 + 2) / 32 + 6 = 10.25 a pixel with 32 outputs a row, against 16
 * min/max on single samples plus unpacking in the general networks
 * (median_fast.cu).  Elsewhere (compute capability 7.0 on) the same PTX is
 * emulated: correct, slower; the variant table runs it there only under
 * the Nano's limits, so a big GPU tests the Nano's code.
 *
 * Each thread computes 4 rows of 32 outputs from a 6 x 34 window of the
 * block's tile (two 16-byte and two 4-byte shared loads a row), a pair of
 * output rows at a time, sweeping its columns left to right with three
 * columns' triples live.
 */
#include "filters/filter_cuda.cuh"
#include "filters/median/median.h"
#include "filters/median/median_shapes.h"
#include "filters/median/median_video.cuh"
#include "filters/tile.cuh"

/* Whole registers (values below 256): byte 0 is the value. */
__device__ __forceinline__ unsigned v_max3(unsigned a, unsigned b, unsigned c)
{
    return jf_v_max_max<0, 0>(a, b, c);
}
__device__ __forceinline__ unsigned v_min3(unsigned a, unsigned b, unsigned c)
{
    return jf_v_min_min<0, 0>(a, b, c);
}
/* min(max(a, b), max(min(a, b), c)) */
__device__ __forceinline__ unsigned v_med3(unsigned a, unsigned b, unsigned c)
{
    return jf_v_max_min<0, 0>(a, b, jf_v_min_max<0, 0>(a, b, c));
}

enum {
    VROWS = JF_MEDIAN_VIDEO_ROWS, /* output rows a thread */
    VCOLS = JF_MEDIAN_VIDEO_COLS, /* output columns a thread */
    /* a thread's input row: tile bytes lx + 12 .. lx + VCOLS + 19, so that
     * window column X (image column ox - 1 + X, tile byte lx + 15 + X) is
     * byte (X + 3) % 4 of word (X + 3) / 4 */
    VIN_WORDS = VCOLS / 4 + 2
};

/* The sorted triple of one column: rows (t, t+1, t+2) as minimum, median,
 * maximum. */
struct vtriple {
    unsigned mn, md, mx;
};

/* Column X of the thread's window, for output rows 2p and 2p + 1: the pair
 * (rows 2p + 1, 2p + 2) ordered once, then the row above (for 2p) and the
 * row below (for 2p + 1) merged into it. */
template <int X>
__device__ __forceinline__ void v_column(const unsigned (&r0)[VIN_WORDS],
                                         const unsigned (&r1)[VIN_WORDS],
                                         const unsigned (&r2)[VIN_WORDS],
                                         const unsigned (&r3)[VIN_WORDS], vtriple &a, vtriple &b)
{
    enum { W = (X + 3) / 4, B = (X + 3) % 4 };
    const unsigned lo = jf_v_min_min<B, B>(r1[W], r2[W], 0xFFu);
    const unsigned hi = jf_v_max_max<B, B>(r1[W], r2[W], 0u);
    a.mn = jf_v_min_min<B, B>(r0[W], r0[W], lo);
    a.mx = jf_v_max_max<B, B>(r0[W], r0[W], hi);
    a.md = jf_v_min_max<B, 0>(r0[W], hi, lo); /* max(min(x, hi), lo) */
    b.mn = jf_v_min_min<B, B>(r3[W], r3[W], lo);
    b.mx = jf_v_max_max<B, B>(r3[W], r3[W], hi);
    b.md = jf_v_min_max<B, 0>(r3[W], hi, lo);
}

/* The median of the window whose columns are t0, t1, t2. */
__device__ __forceinline__ unsigned v_median(const vtriple &t0, const vtriple &t1, const vtriple &t2)
{
    return v_med3(v_max3(t0.mn, t1.mn, t2.mn), v_med3(t0.md, t1.md, t2.md),
                  v_min3(t0.mx, t1.mx, t2.mx));
}

/* Four results (bytes 0 of a..d) as one word, a in the low byte. */
__device__ __forceinline__ unsigned v_pack(unsigned a, unsigned b, unsigned c, unsigned d)
{
    return __byte_perm(__byte_perm(a, b, 0x0040u), __byte_perm(c, d, 0x0040u), 0x5410u);
}

/* Sweep the columns: triples of column X - 2, X - 1 and X give output
 * column X - 2 (of rows 2p and 2p + 1). */
template <int X>
struct v_sweep {
    static __device__ __forceinline__ void run(const unsigned (&r0)[VIN_WORDS],
                                               const unsigned (&r1)[VIN_WORDS],
                                               const unsigned (&r2)[VIN_WORDS],
                                               const unsigned (&r3)[VIN_WORDS], vtriple (&a)[3],
                                               vtriple (&b)[3], unsigned (&oa)[VCOLS],
                                               unsigned (&ob)[VCOLS])
    {
        v_column<X>(r0, r1, r2, r3, a[X % 3], b[X % 3]);
        if (X >= 2) {
            oa[X - 2] = v_median(a[(X + 1) % 3], a[(X + 2) % 3], a[X % 3]);
            ob[X - 2] = v_median(b[(X + 1) % 3], b[(X + 2) % 3], b[X % 3]);
        }
        v_sweep<X + 1>::run(r0, r1, r2, r3, a, b, oa, ob);
    }
};
template <>
struct v_sweep<VCOLS + 2> {
    static __device__ __forceinline__ void run(const unsigned (&)[VIN_WORDS],
                                               const unsigned (&)[VIN_WORDS],
                                               const unsigned (&)[VIN_WORDS],
                                               const unsigned (&)[VIN_WORDS], vtriple (&)[3],
                                               vtriple (&)[3], unsigned (&)[VCOLS],
                                               unsigned (&)[VCOLS])
    {
    }
};

/* A thread's input row from `row` = tile byte lx + 12: a word, VCOLS / 16
 * 16-byte pieces, a word (lx a multiple of 16). */
__device__ __forceinline__ void v_load_row(const unsigned char *row, unsigned (&w)[VIN_WORDS])
{
    w[0] = *(const unsigned *)row;
#pragma unroll
    for (int q = 0; q < VCOLS / 16; q++) {
        const uint4 v = *(const uint4 *)(row + 4 + 16 * q);
        w[1 + 4 * q] = v.x, w[2 + 4 * q] = v.y, w[3 + 4 * q] = v.z, w[4 + 4 * q] = v.w;
    }
    w[VIN_WORDS - 1] = *(const unsigned *)(row + 4 + VCOLS);
}

/* One output row of VCOLS: 16-byte stores where the row is aligned and
 * whole, else byte by byte inside the image. */
__device__ __forceinline__ void v_store_row(unsigned char *o, const unsigned (&res)[VCOLS], int n,
                                            int aligned)
{
    if (aligned && n >= VCOLS) {
#pragma unroll
        for (int q = 0; q < VCOLS / 16; q++)
            ((uint4 *)o)[q] = make_uint4(v_pack(res[16 * q], res[16 * q + 1], res[16 * q + 2], res[16 * q + 3]),
                                         v_pack(res[16 * q + 4], res[16 * q + 5], res[16 * q + 6], res[16 * q + 7]),
                                         v_pack(res[16 * q + 8], res[16 * q + 9], res[16 * q + 10], res[16 * q + 11]),
                                         v_pack(res[16 * q + 12], res[16 * q + 13], res[16 * q + 14], res[16 * q + 15]));
    } else {
#pragma unroll
        for (int c = 0; c < VCOLS; c++)
            if (c < n)
                o[c] = (unsigned char)res[c];
    }
}

/* The block's tile: padded rows y0.., image columns x0 - 16 .. (16-byte
 * pieces as they lie in the image: the window's byte selectors absorb the
 * one-column offset, no shifting), the block's rows of threads taking
 * tile rows in turn, its columns the pieces of a row; then the barrier.
 * Rows inside the image come from a stepped pointer and pieces inside them
 * from one aligned load each; rows and pieces past the image's edges
 * through the border rule, sample by sample. */
__device__ __forceinline__ void v_load_tile(unsigned int *tile, int tile_w, int tile_h,
                                            const jf_tile_src &s, int x0, int y0)
{
    const int pieces = tile_w / 16, first = x0 - 16; /* image column of tile byte 0 */
    const bool aligned = s.align >= 16;
    unsigned char *const t = (unsigned char *)tile;
    /* the row pointer as if every row were inside, stepped: one multiply a
     * thread, not one a row (a 64-bit multiply is a dozen XMADs on sm_53) */
    const int sy0 = y0 - 1 + (int)threadIdx.y;
    const unsigned char *inside = s.img + (ptrdiff_t)sy0 * (ptrdiff_t)s.pitch;
    const size_t step = (size_t)blockDim.y * s.pitch;
    for (int ty = threadIdx.y, sy = sy0; ty < tile_h; ty += blockDim.y, sy += blockDim.y, inside += step) {
        const unsigned char *row = (unsigned)sy < (unsigned)s.h ? inside : jf_src_row(s, y0 + ty);
        for (int px = threadIdx.x; px < pieces; px += blockDim.x) {
            const int sx = first + 16 * px;
            uint4 *dst = (uint4 *)(t + ty * tile_w + 16 * px);
            if (row && aligned && sx >= 0 && sx + 16 <= s.w)
                *dst = *(const uint4 *)(row + sx);
            else /* padded column sx + 1 */
                *dst = jf_src_piece_words<unsigned char>(s, row, sx + 1, 0);
        }
    }
    __syncthreads();
}

__global__ void median_fast_video_kernel(const jf_tile_src src, int w, int h,
                                         unsigned char *__restrict__ out, size_t out_pitch,
                                         int tile_w, int aligned)
{
    extern __shared__ unsigned int s_tile[];
    const int rows_out = blockDim.y * VROWS;
    const int x0 = blockIdx.x * blockDim.x * VCOLS, y0 = blockIdx.y * rows_out;
    const int lx = threadIdx.x * VCOLS, ly = threadIdx.y * VROWS;

    v_load_tile(s_tile, tile_w, rows_out + 2, src, x0, y0);
    const int ox = x0 + lx, y = y0 + ly;
    if (ox >= w || y >= h)
        return;
    const unsigned char *t = (const unsigned char *)s_tile + ly * tile_w + lx + 12;
    unsigned r0[VIN_WORDS], r1[VIN_WORDS], r2[VIN_WORDS], r3[VIN_WORDS];
    v_load_row(t, r0);
    v_load_row(t + tile_w, r1);
    unsigned char *o = out + (size_t)y * out_pitch + ox; /* stepped: no multiply a row */
#pragma unroll
    for (int p = 0; p < VROWS / 2; p++, o += 2 * out_pitch) {
        vtriple a[3], b[3];
        unsigned oa[VCOLS], ob[VCOLS];
        v_load_row(t + (2 * p + 2) * tile_w, r2);
        v_load_row(t + (2 * p + 3) * tile_w, r3);
        v_sweep<0>::run(r0, r1, r2, r3, a, b, oa, ob);
        if (y + 2 * p < h)
            v_store_row(o, oa, w - ox, aligned);
        if (y + 2 * p + 1 < h)
            v_store_row(o + out_pitch, ob, w - ox, aligned);
#pragma unroll
        for (int q = 0; q < VIN_WORDS; q++)
            r0[q] = r2[q], r1[q] = r3[q];
    }
}

jf_status jf_median_video_launch(jf_context *ctx, const jf_filter_in *in, const jf_choice *c,
                                 const jf_dview *out)
{
    const jf_image *shape = in->shape;
    const int bx = c->block_x, by = c->block_y;
    int tile_w;
    const size_t smem = jf_median_video_smem(bx, by, &tile_w);
    const dim3 block((unsigned)bx, (unsigned)by);
    const dim3 grid = jf_grid(shape->width, shape->height, 1,
                              dim3((unsigned)(bx * VCOLS), (unsigned)(by * VROWS)));
    const int aligned = ((uintptr_t)out->ptr | out->pitch) % 16 == 0;
    jf_status st;
    int id;
    if ((st = jf_gpu_launch_fits(ctx, (const void *)median_fast_video_kernel, "median fast (video)",
                                 bx * by, smem)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    median_fast_video_kernel<<<grid, block, smem, ctx->gpu->stream>>>(
        in->src, shape->width, shape->height, out->ptr, out->pitch, tile_w, aligned);
    return jf_gpu_filter_done(ctx, id, "median_fast_video_kernel", "median", "fast", 3, shape, 0);
}
