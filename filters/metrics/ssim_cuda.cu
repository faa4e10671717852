/*
 * SSIM on the GPU, the definition of ssim_cpu.c in one pass per channel:
 * each block takes a tile of 32 x 32 outputs (32 x 16 on a Nano), loads its
 * inputs plus the 10-sample halo into shared memory (4 pixels a load where
 * the rows allow), runs the 11 horizontal taps for the tile's 42 (26) rows
 * (the Gaussian-weighted a, b, a^2, b^2, ab, kept in shared memory; each
 * thread 4 neighbouring columns from 4 float4 loads), then the 11 vertical
 * taps, each thread for 4 (2) outputs down a column from 14 (12) moment rows
 * read once, and the SSIM formula, and adds its terms in double.  Blocks
 * loop over the tiles, and the host adds the blocks' partials in order.
 * Nothing goes through global memory but the two images (the separable
 * two-kernel version wrote and read five planes of doubles: 80 bytes per
 * sample).
 *
 * Single precision, because Maxwell (the Nano) runs double at 1/32 rate.
 * What makes float hard is s_aa = E[a^2] - mu^2, which cancels where the
 * image is smooth and bright (a shift of -128 for all was tried: 1.8e-5 off
 * on a smooth image near 252).  So each tile subtracts one of its own
 * samples from a, another from b (variances and covariance do not change,
 * and every window of the tile lies inside it): where the image is smooth
 * the moments are then near zero, where it is not the variances are large.
 * test_gpu asserts agreement with the double CPU result within 1e-5 and
 * prints the largest difference seen (scikit-image agreement stays < 1e-4).
 * 16-bit samples are read as v * 255/65535: SSIM does not change when the
 * samples and L scale together, so one kernel with L = 255 serves both.
 */
#include "filters/metrics/metrics.h"
#include "core/gpu.cuh"

#include <stdlib.h>

#define TAPS (2 * JF_SSIM_RADIUS + 1)
#define SSIM_TX 32    /* threads across */
#define SSIM_TY 8     /* threads down */
#define SSIM_THREADS (SSIM_TX * SSIM_TY)
/* an input row: 32 outputs + 10 halo samples, rounded up to whole 16-byte
 * groups so the horizontal pass reads it 4 floats at a time */
#define SSIM_IN_W ((SSIM_TX + TAPS - 1 + 3) / 4 * 4)
#define SSIM_GROUPS (SSIM_TX / 4) /* 4-output groups across a moment row */

/* The window's taps travel as a kernel parameter: ordered with the launch,
 * no shared symbol to upload. */
struct ssim_taps {
    float g[TAPS];
};

__device__ __forceinline__ float ssim_level(unsigned char v) { return (float)v; }
__device__ __forceinline__ float ssim_level(unsigned short v) { return (float)v * (255.0f / 65535.0f); }

