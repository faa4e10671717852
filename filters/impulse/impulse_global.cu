/*
 * Impulse-noise filters on the GPU, global-memory variant, bit-exact with
 * impulse_cpu.c.
 *
 * A window that grows per pixel is divergent work: in a warp, the lanes
 * whose pixel is settled at 3 x 3 would idle while one lane grows its
 * window to 7 x 7.  So the work is split by level.  The first kernel looks
 * at every sample's 3 x 3 window (uniform work: nine loads and a sorting
 * network), settles most of them and appends the rest to a queue (one
 * atomic per warp).  Each further level k = 5, 7, ... is one kernel over
 * the queue alone, whose threads all grow to the same k: dense work again.
 * The queue's length stays on the device (each level reads it there), so
 * the levels are queued back to back with no wait on the host.
 *
 *   all samples --3x3--> settled ------------------------------> out
 *                    \-> queue A --5x5--> settled --------------> out
 *                                     \-> queue B --7x7--> ... -> out
 */
#include "filters/filter_cuda.cuh"
#include "filters/impulse/impulse.h"
#include "filters/median/median_select.cuh"

/* A queued sample: (channel * h + y) * w + x. */
struct imp_shape {
    const unsigned char *planes;
    size_t pitch;
    int plane_rows, w, h, ch, r; /* r: the planes' padding, kmax / 2 */
    unsigned char *out;
    size_t out_pitch;
};

__device__ __forceinline__ const unsigned char *imp_center(const imp_shape &s, int x, int y, int c)
{
    return s.planes + ((size_t)c * s.plane_rows + y + s.r) * s.pitch + x + s.r;
}

__device__ __forceinline__ void imp_write(const imp_shape &s, int x, int y, int c, unsigned v)
{
    s.out[(size_t)y * s.out_pitch + (size_t)x * s.ch + c] = (unsigned char)v;
}

/* Append idx to the queue: the warp's lanes that need it take consecutive
 * slots with a single atomic. */
__device__ __forceinline__ void imp_enqueue(bool want, int idx, int *queue, int *count)
{
    const unsigned mask = __ballot_sync(0xffffffffu, want);
    const int lane = threadIdx.x & 31, leader = __ffs(mask) - 1;
    int base = 0;
    if (!mask)
        return;
    if (lane == leader)
        base = atomicAdd(count, __popc(mask));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (want)
        queue[base + __popc(mask & ((1u << lane) - 1u))] = idx;
}

/* The rank-r value (0-based) of the k x k window at p among the values that
 * pass `clean` (all of them when !clean_only): eight counting passes. */
__device__ __forceinline__ unsigned imp_select(const unsigned char *p, size_t pitch, int k, int r,
                                               bool clean_only)
{
    const int h = k / 2;
    unsigned result = 0;
    for (int bit = 7; bit >= 0; bit--) {
        const unsigned cand = result | (1u << bit);
        int below = 0;
        for (int dy = -h; dy <= h; dy++)
            for (int dx = -h; dx <= h; dx++) {
                const unsigned v = p[(ptrdiff_t)dy * (ptrdiff_t)pitch + dx];
                below += v < cand && !(clean_only && jf_is_extreme(v));
            }
        if (below <= r)
            result = cand;
    }
    return result;
}

/* ---- adaptive median ----------------------------------------------------------- */

/* Sample p with window k: settled (its value in *v) when the window's median
 * is not one of its extremes, or when k is the last window. */
__device__ __forceinline__ bool adaptive_settle(const imp_shape &s, const unsigned char *p, int k,
                                                bool last, unsigned *v)
{
    const int h = k / 2;
    unsigned lo = 255, hi = 0;
    for (int dy = -h; dy <= h; dy++)
        for (int dx = -h; dx <= h; dx++) {
            const unsigned w = p[(ptrdiff_t)dy * (ptrdiff_t)s.pitch + dx];
            lo = w < lo ? w : lo;
            hi = w > hi ? w : hi;
        }
    const unsigned med = k == 3 ? jf_median9(p - s.pitch - 1, p - 1, p + s.pitch - 1)
                                : imp_select(p, s.pitch, k, (k * k) / 2, false);
    const unsigned z = p[0];
    if (lo < med && med < hi) {
        *v = lo < z && z < hi ? z : med;
        return true;
    }
    *v = med;
    return last;
}

/* ---- switching median ---------------------------------------------------------- */

/* Settle sample p with window k if it holds a clean value; true when done. */
__device__ __forceinline__ bool switching_try(const imp_shape &s, const unsigned char *p, int k,
                                              unsigned *value)
{
    const int h = k / 2;
    int n = 0;
    for (int dy = -h; dy <= h; dy++)
        for (int dx = -h; dx <= h; dx++)
            n += !jf_is_extreme(p[(ptrdiff_t)dy * (ptrdiff_t)s.pitch + dx]);
    if (n == 0)
        return false;
    const unsigned lo = imp_select(p, s.pitch, k, (n - 1) / 2, true);
    const unsigned hi = n % 2 ? lo : imp_select(p, s.pitch, k, n / 2, true);
    *value = jf_even_median(lo, hi);
    return true;
}

