/*
 * jetfilter/base.h - version, status codes and errors, images, resource limits.
 * Part of the public API; include <jetfilter.h>, which includes every part.
 */
#ifndef JETFILTER_BASE_H
#define JETFILTER_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JF_VERSION_MAJOR 1
#define JF_VERSION_MINOR 13
#define JF_VERSION_PATCH 0
#define JF_VERSION_STRING "1.13.0"

/* Marks the functions a shared libjetfilter exports; everything else in
 * the library is hidden. */
#if defined(__GNUC__) && __GNUC__ >= 4
#define JF_API __attribute__((visibility("default")))
#else
#define JF_API
#endif

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
    JF_ERR_UNSUPPORTED = -5, /**< valid input or option that this build does not handle */
    JF_ERR_LIMIT = -6,       /**< over a resource limit (pixels, metadata, scans, ...) */
    JF_ERR_NOMEM = -7,       /**< allocation failed */
    JF_ERR_CUDA = -8,        /**< a CUDA call failed (the detail names the call) */
    JF_ERR_NO_DEVICE = -9,   /**< CUDA requested but no usable device / not built */
    JF_ERR_INTERNAL = -10    /**< a bug: please report it */
} jf_status;

/** Short English name of a status ("decode error").  Never NULL. */
JF_API const char *jf_status_str(jf_status status);

/** Detail of the last error raised in this thread; "" if none.  The string
 *  stays valid until the next failing call in this thread. */
JF_API const char *jf_last_error(void);

/** What the last successful decode or encode in this thread left out or
 *  changed, in one line ("EXIF of 70000 bytes not written: JPEG carries at
 *  most 65527"), or "" if nothing.  Cleared when a decode or encode starts. */
JF_API const char *jf_last_warning(void);

/** Library version string, e.g. "1.0.0". */
JF_API const char *jf_version(void);

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

/** Type of one sample.  Operations refuse a type they do not take with
 *  JF_ERR_UNSUPPORTED and the reason. */
typedef enum jf_sample {
    JF_SAMPLE_U8 = 0, /**< unsigned 8 bits, 0..255 */
    JF_SAMPLE_U16,    /**< unsigned 16 bits in host byte order, 0..65535 (since 1.5) */
    JF_SAMPLE_F32,    /**< IEEE 754 single precision in host byte order, any value
                           (NaN and infinities included); nominally 0..1 (since 1.12).
                           Taken by the median, the convolutions, padding, PSNR and
                           SSIM; the other operations refuse it */
    JF_SAMPLE_COUNT
} jf_sample;

/** Bytes of one sample: 1, 2 or 4 (0 for an unknown type). */
JF_API size_t jf_sample_size(jf_sample sample);

/** Largest value of a sample: 255 or 65535; 1 for float32, the top of its
 *  nominal range (the metrics' default data range); 0 for an unknown type. */
JF_API unsigned jf_sample_max(jf_sample sample);

/** An image: channels interleaved, rows `stride` bytes apart.  Make one with
 *  jf_image_alloc(), jf_image_alloc_on(), jf_image_wrap() or
 *  jf_image_wrap_device(), or zero it ({0}) to let a call allocate it. */
typedef struct jf_image {
    int width;            /**< pixels per row, >= 1 */
    int height;           /**< rows, >= 1 */
    int channels;         /**< 1 (grey) .. 4 */
    size_t stride;        /**< bytes from one row to the next,
                               >= width * channels * jf_sample_size(sample) */
    unsigned char *data;  /**< first byte of row 0 */
    jf_location location; /**< where `data` lives */
    int owned;            /**< non-zero: jf_image_free() releases `data` */
    jf_sample sample;     /**< JF_SAMPLE_U8 (what zeroing gives), _U16 or _F32 */
    int device;           /**< CUDA device of DEVICE/MANAGED memory (informational) */
    int reserved[6];      /**< zero */
} jf_image;

/** Allocate a host image with tightly packed rows.  `img` must not own data
 *  (it is overwritten).  Errors: JF_ERR_ARG (NULL, size < 1, channels not
 *  1..4), JF_ERR_LIMIT (over jf_max_pixels() or size_t), JF_ERR_NOMEM. */
JF_API jf_status jf_image_alloc(jf_image *img, int width, int height, int channels);

/** The same with a sample type: rows of width * channels * jf_sample_size()
 *  bytes (since 1.5).  Errors as jf_image_alloc, plus JF_ERR_ARG for an
 *  unknown type. */
JF_API jf_status jf_image_alloc_as(jf_image *img, int width, int height, int channels,
                            jf_sample sample);

