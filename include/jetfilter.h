/*
 * jetfilter.h - the one public header of libjetfilter.
 *
 * jetfilter decodes JPEG and PNG files, pads images, runs median filters and
 * k x k convolutions, adds test noise and measures PSNR and SSIM, on the CPU
 * or on a CUDA GPU.  Every function reports through a jf_status; on error a
 * one-line detail ("photo.jpg: premature end of JPEG data") is available from
 * jf_last_error() in the calling thread.  The library never prints and never
 * exits.
 *
 * Conventions
 *  - Pixels are 8-bit unsigned, interleaved (RGBRGB...), rows `stride` bytes
 *    apart.  Filters treat every channel independently.
 *  - An output image whose `data` is NULL is allocated by the call (on the
 *    host, owned by the image, released with jf_image_free()).  An output
 *    image that already has data must have the expected size and channels.
 *  - Functions that take a jf_context use its backend (CPU or CUDA).  A NULL
 *    context means "CPU, all cores".
 */
#ifndef JETFILTER_H
#define JETFILTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JF_VERSION_MAJOR 0
#define JF_VERSION_MINOR 1
#define JF_VERSION_PATCH 0
#define JF_VERSION_STRING "0.1.0"

/* ------------------------------------------------------------------------ */
/* Status and errors                                                         */
/* ------------------------------------------------------------------------ */

/** Result of every fallible call: JF_OK (0) or a negative error. */
typedef enum jf_status {
    JF_OK = 0,
    JF_ERR_ARG = -1,         /**< invalid argument or option value */
    JF_ERR_IO = -2,          /**< a file could not be opened, read or written */
    JF_ERR_DECODE = -3,      /**< the file is not a valid JPEG/PNG, or is damaged */
    JF_ERR_ENCODE = -4,      /**< the encoder failed */
    JF_ERR_UNSUPPORTED = -5, /**< valid input that jetfilter does not handle */
    JF_ERR_LIMIT = -6,       /**< dimensions over the pixel limit or absurd */
    JF_ERR_NOMEM = -7,       /**< allocation failed */
    JF_ERR_CUDA = -8,        /**< a CUDA call failed (detail names the call) */
    JF_ERR_NO_DEVICE = -9,   /**< CUDA requested but no usable device / not built */
    JF_ERR_INTERNAL = -10    /**< a bug: please report it */
} jf_status;

/** Short English name of a status ("decode error"). Never NULL. */
const char *jf_status_str(jf_status status);

/** Detail of the last error raised in this thread; "" if none. */
const char *jf_last_error(void);

/** Library version string, e.g. "0.1.0". */
const char *jf_version(void);

/* ------------------------------------------------------------------------ */
/* Images                                                                    */
/* ------------------------------------------------------------------------ */

/** Where an image's bytes live. */
typedef enum jf_location {
    JF_LOC_HOST = 0, /**< ordinary host memory */
    JF_LOC_DEVICE,   /**< CUDA device memory (not dereferenceable on the host) */
    JF_LOC_MAPPED,   /**< pinned host memory mapped into the GPU (zero-copy) */
    JF_LOC_MANAGED,  /**< CUDA managed memory: one pointer for CPU and GPU */
    JF_LOC_COUNT
} jf_location;

/** An 8-bit image: channels interleaved, rows `stride` bytes apart. */
typedef struct jf_image {
    int width;            /**< pixels per row, >= 1 */
    int height;           /**< rows, >= 1 */
    int channels;         /**< 1 (gray) .. 4 */
    size_t stride;        /**< bytes from one row to the next, >= width*channels */
    unsigned char *data;  /**< first byte of row 0 */
    jf_location location; /**< where `data` lives */
    int owned;            /**< non-zero: jf_image_free() releases `data` */
} jf_image;

/** Allocate a host image (tightly packed rows).  Checks the pixel limit and
 *  size overflow before allocating.  `img` must not own data already. */
jf_status jf_image_alloc(jf_image *img, int width, int height, int channels);

/** Describe memory the caller owns; jf_image_free() will not release it. */
jf_image jf_image_wrap(unsigned char *data, int width, int height,
                       int channels, size_t stride);

/** Release an owned image (any location) and zero the struct.  NULL and
 *  non-owned are fine. */
void jf_image_free(jf_image *img);

/** Copy pixels between two host images of the same shape (strides may differ). */
jf_status jf_image_copy(const jf_image *src, jf_image *dst);

/** The maximum width*height any decoder or allocator accepts
 *  (default 2^28 = 268 Mpixel).  Applies to the whole process. */
