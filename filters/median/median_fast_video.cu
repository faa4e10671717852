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
 * Each thread computes 8 rows of 32 outputs from a 10 x 40-byte window
 * (two 16-byte and two 4-byte loads a row), a pair of output rows at a
 * time, sweeping its columns left to right with three columns' triples
 * live and packing its results four to a word as they come.  On the Nano
 * every instruction counts (benchmarks/jetson/nano/instructions.md), so a block
 * whose windows lie inside the image reads them straight from it: no
 * tile, no barrier, no border checks; blocks at the image's edges gather
 * a tile through the border rule first.
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
    /* a thread's input row: columns ox - 4 .. ox + VCOLS + 3, so that
     * window column X (image column ox - 1 + X) is byte (X + 3) % 4 of
     * word (X + 3) / 4 */
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
 * column X - 2 (of rows 2p and 2p + 1), packed four to a word as soon as
 * the fourth is out (32 results held whole would take 64 registers). */
template <int X>
struct v_sweep {
    static __device__ __forceinline__ void run(const unsigned (&r0)[VIN_WORDS],
                                               const unsigned (&r1)[VIN_WORDS],
                                               const unsigned (&r2)[VIN_WORDS],
                                               const unsigned (&r3)[VIN_WORDS], vtriple (&a)[3],
                                               vtriple (&b)[3], unsigned (&oa)[4],
                                               unsigned (&ob)[4], unsigned (&pa)[VCOLS / 4],
                                               unsigned (&pb)[VCOLS / 4])
    {
        v_column<X>(r0, r1, r2, r3, a[X % 3], b[X % 3]);
        if (X >= 2) {
            oa[(X - 2) % 4] = v_median(a[(X + 1) % 3], a[(X + 2) % 3], a[X % 3]);
            ob[(X - 2) % 4] = v_median(b[(X + 1) % 3], b[(X + 2) % 3], b[X % 3]);
            if ((X - 2) % 4 == 3) {
                pa[(X - 2) / 4] = v_pack(oa[0], oa[1], oa[2], oa[3]);
                pb[(X - 2) / 4] = v_pack(ob[0], ob[1], ob[2], ob[3]);
            }
        }
        v_sweep<X + 1>::run(r0, r1, r2, r3, a, b, oa, ob, pa, pb);
    }
};
template <>
struct v_sweep<VCOLS + 2> {
    static __device__ __forceinline__ void run(const unsigned (&)[VIN_WORDS],
                                               const unsigned (&)[VIN_WORDS],
                                               const unsigned (&)[VIN_WORDS],
                                               const unsigned (&)[VIN_WORDS], vtriple (&)[3],
                                               vtriple (&)[3], unsigned (&)[4], unsigned (&)[4],
                                               unsigned (&)[VCOLS / 4], unsigned (&)[VCOLS / 4])
    {
    }
};

/* A thread's input row from `row`, its column ox - 4 (in a tile or the
 * image, row + 4 16-byte aligned): a word, VCOLS / 16 16-byte pieces, a
 * word. */
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

/* One output row of VCOLS (packed four to a word), aligned and whole. */
__device__ __forceinline__ void v_store_whole(unsigned char *o, const unsigned (&pk)[VCOLS / 4])
{
#pragma unroll
    for (int q = 0; q < VCOLS / 16; q++)
        ((uint4 *)o)[q] = make_uint4(pk[4 * q], pk[4 * q + 1], pk[4 * q + 2], pk[4 * q + 3]);
}

/* The same where it may not be: 16-byte stores where
 * the row is aligned and whole, else byte by byte inside the image. */
__device__ __forceinline__ void v_store_row(unsigned char *o, const unsigned (&pk)[VCOLS / 4], int n,
                                            int aligned)
{
    if (aligned && n >= VCOLS) {
        v_store_whole(o, pk);
    } else {
#pragma unroll
        for (int c = 0; c < VCOLS; c++)
            if (c < n)
                o[c] = (unsigned char)(pk[c / 4] >> 8 * (c % 4));
    }
}

