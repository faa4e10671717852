/*
 * jetfilter/filters.h - the operations as functions: padding, median,
 * convolution, impulse filters, metrics, noise.
 * Part of the public API; include <jetfilter.h>, which includes every part.
 */
#ifndef JETFILTER_FILTERS_H
#define JETFILTER_FILTERS_H

#include "jetfilter/base.h"
#include "jetfilter/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Operations                                                                */
/* ------------------------------------------------------------------------ */

/** How pixels outside the image are made up. */
typedef enum jf_border {
    JF_BORDER_ZERO = 0,  /**< 000|abc|000 */
    JF_BORDER_REPLICATE, /**< aaa|abc|ccc  (OpenCV BORDER_REPLICATE, scipy 'nearest') */
    JF_BORDER_REFLECT,   /**< cba|abc|cba  edge repeated (OpenCV BORDER_REFLECT, scipy 'reflect') */
    JF_BORDER_MIRROR,    /**< cb|abc|ba    edge not repeated (OpenCV BORDER_REFLECT_101, scipy 'mirror') */
    JF_BORDER_COUNT
} jf_border;

JF_API const char *jf_border_name(jf_border border);

/** Which implementation runs an operation. */
typedef enum jf_variant {
    JF_VARIANT_AUTO = 0, /**< the fastest known for the backend, device, size and k */
    JF_VARIANT_CPU,      /**< the CPU reference */
    JF_VARIANT_GLOBAL,   /**< CUDA, reads global memory directly */
    JF_VARIANT_SHARED,   /**< CUDA, shared-memory tiles */
    JF_VARIANT_FAST,     /**< CUDA, the fastest specialised kernel */
    JF_VARIANT_COUNT
} jf_variant;

JF_API const char *jf_variant_name(jf_variant variant);

/** Pad `src` by `radius` pixels on every side into `dst`
 *  ((width+2r) x (height+2r), same channels and sample type).  Errors: JF_ERR_ARG (radius
 *  outside 0..4096, bad images), JF_ERR_LIMIT, JF_ERR_NOMEM, JF_ERR_CUDA. */
JF_API jf_status jf_pad(jf_context *ctx, const jf_image *src, int radius,
                 jf_border border, jf_image *dst);

#define JF_MEDIAN_MAX_KSIZE 255

/** Samples the median (since 1.12) and the convolutions of weights of zero
 *  or more (since 1.13) leave out of their windows. */
typedef enum jf_ignore {
    JF_IGNORE_NONE = 0, /**< every sample counts */
    JF_IGNORE_VALUE,    /**< samples equal to `ignore_value` (0: depth holes; for
                             float32, -0 as well as +0) */
    JF_IGNORE_NAN,      /**< NaN samples (float32 only) */
    JF_IGNORE_COUNT
} jf_ignore;

typedef struct jf_median_options {
    size_t size;       /**< sizeof(jf_median_options): use jf_median_defaults() */
    int ksize;         /**< odd, 1 .. JF_MEDIAN_MAX_KSIZE (default 3) */
    jf_border border;  /**< default JF_BORDER_REPLICATE */
    jf_variant variant; /**< default AUTO */
    int block_x, block_y; /**< CUDA block shape; 0, 0 (default): the variant's own.
                               block_x a multiple of 4 (of 32 for conflict-free shared
                               memory); a shape the device cannot launch is JF_ERR_ARG */
    int reserved0;     /**< ignored (1.0-1.11's trailing padding) */
    jf_ignore ignore;  /**< samples left out (since 1.12; default none): each output is
                            the median of the window's other samples (the lower middle
                            one of an even count), or the sample itself where the window
                            holds no other.  The border's samples count as any other */
    int reserved1;     /**< zero */
    double ignore_value; /**< the value JF_IGNORE_VALUE leaves out (default 0); a level
                              of the image's type */
} jf_median_options;

JF_API jf_median_options jf_median_defaults(void);
#define JF_MEDIAN_OPTIONS_INIT \
    {sizeof(jf_median_options), 3, JF_BORDER_REPLICATE, JF_VARIANT_AUTO, 0, 0, 0, JF_IGNORE_NONE, 0, 0.0}

