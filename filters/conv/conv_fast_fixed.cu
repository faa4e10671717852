/*
 * Convolution, fast variant at k = 3 for 8-bit images (grey, or 2 to 4
 * interleaved channels), in fixed point:
 * the weights are q / 2^shift with 16-bit q (jf_conv_fast_fixed_quantise), the
 * sum starts at 2^(shift - 1) so the shift rounds as jf_saturate_round
 * does, floor(v + 0.5).  Where the weights are exactly that (integers,
 * binomials, small dyadic fractions) every sum is exact, as the float
 * reference's is, and the result equals it bit for bit; else the quantiser
 * takes them only where a sum moves by at most half a level, within the one
 * level the float kernels keep.  No unpacking, no conversion to float and
 * back (against 9 FMAs, the conversions and the rounding in conv_fast.cu).
 * Two kernels, one body, their arithmetic as each GPU has it natively:
 *
 *   conv_fast_video_kernel (compute capability 5.x and 6.0: the Jetson
 *   Nano's sm_53): VMAD multiplies a byte picked out of any register by a
 *   16-bit half of another and adds a 32-bit value, and VSHR shifts a sum
 *   and clamps it to 0..255: 9 + 1 an output.  From 7.0 the same PTX is
 *   emulated: correct, slower; the variant table runs it there only under
 *   the Nano's limits, so a big GPU tests the Nano's code.
 *
 *   conv_fast_dp_kernel (6.1 on: the Orin's sm_87, Hopper): DP2A adds two
 *   16-bit weights times two adjacent bytes of a word to a 32-bit sum, so a
 *   row of three taps is two of them whatever byte the window starts at (a
 *   weight of 0 stands in for the byte that is not a tap); a shift, and
 *   from 7.2 one saturating pack for two outputs: 6 + 1.5 an output.  With
 *   C interleaved channels a row's taps lie C bytes apart: byte permutes
 *   pair the first two taps of two outputs in one word, and gather the
 *   third taps of four in another (3 a row for four outputs, 2 where C is
 *   4), so 6 + 2.25 + 1.5 an output.
 *
 * A thread computes VY x JF_CONV_FAST_FIXED_COLS output bytes (VY 8, or 4
 * or 2 on images too small to fill the GPU: jf_conv_fast_fixed_rows) from the
 * block's tile (f_load_tile), the image's rows taken as rows of bytes (a
 * tap C bytes from its output, C <= 4, stays within the same 16 bytes of
 * a window row): an 8-byte and two 4-byte shared loads a window row, the
 * arithmetic, and one 8-byte store an output row.
 */
#include "filters/conv/conv_fast_fixed.h"
#include "filters/resolve.h"
#include "filters/filter_cuda.cuh"
#include "filters/filters.h"
#include "filters/tile.cuh"

enum {
    VX = JF_CONV_FAST_FIXED_COLS, /* outputs a thread across (8: two words) */
    /* a thread's input row: tile bytes 16 + VX tx - 1 .. (the tile starts
     * 16 bytes left of the block, so its pieces lie as in the image), so
     * that window column X is byte (X + 3) % 4 of word (X + 3) / 4 */
    VIN = (VX + 2 + 3 + 3) / 4
};

/* The block's tile: padded rows y0 .., image byte columns x0 - 16 .. in
 * 16-byte pieces as they lie in the image; consecutive threads take
 * consecutive pieces of a row, walking the rows without a division.  A
 * tile inside the image (most of a frame's) is aligned loads from a
 * stepped pointer; at the edges the pieces inside the image are loaded as
 * they are, those that no stored output reads (past the row's end, where
 * a block is cut) are zeros, and the rest made by the border rule.
 * F_LOADS loads are in flight before the first store (one at a time, a
 * block with few neighbours on its SM waited out each load's latency in
 * turn).  Then the barrier. */
enum { F_LOADS = 8, F_EDGE_LOADS = 4 };
/* Bytes b .. b + 15 of padded row `row` (NULL: a zero row) through the
 * border rule, b an image byte column (negative or past the row at the
 * edges): byte b is channel b mod C of pixel b div C (rounded down). */
