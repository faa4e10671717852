/*
 * Convolution, fast variant at k = 3 for 8-bit grey images on GPUs with
 * native video instructions (compute capability 5.x and 6.x: the Jetson
 * Nano's sm_53), in fixed point.
 *
 * There VMAD multiplies a byte picked out of any register by a 16-bit half
 * of another and adds a 32-bit value, and VSHR shifts a sum and clamps it
 * to 0..255: a tap is one instruction and an output one more, with no
 * unpacking and no conversion to float and back (9 + 1 an output, and
 * three byte permutes for four outputs' word, against 9 FMAs, the
 * conversions and the rounding in conv_fast.cu).  The weights are
 * q / 2^shift with 16-bit q (jf_conv_video_quantise); the sum starts at
 * 2^(shift - 1), so the shift rounds as jf_saturate_round does,
 * floor(v + 0.5).  Where the weights are exactly that (integers, binomials,
 * small dyadic fractions) every sum is exact, as the float reference's is,
 * and the result equals it bit for bit; else the quantiser takes them only
 * where a sum moves by at most half a level, within the one level the float
 * kernels keep.  Elsewhere (7.0 on) the same PTX is emulated: correct,
 * slower; the variant table runs it there only under the Nano's limits, so
 * a big GPU tests the Nano's code.
 *
 * A thread computes JF_CONV_VIDEO_ROWS x JF_CONV_VIDEO_COLS outputs from
 * the block's tile (v_load_tile): per output row one 8-byte and two 4-byte
 * shared loads, 72 VMAD, 8 VSHR, 6 byte permutes and one 8-byte store.
 */
#include "filters/conv/conv_video.h"
#include "filters/resolve.h"
#include "filters/filter_cuda.cuh"
#include "filters/filters.h"
#include "filters/tile.cuh"

enum {
    VX = JF_CONV_VIDEO_COLS, /* outputs a thread across (8: two words) */
    VY = JF_CONV_VIDEO_ROWS, /* and down */
    /* a thread's input row: tile bytes 16 + VX tx - 1 .. (the tile starts
     * 16 bytes left of the block, so its pieces lie as in the image), so
     * that window column X is byte (X + 3) % 4 of word (X + 3) / 4 */
    VIN = (VX + 2 + 3 + 3) / 4
};

/* The block's tile: padded rows y0 .., image columns x0 - 16 .. in
 * 16-byte pieces as they lie in the image; consecutive threads take
 * consecutive pieces of a row, walking the rows without a division.  A
 * tile inside the image (most of a frame's) is aligned loads from a
 * stepped pointer: the Nano pays for every instruction, and a checked
 * piece costs several times the load; the others go through the border
 * rule piece by piece.  Then the barrier. */
__device__ __forceinline__ void v_load_tile(unsigned int *tile, int tile_w, int tile_h,
                                            const jf_tile_src &s, int x0, int y0)
{
    const int pieces = tile_w / 16, n = blockDim.x * blockDim.y, total = tile_h * pieces;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int step_rows = n / pieces, step_pieces = n - step_rows * pieces;
    const int top = y0 - s.r; /* image row of the tile's first */
    int r = tid / pieces, p = tid - r * pieces;
    if (s.align >= 16 && x0 >= 16 && x0 - 16 + tile_w <= s.w && top >= 0 && top + tile_h <= s.h) {
        const unsigned char *g = s.img + (size_t)(top + r) * s.pitch + (x0 - 16 + 16 * p);
        const size_t gstep = (size_t)step_rows * s.pitch + 16 * step_pieces, wrap = s.pitch - 16 * pieces;
        for (int i = tid; i < total; i += n, g += gstep) {
            ((uint4 *)tile)[i] = *(const uint4 *)g;
            if ((p += step_pieces) >= pieces)
                p -= pieces, g += wrap;
        }
    } else {
        for (int i = tid; i < total; i += n) {
            const int sx = x0 - 16 + 16 * p; /* image column of its first byte */
            const unsigned char *row = jf_src_row(s, y0 + r);
            ((uint4 *)tile)[i] = row && s.align >= 16 && sx >= 0 && sx + 16 <= s.w
                                     ? *(const uint4 *)(row + sx)
                                     : jf_src_piece_words<unsigned char>(s, row, sx + s.r, 0);
            r += step_rows, p += step_pieces;
            if (p >= pieces)
                r++, p -= pieces;
        }
    }
    __syncthreads();
}

