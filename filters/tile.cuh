/*
 * Tiles in shared memory: how the tiled kernels load them from the image
 * (the border applied as they load, below) and write their planar output
 * tiles back interleaved.  The block's threads walk a tile in 4- or 16-byte
 * pieces, consecutive threads taking consecutive pieces of a row, so a warp
 * reads contiguous bytes.
 */
#ifndef JF_FILTERS_TILE_CUH
#define JF_FILTERS_TILE_CUH

#include "filters/filters.h" /* jf_border_index */
#include "filters/shapes.h"  /* jf_tile_width, jf_out_planes_bytes */

/* The widest aligned piece a pitched buffer allows (the stores to an
 * output, the loads from an input): 16 bytes where its start and pitch are
 * multiples of 16 (cudaMallocPitch's always are), 4-byte words where they
 * are multiples of 4, else bytes. */
static inline int jf_out_piece(const void *ptr, size_t pitch)
{
    const size_t at = (size_t)(uintptr_t)ptr | pitch;
    return at % 16 == 0 ? 16 : at % 4 == 0 ? 4 : 1;
}

/* A thread's row of results (1, 2 or 4 words) in one store; o aligned to
 * the store's size. */
__device__ __forceinline__ void jf_store_words(unsigned char *o, const unsigned (&wd)[1])
{
    *(unsigned *)o = wd[0];
}
__device__ __forceinline__ void jf_store_words(unsigned char *o, const unsigned (&wd)[2])
{
    *(uint2 *)o = make_uint2(wd[0], wd[1]);
}
__device__ __forceinline__ void jf_store_words(unsigned char *o, const unsigned (&wd)[4])
{
    *(uint4 *)o = make_uint4(wd[0], wd[1], wd[2], wd[3]);
}

/* Bytes b0, b1, b2, b3 of w (indices known at compile time) as one word:
 * one byte permute where they lie in at most two words, else three. */
template <int NW>
__device__ __forceinline__ unsigned jf_pick4(const unsigned (&w)[NW], int b0, int b1, int b2, int b3)
{
    const int b[4] = {b0, b1, b2, b3};
    const int wa = b0 >> 2;
    int wb = wa;
    bool two = true;
#pragma unroll
    for (int j = 1; j < 4; j++) {
        if (b[j] >> 2 != wa && wb == wa)
            wb = b[j] >> 2;
        two = two && (b[j] >> 2 == wa || b[j] >> 2 == wb);
    }
    if (two) {
        unsigned sel = 0;
#pragma unroll
        for (int j = 0; j < 4; j++)
            sel |= (unsigned)((b[j] >> 2 == wa ? 0 : 4) + (b[j] & 3)) << (4 * j);
        return __byte_perm(w[wa], w[wb], sel);
    }
    /* bytes 0, 1 from their words, then bytes 2, 3 from theirs */
    const unsigned lo = __byte_perm(w[b0 >> 2], w[b1 >> 2], (unsigned)((b0 & 3) | ((4 + (b1 & 3)) << 4)));
    const unsigned hi = __byte_perm(w[b2 >> 2], w[b3 >> 2], (unsigned)((b2 & 3) | ((4 + (b3 & 3)) << 4)));
    return __byte_perm(lo, hi, 0x5410u);
}

/* Byte e of an interleaved run of pixels (CH samples of SZ bytes each)
 * as a byte of planar data whose planes start `plane` bytes apart: byte
 * e % SZ of sample e / (CH SZ) of channel (e / SZ) % CH. */
template <int SZ, int CH>
__device__ __forceinline__ int jf_planar_byte(int e, int plane)
{
    return ((e / SZ) % CH) * plane + (e / (CH * SZ)) * SZ + e % SZ;
}

/* A pixel group of the planar output tile, interleaved: G = 16 / SZ pixels
 * of CH channels (16 bytes of each plane, 16 CH bytes of image) from CH
 * 16-byte shared loads and byte permutes; stored in pieces of `piece`
 * bytes (the group starts at a multiple of 16 bytes of the image row). */