/* switching_try for the 3 x 3 window, the case nearly every sample ends in:
 * the nine values sorted by a network.  0s sort first and 255s last, so the
 * clean values sit at ranks zeros .. zeros + n - 1. */
__device__ __forceinline__ bool switching_try3(const imp_shape &s, const unsigned char *p,
                                               unsigned *value)
{
    unsigned v[9];
    int zeros = 0, n = 0;
#pragma unroll
    for (int i = 0; i < 9; i++) {
        v[i] = p[(ptrdiff_t)(i / 3 - 1) * (ptrdiff_t)s.pitch + i % 3 - 1];
        zeros += v[i] == 0;
        n += !jf_is_extreme(v[i]);
    }
    if (n == 0)
        return false;
#pragma unroll
    for (int round = 0; round < 9; round++) /* odd-even transposition: sorts 9 in 9 rounds */
#pragma unroll
        for (int j = round & 1; j < 8; j += 2) {
            const unsigned a = v[j], b = v[j + 1];
            v[j] = jf_min(a, b);
            v[j + 1] = jf_max(a, b);
        }
    const int rlo = zeros + (n - 1) / 2, rhi = zeros + n / 2;
    unsigned lo = 0, hi = 0;
#pragma unroll
    for (int i = 0; i < 9; i++) { /* selects, not a local-memory index */
        lo = i == rlo ? v[i] : lo;
        hi = i == rhi ? v[i] : hi;
    }
    *value = jf_even_median(lo, hi);
    return true;
}

/* No clean value in the largest window: its plain median (0s, then 255s). */
__device__ __forceinline__ unsigned switching_fallback(const imp_shape &s, const unsigned char *p)
{
    const int k = 2 * s.r + 1;
    int lows = 0;
    for (int dy = -s.r; dy <= s.r; dy++)
        for (int dx = -s.r; dx <= s.r; dx++)
            lows += p[(ptrdiff_t)dy * (ptrdiff_t)s.pitch + dx] == 0;
    return (k * k) / 2 < lows ? 0u : 255u;
}

/* Sample p with window k: clean samples keep their value; an impulse is
 * settled by the clean values of its window, or at the last window by the
 * fallback. */
__device__ __forceinline__ bool switching_settle(const imp_shape &s, const unsigned char *p, int k,
                                                 bool last, unsigned *v)
{
    if (k == 3) {
        *v = p[0];
        if (!jf_is_extreme(*v) || switching_try3(s, p, v))
            return true;
    } else if (switching_try(s, p, k, v)) {
        return true;
    }
    if (!last)
        return false;
    *v = switching_fallback(s, p);
    return true;
}

/* ---- the passes, for either filter ---------------------------------------------- */

template <bool Adaptive>
__device__ __forceinline__ bool impulse_settle(const imp_shape &s, const unsigned char *p, int k,
                                               bool last, unsigned *v)
{
    return Adaptive ? adaptive_settle(s, p, k, last, v) : switching_settle(s, p, k, last, v);
}

/* Every sample at 3 x 3; the unsettled ones into the queue. */
template <bool Adaptive>
__global__ void impulse_first_kernel(imp_shape s, int *queue, int *count)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.z;
    for (int y = blockIdx.y; y < s.h; y += gridDim.y) { /* the same y for the whole block */
        bool queued = false;
        if (x < s.w) {
            unsigned v;
            if (impulse_settle<Adaptive>(s, imp_center(s, x, y, c), 3, s.r == 1, &v))
                imp_write(s, x, y, c, v);
            else
                queued = true;
        }
        imp_enqueue(queued, (c * s.h + y) * s.w + x, queue, count);
    }
}

/* The queued samples at window k; those still unsettled into the next queue. */
template <bool Adaptive>
__global__ void impulse_level_kernel(imp_shape s, int k, const int *in, const int *in_count,
                                     int *queue, int *count)
{
    const int n = *in_count;
    const bool last = k == 2 * s.r + 1;
    for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
        const int i = base + threadIdx.x;
        bool queued = false;
        if (i < n) {
            const int idx = in[i], x = idx % s.w, y = (idx / s.w) % s.h, c = idx / (s.w * s.h);
            unsigned v;
            if (impulse_settle<Adaptive>(s, imp_center(s, x, y, c), k, last, &v))
                imp_write(s, x, y, c, v);
            else
                queued = true;
        }
        imp_enqueue(queued, i < n ? in[i] : 0, queue, count);
    }
}

/* The first pass and the levels up to kmax, queued back to back. */
template <bool Adaptive>
static jf_status impulse_passes(jf_context *ctx, const imp_shape &s, dim3 rows, dim3 block, int kmax,
                                int *const queue[2], int *counts)
{
    /* enough blocks to fill the device; each loops over what is queued */
    const int sms = ctx->gpu->info.multiprocessors > 0 ? ctx->gpu->info.multiprocessors : 1;
    const dim3 grid((unsigned)(sms * 8));
    impulse_first_kernel<Adaptive><<<rows, block, 0, ctx->gpu->stream>>>(s, queue[0], &counts[0]);
    JF_LAUNCH_CHECK("impulse_first_kernel");
    for (int level = 1; level < kmax / 2; level++) {
        impulse_level_kernel<Adaptive><<<grid, block, 0, ctx->gpu->stream>>>(
            s, 2 * level + 3, queue[(level - 1) % 2], &counts[level - 1], queue[level % 2],
            &counts[level]);
        JF_LAUNCH_CHECK("impulse_level_kernel");
    }
    return JF_OK;
}