uint64_t jf_max_pixels(void);
void jf_set_max_pixels(uint64_t max_pixels);

/* ------------------------------------------------------------------------ */
/* Files: JPEG and PNG                                                       */
/* ------------------------------------------------------------------------ */

typedef enum jf_format {
    JF_FORMAT_UNKNOWN = 0,
    JF_FORMAT_JPEG,
    JF_FORMAT_PNG,
    JF_FORMAT_COUNT
} jf_format;

/** Format from the first bytes of a file (magic numbers, not the name). */
jf_format jf_sniff_format(const unsigned char *bytes, size_t size);

/** "jpeg", "png" or "unknown". */
const char *jf_format_name(jf_format format);

/** A metadata block carried from input to output unchanged. */
typedef struct jf_blob {
    unsigned char *data;
    size_t size;
    int tag; /**< JPEG: marker code (0xE1 = APP1 ...); PNG: 0 */
    char key[80]; /**< PNG text chunks: the keyword; otherwise "" */
} jf_blob;

/**
 * An image as it lives in a file: the colour planes that filters work on,
 * an optional alpha plane that they leave alone, and metadata.
 */
typedef struct jf_picture {
    jf_image color;    /**< 1 (gray) or 3 (RGB) channels */
    jf_image alpha;    /**< 1 channel, or data == NULL when there is none */
    jf_format format;  /**< format it was decoded from */
    unsigned char *icc; size_t icc_size;   /**< ICC profile, or NULL */
    unsigned char *exif; size_t exif_size; /**< EXIF (TIFF bytes, no "Exif\0\0"), or NULL */
    jf_blob *extra; int extra_count; /**< other JPEG APPn markers / PNG text chunks */
    int jpeg_h_samp, jpeg_v_samp; /**< luma sampling of a JPEG input (2,2 = 4:2:0); 0 if unknown */
} jf_picture;

/** Decode a JPEG or PNG held in memory.  `name` is used in error details. */
jf_status jf_picture_decode(const unsigned char *bytes, size_t size,
                            const char *name, jf_picture *pic);

/** Read and decode a file.  The format is sniffed from its bytes. */
jf_status jf_picture_read(const char *path, jf_picture *pic);

typedef struct jf_encode_options {
    jf_format format; /**< JF_FORMAT_JPEG or JF_FORMAT_PNG */
    int quality;      /**< JPEG quality 1..100 (0 = 92) */
    int png_level;    /**< zlib level 0..9 (-1 or 0 = 6) */
} jf_encode_options;

/** Encode into a malloc()ed buffer the caller frees.  JPEG drops alpha. */
jf_status jf_picture_encode(const jf_picture *pic, const jf_encode_options *opt,
                            unsigned char **bytes, size_t *size);

/** Encode and write atomically: a temporary file in the target folder is
 *  renamed over `path` only when complete; on failure nothing is left. */
jf_status jf_picture_write(const char *path, const jf_picture *pic,
                           const jf_encode_options *opt);

/** Release everything a picture owns and zero it.  NULL is fine. */
void jf_picture_free(jf_picture *pic);

/* ------------------------------------------------------------------------ */
/* CUDA devices                                                              */
/* ------------------------------------------------------------------------ */

/** Facts about one CUDA device, read from the runtime (never assumed). */
typedef struct jf_device_info {
    int index;
    char name[256];
    int cc_major, cc_minor;   /**< compute capability */
    int multiprocessors;
    uint64_t total_memory;    /**< bytes */
    int integrated;           /**< shares memory with the CPU (Jetson) */
    int runtime_version, driver_version; /**< e.g. 13000 */
    double theoretical_gbps;  /**< memory clock x bus width x 2 / 8, or table */
    char theoretical_source[64]; /**< "device attributes", "Tegra table", ... */
    uint64_t l2_bytes;        /**< L2 cache size */
    int memory_clock_mhz;     /**< as the device reports it (bogus on Tegra) */
} jf_device_info;

/** Number of usable CUDA devices; 0 with a reason in jf_last_error() when
 *  none (or when the library was built without CUDA). */
int jf_device_count(void);

/** Fill `info` for device `index`. */
jf_status jf_device_query(int index, jf_device_info *info);

/** Non-zero when the library was compiled with CUDA kernels. */
int jf_built_with_cuda(void);

/* ------------------------------------------------------------------------ */
/* Context: backend, threads, stream, stats                                  */
/* ------------------------------------------------------------------------ */

