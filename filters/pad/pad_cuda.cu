/*
 * Padding on the GPU.  One thread per padded pixel of one channel
 * (blockIdx.z = channel); the border rule is jf_border_index, the very
 * function the CPU reference uses, so results are identical by construction
 * and by test.
 *
 * The filters get planes: RGB is deinterleaved here, so every later kernel
 * reads coalesced single-channel rows; the public jf_pad writes the usual
 * interleaved layout instead.
 *
 *   src (interleaved RGBRGB..., pitched)     planes (pitched, one after another)
 *   +---------+                              +-------------+  plane 0: R, (w+2r) x (h+2r)
 *   |RGBRGB...|   --pad_kernel<true>-->      |rr|RRRRRRR|rr|
 *   +---------+                              +-------------+  plane 1: G ...
 */
#include "filters/filters.h"
#include "filters/filter_cuda.cuh"
#include "filters/pad/pad.h"

/* Pitches in samples of T (bytes / sizeof(T)). */
template <bool PLANAR, typename T>
__global__ void pad_kernel(const T *__restrict__ src, size_t src_pitch, int w, int h, int ch, int r,
                           jf_border border, T *__restrict__ dst, size_t dst_pitch, int plane_rows)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int c = blockIdx.z;
    const int pw = w + 2 * r, ph = h + 2 * r;
    int sx, sy;
    T v;
    if (x >= pw || y >= ph)
        return;
    sx = jf_border_index(x - r, w, border);
    sy = jf_border_index(y - r, h, border);
    v = sx < 0 || sy < 0 ? (T)0 : src[(size_t)sy * src_pitch + (size_t)sx * ch + c];
    if (PLANAR)
        dst[((size_t)c * plane_rows + y) * dst_pitch + x] = v;
    else
        dst[(size_t)y * dst_pitch + (size_t)x * ch + c] = v;
}

template <bool PLANAR, typename T>
static void pad_launch(cudaStream_t stream, const jf_dview *src, int w, int h, int ch, int r,
                       jf_border border, const jf_dview *dst, int plane_rows)
{
    const dim3 block(32, 8);
    pad_kernel<PLANAR, T><<<jf_grid(w + 2 * r, h + 2 * r, ch, block), block, 0, stream>>>(
        (const T *)src->ptr, src->pitch / sizeof(T), w, h, ch, r, border, (T *)dst->ptr,
        dst->pitch / sizeof(T), plane_rows);
}

jf_status jf_gpu_pad_planes(jf_context *ctx, const jf_dview *src, int w, int h, int ch,
                            jf_sample sample, int radius, jf_border border, jf_dview *planes,
                            int *plane_rows)
{
    const int pw = w + 2 * radius, ph = h + 2 * radius;
    const size_t bps = jf_sample_size(sample);
    jf_image shape = jf_image_wrap_as(NULL, w, h, ch, 0, sample);
    jf_status st;
    int id;
    if ((st = jf_gpu_buffer(ctx, JF_SLOT_PAD, (size_t)pw * bps, (size_t)ph * ch, JF_BUF_DEVICE,
                            planes)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    if (sample == JF_SAMPLE_U16)
        pad_launch<true, unsigned short>(ctx->gpu->stream, src, w, h, ch, radius, border, planes, ph);
    else
        pad_launch<true, unsigned char>(ctx->gpu->stream, src, w, h, ch, radius, border, planes, ph);
    JF_LAUNCH_CHECK("pad_kernel<planar>");
    *plane_rows = ph;
    return jf_gpu_timer_stop(ctx, id, "pad", "planar", 2 * radius + 1, &shape,
                             (uint64_t)w * h * ch * bps, (uint64_t)pw * ph * ch * bps);
}

extern "C" jf_status jf_pad_cuda(jf_context *ctx, const jf_image *src, int radius,
                                 jf_border border, jf_image *dst)
{
    const int pw = src->width + 2 * radius, ph = src->height + 2 * radius;
    const size_t bps = jf_bps(src);
    jf_dview in, out;
    jf_status st;
    int id;
    jf_device_scope scope(ctx);
    if (scope.status != JF_OK)
        return scope.status;
    jf_gpu_begin(ctx);
    if ((st = jf_gpu_input(ctx, src, JF_SLOT_IN, &in)) != JF_OK ||
        (st = jf_gpu_output(ctx, dst, &out)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    if (src->sample == JF_SAMPLE_U16)
        pad_launch<false, unsigned short>(ctx->gpu->stream, &in, src->width, src->height,
                                          src->channels, radius, border, &out, ph);
    else
        pad_launch<false, unsigned char>(ctx->gpu->stream, &in, src->width, src->height,
                                         src->channels, radius, border, &out, ph);
    JF_LAUNCH_CHECK("pad_kernel<interleaved>");
    if ((st = jf_gpu_timer_stop(ctx, id, "pad", "interleaved", 2 * radius + 1, src,
                                (uint64_t)src->width * src->height * src->channels * bps,
                                (uint64_t)pw * ph * src->channels * bps)) != JF_OK)
        return st;
    return jf_gpu_finish(ctx, dst, &out);
}
