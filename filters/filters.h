/* Internal to filters/: argument checks and helpers every operation shares. */
#ifndef JF_FILTERS_FILTERS_H
#define JF_FILTERS_FILTERS_H

#include "jetfilter.h"

#if defined(__CUDACC__)
#define JF_HD __host__ __device__ __forceinline__
#else
#define JF_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A readable host image: data, sizes and stride make sense, samples of 8
 * or 16 bits.  `fn` names the calling function in the error. */
jf_status jf_check_host_image(const char *fn, const char *what, const jf_image *img);

/* Does this call run on the GPU?  (CUDA context and a variant other than cpu) */
int jf_use_gpu(const jf_context *ctx, jf_variant variant);

/* An image an operation may read or write: host memory always; device,
 * mapped or managed memory only when the call runs on the GPU. */
jf_status jf_check_image(const char *fn, const char *what, const jf_image *img, int on_gpu);

/* The same for the operations that also take float32 samples. */
jf_status jf_check_image_any(const char *fn, const char *what, const jf_image *img, int on_gpu);

/* The sample type is 8 or 16 bits (float32 refused, naming the operations
 * that take it), its data and stride aligned to it. */
jf_status jf_check_sample(const char *fn, const jf_image *img);

/* For what takes 8-bit samples only: JF_ERR_UNSUPPORTED naming the depth,
 * with `why` (may be NULL) appended to the reason. */
jf_status jf_check_8bit(const char *fn, const jf_image *img, const char *why);

/* Decide which variant, kernel and block run a call of family `f` on src
 * (filters/resolve.h), and record it in the context for jf_plan_run's
 * result.  `asked` is the caller's variant, bx x by its block (0 x 0: the
 * variant's own); `rank1`: the weights are rank 1; `weights`: the k x k
 * weights of a convolution (else NULL).  The CPU backend, or `asked` CPU,
 * resolves to a CPU row. */
struct jf_family;
struct jf_choice;
jf_status jf_choose(jf_context *ctx, const struct jf_family *f, const char *fn, const jf_image *src,
                    int k, int rank1, const float *weights, jf_variant asked, int bx, int by,
                    struct jf_choice *out);

/* A CPU row's call of src into dst (the weights left NULL), and running
 * the CPU row the resolver chose (choice->row->cpu) on `call`, timed
 * and recorded for --stats as `family` with the row's stat ("cpu" unless
 * the row names another).  JF_ERR_INTERNAL where the row has no CPU
 * implementation. */
struct jf_cpu_call;
struct jf_cpu_call jf_cpu_call_of(jf_context *ctx, const jf_image *src, jf_image *dst, int k,
                                  jf_border border);
jf_status jf_cpu_row_run(const struct jf_choice *choice, const char *family,
                         struct jf_cpu_call *call);

/* An odd kernel size in 1..max. */
jf_status jf_check_ksize(const char *fn, int ksize, int max);

/* A CPU row loop compiled twice on x86-64, for AVX2 and the baseline, the
 * loader picking the copy the CPU runs (AVX2 without FMA: float sums keep
 * their bits); elsewhere (NEON on the Nano) one version.  Integer loops
 * (min/max networks: no rounding to keep) also get an AVX-512 copy
 * (x86-64-v4: twice the lanes and twice the registers, so a network's
 * values stay in them) where GCC dispatches to it (12 and later). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 6
#define JF_WIDE_SIMD __attribute__((target_clones("avx2", "default")))
#if __GNUC__ >= 12 /* 11 names x86-64-v4 but has no dispatcher for it */
#define JF_WIDEST_INT_SIMD __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define JF_WIDEST_INT_SIMD JF_WIDE_SIMD
#endif
#else
#define JF_WIDE_SIMD
#define JF_WIDEST_INT_SIMD
#endif

/* A border mode this library knows. */
jf_status jf_check_border(const char *fn, jf_border border);

/* Samples left out of windows (the median, the weighted mean): a mode this
 * library knows, NaN on float32 only, a value that is a level of src's
 * type; and host images, as those filters run on the CPU. */
jf_status jf_check_ignore(const char *fn, const jf_image *src, const jf_image *dst, int ignore,
                          double value);

/* The CPU filters read their source while they write the output: when the
 * two share memory (a caller filtering in place), *src is pointed at a copy
 * in ctx's pad scratch; else left as it is. */
jf_status jf_source_apart(jf_context *ctx, const jf_image **src, const jf_image *dst,
                          jf_image *copy);

#ifdef __cplusplus
}
#endif

/*
 * Source index for position i (may be outside 0..n-1) of a row of n pixels,
 * or -1 for "zero".  Reflect and mirror repeat with period 2n and 2n-2, so
 * pads wider than the image (k = 63 on a 7x5 image) stay defined, as in scipy.
 */
JF_HD int jf_border_index(int i, int n, jf_border border)
{
    int p;
    if (i >= 0 && i < n)
        return i;
    switch (border) {
    case JF_BORDER_ZERO:
        return -1;
    case JF_BORDER_REPLICATE:
        return i < 0 ? 0 : n - 1;
    case JF_BORDER_REFLECT:
        p = 2 * n;
        i %= p;
        if (i < 0) i += p;
        return i < n ? i : p - 1 - i;
    case JF_BORDER_MIRROR:
    default:
        if (n == 1)
            return 0;
        p = 2 * n - 2;
        i %= p;
        if (i < 0) i += p;
        return i < n ? i : p - i;
    }
}

/* Round half away from zero and saturate to 0..255, the convolution's one
 * conversion rule on every backend.  Clamped first, then rounded: no
 * branches, so a loop of it vectorises (NaN becomes 0). */
JF_HD unsigned char jf_saturate_round(float v)
{
    v = v > 0.0f ? v : 0.0f;
    v = v < 255.0f ? v : 255.0f;
    return (unsigned char)(int)(v + 0.5f);
}

/* The same rule at 16 bits: 0..65535 (float holds every level exactly). */
JF_HD unsigned short jf_saturate_round16(float v)
{
    v = v > 0.0f ? v : 0.0f;
    v = v < 65535.0f ? v : 65535.0f;
    return (unsigned short)(int)(v + 0.5f);
}

#endif
