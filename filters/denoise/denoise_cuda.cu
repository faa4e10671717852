/*
 * The denoisers on the GPU: non-local means, bilateral, guided.  The
 * arithmetic is the CPU's (denoise_math.h): the same weight function, colour
 * transform and Anscombe pair, the same order of the offsets; sums differ
 * in their rounding only (a result within one level of the CPU's).
 *
 * Non-local means and the guided filter work on float planes made by
 * to_planes_kernel (the border, the colour decorrelated, the noise
 * stabilised) and turned back into samples by from_planes_kernel.
 *
 *   nlm_tile_kernel: a block of bx x by threads makes a tile of bx x 4by
 *   pixels.  Its planes with their reach (search / 2 + patch / 2) sit in
 *   shared memory; for each offset of the search window the block writes
 *   the squared differences of the tile and its patch halo, then their
 *   column sums, then each thread its four pixels' patch sums across, the
 *   weight and the running sums, which stay in registers.
 */
#include "filters/filter_cuda.cuh"
#include "filters/denoise/denoise.h"
#include "filters/denoise/denoise_math.h"
#include "filters/resolve.h"

/* ---- planes ------------------------------------------------------------------------ */

struct plane_args {
    int w, h, ch, pad, colour, decorrelate, vst;
    float a, b;
    jf_border border;
};

template <typename T>
__global__ void to_planes_kernel(const unsigned char *__restrict__ src, size_t src_pitch, plane_args p,
                                 float *__restrict__ planes, size_t pitch, size_t plane)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    float v[3];
    int c, sx, sy;
    if (x >= p.w + 2 * p.pad || y >= p.h + 2 * p.pad)
        return;
    sx = jf_border_index(x - p.pad, p.w, p.border);
    sy = jf_border_index(y - p.pad, p.h, p.border);
    for (c = 0; c < p.colour; c++) {
        v[c] = sx < 0 || sy < 0 ? 0.0f
                                : (float)((const T *)(src + (size_t)sy * src_pitch))[(size_t)sx * p.ch + c];
        if (p.vst)
            v[c] = jf_gat_forward(v[c], p.a, p.b);
    }
    if (p.decorrelate)
        jf_rgb_to_dec(v[0], v[1], v[2], &v[0], &v[1], &v[2]);
    for (c = 0; c < p.colour; c++)
        planes[(size_t)c * plane + (size_t)y * pitch + x] = v[c];
}

template <typename T> __device__ __forceinline__ T saturate_to(float v);
template <> __device__ __forceinline__ unsigned char saturate_to<unsigned char>(float v)
{
    return jf_saturate_round(v);
}
template <> __device__ __forceinline__ unsigned short saturate_to<unsigned short>(float v)
{
    return jf_saturate_round16(v);
}

template <typename T>
__global__ void from_planes_kernel(const float *__restrict__ planes, size_t pitch, size_t plane,
                                   plane_args p, const unsigned char *src, size_t src_pitch,
                                   unsigned char *dst, size_t dst_pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    float v[3];
    int c;
    if (x >= p.w || y >= p.h)
        return;
    for (c = 0; c < p.colour; c++)
        v[c] = planes[(size_t)c * plane + (size_t)(y + p.pad) * pitch + x + p.pad];
    if (p.decorrelate)
        jf_dec_to_rgb(v[0], v[1], v[2], &v[0], &v[1], &v[2]);
    {
        const T *s = (const T *)(src + (size_t)y * src_pitch);
        T *d = (T *)(dst + (size_t)y * dst_pitch);
        for (c = 0; c < p.ch; c++)
            d[(size_t)x * p.ch + c] = c >= p.colour ? s[(size_t)x * p.ch + c]
                                      : saturate_to<T>(p.vst ? jf_gat_inverse(v[c], p.a, p.b) : v[c]);
    }
}

/* The call's planes in `slot`: colour planes of (w + 2 pad) x (h + 2 pad). */
static jf_status planes_buffer(jf_context *ctx, int slot, const plane_args &p, float **ptr,
                               size_t *pitch, size_t *plane)
{
    jf_dview v;
    const int pw = p.w + 2 * p.pad, ph = p.h + 2 * p.pad;
    jf_status st = jf_gpu_buffer(ctx, slot, sizeof(float) * (size_t)pw, (size_t)ph * p.colour,
                                 JF_BUF_DEVICE, &v);
    if (st != JF_OK)
        return st;
    *ptr = (float *)v.ptr;
    *pitch = v.pitch / sizeof(float);
    *plane = *pitch * (size_t)ph;
    return JF_OK;
}