/* Image row sy >= 0 (inside the image): a 32 x 64-bit product (a signed
 * 64-bit multiply is twice the XMADs on sm_53). */
__device__ __forceinline__ const unsigned char *v_row(const jf_tile_src &s, int sy)
{
    return s.img + (size_t)(unsigned)sy * s.pitch;
}

/* Image columns sx .. sx + 15 of padded row y through the border rule
 * (rows and pieces at the image's edges).  Not inlined: ptxas unrolls and
 * if-converts the sample-by-sample path at a hundred registers a copy. */
__device__ __noinline__ uint4 v_border_piece(const unsigned char *img, size_t pitch, int w, int h,
                                             int align, int border, int y, int sx)
{
    const jf_tile_src s = {img, pitch, w, h, 1, 1, align, (jf_border)border};
    const unsigned char *row = jf_src_row(s, y);
    if (row && align >= 16 && sx >= 0 && sx + 16 <= w)
        return *(const uint4 *)(row + sx);
    return jf_src_piece_words<unsigned char>(s, row, sx + 1, 0); /* padded column sx + 1 */
}

/* The tile of a block at the image's edges: padded rows y0 .., image
 * columns x0 - 16 .. (16-byte pieces as they lie in the image: the
 * window's byte selectors absorb the one-column offset, no shifting); then
 * the barrier.  Each thread loads the two pieces above its own 32 columns
 * in every tile row, pairs of threads the two edge pieces of a row.  Where
 * the tile's rows and the thread's columns lie inside the image (in the
 * blocks beside its left and right edges, all but the threads at the right
 * edge), its rows are straight-line aligned loads from a stepped pointer:
 * the Nano pays for every instruction, and a checked loop costs several
 * times the loads. */
__device__ __forceinline__ void v_load_tile(unsigned int *tile, int tile_w, int tile_h,
                                            const jf_tile_src &s, int x0, int y0)
{
    const int tx = threadIdx.x, ty = threadIdx.y, bx = blockDim.x, by = blockDim.y;
    const int mx = x0 + VCOLS * tx; /* image column of the thread's first piece */
    unsigned char *const t = (unsigned char *)tile;
    uint4 *dst = (uint4 *)(t + ty * tile_w + 16 + VCOLS * tx);
    const int tstep = by * tile_w / 16;
    if (s.align >= 16 && mx + VCOLS <= s.w && y0 >= 1 && y0 - 1 + tile_h <= s.h) {
        /* tile_h = VROWS by + 2: VROWS rows a thread, then the last two rows */
        const unsigned char *g = v_row(s, y0 - 1 + ty) + mx;
        const size_t step = (size_t)(unsigned)by * s.pitch;
#pragma unroll
        for (int i = 0; i < VROWS; i++, g += step, dst += tstep) {
            dst[0] = ((const uint4 *)g)[0];
            dst[1] = ((const uint4 *)g)[1];
        }
        for (int r = VROWS * by + ty; r < tile_h; r += by, g += step, dst += tstep) {
            dst[0] = ((const uint4 *)g)[0];
            dst[1] = ((const uint4 *)g)[1];
        }
    } else {
        for (int r = ty; r < tile_h; r += by, dst += tstep) {
            dst[0] = v_border_piece(s.img, s.pitch, s.w, s.h, s.align, s.border, y0 + r, mx);
            dst[1] = v_border_piece(s.img, s.pitch, s.w, s.h, s.align, s.border, y0 + r, mx + 16);
        }
    }
    /* the edge pieces, image columns x0 - 16 .. and x0 + VCOLS bx .. of each
     * row: pairs of threads take a row's two, rows n / 2 apart, from a
     * stepped pointer (an odd block: each thread both sides, row by row) */
    const int lin = ty * bx + tx, n = bx * by;
    if (n % 2 == 0) {
        const int side = lin & 1, sx = side ? x0 + VCOLS * bx : x0 - 16, rstep = n / 2;
        const bool cols_in = s.align >= 16 && sx >= 0 && sx + 16 <= s.w;
        int r = lin >> 1;
        const unsigned char *g = s.img + (ptrdiff_t)(y0 - 1 + r) * (ptrdiff_t)s.pitch + sx;
        const size_t gstep = (size_t)(unsigned)rstep * s.pitch;
        uint4 *d = (uint4 *)(t + r * tile_w + (side ? tile_w - 16 : 0));
        for (; r < tile_h; r += rstep, g += gstep, d += rstep * tile_w / 16) {
            if (cols_in && (unsigned)(y0 - 1 + r) < (unsigned)s.h)
                *d = *(const uint4 *)g;
            else
                *d = v_border_piece(s.img, s.pitch, s.w, s.h, s.align, s.border, y0 + r, sx);
        }
    } else {
        for (int e = lin; e < 2 * tile_h; e += n) {
            const int r = e >> 1, sx = e & 1 ? x0 + VCOLS * bx : x0 - 16;
            uint4 *d = (uint4 *)(t + r * tile_w + (e & 1 ? tile_w - 16 : 0));
            *d = v_border_piece(s.img, s.pitch, s.w, s.h, s.align, s.border, y0 + r, sx);
        }
    }
    __syncthreads();
}

