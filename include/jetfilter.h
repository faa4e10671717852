/*
 * jetfilter.h - the one public header of libjetfilter (API version 1).
 *
 * jetfilter decodes JPEG and PNG files, pads images, runs median filters and
 * k x k convolutions, adds test noise and measures PSNR and SSIM, on the CPU
 * or on a CUDA GPU.
 *
 * Errors
 *   Every fallible call returns a jf_status: JF_OK (0) or a negative code.
 *   The detail ("photo.jpg: premature end of JPEG file") is kept per thread
 *   and read with jf_last_error().  The library never prints and never exits.
 *
 * Images
 *   Samples are unsigned 8-bit (jf_image.sample == JF_SAMPLE_U8) or, since
 *   1.5, unsigned 16-bit in host byte order (JF_SAMPLE_U16), channels
 *   interleaved (RGBRGB...), rows `stride` bytes apart.  Filters treat every
 *   channel independently; an output has the sample type of its input.
 *   Which operations take 16-bit samples is said where each is declared.  An output image whose `data` is NULL is allocated
 *   by the call (host memory, owned by the image, released with
 *   jf_image_free()); an output that already has data must have the expected
 *   size and channels and is written in place.
 *
 * Option structs and binary compatibility (the ABI rule)
 *   Every options struct starts with `size_t size`, set by its defaults
 *   function (jf_median_options o = jf_median_defaults();) or initialiser
 *   macro (JF_MEDIAN_OPTIONS_INIT).  Later versions only append fields.  A
 *   call reads `size` bytes: fields beyond an older caller's size take their
 *   defaults; a larger size from a newer header is accepted when the fields
 *   this library does not know are zero (else JF_ERR_UNSUPPORTED).  A size
 *   of 0 (a struct never initialised) is JF_ERR_ARG.  Structs the library
 *   fills (jf_image, jf_picture, jf_device_info) carry reserved fields
 *   instead and keep their size for the whole of version 1.
 *
 * Contexts and threads
 *   A jf_context picks the backend (CPU or CUDA), owns a CPU thread pool,
 *   scratch buffers, a CUDA stream and optional stats.  Calls on one context
 *   must not overlap (use one context per thread); different contexts are
 *   independent.  A NULL context means "CPU, all cores" and makes a
 *   temporary pool for that call only (convenient, not for frame loops).
 *   Images may be read by several calls at once; an image being written by
 *   one call must not be used by another at the same time.  Process-wide
 *   settings (jf_set_max_pixels) are to be set before other threads call
 *   into the library.
 *
 * Synchronous and asynchronous calls (CUDA contexts)
 *   When every image of a call lives where the GPU can address it (DEVICE,
 *   MAPPED or MANAGED), the call only queues its work on the context's
 *   stream and returns: the output is ready after jf_context_sync(), or
 *   after later work on the same stream.  Calls that involve a HOST image
 *   (and the metrics, which return numbers) wait until their work is done.
 *   No call waits for the whole device.  The first call at a larger image
 *   size may wait while the context's buffers grow; later calls of that size
 *   or smaller allocate nothing.  Calls restore the caller's current CUDA
 *   device before returning.
 */
#ifndef JETFILTER_H
#define JETFILTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JF_VERSION_MAJOR 1
#define JF_VERSION_MINOR 6
#define JF_VERSION_PATCH 0
#define JF_VERSION_STRING "1.6.0"

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
const char *jf_status_str(jf_status status);

/** Detail of the last error raised in this thread; "" if none.  The string
 *  stays valid until the next failing call in this thread. */
const char *jf_last_error(void);

/** What the last successful decode or encode in this thread left out or
 *  changed, in one line ("EXIF of 70000 bytes not written: JPEG carries at
 *  most 65527"), or "" if nothing.  Cleared when a decode or encode starts. */
const char *jf_last_warning(void);

/** Library version string, e.g. "1.0.0". */
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

/** Type of one sample.  Operations refuse a type they do not take with
 *  JF_ERR_UNSUPPORTED and the reason. */
typedef enum jf_sample {
    JF_SAMPLE_U8 = 0, /**< unsigned 8 bits, 0..255 */
    JF_SAMPLE_U16,    /**< unsigned 16 bits in host byte order, 0..65535 (since 1.5) */
    JF_SAMPLE_COUNT
} jf_sample;

/** Bytes of one sample: 1 or 2 (0 for an unknown type). */
size_t jf_sample_size(jf_sample sample);

/** Largest value of a sample: 255 or 65535 (0 for an unknown type). */
unsigned jf_sample_max(jf_sample sample);

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
    jf_sample sample;     /**< JF_SAMPLE_U8 (what zeroing gives) or JF_SAMPLE_U16 */
    int device;           /**< CUDA device of DEVICE/MANAGED memory (informational) */
    int reserved[6];      /**< zero */
} jf_image;

/** Allocate a host image with tightly packed rows.  `img` must not own data
 *  (it is overwritten).  Errors: JF_ERR_ARG (NULL, size < 1, channels not
 *  1..4), JF_ERR_LIMIT (over jf_max_pixels() or size_t), JF_ERR_NOMEM. */
jf_status jf_image_alloc(jf_image *img, int width, int height, int channels);

/** The same with a sample type: rows of width * channels * jf_sample_size()
 *  bytes (since 1.5).  Errors as jf_image_alloc, plus JF_ERR_ARG for an
 *  unknown type. */
