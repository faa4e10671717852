/*
 * jetfilter/context.h - CUDA devices, contexts (backend, threads, stream,
 * frames, tuning profiles) and the stats they keep.
 * Part of the public API; include <jetfilter.h>, which includes every part.
 */
#ifndef JETFILTER_CONTEXT_H
#define JETFILTER_CONTEXT_H

#include "jetfilter/base.h"
#include "jetfilter/codecs.h"

#ifdef __cplusplus
extern "C" {
#endif

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
    int code_cc;              /**< compute capability x 10 the library's kernels were compiled
                                   for, as they run on this device (their PTX's where the driver
                                   compiles them at load: 53 for a Nano-only build on a newer
                                   GPU); known for a context's device (jf_context_device), 0
                                   from jf_device_query (it starts no CUDA context) */
    char pci_bus_id[16];      /**< "0000:3b:00.0", lower case as sysfs names it; "" unknown */
    int reserved[10];
} jf_device_info;

/** Number of usable CUDA devices; 0 with a reason in jf_last_error() when
 *  none (or when the library was built without CUDA). */
JF_API int jf_device_count(void);

/** Fill `info` for device `index`.  The environment variable
 *  JETFILTER_DEVICE_LIMITS=nano makes every device report (and every kernel
 *  choice respect) the Jetson Nano's limits: 1 multiprocessor, 48 KiB of
 *  shared memory per block and 64 KiB per SM, 32K registers per block.
 *  Errors: JF_ERR_ARG, JF_ERR_CUDA, JF_ERR_NO_DEVICE. */
JF_API jf_status jf_device_query(int index, jf_device_info *info);

/** Non-zero when the library was compiled with CUDA kernels. */
JF_API int jf_built_with_cuda(void);

/** Where the memory at `ptr` lives, as CUDA knows it (since 1.7): HOST for
 *  ordinary (or unknown) memory, MAPPED for page-locked host memory the GPU
 *  addresses, MANAGED, or DEVICE; `device` (may be NULL) gets its CUDA
 *  device (-1 for HOST).  For a frame from another library (a CUDA array
 *  interface gives a pointer, not a device).  Without CUDA: HOST. */
JF_API jf_status jf_memory_locate(const void *ptr, jf_location *location, int *device);

/* ------------------------------------------------------------------------ */
/* Context: backend, threads, stream, stats                                  */
/* ------------------------------------------------------------------------ */

typedef enum jf_backend {
    JF_BACKEND_AUTO = 0, /**< CUDA when a usable device exists, else CPU */
    JF_BACKEND_CPU,
    JF_BACKEND_CUDA,
    JF_BACKEND_COUNT
} jf_backend;

JF_API const char *jf_backend_name(jf_backend backend);

/** How host images reach the GPU. */
typedef enum jf_memory {
    JF_MEMORY_AUTO = 0, /**< MANAGED on integrated GPUs (Jetson), COPY on discrete ones */
    JF_MEMORY_COPY,     /**< device buffers; transfers through pinned staging buffers */
    JF_MEMORY_MANAGED,  /**< managed buffers that CPU and GPU both address: no copies
                             on integrated GPUs, page migration on discrete ones */
    JF_MEMORY_COUNT
} jf_memory;

JF_API const char *jf_memory_name(jf_memory memory);

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

JF_API const char *jf_codec_name(jf_codec codec);

/** Damaged JPEG data on the GPU's decoders (since 1.7): nvJPEG decodes a
 *  file whose entropy-coded data is damaged without a word, where
 *  libjpeg-turbo refuses it.  So, by default, a JPEG decoded by nvJPEG
 *  has its entropy-coded data checked by libjpeg-turbo as well (the
 *  coefficients only, no inverse DCT), and damage is the CPU decoder's
 *  JF_ERR_DECODE with the same message.  jf_set_gpu_jpeg_check(0) trusts
 *  the input: faster, and a damaged file decodes to damaged pixels.
 *  Process-wide. */
JF_API void jf_set_gpu_jpeg_check(int on);
JF_API int jf_gpu_jpeg_check(void);

