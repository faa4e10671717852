/*
 * Median, fast variant, k = 3 at 8 bits on compute capability 9.0: strips
 * of rows streamed through registers, no tile and no barrier.
 *
 * Each thread owns W = 8 bytes of a row (the median is blind to
 * channels: a byte's neighbours are C bytes away, so one kernel serves 1
 * to 4 interleaved channels) and walks a strip of rows down, each row's
 * load issued a turn ahead of its use.  The bytes beside its own come from
 * the neighbouring lanes (warp shuffles); a warp's end lanes load their
 * word beside the run with the row.  Two samples a register: bytes x and
 * x + W/2 of the run in the high bytes of 16-bit lanes (min.u16x2,
 * max.u16x2 and their three-input forms are one instruction each here; the
 * low bytes are whatever the permute left and never reach a high byte).
 * Each column of three is sorted once for two output rows (the middle pair
 * is shared), and each output is the median of its three sorted columns:
 * the largest of the lows, the median of the middles, the smallest of the
 * highs.  Blocks loop over the strips, as many blocks as fit on the GPU at
 * once.  A warp whose strip and bytes lie inside the image loads and stores
 * from row pointers without a check; the others read rows through the
 * border rule (jf_src_row), make the bytes past a row's ends from its
 * border pixels and cut their stores at the image's edges.
 *
 * Against the networks (median_fast.cu) this issues about 40% fewer
 * instructions a pixel with no shared memory, and at 8 bytes a thread (64
 * registers) 8 blocks of 128 threads fit an SM.  Images of 32 M samples
 * and more, blocks that are not whole warps, and inputs or outputs not
 * aligned to 16 bytes take the networks (median_shapes.h; docs/kernels/studies.md,
 * "Column strips through registers").
 */
#include "filters/filter_cuda.cuh"
#include "filters/median/median.h"
#include "filters/median/median_shapes.h"
#include "filters/tile.cuh"

/* Compiled only where it can be launched (median_variants.c): elsewhere
 * (the Nano's sm_53) the kernels are empty. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < JF_MEDIAN_LANES2_MIN_CC * 10
#define JF_STRIP_COMPILED 0
#else
#define JF_STRIP_COMPILED 1
#endif

namespace {

/* A thread's W bytes of a row and a word either side: v[0] left,
 * v[1 .. W/4] its own, v[W/4 + 1] right (C <= 4: a word of neighbours
 * covers a 3 x 3 window). */
template <int W>
struct strip_words {
    unsigned v[W / 4 + 2];
};

template <int W>
__device__ __forceinline__ void load_own(const unsigned char *q, strip_words<W> &r)
{
    static_assert(W == 8, "a run is one 8-byte load");
    const uint2 v = __ldg((const uint2 *)q);
    r.v[1] = v.x;
    r.v[2] = v.y;
}

template <int W>
__device__ __forceinline__ void store_own(unsigned char *q, const unsigned (&o)[W / 4])
{
    *(uint2 *)q = make_uint2(o[0], o[1]);
}

/* Word v of a run, its bytes at row positions p .. p + 3, with those
 * outside the row's rb bytes made what the border rule gives: the C bytes
 * before it are the pixel of column -1 (lv, channel c in byte c), the C
 * after it the pixel of column w (rv); further bytes reach no stored
 * output of a 3 x 3 window and are left 0. */
template <int C>
__device__ __forceinline__ unsigned border_word(unsigned v, int p, int rb, unsigned lv, unsigned rv)
{
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const int e = p + j;
        if (e >= 0 && e < rb)
            continue;
        const unsigned b = e < 0 ? (e >= -C ? (lv >> (8 * (e + C))) & 0xFFu : 0u)
                                 : (e < rb + C ? (rv >> (8 * (e - rb))) & 0xFFu : 0u);
        v = (v & ~(0xFFu << (8 * j))) | (b << (8 * j));
    }
    return v;
}

/* The C samples of pixel `sx` of a row (sx < 0: the zero border), channel
 * c in byte c. */
template <int C>
__device__ __forceinline__ unsigned pixel_bytes(const unsigned char *row, int sx)
{
    unsigned v = 0;
    if (sx >= 0)
#pragma unroll
        for (int c = 0; c < C; c++)
            v |= (unsigned)row[sx * C + c] << (8 * c);
    return v;
}