template <int C>
__device__ __forceinline__ uint4 f_border_piece(const jf_tile_src &s, const unsigned char *row, int b)
{
    if (C == 1)
        return jf_src_piece_words<unsigned char>(s, row, b + s.r, 0);
    unsigned v[4] = {0u, 0u, 0u, 0u};
#pragma unroll 1
    for (int i = 0; i < 16; i++) {
        const int x = b + i >= 0 ? (b + i) / C : -((C - 1 - (b + i)) / C), c = b + i - x * C;
        v[i / 4] |= jf_src_sample<unsigned char>(s, row, x + s.r, c) << (8 * (i % 4));
    }
    return make_uint4(v[0], v[1], v[2], v[3]);
}

template <int C>
__device__ __forceinline__ void f_load_tile(unsigned int *tile, int tile_w, int tile_h,
                                            const jf_tile_src &s, int x0, int y0)
{
    const int pieces = tile_w / 16, n = blockDim.x * blockDim.y, total = tile_h * pieces;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int step_rows = n / pieces, step_pieces = n - step_rows * pieces;
    const int top = y0 - s.r; /* image row of the tile's first */
    const int wb = s.w * C; /* the row's bytes */
    int r = tid / pieces, p = tid - r * pieces;
    if (s.align >= 16 && x0 >= 16 && x0 - 16 + tile_w <= wb && top >= 0 && top + tile_h <= s.h) {
        const unsigned char *g = s.img + (size_t)(top + r) * s.pitch + (x0 - 16 + 16 * p);
        const size_t gstep = (size_t)step_rows * s.pitch + 16 * step_pieces, wrap = s.pitch - 16 * pieces;
        for (int i = tid; i < total; i += F_LOADS * n) {
            uint4 v[F_LOADS];
#pragma unroll
            for (int b = 0; b < F_LOADS; b++) { /* predicated: no branch between the loads */
                if (i + b * n < total)
                    v[b] = *(const uint4 *)g;
                g += gstep;
                if ((p += step_pieces) >= pieces)
                    p -= pieces, g += wrap;
            }
#pragma unroll
            for (int b = 0; b < F_LOADS; b++)
                if (i + b * n < total)
                    ((uint4 *)tile)[i + b * n] = v[b];
        }
    } else { /* the same batches: pieces inside the image loaded, the rest made after */
        for (int i = tid; i < total; i += F_EDGE_LOADS * n) {
            uint4 v[F_EDGE_LOADS];
            unsigned made = 0; /* bit b: piece i + b n goes through the border rule */
#pragma unroll
            for (int b = 0; b < F_EDGE_LOADS; b++) {
                const int sx = x0 - 16 + 16 * p; /* image column of its first byte */
                const unsigned char *row = jf_src_row(s, y0 + r);
                if (i + b * n >= total)
                    ; /* past the tile */
                else if (row && s.align >= 16 && sx >= 0 && sx + 16 <= wb)
                    v[b] = *(const uint4 *)(row + sx);
                else
                    made |= 1u << b;
                r += step_rows, p += step_pieces;
                if (p >= pieces)
                    r++, p -= pieces;
            }
#pragma unroll
            for (int b = 0; b < F_EDGE_LOADS; b++)
                if (i + b * n < total && !(made >> b & 1u))
                    ((uint4 *)tile)[i + b * n] = v[b];
            for (; made; made &= made - 1) { /* one copy of the border rule, not F_EDGE_LOADS */
                const int at = i + (__ffs(made) - 1) * n, ty = at / pieces;
                const int sx = x0 - 16 + 16 * (at - ty * pieces);
                /* past every tap of a stored output (C <= 4): unread */
                ((uint4 *)tile)[at] = sx >= wb + 4 ? make_uint4(0u, 0u, 0u, 0u)
                                                   : f_border_piece<C>(s, jf_src_row(s, y0 + ty), sx);
            }
        }
    }
    __syncthreads();
}

