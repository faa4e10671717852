/*
 * Median, shared-memory tiles (the seed report's second kernel, finished).
 *
 *   block of BX x BY threads           its tile in shared memory
 *   computes BX x BY outputs           (BY+k-1) rows x TW bytes, TW = BX+k-1 rounded up to 4
 *   +--------+                         +------------+
 *   |  BXxBY |    loads, once  -->     |   halo     |
 *   +--------+                         |  +------+  |
 *                                      |  | BXxBY|  |
 *                                      +--+------+--+
 *
 * Load: jf_load_tile (filters/tile.cuh), coalesced 4-byte words.
 * Select: thread (tx, ty) reads its k x k window from shared memory.  With
 * BX a multiple of 32 every warp lies in one tile row and reads 32
 * consecutive bytes (8 words, broadcast within a word): no bank conflicts.
 * Each input byte now comes from DRAM once per block instead of up to k^2
 * times through the caches.
 */
#include "filters/median/median.h"
#include "filters/median/median_select.cuh"
#include "filters/tile.cuh"
#include "pipeline/gpu.cuh"

__global__ void median_shared_kernel(const unsigned char *__restrict__ planes, size_t pitch,
                                     int plane_rows, int w, int h, int ch, int k,
                                     unsigned char *__restrict__ out, size_t out_pitch,
                                     int tile_w)
{
    extern __shared__ unsigned int s_tile[];
    const int c = blockIdx.z;
    const int x0 = blockIdx.x * blockDim.x, y0 = blockIdx.y * blockDim.y;
    const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    jf_load_tile(s_tile, tile_w, blockDim.y + k - 1, planes + (size_t)c * plane_rows * pitch,
                 pitch, plane_rows, x0, y0);
    if (x >= w || y >= h)
        return;
    out[(size_t)y * out_pitch + (size_t)x * ch + c] = jf_median_select(
        (const unsigned char *)s_tile + threadIdx.y * tile_w + threadIdx.x, (size_t)tile_w, k);
}

jf_status jf_median_shared_launch(jf_context *ctx, const jf_dview *planes, int plane_rows,
                                  const jf_image *shape, int k, int bx, int by,
                                  const jf_dview *out)
{
    const dim3 block((unsigned)bx, (unsigned)by);
    const int tile_w = jf_tile_width(bx, k);
    const size_t smem = (size_t)tile_w * (size_t)(by + k - 1);
    jf_status st;
    int id;
    if (smem > 48 * 1024)
        return jf_fail(JF_ERR_ARG, "median shared: a %dx%d block with k = %d needs %zu bytes of "
                       "shared memory (48 KiB at most); use a smaller block", bx, by, k, smem);
    if ((st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    median_shared_kernel<<<jf_grid(shape->width, shape->height, shape->channels, block), block,
                           smem, ctx->gpu->stream>>>(planes->ptr, planes->pitch, plane_rows,
                                                     shape->width, shape->height, shape->channels,
                                                     k, out->ptr, out->pitch, tile_w);
    JF_LAUNCH_CHECK("median_shared_kernel");
    return jf_gpu_timer_stop(ctx, id, "median", "shared", k, shape,
                             (uint64_t)(shape->width + k - 1) * (shape->height + k - 1) * shape->channels,
                             (uint64_t)shape->width * shape->height * shape->channels);
}