/*
 * How a strip reaches its rows: row t of the strip is image row y0 - 1 + t,
 * output t is image row y0 + t.  fetch issues every load of a row, the end
 * lanes' neighbouring words included.  CHECKED (strips at the top and
 * bottom, warps at the left and right edges): rows through the border
 * rule, the bytes past the row's ends made from the border pixels (sxl,
 * sxr: the pixels columns -1 and w read, -1 for zero), stores cut at the
 * image's edges.  The whole 8-byte piece holding a row's last byte is
 * read (its start and the pitch are multiples of 16, so it lies inside the
 * pitch); what lies past the row is replaced.
 */
template <int C, int W, bool CHECKED>
struct strip_io {
    jf_tile_src s;
    unsigned char *out;
    size_t out_pitch;
    int h, xb, y0, lane, sxl, sxr;
    __device__ __forceinline__ void fetch(int t, strip_words<W> &r) const
    {
        if (!CHECKED) {
            const unsigned char *q = s.img + (size_t)(y0 - 1 + t) * s.pitch + xb;
            load_own<W>(q, r);
            if (lane == 0)
                r.v[0] = __ldg((const unsigned *)(q - 4));
            if (lane == 31)
                r.v[W / 4 + 1] = __ldg((const unsigned *)(q + W));
            return;
        }
        const int rb = s.w * C;
        const unsigned char *row = jf_src_row(s, y0 - 1 + t + s.r);
#pragma unroll
        for (int i = 0; i < W / 4 + 2; i++)
            r.v[i] = 0;
        if (!row) /* a zero row */
            return;
        if (xb < rb)
            load_own<W>(row + xb, r);
        if (lane == 0 && xb > 0)
            r.v[0] = __ldg((const unsigned *)(row + xb - 4));
        if (lane == 31 && xb + W < rb)
            r.v[W / 4 + 1] = __ldg((const unsigned *)(row + xb + W));
        /* only the words that cross an end (one lane at the left, a few at
         * the right): the warp waits for them */
        if (xb == 0)
            r.v[0] = border_word<C>(r.v[0], -4, rb, pixel_bytes<C>(row, sxl), 0u);
        if (xb + W + 4 > rb) {
            const unsigned rv = pixel_bytes<C>(row, sxr);
#pragma unroll
            for (int i = 1; i < W / 4 + 2; i++)
                if (xb + 4 * i > rb)
                    r.v[i] = border_word<C>(r.v[i], xb - 4 + 4 * i, rb, 0u, rv);
        }
    }
    __device__ __forceinline__ void store(int t, const unsigned (&o)[W / 4]) const
    {
        const int y = y0 + t;
        unsigned char *q = out + (size_t)y * out_pitch;
        if (!CHECKED) {
            store_own<W>(q + xb, o);
            return;
        }
        if (y >= h)
            return;
        if (xb + W <= s.w * C) {
            store_own<W>(q + xb, o);
        } else {
            for (int j = 0; j < W && xb + j < s.w * C; j++)
                q[xb + j] = (unsigned char)(o[j >> 2] >> (8 * (j & 3)));
        }
    }
};

/* The words beside the thread's own from the neighbouring lanes. */
template <int W>
__device__ __forceinline__ void halo_words(strip_words<W> &r)
{
    const int lane = threadIdx.x & 31;
    const unsigned l = __shfl_up_sync(0xffffffffu, r.v[W / 4], 1);
    const unsigned rr = __shfl_down_sync(0xffffffffu, r.v[1], 1);
    if (lane > 0)
        r.v[0] = l;
    if (lane < 31)
        r.v[W / 4 + 1] = rr;
}

__device__ __forceinline__ unsigned mn(unsigned a, unsigned b) { return __vminu2(a, b); }
__device__ __forceinline__ unsigned mx(unsigned a, unsigned b) { return __vmaxu2(a, b); }
__device__ __forceinline__ unsigned med3(unsigned a, unsigned b, unsigned c)
{
    return mx(mn(a, b), mn(mx(a, b), c));
}
/* three-input min and max: one instruction from CUDA 12 (ptxas fuses the
 * pairs of older toolkits less often) */
__device__ __forceinline__ unsigned mx3(unsigned a, unsigned b, unsigned c)
{
#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 12
    return __vimax3_u16x2(a, b, c);
#else
    return mx(mx(a, b), c);
#endif
}
__device__ __forceinline__ unsigned mn3(unsigned a, unsigned b, unsigned c)
{
#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 12
    return __vimin3_u16x2(a, b, c);
#else
    return mn(mn(a, b), c);
#endif
}