/** k x k median of every channel; `dst` has the size and sample type of
 *  `src`.  8 and 16 bits, and float32 (since 1.12) ordered as NumPy sorts:
 *  -inf < ... < -0 < +0 < ... < +inf < NaN, so a window's median equals
 *  numpy.sort(window)[k*k // 2].  On the GPU float images take the
 *  `global` variant (`auto` picks it; `shared` is 8-bit only, `fast` 8 and
 *  16 bits: JF_ERR_UNSUPPORTED).  With `ignore` the CPU runs it, on host
 *  images (mapped and managed memory included).  Errors:
 *  JF_ERR_ARG (options, images, a variant the backend lacks, a block the
 *  device cannot launch), JF_ERR_UNSUPPORTED (sample type, a variant that
 *  does not exist for this k), JF_ERR_LIMIT, JF_ERR_NOMEM, JF_ERR_CUDA. */
JF_API jf_status jf_median(jf_context *ctx, const jf_image *src, jf_image *dst,
                    const jf_median_options *opt);

#define JF_CONV_MAX_KSIZE 63

typedef struct jf_conv_options {
    size_t size;           /**< sizeof(jf_conv_options): use jf_conv_defaults() */
    int ksize;             /**< odd, 1 .. JF_CONV_MAX_KSIZE (no default: 0 is an error) */
    const float *weights;  /**< ksize*ksize, row-major, applied as correlation; read
                                during the call only (copied where kept) */
    jf_border border;      /**< default JF_BORDER_REPLICATE */
    jf_variant variant;    /**< default AUTO */
    int block_x, block_y;  /**< CUDA block shape, as for the median */
    jf_ignore ignore;      /**< samples left out (since 1.13; default none): each output
                                is the weighted mean of the window's other samples,
                                sum(w v) / sum(w) over them (normalised convolution), or
                                the sample itself where no other has weight; weights must
                                be zero or more (box, Gaussian).  The border's samples
                                count as any other */
    int reserved0;         /**< zero */
    double ignore_value;   /**< the value JF_IGNORE_VALUE leaves out (default 0), as for
                                the median */
} jf_conv_options;

JF_API jf_conv_options jf_conv_defaults(void);
#define JF_CONV_OPTIONS_INIT \
    {sizeof(jf_conv_options), 0, NULL, JF_BORDER_REPLICATE, JF_VARIANT_AUTO, 0, 0, JF_IGNORE_NONE, 0, 0.0}

/**
 * Correlation with a k x k float kernel:
 *   out(x,y) = sat( round( sum_{i,j} w[j][i] * in(x+i-r, y+j-r) ) ),  r = k/2
 * accumulated in float, rounded half away from zero and saturated to 0..255
 * (0..65535 for 16-bit images; on the GPU those take the `global` variant,
 * as for the median).
 * Rank-1 kernels (box, Gaussian) take a separable path whose result differs
 * from the direct sum by at most 1 in the last place.  With `ignore` the
 * weighted mean of the valid samples is summed in double on the CPU, on
 * host images (mapped and managed memory included), and converted as
 * above.  Errors as jf_median,
 * plus JF_ERR_ARG for weights that are NULL, not finite or larger than 1e30
 * in magnitude (so that every sum stays finite in float), and for negative
 * weights with `ignore`.
 */
JF_API jf_status jf_convolve(jf_context *ctx, const jf_image *src, jf_image *dst,
                      const jf_conv_options *opt);

#define JF_IMPULSE_MAX_KSIZE 31

/** Options of the impulse-noise filters (adaptive and switching median). */
typedef struct jf_impulse_options {
    size_t size;        /**< sizeof(jf_impulse_options): use jf_impulse_defaults() */
    int max_ksize;      /**< largest window, odd, 3 .. JF_IMPULSE_MAX_KSIZE (default 7);
                             0: chosen from the image's estimated impulse density
                             (jf_impulse_density; the default of jf_impulse_auto) */
    jf_border border;   /**< default JF_BORDER_REPLICATE */
    jf_variant variant; /**< AUTO, CPU or GLOBAL (default AUTO) */
    int refine;         /**< switching median: 1 adds the smoothing pass (default 0) */
} jf_impulse_options;

JF_API jf_impulse_options jf_impulse_defaults(void);
#define JF_IMPULSE_OPTIONS_INIT {sizeof(jf_impulse_options), 7, JF_BORDER_REPLICATE, JF_VARIANT_AUTO, 0}