/** Can `codec` be used on CUDA device `device`?  JF_OK, else
 *  JF_ERR_UNSUPPORTED with the reason in jf_last_error() ("libnvjpeg.so.13
 *  not found", "built without CUDA").  `detail` (may be NULL) receives a
 *  line such as "nvJPEG 13.0.1 (libnvjpeg.so.13), hardware decoder: 7 engines
 *  x 1 core" (asking for the engines takes nvJPEG a while: pass NULL when
 *  the words are not wanted).  A device's JPEG engine that the probe
 *  started stays for the next context made on that device, and closes
 *  with it. */
JF_API jf_status jf_codec_probe(jf_codec codec, int device, char *detail, size_t detail_size);

/** For a process that runs batch after batch (since 1.9): keep(1) keeps
 *  each device's JPEG engine and encoders open when their last context
 *  goes, so a later batch pays no start-up (about a second on a server
 *  GPU) and `--codec auto` counts none; keep(0) closes those no context
 *  uses.  Start them ahead with jf_codec_probe(JF_CODEC_AUTO, device, ...).
 *  Process-wide; `jetfilter serve` keeps them. */
JF_API void jf_codec_keep(int keep);

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

JF_API jf_context_options jf_context_defaults(void);
#define JF_CONTEXT_OPTIONS_INIT \
    {sizeof(jf_context_options), JF_BACKEND_AUTO, 0, 0, NULL, JF_MEMORY_AUTO, 0.0, 0, 0, JF_CODEC_CPU}

typedef struct jf_context jf_context;

/** Create a context.  `opt` NULL means the defaults.  Errors: JF_ERR_ARG,
 *  JF_ERR_NO_DEVICE (CUDA asked for but no usable device, or built
 *  without CUDA), JF_ERR_CUDA, JF_ERR_NOMEM. */
JF_API jf_status jf_context_create(const jf_context_options *opt, jf_context **out);

/** Wait for queued work, then release everything.  NULL is fine. */
JF_API void jf_context_destroy(jf_context *ctx);

/** Wait until every call queued on the context's stream has finished, and
 *  collect the stats of that work.  A CPU context returns JF_OK at once.
 *  Errors: JF_ERR_CUDA (an asynchronous kernel failed: the detail names the
 *  failure; the context should then be destroyed). */
JF_API jf_status jf_context_sync(jf_context *ctx);

/** The backend in use (never AUTO). */
JF_API jf_backend jf_context_backend(const jf_context *ctx);
/** Why AUTO chose what it chose ("no CUDA device: ..."), or "". */
JF_API const char *jf_context_note(const jf_context *ctx);

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
JF_API jf_status jf_profiles_use(const char *dir, const char *power_mode);
/** The profile file name of a device in a power mode, e.g.
 *  "nvidia-h100-80gb-hbm3-sm90-none.profile". */
JF_API void jf_profile_file_name(const jf_device_info *dev, const char *power_mode, char *out, size_t n);
/** The profile a context's `auto` follows (its path), or NULL: built-in tables. */
JF_API const char *jf_context_profile(const jf_context *ctx);
/** Number of CPU threads the context uses. */
JF_API int jf_context_threads(const jf_context *ctx);
/** The memory mode in use (never AUTO on a CUDA context; COPY on the CPU). */
JF_API jf_memory jf_context_memory(const jf_context *ctx);
/** The cudaStream_t the context queues on (NULL on a CPU context). */
JF_API void *jf_context_stream(const jf_context *ctx);
/** Queue the context's later work on `stream` (a cudaStream_t of the
 *  caller's, including cudaStreamLegacy and cudaStreamPerThread; NULL: the
 *  context's own stream) (since 1.7).  No host wait: the new stream waits
 *  for what was queued on the old one (an event), so work stays in order.
 *  Buffers the context keeps in managed memory move with it; MANAGED
 *  images of jf_image_alloc_on stay attached to the stream they were made
 *  on (a device without concurrent managed access, such as the Nano, then
 *  needs them re-attached).  A caller's stream is never destroyed.  Errors:
 *  JF_ERR_NO_DEVICE (a stream given to a CPU context), JF_ERR_CUDA. */
JF_API jf_status jf_context_set_stream(jf_context *ctx, void *stream);
/** Make `stream` wait, on the device, for everything queued on the context
 *  so far (an event; no host wait): how a consumer on another stream is
 *  handed an output (since 1.7).  A CPU context: nothing to wait for.
 *  Errors: JF_ERR_CUDA. */