/* A thread's VROWS x VCOLS outputs from its input rows, `in` pointing at
 * column ox - 4 of padded row y (a tile's, or the image's where the
 * block's windows lie inside it: INSIDE, every row and column stored
 * whole), rows `step` bytes apart. */
template <bool INSIDE>
__device__ __forceinline__ void v_rows(const unsigned char *in, size_t step, int w, int h, int ox,
                                       int y, unsigned char *out, size_t out_pitch, int aligned)
{
    unsigned r0[VIN_WORDS], r1[VIN_WORDS], r2[VIN_WORDS], r3[VIN_WORDS];
    v_load_row(in, r0);
    in += step;
    v_load_row(in, r1);
    unsigned char *o = out + (size_t)(unsigned)y * out_pitch + ox; /* stepped: no multiply a row */
#pragma unroll
    for (int p = 0; p < VROWS / 2; p++, o += 2 * out_pitch) {
        vtriple a[3], b[3];
        unsigned oa[4], ob[4], pa[VCOLS / 4], pb[VCOLS / 4];
        in += step;
        v_load_row(in, r2);
        in += step;
        v_load_row(in, r3);
        v_sweep<0>::run(r0, r1, r2, r3, a, b, oa, ob, pa, pb);
        if (INSIDE) {
            v_store_whole(o, pa);
            v_store_whole(o + out_pitch, pb);
        } else {
            if (y + 2 * p < h)
                v_store_row(o, pa, w - ox, aligned);
            if (y + 2 * p + 1 < h)
                v_store_row(o + out_pitch, pb, w - ox, aligned);
        }
#pragma unroll
        for (int q = 0; q < VIN_WORDS; q++)
            r0[q] = r2[q], r1[q] = r3[q];
    }
}

/* Which blocks a launch runs: the inside rectangle of the block grid
 * (blocks [ix0, ix1) x [iy0, iy1), whose windows and outputs lie inside the
 * image, aligned), or all the others (`ring`, through the tile). */
struct v_blocks {
    int cols, rows, ix0, iy0, ix1, iy1, ring;
};

/* Block i of the ring: the rows above the inside, those below, then the
 * columns either side of it, row by row. */
__device__ __forceinline__ void v_ring_block(const v_blocks &g, int i, int &bxi, int &byi)
{
    const int above = g.cols * g.iy0, below = g.cols * (g.rows - g.iy1);
    const int left = g.ix0, sides = g.ix0 + g.cols - g.ix1;
    if (i < above) {
        bxi = i % g.cols, byi = i / g.cols;
    } else if ((i -= above) < below) {
        bxi = i % g.cols, byi = g.iy1 + i / g.cols;
    } else {
        i -= below;
        byi = g.iy0 + i / sides, i %= sides;
        bxi = i < left ? i : g.ix1 + (i - left);
    }
}

