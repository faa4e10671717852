/* Internal to io/ and the layers above: codecs, file helpers and the
 * directory walk. */
#ifndef JF_IO_IO_H
#define JF_IO_IO_H

#include "jetfilter.h"

#include <limits.h>
#include <stdint.h>
#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A big-endian 32-bit number (PNG's lengths and CRCs), and whether this
 * host keeps 16-bit samples the other way round (PNG stores them
 * big-endian). */
static inline uint32_t jf_be32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline int jf_host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* The decoders put the colour plane into frame 0 of `frame_ctx` when it is
 * not NULL (jf_picture_decode_frame), else into memory the picture owns. */
jf_status jf_picture_alloc_color(jf_context *frame_ctx, jf_picture *pic, int width, int height,
                                 int channels, jf_sample sample);
/* Whether a JPEG's entropy-coded data reads to its end as libjpeg-turbo
 * reads it: JF_ERR_DECODE with the CPU decoder's message when it is
 * damaged.  What the GPU's decoders are held to (jf_set_gpu_jpeg_check). */
jf_status jf_jpeg_check_entropy(const unsigned char *bytes, size_t size);
/* The same in parts, for tests and measurements: FULL is the above (the
 * walk, then libjpeg-turbo where the walk cannot prove the file clean),
 * LIBJPEG libjpeg-turbo alone, WALK the walk alone (JF_ERR_UNSUPPORTED
 * where it cannot prove the file clean). */
typedef enum { JF_JPEG_CHECK_FULL, JF_JPEG_CHECK_LIBJPEG, JF_JPEG_CHECK_WALK } jf_jpeg_check_how;
jf_status jf_jpeg_check_entropy_how(const unsigned char *bytes, size_t size,
                                    jf_jpeg_check_how how);
/* The walk over a scan's Huffman codes (jpeg_scan_check.c), `cinfo` just
 * past jpeg_read_header on `bytes`: 1 when the scan is clean as libjpeg-turbo
 * reads it (a file the GPU's engine decodes), 0 when it cannot say. */
struct jpeg_decompress_struct;
int jf_jpeg_scan_clean(struct jpeg_decompress_struct *cinfo, const unsigned char *bytes,
                       size_t size);
jf_status jf_jpeg_decode(jf_context *frame_ctx, const unsigned char *bytes, size_t size,
                         jf_picture *pic);
jf_status jf_jpeg_encode(const jf_picture *pic, int quality, unsigned char **out, size_t *out_size);
jf_status jf_png_decode(jf_context *frame_ctx, const unsigned char *bytes, size_t size,
                        jf_picture *pic);
jf_status jf_png_encode(const jf_picture *pic, int level, jf_png_filter filter, unsigned char **out,
                        size_t *out_size);
/* Whether a 16-bit image at zlib level `level` (0..3) is written with
 * run-length matching (Z_RLE) rather than hash chains: a sample of its rows
 * is compressed both ways. */
int jf_png_rle_suits(const jf_image *img, int level);

/* jf_picture_decode_frame for page `page` of a multi-page file. */
jf_status jf_picture_decode_page_frame(jf_context *ctx, const unsigned char *bytes, size_t size,
                                       const char *name, int page, jf_picture *pic);

/* jf_pages_add for a picture that may be in device memory (a GPU
 * context's output frame): brought down into frame 1 first, as
 * jf_picture_encode_frame does. */
jf_status jf_pages_add_frame(jf_context *ctx, jf_page_writer *w, const jf_picture *pic);

/* TIFF (codec_tiff.c): a page of the file; the pages of a file written one
 * at a time (`compression` a jf_tiff_compression, `level` deflate's); close
 * with `out` NULL discards. */
jf_status jf_tiff_decode(jf_context *frame_ctx, const unsigned char *bytes, size_t size, int page,
                         jf_picture *pic);
typedef struct jf_tiff_writer jf_tiff_writer;
jf_status jf_tiff_writer_open(int pages, jf_tiff_writer **w);
jf_status jf_tiff_writer_add(jf_tiff_writer *w, const jf_picture *pic, int compression, int level);
jf_status jf_tiff_writer_close(jf_tiff_writer *w, unsigned char **out, size_t *out_size);
/* WebP (codec_webp.c) */
jf_status jf_webp_decode(jf_context *frame_ctx, const unsigned char *bytes, size_t size,
                         jf_picture *pic);