template <typename T, int CH>
__device__ __forceinline__ void jf_write_group(const unsigned char *src, int plane_bytes,
                                               unsigned char *o, int piece)
{
    enum { SZ = (int)sizeof(T), NW = 4 * CH };
    unsigned w[NW], ow[NW];
#pragma unroll
    for (int c = 0; c < CH; c++) {
        const uint4 v = *(const uint4 *)(src + c * plane_bytes);
        w[4 * c] = v.x;
        w[4 * c + 1] = v.y;
        w[4 * c + 2] = v.z;
        w[4 * c + 3] = v.w;
    }
#pragma unroll
    for (int m = 0; m < NW; m++) /* image bytes 4m .. 4m + 3 from planes 16 bytes apart in w */
        ow[m] = jf_pick4(w, jf_planar_byte<SZ, CH>(4 * m, 16), jf_planar_byte<SZ, CH>(4 * m + 1, 16),
                         jf_planar_byte<SZ, CH>(4 * m + 2, 16), jf_planar_byte<SZ, CH>(4 * m + 3, 16));
    if (piece == 16) {
#pragma unroll
        for (int q = 0; q < CH; q++)
            ((uint4 *)o)[q] = make_uint4(ow[4 * q], ow[4 * q + 1], ow[4 * q + 2], ow[4 * q + 3]);
    } else if (piece == 4) {
#pragma unroll
        for (int m = 0; m < NW; m++)
            ((unsigned *)o)[m] = ow[m];
    } else {
#pragma unroll
        for (int m = 0; m < NW; m++)
#pragma unroll
            for (int j = 0; j < 4; j++)
                o[4 * m + j] = (unsigned char)(ow[m] >> (8 * j));
    }
}

/* A block's planar output tile (CH planes of rows x row_bytes, plane_bytes
 * apart; row_bytes a multiple of 16) to the interleaved image: a group of
 * pixels a thread (jf_write_group), the ragged end a byte at a time.  x0
 * a multiple of 16 pixels.  Call after the barrier that completes the tile. */
template <typename T, int CH>
__device__ __forceinline__ void jf_write_out_planes_ch(const unsigned char *s_out, int row_bytes,
                                                       int plane_bytes, unsigned char *out,
                                                       size_t out_pitch, int x0, int y0, int cols,
                                                       int rows, int piece)
{
    enum { SZ = (int)sizeof(T), G = 16 / SZ };
    const int nthreads = blockDim.x * blockDim.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int groups = (cols + G - 1) / G;
    for (int i = tid; i < rows * groups; i += nthreads) {
        const int r = i / groups, g = i - r * groups;
        const unsigned char *src = s_out + r * row_bytes + 16 * g;
        unsigned char *o = out + (size_t)(y0 + r) * out_pitch + (size_t)(x0 + G * g) * CH * SZ;
        if (G * (g + 1) <= cols) {
            jf_write_group<T, CH>(src, plane_bytes, o, piece);
        } else {
            for (int e = 0; e < (cols - G * g) * CH * SZ; e++)
                o[e] = src[jf_planar_byte<SZ, CH>(e, plane_bytes)];
        }
    }
}

template <typename T>
__device__ __forceinline__ void jf_write_out_planes(const unsigned char *s_out, int row_bytes,
                                                    int plane_bytes, unsigned char *out,
                                                    size_t out_pitch, int x0, int y0, int cols,
                                                    int rows, int ch, int piece)
{
    if (ch == 3)
        jf_write_out_planes_ch<T, 3>(s_out, row_bytes, plane_bytes, out, out_pitch, x0, y0, cols,
                                     rows, piece);
    else if (ch == 4)
        jf_write_out_planes_ch<T, 4>(s_out, row_bytes, plane_bytes, out, out_pitch, x0, y0, cols,
                                     rows, piece);
    else
        jf_write_out_planes_ch<T, 2>(s_out, row_bytes, plane_bytes, out, out_pitch, x0, y0, cols,
                                     rows, piece);
}

