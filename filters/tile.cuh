/*
 * Cooperative tile load for the shared-memory variants.
 *
 * The block's threads walk a (BY+k-1) x tile_w byte tile of one padded plane
 * in 4-byte words, consecutive threads taking consecutive words of a row, so
 * a warp reads 128 contiguous bytes per step.  Word loads are aligned: rows
 * of the plane are 512-byte aligned (cudaMallocPitch) and the tile's first
 * column is a multiple of the block width, itself a multiple of 4.  Rows past
 * the plane and words past the pitch are never needed by a valid output and
 * are skipped rather than read out of bounds.
 */
#ifndef JF_FILTERS_TILE_CUH
#define JF_FILTERS_TILE_CUH

/* Tile row length in bytes for a block bx wide and a k x k window. */
static inline int jf_tile_width(int bx, int k) { return (bx + k - 1 + 3) & ~3; }

/* The walk in pieces of type P (4 or 16 bytes), without the barrier. */
template <typename P>
__device__ __forceinline__ void jf_load_tile_pieces(unsigned int *tile_words, int tile_w,
                                                    int tile_h, const unsigned char *plane,
                                                    size_t pitch, int plane_rows, int x0, int y0)
{
    const int pieces = tile_w / (int)sizeof(P);
    const int nthreads = blockDim.x * blockDim.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    for (int i = tid; i < tile_h * pieces; i += nthreads) {
        const int ty = i / pieces, tx = (int)sizeof(P) * (i - ty * pieces);
        const int gy = y0 + ty;
        if (gy < plane_rows && (size_t)(x0 + tx) < pitch)
            ((P *)tile_words)[i] = *(const P *)(plane + (size_t)gy * pitch + x0 + tx);
    }
}

__device__ __forceinline__ void jf_load_tile(unsigned int *tile_words, int tile_w, int tile_h,
                                             const unsigned char *plane, size_t pitch,
                                             int plane_rows, int x0, int y0)
{
    jf_load_tile_pieces<unsigned int>(tile_words, tile_w, tile_h, plane, pitch, plane_rows, x0, y0);
    __syncthreads();
}

/* A block's interleaved output tile (rows x cols pixels of ch bytes, rows
 * out_stride bytes apart in shared memory) to the image, as whole 4-byte
 * words where the image's alignment allows (word_stores), bytes at the
 * ragged end.  Call after the barrier that completes the tile. */
__device__ __forceinline__ void jf_write_out_tile(const unsigned char *s_out, int out_stride,
                                                  unsigned char *out, size_t out_pitch, int x0,
                                                  int y0, int cols, int rows, int ch,
                                                  int word_stores)
{
    const int nthreads = blockDim.x * blockDim.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int bytes = cols * ch, words = (bytes + 3) / 4;
    for (int i = tid; i < rows * words; i += nthreads) {
        const int r = i / words, wi = i - r * words;
        unsigned char *o = out + (size_t)(y0 + r) * out_pitch + (size_t)x0 * ch + 4 * wi;
        const unsigned char *so = s_out + r * out_stride + 4 * wi;
        if (word_stores && 4 * wi + 4 <= bytes) {
            *(unsigned int *)o = *(const unsigned int *)so;
        } else {
            for (int b = 0; b < 4 && 4 * wi + b < bytes; b++)
                o[b] = so[b];
        }
    }
}

/* The same in 16-byte pieces (a quarter of the load instructions), for
 * tiles whose width and first column are multiples of 16; planes whose
 * pitch or start is not (never the case for cudaMallocPitch's) take the
 * word loop. */
__device__ __forceinline__ void jf_load_tile16(unsigned int *tile_words, int tile_w, int tile_h,
                                               const unsigned char *plane, size_t pitch,
                                               int plane_rows, int x0, int y0)
{
    if ((pitch | (size_t)(uintptr_t)plane) % 16 != 0)
        jf_load_tile_pieces<unsigned int>(tile_words, tile_w, tile_h, plane, pitch, plane_rows, x0,
                                          y0);
    else
        jf_load_tile_pieces<uint4>(tile_words, tile_w, tile_h, plane, pitch, plane_rows, x0, y0);
    __syncthreads();
}

#endif