__global__ void median_fast_video_kernel(const jf_tile_src src, int w, int h,
                                         unsigned char *__restrict__ out, size_t out_pitch,
                                         int tile_w, int aligned, const v_blocks g)
{
    extern __shared__ unsigned int s_tile[];
    const int rows_out = blockDim.y * VROWS, lx = threadIdx.x * VCOLS, ly = threadIdx.y * VROWS;
    if (!g.ring) {
        /* inside: rows straight from the image, no tile, no barrier (what a
         * tile saves, the rows and halo words that neighbouring threads both
         * read, the cache serves), no shared memory (three times the blocks
         * on the Nano's SM), no border checks */
        const int ox = (g.ix0 + (int)blockIdx.x) * (int)blockDim.x * VCOLS + lx;
        const int y = (g.iy0 + (int)blockIdx.y) * rows_out + ly;
        v_rows<true>(v_row(src, y - 1) + ox - 4, src.pitch, w, h, ox, y, out, out_pitch, aligned);
        return;
    }
    int bxi, byi;
    v_ring_block(g, blockIdx.x, bxi, byi);
    const int x0 = bxi * blockDim.x * VCOLS, y0 = byi * rows_out;
    const int ox = x0 + lx, y = y0 + ly;
    v_load_tile(s_tile, tile_w, rows_out + 2, src, x0, y0);
    if (ox >= w || y >= h)
        return;
    v_rows<false>((const unsigned char *)s_tile + ly * tile_w + lx + 12, (size_t)tile_w, w, h, ox, y,
                  out, out_pitch, aligned);
}

/* Two launches: the blocks inside the image without shared memory, then
 * the ring around them with their tiles (one launch of both would give
 * every block the tile's shared memory: a third of the blocks on the SM). */
jf_status jf_median_video_launch(jf_context *ctx, const jf_filter_in *in, const jf_choice *c,
                                 const jf_dview *out)
{
    const jf_image *shape = in->shape;
    const int w = shape->width, h = shape->height, bx = c->block_x, by = c->block_y;
    const int bw = bx * VCOLS, bh = by * VROWS;
    int tile_w;
    const size_t smem = jf_median_video_smem(bx, by, &tile_w);
    const int aligned = ((uintptr_t)out->ptr | out->pitch) % 16 == 0;
    v_blocks g = {(w + bw - 1) / bw, (h + bh - 1) / bh, 1, 1, 0, 0, 0};
    /* inside: x0 >= 4 and x0 + bw + 4 <= w, y0 >= 1 and y0 + bh < h */
    g.ix1 = (w - 4) / bw, g.iy1 = (h - 1) / bh;
    if (in->src.align < 16 || !aligned || g.ix1 <= g.ix0 || g.iy1 <= g.iy0)
        g.ix0 = g.iy0 = g.ix1 = g.iy1 = 0;
    const int inside = (g.ix1 - g.ix0) * (g.iy1 - g.iy0), ring = g.cols * g.rows - inside;
    const dim3 block((unsigned)bx, (unsigned)by);
    jf_status st;
    int id;
    if ((st = jf_gpu_launch_fits(ctx, (const void *)median_fast_video_kernel, "median fast (video)",
                                 bx * by, smem)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    if (inside)
        median_fast_video_kernel<<<dim3((unsigned)(g.ix1 - g.ix0), (unsigned)(g.iy1 - g.iy0)), block, 0,
                                   ctx->gpu->stream>>>(in->src, w, h, out->ptr, out->pitch, tile_w,
                                                       aligned, g);
    g.ring = 1;
    if (ring)
        median_fast_video_kernel<<<(unsigned)ring, block, smem, ctx->gpu->stream>>>(
            in->src, w, h, out->ptr, out->pitch, tile_w, aligned, g);
    return jf_gpu_filter_done(ctx, id, "median_fast_video_kernel", "median", "fast", 3, shape, 0);
}