jf_status jf_image_alloc_as(jf_image *img, int width, int height, int channels,
                            jf_sample sample);

/** Describe host memory the caller owns; jf_image_free() will not release
 *  it.  `stride` 0 means width * channels.  Nothing is checked here; the
 *  operations check what they are given. */
jf_image jf_image_wrap(unsigned char *data, int width, int height, int channels,
                       size_t stride);

/** jf_image_wrap with a sample type; `stride` 0 means width * channels *
 *  jf_sample_size(sample) (since 1.5). */
jf_image jf_image_wrap_as(void *data, int width, int height, int channels, size_t stride,
                          jf_sample sample);

/** Describe GPU-addressable memory the caller owns (a frame from another
 *  library): `location` is JF_LOC_DEVICE, JF_LOC_MAPPED (the host pointer
 *  of cudaHostAlloc(..., cudaHostAllocMapped)) or JF_LOC_MANAGED; `pitch`
 *  in bytes (0: width * channels).  Not released by jf_image_free(). */
jf_image jf_image_wrap_device(void *data, int width, int height, int channels, size_t pitch,
                              jf_location location);

/** Release an owned image (any location) and zero the struct.  NULL and
 *  images that do not own their data are fine.  Device memory is freed with
 *  cudaFree, which waits for work still using it. */
void jf_image_free(jf_image *img);

/** Copy pixels between two host images of the same shape and sample type
 *  (strides may differ).  Errors: JF_ERR_ARG (NULL, shapes or types differ,
 *  not host memory). */
jf_status jf_image_copy(const jf_image *src, jf_image *dst);

/**
 * Copy a host image into another of the same shape and a different sample
 * type (since 1.5).  `dst->sample` says the type wanted; `dst` with NULL
 * data is allocated.  8 to 16 bits: v * 257 (0 -> 0, 255 -> 65535, exact
 * back); 16 to 8 bits: the nearest level, (v + 128) / 257 in integers
 * (round(v / 257); v / 257 is never exactly halfway).
 * The same type: a copy.  Errors: JF_ERR_ARG, JF_ERR_NOMEM.
 */
jf_status jf_image_convert(const jf_image *src, jf_image *dst);

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
} jf_limits;

jf_limits jf_limits_defaults(void);
#define JF_LIMITS_INIT \
    {sizeof(jf_limits), (uint64_t)1 << 28, (uint64_t)1 << 30, (uint64_t)32 << 20, \
     (uint64_t)16 << 20, 100, 1000}
/** The limits in force. */
jf_limits jf_get_limits(void);
/** Change the limits.  Errors: JF_ERR_ARG (a zero or negative limit). */
jf_status jf_set_limits(const jf_limits *limits);

/** The pixel limit alone (shorthands for jf_limits.max_pixels). */
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
    int tag;      /**< JPEG: marker code (0xE1 = APP1 ...); PNG: text compression */
    char key[80]; /**< PNG text chunks: the keyword; otherwise "" */
} jf_blob;

/** What the colour channels of a picture mean (since 1.5). */
typedef enum jf_color_model {
    JF_COLOR_DEFAULT = 0, /**< grey (1 channel) or RGB (3 channels) */
    JF_COLOR_CMYK,        /**< 4 channels: C, M, Y, K exactly as a CMYK or YCCK JPEG
                               holds them (Adobe's files store them inverted: 255 = no
                               ink); filters treat each channel on its own */
    JF_COLOR_COUNT
} jf_color_model;

/**
 * An image as it lives in a file: the colour planes that filters work on,
 * an optional alpha plane that they leave alone, and metadata.  Owned by the
 * library's allocations; release with jf_picture_free().
 */
typedef struct jf_picture {
    jf_image color;    /**< 1 (grey), 3 (RGB) or 4 (CMYK) channels, 8 or 16 bits */
    jf_image alpha;    /**< 1 channel, or data == NULL when there is none */
    jf_format format;  /**< format it was decoded from */
    unsigned char *icc; size_t icc_size;   /**< ICC profile, or NULL */
    unsigned char *exif; size_t exif_size; /**< EXIF (TIFF bytes, no "Exif\0\0"), or NULL */
    jf_blob *extra; int extra_count; /**< other JPEG APPn markers / PNG text chunks */
    int jpeg_h_samp, jpeg_v_samp; /**< luma sampling of a JPEG input (2,2 = 4:2:0); 0 if unknown */
    int decoded_on_gpu; /**< 1: the colour plane came from nvJPEG (hardware engine), 2: nvJPEG's
                             hybrid decoder, 0: the CPU (since 1.4; before, reserved and zero) */
    jf_color_model color_model; /**< since 1.5 (before, reserved and zero: grey or RGB) */
    int jpeg_ycck;     /**< CMYK: 1 when the JPEG stored it as YCCK (written back so) */
    int jpeg_adobe;    /**< CMYK: 1 when the JPEG had an Adobe APP14 marker (written back,
                            with it the inverted convention the values follow) */
    int reserved[4];   /**< zero */
} jf_picture;