jf_status jf_webp_encode(const jf_picture *pic, int quality, int lossless, unsigned char **out,
                         size_t *out_size);
/* PFM (codec_pfm.c): float32 grey or RGB (the encoder is handed those
 * only: jf_picture_encode checks). */
jf_status jf_pfm_decode(jf_context *frame_ctx, const unsigned char *bytes, size_t size,
                        jf_picture *pic);
jf_status jf_pfm_encode(const jf_picture *pic, unsigned char **out, size_t *out_size);

/* The metadata segments a JPEG of `pic` carries (EXIF, the ICC profile in
 * chunks, other APPn and COM markers), in order, each through `put`; what
 * JPEG cannot carry is said in the warning.  Both JPEG encoders use it. */
typedef void (*jf_segment_fn)(void *user, int marker, const unsigned char *data, unsigned int len);
void jf_jpeg_metadata(const jf_picture *pic, jf_segment_fn put, void *user);

/* nvJPEG (codec_nvjpeg.c): does this context decode JPEGs on the GPU (its
 * codec option, backend and memory mode, the library, the device's
 * hardware engine for AUTO)?  And the decode itself, into the context's
 * device decode buffer, done when it returns; `engine` 1 hardware, 2
 * hybrid.  JF_ERR_UNSUPPORTED when nvJPEG cannot take the file: the caller
 * decodes it on the CPU. */
int jf_nvjpeg_wanted(jf_context *ctx);
/* Encode a picture whose colour plane is in device memory with nvJPEG on
 * the context's stream (the context's codec not CPU): metadata as the CPU
 * encoder writes it.  JF_ERR_UNSUPPORTED when it cannot (no encoder in the
 * library, a host image): the caller encodes on the CPU. */
jf_status jf_nvjpeg_encode(jf_context *ctx, const jf_picture *pic, int quality,
                           unsigned char **out, size_t *out_size);
/* With `check`, the entropy-coded data is also read by libjpeg-turbo
 * (jf_jpeg_check_entropy, while the engine decodes): damage is JF_ERR_DECODE
 * with the CPU decoder's message, not a reason to decode on the CPU. */
jf_status jf_nvjpeg_decode(jf_context *ctx, const unsigned char *bytes, size_t size, int width,
                           int height, int channels, int check, jf_image *out, int *engine);

/* While `keep` is set, a device's nvJPEG service (the engine's and the
 * encoders' threads, the engine made) stays open when its last context
 * goes: a process that runs batch after batch starts the engine (longer
 * than many files take) once.  Unset, it closes those no context uses. */
void jf_nvjpeg_keep(int keep);
/* 1 when device `device`'s JPEG engine has started or is starting in this
 * process (a kept service): a batch pays no start-up for it. */
int jf_nvjpeg_running(int device);

/* What device `device`'s nvJPEG service did in this process, as a line
 * for -v (engine batches, how busy its decoder's and encoders' threads
 * were, how long a request waited to be taken, was served and waited for
 * its job to run again); 0 when it did nothing.  512 bytes hold it. */
int jf_nvjpeg_tally(int device, char *out, size_t size);

/* "default", "none", "sub", "up", "avg", "paeth", "adaptive" (jf_png_filter order) */
extern const char *const jf_png_filter_names[JF_PNG_FILTER_COUNT + 1];
/* jf_png_filter_names[JF_PNG_DEFAULT_FILTER], for tables that need a constant */
#define JF_PNG_DEFAULT_FILTER_NAME "up"

/* What the structure of a file says before any decoder runs (scan.c). */
typedef struct jf_png_scan {
    uint32_t width, height;
    int depth, color_type, interlace;
    uint64_t idat_bytes;
    uint64_t metadata_bytes;  /* text, iCCP, eXIf: inflated where compressed */
    int ancillary_chunks;     /* text and other ancillary chunks libpng keeps */
    int transparency;         /* a tRNS chunk: decoded with alpha */
} jf_png_scan;

typedef struct jf_jpeg_scan {
    int width, height, components, progressive, scans;
    int markers;              /* APPn and COM segments */
    int complete;             /* the end-of-image marker is there */
    uint64_t metadata_bytes;  /* APPn and COM segments */
} jf_jpeg_scan;

typedef struct jf_tiff_scan {
    uint32_t width, height;   /* the first page's */
    int samples, bits, sample_format, photometric, compression;
    int pages, bigtiff;
    uint64_t metadata_bytes;  /* every page's text, ICC, XMP, IPTC tags */
    uint64_t largest_page_bytes; /* samples of the largest page, as stored */
} jf_tiff_scan;