/* The weights as a by-value kernel parameter: in the constant bank, ordered
 * with the launch on its stream (as conv_fast.cu's).  `pair` holds each
 * window row's weights as DP2A takes them, two 16-bit halves (low first):
 * (q0, q1), (q2, 0), (0, q0), (q1, q2), (0, q2). */
enum { F_PAIRS = 5 };
struct fixed_weights {
    int q[9];
    unsigned pair[3][F_PAIRS];
    int bias; /* 2^(shift - 1): the rounding */
    unsigned shift;
};

/* c + byte B of a x the low half of w (signed). */
template <int B>
__device__ __forceinline__ int v_mad(unsigned a, int w, int c)
{
    int d;
    asm("vmad.s32.u32.s32 %0, %1.b%4, %2.h0, %3;" : "=r"(d) : "r"(a), "r"(w), "r"(c), "n"(B));
    return d;
}

/* The byte as a run-time value that unrolling makes constant. */
__device__ __forceinline__ int v_mad_at(unsigned a, int byte, int w, int c)
{
    switch (byte) {
    case 0: return v_mad<0>(a, w, c);
    case 1: return v_mad<1>(a, w, c);
    case 2: return v_mad<2>(a, w, c);
    default: return v_mad<3>(a, w, c);
    }
}

/* sum >> shift (arithmetic), below zero 0, above 255 255: the shift's
 * 32-bit saturation and a second operation, min with 255, in one
 * instruction.  (The byte-merging form's saturation was not to the byte
 * where the H200 emulates it: 1095 came out as 71.) */
__device__ __forceinline__ unsigned v_out(int sum, unsigned shift)
{
    unsigned d;
    asm("vshr.u32.s32.u32.sat.clamp.min %0, %1, %2, %3;" : "=r"(d) : "r"(sum), "r"(shift), "r"(255u));
    return d;
}

/* c + the halves of w (signed) times bytes 2 HI and 2 HI + 1 of a. */
template <int HI>
__device__ __forceinline__ int dp2(unsigned w, unsigned a, int c)
{
#if __CUDA_ARCH__ >= 610
    int d;
    if (HI)
        asm("dp2a.hi.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(w), "r"(a), "r"(c));
    else
        asm("dp2a.lo.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(w), "r"(a), "r"(c));
    return d;
#else /* compiled, never launched there (the row needs 6.1) */
    return c + (int)(short)(w & 0xFFFFu) * (int)((a >> (16 * HI)) & 0xFFu) +
           (int)(short)(w >> 16) * (int)((a >> (16 * HI + 8)) & 0xFFu);
#endif
}

/* Four results (memory order) as a word, each sum >> shift saturated to
 * 0..255: from 7.2 two saturating packs. */
__device__ __forceinline__ unsigned dp_word(int s0, int s1, int s2, int s3)
{
#if __CUDA_ARCH__ >= 720
    unsigned hi, d;
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(hi) : "r"(s3), "r"(s2), "r"(0));
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(s1), "r"(s0), "r"(hi));
    return d;
#else
    const unsigned v0 = (unsigned)min(max(s0, 0), 255), v1 = (unsigned)min(max(s1, 0), 255),
                   v2 = (unsigned)min(max(s2, 0), 255), v3 = (unsigned)min(max(s3, 0), 255);
    return __byte_perm(__byte_perm(v0, v1, 0x0040u), __byte_perm(v2, v3, 0x0040u), 0x5410u);
#endif
}

enum { ARITH_VIDEO, ARITH_DP };

/* One output's sum in grey by dot products: window row j's taps are the
 * bytes at positions p, p + 1, p + 2 of that row's words (p = px + 3: byte
 * p % 4 of word p / 4), two DP2A whatever byte the window starts at. */