/** Decode a JPEG or PNG held in memory.  `name` is used in error details
 *  (NULL: "<memory>").  `pic` is overwritten, not freed first: pass a zeroed
 *  or freed picture, or it leaks what it held.  On failure `pic` is left
 *  empty.  Errors: JF_ERR_ARG, JF_ERR_DECODE (not JPEG/PNG, damaged),
 *  JF_ERR_UNSUPPORTED (a valid layout jetfilter does not handle),
 *  JF_ERR_LIMIT (over the pixel limit), JF_ERR_NOMEM. */
jf_status jf_picture_decode(const unsigned char *bytes, size_t size,
                            const char *name, jf_picture *pic);

/** Read and decode a file; the format is sniffed from its bytes.  As
 *  jf_picture_decode, plus JF_ERR_IO (cannot open or read). */
jf_status jf_picture_read(const char *path, jf_picture *pic);

/** How PNG rows are filtered before compression (PNG's five row filters). */
typedef enum jf_png_filter {
    JF_PNG_FILTER_DEFAULT = 0, /**< the library's choice: JF_PNG_DEFAULT_FILTER */
    JF_PNG_FILTER_NONE,
    JF_PNG_FILTER_SUB,
    JF_PNG_FILTER_UP,
    JF_PNG_FILTER_AVG,
    JF_PNG_FILTER_PAETH,
    JF_PNG_FILTER_ADAPTIVE,    /**< libpng tries all five on every row (slowest) */
    JF_PNG_FILTER_COUNT
} jf_png_filter;

/** The defaults of PNG writing, chosen from the measurements in
 *  benchmarks/RESULTS.md ("PNG writing"): fast, files somewhat larger than
 *  level 6 with adaptive filtering (what 1.0 wrote). */
#define JF_PNG_DEFAULT_LEVEL 1
#define JF_PNG_DEFAULT_FILTER JF_PNG_FILTER_UP

typedef struct jf_encode_options {
    size_t size;      /**< sizeof(jf_encode_options): use jf_encode_defaults() */
    jf_format format; /**< JF_FORMAT_JPEG or JF_FORMAT_PNG (default PNG) */
    int quality;      /**< JPEG quality 1..100 (default 92) */
    int png_level;    /**< zlib level 0 (store) .. 9; -1: JF_PNG_DEFAULT_LEVEL */
    int reserved0;    /**< 1.0's trailing padding: ignored, keep 0 */
    int png_filter;   /**< jf_png_filter (since 1.1; default JF_PNG_FILTER_DEFAULT) */
    int reserved1;    /**< keep 0 */
} jf_encode_options;

jf_encode_options jf_encode_defaults(void);
#define JF_ENCODE_OPTIONS_INIT {sizeof(jf_encode_options), JF_FORMAT_PNG, 92, -1, 0, 0, 0}

/** Encode into a malloc()ed buffer the caller frees.  JPEG drops alpha.
 *  `opt` NULL: the defaults, in the picture's own format.  PNG keeps 16-bit
 *  samples (big-endian in the file, as PNG stores them); JPEG holds 8 bits,
 *  so a 16-bit picture is refused for JPEG (JF_ERR_UNSUPPORTED: convert it
 *  with jf_image_convert first).  A CMYK picture is written as a CMYK (or
 *  YCCK) JPEG with its Adobe marker as it came; PNG has no CMYK, so it is
 *  refused for PNG (JF_ERR_UNSUPPORTED).  The pixels may be
 *  HOST, MAPPED or MANAGED (after jf_context_sync(): no GPU work may be
 *  using them).  Errors: JF_ERR_ARG (options out of range, image in device
 *  memory), JF_ERR_ENCODE, JF_ERR_NOMEM. */
jf_status jf_picture_encode(const jf_picture *pic, const jf_encode_options *opt,
                            unsigned char **bytes, size_t *size);

/** Encode and write atomically: a temporary file in the target folder is
 *  renamed over `path` only when complete; on failure nothing is left.
 *  As jf_picture_encode, plus JF_ERR_IO. */
jf_status jf_picture_write(const char *path, const jf_picture *pic,
                           const jf_encode_options *opt);

/**
 * Turn a CMYK picture into RGB, in place (since 1.5): each channel
 * R = round((255 - C) (255 - K) / 255), likewise G from M and B from Y,
 * with C, M, Y, K the amounts of ink (a file with the Adobe marker stores
 * them inverted, which is undone first).  A plain conversion that ignores
 * any print profile; the CMYK ICC profile is dropped (it does not describe
 * RGB) and the warning says so.  A picture that is not CMYK is left alone.
 * Errors: JF_ERR_ARG (device memory), JF_ERR_NOMEM.
 */
jf_status jf_picture_cmyk_to_rgb(jf_picture *pic);

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
    int shared_per_block;     /**< bytes of shared memory a block gets by default (48 KiB) */
    int shared_per_block_optin; /**< bytes a block may opt into (>= shared_per_block) */
    int shared_per_sm;        /**< bytes of shared memory per multiprocessor */
    int registers_per_block;  /**< 32-bit registers one block may use */
    int registers_per_sm;
    int max_threads_per_block;
    int limited;              /**< non-zero: limits reduced by JETFILTER_DEVICE_LIMITS */
    int reserved[15];
} jf_device_info;

/** Number of usable CUDA devices; 0 with a reason in jf_last_error() when
 *  none (or when the library was built without CUDA). */
int jf_device_count(void);