typedef struct jf_webp_scan {
    uint32_t width, height;
    int lossless, animated;
    uint64_t metadata_bytes;  /* ICCP, EXIF and XMP chunks */
} jf_webp_scan;

typedef struct jf_pfm_scan {
    uint32_t width, height;
    int channels;             /* 1 ("Pf") or 3 ("PF") */
    int little_endian;        /* the scale's sign: negative */
    size_t data_offset;       /* where the samples start */
} jf_pfm_scan;

/* Check a file's chunks, markers or directories against jf_get_limits();
 * JF_ERR_DECODE for a structure that cannot be right, JF_ERR_LIMIT for one
 * over a limit. */
jf_status jf_png_prescan(const unsigned char *bytes, size_t size, jf_png_scan *scan);
jf_status jf_jpeg_prescan(const unsigned char *bytes, size_t size, jf_jpeg_scan *scan);
jf_status jf_tiff_prescan(const unsigned char *bytes, size_t size, jf_tiff_scan *scan);
jf_status jf_webp_prescan(const unsigned char *bytes, size_t size, jf_webp_scan *scan);
jf_status jf_pfm_prescan(const unsigned char *bytes, size_t size, jf_pfm_scan *scan);
/* A PFM's header from its first `avail` bytes, checked against the file's
 * whole size: 1, or 0 with the reason in `why` (no error is set). */
int jf_pfm_header(const unsigned char *bytes, size_t avail, uint64_t file_size, jf_pfm_scan *scan,
                  char *why, size_t n);

/* A PNG's image data inflated in one piece through libdeflate
 * (png_deflate.c): jf_png_inflate_rows fills `rows` (host-order 16-bit
 * samples, alpha interleaved) as libpng would and returns 1, or returns 0
 * and leaves the file to libpng (no libdeflate, or a layout or stream it
 * does not take). */
int jf_png_has_libdeflate(void);
int jf_png_inflate_rows(const unsigned char *file, size_t size, const jf_png_scan *scan,
                        unsigned char *const *rows);

/* Size and the memory decoding will need, from the structure alone. */
typedef struct jf_probe {
    jf_format format;
    int width, height, channels; /* channels as decoded (alpha included) */
    int sample_bytes;            /* 1, or 2 for a 16-bit PNG or TIFF */
    int pages;                   /* a TIFF's; 1 for the others */
    int progressive;
    uint64_t decode_bytes;       /* pixels, alpha, and a progressive JPEG's coefficients */
} jf_probe;
jf_status jf_picture_probe(const unsigned char *bytes, size_t size, jf_probe *probe);

/* Append a metadata blob (copies the bytes). */
jf_status jf_picture_add_blob(jf_picture *pic, int tag, const char *key,
                              const unsigned char *data, size_t size);

/* Read a whole regular file into a malloc()ed buffer, refusing more than
 * `limit` bytes.  FIFOs and devices are refused, never waited on. */
jf_status jf_read_file(const char *path, size_t limit, unsigned char **bytes, size_t *size);
/* Read an open descriptor (standard input) to its end, refusing more than
 * `limit` bytes, nothing, or a terminal (it would wait for typing); errors
 * name `name`. */
jf_status jf_read_fd(int fd, const char *name, size_t limit, unsigned char **bytes, size_t *size);
/* Write all of `bytes` to an open descriptor (standard output); errors
 * (a reader that went away) name `name`. */
jf_status jf_write_fd(int fd, const char *name, const unsigned char *bytes, size_t size);

/* Write bytes to `path` through a temporary file in the same folder
 * (".jf-PID-XXXXXX": short, so any legal output name works) and a rename;
 * with sync on (the default), the file is flushed to the disk before the
 * rename and the folder after it, so a power cut leaves the old file or the
 * whole new one.  Nothing is left behind on failure or on SIGINT/SIGTERM. */
jf_status jf_write_file_atomic(const char *path, const unsigned char *bytes, size_t size);

/* The same for a file written piece by piece (a stream): open makes the
 * temporary, the caller writes to `fd`, commit flushes it (with sync on)
 * and renames it into place, abort removes it.  Errors name `path`. */
