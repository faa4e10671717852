/* Internal to filters/conv: how the fast and separable convolution kernels
 * turn samples into floats and results back into samples. */
#ifndef JF_FILTERS_CONV_FAST_CUH
#define JF_FILTERS_CONV_FAST_CUH

#include "filters/tile.cuh"

#include "filters/conv/conv_shapes.h"

#define PX JF_CONV_FAST_PX /* outputs per thread, across */

/*
 * Samples to floats and back without the conversion unit (I2F and F2I issue
 * at a quarter of the rate of FADD, on Maxwell as on Hopper, and the 3 x 3
 * kernel did three of them per output against nine FMAs; on the H100 this
 * gained 0-7%, the tile loads being the larger cost there):
 *   in:  a sample (8 or 16 bits) under the exponent of 2^23 is the float
 *        2^23 + v exactly, and subtracting 2^23 leaves v (one byte permute,
 *        one add);
 *   out: jf_saturate_round's floor(v + 0.5) as the sum v + 0.5 + 2^23
 *        rounded down, whose low mantissa bits are that floor for
 *        0 <= v + 0.5 < 2^23; clamping the bit pattern between those of
 *        2^23 and 2^23 + MAX (255 or 65535) saturates as jf_saturate_round
 *        and jf_saturate_round16 do (sums below zero have a smaller
 *        exponent, so a smaller pattern, and sums of 2^23 or more a larger
 *        one), and the low 8 or 16 bits are the result.
 */
template <typename T> struct fast_sample;

template <> struct fast_sample<unsigned char> {
    static __device__ __forceinline__ float get(const unsigned *wd, int i)
    {
        return __int_as_float((int)__byte_perm(wd[i >> 2], 0x4B000000u, (unsigned)(i & 3) | 0x7650u)) -
               8388608.0f;
    }
    enum { TOP = 0x4B0000FF };
};

template <> struct fast_sample<unsigned short> {
    static __device__ __forceinline__ float get(const unsigned *wd, int i)
    {
        return __int_as_float((int)__byte_perm(wd[i >> 1], 0x4B000000u, (i & 1) ? 0x7632u : 0x7610u)) -
               8388608.0f;
    }
    enum { TOP = 0x4B00FFFF };
};

/* The bit pattern whose low 8 or 16 bits are the rounded, saturated v. */
template <typename T>
__device__ __forceinline__ unsigned fast_round_bits(float v)
{
    const int bits = __float_as_int(__fadd_rd(v + 0.5f, 8388608.0f));
    return (unsigned)min(max(bits, 0x4B000000), (int)fast_sample<T>::TOP);
}

/* A thread's NX results of one row (NX a multiple of 4) as words, samples
 * in memory order. */
template <typename T, int NX>
__device__ __forceinline__ void fast_pack(const unsigned (&r)[NX], unsigned (&wd)[NX * sizeof(T) / 4])
{
#pragma unroll
    for (int q = 0; q < NX * (int)sizeof(T) / 4; q++)
        wd[q] = sizeof(T) == 1 ? __byte_perm(__byte_perm(r[4 * q], r[4 * q + 1], 0x0040u),
                                             __byte_perm(r[4 * q + 2], r[4 * q + 3], 0x0040u), 0x5410u)
                               : __byte_perm(r[2 * q], r[2 * q + 1], 0x5410u);
}

/* A grey thread's PY x NX results to the image: NX samples of a row as
 * whole words where the output's alignment allows. */
template <typename T, int PY, int NX>
__device__ __forceinline__ void fast_store_block(const float (&acc)[PY][NX], unsigned char *out,
                                                 size_t out_pitch, int ox, int oy, int w, int h,
                                                 int word_stores)
{
#pragma unroll
    for (int py = 0; py < PY; py++) {
        const int y = oy + py;
        unsigned r[NX];
        if (y >= h)
            break;
        T *o = (T *)(out + (size_t)y * out_pitch) + ox;
#pragma unroll
        for (int px = 0; px < NX; px++)
            r[px] = fast_round_bits<T>(acc[py][px]);
        if (word_stores && ox + NX <= w) {
            unsigned wd[NX * sizeof(T) / 4];
            fast_pack<T>(r, wd);
#pragma unroll
            for (int q = 0; q < NX * (int)sizeof(T) / 4; q++)
                ((unsigned *)o)[q] = wd[q];
        } else {
#pragma unroll
            for (int px = 0; px < NX; px++)
                if (ox + px < w)
                    o[px] = (T)r[px];
        }
    }
}