/** Fill `info` for device `index`.  The environment variable
 *  JETFILTER_DEVICE_LIMITS=nano makes every device report (and every kernel
 *  choice respect) the Jetson Nano's limits: 1 multiprocessor, 48 KiB of
 *  shared memory per block and 64 KiB per SM, 32K registers per block.
 *  Errors: JF_ERR_ARG, JF_ERR_CUDA, JF_ERR_NO_DEVICE. */
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

const char *jf_backend_name(jf_backend backend);

/** How host images reach the GPU. */
typedef enum jf_memory {
    JF_MEMORY_AUTO = 0, /**< MANAGED on integrated GPUs (Jetson), COPY on discrete ones */
    JF_MEMORY_COPY,     /**< device buffers; transfers through pinned staging buffers */
    JF_MEMORY_MANAGED,  /**< managed buffers that CPU and GPU both address: no copies
                             on integrated GPUs, page migration on discrete ones */
    JF_MEMORY_COUNT
} jf_memory;

const char *jf_memory_name(jf_memory memory);

/** Which decoder jf_picture_decode_frame() uses for JPEG files (since 1.4).
 *  PNG, and JPEGs that nvJPEG does not take (CMYK, RGB-coded, 12-bit, or
 *  refused by it), always go through the CPU decoders. */
typedef enum jf_codec {
    JF_CODEC_AUTO = 0, /**< a CUDA context in copy mode on a GPU with a hardware JPEG
                            decoder shares the work: a file goes to the engine when
                            fewer than two wait for it, else to libjpeg-turbo on the
                            calling thread; elsewhere the CPU */
    JF_CODEC_CPU,      /**< libjpeg-turbo on the CPU (the default) */
    JF_CODEC_NVJPEG,   /**< NVIDIA nvJPEG (loaded at run time, libnvjpeg.so): every
                            JPEG it takes to the hardware engine where the GPU has one
                            (one batching decoder per device, shared by the contexts),
                            else to its hybrid decoder; needs a CUDA context.  Not CPU
                            (either of these) also lets jf_picture_encode_frame encode
                            JPEGs from device memory with nvJPEG */
    JF_CODEC_COUNT
} jf_codec;

const char *jf_codec_name(jf_codec codec);

/** Can `codec` be used on CUDA device `device`?  JF_OK, else
 *  JF_ERR_UNSUPPORTED with the reason in jf_last_error() ("libnvjpeg.so.13
 *  not found", "built without CUDA").  `detail` (may be NULL) receives a
 *  line such as "nvJPEG 13.0.1, hardware decoder (1 engine x 7 cores)". */
jf_status jf_codec_probe(jf_codec codec, int device, char *detail, size_t detail_size);

typedef struct jf_context_options {
    size_t size;        /**< sizeof(jf_context_options): use jf_context_defaults() */
    jf_backend backend; /**< default AUTO */
    int device;         /**< CUDA device index (default 0) */
    int threads;        /**< CPU worker threads; 0 (default) = all online cores */
    void *stream;       /**< cudaStream_t of the caller's choosing, or NULL (default):
                             the context makes its own non-blocking stream.  A caller's
                             stream is used, never destroyed. */
    jf_memory memory;   /**< default AUTO */
    double peak_gbps;   /**< theoretical bandwidth used in stats (0, default: the device's) */
    int stats;          /**< 0 (default): no stats; N > 0: keep the last N records
                             plus running totals (bounded memory) */
    int reserved0;      /**< ignored (1.0-1.3's trailing padding) */
    jf_codec codec;     /**< JPEG decoder of jf_picture_decode_frame (default CPU); since 1.4 */
} jf_context_options;

jf_context_options jf_context_defaults(void);
#define JF_CONTEXT_OPTIONS_INIT \
    {sizeof(jf_context_options), JF_BACKEND_AUTO, 0, 0, NULL, JF_MEMORY_AUTO, 0.0, 0, 0, JF_CODEC_CPU}

typedef struct jf_context jf_context;

/** Create a context.  `opt` NULL means the defaults.  Errors: JF_ERR_ARG,
 *  JF_ERR_NO_DEVICE (CUDA asked for but no usable device, or built
 *  without CUDA), JF_ERR_CUDA, JF_ERR_NOMEM. */
jf_status jf_context_create(const jf_context_options *opt, jf_context **out);

/** Wait for queued work, then release everything.  NULL is fine. */
void jf_context_destroy(jf_context *ctx);

/** Wait until every call queued on the context's stream has finished, and
 *  collect the stats of that work.  A CPU context returns JF_OK at once.
 *  Errors: JF_ERR_CUDA (an asynchronous kernel failed: the detail names the
 *  failure; the context should then be destroyed). */
jf_status jf_context_sync(jf_context *ctx);

/** The backend in use (never AUTO). */
jf_backend jf_context_backend(const jf_context *ctx);
/** Why AUTO chose what it chose ("no CUDA device: ..."), or "". */
const char *jf_context_note(const jf_context *ctx);

/**
 * Tuning profiles (since 1.6): `jetfilter calibrate` measures every variant
 * and block shape on the device at hand and writes the fastest per
 * operation, channel count, size and k to a file; a CUDA context that finds
 * the file for its device lets `auto` follow it (8-bit images; where the
 * profile has no entry, the built-in table).
 *
 * jf_profiles_use() names the folder where contexts created from then on
 * look (NULL: none, the default) and the power mode the system is in (""
 * or NULL: none); the file is `dir`/jf_profile_file_name(device, mode).  A
 * file measured on another device, in another power mode or that cannot be
 * read is not used, and jf_context_note() says why.  Call it before
 * creating contexts (it is not synchronised with their creation).
 */