template <int N>
__device__ __forceinline__ int f_sum_dp(const unsigned (&r)[N][VIN], int py, int px, int bias,
                                        const unsigned (&pr)[3][F_PAIRS])
{
    int sum = bias;
    const int p = px + 3, wd = p / 4;
#pragma unroll
    for (int j = 0; j < 3; j++) {
        const unsigned *row = r[py + j];
        switch (p % 4) { /* taps at bytes ... of word wd, then wd + 1 */
        case 0: sum = dp2<1>(pr[j][1], row[wd], dp2<0>(pr[j][0], row[wd], sum)); break; /* 0 1 | 2 */
        case 1: sum = dp2<1>(pr[j][3], row[wd], dp2<0>(pr[j][2], row[wd], sum)); break; /* 1 | 2 3 */
        case 2: sum = dp2<0>(pr[j][1], row[wd + 1], dp2<1>(pr[j][0], row[wd], sum)); break; /* 2 3 | 0 */
        default: sum = dp2<0>(pr[j][3], row[wd + 1], dp2<1>(pr[j][2], row[wd], sum)); break; /* 3 | 0 1 */
        }
    }
    return sum;
}

/* The sums of output word q4 (output bytes 4 q4 .. 4 q4 + 3) of C
 * interleaved channels: output byte o's taps are bytes 4 + o - C, 4 + o and
 * 4 + o + C of the row's words q4 .. q4 + 2 (prev, cur, next).  Video (any
 * C, grey too): a VMAD a tap, any byte.  Dot products (C > 1; grey's are
 * f_sum_dp): per window row one permute pairs the first two taps of
 * outputs 0 and 1 (A0 B0 A1 B1), one those of 2 and 3, one gathers the
 * four third taps (D0 .. D3; where C is 4 they are word next as it is). */
template <int ARITH, int C, int N>
__device__ __forceinline__ void f_sums4(const unsigned (&r)[N][VIN], int py, int q4, const int (&q)[9],
                                        const unsigned (&pr)[3][F_PAIRS], int bias, int (&s)[4])
{
    enum {
        SEL_P01 = (4 - C) | 4 << 4 | (5 - C) << 8 | 5 << 12,
        SEL_P23 = (6 - C) | 6 << 4 | (7 - C) << 8 | 7 << 12,
        SEL_T = C | (C + 1) << 4 | (C + 2) << 8 | (C + 3) << 12 /* of cur, next */
    };
#pragma unroll
    for (int o = 0; o < 4; o++)
        s[o] = bias;
#pragma unroll
    for (int j = 0; j < 3; j++) {
        const unsigned *row = r[py + j];
        if (ARITH == ARITH_VIDEO) {
#pragma unroll
            for (int o = 0; o < 4; o++)
#pragma unroll
                for (int i = 0; i < 3; i++) {
                    const int at = 4 * q4 + 4 + o + (i - 1) * C;
                    s[o] = v_mad_at(row[at / 4], at % 4, q[j * 3 + i], s[o]);
                }
        } else {
            const unsigned prev = row[q4], cur = row[q4 + 1], next = row[q4 + 2];
            const unsigned p01 = __byte_perm(prev, cur, SEL_P01), p23 = __byte_perm(prev, cur, SEL_P23);
            const unsigned t = C == 4 ? next : __byte_perm(cur, next, SEL_T);
            s[0] = dp2<0>(pr[j][1], t, dp2<0>(pr[j][0], p01, s[0]));
            s[1] = dp2<0>(pr[j][4], t, dp2<1>(pr[j][0], p01, s[1]));
            s[2] = dp2<1>(pr[j][1], t, dp2<0>(pr[j][0], p23, s[2]));
            s[3] = dp2<1>(pr[j][4], t, dp2<1>(pr[j][0], p23, s[3]));
        }
    }
}