/**
 * Adaptive median (H. Hwang, R. A. Haddad, "Adaptive median filters: new
 * algorithms and results", IEEE Trans. Image Processing 4(4), 1995; the form
 * of Gonzalez and Woods): for each sample z, with zmin, zmed, zmax the
 * minimum, median and maximum of the k x k window, k = 3, 5, ... max_ksize:
 * the first k where zmin < zmed < zmax gives z if zmin < z < zmax (z is
 * not an impulse: kept) and zmed otherwise; if no k does, zmed of the
 * largest window.  Every channel on its own.  It also flattens clean local
 * extremes (fine detail): for salt-and-pepper noise the switching median is
 * better.  With opt->max_ksize 0 the largest window follows the estimated
 * density (5 below 15%, 7 below 25%, 9 below 45%, 15, 19, 23 in steps of
 * 10%, 31 from 75%: the smallest within 0.05 dB of the best in the sweep of
 * benchmarks/RESULTS.md), so that dense noise is bridged; on a CUDA context
 * that waits for the GPU once per image.  Errors as jf_median.
 */
JF_API jf_status jf_adaptive_median(jf_context *ctx, const jf_image *src, jf_image *dst,
                             const jf_impulse_options *opt);

/**
 * Switching median for salt-and-pepper noise (the decision rule of
 * Esakkirajan et al., "Removal of high density salt and pepper noise through
 * modified decision based unsymmetric trimmed median filter", IEEE Signal
 * Processing Letters 18(5), 2011, with a window that grows as in Hwang and
 * Haddad): a sample is an impulse when it is 0 or 255; other samples are
 * kept.  An impulse becomes the median of the samples of its window that are
 * not 0 or 255, in the smallest window (3, 5, ... max_ksize) that has at
 * least one; the median of an even count is the mean of the two middle
 * values, rounded half up.  When even the largest window has none (a
 * saturated region, or noise beyond what max_ksize can bridge), the value
 * that fills more than half of that window (0 or 255).  8-bit images
 * only (JF_ERR_UNSUPPORTED otherwise), as for the adaptive median and the
 * density estimate.
 * With opt->refine, a second pass then sets each impulse to the mean of the
 * first pass's 3 x 3 neighbourhood inside the image, rounded half up: the
 * first pass's estimates rest on few clean samples at high densities, and
 * the mean of nine of them is smoother (+0.1 dB at 5% density, +1.2 at 50%,
 * +1.6 at 70% on the sample photos with a window of 7 at most;
 * benchmarks/RESULTS.md).  Every channel on its own.  With opt->max_ksize 0
 * the window follows the estimated density as in jf_impulse_auto.  Errors as
 * jf_median.
 */
JF_API jf_status jf_switching_median(jf_context *ctx, const jf_image *src, jf_image *dst,
                              const jf_impulse_options *opt);

/**
 * Estimated fraction of samples carrying salt-and-pepper impulses.  An
 * impulse candidate is a 0 or a 255 with a different value somewhere in its
 * 3 x 3 neighbourhood (the inside of a saturated region is not noise);
 * salt and pepper are taken to be equally frequent, and natural saturation
 * is usually one-sided (crushed shadows or clipped highlights), so the
 * estimate is twice the rarer of the two counts, over all samples.  Clean
 * photos estimate 0 to 0.4%; an image whose noise is all salt or all pepper
 * estimates near 0 (call jf_switching_median yourself for those).  A device
 * image on a CUDA context is counted on the GPU (and the call waits for
 * it); a host image on the CPU.
 */
JF_API jf_status jf_impulse_density(jf_context *ctx, const jf_image *img, double *density);

/** What jf_impulse_auto decided for one image. */
typedef struct jf_impulse_choice {
    double density; /**< jf_impulse_density's estimate */
    int filtered;   /**< 0: below JF_IMPULSE_CLEAN_DENSITY, copied unchanged;
                         1: the switching median; 2: it and the smoothing pass */
    int max_ksize;  /**< the switching median's largest window (0 when not filtered) */
} jf_impulse_choice;

/** Estimated densities below this are taken as a clean image. */
#define JF_IMPULSE_CLEAN_DENSITY 0.001
/** From this estimated density on, jf_impulse_auto always smooths what it
 *  replaced (refine); below it, only where the image's own samples say the
 *  pass helps (it helps smooth photos and blurs fine texture). */
#define JF_IMPULSE_REFINE_DENSITY 0.25