/*
 * Tiles straight from the image: the border fused into the load.
 *
 * A jf_tile_src is the unpadded input on the device (interleaved, pitched)
 * and the border rule.  Sample (x, y) of the padded plane c, which the
 * kernels index as they would a padded copy, is image sample
 * (border(x - r), border(y - r)) of channel c, or 0 where the zero border
 * says so.  No padded copy is ever written: the full extra write and read
 * of the image that a pad pass costs (on a 25.6 GB/s Nano about as much as
 * a 3 x 3 median) is gone, and so is its buffer.
 *
 * 16-byte pieces of a tile row whose samples all lie inside the image row
 * come from aligned 16-byte loads shifted into place (funnel shifts) and,
 * with several channels, picked out with byte permutes (below); 4-byte
 * pieces of a grey image from two aligned words; the rest (edges, 4-byte
 * pieces of several channels) sample by sample, through the border rule
 * where a sample lies outside.
 * Every tile position maps to a defined sample, so loads never leave the
 * image whatever the tile's overrun.
 */
struct jf_tile_src {
    const unsigned char *img;
    size_t pitch;       /* bytes */
    int w, h, ch, r;    /* r: the padding the kernels assume, k / 2 */
    int align;          /* 16, 4 or 1: what divides both img and pitch */
    jf_border border;
};

static inline jf_tile_src jf_tile_source(const unsigned char *img, size_t pitch, int w, int h,
                                         int ch, int r, jf_border border)
{
    jf_tile_src s = {img, pitch, w, h, ch, r, jf_out_piece(img, pitch), border};
    return s;
}

/* The image row holding padded row y, or NULL for a zero row. */
__device__ __forceinline__ const unsigned char *jf_src_row(const jf_tile_src &s, int y)
{
    const int sy = jf_border_index(y - s.r, s.h, s.border);
    return sy < 0 ? (const unsigned char *)0 : s.img + (size_t)sy * s.pitch;
}

/* Padded column x of channel c in `row` (NULL: a zero row), as a T. */
template <typename T>
__device__ __forceinline__ unsigned jf_src_sample(const jf_tile_src &s, const unsigned char *row,
                                                  int x, int c)
{
    int sx = x - s.r;
    if ((unsigned)sx >= (unsigned)s.w)
        sx = jf_border_index(sx, s.w, s.border);
    return row && sx >= 0 ? ((const T *)row)[(size_t)sx * s.ch + c] : 0u;
}

/* The 4 bytes of padded row samples from column x on (x a multiple of
 * 4 / sizeof(T)), channel c. */
template <typename T>
__device__ __forceinline__ unsigned jf_src_word(const jf_tile_src &s, const unsigned char *row,
                                                int x, int c)
{
    enum { N = 4 / (int)sizeof(T) };
    const int sx = x - s.r;
    unsigned v = 0;
    if (row && sx >= 0 && sx + N <= s.w) { /* inside the row */
        if (s.ch == 1 && s.align >= 4) {
            const int b = sx * (int)sizeof(T);
            const unsigned *p = (const unsigned *)(row + (b & ~3));
            /* the second word holds the last sample whenever b is unaligned */
            return (b & 3) ? __funnelshift_r(p[0], p[1], (b & 3) * 8) : p[0];
        }
        const T *p = (const T *)row + (size_t)sx * s.ch + c; /* a sample every ch */
#pragma unroll
        for (int j = 0; j < N; j++)
            v |= (unsigned)p[j * s.ch] << (8 * (int)sizeof(T) * j);
        return v;
    }
#pragma unroll
    for (int j = 0; j < N; j++)
        v |= jf_src_sample<T>(s, row, x + j, c) << (8 * (int)sizeof(T) * j);
    return v;
}

/*
 * 16-byte pieces gathered from aligned 16-byte loads.  A piece of plane c
 * (16 / sizeof(T) samples from image column sx on) lies in the interleaved
 * row at byte b = (sx * CH + c) * sizeof(T), one sample every CH: at most
 * CH + 1 aligned 16-byte chunks hold it.  The chunks are loaded, aligned on
 * b with funnel shifts and, with several channels, the piece's samples
 * picked out with byte permutes: CH + 1 loads where a sample at a time took
 * 16.  b % 16 is the same for every piece of a tile row (pieces are 16 CH
 * bytes apart), so the switch on it below never diverges.
 */
