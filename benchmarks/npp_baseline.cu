/*
 * NPP baseline for `jetfilter bench` (see npp.h).  NPP 13 keeps only the
 * _Ctx entry points; the stream context is filled from device attributes.
 * NPP has no border modes: it reads outside the ROI, so it gets the same
 * padded buffers jetfilter's border modes produce, with the ROI starting at
 * (r, r).
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <npp.h>

#include "benchmarks/npp.h"
#include "core/gpu.cuh"
#include "core/util.h"

extern "C" int jf_npp_available(void) { return 1; }

extern "C" const char *jf_npp_version(void)
{
    static char buf[64];
    const NppLibraryVersion *v = nppGetLibVersion();
    snprintf(buf, sizeof buf, "NPP %d.%d.%d", v->major, v->minor, v->build);
    return buf;
}

static jf_status npp_context(jf_context *ctx, NppStreamContext *n)
{
    struct jf_gpu *g = ctx->gpu;
    cudaDeviceProp prop;
    memset(n, 0, sizeof *n);
    JF_CUDA_TRY(cudaGetDeviceProperties(&prop, g->device));
    n->hStream = g->stream;
    n->nCudaDeviceId = g->device;
    n->nMultiProcessorCount = prop.multiProcessorCount;
    n->nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
    n->nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
    n->nSharedMemPerBlock = prop.sharedMemPerBlock;
    n->nCudaDevAttrComputeCapabilityMajor = prop.major;
    n->nCudaDevAttrComputeCapabilityMinor = prop.minor;
    JF_CUDA_TRY(cudaStreamGetFlags(g->stream, &n->nStreamFlags));
    return JF_OK;
}

static jf_status npp_fail(const char *call, NppStatus s)
{
    return jf_fail(JF_ERR_CUDA, "%s failed: NPP status %d", call, (int)s);
}

typedef NppStatus (*npp_call)(const jf_image *src, int k, jf_image *dst, void *arg,
                              const NppStreamContext *n);

static jf_status timed(jf_context *ctx, const jf_image *padded, int count, int k, jf_image *dst,
                       int warmup, int reps, double *ms, npp_call call, void *arg,
                       const char *name)
{
    struct jf_gpu *g = ctx->gpu;
    NppStreamContext n;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double *t = (double *)malloc(sizeof(double) * (size_t)(reps > 0 ? reps : 1));
    jf_device_scope scope(ctx);
    jf_status st = scope.status != JF_OK ? scope.status : npp_context(ctx, &n);
    int i;
    if (!t)
        return jf_fail(JF_ERR_NOMEM, "out of memory");
    if (st == JF_OK && (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess))
        st = jf_cuda_fail("cudaEventCreate", __FILE__, __LINE__, cudaGetLastError());
    for (i = -warmup; i < reps && st == JF_OK; i++) {
        const jf_image *src = &padded[(i + warmup) % count];
        float e = 0.0f;
        NppStatus s;
        cudaEventRecord(e0, g->stream);
        s = call(src, k, dst, arg, &n);
        cudaEventRecord(e1, g->stream);
        if (s < 0) {
            st = npp_fail(name, s);
            break;
        }
        if (cudaEventSynchronize(e1) != cudaSuccess || cudaEventElapsedTime(&e, e0, e1) != cudaSuccess) {
            st = jf_cuda_fail(name, __FILE__, __LINE__, cudaGetLastError());
            break;
        }
        if (i >= 0)
            t[i] = e;
    }
    if (st == JF_OK)
        *ms = jf_sort_median(t, reps);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    free(t);
    return st;
}

/* First pixel of the ROI: r rows and r columns into the padded image. */
static const Npp8u *roi(const jf_image *p, int r)
{
    return p->data + (size_t)r * p->stride + (size_t)r * p->channels * jf_bps(p);
}

static const Npp16u *roi16(const jf_image *p, int r) { return (const Npp16u *)roi(p, r); }

typedef struct median_arg {
    Npp8u *buffer;
} median_arg;

static NppStatus call_median(const jf_image *src, int k, jf_image *dst, void *arg,
                             const NppStreamContext *n)
{
    const int r = k / 2;
    NppiSize size = {dst->width, dst->height}, mask = {k, k};
    NppiPoint anchor = {r, r};
    Npp8u *buf = ((median_arg *)arg)->buffer;
    Npp16u *d16 = (Npp16u *)dst->data;
    if (dst->sample == JF_SAMPLE_U16)
        return dst->channels == 1
                   ? nppiFilterMedian_16u_C1R_Ctx(roi16(src, r), (int)src->stride, d16, (int)dst->stride,
                                                  size, mask, anchor, buf, *n)
               : dst->channels == 3
                   ? nppiFilterMedian_16u_C3R_Ctx(roi16(src, r), (int)src->stride, d16, (int)dst->stride,
                                                  size, mask, anchor, buf, *n)
                   : nppiFilterMedian_16u_C4R_Ctx(roi16(src, r), (int)src->stride, d16, (int)dst->stride,
                                                  size, mask, anchor, buf, *n);
    if (dst->channels == 1)
        return nppiFilterMedian_8u_C1R_Ctx(roi(src, r), (int)src->stride, dst->data,
                                           (int)dst->stride, size, mask, anchor, buf, *n);
    if (dst->channels == 3)
        return nppiFilterMedian_8u_C3R_Ctx(roi(src, r), (int)src->stride, dst->data, (int)dst->stride,
                                           size, mask, anchor, buf, *n);
    return nppiFilterMedian_8u_C4R_Ctx(roi(src, r), (int)src->stride, dst->data, (int)dst->stride,
                                       size, mask, anchor, buf, *n);
}