static jf_status to_planes(jf_context *ctx, const jf_dview &in, jf_sample sample, const plane_args &p,
                           float *planes, size_t pitch, size_t plane)
{
    const dim3 block(32, 8), grid = jf_grid(p.w + 2 * p.pad, p.h + 2 * p.pad, 1, block);
    if (sample == JF_SAMPLE_U16)
        to_planes_kernel<unsigned short><<<grid, block, 0, ctx->gpu->stream>>>(in.ptr, in.pitch, p, planes, pitch, plane);
    else
        to_planes_kernel<unsigned char><<<grid, block, 0, ctx->gpu->stream>>>(in.ptr, in.pitch, p, planes, pitch, plane);
    JF_LAUNCH_CHECK("to_planes_kernel");
    return JF_OK;
}

static jf_status from_planes(jf_context *ctx, const float *planes, size_t pitch, size_t plane,
                             const plane_args &p, jf_sample sample, const jf_dview &in,
                             const jf_dview &out)
{
    const dim3 block(32, 8), grid = jf_grid(p.w, p.h, 1, block);
    if (sample == JF_SAMPLE_U16)
        from_planes_kernel<unsigned short><<<grid, block, 0, ctx->gpu->stream>>>(planes, pitch, plane, p, in.ptr, in.pitch, out.ptr, out.pitch);
    else
        from_planes_kernel<unsigned char><<<grid, block, 0, ctx->gpu->stream>>>(planes, pitch, plane, p, in.ptr, in.pitch, out.ptr, out.pitch);
    JF_LAUNCH_CHECK("from_planes_kernel");
    return JF_OK;
}

/* ---- non-local means ----------------------------------------------------------------- */

struct nlm_args {
    int w, h, pad, r, f;
    float two_s2, inv_h2, inv_n, keep;
};

/* The weight of a patch distance (a sum over the patch and channels). */
__device__ __forceinline__ float nlm_weight(float sum, const nlm_args &a)
{
    float e = sum * a.inv_n - a.two_s2;
    e = e > 0.0f ? e : 0.0f;
    return jf_exp_neg(e * a.inv_h2);
}

template <int C>
__global__ void nlm_tile_kernel(const float *__restrict__ in, size_t pitch, size_t plane, nlm_args a,
                                float *__restrict__ out, size_t out_pitch, size_t out_plane)
{
    extern __shared__ float sm[];
    const int TW = blockDim.x, TH = blockDim.y * 4, R = a.r + a.f, P = 2 * a.f + 1;
    const int SW = TW + 2 * R, SH = TH + 2 * R, DW = TW + 2 * a.f, DH = TH + 2 * a.f;
    const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x, n = blockDim.x * blockDim.y;
    float *s_src = sm, *s_d = s_src + (size_t)C * SH * SW, *s_v = s_d + DH * DW;
    float acc[4][C], den[4], wmax[4];
    int i, k, c, dx, dy;
    /* the tile and its reach, from the padded planes (tile origin = planes (x0, y0)) */
    for (i = tid; i < SW * SH; i += n) {
        const int u = i % SW, v = i / SW, gx = x0 + u, gy = y0 + v;
        const bool inside = gx < a.w + 2 * a.pad && gy < a.h + 2 * a.pad;
        for (c = 0; c < C; c++)
            s_src[(size_t)c * SH * SW + i] = inside ? in[(size_t)c * plane + (size_t)gy * pitch + gx] : 0.0f;
    }
    for (k = 0; k < 4; k++) {
        den[k] = wmax[k] = 0.0f;
        for (c = 0; c < C; c++)
            acc[k][c] = 0.0f;
    }
    __syncthreads();
    for (dy = -a.r; dy <= a.r; dy++)
        for (dx = -a.r; dx <= a.r; dx++) {
            if (dx == 0 && dy == 0)
                continue;
            /* squared differences: position (u, v) is tile pixel (u - f, v - f) */
            for (i = tid; i < DW * DH; i += n) {
                const int u = i % DW, v = i / DW;
                const int p = (v + a.r) * SW + u + a.r, q = (v + a.r + dy) * SW + u + a.r + dx;
                float sum = 0.0f;
                for (c = 0; c < C; c++) {
                    const float e = s_src[(size_t)c * SH * SW + p] - s_src[(size_t)c * SH * SW + q];
                    sum += e * e;
                }
                s_d[i] = sum;
            }
            __syncthreads();
            for (i = tid; i < (TH / 4) * DW; i += n) { /* column sums over the patch, */
                const int u = i % DW, y = (i / DW) * 4;  /* sliding down four rows */
                float sum = 0.0f;
                for (k = 0; k < P; k++)
                    sum += s_d[(y + k) * DW + u];
                s_v[y * DW + u] = sum;
                for (k = 1; k < 4; k++) {
                    sum += s_d[(y + k + P - 1) * DW + u] - s_d[(y + k - 1) * DW + u];
                    s_v[(y + k) * DW + u] = sum;
                }
            }
            __syncthreads();
            for (k = 0; k < 4; k++) {
                const int y = threadIdx.y * 4 + k, x = threadIdx.x;
                float sum = 0.0f, w;
                for (i = 0; i < P; i++)
                    sum += s_v[y * DW + x + i];
                w = nlm_weight(sum, a);
                den[k] += w;
                wmax[k] = wmax[k] > w ? wmax[k] : w;
                for (c = 0; c < C; c++)
                    acc[k][c] += w * s_src[(size_t)c * SH * SW + (y + R + dy) * SW + x + R + dx];
            }
            __syncthreads();
        }
    for (k = 0; k < 4; k++) {
        const int y = threadIdx.y * 4 + k, x = threadIdx.x;
        if (x0 + x >= a.w || y0 + y >= a.h)
            continue;
        for (c = 0; c < C; c++) { /* the pixel itself, weighted as its most similar neighbour */
            const float self = s_src[(size_t)c * SH * SW + (y + R) * SW + x + R];
            out[(size_t)c * out_plane + (size_t)(y0 + y + a.pad) * out_pitch + x0 + x + a.pad] =
                jf_nlm_keep((acc[k][c] + wmax[k] * self) / (den[k] + wmax[k]), self, a.keep);
        }
    }
}