template <int ARITH, int VY, int C>
__device__ __forceinline__ void f_body(const jf_tile_src &src, int w, int h, unsigned char *__restrict__ out,
                                       size_t out_pitch, int tile_w, int stores8, const fixed_weights &W)
{
    extern __shared__ unsigned int s_tile[];
    const int x0 = blockIdx.x * blockDim.x * VX, y0 = blockIdx.y * blockDim.y * VY;
    const int ox = x0 + threadIdx.x * VX, oy = y0 + threadIdx.y * VY;
    const int wb = w * C; /* output bytes a row */
    f_load_tile<C>(s_tile, tile_w, blockDim.y * VY + 2, src, x0, y0);
    if (ox >= wb || oy >= h)
        return;
    const int words_per_row = tile_w / 4;
    /* words 3 + 2 tx .. 6 + 2 tx: tile bytes 12 + 8 tx .., the window's from 15 + 8 tx */
    const unsigned *t = s_tile + threadIdx.y * VY * words_per_row + 3 + threadIdx.x * (VX / 4);
    int q[9];
    unsigned pr[3][F_PAIRS];
#pragma unroll
    for (int i = 0; i < 9; i++)
        q[i] = W.q[i];
#pragma unroll
    for (int i = 0; i < 3 * F_PAIRS; i++)
        pr[i / F_PAIRS][i % F_PAIRS] = W.pair[i / F_PAIRS][i % F_PAIRS];
    unsigned r[VY + 2][VIN];
#pragma unroll
    for (int y = 0; y < VY + 2; y++) {
        const uint2 pair = *(const uint2 *)(t + y * words_per_row + 1); /* 8-byte aligned */
        r[y][0] = t[y * words_per_row];
        r[y][1] = pair.x;
        r[y][2] = pair.y;
        r[y][3] = t[y * words_per_row + 3];
    }
    unsigned char *o = out + (size_t)oy * out_pitch + ox;
    const bool whole = stores8 && ox + VX <= wb;
#pragma unroll
    for (int py = 0; py < VY; py++, o += out_pitch) {
        unsigned wd[VX / 4];
        if (oy + py >= h)
            break;
#pragma unroll
        for (int q4 = 0; q4 < VX / 4; q4++) { /* four bytes, memory order */
            int s[4];
            if (C == 1 && ARITH == ARITH_DP) {
#pragma unroll
                for (int i = 0; i < 4; i++)
                    s[i] = f_sum_dp<VY + 2>(r, py, 4 * q4 + i, W.bias, pr);
            } else {
                f_sums4<ARITH, C, VY + 2>(r, py, q4, q, pr, W.bias, s);
            }
            if (ARITH == ARITH_VIDEO) {
                unsigned v[4];
#pragma unroll
                for (int i = 0; i < 4; i++)
                    v[i] = v_out(s[i], W.shift);
                wd[q4] = __byte_perm(__byte_perm(v[0], v[1], 0x0040u), __byte_perm(v[2], v[3], 0x0040u),
                                     0x5410u);
            } else {
                const int sh = (int)W.shift;
                wd[q4] = dp_word(s[0] >> sh, s[1] >> sh, s[2] >> sh, s[3] >> sh);
            }
        }
        if (whole) {
            *(uint2 *)o = make_uint2(wd[0], wd[1]);
        } else {
#pragma unroll
            for (int px = 0; px < VX; px++)
                if (ox + px < wb)
                    o[px] = (unsigned char)(wd[px / 4] >> (8 * (px % 4)));
        }
    }
}

/* w: the image's width in pixels of C channels */
template <int VY, int C>
__global__ void conv_fast_video_kernel(const jf_tile_src src, int w, int h,
                                       unsigned char *__restrict__ out, size_t out_pitch,
                                       int tile_w, int stores8, const fixed_weights W)
{
    f_body<ARITH_VIDEO, VY, C>(src, w, h, out, out_pitch, tile_w, stores8, W);
}

template <int VY, int C>
__global__ void conv_fast_dp_kernel(const jf_tile_src src, int w, int h,
                                    unsigned char *__restrict__ out, size_t out_pitch,
                                    int tile_w, int stores8, const fixed_weights W)
{
    f_body<ARITH_DP, VY, C>(src, w, h, out, out_pitch, tile_w, stores8, W);
}