/* ---- the smoothing pass ------------------------------------------------------- */

/* Impulses of the input (the planes' centre) become the rounded mean of the
 * first pass's 3 x 3 neighbourhood inside the image; other samples keep the
 * first pass's value. */
__global__ void impulse_refine_kernel(imp_shape s, const unsigned char *__restrict__ first,
                                      size_t first_pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.z;
    if (x >= s.w)
        return;
    for (int y = blockIdx.y; y < s.h; y += gridDim.y) {
        unsigned v = first[(size_t)y * first_pitch + (size_t)x * s.ch + c];
        if (jf_is_extreme(*imp_center(s, x, y, c))) {
            const int ya = y > 0 ? y - 1 : 0, yb = y < s.h - 1 ? y + 1 : s.h - 1;
            const int xa = x > 0 ? x - 1 : 0, xb = x < s.w - 1 ? x + 1 : s.w - 1;
            unsigned sum = 0;
            for (int yy = ya; yy <= yb; yy++)
                for (int xx = xa; xx <= xb; xx++)
                    sum += first[(size_t)yy * first_pitch + (size_t)xx * s.ch + c];
            v = jf_round_mean(sum, (unsigned)((yb - ya + 1) * (xb - xa + 1)));
        }
        imp_write(s, x, y, c, v);
    }
}

/* ---- the launches -------------------------------------------------------------- */

jf_status jf_impulse_global_launch(jf_context *ctx, jf_impulse_kind kind, const jf_dview *planes,
                                   int plane_rows, const jf_image *shape, int kmax, int refine,
                                   const jf_dview *out)
{
    const size_t n = (size_t)shape->width * shape->height * shape->channels;
    const int levels = kmax / 2; /* 3, 5, ... kmax */
    const char *name = kind == JF_IMPULSE_ADAPTIVE ? "adaptive-median" : "switching-median";
    /* rows beyond the grid's 65535 are looped over inside the kernels */
    const dim3 block(128), rows(((unsigned)shape->width + 127) / 128,
                                (unsigned)(shape->height < 65535 ? shape->height : 65535),
                                (unsigned)shape->channels);
    imp_shape s;
    jf_dview q, first;
    jf_status st;
    int *queue[2], *counts, id;
    if (n > (size_t)0x7FFFFFFF)
        return jf_fail(JF_ERR_LIMIT, "%s: %zu samples are more than the queue can index", name, n);
    /* two queues of n entries, and one counter per level */
    if ((st = jf_gpu_buffer(ctx, JF_SLOT_WORK2, (2 * n + (size_t)levels + 1) * sizeof(int), 1,
                            JF_BUF_DEVICE, &q)) != JF_OK)
        return st;
    queue[0] = (int *)q.ptr;
    queue[1] = queue[0] + n;
    counts = queue[1] + n;
    JF_CUDA_TRY(cudaMemsetAsync(counts, 0, sizeof(int) * (size_t)(levels + 1), ctx->gpu->stream));
    s.planes = planes->ptr;
    s.pitch = planes->pitch;
    s.plane_rows = plane_rows;
    s.w = shape->width;
    s.h = shape->height;
    s.ch = shape->channels;
    s.r = kmax / 2;
    s.out = out->ptr;
    s.out_pitch = out->pitch;
    if (refine) { /* the levels write the first pass here; the smoothing pass, out */
        if ((st = jf_gpu_buffer(ctx, JF_SLOT_WORK1, (size_t)shape->width * shape->channels,
                                (size_t)shape->height, JF_BUF_DEVICE, &first)) != JF_OK)
            return st;
        s.out = first.ptr;
        s.out_pitch = first.pitch;
    }
    if ((st = jf_gpu_timer_start(ctx, &id)) != JF_OK)
        return st;
    if ((st = kind == JF_IMPULSE_ADAPTIVE
                  ? impulse_passes<true>(ctx, s, rows, block, kmax, queue, counts)
                  : impulse_passes<false>(ctx, s, rows, block, kmax, queue, counts)) != JF_OK)
        return st;
    if (refine) {
        s.out = out->ptr;
        s.out_pitch = out->pitch;
        impulse_refine_kernel<<<rows, block, 0, ctx->gpu->stream>>>(s, first.ptr, first.pitch);
        JF_LAUNCH_CHECK("impulse_refine_kernel");
    }
    return jf_gpu_timer_stop(ctx, id, name, "global", kmax, shape,
                             (uint64_t)(shape->width + kmax - 1) * (shape->height + kmax - 1) * shape->channels,
                             (uint64_t)n);
}