typedef enum jf_backend {
    JF_BACKEND_AUTO = 0, /**< CUDA when a usable device exists, else CPU */
    JF_BACKEND_CPU,
    JF_BACKEND_CUDA,
    JF_BACKEND_COUNT
} jf_backend;

/** How host images reach the GPU. */
typedef enum jf_memory {
    JF_MEMORY_AUTO = 0, /**< MANAGED on integrated GPUs (Jetson), COPY on discrete ones */
    JF_MEMORY_COPY,     /**< device buffers; transfers through pinned staging buffers */
    JF_MEMORY_MANAGED,  /**< managed buffers that CPU and GPU both address: no copies
                             on integrated GPUs, page migration on discrete ones */
    JF_MEMORY_COUNT
} jf_memory;

typedef struct jf_context_options {
    jf_backend backend; /**< default AUTO */
    int device;         /**< CUDA device index (default 0) */
    int threads;        /**< CPU worker threads; 0 = all online cores */
    void *stream;       /**< cudaStream_t of the caller's choosing, or NULL: the
                             context makes its own non-blocking stream */
    jf_memory memory;   /**< default AUTO */
    double peak_gbps;   /**< override the theoretical bandwidth used in stats (0: the device's) */
} jf_context_options;

typedef struct jf_context jf_context;

/** Create a context.  `opt` may be NULL for defaults.  With JF_BACKEND_CUDA
 *  and no usable device (or a build without CUDA) returns JF_ERR_NO_DEVICE. */
jf_status jf_context_create(const jf_context_options *opt, jf_context **out);
void jf_context_destroy(jf_context *ctx);

/** The backend in use (never AUTO). */
jf_backend jf_context_backend(const jf_context *ctx);
/** Why AUTO chose what it chose ("no CUDA device: ..."), or "". */
const char *jf_context_note(const jf_context *ctx);
/** Number of CPU threads the context uses. */
int jf_context_threads(const jf_context *ctx);
/** The memory mode in use (never AUTO on a CUDA context; COPY on the CPU). */
jf_memory jf_context_memory(const jf_context *ctx);
/** Device facts of a CUDA context (theoretical bandwidth after any override). */
jf_status jf_context_device(const jf_context *ctx, jf_device_info *info);
const char *jf_memory_name(jf_memory memory);

/** Allocate an image in `location` (HOST, DEVICE pitched, MAPPED, MANAGED)
 *  on the context's device.  Only HOST works on a CPU context. */
jf_status jf_image_alloc_on(jf_context *ctx, jf_image *img, int width, int height,
                            int channels, jf_location location);

/**
 * Measure the copy ceiling: the median of `reps` copies of `bytes` bytes,
 * device to device on a CUDA context (cudaMemcpyAsync, CUDA events), memcpy
 * on a CPU context; `gbps` counts bytes read plus bytes written, as the
 * effective bandwidth of the filters does.
 */
jf_status jf_measure_copy_gbps(jf_context *ctx, size_t bytes, int reps, double *gbps);

/** Copy pixels between images of the same shape in any two locations
 *  (host <-> device, device <-> device, ...); waits until done. */
jf_status jf_image_transfer(jf_context *ctx, const jf_image *src, jf_image *dst);
const char *jf_backend_name(jf_backend backend);

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

const char *jf_border_name(jf_border border);

/** Which implementation runs an operation. */
typedef enum jf_variant {
    JF_VARIANT_AUTO = 0, /**< the fastest known for the backend, size and k */
    JF_VARIANT_CPU,      /**< the CPU reference */
    JF_VARIANT_GLOBAL,   /**< CUDA, reads global memory directly */
    JF_VARIANT_SHARED,   /**< CUDA, shared-memory tiles */
    JF_VARIANT_FAST,     /**< CUDA, the fastest specialised kernel */
    JF_VARIANT_COUNT
} jf_variant;

const char *jf_variant_name(jf_variant variant);

/** Pad `src` by `radius` pixels on every side into `dst`
 *  ((width+2r) x (height+2r), same channels). */
jf_status jf_pad(jf_context *ctx, const jf_image *src, int radius,
                 jf_border border, jf_image *dst);

#define JF_MEDIAN_MAX_KSIZE 255

typedef struct jf_median_options {
    int ksize;         /**< odd, 1 .. JF_MEDIAN_MAX_KSIZE */
    jf_border border;
    jf_variant variant;
    int block_x, block_y; /**< CUDA block shape (0: 32 x 8); block_x a multiple of 4,
                               of 32 for conflict-free shared memory */
} jf_median_options;