/* The reference on the GPU: a thread a pixel, each patch distance summed
 * from the planes in global memory. */
template <int C>
__global__ void nlm_global_kernel(const float *__restrict__ in, size_t pitch, size_t plane, nlm_args a,
                                  float *__restrict__ out, size_t out_pitch, size_t out_plane)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    float acc[C], den = 0.0f, wmax = 0.0f;
    int c, dx, dy, u, v;
    if (x >= a.w || y >= a.h)
        return;
    for (c = 0; c < C; c++)
        acc[c] = 0.0f;
    for (dy = -a.r; dy <= a.r; dy++)
        for (dx = -a.r; dx <= a.r; dx++) {
            float sum = 0.0f, w;
            if (dx == 0 && dy == 0)
                continue;
            /* rows of the patch in the CPU's order: each column's sum, then across */
            for (u = -a.f; u <= a.f; u++) {
                float col = 0.0f;
                for (v = -a.f; v <= a.f; v++) {
                    const size_t p = (size_t)(y + a.pad + v) * pitch + x + a.pad + u;
                    const size_t q = (size_t)(y + a.pad + v + dy) * pitch + x + a.pad + u + dx;
                    float d = 0.0f;
                    for (c = 0; c < C; c++) {
                        const float e = in[(size_t)c * plane + p] - in[(size_t)c * plane + q];
                        d += e * e;
                    }
                    col += d;
                }
                sum += col;
            }
            w = nlm_weight(sum, a);
            den += w;
            wmax = wmax > w ? wmax : w;
            for (c = 0; c < C; c++)
                acc[c] += w * in[(size_t)c * plane + (size_t)(y + a.pad + dy) * pitch + x + a.pad + dx];
        }
    for (c = 0; c < C; c++) {
        const float self = in[(size_t)c * plane + (size_t)(y + a.pad) * pitch + x + a.pad];
        out[(size_t)c * out_plane + (size_t)(y + a.pad) * out_pitch + x + a.pad] =
            jf_nlm_keep((acc[c] + wmax * self) / (den + wmax), self, a.keep);
    }
}

/* What the non-local means rows' launches get (jf_gpu_call.args): the
 * planes in and out, each with its own pitch (kept slots may have kept
 * different pitches from earlier calls), the arguments and the colour. */
struct nlm_call {
    const float *in;
    size_t pitch, plane;
    nlm_args a;
    float *out;
    size_t out_pitch, out_plane;
    int colour;
};

