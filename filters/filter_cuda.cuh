/* Internal to the CUDA filters: the steps every filter kernel shares. */
#ifndef JF_FILTERS_FILTER_CUDA_CUH
#define JF_FILTERS_FILTER_CUDA_CUH

#include "core/gpu.cuh"
#include "filters/tile.cuh"

/* Threads an SM holds at most, for launch bounds that ask for several
 * blocks an SM: 1024 on Turing (7.5), 1536 on 8.6, 8.7 (the Orin), 8.9 and
 * 12.x, 2048 elsewhere (the Nano's 5.3 included).  A bound past it is
 * ignored with a warning. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define JF_SM_THREADS 1024
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || \
                                 __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
#define JF_SM_THREADS 1536
#else
#define JF_SM_THREADS 2048
#endif

/* A filter's input on the device: the image as the tiled kernels read it
 * (the border fused into their tile loads, tile.cuh), and what is needed
 * to make padded planes for the kernels that read each window straight
 * from global memory (jf_gpu_filter_planes). */
typedef struct jf_filter_in {
    jf_tile_src src;
    jf_dview view;
    const jf_image *shape;
} jf_filter_in;

/* Select the device, get the input onto it and find where the output goes;
 * `r` is the radius the kernels pad by (k / 2).  Nothing is padded. */
jf_status jf_gpu_filter_setup(jf_context *ctx, const jf_image *src, const jf_image *dst, int r,
                              jf_border border, jf_filter_in *in, jf_dview *out);

/* A family's CUDA entry through its variant rows: the device selected, the
 * input onto it, the chosen row's launch with `call` (its k, weights and
 * arguments as the caller set them; ctx, input and output set here), the
 * output back or left queued.  `what` names the family in errors. */
struct jf_gpu_call;
jf_status jf_gpu_filter_rows(jf_context *ctx, const jf_image *src, jf_image *dst, jf_border border,
                             struct jf_gpu_call call, const char *what);

/* Padded planes of the input (the pad pass), for the kernels that read
 * windows from global memory: the global variants, the impulse filters
 * and the untiled histogram median. */
jf_status jf_gpu_filter_planes(jf_context *ctx, const jf_filter_in *in, jf_dview *planes,
                               int *plane_rows);

/* After a filter kernel's launch: check the launch, then stop its timer with
 * the seed's byte counts: the input read once (the padded planes for the
 * kernels that read them, `padded`), the output written once. */
jf_status jf_gpu_filter_done(jf_context *ctx, int id, const char *kernel, const char *name,
                             const char *variant, int k, const jf_image *shape, int padded);

/* Padded planes in the PAD slot: `channels` planes of (w+2r) x (h+2r)
 * samples of `sample`'s type (pad_cuda.cu). */
jf_status jf_gpu_pad_planes(jf_context *ctx, const jf_dview *src, int w, int h, int ch,
                            jf_sample sample, int radius, jf_border border, jf_dview *planes,
                            int *plane_rows);

#endif
