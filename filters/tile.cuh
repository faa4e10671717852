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

__device__ __forceinline__ void jf_load_tile(unsigned int *tile_words, int tile_w, int tile_h,
                                             const unsigned char *plane, size_t pitch,
                                             int plane_rows, int x0, int y0)
{
    const int words = tile_w / 4;
    const int nthreads = blockDim.x * blockDim.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    for (int i = tid; i < tile_h * words; i += nthreads) {
        const int ty = i / words, tx = 4 * (i - ty * words);
        const int gy = y0 + ty;
        if (gy < plane_rows && (size_t)(x0 + tx) < pitch)
            tile_words[i] = *(const unsigned int *)(plane + (size_t)gy * pitch + x0 + tx);
    }
    __syncthreads();
}

#endif