jf_status jf_profiles_use(const char *dir, const char *power_mode);
/** The profile file name of a device in a power mode, e.g.
 *  "nvidia-h100-80gb-hbm3-sm90-none.profile". */
void jf_profile_file_name(const jf_device_info *dev, const char *power_mode, char *out, size_t n);
/** The profile a context's `auto` follows (its path), or NULL: built-in tables. */
const char *jf_context_profile(const jf_context *ctx);
/** Number of CPU threads the context uses. */
int jf_context_threads(const jf_context *ctx);
/** The memory mode in use (never AUTO on a CUDA context; COPY on the CPU). */
jf_memory jf_context_memory(const jf_context *ctx);
/** The cudaStream_t the context queues on (NULL on a CPU context). */
void *jf_context_stream(const jf_context *ctx);
/** Device facts of a CUDA context (theoretical bandwidth after any override).
 *  Errors: JF_ERR_NO_DEVICE (a CPU context). */
jf_status jf_context_device(const jf_context *ctx, jf_device_info *info);

/** Allocate an image in `location` (HOST; DEVICE, pitched; MAPPED; MANAGED,
 *  attached to the context's stream) on the context's device.  Errors:
 *  JF_ERR_ARG, JF_ERR_LIMIT, JF_ERR_NO_DEVICE (not HOST on a CPU context),
 *  JF_ERR_CUDA, JF_ERR_NOMEM. */
jf_status jf_image_alloc_on(jf_context *ctx, jf_image *img, int width, int height,
                            int channels, jf_location location);

/** jf_image_alloc_on with a sample type (since 1.5). */
jf_status jf_image_alloc_on_as(jf_context *ctx, jf_image *img, int width, int height,
                               int channels, jf_location location, jf_sample sample);

/** A host-side image in one of the context's two reusable frame buffers
 *  (`which` 0 or 1, e.g. what a decoder writes and what a filter writes),
 *  in the memory that context moves to and from its GPU fastest:
 *  - CUDA, memory copy (discrete GPUs): page-locked host memory, location
 *    HOST; calls that take it from or give it to the GPU copy it directly,
 *    with no staging copy ("stage"/"unstage" records vanish from the stats);
 *  - CUDA, memory managed (integrated GPUs, a Jetson): managed memory
 *    attached to the context's stream, location MANAGED: kernels read and
 *    write it in place, so calls on it are asynchronous (jf_context_sync()
 *    before the CPU reads an output);
 *  - CPU: ordinary memory, kept for the next call.
 *  The image is not owned (jf_image_free() only forgets it) and stays valid
 *  until the next call with the same `which` or the context's destruction;
 *  work queued on the context is waited for first, so the CPU may write it
 *  at once.  A frame of the size already held allocates nothing.  Rows are
 *  `stride` bytes apart (>= width * channels).  Since 1.4, `which` 2 and 3
 *  are device memory (location DEVICE, pitched) on a CUDA context: 2 is
 *  where nvJPEG decodes (jf_picture_decode_frame), 3 what a filter may
 *  write for jf_picture_encode_frame to encode on the GPU.  Errors:
 *  JF_ERR_ARG, JF_ERR_LIMIT, JF_ERR_NOMEM, JF_ERR_CUDA, JF_ERR_NO_DEVICE
 *  (2 or 3 on a CPU context).  Since 1.2. */
jf_status jf_context_frame(jf_context *ctx, int which, int width, int height, int channels,
                           jf_image *img);

/** jf_context_frame with a sample type (rows of width * channels *
 *  jf_sample_size(sample) bytes).  Since 1.5. */
jf_status jf_context_frame_as(jf_context *ctx, int which, int width, int height, int channels,
                              jf_sample sample, jf_image *img);

/** As jf_picture_encode, on a context: a picture whose colour plane is in
 *  device memory (frame 3, say, after a filter) is encoded there by nvJPEG
 *  when the output is JPEG and the context's codec is not CPU (metadata as
 *  the CPU encoder writes it; nvJPEG's DCT and Huffman coding, so the bytes
 *  differ from libjpeg-turbo's, the decoded pixels by little:
 *  benchmarks/RESULTS.md "nvJPEG"); otherwise it is copied into frame 1 and
 *  encoded on the CPU.  Host pictures go to jf_picture_encode.  `on_gpu`
 *  (may be NULL) says which happened.  Errors: as jf_picture_encode, plus
 *  JF_ERR_CUDA.  Since 1.4. */
jf_status jf_picture_encode_frame(jf_context *ctx, const jf_picture *pic,
                                  const jf_encode_options *opt, unsigned char **bytes,
                                  size_t *size, int *on_gpu);

/** As jf_picture_decode, with the colour plane decoded straight into
 *  frame 0 of `ctx` (jf_context_frame: the buffer a GPU takes without a
 *  staging copy), so it is not owned and lasts until that frame is asked
 *  for again.  Alpha and metadata are owned as usual.  Since 1.2.
 *  With the context's codec NVJPEG (or AUTO where it picks nvJPEG), a JPEG's
 *  colour plane is decoded on the GPU into the context's device buffer
 *  instead (frame 2): location DEVICE, ready when the call returns, valid
 *  until the next decode on this context; `decoded_on_gpu` says so.  nvJPEG's pixels
 *  may differ from libjpeg-turbo's by a few levels (its own IDCT and chroma
 *  upsampling; benchmarks/RESULTS.md "nvJPEG").  A file nvJPEG refuses is
 *  decoded on the CPU, so errors read as with the CPU decoder. */