/* Four samples in one load. */
template <typename T> struct ssim_vec4;
template <> struct ssim_vec4<unsigned char> { typedef uchar4 type; };
template <> struct ssim_vec4<unsigned short> { typedef ushort4 type; };
template <typename V> __device__ __forceinline__ auto ssim_lane(const V &v, int i) -> decltype(v.x)
{
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

/* Four samples of channel C from four neighbouring pixels of CH
 * interleaved channels: CH loads of 4 samples (the caller checked the
 * alignment).  C is a template parameter: chosen at run time among
 * selects, the compiler turned the loaded words into an indexed array in
 * local memory. */
template <int CH, int C, typename T>
__device__ __forceinline__ void ssim_pixels4(const T *p, float *out)
{
    typedef typename ssim_vec4<T>::type V;
    V w[CH];
#pragma unroll
    for (int q = 0; q < CH; q++)
        w[q] = *(const V *)(p + 4 * q);
#pragma unroll
    for (int j = 0; j < 4; j++)
        out[j] = ssim_level(ssim_lane(w[(j * CH + C) / 4], (j * CH + C) % 4));
}

/* Sample (x, y) of channel c less the tile's shift; 0 past the image
 * (such samples feed no valid output). */
template <typename T>
__device__ __forceinline__ float ssim_at(const T *__restrict__ p, size_t pitch, int ch, int c,
                                         int x, int y, int width, int height, float shift)
{
    return x < width && y < height ? ssim_level(p[(size_t)y * pitch + (size_t)x * ch + c]) - shift
                                   : 0.0f;
}

/* The tile's input rows of channel c into shared memory (ssim_at), any
 * layout, sample by sample. */
template <int IN_H, typename T>
__device__ __forceinline__ void ssim_stage_any(float (*sa)[SSIM_IN_W], float (*sb)[SSIM_IN_W],
                                               const T *__restrict__ a, size_t a_pitch,
                                               const T *__restrict__ b, size_t b_pitch, int ch,
                                               int c, int width, int height, int x0, int y0,
                                               float shift_a, float shift_b)
{
    const int tid = threadIdx.y * SSIM_TX + threadIdx.x;
    for (int i = tid; i < IN_H * SSIM_IN_W; i += SSIM_THREADS) {
        const int r = i / SSIM_IN_W, col = i - r * SSIM_IN_W;
        sa[r][col] = ssim_at(a, a_pitch, ch, c, x0 + col, y0 + r, width, height, shift_a);
        sb[r][col] = ssim_at(b, b_pitch, ch, c, x0 + col, y0 + r, width, height, shift_b);
    }
}

/* The same for channel C of CH (1, 3 or 4) in rows aligned for loads of 4
 * pixels: 4 outputs' samples a step. */
template <int CH, int C, int IN_H, typename T>
__device__ __forceinline__ void ssim_stage(float (*sa)[SSIM_IN_W], float (*sb)[SSIM_IN_W],
                                           const T *__restrict__ a, size_t a_pitch,
                                           const T *__restrict__ b, size_t b_pitch, int width,
                                           int height, int x0, int y0, float shift_a,
                                           float shift_b)
{
    const int tid = threadIdx.y * SSIM_TX + threadIdx.x;
    for (int i = tid; i < IN_H * (SSIM_IN_W / 4); i += SSIM_THREADS) {
        const int r = i / (SSIM_IN_W / 4), col = (i - r * (SSIM_IN_W / 4)) * 4;
        const int gx = x0 + col, gy = y0 + r;
        float xa[4], xb[4];
        if (gy < height && gx + 3 < width) {
            ssim_pixels4<CH, C>(a + (size_t)gy * a_pitch + (size_t)gx * CH, xa);
            ssim_pixels4<CH, C>(b + (size_t)gy * b_pitch + (size_t)gx * CH, xb);
#pragma unroll
            for (int j = 0; j < 4; j++)
                xa[j] -= shift_a, xb[j] -= shift_b;
        } else { /* the image's right or bottom edge: sample by sample */
#pragma unroll
            for (int j = 0; j < 4; j++) {
                xa[j] = ssim_at(a, a_pitch, CH, C, gx + j, gy, width, height, shift_a);
                xb[j] = ssim_at(b, b_pitch, CH, C, gx + j, gy, width, height, shift_b);
            }
        }
        *(float4 *)&sa[r][col] = make_float4(xa[0], xa[1], xa[2], xa[3]);
        *(float4 *)&sb[r][col] = make_float4(xb[0], xb[1], xb[2], xb[3]);
    }
}

/* The tile's input into shared memory, choosing the loads: `vec` is the
 * channel count where rows are aligned for loads of 4 pixels, else 0. */
template <int IN_H, typename T>
__device__ __forceinline__ void ssim_load_tile(float (*sa)[SSIM_IN_W], float (*sb)[SSIM_IN_W],
                                               const T *__restrict__ a, size_t a_pitch,
                                               const T *__restrict__ b, size_t b_pitch, int vec,
                                               int ch, int c, int width, int height, int x0,
                                               int y0, float shift_a, float shift_b)
{
#define SSIM_STAGE(CH, C)                                                                          \
    ssim_stage<CH, C, IN_H>(sa, sb, a, a_pitch, b, b_pitch, width, height, x0, y0, shift_a, shift_b)
    if (vec == 1)
        SSIM_STAGE(1, 0);
    else if (vec == 3 && c == 0)
        SSIM_STAGE(3, 0);
    else if (vec == 3 && c == 1)
        SSIM_STAGE(3, 1);
    else if (vec == 3)
        SSIM_STAGE(3, 2);
    else if (vec == 4 && c == 0)
        SSIM_STAGE(4, 0);
    else if (vec == 4 && c == 1)
        SSIM_STAGE(4, 1);
    else if (vec == 4 && c == 2)
        SSIM_STAGE(4, 2);
    else if (vec == 4)
        SSIM_STAGE(4, 3);
    else
        ssim_stage_any<IN_H>(sa, sb, a, a_pitch, b, b_pitch, ch, c, width, height, x0, y0, shift_a,
                             shift_b);
#undef SSIM_STAGE
}

/* ROWS outputs per thread down a column: 4 (a 32 x 32 tile, 42 KB of
 * shared memory) where a multiprocessor holds several such blocks, 2 (32 x
 * 16, 26 KB) on devices with 64 KiB per multiprocessor (the Nano), where a
 * 42 KB block would leave one block per multiprocessor.  Pitches in
 * samples of T; `vec` as in ssim_load_tile. */
template <int ROWS, typename T>
__global__ void ssim_tile_kernel(const T *__restrict__ a, size_t a_pitch, const T *__restrict__ b,
                                 size_t b_pitch, int ch, int c, int width, int height, int vw,
                                 int vh, int vec, double *__restrict__ partials,
                                 const ssim_taps taps)
{
    enum { OUT_H = SSIM_TY * ROWS, IN_H = OUT_H + TAPS - 1 };
    __shared__ __align__(16) float sa[IN_H][SSIM_IN_W];
    __shared__ __align__(16) float sb[IN_H][SSIM_IN_W];
    __shared__ __align__(16) float mom[5][IN_H][SSIM_TX];
    __shared__ double s_warp[SSIM_THREADS / 32];
    const float c1 = (0.01f * 255) * (0.01f * 255), c2 = (0.03f * 255) * (0.03f * 255);
    const int tid = threadIdx.y * SSIM_TX + threadIdx.x;
    const int tiles_x = (vw + SSIM_TX - 1) / SSIM_TX;
    const int tiles = tiles_x * ((vh + OUT_H - 1) / OUT_H);
    double sum = 0.0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int x0 = (tile % tiles_x) * SSIM_TX, y0 = (tile / tiles_x) * OUT_H;
        /* the tile's shift: one sample near its middle, for a and b apart
         * (every window of the tile lies inside it, so one shift serves) */
        const int cx = min(x0 + (SSIM_TX + TAPS - 1) / 2, width - 1), cy = min(y0 + IN_H / 2, height - 1);
        const float shift_a = ssim_level(a[(size_t)cy * a_pitch + (size_t)cx * ch + c]);
        const float shift_b = ssim_level(b[(size_t)cy * b_pitch + (size_t)cx * ch + c]);
        ssim_load_tile<IN_H>(sa, sb, a, a_pitch, b, b_pitch, vec, ch, c, width, height, x0, y0,
                             shift_a, shift_b);
        __syncthreads();
        /* horizontal taps, 4 neighbouring moment columns a thread: the 14
         * samples they read come in 4 float4 loads, and each sample's
         * products are formed once, not once per tap */
        for (int i = tid; i < IN_H * SSIM_GROUPS; i += SSIM_THREADS) {
            const int r = i / SSIM_GROUPS, col = (i - r * SSIM_GROUPS) * 4;
            float va[16], vb[16];
#pragma unroll
            for (int q = 0; q < 4; q++) {
                const float4 x = *(const float4 *)&sa[r][col + 4 * q];
                const float4 y = *(const float4 *)&sb[r][col + 4 * q];
                va[4 * q] = x.x, va[4 * q + 1] = x.y, va[4 * q + 2] = x.z, va[4 * q + 3] = x.w;
                vb[4 * q] = y.x, vb[4 * q + 1] = y.y, vb[4 * q + 2] = y.z, vb[4 * q + 3] = y.w;
            }
            float s[5][4];
#pragma unroll
            for (int k = 0; k < 5; k++)
#pragma unroll
                for (int o = 0; o < 4; o++)
                    s[k][o] = 0.0f;
#pragma unroll
            for (int j = 0; j < TAPS + 3; j++) {
                const float x = va[j], y = vb[j], xx = x * x, yy = y * y, xy = x * y;
#pragma unroll
                for (int o = 0; o < 4; o++)
                    if (j - o >= 0 && j - o < TAPS) {
                        const float w = taps.g[j - o];
                        s[0][o] += w * x;
                        s[1][o] += w * y;
                        s[2][o] += w * xx;
                        s[3][o] += w * yy;
                        s[4][o] += w * xy;
                    }
            }
#pragma unroll
            for (int k = 0; k < 5; k++)
                *(float4 *)&mom[k][r][col] = make_float4(s[k][0], s[k][1], s[k][2], s[k][3]);
        }
        __syncthreads();
        {
            /* ROWS outputs down a column share their moment rows: each row
             * is read once and added into every output it reaches */
            const int x = x0 + threadIdx.x, ry = threadIdx.y * ROWS;
            float m[ROWS][5];
#pragma unroll
            for (int o = 0; o < ROWS; o++)
#pragma unroll
                for (int k = 0; k < 5; k++)
                    m[o][k] = 0.0f;
#pragma unroll
            for (int t = 0; t < TAPS + ROWS - 1; t++) {
#pragma unroll
                for (int k = 0; k < 5; k++) {
                    const float v = mom[k][ry + t][threadIdx.x];
#pragma unroll
                    for (int o = 0; o < ROWS; o++)
                        if (t - o >= 0 && t - o < TAPS)
                            m[o][k] += taps.g[t - o] * v;
                }
            }
#pragma unroll
            for (int o = 0; o < ROWS; o++) {
                const int y = y0 + ry + o;
                if (x < vw && y < vh) {
                    const float ua = m[o][0] + shift_a, ub = m[o][1] + shift_b;
                    const float vaa = m[o][2] - m[o][0] * m[o][0], vbb = m[o][3] - m[o][1] * m[o][1];
                    const float vab = m[o][4] - m[o][0] * m[o][1];
                    sum += (double)(((2 * ua * ub + c1) * (2 * vab + c2)) /
                                    ((ua * ua + ub * ub + c1) * (vaa + vbb + c2)));
                }
            }
        }
        __syncthreads(); /* the tile's shared memory is free again */
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
    const size_t n = (size_t)vw * vh;
    const int rows = jf_gpu_info(ctx)->shared_per_sm >= 96 * 1024 ? 4 : 2;
    const long tiles = (long)((vw + SSIM_TX - 1) / SSIM_TX) * ((vh + SSIM_TY * rows - 1) / (SSIM_TY * rows));
    const int blocks = (int)(tiles < MAX_BLOCKS ? tiles : MAX_BLOCKS);
    const int wide = a->sample == JF_SAMPLE_U16;
    const void *kernel = rows == 4 ? (wide ? (const void *)ssim_tile_kernel<4, unsigned short>
                                           : (const void *)ssim_tile_kernel<4, unsigned char>)
                                   : (wide ? (const void *)ssim_tile_kernel<2, unsigned short>
                                           : (const void *)ssim_tile_kernel<2, unsigned char>);
    const dim3 block(SSIM_TX, SSIM_TY);
    double host[MAX_BLOCKS], total = 0.0, gd[TAPS];
    double *partials;
    int vec;
    ssim_taps taps;
    jf_dview va, vb, parts;
    jf_status st;
    int c, i, id;
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    jf_ssim_window(gd);
    for (i = 0; i < TAPS; i++)
        taps.g[i] = (float)gd[i];
    jf_gpu_begin(ctx);
    ctx->gpu->must_sync = 1; /* a number comes back: always wait */
    if ((st = jf_gpu_input(ctx, a, JF_SLOT_IN, &va)) != JF_OK ||
        (st = jf_gpu_input(ctx, b, JF_SLOT_IN2, &vb)) != JF_OK ||
        (st = jf_gpu_buffer(ctx, JF_SLOT_WORK1, sizeof host * 4, 1, JF_BUF_DEVICE, &parts)) != JF_OK)
        return st;
    partials = (double *)parts.ptr;
    if ((st = jf_gpu_launch_fits(ctx, kernel, "ssim_tile_kernel", SSIM_THREADS, 0)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    /* loads of 4 pixels where rows and bases are aligned to 4 samples */
    vec = a->channels != 2 &&
                  ((va.pitch | vb.pitch | (size_t)va.ptr | (size_t)vb.ptr) % (4 * jf_bps(a))) == 0
              ? a->channels
              : 0;
    for (c = 0; c < a->channels; c++) {
#define SSIM_LAUNCH(R, T)                                                                          \
    ssim_tile_kernel<R, T><<<blocks, block, 0, ctx->gpu->stream>>>(                               \
        (const T *)va.ptr, va.pitch / sizeof(T), (const T *)vb.ptr, vb.pitch / sizeof(T),           \
        a->channels, c, a->width, a->height, vw, vh, vec, partials + (size_t)c * MAX_BLOCKS, taps)
        if (rows == 4 && wide)
            SSIM_LAUNCH(4, unsigned short);
        else if (rows == 4)
            SSIM_LAUNCH(4, unsigned char);
        else if (wide)
            SSIM_LAUNCH(2, unsigned short);
        else
            SSIM_LAUNCH(2, unsigned char);
#undef SSIM_LAUNCH
        JF_LAUNCH_CHECK("ssim_tile_kernel");
    }
    if ((st = jf_gpu_timer_stop(ctx, id, "ssim", "cuda", TAPS, a,
                                2ull * a->width * a->height * a->channels * jf_bps(a), 0)) != JF_OK)
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