template <int CH>
struct jf_piece_raw {
    uint4 c[CH + 1];
};

template <typename T, int CH>
__device__ __forceinline__ void jf_piece_load(const unsigned char *row, int b, jf_piece_raw<CH> &raw)
{
    const uint4 *p = (const uint4 *)(row + (b & ~15));
#pragma unroll
    for (int k = 0; k < CH; k++)
        raw.c[k] = p[k];
    /* the piece ends (CH - 1) samples before b + 16 CH: the last chunk holds
     * one of its bytes only when b lies further than that past a boundary
     * (never read it otherwise: it may lie past the image's last row) */
    raw.c[CH] = (b & 15) > (CH - 1) * (int)sizeof(T) ? p[CH] : make_uint4(0u, 0u, 0u, 0u);
}

/* Word m of a piece of plane c from the CH-channel words w that start at
 * its first sample: byte j is byte j % SZ of sample (4 m + j) / SZ. */
template <typename T, int CH>
struct jf_plane_word {
    template <int NW>
    static __device__ __forceinline__ unsigned get(const unsigned (&w)[NW], int m)
    {
        enum { SZ = (int)sizeof(T) };
        int bj[4];
#pragma unroll
        for (int j = 0; j < 4; j++)
            bj[j] = ((4 * m + j) / SZ) * CH * SZ + (4 * m + j) % SZ;
        return jf_pick4(w, bj[0], bj[1], bj[2], bj[3]);
    }
};
template <typename T>
struct jf_plane_word<T, 1> {
    template <int NW>
    static __device__ __forceinline__ unsigned get(const unsigned (&w)[NW], int m)
    {
        return w[m];
    }
};

/* The piece from its chunks: words from byte b = 16 j + 4 Q + sh / 8 on,
 * then its samples. */
template <typename T, int CH, int Q>
__device__ __forceinline__ uint4 jf_piece_pick(const jf_piece_raw<CH> &raw, int sh)
{
    enum { NW = 4 * CH };
    unsigned r[4 * (CH + 1)], w[NW];
#pragma unroll
    for (int k = 0; k <= CH; k++) {
        r[4 * k] = raw.c[k].x;
        r[4 * k + 1] = raw.c[k].y;
        r[4 * k + 2] = raw.c[k].z;
        r[4 * k + 3] = raw.c[k].w;
    }
#pragma unroll
    for (int j = 0; j < NW; j++)
        w[j] = __funnelshift_r(r[Q + j], r[Q + j + 1], sh); /* sh = 0: r[Q + j] */
    return make_uint4(jf_plane_word<T, CH>::get(w, 0), jf_plane_word<T, CH>::get(w, 1),
                      jf_plane_word<T, CH>::get(w, 2), jf_plane_word<T, CH>::get(w, 3));
}

/* b16 = b % 16, the same for every piece of a tile row (pieces are 16 CH
 * bytes apart). */
template <typename T, int CH>
__device__ __forceinline__ uint4 jf_piece_samples(const jf_piece_raw<CH> &raw, int b16)
{
    const int sh = (b16 & 3) * 8;
    switch (b16 >> 2) {
    case 0: return jf_piece_pick<T, CH, 0>(raw, sh);
    case 1: return jf_piece_pick<T, CH, 1>(raw, sh);
    case 2: return jf_piece_pick<T, CH, 2>(raw, sh);
    default: return jf_piece_pick<T, CH, 3>(raw, sh);
    }
}

/* A piece at the image's edge (or from an image not 16-byte aligned): word
 * by word, through the border rule where a sample lies outside. */
template <typename T>
__device__ __forceinline__ uint4 jf_src_piece_words(const jf_tile_src &s, const unsigned char *row,
                                                    int x, int c)
{
    const int n4 = 4 / (int)sizeof(T);
    return make_uint4(jf_src_word<T>(s, row, x, c), jf_src_word<T>(s, row, x + n4, c),
                      jf_src_word<T>(s, row, x + 2 * n4, c), jf_src_word<T>(s, row, x + 3 * n4, c));
}