/** Describe host memory the caller owns; jf_image_free() will not release
 *  it.  `stride` 0 means width * channels.  Nothing is checked here; the
 *  operations check what they are given. */
JF_API jf_image jf_image_wrap(unsigned char *data, int width, int height, int channels,
                       size_t stride);

/** jf_image_wrap with a sample type; `stride` 0 means width * channels *
 *  jf_sample_size(sample) (since 1.5). */
JF_API jf_image jf_image_wrap_as(void *data, int width, int height, int channels, size_t stride,
                          jf_sample sample);

/** Describe GPU-addressable memory the caller owns (a frame from another
 *  library): `location` is JF_LOC_DEVICE, JF_LOC_MAPPED (the host pointer
 *  of cudaHostAlloc(..., cudaHostAllocMapped)) or JF_LOC_MANAGED; `pitch`
 *  in bytes (0: width * channels).  Not released by jf_image_free(). */
JF_API jf_image jf_image_wrap_device(void *data, int width, int height, int channels, size_t pitch,
                              jf_location location);

/** The sample type's name: "u8", "u16", "f32" ("?" for an unknown type);
 *  since 1.12. */
JF_API const char *jf_sample_name(jf_sample sample);

/** Release an owned image (any location) and zero the struct.  NULL and
 *  images that do not own their data are fine.  Device memory is freed with
 *  cudaFree, which waits for work still using it. */
JF_API void jf_image_free(jf_image *img);

/** Copy pixels between two host images of the same shape and sample type
 *  (strides may differ).  Errors: JF_ERR_ARG (NULL, shapes or types differ,
 *  not host memory). */
JF_API jf_status jf_image_copy(const jf_image *src, jf_image *dst);

/**
 * Copy a host image into another of the same shape and a different sample
 * type (since 1.5).  `dst->sample` says the type wanted; `dst` with NULL
 * data is allocated.  8 to 16 bits: v * 257 (0 -> 0, 255 -> 65535, exact
 * back); 16 to 8 bits: the nearest level, (v + 128) / 257 in integers
 * (round(v / 257); v / 257 is never exactly halfway).
 * To float32: v / 255 or v / 65535 (0..1, as scikit-image's img_as_float);
 * from float32: round(v * top) clamped to 0..top, NaN to 0.
 * The same type: a copy.  Errors: JF_ERR_ARG, JF_ERR_NOMEM.
 */
JF_API jf_status jf_image_convert(const jf_image *src, jf_image *dst);

/**
 * Resource limits that hold for any input, so that a hostile or broken file
 * is refused with its reason (JF_ERR_LIMIT) instead of exhausting memory or
 * time.  Process-wide; set them before starting threads.  The defaults keep
 * every real photo's metadata (EXIF, ICC profiles, XMP).
 */
typedef struct jf_limits {
    size_t size;                 /**< sizeof(jf_limits): use jf_limits_defaults() */
    uint64_t max_pixels;         /**< width * height of any image (default 2^28 = 268 Mpixel) */
    uint64_t max_file_bytes;     /**< a compressed file read whole (default 1 GiB) */
    uint64_t max_metadata_bytes; /**< all metadata of one picture, inflated (default 32 MiB) */
    uint64_t max_chunk_bytes;    /**< one metadata item (an ICC profile, a text chunk,
                                      EXIF), inflated (default 16 MiB) */
    int max_scans;               /**< scans of a progressive JPEG (default 100; a real
                                      one has 2-20; each scan costs a pass over the image) */
    int max_text_chunks;         /**< PNG text and unknown chunks kept (default 1000) */
    int max_markers;             /**< APPn and COM markers of a JPEG (default 1000; a photo has
                                      a handful, an ICC profile split over at most 255; each
                                      costs the decoder a walk of the list so far); since 1.7 */
    int max_pages;               /**< pages of a multi-page TIFF (default 1000; 0: the
                                      default); since 1.11 */
} jf_limits;

JF_API jf_limits jf_limits_defaults(void);
#define JF_LIMITS_INIT \
    {sizeof(jf_limits), (uint64_t)1 << 28, (uint64_t)1 << 30, (uint64_t)32 << 20, \
     (uint64_t)16 << 20, 100, 1000, 1000, 1000}
/** The limits in force. */
JF_API jf_limits jf_get_limits(void);
/** Change the limits.  Errors: JF_ERR_ARG (a zero or negative limit). */
JF_API jf_status jf_set_limits(const jf_limits *limits);

/** The pixel limit alone (shorthands for jf_limits.max_pixels). */
JF_API uint64_t jf_max_pixels(void);
JF_API void jf_set_max_pixels(uint64_t max_pixels);

#ifdef __cplusplus
}
#endif
#endif /* JETFILTER_BASE_H */