extern "C" jf_status jf_nlm_tile_run(const jf_gpu_call *c)
{
    const nlm_call &n = *(const nlm_call *)c->args;
    const jf_choice &ch = *c->choice;
    const dim3 block(ch.block_x, ch.block_y);
    const dim3 grid((unsigned)((n.a.w + block.x - 1) / block.x),
                    (unsigned)((n.a.h + 4 * block.y - 1) / (4 * block.y)));
    const jf_status st = jf_gpu_launch_fits(c->ctx, n.colour == 3 ? (const void *)nlm_tile_kernel<3>
                                                                   : (const void *)nlm_tile_kernel<1>,
                                            "nlm_tile_kernel", ch.block_x * ch.block_y, ch.smem);
    if (st != JF_OK)
        return st;
    if (n.colour == 3)
        nlm_tile_kernel<3><<<grid, block, ch.smem, c->ctx->gpu->stream>>>(n.in, n.pitch, n.plane, n.a, n.out,
                                                                            n.out_pitch, n.out_plane);
    else
        nlm_tile_kernel<1><<<grid, block, ch.smem, c->ctx->gpu->stream>>>(n.in, n.pitch, n.plane, n.a, n.out,
                                                                            n.out_pitch, n.out_plane);
    JF_LAUNCH_CHECK("nlm_tile_kernel");
    return JF_OK;
}

extern "C" jf_status jf_nlm_global_run(const jf_gpu_call *c)
{
    const nlm_call &n = *(const nlm_call *)c->args;
    const dim3 block(c->choice->block_x, c->choice->block_y), grid = jf_grid(n.a.w, n.a.h, 1, block);
    if (n.colour == 3)
        nlm_global_kernel<3><<<grid, block, 0, c->ctx->gpu->stream>>>(n.in, n.pitch, n.plane, n.a, n.out,
                                                                        n.out_pitch, n.out_plane);
    else
        nlm_global_kernel<1><<<grid, block, 0, c->ctx->gpu->stream>>>(n.in, n.pitch, n.plane, n.a, n.out,
                                                                        n.out_pitch, n.out_plane);
    JF_LAUNCH_CHECK("nlm_global_kernel");
    return JF_OK;
}

/* The chosen row's launch with a family's own arguments. */
static jf_status run_row(jf_context *ctx, const jf_choice &ch, int k, const void *args)
{
    jf_gpu_call call;
    memset(&call, 0, sizeof call);
    call.ctx = ctx;
    call.choice = &ch;
    call.k = k;
    call.args = args;
    if (!ch.row || !ch.row->run)
        return jf_fail(JF_ERR_INTERNAL, "the chosen row has no GPU launch");
    return ch.row->run(&call);
}

extern "C" jf_status jf_nlmeans_cuda(jf_context *ctx, const jf_image *src, jf_image *dst,
                                     const jf_nlm_params *prm, const jf_plane_map *map,
                                     jf_border border, const jf_choice *choice)
{
    jf_device_scope scope(ctx);
    jf_dview in, outv;
    plane_args p;
    nlm_args a;
    float *pin, *pout;
    size_t pitch, plane, pitch2, plane2;
    const jf_choice &ch = *choice;
    int id;
    jf_status st;
    if (scope.status != JF_OK)
        return scope.status;
    jf_gpu_begin(ctx);
    if ((st = jf_gpu_input(ctx, src, JF_SLOT_IN, &in)) != JF_OK || (st = jf_gpu_output(ctx, dst, &outv)) != JF_OK)
        return st;
    p.w = src->width;
    p.h = src->height;
    p.ch = src->channels;
    p.pad = prm->search / 2 + prm->patch / 2;
    p.colour = map->colour;
    p.decorrelate = map->decorrelate;
    p.vst = map->vst;
    p.a = map->a;
    p.b = map->b;
    p.border = border;
    if ((st = planes_buffer(ctx, JF_SLOT_WORK1, p, &pin, &pitch, &plane)) != JF_OK ||
        (st = planes_buffer(ctx, JF_SLOT_WORK2, p, &pout, &pitch2, &plane2)) != JF_OK)
        return st;
    a.w = p.w;
    a.h = p.h;
    a.pad = p.pad;
    a.r = prm->search / 2;
    a.f = prm->patch / 2;
    a.two_s2 = 2.0f * prm->sigma * prm->sigma;
    a.inv_h2 = 1.0f / (prm->h * prm->h);
    a.inv_n = 1.0f / (float)(prm->patch * prm->patch * map->colour);
    a.keep = prm->keep;
    if ((st = jf_gpu_timer_start(ctx, &id)) != JF_OK ||
        (st = to_planes(ctx, in, src->sample, p, pin, pitch, plane)) != JF_OK)
        return st;
    {
        const nlm_call n = {pin, pitch, plane, a, pout, pitch2, plane2, map->colour};
        st = run_row(ctx, ch, prm->search, &n);
    }
    if (st != JF_OK || (st = from_planes(ctx, pout, pitch2, plane2, p, src->sample, in, outv)) != JF_OK ||
        (st = jf_gpu_filter_done(ctx, id, "nlmeans", "nlmeans", jf_variant_name(ch.variant),
                                 prm->search, src, 0)) != JF_OK)
        return st;
    return jf_gpu_finish(ctx, dst, &outv);
}

