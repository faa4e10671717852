/*
 * jetfilter/codecs.h - JPEG and PNG: decoding, metadata, encoding.
 * Part of the public API; include <jetfilter.h>, which includes every part.
 */
#ifndef JETFILTER_CODECS_H
#define JETFILTER_CODECS_H

#include "jetfilter/base.h"

#ifdef __cplusplus
extern "C" {
#endif

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
JF_API jf_format jf_sniff_format(const unsigned char *bytes, size_t size);

/** "jpeg", "png" or "unknown". */
JF_API const char *jf_format_name(jf_format format);

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
JF_API jf_status jf_picture_decode(const unsigned char *bytes, size_t size,
                            const char *name, jf_picture *pic);

/** Read and decode a file; the format is sniffed from its bytes.  As
 *  jf_picture_decode, plus JF_ERR_IO (cannot open or read). */
JF_API jf_status jf_picture_read(const char *path, jf_picture *pic);

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
 *  docs/kernels/studies.md ("PNG writing"): fast, files somewhat larger than
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

JF_API jf_encode_options jf_encode_defaults(void);
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
JF_API jf_status jf_picture_encode(const jf_picture *pic, const jf_encode_options *opt,
                            unsigned char **bytes, size_t *size);

/** Encode and write atomically: a temporary file in the target folder is
 *  renamed over `path` only when complete; on failure nothing is left.
 *  As jf_picture_encode, plus JF_ERR_IO. */
JF_API jf_status jf_picture_write(const char *path, const jf_picture *pic,
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
JF_API jf_status jf_picture_cmyk_to_rgb(jf_picture *pic);

/** Release everything a picture owns and zero it.  NULL is fine. */
JF_API void jf_picture_free(jf_picture *pic);

#ifdef __cplusplus
}
#endif
#endif /* JETFILTER_CODECS_H */