/* q[x + C] = bytes x and x + W/2 of the run in the high bytes of two
 * 16-bit lanes, x = -C .. W/2 - 1 + C. */
template <int C, int W>
__device__ __forceinline__ void lanes_of(strip_words<W> &r, unsigned (&q)[W / 2 + 2 * C])
{
    halo_words<W>(r);
#pragma unroll
    for (int x = -C; x < W / 2 + C; x++) {
        const int a = x + 4, b = x + W / 2 + 4; /* byte indices in r.v */
        q[x + C] = __byte_perm(r.v[a >> 2], r.v[b >> 2],
                               (unsigned)((a & 3) | ((a & 3) << 4) | ((4 + (b & 3)) << 8) |
                                          ((4 + (b & 3)) << 12)));
    }
}

/* Each output register's median from its three sorted columns, packed as
 * the run's W bytes in memory order. */
template <int C, int W>
__device__ __forceinline__ void medians(const unsigned (&lo)[W / 2 + 2 * C],
                                        const unsigned (&mi)[W / 2 + 2 * C],
                                        const unsigned (&hi)[W / 2 + 2 * C], unsigned (&o)[W / 4])
{
    unsigned res[W / 2];
#pragma unroll
    for (int x = 0; x < W / 2; x++)
        res[x] = med3(mx3(lo[x], lo[x + C], lo[x + 2 * C]), med3(mi[x], mi[x + C], mi[x + 2 * C]),
                      mn3(hi[x], hi[x + C], hi[x + 2 * C]));
#pragma unroll
    for (int g = 0; g < W / 8; g++) { /* bytes 4g .. 4g + 3 and W/2 + 4g .. */
        const unsigned a = __byte_perm(res[4 * g], res[4 * g + 1], 0x7351u);
        const unsigned b = __byte_perm(res[4 * g + 2], res[4 * g + 3], 0x7351u);
        o[g] = __byte_perm(a, b, 0x5410u);
        o[g + W / 8] = __byte_perm(a, b, 0x7632u);
    }
}

/* Outputs t and t + 1 from rows t .. t + 3 (qa .. qd). */
template <int C, int W, bool CHECKED>
__device__ __forceinline__ void pair_out(const strip_io<C, W, CHECKED> &io, int t,
                                         const unsigned (&qa)[W / 2 + 2 * C],
                                         const unsigned (&qb)[W / 2 + 2 * C],
                                         const unsigned (&qc)[W / 2 + 2 * C],
                                         const unsigned (&qd)[W / 2 + 2 * C])
{
    enum { NQ = W / 2 + 2 * C };
    unsigned lo[NQ], mi[NQ], hi[NQ], lo2[NQ], mi2[NQ], hi2[NQ];
#pragma unroll
    for (int i = 0; i < NQ; i++) {
        const unsigned pmin = mn(qb[i], qc[i]), pmax = mx(qb[i], qc[i]);
        lo[i] = mn(pmin, qa[i]);
        hi[i] = mx(pmax, qa[i]);
        mi[i] = mx(pmin, mn(pmax, qa[i]));
        lo2[i] = mn(pmin, qd[i]);
        hi2[i] = mx(pmax, qd[i]);
        mi2[i] = mx(pmin, mn(pmax, qd[i]));
    }
    unsigned o[W / 4];
    medians<C, W>(lo, mi, hi, o);
    io.store(t, o);
    medians<C, W>(lo2, mi2, hi2, o);
    io.store(t + 1, o);
}

/* A strip of `rows` rows (a multiple of 4), four a turn, so the four rows
 * of lanes change roles without copies; each turn's rows are loaded during
 * the turn before. */
template <int C, int W, bool CHECKED>
__device__ __forceinline__ void median_strip(const strip_io<C, W, CHECKED> &io, int rows)
{
    enum { NQ = W / 2 + 2 * C };
    unsigned q0[NQ], q1[NQ], q2[NQ], q3[NQ];
    strip_words<W> a, b;
    io.fetch(0, a);
    io.fetch(1, b);
    lanes_of<C, W>(a, q0);
    lanes_of<C, W>(b, q1);
    io.fetch(2, a);
    io.fetch(3, b);
#pragma unroll 1
    for (int t = 0; t < rows; t += 4) {
        lanes_of<C, W>(a, q2);
        lanes_of<C, W>(b, q3);
        io.fetch(t + 4, a);
        io.fetch(t + 5, b);
        pair_out(io, t, q0, q1, q2, q3);
        lanes_of<C, W>(a, q0);
        lanes_of<C, W>(b, q1);
        io.fetch(t + 6, a);
        io.fetch(t + 7, b);
        pair_out(io, t + 2, q2, q3, q0, q1);
    }
}

} // namespace