/**
 * Salt-and-pepper removal that needs no settings: estimates the image's
 * impulse density (jf_impulse_density), copies the image unchanged when it
 * is below JF_IMPULSE_CLEAN_DENSITY, and otherwise runs the switching median
 * with the largest window that the measurements favour at that density when
 * opt->max_ksize is 0 (3 below 7.5%, 5 below 25%, 9 below 45%, 11 below
 * 55%, 15 below 65%, 23 below 75%, then 31; the sweep is in
 * benchmarks/RESULTS.md),
 * or opt->max_ksize when set.  The smoothing pass (refine) runs from
 * JF_IMPULSE_REFINE_DENSITY on; below, only when a leave-one-out test says
 * it helps this image: clean samples (up to 20 000) are hidden and estimated
 * from their neighbours with and without the pass, and the pass must make
 * the squared error 3% smaller (a device image is copied to the host for
 * that test).  `choice`
 * (may be NULL) says what was done.  The estimate is needed on the host
 * before the filter starts, so on a CUDA context this call waits for the
 * GPU once per image.
 */
JF_API jf_status jf_impulse_auto(jf_context *ctx, const jf_image *src, jf_image *dst,
                          const jf_impulse_options *opt, jf_impulse_choice *choice);

typedef enum jf_kernel_preset {
    JF_KERNEL_BOX = 0, /**< all 1/k^2 */
    JF_KERNEL_GAUSS,   /**< sampled Gaussian, normalised to sum 1 */
    JF_KERNEL_SHARPEN, /**< 2*identity - box (unsharp mask with a box blur) */
    JF_KERNEL_LAPLACE, /**< 3x3 [0 1 0; 1 -4 1; 0 1 0] */
    JF_KERNEL_COUNT
} jf_kernel_preset;

/** A k x k weight matrix. */
typedef struct jf_kernel {
    int ksize;
    float *weights; /**< ksize*ksize, row-major, owned */
} jf_kernel;

/** Build a preset.  GAUSS: ksize 0 means 2*ceil(3*sigma)+1; sigma <= 0 means
 *  0.3*((ksize-1)/2 - 1) + 0.8 (OpenCV's rule).  Others need an odd ksize
 *  (LAPLACE only 3; 0 means 3).  Errors: JF_ERR_ARG, JF_ERR_NOMEM. */
JF_API jf_status jf_kernel_make(jf_kernel_preset preset, int ksize, double sigma,
                         jf_kernel *out);

/** Read weights from a text file: k lines of k numbers (odd k), '#' starts
 *  a comment.  Errors (JF_ERR_ARG, JF_ERR_IO, JF_ERR_NOMEM) name the file
 *  and line. */
JF_API jf_status jf_kernel_load(const char *path, jf_kernel *out);

/** The same from text in memory; `name` stands for the file in errors. */
JF_API jf_status jf_kernel_parse(const char *text, size_t size, const char *name, jf_kernel *out);

JF_API void jf_kernel_free(jf_kernel *kernel);

/**
 * PSNR = 10 log10(L^2 / MSE), MSE over every channel of every pixel, L = 255
 * for 8-bit images, 65535 for 16-bit ones and 1 for float32 (both images of
 * one type).  Identical images give +INFINITY (print it as "inf"); a NaN in
 * a float image gives NaN.  `mse` may be NULL.  Waits for the result.
 * Errors: JF_ERR_ARG (shapes or types differ), JF_ERR_NOMEM, JF_ERR_CUDA.
 */
JF_API jf_status jf_psnr(jf_context *ctx, const jf_image *a, const jf_image *b,
                  double *psnr_db, double *mse);

/** jf_psnr with the data range L given (0: the type's, as jf_psnr), e.g. a
 *  depth map's metres; scikit-image's peak_signal_noise_ratio(data_range=L).
 *  float32 images, and ranges other than the type's, are measured on the
 *  CPU (device images through a host copy).  Since 1.12.  Errors as
 *  jf_psnr, plus JF_ERR_ARG for a range that is not a positive number. */
JF_API jf_status jf_psnr_range(jf_context *ctx, const jf_image *a, const jf_image *b,
                               double data_range, double *psnr_db, double *mse);