/* ---- bilateral -------------------------------------------------------------------------- */

struct bl_args {
    int w, h, ch, r;
    float inv_2sc2;
    jf_border border;
};

template <typename T>
__device__ __forceinline__ float sample_at(const unsigned char *src, size_t pitch, int x, int y, int ch, int c)
{
    return (float)((const T *)(src + (size_t)y * pitch))[(size_t)x * ch + c];
}

template <typename T>
__device__ __forceinline__ void bl_store(const unsigned char *src, size_t src_pitch, unsigned char *dst,
                                         size_t dst_pitch, int x, int y, int ch, int C, const float *acc,
                                         float den)
{
    const T *s = (const T *)(src + (size_t)y * src_pitch);
    T *d = (T *)(dst + (size_t)y * dst_pitch);
    int c;
    for (c = 0; c < ch; c++)
        d[(size_t)x * ch + c] = c >= C ? s[(size_t)x * ch + c] : saturate_to<T>(acc[c] / den);
}

template <typename T, int C>
__global__ void bilateral_tile_kernel(const unsigned char *__restrict__ src, size_t src_pitch, bl_args a,
                                      const float *__restrict__ space, unsigned char *dst, size_t dst_pitch)
{
    extern __shared__ float sm[];
    const int TW = blockDim.x, TH = blockDim.y, SW = TW + 2 * a.r, SH = TH + 2 * a.r, k = 2 * a.r + 1;
    const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH, x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    const int tid = threadIdx.y * TW + threadIdx.x, n = TW * TH;
    float *s_src = sm, *s_space = s_src + (size_t)C * SW * SH, *s_lut = s_space + k * k;
    const bool lut = sizeof(T) == 1; /* 8 bits: a colour difference is a whole level */
    float acc[C], den = 0.0f, p[C];
    int i, u, v, c;
    if (lut) /* exp(-(d0^2 + d1^2 + d2^2) c) as a product of one weight per channel */
        for (i = tid; i < 256; i += n)
            s_lut[i] = jf_exp_neg((float)(i * i) * a.inv_2sc2);
    for (i = tid; i < SW * SH; i += n) {
        const int sx = jf_border_index(x0 + i % SW - a.r, a.w, a.border);
        const int sy = jf_border_index(y0 + i / SW - a.r, a.h, a.border);
        for (c = 0; c < C; c++)
            s_src[(size_t)c * SW * SH + i] = sx < 0 || sy < 0 ? 0.0f : sample_at<T>(src, src_pitch, sx, sy, a.ch, c);
    }
    for (i = tid; i < k * k; i += n)
        s_space[i] = space[i];
    __syncthreads();
    if (x >= a.w || y >= a.h)
        return;
    for (c = 0; c < C; c++) {
        acc[c] = 0.0f;
        p[c] = s_src[(size_t)c * SW * SH + (threadIdx.y + a.r) * SW + threadIdx.x + a.r];
    }
    for (v = 0; v < k; v++)
        for (u = 0; u < k; u++) {
            const float ws = s_space[v * k + u];
            const int q = (threadIdx.y + v) * SW + threadIdx.x + u;
            float d = 0.0f, w = ws;
            if (ws == 0.0f)
                continue;
            for (c = 0; c < C; c++) {
                const float e = s_src[(size_t)c * SW * SH + q] - p[c];
                if (lut)
                    w *= s_lut[__float2int_rn(fabsf(e))];
                else
                    d += e * e;
            }
            if (!lut)
                w *= jf_exp_neg(d * a.inv_2sc2);
            for (c = 0; c < C; c++)
                acc[c] += w * s_src[(size_t)c * SW * SH + q];
            den += w;
        }
    bl_store<T>(src, src_pitch, dst, dst_pitch, x, y, a.ch, C, acc, den);
}