/* 64 registers: any block up to 1024 threads, 8 blocks of 128 an SM */
template <int C>
__global__ void __launch_bounds__(1024)
    median_fast_strip_kernel(const jf_tile_src src, unsigned char *__restrict__ out, size_t out_pitch,
                             int h, int rows)
{
    enum { W = JF_MEDIAN_STRIP_BYTES };
    if (!JF_STRIP_COMPILED)
        return;
    const int lane = threadIdx.x & 31;
    const int xb = (blockIdx.x * blockDim.x + threadIdx.x) * W;
    const int row_bytes = src.w * C;
    if (xb - lane * W >= row_bytes) /* a whole warp past the row */
        return;
    for (int y0 = blockIdx.y * rows; y0 < h; y0 += gridDim.y * rows) {
        /* inside: rows y0 - 1 .. y0 + rows + 2 (the last turn's loads) and
         * the bytes beside every lane's run, for the whole warp */
        const bool inside = xb >= 4 && xb + W + 4 <= row_bytes && y0 >= 1 && y0 + rows + 2 < h;
        if (__all_sync(0xffffffffu, inside)) {
            const strip_io<C, W, false> io = {src, out, out_pitch, h, xb, y0, lane, 0, 0};
            median_strip(io, rows);
        } else {
            const strip_io<C, W, true> io = {src,  out,  out_pitch, h,  xb, y0,
                                             lane, jf_border_index(-1, src.w, src.border),
                                             jf_border_index(src.w, src.w, src.border)};
            median_strip(io, rows);
        }
    }
}

namespace {

template <int C>
jf_status launch(jf_context *ctx, const jf_filter_in *in, int threads, const jf_dview *out)
{
    enum { W = JF_MEDIAN_STRIP_BYTES };
    const jf_image *shape = in->shape;
    const void *fn = (const void *)median_fast_strip_kernel<C>;
    const int bx = ((shape->width * C + W - 1) / W + threads - 1) / threads;
    int per_sm = 0, fit, rows, strips, by;
    jf_status st;
    int id;
    if ((st = jf_gpu_launch_fits(ctx, fn, "median fast (strips)", threads, 0)) != JF_OK)
        return st;
    /* as many blocks as fit at once, each looping over strips; strips of
     * one turn where even those leave the GPU part empty (each turn waits
     * for its rows once) */
    JF_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, 0));
    fit = ctx->gpu->info.multiprocessors * (per_sm > 0 ? per_sm : 1);
    rows = jf_median_strip_rows(bx, shape->height, fit);
    strips = (shape->height + rows - 1) / rows;
    by = (fit + bx - 1) / bx;
    if (by > strips)
        by = strips;
    if ((st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    median_fast_strip_kernel<C><<<dim3((unsigned)bx, (unsigned)(by > 0 ? by : 1)), (unsigned)threads, 0,
                                  ctx->gpu->stream>>>(in->src, out->ptr, out->pitch, shape->height, rows);
    return jf_gpu_filter_done(ctx, id, "median_fast_strip_kernel", "median", "fast", 3, shape, 0);
}

} // namespace

jf_status jf_median_strip_launch(jf_context *ctx, const jf_filter_in *in, const jf_choice *c,
                                 const jf_dview *out)
{
    const jf_image *shape = in->shape;
    const int threads = c->block_x * c->block_y;
    /* large images, blocks of part warps, and inputs or outputs whose start
     * or pitch is no multiple of 16 (the plain loads and stores are 8
     * bytes; the end of a row is read as the whole piece that holds it)
     * take the networks */
    if (!jf_median_strips_run(shape->width, shape->height, shape->channels, threads) ||
        in->src.align < 16 || jf_out_piece(out->ptr, out->pitch) < 16)
        return jf_median_fast_networks3_launch(ctx, in, out);
    switch (shape->channels) {
    case 1: return launch<1>(ctx, in, threads, out);
    case 2: return launch<2>(ctx, in, threads, out);
    case 3: return launch<3>(ctx, in, threads, out);
    case 4: return launch<4>(ctx, in, threads, out);
    default: /* jf_image holds channels to 1..4 */
        return jf_fail(JF_ERR_INTERNAL, "median strips: %d channels", shape->channels);
    }
}
