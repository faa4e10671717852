/*
 * Tiles in shared memory: how the tiled kernels load them from the image
 * (the border applied as they load, below) and write their interleaved
 * output tiles back.  The block's threads walk a tile in 4- or 16-byte
 * pieces, consecutive threads taking consecutive pieces of a row, so a warp
 * reads contiguous bytes.
 */
#ifndef JF_FILTERS_TILE_CUH
#define JF_FILTERS_TILE_CUH

#include "filters/filters.h" /* jf_border_index */

/* Tile row length in bytes for a block bx wide and a k x k window. */
static inline int jf_tile_width(int bx, int k) { return (bx + k - 1 + 3) & ~3; }

/* The widest aligned piece a pitched buffer allows (the stores to an
 * output, the loads from an input): 16 bytes where its start and pitch are
 * multiples of 16 (cudaMallocPitch's always are), 4-byte words where they
 * are multiples of 4, else bytes. */
static inline int jf_out_piece(const void *ptr, size_t pitch)
{
    const size_t at = (size_t)(uintptr_t)ptr | pitch;
    return at % 16 == 0 ? 16 : at % 4 == 0 ? 4 : 1;
}

template <typename P>
__device__ __forceinline__ void jf_write_out_pieces(const unsigned char *s_out, int out_stride,
                                                    unsigned char *out, size_t out_pitch, int x0,
                                                    int y0, int cols, int rows, int px_bytes)
{
    const int nthreads = blockDim.x * blockDim.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int bytes = cols * px_bytes, n = (bytes + (int)sizeof(P) - 1) / (int)sizeof(P);
    for (int i = tid; i < rows * n; i += nthreads) {
        const int r = i / n, wi = i - r * n;
        unsigned char *o = out + (size_t)(y0 + r) * out_pitch + (size_t)x0 * px_bytes + sizeof(P) * wi;
        const unsigned char *so = s_out + r * out_stride + sizeof(P) * wi;
        if ((int)sizeof(P) * (wi + 1) <= bytes) {
            *(P *)o = *(const P *)so;
        } else {
            for (int b = 0; b < (int)sizeof(P) && (int)sizeof(P) * wi + b < bytes; b++)
                o[b] = so[b];
        }
    }
}

/* A block's interleaved output tile (rows x cols pixels of px_bytes bytes,
 * rows out_stride bytes apart in shared memory, out_stride a multiple of 16)
 * to the image in pieces of `piece` bytes (jf_out_piece), bytes at the
 * ragged end; consecutive threads take consecutive pieces of a row.  Call
 * after the barrier that completes the tile. */