extern "C" jf_status jf_npp_median(jf_context *ctx, const jf_image *padded, int count, int k,
                                   jf_image *dst, int warmup, int reps, double *ms)
{
    NppStreamContext n;
    NppiSize size = {dst->width, dst->height}, mask = {k, k};
    Npp32u bytes = 0;
    NppStatus s;
    median_arg arg = {NULL};
    jf_status st;
    if ((st = npp_context(ctx, &n)) != JF_OK)
        return st;
    if (dst->sample == JF_SAMPLE_U16)
        s = dst->channels == 1   ? nppiFilterMedianGetBufferSize_16u_C1R_Ctx(size, mask, &bytes, n)
            : dst->channels == 3 ? nppiFilterMedianGetBufferSize_16u_C3R_Ctx(size, mask, &bytes, n)
                                 : nppiFilterMedianGetBufferSize_16u_C4R_Ctx(size, mask, &bytes, n);
    else
        s = dst->channels == 1   ? nppiFilterMedianGetBufferSize_8u_C1R_Ctx(size, mask, &bytes, n)
            : dst->channels == 3 ? nppiFilterMedianGetBufferSize_8u_C3R_Ctx(size, mask, &bytes, n)
                                 : nppiFilterMedianGetBufferSize_8u_C4R_Ctx(size, mask, &bytes, n);
    if (s < 0)
        return npp_fail("nppiFilterMedianGetBufferSize", s);
    JF_CUDA_TRY(cudaMalloc((void **)&arg.buffer, bytes ? bytes : 1));
    st = timed(ctx, padded, count, k, dst, warmup, reps, ms, call_median, &arg,
               dst->sample == JF_SAMPLE_U16 ? "nppiFilterMedian_16u" : "nppiFilterMedian_8u");
    cudaFree(arg.buffer);
    return st;
}

typedef struct filter_arg {
    const Npp32f *d_kernel;
} filter_arg;

static NppStatus call_filter(const jf_image *src, int k, jf_image *dst, void *arg,
                             const NppStreamContext *n)
{
    const int r = k / 2;
    NppiSize size = {dst->width, dst->height}, ksize = {k, k};
    NppiPoint anchor = {r, r};
    const Npp32f *w = ((filter_arg *)arg)->d_kernel;
    Npp16u *d16 = (Npp16u *)dst->data;
    if (dst->sample == JF_SAMPLE_U16)
        return dst->channels == 1
                   ? nppiFilter32f_16u_C1R_Ctx(roi16(src, r), (int)src->stride, d16, (int)dst->stride,
                                               size, w, ksize, anchor, *n)
               : dst->channels == 3
                   ? nppiFilter32f_16u_C3R_Ctx(roi16(src, r), (int)src->stride, d16, (int)dst->stride,
                                               size, w, ksize, anchor, *n)
                   : nppiFilter32f_16u_C4R_Ctx(roi16(src, r), (int)src->stride, d16, (int)dst->stride,
                                               size, w, ksize, anchor, *n);
    if (dst->channels == 1)
        return nppiFilter32f_8u_C1R_Ctx(roi(src, r), (int)src->stride, dst->data, (int)dst->stride,
                                        size, w, ksize, anchor, *n);
    if (dst->channels == 3)
        return nppiFilter32f_8u_C3R_Ctx(roi(src, r), (int)src->stride, dst->data, (int)dst->stride,
                                        size, w, ksize, anchor, *n);
    return nppiFilter32f_8u_C4R_Ctx(roi(src, r), (int)src->stride, dst->data, (int)dst->stride,
                                    size, w, ksize, anchor, *n);
}

extern "C" jf_status jf_npp_filter(jf_context *ctx, const jf_image *padded, int count, int k,
                                   const float *weights, jf_image *dst, int warmup, int reps,
                                   double *ms)
{
    const int n = k * k;
    float *rev = (float *)malloc(sizeof(float) * (size_t)n);
    filter_arg arg = {NULL};
    jf_status st;
    int i;
    if (!rev)
        return jf_fail(JF_ERR_NOMEM, "out of memory");
    for (i = 0; i < n; i++) /* NPP's kernel is stored reversed (convolution) */
        rev[i] = weights[n - 1 - i];
    if (cudaMalloc((void **)&arg.d_kernel, sizeof(float) * (size_t)n) != cudaSuccess ||
        cudaMemcpy((void *)arg.d_kernel, rev, sizeof(float) * (size_t)n, cudaMemcpyHostToDevice) !=
            cudaSuccess) {
        free(rev);
        cudaFree((void *)arg.d_kernel);
        return jf_cuda_fail("cudaMalloc/cudaMemcpy(NPP kernel)", __FILE__, __LINE__, cudaGetLastError());
    }
    free(rev);
    st = timed(ctx, padded, count, k, dst, warmup, reps, ms, call_filter, &arg,
               dst->sample == JF_SAMPLE_U16 ? "nppiFilter32f_16u" : "nppiFilter32f_8u");
    cudaFree((void *)arg.d_kernel);
    return st;
}
