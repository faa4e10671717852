/*
 * SSIM on the GPU, the definition of ssim_cpu.c computed separably in double:
 *   pass 1 (horizontal): for every row and every column where the 11-tap
 *          window fits, the Gaussian-weighted a, b, a^2, b^2, ab -> 5 planes
 *   pass 2 (vertical):   the same taps down the columns, the SSIM formula,
 *          and a block reduction (warp shuffles, then shared memory) to one
 *          double per block; the host adds the partials in block order.
 * Double, not float: s_aa = E[a^2] - mu^2 cancels badly in float for smooth
 * regions (mu near 200, variance near 1), which would miss the 1e-6 target.
 */
#include "filters/metrics/metrics.h"
#include "core/gpu.cuh"

#include <stdlib.h>

#define TAPS (2 * JF_SSIM_RADIUS + 1)
#define SSIM_THREADS 256

/* The window's taps travel as a kernel parameter: ordered with the launch,
 * no shared symbol to upload. */
struct ssim_taps {
    double g[TAPS];
};

__global__ void ssim_horizontal_kernel(const unsigned char *__restrict__ a, size_t a_pitch,
                                       const unsigned char *__restrict__ b, size_t b_pitch,
                                       int ch, int c, int h, int vw, double *__restrict__ q,
                                       size_t q_pitch, const ssim_taps taps)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
    if (x >= vw || y >= h)
        return;
    const unsigned char *pa = a + (size_t)y * a_pitch + (size_t)x * ch + c;
    const unsigned char *pb = b + (size_t)y * b_pitch + (size_t)x * ch + c;
#pragma unroll
    for (int i = 0; i < TAPS; i++) {
        const double va = pa[i * ch], vb = pb[i * ch], w = taps.g[i];
        s0 += w * va;
        s1 += w * vb;
        s2 += w * va * va;
        s3 += w * vb * vb;
        s4 += w * va * vb;
    }
    /* 5 planes of h rows each, one after another */
    double *row = (double *)((char *)q + (size_t)y * q_pitch) + x;
    const size_t plane = (size_t)h * q_pitch / sizeof(double);
    row[0] = s0;
    row[plane] = s1;
    row[2 * plane] = s2;
    row[3 * plane] = s3;
    row[4 * plane] = s4;
}

__global__ void ssim_vertical_kernel(const double *__restrict__ q, size_t q_pitch, int h, int vw,
                                     int vh, double *__restrict__ partials, const ssim_taps taps)
{
    __shared__ double s_warp[SSIM_THREADS / 32];
    const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
    const size_t stride = q_pitch / sizeof(double), plane = (size_t)h * stride;
    const int tid = threadIdx.x;
    const size_t n = (size_t)vw * vh;
    double sum = 0.0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + tid; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const int y = (int)(i / vw), x = (int)(i - (size_t)y * vw);
        double m[5] = {0, 0, 0, 0, 0};
#pragma unroll
        for (int j = 0; j < TAPS; j++) {
            const double *p = q + (size_t)(y + j) * stride + x;
            const double w = taps.g[j];
#pragma unroll
            for (int k = 0; k < 5; k++)
                m[k] += w * p[k * plane];
        }
        const double ua = m[0], ub = m[1];
        const double vaa = m[2] - ua * ua, vbb = m[3] - ub * ub, vab = m[4] - ua * ub;
        sum += ((2 * ua * ub + c1) * (2 * vab + c2)) / ((ua * ua + ub * ub + c1) * (vaa + vbb + c2));
    }
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, off);
    if ((tid & 31) == 0)
        s_warp[tid >> 5] = sum;
    __syncthreads();
    if (tid < 32) {
        sum = tid < SSIM_THREADS / 32 ? s_warp[tid] : 0.0;
        for (int off = 16; off > 0; off >>= 1)
            sum += __shfl_down_sync(0xffffffffu, sum, off);
        if (tid == 0)
            partials[blockIdx.x] = sum;
    }
}

extern "C" jf_status jf_ssim_cuda(jf_context *ctx, const jf_image *a, const jf_image *b,
                                  double *ssim)
{
    enum { MAX_BLOCKS = 1024 };
    const int vw = a->width - (TAPS - 1), vh = a->height - (TAPS - 1);
    const dim3 block(32, 8);
    const size_t n = (size_t)vw * vh;
    const int blocks = (int)((n + SSIM_THREADS - 1) / SSIM_THREADS < MAX_BLOCKS
                                 ? (n + SSIM_THREADS - 1) / SSIM_THREADS : MAX_BLOCKS);
    double host[MAX_BLOCKS], total = 0.0;
    double *partials;
    ssim_taps taps;
    jf_dview va, vb, q, parts;
    jf_status st;
    int c, i, id;
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    jf_ssim_window(taps.g);
    jf_gpu_begin(ctx);
    ctx->gpu->must_sync = 1; /* a number comes back: always wait */
    if ((st = jf_gpu_input(ctx, a, JF_SLOT_IN, &va)) != JF_OK ||
        (st = jf_gpu_input(ctx, b, JF_SLOT_IN2, &vb)) != JF_OK ||
        (st = jf_gpu_buffer(ctx, JF_SLOT_PAD, (size_t)vw * sizeof(double), (size_t)a->height * 5,
                            JF_BUF_DEVICE, &q)) != JF_OK ||
        (st = jf_gpu_buffer(ctx, JF_SLOT_AUX, sizeof host * 4, 1, JF_BUF_DEVICE, &parts)) != JF_OK)
        return st;
    partials = (double *)parts.ptr;
    if ((st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    for (c = 0; c < a->channels; c++) {
        ssim_horizontal_kernel<<<jf_grid(vw, a->height, 1, block), block, 0, ctx->gpu->stream>>>(
            va.ptr, va.pitch, vb.ptr, vb.pitch, a->channels, c, a->height, vw, (double *)q.ptr,
            q.pitch, taps);
        JF_LAUNCH_CHECK("ssim_horizontal_kernel");
        ssim_vertical_kernel<<<blocks, SSIM_THREADS, 0, ctx->gpu->stream>>>(
            (const double *)q.ptr, q.pitch, a->height, vw, vh, partials + (size_t)c * MAX_BLOCKS, taps);
        JF_LAUNCH_CHECK("ssim_vertical_kernel");
    }
    if ((st = jf_gpu_timer_stop(ctx, id, "ssim", "cuda", TAPS, a,
                                2ull * a->width * a->height * a->channels, 0)) != JF_OK)
        return st;
    for (c = 0; c < a->channels; c++) {
        double ch_sum = 0.0;
        JF_CUDA_TRY(cudaMemcpyAsync(host, partials + (size_t)c * MAX_BLOCKS,
                                    sizeof(double) * blocks, cudaMemcpyDeviceToHost,
                                    ctx->gpu->stream));
        JF_CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
        for (i = 0; i < blocks; i++)
            ch_sum += host[i];
        total += ch_sum / (double)n;
    }
    if ((st = jf_gpu_finish(ctx, NULL, NULL)) != JF_OK)
        return st;
    *ssim = total / a->channels;
    return JF_OK;
}