/* The tile of padded plane c (image of CH channels) whose top-left sample
 * is (x0, y0), tile_h rows of tile_w bytes (a multiple of 16), in 16-byte
 * pieces, consecutive threads taking consecutive pieces of a row: the
 * pieces inside the image gathered from their chunks, the rest (edges;
 * every piece without GATHER) sample by sample; then the barrier. */
template <typename T, int CH, bool GATHER = true>
__device__ __forceinline__ void jf_load_tile_gather(unsigned int *tile_words, int tile_w, int tile_h,
                                                    const jf_tile_src &s, int c, int x0, int y0)
{
    enum { N = 16 / (int)sizeof(T) }; /* samples a piece */
    const int pieces = tile_w / 16, total = tile_h * pieces;
    const int nthreads = blockDim.x * blockDim.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int b16 = (((x0 - s.r) * CH + c) * (int)sizeof(T)) & 15;
    const bool aligned = s.align >= 16;
    for (int i = tid; i < total; i += nthreads) {
        const int ty = i / pieces, x = x0 + (i - ty * pieces) * N, sx = x - s.r;
        const unsigned char *row = jf_src_row(s, y0 + ty);
        if (GATHER && row && aligned && sx >= 0 && sx + N <= s.w) {
            jf_piece_raw<CH> raw;
            jf_piece_load<T, CH>(row, (sx * CH + c) * (int)sizeof(T), raw);
            ((uint4 *)tile_words)[i] = jf_piece_samples<T, CH>(raw, b16);
        } else {
            ((uint4 *)tile_words)[i] = jf_src_piece_words<T>(s, row, x, c);
        }
    }
    __syncthreads();
}

/* Bytes b .. b + 15 of a row that starts at a multiple of 16 and holds
 * byte b + 15: one aligned 16-byte load, or two shifted into place. */
__device__ __forceinline__ uint4 jf_bytes16(const unsigned char *row, int b)
{
    jf_piece_raw<1> raw;
    jf_piece_load<unsigned char, 1>(row, b, raw);
    return jf_piece_samples<unsigned char, 1>(raw, b & 15);
}

/* The tile of padded plane c whose top-left sample is (x0, y0): tile_h
 * rows of tile_w bytes in word pieces (tile_w a multiple of 4, a sample at
 * a time where the image is not grey and 4-byte aligned); then the
 * barrier. */
template <typename T>
__device__ __forceinline__ void jf_load_tile_src(unsigned int *tile_words, int tile_w, int tile_h,
                                                 const jf_tile_src &s, int c, int x0, int y0)
{
    enum { N = 4 / (int)sizeof(T) };
    const int pieces = tile_w / 4;
    const int nthreads = blockDim.x * blockDim.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    for (int i = tid; i < tile_h * pieces; i += nthreads) {
        const int ty = i / pieces, px = i - ty * pieces;
        tile_words[i] = jf_src_word<T>(s, jf_src_row(s, y0 + ty), x0 + px * N, c);
    }
    __syncthreads();
}

/* The same in 16-byte pieces (tile_w a multiple of 16): CH = 1 for grey
 * kernels, 0 where the channel count is known only at run time.  Of the
 * several-channel layouts only RGB gathers from 16-byte chunks: with two
 * or four loaders in one kernel ptxas kept their registers live at once
 * (190 registers where one needs 72); the others go sample by sample. */
template <typename T, int CH = 0>
__device__ __forceinline__ void jf_load_tile_src16(unsigned int *tile_words, int tile_w,
                                                   int tile_h, const jf_tile_src &s, int c, int x0,
                                                   int y0)
{
    if (CH == 1)
        jf_load_tile_gather<T, 1>(tile_words, tile_w, tile_h, s, c, x0, y0);
    else if (s.ch == 3)
        jf_load_tile_gather<T, 3>(tile_words, tile_w, tile_h, s, c, x0, y0);
    else
        jf_load_tile_gather<T, 1, false>(tile_words, tile_w, tile_h, s, c, x0, y0);
}

#endif