typedef struct jf_atomic_file {
    int fd;
    int slot;
    char path[PATH_MAX], tmp[PATH_MAX];
} jf_atomic_file;
jf_status jf_atomic_open(const char *path, jf_atomic_file *f);
jf_status jf_atomic_commit(jf_atomic_file *f);
void jf_atomic_abort(jf_atomic_file *f);

/* Process-wide: fsync outputs (default on; --no-sync turns it off). */
void jf_set_sync_writes(int on);
int jf_sync_writes(void);

/* Remove temporary files still being written (async-signal-safe). */
void jf_atomic_cleanup(void);

/* Remove temporaries of jetfilter's naming in `folder` that a process no
 * longer running left behind (killed, or a power cut) and that are older
 * than `before` (seconds since the epoch).  Returns how many went. */
int jf_remove_stale_temporaries(const char *folder, long long before);

/* Create a folder and its parents (mode 0777 & ~umask). */
jf_status jf_mkdirs(const char *path);

/* The same for a folder inside `root` (the output folder): root as
 * jf_mkdirs makes it, and every folder below it made or found as a real
 * folder: a symbolic link there (to a folder elsewhere) is an error that
 * names it, so that no output lands outside the tree.  A path not inside
 * root: jf_mkdirs. */
jf_status jf_mkdirs_below(const char *root, const char *path);

/* Is `path` a whole image file: its signature first and its end last
 * (JPEG's EOI, PNG's IEND chunk, WebP's RIFF size, a TIFF's first
 * directory)?  Reads a few bytes only: a file cut short, or left empty, is
 * not whole.  0 with the reason in
 * `why` (may be NULL) when not. */
int jf_file_whole_image(const char *path, char *why, size_t n);

/* The format a file's first bytes say (JF_FORMAT_UNKNOWN: none, or not a
 * regular file that can be read), and its size in `bytes` (may be NULL).
 * Opened non-blocking: a FIFO is never waited on.  A file without an image
 * extension counts as an image when its format is known. */
jf_format jf_file_format(const char *path, double *bytes);

/* The format a file name's extension names (.jpg .jpeg .jpe .jfif .png
 * .tif .tiff .webp, any case), else JF_FORMAT_UNKNOWN; and whether it has
 * one of them. */
jf_format jf_extension_format(const char *name);
int jf_has_image_extension(const char *name);

/* What a directory walk reports for each entry it meets.  Nothing is passed
 * over without being reported, so a caller can name and count everything it
 * does not process. */
typedef enum jf_walk_event {
    JF_WALK_IMAGE,   /* an image file (by extension or magic bytes) */
    JF_WALK_OTHER,   /* not an image: a regular file, or (with the reason) a FIFO, a
                        device or a dangling link that does not carry an image's name */
    JF_WALK_PASSED,  /* a link back to a folder already on the path (a loop): its
                        files are reached the other way; not followed */
    JF_WALK_FAILED   /* an entry that should have been read and cannot be: an unreadable
                        folder or file, a dangling link, FIFO or device with an image's
                        name, a folder deeper than the depth limit */
} jf_walk_event;

/* Called for every entry, in sorted order within each folder; `rel` is the
 * path below the root.  A non-zero return stops the walk (out of memory). */
typedef int (*jf_walk_fn)(void *user, jf_walk_event event, const char *path, const char *rel,
                          const char *reason);

/* Walk `root` recursively, `max_depth` folders deep at most (a folder below
 * that is a failure naming the limit): hidden entries (".name", our
 * temporaries among them) are not visited; links to folders are followed
 * unless they lead back to a folder on the current path; the folder whose
 * real path is `skip_real` (the output inside an input) is left out.
 * Returns 0, or the callback's non-zero value (-1: out of memory). */
#define JF_WALK_DEFAULT_DEPTH 64
int jf_walk(const char *root, const char *skip_real, int max_depth, jf_walk_fn fn, void *user);

/* The same walk an entry at a time, for a caller that takes files as it
 * needs them: next gives 1 and an entry (its strings valid until the next
 * call), 0 at the end, -1 out of memory.  It holds the names of the
 * folders on the current path only. */
typedef struct jf_walker jf_walker;
jf_walker *jf_walker_open(const char *root, const char *skip_real, int max_depth);
int jf_walker_next(jf_walker *w, jf_walk_event *event, const char **path, const char **rel,
                   const char **reason);
void jf_walker_close(jf_walker *w);

#ifdef __cplusplus
}
#endif
#endif