jf_status jf_picture_decode_frame(jf_context *ctx, const unsigned char *bytes, size_t size,
                                  const char *name, jf_picture *pic);

/** Copy pixels between images of the same shape in any two locations
 *  (host <-> device, device <-> device, ...) on the context's stream, and
 *  wait until done.  Errors: JF_ERR_ARG, JF_ERR_NO_DEVICE, JF_ERR_CUDA. */
jf_status jf_image_transfer(jf_context *ctx, const jf_image *src, jf_image *dst);

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
    JF_VARIANT_AUTO = 0, /**< the fastest known for the backend, device, size and k */
    JF_VARIANT_CPU,      /**< the CPU reference */
    JF_VARIANT_GLOBAL,   /**< CUDA, reads global memory directly */
    JF_VARIANT_SHARED,   /**< CUDA, shared-memory tiles */
    JF_VARIANT_FAST,     /**< CUDA, the fastest specialised kernel */
    JF_VARIANT_COUNT
} jf_variant;

const char *jf_variant_name(jf_variant variant);

/** Pad `src` by `radius` pixels on every side into `dst`
 *  ((width+2r) x (height+2r), same channels and sample type).  Errors: JF_ERR_ARG (radius
 *  outside 0..4096, bad images), JF_ERR_LIMIT, JF_ERR_NOMEM, JF_ERR_CUDA. */
jf_status jf_pad(jf_context *ctx, const jf_image *src, int radius,
                 jf_border border, jf_image *dst);

#define JF_MEDIAN_MAX_KSIZE 255

typedef struct jf_median_options {
    size_t size;       /**< sizeof(jf_median_options): use jf_median_defaults() */
    int ksize;         /**< odd, 1 .. JF_MEDIAN_MAX_KSIZE (default 3) */
    jf_border border;  /**< default JF_BORDER_REPLICATE */
    jf_variant variant; /**< default AUTO */
    int block_x, block_y; /**< CUDA block shape; 0, 0 (default): the variant's own.
                               block_x a multiple of 4 (of 32 for conflict-free shared
                               memory); a shape the device cannot launch is JF_ERR_ARG */
} jf_median_options;

jf_median_options jf_median_defaults(void);
#define JF_MEDIAN_OPTIONS_INIT \
    {sizeof(jf_median_options), 3, JF_BORDER_REPLICATE, JF_VARIANT_AUTO, 0, 0}

/** k x k median of every channel; `dst` has the size and sample type of
 *  `src`.  8 and 16 bits on the CPU; on the GPU 16-bit images take the
 *  `global` variant (`auto` picks it; `shared` and `fast` are 8-bit only:
 *  JF_ERR_UNSUPPORTED).  Errors:
 *  JF_ERR_ARG (options, images, a variant the backend lacks, a block the
 *  device cannot launch), JF_ERR_UNSUPPORTED (sample type, a variant that
 *  does not exist for this k), JF_ERR_LIMIT, JF_ERR_NOMEM, JF_ERR_CUDA. */
jf_status jf_median(jf_context *ctx, const jf_image *src, jf_image *dst,
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
} jf_conv_options;

jf_conv_options jf_conv_defaults(void);
#define JF_CONV_OPTIONS_INIT \
    {sizeof(jf_conv_options), 0, NULL, JF_BORDER_REPLICATE, JF_VARIANT_AUTO, 0, 0}

/**
 * Correlation with a k x k float kernel:
 *   out(x,y) = sat( round( sum_{i,j} w[j][i] * in(x+i-r, y+j-r) ) ),  r = k/2
 * accumulated in float, rounded half away from zero and saturated to 0..255
 * (0..65535 for 16-bit images; on the GPU those take the `global` variant,
 * as for the median).
 * Rank-1 kernels (box, Gaussian) take a separable path whose result differs
 * from the direct sum by at most 1 in the last place.  Errors as jf_median,
 * plus JF_ERR_ARG for weights that are NULL, not finite or larger than 1e30
 * in magnitude (so that every sum stays finite in float).
 */
jf_status jf_convolve(jf_context *ctx, const jf_image *src, jf_image *dst,
                      const jf_conv_options *opt);

#define JF_IMPULSE_MAX_KSIZE 31

/** Options of the impulse-noise filters (adaptive and switching median). */
typedef struct jf_impulse_options {
    size_t size;        /**< sizeof(jf_impulse_options): use jf_impulse_defaults() */
    int max_ksize;      /**< largest window, odd, 3 .. JF_IMPULSE_MAX_KSIZE (default 7);
                             jf_impulse_auto: 0 (default there) chooses it */
    jf_border border;   /**< default JF_BORDER_REPLICATE */
    jf_variant variant; /**< AUTO, CPU or GLOBAL (default AUTO) */
    int refine;         /**< switching median: 1 adds the smoothing pass (default 0) */
} jf_impulse_options;

jf_impulse_options jf_impulse_defaults(void);
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
 * better.  Errors as jf_median.
 */