JF_API jf_status jf_context_order(jf_context *ctx, void *stream);
/** Device facts of a CUDA context (theoretical bandwidth after any override).
 *  Errors: JF_ERR_NO_DEVICE (a CPU context). */
JF_API jf_status jf_context_device(const jf_context *ctx, jf_device_info *info);

/** Allocate an image in `location` (HOST; DEVICE, pitched; MAPPED; MANAGED,
 *  attached to the context's stream) on the context's device.  Errors:
 *  JF_ERR_ARG, JF_ERR_LIMIT, JF_ERR_NO_DEVICE (not HOST on a CPU context),
 *  JF_ERR_CUDA, JF_ERR_NOMEM. */
JF_API jf_status jf_image_alloc_on(jf_context *ctx, jf_image *img, int width, int height,
                            int channels, jf_location location);

/** jf_image_alloc_on with a sample type (since 1.5). */
JF_API jf_status jf_image_alloc_on_as(jf_context *ctx, jf_image *img, int width, int height,
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
JF_API jf_status jf_context_frame(jf_context *ctx, int which, int width, int height, int channels,
                           jf_image *img);

/** jf_context_frame with a sample type (rows of width * channels *
 *  jf_sample_size(sample) bytes).  Since 1.5. */
JF_API jf_status jf_context_frame_as(jf_context *ctx, int which, int width, int height, int channels,
                              jf_sample sample, jf_image *img);

/** As jf_picture_encode, on a context: a picture whose colour plane is in
 *  device memory (frame 3, say, after a filter) is encoded there by nvJPEG
 *  when the output is JPEG and the context's codec is not CPU (metadata as
 *  the CPU encoder writes it; nvJPEG's DCT and Huffman coding, so the bytes
 *  differ from libjpeg-turbo's, the decoded pixels by little:
 *  docs/kernels/studies.md "nvJPEG"); otherwise it is copied into frame 1 and
 *  encoded on the CPU.  Host pictures go to jf_picture_encode.  `on_gpu`
 *  (may be NULL) says which happened.  Errors: as jf_picture_encode, plus
 *  JF_ERR_CUDA.  Since 1.4. */
JF_API jf_status jf_picture_encode_frame(jf_context *ctx, const jf_picture *pic,
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
 *  upsampling; docs/kernels/studies.md "nvJPEG").  A file nvJPEG refuses is
 *  decoded on the CPU, so errors read as with the CPU decoder. */
JF_API jf_status jf_picture_decode_frame(jf_context *ctx, const unsigned char *bytes, size_t size,
                                  const char *name, jf_picture *pic);

/** Copy pixels between images of the same shape in any two locations
 *  (host <-> device, device <-> device, ...) on the context's stream, and
 *  wait until done.  Errors: JF_ERR_ARG, JF_ERR_NO_DEVICE, JF_ERR_CUDA. */
JF_API jf_status jf_image_transfer(jf_context *ctx, const jf_image *src, jf_image *dst);


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
JF_API double jf_stat_gbps(const jf_stat *stat);
/** That as a percentage of peak_gbps (0 when unknown). */
JF_API double jf_stat_percent(const jf_stat *stat);

/** Records held: the last `jf_context_options.stats` ones, oldest first.
 *  GPU work appears once it is known to be done (after a synchronous call
 *  or jf_context_sync()). */
JF_API size_t jf_stats_count(const jf_context *ctx);
/** Record `index` (0 = oldest held), or NULL.  Valid until the next call on ctx. */
JF_API const jf_stat *jf_stats_at(const jf_context *ctx, size_t index);
/** Records that no longer fit and were dropped since the last clear. */
JF_API uint64_t jf_stats_dropped(const jf_context *ctx);

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
JF_API size_t jf_stats_totals(const jf_context *ctx, jf_stat_total *out, size_t max);

/** Forget the records and the totals; GPU work queued before the call and
 *  not yet finished adds no record when it completes. */
JF_API void jf_stats_clear(jf_context *ctx);

#ifdef __cplusplus
}
#endif
#endif /* JETFILTER_CONTEXT_H */