template <typename T, int C>
__global__ void bilateral_global_kernel(const unsigned char *__restrict__ src, size_t src_pitch, bl_args a,
                                        const float *__restrict__ space, unsigned char *dst, size_t dst_pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, k = 2 * a.r + 1;
    float acc[C], den = 0.0f, p[C];
    int u, v, c;
    if (x >= a.w || y >= a.h)
        return;
    for (c = 0; c < C; c++) {
        acc[c] = 0.0f;
        p[c] = sample_at<T>(src, src_pitch, x, y, a.ch, c);
    }
    for (v = 0; v < k; v++) {
        const int sy = jf_border_index(y + v - a.r, a.h, a.border);
        for (u = 0; u < k; u++) {
            const int sx = jf_border_index(x + u - a.r, a.w, a.border);
            const float ws = space[v * k + u];
            float q[C], d = 0.0f, w;
            if (ws == 0.0f)
                continue;
            for (c = 0; c < C; c++) {
                q[c] = sx < 0 || sy < 0 ? 0.0f : sample_at<T>(src, src_pitch, sx, sy, a.ch, c);
                d += (q[c] - p[c]) * (q[c] - p[c]);
            }
            w = ws * jf_exp_neg(d * a.inv_2sc2);
            for (c = 0; c < C; c++)
                acc[c] += w * q[c];
            den += w;
        }
    }
    bl_store<T>(src, src_pitch, dst, dst_pitch, x, y, a.ch, C, acc, den);
}

/* What the bilateral rows' launches get (jf_gpu_call.args). */
struct bl_call {
    jf_dview in;
    bl_args a;
    const float *space;
    jf_dview out;
    jf_sample sample;
    int colour;
};

template <typename T, int C>
static jf_status bl_tile(const jf_gpu_call *c, const bl_call &b)
{
    const jf_choice &ch = *c->choice;
    const dim3 block(ch.block_x, ch.block_y), grid = jf_grid(b.a.w, b.a.h, 1, block);
    const jf_status st = jf_gpu_launch_fits(c->ctx, (const void *)bilateral_tile_kernel<T, C>,
                                            "bilateral_tile_kernel", ch.block_x * ch.block_y, ch.smem);
    if (st != JF_OK)
        return st;
    bilateral_tile_kernel<T, C><<<grid, block, ch.smem, c->ctx->gpu->stream>>>(b.in.ptr, b.in.pitch, b.a, b.space,
                                                                                 b.out.ptr, b.out.pitch);
    JF_LAUNCH_CHECK("bilateral_tile_kernel");
    return JF_OK;
}

template <typename T, int C>
static jf_status bl_global(const jf_gpu_call *c, const bl_call &b)
{
    const dim3 block(c->choice->block_x, c->choice->block_y), grid = jf_grid(b.a.w, b.a.h, 1, block);
    bilateral_global_kernel<T, C><<<grid, block, 0, c->ctx->gpu->stream>>>(b.in.ptr, b.in.pitch, b.a, b.space,
                                                                            b.out.ptr, b.out.pitch);
    JF_LAUNCH_CHECK("bilateral_global_kernel");
    return JF_OK;
}

/* fn's instance for the call's sample type and colour */
#define BL_INSTANCE(fn, b)                                                                   \
    ((b).sample == JF_SAMPLE_U16 ? ((b).colour == 3 ? fn<unsigned short, 3> : fn<unsigned short, 1>) \
                                 : ((b).colour == 3 ? fn<unsigned char, 3> : fn<unsigned char, 1>))

extern "C" jf_status jf_bilateral_tile_run(const jf_gpu_call *c)
{
    const bl_call &b = *(const bl_call *)c->args;
    return BL_INSTANCE(bl_tile, b)(c, b);
}

extern "C" jf_status jf_bilateral_global_run(const jf_gpu_call *c)
{
    const bl_call &b = *(const bl_call *)c->args;
    return BL_INSTANCE(bl_global, b)(c, b);
}