/**
 * Mean SSIM of Wang et al. 2004 (11x11 Gaussian window, sigma 1.5, K1 0.01,
 * K2 0.03, L 255, 65535 or 1 by type, population statistics) over the region
 * where the window fits; for several channels the mean of the per-channel
 * values.  Matches scikit-image structural_similarity(gaussian_weights=True,
 * sigma=1.5, use_sample_covariance=False, data_range=L).  Both sides must be >= 11.
 * Waits for the result.  Errors as jf_psnr.
 */
JF_API jf_status jf_ssim(jf_context *ctx, const jf_image *a, const jf_image *b,
                  double *ssim);

/** jf_ssim with the data range L given (0: the type's), as jf_psnr_range
 *  (since 1.12). */
JF_API jf_status jf_ssim_range(jf_context *ctx, const jf_image *a, const jf_image *b,
                               double data_range, double *ssim);

typedef enum jf_noise_kind {
    JF_NOISE_SALT_PEPPER = 0, /**< amount = fraction of pixels set to 0 or the top level
                                   (255, or 65535 at 16 bits) */
    JF_NOISE_GAUSSIAN,        /**< amount = standard deviation in 8-bit levels (scaled by
                                   257 at 16 bits: the same visible noise at either depth) */
    JF_NOISE_COUNT
} jf_noise_kind;

typedef struct jf_noise_options {
    size_t size;   /**< sizeof(jf_noise_options): use jf_noise_defaults() */
    jf_noise_kind kind; /**< default salt and pepper */
    double amount; /**< default 0.05 */
    uint64_t seed; /**< same seed, same image: same noise, on every platform (default 1) */
} jf_noise_options;

JF_API jf_noise_options jf_noise_defaults(void);
#define JF_NOISE_OPTIONS_INIT {sizeof(jf_noise_options), JF_NOISE_SALT_PEPPER, 0.05, 1}

/** Add noise in place (host, mapped or managed images, on the CPU; 8 or 16
 *  bits).  Errors: JF_ERR_ARG. */
JF_API jf_status jf_add_noise(jf_context *ctx, jf_image *img, const jf_noise_options *opt);

/** What an image's noise is (since 1.8).  Levels are the image's own
 *  (0..255, or 0..65535 at 16 bits). */
typedef struct jf_noise_estimate {
    size_t size;            /**< sizeof(jf_noise_estimate) */
    double sigma;           /**< standard deviation of additive Gaussian noise that
                                 fits it best, in levels */
    double poisson_a;       /**< signal-dependent noise: variance = a * value + b (levels
                                 and levels squared; Foi et al. 2008's Poisson-Gaussian
                                 model), fitted over the image's intensities */
    double poisson_b;
    int signal_dependent;   /**< 1: the noise grows with the signal enough that the
                                 denoisers stabilise its variance first (Anscombe) */
    double impulse_density; /**< salt-and-pepper density: samples at 0 or the top that stand
                                 apart from their neighbours (clipped Gaussian noise does
                                 not count), twice the rarer of the two */
    int patches;            /**< the weakly textured patches the estimate rests on */
    int reserved[7];        /**< zero */
} jf_noise_estimate;

/**
 * Estimate the noise of an image, with no reference.  The Gaussian level:
 * principal components of its 7x7 patches (Chen, Zhu and Heng, ICCV 2015:
 * the noise variance is where the mean of the smallest eigenvalues meets
 * their median), over the patches whose gradient energy pure noise of that
 * level would give (Liu, Tanaka and Okutomi 2013's selection, iterated),
 * leaving out patches with a clipped sample and correcting for the clipping
 * of those kept; colour images on their luma (R + G + B) / sqrt 3, whose
 * noise is each channel's.  The Poisson-Gaussian model: the same patches'
 * variance in the noise subspace, by intensity, fitted as a * value + b
 * (least squares weighted by each level's precision).  Where too few
 * patches are left (a photo mostly clipped), the median absolute finest
 * diagonal wavelet coefficient (Donoho and Johnstone).  Measured on
 * synthetic noise of known level (benchmarks/RESULTS.md): within a few
 * percent for sigma 5 to 50 on most photos; a photo of fine texture
 * everywhere (grass) reads high at sigma 5.  The image may be in any
 * location: a device image is copied to the host first.  Errors: JF_ERR_ARG
 * (image), JF_ERR_NOMEM, JF_ERR_CUDA.
 */
JF_API jf_status jf_estimate_noise(jf_context *ctx, const jf_image *img, jf_noise_estimate *out);

#ifdef __cplusplus
}
#endif
#endif /* JETFILTER_FILTERS_H */
