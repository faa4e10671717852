/* Internal to filters/denoise/: noise estimation and the denoisers of
 * camera noise (non-local means, bilateral, guided), their float planes and
 * the CPU and CUDA implementations. */
#ifndef JF_FILTERS_DENOISE_H
#define JF_FILTERS_DENOISE_H

#include "jetfilter.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JF_NLM_MAX_SEARCH 35
#define JF_NLM_MAX_PATCH 9
#define JF_BILATERAL_MAX_KSIZE 31
#define JF_GUIDED_MAX_KSIZE 63

/* Float planes: `channels` planes of `height` rows of `stride` floats, one
 * after another (plane c starts at data + c * stride * rows_alloc). */
typedef struct jf_planes {
    float *data;
    int width, height, channels;
    size_t stride;     /* floats from one row to the next */
    size_t plane;      /* floats from one plane to the next */
} jf_planes;

static inline float *jf_plane_row(const jf_planes *p, int c, int y)
{
    return p->data + (size_t)c * p->plane + (size_t)y * p->stride;
}

/* How the samples become the planes a denoiser works on, and back. */
typedef struct jf_plane_map {
    int decorrelate;   /* RGB to luma and opponent channels (jf_rgb_to_dec) */
    int vst;           /* Poisson-Gaussian noise stabilised (generalised Anscombe) */
    float a, b;        /* its model: variance = a * value + b, in levels */
    int colour;        /* channels compared and filtered: 1 or 3; a 2nd or 4th is alpha, kept */
} jf_plane_map;

/* What the non-local means runs with, resolved from the parameters and the
 * image's noise (denoise.c). */
typedef struct jf_nlm_params {
    int search, patch;
    float sigma;      /* noise level in the planes (1 after the Anscombe transform) */
    float h;          /* the weights' width, in the planes' levels */
    float keep;       /* the share of the pixel's own value kept in the result, 0 .. 1 */
} jf_nlm_params;

typedef struct jf_bilateral_params {
    int ksize;
    float sigma_color, sigma_space; /* levels, pixels */
} jf_bilateral_params;

typedef struct jf_guided_params {
    int ksize;
    float eps;        /* levels squared */
} jf_guided_params;

/* ---- the operations (denoise.c), as the table runs them ---- */
struct jf_op_plan;
struct jf_op_note;
jf_status jf_op_nlmeans(jf_context *ctx, const struct jf_op_plan *p, jf_image *src, jf_image *dst,
                        struct jf_op_note *note);
jf_status jf_op_bilateral(jf_context *ctx, const struct jf_op_plan *p, jf_image *src, jf_image *dst,
                          struct jf_op_note *note);
jf_status jf_op_guided(jf_context *ctx, const struct jf_op_plan *p, jf_image *src, jf_image *dst,
                       struct jf_op_note *note);
jf_status jf_op_auto(jf_context *ctx, const struct jf_op_plan *p, jf_image *src, jf_image *dst,
                     struct jf_op_note *note);

/* The spatial weights of the bilateral filter's circular window of radius r
 * ((2r+1)^2 floats, 0 outside the circle). */
void jf_bilateral_space(int r, float sigma_space, float *w);

/* Shared memory of the tiled kernels' blocks (denoise_variants.c): for
 * `colour` channels, reach k, a block of bx x by threads. */
size_t jf_nlm_tile_smem(int colour, int k, int bx, int by);
size_t jf_bilateral_tile_smem(int colour, int k, int bx, int by);

/* ---- the estimate (estimate.c) ---- */
/* The Gaussian level and the Poisson-Gaussian model of a host image. */
jf_status jf_estimate_host(jf_context *ctx, const jf_image *img, jf_noise_estimate *out);

/* ---- the CPU ---- */
/* src -> padded planes (`pad` each side, by `border`), through `map`. */
jf_status jf_planes_from_image(jf_context *ctx, const jf_image *src, int pad, jf_border border,
                               const jf_plane_map *map, jf_planes *out, int scratch_slot);
/* The planes' inner width x height (offset `pad`) back into dst's samples. */
void jf_planes_to_image(jf_context *ctx, const jf_planes *p, int pad, const jf_plane_map *map,
                        const jf_image *src, jf_image *dst);
jf_status jf_nlmeans_cpu(jf_context *ctx, const jf_planes *in, int pad, const jf_nlm_params *prm,
                         jf_planes *out);
jf_status jf_bilateral_cpu(jf_context *ctx, const jf_image *src, jf_image *dst,
                           const jf_bilateral_params *prm, jf_border border);
jf_status jf_guided_cpu(jf_context *ctx, const jf_image *src, jf_image *dst,
                        const jf_guided_params *prm, jf_border border);

/* ---- CUDA (denoise_cuda.cu): the variant, block and shared memory as the
 * resolver chose them ---- */
struct jf_choice;
/* The GPU rows' launches (denoise_cuda.cu; jf_variant_row.run). */
struct jf_gpu_call;
jf_status jf_nlm_tile_run(const struct jf_gpu_call *call);
jf_status jf_nlm_global_run(const struct jf_gpu_call *call);
jf_status jf_bilateral_tile_run(const struct jf_gpu_call *call);
jf_status jf_bilateral_global_run(const struct jf_gpu_call *call);

jf_status jf_nlmeans_cuda(jf_context *ctx, const jf_image *src, jf_image *dst,
                          const jf_nlm_params *prm, const jf_plane_map *map, jf_border border,
                          const struct jf_choice *choice);
jf_status jf_bilateral_cuda(jf_context *ctx, const jf_image *src, jf_image *dst,
                            const jf_bilateral_params *prm, jf_border border,
                            const struct jf_choice *choice);
jf_status jf_guided_cuda(jf_context *ctx, const jf_image *src, jf_image *dst,
                         const jf_guided_params *prm, jf_border border, const struct jf_choice *choice);

#ifdef __cplusplus
}
#endif
#endif
