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

/* The widest store an output allows: 16-byte pieces where its start and
 * pitch are multiples of 16 (cudaMallocPitch's always are), 4-byte words
 * where they are multiples of 4, else bytes. */
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