/* The weights as a by-value kernel parameter: in the constant bank, ordered
 * with the launch on its stream (as conv_fast.cu's). */
struct video_weights {
    int q[9];
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

__global__ void conv_fast_video_kernel(const jf_tile_src src, int w, int h,
                                       unsigned char *__restrict__ out, size_t out_pitch,
                                       int tile_w, int stores8, const video_weights W)
{
    extern __shared__ unsigned int s_tile[];
    const int x0 = blockIdx.x * blockDim.x * VX, y0 = blockIdx.y * blockDim.y * VY;
    const int ox = x0 + threadIdx.x * VX, oy = y0 + threadIdx.y * VY;
    v_load_tile(s_tile, tile_w, blockDim.y * VY + 2, src, x0, y0);
    if (ox >= w || oy >= h)
        return;
    const int words_per_row = tile_w / 4;
    /* words 3 + 2 tx .. 6 + 2 tx: tile bytes 12 + 8 tx .., the window's from 15 + 8 tx */
    const unsigned *t = s_tile + threadIdx.y * VY * words_per_row + 3 + threadIdx.x * (VX / 4);
    int q[9];
#pragma unroll
    for (int i = 0; i < 9; i++)
        q[i] = W.q[i];
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
    const bool whole = stores8 && ox + VX <= w;
#pragma unroll
    for (int py = 0; py < VY; py++, o += out_pitch) {
        unsigned v[VX], wd[VX / 4];
        if (oy + py >= h)
            break;
#pragma unroll
        for (int px = 0; px < VX; px++) {
            int sum = W.bias;
#pragma unroll
            for (int j = 0; j < 3; j++)
#pragma unroll
                for (int i = 0; i < 3; i++)
                    sum = v_mad_at(r[py + j][(px + i + 3) / 4], (px + i + 3) % 4, q[j * 3 + i], sum);
            v[px] = v_out(sum, W.shift);
        }
#pragma unroll
        for (int q4 = 0; q4 < VX / 4; q4++) /* four bytes, memory order */
            wd[q4] = __byte_perm(__byte_perm(v[4 * q4], v[4 * q4 + 1], 0x0040u),
                                 __byte_perm(v[4 * q4 + 2], v[4 * q4 + 3], 0x0040u), 0x5410u);
        if (whole) {
            *(uint2 *)o = make_uint2(wd[0], wd[1]);
        } else {
#pragma unroll
            for (int px = 0; px < VX; px++)
                if (ox + px < w)
                    o[px] = (unsigned char)(wd[px / 4] >> (8 * (px % 4)));
        }
    }
}

extern "C" jf_status jf_conv_video_run(const jf_gpu_call *g)
{
    const jf_filter_in *in = g->in;
    const jf_image *shape = in->shape;
    const jf_dview *out = g->out;
    const int bx = g->choice->block_x, by = g->choice->block_y;
    jf_conv_video_weights qw;
    video_weights W;
    int tile_w, id;
    jf_status st;
    if (g->k != 3 || shape->channels != 1 || shape->sample != JF_SAMPLE_U8 ||
        !jf_conv_video_quantise(g->weights, g->k, &qw))
        return jf_fail(JF_ERR_INTERNAL, "conv fast (video): chosen for what it does not take");
    for (int i = 0; i < 9; i++)
        W.q[i] = qw.q[i];
    W.shift = (unsigned)qw.shift;
    W.bias = qw.shift ? 1 << (qw.shift - 1) : 0;
    const size_t smem = jf_conv_video_smem(bx, by, &tile_w);
    const dim3 block((unsigned)bx, (unsigned)by);
    const dim3 grid = jf_grid(shape->width, shape->height, 1, dim3((unsigned)(bx * VX), (unsigned)(by * VY)));
    const int stores8 = ((uintptr_t)out->ptr | out->pitch) % 8 == 0;
    if ((st = jf_gpu_launch_fits(g->ctx, (const void *)conv_fast_video_kernel, "conv fast (video)",
                                 bx * by, smem)) != JF_OK ||
        (st = jf_gpu_timer_start(g->ctx, &id)) != JF_OK)
        return st;
    conv_fast_video_kernel<<<grid, block, smem, g->ctx->gpu->stream>>>(
        in->src, shape->width, shape->height, out->ptr, out->pitch, tile_w, stores8, W);
    return jf_gpu_filter_done(g->ctx, id, "conv_fast_video_kernel", "conv", "fast-fixed", 3, shape, 0);
}