/** k x k median of every channel; `dst` has the size of `src`. */
jf_status jf_median(jf_context *ctx, const jf_image *src, jf_image *dst,
                    const jf_median_options *opt);

#define JF_CONV_MAX_KSIZE 63

typedef struct jf_conv_options {
    int ksize;             /**< odd, 1 .. JF_CONV_MAX_KSIZE */
    const float *weights;  /**< ksize*ksize, row-major, applied as correlation */
    jf_border border;
    jf_variant variant;
    int block_x, block_y;  /**< CUDA block shape, as for the median */
} jf_conv_options;

/**
 * Correlation with a k x k float kernel:
 *   out(x,y) = sat( round( sum_{i,j} w[j][i] * in(x+i-r, y+j-r) ) ),  r = k/2
 * accumulated in float, rounded half away from zero and saturated to 0..255.
 * Rank-1 kernels (box, Gaussian) take a separable path whose result differs
 * from the direct sum by at most 1 in the last place.
 */
jf_status jf_convolve(jf_context *ctx, const jf_image *src, jf_image *dst,
                      const jf_conv_options *opt);

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
 *  (LAPLACE only 3; 0 means 3). */
jf_status jf_kernel_make(jf_kernel_preset preset, int ksize, double sigma,
                         jf_kernel *out);

/** Read weights from a text file: k lines of k numbers (odd k), '#' starts a
 *  comment.  Errors name the file and line. */
jf_status jf_kernel_load(const char *path, jf_kernel *out);
void jf_kernel_free(jf_kernel *kernel);

/**
 * PSNR = 10 log10(255^2 / MSE), MSE over every channel of every pixel.
 * Identical images give +INFINITY (print it as "inf").  `mse` may be NULL.
 */
jf_status jf_psnr(jf_context *ctx, const jf_image *a, const jf_image *b,
                  double *psnr_db, double *mse);

/**
 * Mean SSIM of Wang et al. 2004 (11x11 Gaussian window, sigma 1.5, K1 0.01,
 * K2 0.03, L 255, population statistics) over the region where the window
 * fits; for several channels the mean of the per-channel values.  Matches
 * scikit-image structural_similarity(gaussian_weights=True, sigma=1.5,
 * use_sample_covariance=False, data_range=255).  Both sides must be >= 11.
 */
jf_status jf_ssim(jf_context *ctx, const jf_image *a, const jf_image *b,
                  double *ssim);

typedef enum jf_noise_kind {
    JF_NOISE_SALT_PEPPER = 0, /**< amount = fraction of pixels set to 0 or 255 */
    JF_NOISE_GAUSSIAN,        /**< amount = standard deviation in levels */
    JF_NOISE_COUNT
} jf_noise_kind;

typedef struct jf_noise_options {
    jf_noise_kind kind;
    double amount;
    uint64_t seed; /**< same seed, same image: same noise, on every platform */
} jf_noise_options;

/** Add noise in place (host images). */
jf_status jf_add_noise(jf_context *ctx, jf_image *img,
                       const jf_noise_options *opt);

/* ------------------------------------------------------------------------ */
/* Stats: what each stage and kernel cost                                    */
/* ------------------------------------------------------------------------ */

/** One timed piece of work.  Bytes follow the seed's convention: each input
 *  byte counted once, each output byte once. */
typedef struct jf_stat {
    char name[32];    /**< "decode", "median", "pad", ... */
    char variant[16]; /**< "cpu", "global", "shared", ... or "" */
    int ksize;        /**< 0 when not applicable */
    int width, height, channels;
    double ms;        /**< CUDA event time (GPU work) or wall time (CPU), ms */
    uint64_t bytes_read, bytes_written;
    double peak_gbps; /**< theoretical bandwidth of the device that ran it; 0 on the CPU */
} jf_stat;

/** Effective bandwidth BW = (bytes_read + bytes_written) / (ms * 1e6), GB/s. */
double jf_stat_gbps(const jf_stat *stat);
/** That as a percentage of peak_gbps (0 when unknown). */
double jf_stat_percent(const jf_stat *stat);

size_t jf_stats_count(const jf_context *ctx);
const jf_stat *jf_stats_at(const jf_context *ctx, size_t index);
void jf_stats_clear(jf_context *ctx);
/** Append a record (the pipeline uses this for decode/encode timings). */
jf_status jf_stats_add(jf_context *ctx, const jf_stat *stat);

#ifdef __cplusplus
}
#endif
#endif /* JETFILTER_H */