template <int VY, int C>
static jf_status fixed_launch(const jf_gpu_call *g, int arith, const fixed_weights &W, int bx, int by)
{
    const jf_image *shape = g->in->shape;
    const jf_dview *out = g->out;
    const void *kernel = arith == ARITH_DP ? (const void *)conv_fast_dp_kernel<VY, C>
                                           : (const void *)conv_fast_video_kernel<VY, C>;
    int tile_w, id;
    jf_status st;
    const size_t smem = jf_conv_fast_fixed_smem(bx, by, VY, &tile_w);
    const dim3 block((unsigned)bx, (unsigned)by);
    const dim3 grid = jf_grid(shape->width * C, shape->height, 1, dim3((unsigned)(bx * VX), (unsigned)(by * VY)));
    const int stores8 = ((uintptr_t)out->ptr | out->pitch) % 8 == 0;
    if ((st = jf_gpu_launch_fits(g->ctx, kernel, "conv fast (fixed point)", bx * by, smem)) != JF_OK ||
        (st = jf_gpu_timer_start(g->ctx, &id)) != JF_OK)
        return st;
    if (arith == ARITH_DP)
        conv_fast_dp_kernel<VY, C><<<grid, block, smem, g->ctx->gpu->stream>>>(
            g->in->src, shape->width, shape->height, out->ptr, out->pitch, tile_w, stores8, W);
    else
        conv_fast_video_kernel<VY, C><<<grid, block, smem, g->ctx->gpu->stream>>>(
            g->in->src, shape->width, shape->height, out->ptr, out->pitch, tile_w, stores8, W);
    return jf_gpu_filter_done(g->ctx, id, arith == ARITH_DP ? "conv_fast_dp_kernel" : "conv_fast_video_kernel",
                              "conv", "fast-fixed", 3, shape, 0);
}

template <int VY>
static jf_status fixed_channels(const jf_gpu_call *g, int arith, const fixed_weights &W, int bx, int by)
{
    switch (g->in->shape->channels) {
    case 1: return fixed_launch<VY, 1>(g, arith, W, bx, by);
    case 2: return fixed_launch<VY, 2>(g, arith, W, bx, by);
    case 3: return fixed_launch<VY, 3>(g, arith, W, bx, by);
    default: return fixed_launch<VY, 4>(g, arith, W, bx, by);
    }
}

static unsigned halves(int lo, int hi)
{
    return ((unsigned)lo & 0xFFFFu) | ((unsigned)hi << 16);
}

static jf_status fixed_run(const jf_gpu_call *g, int arith)
{
    const jf_image *shape = g->in->shape;
    const int bx = g->choice->block_x, by = g->choice->block_y;
    jf_conv_fast_fixed_weights qw;
    fixed_weights W;
    if (g->k != 3 || shape->channels < 1 || shape->channels > 4 || shape->sample != JF_SAMPLE_U8 ||
        !jf_conv_fast_fixed_quantise(g->weights, g->k, &qw))
        return jf_fail(JF_ERR_INTERNAL, "conv fast (fixed point): chosen for what it does not take");
    for (int i = 0; i < 9; i++)
        W.q[i] = qw.q[i];
    for (int j = 0; j < 3; j++) {
        const int *r = qw.q + 3 * j;
        W.pair[j][0] = halves(r[0], r[1]);
        W.pair[j][1] = halves(r[2], 0);
        W.pair[j][2] = halves(0, r[0]);
        W.pair[j][3] = halves(r[1], r[2]);
        W.pair[j][4] = halves(0, r[2]);
    }
    W.shift = (unsigned)qw.shift;
    W.bias = qw.shift ? 1 << (qw.shift - 1) : 0;
    switch (jf_conv_fast_fixed_rows(shape->width * shape->channels, shape->height, bx, by,
                                    g->ctx->gpu->info.multiprocessors)) {
    case JF_CONV_FAST_FIXED_ROWS: return fixed_channels<JF_CONV_FAST_FIXED_ROWS>(g, arith, W, bx, by);
    case JF_CONV_FAST_FIXED_ROWS_MID: return fixed_channels<JF_CONV_FAST_FIXED_ROWS_MID>(g, arith, W, bx, by);
    default: return fixed_channels<JF_CONV_FAST_FIXED_ROWS_SMALL>(g, arith, W, bx, by);
    }
}

extern "C" jf_status jf_conv_video_run(const jf_gpu_call *g)
{
    return fixed_run(g, ARITH_VIDEO);
}

extern "C" jf_status jf_conv_dp_run(const jf_gpu_call *g)
{
    return fixed_run(g, ARITH_DP);
}
