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

template <bool PLANAR>
__global__ void pad_kernel(const unsigned char *__restrict__ src, size_t src_pitch, int w, int h,
                           int ch, int r, jf_border border, unsigned char *__restrict__ dst,
                           size_t dst_pitch, int plane_rows)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int c = blockIdx.z;
    const int pw = w + 2 * r, ph = h + 2 * r;
    int sx, sy;
    unsigned char v;
    if (x >= pw || y >= ph)
        return;
    sx = jf_border_index(x - r, w, border);
    sy = jf_border_index(y - r, h, border);
    v = sx < 0 || sy < 0 ? (unsigned char)0 : src[(size_t)sy * src_pitch + (size_t)sx * ch + c];
    if (PLANAR)
        dst[((size_t)c * plane_rows + y) * dst_pitch + x] = v;
    else
        dst[(size_t)y * dst_pitch + (size_t)x * ch + c] = v;
}

jf_status jf_gpu_pad_planes(jf_context *ctx, const jf_dview *src, int w, int h, int ch,
                            int radius, jf_border border, jf_dview *planes, int *plane_rows)
{
    const int pw = w + 2 * radius, ph = h + 2 * radius;
    const dim3 block(32, 8);
    jf_image shape = jf_image_wrap(NULL, w, h, ch, 0);
    jf_status st;
    int id;
    if ((st = jf_gpu_buffer(ctx, JF_SLOT_PAD, (size_t)pw, (size_t)ph * ch, JF_BUF_DEVICE, planes)) != JF_OK ||
        (st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    pad_kernel<true><<<jf_grid(pw, ph, ch, block), block, 0, ctx->gpu->stream>>>(
        src->ptr, src->pitch, w, h, ch, radius, border, planes->ptr, planes->pitch, ph);
    JF_LAUNCH_CHECK("pad_kernel<planar>");
    *plane_rows = ph;
    return jf_gpu_timer_stop(ctx, id, "pad", "planar", 2 * radius + 1, &shape,
                             (uint64_t)w * h * ch, (uint64_t)pw * ph * ch);
}

extern "C" jf_status jf_pad_cuda(jf_context *ctx, const jf_image *src, int radius,
                                 jf_border border, jf_image *dst)
{
    const dim3 block(32, 8);
    const int pw = src->width + 2 * radius, ph = src->height + 2 * radius;
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
    pad_kernel<false><<<jf_grid(pw, ph, src->channels, block), block, 0, ctx->gpu->stream>>>(
        in.ptr, in.pitch, src->width, src->height, src->channels, radius, border, out.ptr,
        out.pitch, ph);
    JF_LAUNCH_CHECK("pad_kernel<interleaved>");
    if ((st = jf_gpu_timer_stop(ctx, id, "pad", "interleaved", 2 * radius + 1, src,
                                (uint64_t)src->width * src->height * src->channels,
                                (uint64_t)pw * ph * src->channels)) != JF_OK)
        return st;
    return jf_gpu_finish(ctx, dst, &out);
}