__device__ __forceinline__ void jf_write_out_tile(const unsigned char *s_out, int out_stride,
                                                  unsigned char *out, size_t out_pitch, int x0,
                                                  int y0, int cols, int rows, int px_bytes,
                                                  int piece)
{
    if (piece == 16)
        jf_write_out_pieces<uint4>(s_out, out_stride, out, out_pitch, x0, y0, cols, rows, px_bytes);
    else if (piece == 4)
        jf_write_out_pieces<unsigned>(s_out, out_stride, out, out_pitch, x0, y0, cols, rows, px_bytes);
    else
        jf_write_out_pieces<unsigned char>(s_out, out_stride, out, out_pitch, x0, y0, cols, rows,
                                           px_bytes);
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
 * Pieces (4 or 16 bytes of one tile row) whose samples all lie inside the
 * image row of a grey image come from two aligned loads of the same size,
 * shifted into place (funnel shifts); the rest (edges, several channels)
 * sample by sample, through the border rule where a sample lies outside.
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

/* The 16 bytes from byte 4Q + sh / 8 of lo:hi. */
template <int Q>
__device__ __forceinline__ uint4 jf_shift16(const uint4 &lo, const uint4 &hi, int sh)
{
    const unsigned w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    return make_uint4(__funnelshift_r(w[Q], w[Q + 1], sh), __funnelshift_r(w[Q + 1], w[Q + 2], sh),
                      __funnelshift_r(w[Q + 2], w[Q + 3], sh), __funnelshift_r(w[Q + 3], w[Q + 4], sh));
}

/* Bytes b .. b + 15 of a row that starts at a multiple of 16 and holds
 * byte b + 15: one aligned 16-byte load, or two shifted into place. */
__device__ __forceinline__ uint4 jf_bytes16(const unsigned char *row, int b)
{
    const int sh = (b & 3) * 8;
    const uint4 *p = (const uint4 *)(row + (b & ~15));
    const uint4 lo = p[0];
    if ((b & 15) == 0)
        return lo;
    const uint4 hi = p[1]; /* holds byte b + 15: b is unaligned */
    switch ((b & 15) >> 2) { /* the same for a whole tile or row: no divergence */
    case 0: return jf_shift16<0>(lo, hi, sh);
    case 1: return jf_shift16<1>(lo, hi, sh);
    case 2: return jf_shift16<2>(lo, hi, sh);
    default: return jf_shift16<3>(lo, hi, sh);
    }
}

/* The same for 16 bytes (x a multiple of 16 / sizeof(T)). */
template <typename T>
__device__ __forceinline__ uint4 jf_src_piece16(const jf_tile_src &s, const unsigned char *row,
                                                int x, int c)
{
    enum { N = 16 / (int)sizeof(T) };
    const int sx = x - s.r;
    if (row && s.ch == 1 && s.align >= 16 && sx >= 0 && sx + N <= s.w)
        return jf_bytes16(row, sx * (int)sizeof(T));
    const int n4 = 4 / (int)sizeof(T);
    return make_uint4(jf_src_word<T>(s, row, x, c), jf_src_word<T>(s, row, x + n4, c),
                      jf_src_word<T>(s, row, x + 2 * n4, c), jf_src_word<T>(s, row, x + 3 * n4, c));
}

/* The tile of padded plane c whose top-left sample is (x0, y0): tile_h
 * rows of tile_w bytes (a multiple of sizeof(P)), in pieces P of 4 or 16
 * bytes, consecutive threads taking consecutive pieces of a row; then the
 * barrier. */
template <typename T, typename P>
__device__ __forceinline__ void jf_load_tile_src_pieces(unsigned int *tile_words, int tile_w,
                                                        int tile_h, const jf_tile_src &s, int c,
                                                        int x0, int y0)
{
    enum { PN = (int)sizeof(P) / (int)sizeof(T) }; /* samples a piece */
    const int pieces = tile_w / (int)sizeof(P);
    const int nthreads = blockDim.x * blockDim.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    for (int i = tid; i < tile_h * pieces; i += nthreads) {
        const int ty = i / pieces, px = i - ty * pieces;
        const unsigned char *row = jf_src_row(s, y0 + ty);
        if (sizeof(P) == 16)
            ((uint4 *)tile_words)[i] = jf_src_piece16<T>(s, row, x0 + px * PN, c);
        else
            tile_words[i] = jf_src_word<T>(s, row, x0 + px * PN, c);
    }
    __syncthreads();
}

/* Word pieces (tile_w a multiple of 4) and 16-byte pieces (a multiple of
 * 16; a quarter of the load instructions where the image allows). */
template <typename T>
__device__ __forceinline__ void jf_load_tile_src(unsigned int *tile_words, int tile_w, int tile_h,
                                                 const jf_tile_src &s, int c, int x0, int y0)
{
    jf_load_tile_src_pieces<T, unsigned int>(tile_words, tile_w, tile_h, s, c, x0, y0);
}
template <typename T>
__device__ __forceinline__ void jf_load_tile_src16(unsigned int *tile_words, int tile_w,
                                                   int tile_h, const jf_tile_src &s, int c, int x0,
                                                   int y0)
{
    jf_load_tile_src_pieces<T, uint4>(tile_words, tile_w, tile_h, s, c, x0, y0);
}

#endif