extern "C" jf_status jf_bilateral_cuda(jf_context *ctx, const jf_image *src, jf_image *dst,
                                       const jf_bilateral_params *prm, jf_border border,
                                       const jf_choice *choice)
{
    jf_device_scope scope(ctx);
    jf_dview in, outv, buf;
    bl_args a;
    const jf_choice &ch = *choice;
    const int k = prm->ksize, colour = src->channels >= 3 ? 3 : 1;
    float space[JF_BILATERAL_MAX_KSIZE * JF_BILATERAL_MAX_KSIZE];
    const float *d_space;
    int id;
    jf_status st;
    if (scope.status != JF_OK)
        return scope.status;
    jf_gpu_begin(ctx);
    if ((st = jf_gpu_input(ctx, src, JF_SLOT_IN, &in)) != JF_OK || (st = jf_gpu_output(ctx, dst, &outv)) != JF_OK)
        return st;
    if (outv.ptr == in.ptr) { /* filtered in place: read from a copy */
        if ((st = jf_gpu_buffer(ctx, JF_SLOT_WORK1, jf_row_bytes(src), (size_t)src->height, JF_BUF_DEVICE, &buf)) != JF_OK)
            return st;
        JF_CUDA_TRY(cudaMemcpy2DAsync(buf.ptr, buf.pitch, in.ptr, in.pitch, jf_row_bytes(src), (size_t)src->height,
                                      cudaMemcpyDeviceToDevice, ctx->gpu->stream));
        in = buf;
    }
    jf_bilateral_space(k / 2, prm->sigma_space, space);
    if ((st = jf_gpu_weights(ctx, space, k, &d_space)) != JF_OK)
        return st;
    a.w = src->width;
    a.h = src->height;
    a.ch = src->channels;
    a.r = k / 2;
    a.inv_2sc2 = 1.0f / (2.0f * prm->sigma_color * prm->sigma_color);
    a.border = border;
    if ((st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    {
        const bl_call b = {in, a, d_space, outv, src->sample, colour};
        st = run_row(ctx, ch, k, &b);
    }
    if (st != JF_OK || (st = jf_gpu_filter_done(ctx, id, "bilateral", "bilateral", jf_variant_name(ch.variant),
                                                k, src, 0)) != JF_OK)
        return st;
    return jf_gpu_finish(ctx, dst, &outv);
}

/* ---- guided ------------------------------------------------------------------------------- */

/* Row sums over k of n_in float rows (two quantities: the values and, with
 * `square`, their squares), for output columns 0 .. w_out. */
__global__ void box_rows_kernel(const float *__restrict__ x, const float *__restrict__ y, size_t pitch,
                                int w_out, int rows, int k, float scale, int square, float *__restrict__ sx,
                                float *__restrict__ sy, size_t out_pitch)
{
    const int u = blockIdx.x * blockDim.x + threadIdx.x, v = blockIdx.y * blockDim.y + threadIdx.y;
    float a = 0.0f, b = 0.0f;
    int i;
    if (u >= w_out || v >= rows)
        return;
    for (i = 0; i < k; i++) {
        const float p = x[(size_t)v * pitch + u + i] * scale;
        a += p;
        b += square ? p * p : y[(size_t)v * pitch + u + i];
    }
    sx[(size_t)v * out_pitch + u] = a;
    sy[(size_t)v * out_pitch + u] = b;
}

/* a and b of each window of the region (column sums of the row sums). */
__global__ void guided_ab_kernel(const float *__restrict__ si, const float *__restrict__ sii, size_t pitch,
                                 int w, int h, int k, float eps, float *__restrict__ a, float *__restrict__ b)
{
    const int u = blockIdx.x * blockDim.x + threadIdx.x, v = blockIdx.y * blockDim.y + threadIdx.y;
    const float n = 1.0f / (float)(k * k);
    float m = 0.0f, mm = 0.0f, var, s;
    int i;
    if (u >= w || v >= h)
        return;
    for (i = 0; i < k; i++) {
        m += si[(size_t)(v + i) * pitch + u];
        mm += sii[(size_t)(v + i) * pitch + u];
    }
    m *= n;
    mm *= n;
    var = mm - m * m;
    var = var > 0.0f ? var : 0.0f;
    s = var / (var + eps);
    a[(size_t)v * pitch + u] = s;
    b[(size_t)v * pitch + u] = m - s * m;
}

/* The output: the mean a and b of the windows that hold each pixel. */
template <typename T>
__global__ void guided_out_kernel(const float *__restrict__ sa, const float *__restrict__ sb, size_t pitch,
                                  const float *__restrict__ plane, size_t plane_pitch, int pad, int w, int h,
                                  int k, int ch, int c, float scale, unsigned char *dst, size_t dst_pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    const float n = 1.0f / (float)(k * k);
    float ma = 0.0f, mb = 0.0f;
    int i;
    if (x >= w || y >= h)
        return;
    for (i = 0; i < k; i++) {
        ma += sa[(size_t)(y + i) * pitch + x];
        mb += sb[(size_t)(y + i) * pitch + x];
    }
    ma *= n;
    mb *= n;
    ((T *)(dst + (size_t)y * dst_pitch))[(size_t)x * ch + c] =
        saturate_to<T>((ma * plane[(size_t)(y + pad) * plane_pitch + x + pad] * scale + mb) / scale);
}

extern "C" jf_status jf_guided_cuda(jf_context *ctx, const jf_image *src, jf_image *dst,
                                    const jf_guided_params *prm, jf_border border,
                                    const jf_choice *choice)
{
    jf_device_scope scope(ctx);
    jf_dview in, outv, work;
    plane_args p;
    float *planes, *buf;
    size_t pitch, plane;
    const jf_choice &ch = *choice;
    const int k = prm->ksize, r = k / 2, colour = src->channels >= 3 ? 3 : 1;
    const float top = (float)jf_sample_max(src->sample), scale = 1.0f / top;
    const dim3 block(ch.block_x, ch.block_y);
    int id, c, w1, h1, rows;
    size_t wp, region;
    jf_status st;
    if (scope.status != JF_OK)
        return scope.status;
    jf_gpu_begin(ctx);
    if ((st = jf_gpu_input(ctx, src, JF_SLOT_IN, &in)) != JF_OK || (st = jf_gpu_output(ctx, dst, &outv)) != JF_OK)
        return st;
    p.w = src->width;
    p.h = src->height;
    p.ch = src->channels;
    p.pad = 2 * r;
    p.colour = colour;
    p.decorrelate = p.vst = 0;
    p.a = p.b = 0.0f;
    p.border = border;
    if ((st = planes_buffer(ctx, JF_SLOT_WORK1, p, &planes, &pitch, &plane)) != JF_OK)
        return st;
    /* six arrays of the planes' width: row sums of I and I^2 (all rows),
     * a and b over the region, their row sums */
    w1 = p.w + 2 * r;
    h1 = p.h + 2 * r;
    rows = p.h + 4 * r;
    wp = pitch;
    region = wp * (size_t)rows;
    if ((st = jf_gpu_buffer(ctx, JF_SLOT_WORK2, sizeof(float) * wp, (size_t)rows * 6, JF_BUF_DEVICE, &work)) != JF_OK)
        return st;
    buf = (float *)work.ptr;
    wp = work.pitch / sizeof(float);
    region = wp * (size_t)rows;
    if ((st = jf_gpu_timer_start(ctx, &id)) != JF_OK || (st = to_planes(ctx, in, src->sample, p, planes, pitch, plane)) != JF_OK)
        return st;
    if (outv.ptr != in.ptr) { /* the alpha, as it was (from_planes would copy it; here the channels are written one by one) */
        JF_CUDA_TRY(cudaMemcpy2DAsync(outv.ptr, outv.pitch, in.ptr, in.pitch, jf_row_bytes(src), (size_t)src->height,
                                      cudaMemcpyDeviceToDevice, ctx->gpu->stream));
    }
    for (c = 0; c < colour; c++) {
        const float *pc = planes + (size_t)c * plane;
        float *si = buf, *sii = buf + region, *a = buf + 2 * region, *b = buf + 3 * region,
              *sa = buf + 4 * region, *sb = buf + 5 * region;
        box_rows_kernel<<<jf_grid(w1, rows, 1, block), block, 0, ctx->gpu->stream>>>(pc, pc, pitch, w1, rows, k, scale, 1, si, sii, wp);
        JF_LAUNCH_CHECK("box_rows_kernel");
        guided_ab_kernel<<<jf_grid(w1, h1, 1, block), block, 0, ctx->gpu->stream>>>(si, sii, wp, w1, h1, k,
                                                                                     prm->eps * scale * scale, a, b);
        JF_LAUNCH_CHECK("guided_ab_kernel");
        box_rows_kernel<<<jf_grid(p.w, h1, 1, block), block, 0, ctx->gpu->stream>>>(a, b, wp, p.w, h1, k, 1.0f, 0, sa, sb, wp);
        JF_LAUNCH_CHECK("box_rows_kernel");
        if (src->sample == JF_SAMPLE_U16)
            guided_out_kernel<unsigned short><<<jf_grid(p.w, p.h, 1, block), block, 0, ctx->gpu->stream>>>(
                sa, sb, wp, pc, pitch, p.pad, p.w, p.h, k, p.ch, c, scale, outv.ptr, outv.pitch);
        else
            guided_out_kernel<unsigned char><<<jf_grid(p.w, p.h, 1, block), block, 0, ctx->gpu->stream>>>(
                sa, sb, wp, pc, pitch, p.pad, p.w, p.h, k, p.ch, c, scale, outv.ptr, outv.pitch);
        JF_LAUNCH_CHECK("guided_out_kernel");
    }
    if ((st = jf_gpu_filter_done(ctx, id, "guided_out_kernel", "guided", jf_variant_name(ch.variant), k, src, 0)) != JF_OK)
        return st;
    return jf_gpu_finish(ctx, dst, &outv);
}
