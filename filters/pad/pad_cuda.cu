/*
 * Padding on the GPU.  The border rule is jf_border_index, the very
 * function the CPU reference uses, so results are identical by construction
 * and by test.
 *
 * Padded planes (one thread per padded sample, blockIdx.z = channel) are for the kernels that read each window from global memory (the
 * global variants, the impulse filters): RGB is deinterleaved here so they
 * read coalesced single-channel rows.  The tiled kernels read the border
 * themselves (tile.cuh) and never pad.
 *
 * The public jf_pad writes the usual interleaved layout with pad_rows_kernel:
 * a padded row is the image row shifted by r pixels with the border's
 * pixels on either side, so each thread writes 16 bytes of it, from one or
 * two aligned 16-byte loads of the image row where those bytes lie inside
 * it (a copy's traffic), byte by byte through the border rule only at the
 * edges.
 *
 *   src (interleaved RGBRGB..., pitched)     planes (pitched, one after another)
 *   +---------+                              +-------------+  plane 0: R, (w+2r) x (h+2r)
 *   |RGBRGB...|   --pad_planes_kernel-->     |rr|RRRRRRR|rr|
 *   +---------+                              +-------------+  plane 1: G ...
 */
#include "filters/filters.h"
#include "filters/filter_cuda.cuh"
#include "filters/pad/pad.h"

/* Pitches in samples of T (bytes / sizeof(T)). */
template <typename T>
__global__ void pad_planes_kernel(const T *__restrict__ src, size_t src_pitch, int w, int h, int ch, int r,
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
    dst[((size_t)c * plane_rows + y) * dst_pitch + x] = v;
}

/* Byte b of a padded row that shows image row `row` (NULL: a zero row);
 * px_bytes bytes a pixel, whatever the sample. */
__device__ __forceinline__ unsigned char pad_byte(const unsigned char *row, int b, int px_bytes,
                                                  int w, int r, jf_border border)
{
    const int px = b / px_bytes, sx = jf_border_index(px - r, w, border);
    return row && sx >= 0 ? row[(size_t)sx * px_bytes + (b - px * px_bytes)] : (unsigned char)0;
}

/* 16 bytes of a padded row from byte b on (b + 16 <= row_bytes); `row`
 * is the image row it shows (jf_src_row; NULL: a zero row). */
__device__ __forceinline__ uint4 pad_piece(const jf_tile_src &s, const unsigned char *row,
                                           int px_bytes, int b)
{
    const int lead = s.r * px_bytes, inner = s.w * px_bytes;
    unsigned wd[4];
    if (row && s.align >= 16 && b >= lead && b + 16 <= lead + inner)
        return jf_bytes16(row, b - lead);
#pragma unroll
    for (int q = 0; q < 4; q++) {
        wd[q] = 0;
#pragma unroll
        for (int j = 0; j < 4; j++)
            wd[q] |= (unsigned)pad_byte(row, b + 4 * q + j, px_bytes, s.w, s.r, s.border) << (8 * j);
    }
    return make_uint4(wd[0], wd[1], wd[2], wd[3]);
}

/* `s`: the image, its radius and border (s.align: whether its rows start at
 * multiples of 16 bytes; else every byte takes the edge path); px_bytes a
 * pixel; row_bytes: (w + 2r) * px_bytes; dst16: the output's rows start at
 * multiples of 16 (else byte stores).  One 16-byte piece a thread: four
 * rows a thread, loads before stores, measured slower on the H100, and so
 * did 64 x 4 blocks; on the H200, so did the second word of a shifted piece
 * taken from the next lane by shuffle instead of a second load, and 2-8 rows
 * a thread (docs/kernels/studies.md, "`jf_pad` on its own"). */
__global__ void pad_rows_kernel(const jf_tile_src s, int px_bytes, unsigned char *__restrict__ dst,
                                size_t dst_pitch, int ph, int row_bytes, int dst16)
{
    const int b = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
    if (b >= row_bytes)
        return;
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < ph; y += gridDim.y * blockDim.y) {
        const unsigned char *row = jf_src_row(s, y);
        unsigned char *o = dst + (size_t)y * dst_pitch + b;
        if (dst16 && b + 16 <= row_bytes) {
            *(uint4 *)o = pad_piece(s, row, px_bytes, b);
        } else {
            for (int j = 0; j < 16 && b + j < row_bytes; j++)
                o[j] = pad_byte(row, b + j, px_bytes, s.w, s.r, s.border);
        }
    }
}

template <typename T>
static void pad_launch(cudaStream_t stream, const jf_dview *src, int w, int h, int ch, int r,
                       jf_border border, const jf_dview *dst, int plane_rows)
{
    const dim3 block(32, 8);
    pad_planes_kernel<T><<<jf_grid(w + 2 * r, h + 2 * r, ch, block), block, 0, stream>>>(
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
    if (sample == JF_SAMPLE_F32)
        pad_launch<float>(ctx->gpu->stream, src, w, h, ch, radius, border, planes, ph);
    else if (sample == JF_SAMPLE_U16)
        pad_launch<unsigned short>(ctx->gpu->stream, src, w, h, ch, radius, border, planes, ph);
    else
        pad_launch<unsigned char>(ctx->gpu->stream, src, w, h, ch, radius, border, planes, ph);
    JF_LAUNCH_CHECK("pad_planes_kernel");
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
    {
        const int px_bytes = src->channels * (int)bps, row_bytes = pw * px_bytes;
        const dim3 block(128, 2);
        const int ys = (ph + 1) / 2;
        const dim3 grid((unsigned)((row_bytes + 16 * 128 - 1) / (16 * 128)),
                        (unsigned)(ys < 65535 ? ys : 65535));
        pad_rows_kernel<<<grid, block, 0, ctx->gpu->stream>>>(
            jf_tile_source(in.ptr, in.pitch, src->width, src->height, src->channels, radius, border),
            px_bytes, out.ptr, out.pitch, ph, row_bytes, jf_out_piece(out.ptr, out.pitch) == 16);
    }
    JF_LAUNCH_CHECK("pad_rows_kernel");
    if ((st = jf_gpu_timer_stop(ctx, id, "pad", "interleaved", 2 * radius + 1, src,
                                (uint64_t)src->width * src->height * src->channels * bps,
                                (uint64_t)pw * ph * src->channels * bps)) != JF_OK)
        return st;
    return jf_gpu_finish(ctx, dst, &out);
}
