/*
 * The impulse-density counts of a device image on the GPU, equal to
 * jf_impulse_count_cpu's: samples at 0 and at 255 with a different value in
 * their 3 x 3 neighbourhood (replicated borders).  Each thread counts its
 * samples, the warp adds its counts with shuffles, and one atomic per warp
 * and value lands in two 64-bit counters that come back to the host.
 */
#include "core/gpu.cuh"
#include "filters/impulse/impulse.h"

__global__ void impulse_count_kernel(const unsigned char *__restrict__ img, size_t pitch, int w,
                                     int h, int ch, unsigned long long *counts)
{
    unsigned long long n0 = 0, n255 = 0;
    const int row = w * ch;
    for (int y = blockIdx.y; y < h; y += gridDim.y) {
        const int ya = y > 0 ? y - 1 : 0, yb = y < h - 1 ? y + 1 : h - 1;
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < row; i += gridDim.x * blockDim.x) {
            const unsigned v = img[(size_t)y * pitch + i];
            const int x = i / ch, c = i - x * ch;
            const int xa = x > 0 ? x - 1 : 0, xb = x < w - 1 ? x + 1 : w - 1;
            bool lone = false;
            if (!jf_is_extreme(v))
                continue;
            for (int yy = ya; yy <= yb; yy++)
                for (int xx = xa; xx <= xb; xx++)
                    lone |= img[(size_t)yy * pitch + (size_t)xx * ch + c] != v;
            n0 += lone && v == 0u;
            n255 += lone && v == 255u;
        }
    }
    for (int off = 16; off > 0; off >>= 1) {
        n0 += __shfl_down_sync(0xffffffffu, n0, off);
        n255 += __shfl_down_sync(0xffffffffu, n255, off);
    }
    if ((threadIdx.x & 31) == 0 && (n0 || n255)) {
        atomicAdd(&counts[0], n0);
        atomicAdd(&counts[1], n255);
    }
}

extern "C" jf_status jf_impulse_count_cuda(jf_context *ctx, const jf_image *img, uint64_t counts[2])
{
    const int row = img->width * img->channels;
    const dim3 block(256), grid((unsigned)((row + 255) / 256 < 8 ? (row + 255) / 256 : 8),
                                (unsigned)(img->height < 4096 ? img->height : 4096));
    unsigned long long host[2];
    jf_dview in, dev;
    jf_status st;
    int id;
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    jf_gpu_begin(ctx);
    ctx->gpu->must_sync = 1; /* the counts come back: always wait */
    if ((st = jf_gpu_input(ctx, img, JF_SLOT_IN, &in)) != JF_OK ||
        (st = jf_gpu_buffer(ctx, JF_SLOT_WORK1, sizeof host, 1, JF_BUF_DEVICE, &dev)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    JF_CUDA_TRY(cudaMemsetAsync(dev.ptr, 0, sizeof host, ctx->gpu->stream));
    impulse_count_kernel<<<grid, block, 0, ctx->gpu->stream>>>(
        in.ptr, in.pitch, img->width, img->height, img->channels, (unsigned long long *)dev.ptr);
    JF_LAUNCH_CHECK("impulse_count_kernel");
    if ((st = jf_gpu_timer_stop(ctx, id, "impulse-density", "cuda", 3, img,
                                (uint64_t)row * img->height, 0)) != JF_OK)
        return st;
    JF_CUDA_TRY(cudaMemcpyAsync(host, dev.ptr, sizeof host, cudaMemcpyDeviceToHost, ctx->gpu->stream));
    if ((st = jf_gpu_finish(ctx, NULL, NULL)) != JF_OK)
        return st;
    counts[0] = host[0];
    counts[1] = host[1];
    return JF_OK;
}