/* Grey: the block's tile, then each thread its own PY x NX outputs
 * (fast_store_block). */
template <typename T, int PY, int NX = PX, typename Accumulate>
__device__ __forceinline__ void fast_grey_tile(unsigned int *s_tile, const jf_tile_src &src,
                                               int w, int h, int k,
                                               unsigned char *out, size_t out_pitch, int tile_w,
                                               int word_stores, Accumulate accumulate)
{
    const int x0 = blockIdx.x * blockDim.x * NX, y0 = blockIdx.y * blockDim.y * PY;
    const int ox = x0 + threadIdx.x * NX, oy = y0 + threadIdx.y * PY;
    float acc[PY][NX];

    jf_load_tile_src16<T, 1>(s_tile, tile_w, blockDim.y * PY + k - 1, src, 0, x0, y0);
    if (ox >= w || oy >= h)
        return;
    accumulate(s_tile, acc);
    fast_store_block<T>(acc, out, out_pitch, ox, oy, w, h, word_stores);
}

/*
 * Several channels: one block computes every channel of its tile in turn
 * (each channel's tile is gathered from the interleaved image into the same
 * tile buffer, the other channels' bytes staying in L1 for the next; then
 * `accumulate(tile, acc)` fills the thread's PY x NX block), keeps each
 * channel's results in its plane of a shared output tile (a row of NX
 * samples in words) and then writes the tile interleaved in 16-byte
 * pieces (jf_write_out_planes).  Writing each channel from its own block
 * would scatter sample stores at a stride of `ch` across three blocks.
 */
template <typename T, int PY, int NX = PX, typename Accumulate>
__device__ __forceinline__ void fast_interleaved_tile(unsigned int *smem, const jf_tile_src &src,
                                                      int w, int h, int ch, int k, unsigned char *out,
                                                      size_t out_pitch, int tile_w,
                                                      int out_piece, Accumulate accumulate)
{
    const int rows_out = blockDim.y * PY, cols_out = blockDim.x * NX;
    const int tile_h = rows_out + k - 1;
    unsigned char *s_out = (unsigned char *)smem + (size_t)tile_h * tile_w;
    const int row_bytes = cols_out * (int)sizeof(T), plane_bytes = rows_out * row_bytes;
    const int x0 = blockIdx.x * cols_out, y0 = blockIdx.y * rows_out;
    const int lx = threadIdx.x * NX, ly = threadIdx.y * PY;
    float acc[PY][NX];

    for (int c = 0; c < ch; c++) {
        if (c > 0)
            __syncthreads(); /* everyone is done with the previous plane's tile */
        jf_load_tile_src16<T>(smem, tile_w, tile_h, src, c, x0, y0);
        accumulate(smem, acc);
#pragma unroll
        for (int py = 0; py < PY; py++) {
            unsigned r[NX], wd[NX * sizeof(T) / 4];
#pragma unroll
            for (int px = 0; px < NX; px++)
                r[px] = fast_round_bits<T>(acc[py][px]);
            fast_pack<T>(r, wd);
            jf_store_words(s_out + c * plane_bytes + (ly + py) * row_bytes + lx * (int)sizeof(T), wd);
        }
    }
    __syncthreads();
    jf_write_out_planes<T>(s_out, row_bytes, plane_bytes, out, out_pitch, x0, y0,
                           w - x0 < cols_out ? w - x0 : cols_out, h - y0 < rows_out ? h - y0 : rows_out,
                           ch, out_piece);
}

#endif