jf_status jf_adaptive_median(jf_context *ctx, const jf_image *src, jf_image *dst,
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
 * benchmarks/RESULTS.md).  Every channel on its own.  Errors as jf_median.
 */
jf_status jf_switching_median(jf_context *ctx, const jf_image *src, jf_image *dst,
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
jf_status jf_impulse_density(jf_context *ctx, const jf_image *img, double *density);

/** What jf_impulse_auto decided for one image. */
typedef struct jf_impulse_choice {
    double density; /**< jf_impulse_density's estimate */
    int filtered;   /**< 0: below JF_IMPULSE_CLEAN_DENSITY, copied unchanged */
    int max_ksize;  /**< the switching median's largest window (0 when not filtered) */
} jf_impulse_choice;

/** Estimated densities below this are taken as a clean image. */
#define JF_IMPULSE_CLEAN_DENSITY 0.001

/**
 * Salt-and-pepper removal that needs no settings: estimates the image's
 * impulse density (jf_impulse_density), copies the image unchanged when it
 * is below JF_IMPULSE_CLEAN_DENSITY, and otherwise runs the switching median
 * with refine on and the largest window that the measurements favour at
 * that density when opt->max_ksize is 0 (3 below 15%, 5 below 25%, 9 below
 * 45%, 11, 15, 19, 23 in steps of 10%, 31 from 85%; the sweep is in
 * benchmarks/RESULTS.md), or opt->max_ksize when set.  `choice`
 * (may be NULL) says what was done.  The estimate is needed on the host
 * before the filter starts, so on a CUDA context this call waits for the
 * GPU once per image.
 */
jf_status jf_impulse_auto(jf_context *ctx, const jf_image *src, jf_image *dst,
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
jf_status jf_kernel_make(jf_kernel_preset preset, int ksize, double sigma,
                         jf_kernel *out);

/** Read weights from a text file: k lines of k numbers (odd k), '#' starts
 *  a comment.  Errors (JF_ERR_ARG, JF_ERR_IO, JF_ERR_NOMEM) name the file
 *  and line. */
jf_status jf_kernel_load(const char *path, jf_kernel *out);

/** The same from text in memory; `name` stands for the file in errors. */
jf_status jf_kernel_parse(const char *text, size_t size, const char *name, jf_kernel *out);

void jf_kernel_free(jf_kernel *kernel);

/**
 * PSNR = 10 log10(L^2 / MSE), MSE over every channel of every pixel, L = 255
 * for 8-bit images and 65535 for 16-bit ones (both images of one depth).
 * Identical images give +INFINITY (print it as "inf").  `mse` may be NULL.
 * Waits for the result.  Errors: JF_ERR_ARG (shapes differ), JF_ERR_NOMEM,
 * JF_ERR_CUDA.
 */
jf_status jf_psnr(jf_context *ctx, const jf_image *a, const jf_image *b,
                  double *psnr_db, double *mse);

/**
 * Mean SSIM of Wang et al. 2004 (11x11 Gaussian window, sigma 1.5, K1 0.01,
 * K2 0.03, L 255 or 65535 by depth, population statistics) over the region
 * where the window fits; for several channels the mean of the per-channel
 * values.  Matches scikit-image structural_similarity(gaussian_weights=True,
 * sigma=1.5, use_sample_covariance=False, data_range=L).  Both sides must be >= 11.
 * Waits for the result.  Errors as jf_psnr.
 */
jf_status jf_ssim(jf_context *ctx, const jf_image *a, const jf_image *b,
                  double *ssim);

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

jf_noise_options jf_noise_defaults(void);
#define JF_NOISE_OPTIONS_INIT {sizeof(jf_noise_options), JF_NOISE_SALT_PEPPER, 0.05, 1}

/** Add noise in place (host, mapped or managed images, on the CPU; 8 or 16
 *  bits).  Errors: JF_ERR_ARG. */
jf_status jf_add_noise(jf_context *ctx, jf_image *img, const jf_noise_options *opt);

/* ------------------------------------------------------------------------ */
/* Video frames: YUV4MPEG2 (Y4M) and raw streams (since 1.3)                 */
/* ------------------------------------------------------------------------ */

#define JF_VIDEO_MAX_PLANES 4
/** Longest Y4M header or FRAME line accepted (bytes, newline included). */
#define JF_VIDEO_MAX_LINE 4096

/**
 * The layout of a stream's frames.  Y4M: from the stream header; the
 * 8-bit colour spaces FFmpeg and mjpegtools write are understood: mono,
 * 420jpeg, 420paldv, 420mpeg2 and 420 (all plain 4:2:0 here: the chroma
 * siting tag is carried, not used), 411, 422, 444 and 444alpha (no C tag
 * means 420jpeg).  Raw: headerless frames of a pixel format named as FFmpeg
 * names it: gray, rgb24 (one plane of 3 interleaved channels), yuv420p,
 * yuv422p, yuv444p.  Chroma planes are ceil(width / 2^sx) x ceil(height /
 * 2^sy), as FFmpeg sizes them.
 */
typedef struct jf_video_format {
    int width, height;       /**< of the picture (plane 0), >= 1 */
    int planes;              /**< 1 .. JF_VIDEO_MAX_PLANES, stored one after another */
    int color_planes;        /**< the first planes that carry the picture (444alpha: 3,
                                  its plane 3 is alpha, which filters leave alone) */
    int plane_width[JF_VIDEO_MAX_PLANES], plane_height[JF_VIDEO_MAX_PLANES];
    int plane_channels[JF_VIDEO_MAX_PLANES]; /**< 1, or 3 for raw rgb24 */
    int fps_num, fps_den;    /**< frame rate (Y4M F tag), 0 0 when unknown */
    int raw;                 /**< non-zero: headerless frames */
    char layout[16];         /**< "420jpeg", "mono", ... (Y4M C tag) or the raw pixel format */
    uint64_t frame_bytes;    /**< pixel bytes of one frame, all planes */
    int reserved[8];         /**< zero */
} jf_video_format;

typedef struct jf_video_reader jf_video_reader;

/** Start reading a Y4M stream from file descriptor `fd` (a file, a pipe,
 *  standard input: read sequentially, never seeked); its header is read
 *  now.  `name` stands for the stream in errors ("-": "standard input").
 *  The descriptor stays the caller's.  Errors: JF_ERR_ARG, JF_ERR_IO,
 *  JF_ERR_DECODE (not a YUV4MPEG2 header, a bad tag), JF_ERR_UNSUPPORTED
 *  (a valid colour space jetfilter does not handle, such as 10-bit ones),
 *  JF_ERR_LIMIT (over jf_max_pixels()), JF_ERR_NOMEM. */
jf_status jf_video_open_y4m(int fd, const char *name, jf_video_reader **out);

/** Start reading headerless frames of `width` x `height` in `pix_fmt`
 *  (see jf_video_format).  Errors as jf_video_open_y4m. */
jf_status jf_video_open_raw(int fd, const char *name, int width, int height,
                            const char *pix_fmt, jf_video_reader **out);

/** The stream's layout.  Never NULL for an open reader. */
const jf_video_format *jf_video_reader_format(const jf_video_reader *r);

/** The Y4M header line as read (no newline; "" for raw streams). */
const char *jf_video_reader_header(const jf_video_reader *r);

/**
 * Read the next frame into `planes` (format.planes host, mapped or managed
 * images of the planes' sizes and channels, any stride; the bytes go
 * straight from the descriptor into them).  `*got` is 1 for a frame, 0 at
 * the end of the stream.  A second header identical to the first between
 * frames (streams joined with cat) is passed over.  Errors name the stream
 * and the frame, counted from 0: JF_ERR_DECODE (a truncated frame, a line
 * that is not FRAME, a header that changes mid-stream), JF_ERR_IO.
 */
jf_status jf_video_read(jf_video_reader *r, jf_image *planes, int *got);

/** The FRAME line's parameters of the last frame read, without "FRAME "
 *  ("" when there were none). */
const char *jf_video_frame_params(const jf_video_reader *r);

/** Release the reader (the descriptor is not closed).  NULL is fine. */
void jf_video_reader_close(jf_video_reader *r);

typedef struct jf_video_writer jf_video_writer;

/** Start writing a stream of `format` to `fd`.  Y4M: `y4m_header` (a
 *  reader's header, so frame rate, aspect, interlacing and comments pass
 *  through unchanged) or NULL for one made from `format`; written now.
 *  Errors: JF_ERR_ARG, JF_ERR_IO, JF_ERR_NOMEM. */
jf_status jf_video_writer_open(int fd, const char *name, const jf_video_format *format,
                               const char *y4m_header, jf_video_writer **out);

/** Write one frame: its FRAME line (with `frame_params`, may be NULL) and
 *  `planes` as jf_video_read takes them.  A reader that went away (a closed
 *  pipe: the caller should ignore SIGPIPE) is JF_ERR_IO naming the frame. */
jf_status jf_video_write(jf_video_writer *w, const jf_image *planes, const char *frame_params);

/** Release the writer (the descriptor is not closed).  NULL is fine. */
void jf_video_writer_close(jf_video_writer *w);

/* ------------------------------------------------------------------------ */
/* Stats: what each stage and kernel cost (off unless the context asks)     */
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

/** Records held: the last `jf_context_options.stats` ones, oldest first.
 *  GPU work appears once it is known to be done (after a synchronous call
 *  or jf_context_sync()). */
size_t jf_stats_count(const jf_context *ctx);
/** Record `index` (0 = oldest held), or NULL.  Valid until the next call on ctx. */
const jf_stat *jf_stats_at(const jf_context *ctx, size_t index);
/** Records that no longer fit and were dropped since the last clear. */
uint64_t jf_stats_dropped(const jf_context *ctx);

/** Running totals per stage (name and variant) since the last clear; they
 *  never drop anything.  Up to 64 distinct stages are kept. */
typedef struct jf_stat_total {
    char name[32], variant[16];
    uint64_t calls;
    double ms, min_ms, max_ms;
    uint64_t bytes_read, bytes_written;
    double peak_gbps;
} jf_stat_total;

/** Number of stages with totals; fills up to `max` of them into `out`
 *  (which may be NULL to count). */
size_t jf_stats_totals(const jf_context *ctx, jf_stat_total *out, size_t max);

/** Forget the records and the totals; GPU work queued before the call and
 *  not yet finished adds no record when it completes. */
void jf_stats_clear(jf_context *ctx);

#ifdef __cplusplus
}
#endif
#endif /* JETFILTER_H */
