/*
 * jetfilter/codecs.h - JPEG, PNG, TIFF, WebP and PFM: decoding, metadata, encoding.
 * Part of the public API; include <jetfilter.h>, which includes every part.
 */
#ifndef JETFILTER_CODECS_H
#define JETFILTER_CODECS_H

#include "jetfilter/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Files: JPEG, PNG, TIFF and WebP                                          */
/* ------------------------------------------------------------------------ */

typedef enum jf_format {
    JF_FORMAT_UNKNOWN = 0,
    JF_FORMAT_JPEG,
    JF_FORMAT_PNG,
    JF_FORMAT_TIFF,   /**< since 1.11, in builds with libtiff (jf_format_supported) */
    JF_FORMAT_WEBP,   /**< since 1.11, in builds with libwebp */
    JF_FORMAT_PFM,    /**< since 1.13: float32 grey or RGB (Netpbm's Portable Float Map) */
    JF_FORMAT_COUNT
} jf_format;

/** Format from the first bytes of a file (magic numbers, not the name). */
JF_API jf_format jf_sniff_format(const unsigned char *bytes, size_t size);

/** "jpeg", "png", "tiff", "webp", "pfm" or "unknown". */
JF_API const char *jf_format_name(jf_format format);

/** 1 when this build reads and writes `format` (TIFF and WebP are optional
 *  at build time; JPEG and PNG always there), else 0 (since 1.11). */
JF_API int jf_format_supported(jf_format format);

/** A metadata block carried from input to output unchanged. */
typedef struct jf_blob {
    unsigned char *data;
    size_t size;
    int tag;      /**< JPEG: marker code (0xE1 = APP1 ...); text: PNG's text compression
                       (-1 tEXt, 0 zTXt, 1 iTXt, 2 compressed iTXt) */
    char key[80]; /**< text (PNG text chunks, TIFF text tags, XMP): the PNG keyword
                       ("Description", "Author", "XML:com.adobe.xmp" ...); JPEG markers "" */
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
    int compression;   /**< how the input was compressed, written back so in its own format
                            (since 1.11): a TIFF's Compression tag (1 none, 5 LZW, 8 deflate,
                            32773 PackBits, others written as deflate); WebP 1 lossless,
                            0 lossy; 0 for JPEG and PNG */
    int pages;         /**< pages in the file it came from: a multi-page TIFF's count (this
                            is one of them: jf_picture_decode_page), else 1 (since 1.11) */
    int orientation;   /**< a TIFF's Orientation tag (1..8; 0 none), written back to TIFF;
                            the pixels are as stored (since 1.11) */
    int alpha_associated; /**< TIFF: the alpha plane is associated (premultiplied), written
                               back so (since 1.11) */
} jf_picture;

/** Decode a JPEG, PNG, TIFF, WebP or PFM held in memory (a TIFF's first page).
 *  `name` is used in error details (NULL: "<memory>").  `pic` is
 *  overwritten, not freed first: pass a zeroed or freed picture, or it
 *  leaks what it held.  On failure `pic` is left empty.  Errors:
 *  JF_ERR_ARG, JF_ERR_DECODE (no known format, damaged), JF_ERR_UNSUPPORTED
 *  (a valid layout jetfilter does not handle, or a format this build lacks),
 *  JF_ERR_LIMIT (over a limit of jf_limits), JF_ERR_NOMEM. */
JF_API jf_status jf_picture_decode(const unsigned char *bytes, size_t size,
                            const char *name, jf_picture *pic);

/** Page `page` (0 first) of a multi-page file (TIFF); pic->pages says how
 *  many there are.  Other formats have page 0 only.  As jf_picture_decode,
 *  plus JF_ERR_ARG for a page the file does not have (since 1.11). */
JF_API jf_status jf_picture_decode_page(const unsigned char *bytes, size_t size,
                                        const char *name, int page, jf_picture *pic);

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

/** How a TIFF is compressed (since 1.11): SAME keeps a TIFF input's own
 *  (deflate for other inputs, and for a TIFF compression jetfilter does not
 *  write, such as JPEG).  LZW and deflate use the horizontal predictor. */
typedef enum jf_tiff_compression {
    JF_TIFF_SAME = 0,
    JF_TIFF_NONE,
    JF_TIFF_LZW,
    JF_TIFF_DEFLATE,
    JF_TIFF_PACKBITS,
    JF_TIFF_COMPRESSION_COUNT
} jf_tiff_compression;

/** Lossy or lossless WebP (since 1.11): SAME is lossless exactly when the
 *  picture came from a lossless WebP. */
typedef enum jf_webp_mode { JF_WEBP_SAME = 0, JF_WEBP_LOSSY, JF_WEBP_LOSSLESS, JF_WEBP_MODE_COUNT } jf_webp_mode;

typedef struct jf_encode_options {
    size_t size;      /**< sizeof(jf_encode_options): use jf_encode_defaults() */
    jf_format format; /**< JF_FORMAT_JPEG, _PNG, _TIFF or _WEBP (default PNG) */
    int quality;      /**< JPEG and lossy WebP quality 1..100 (default 92) */
    int png_level;    /**< zlib level 0 (store) .. 9 of PNG and deflate TIFF;
                           -1: JF_PNG_DEFAULT_LEVEL */
    int reserved0;    /**< 1.0's trailing padding: ignored, keep 0 */
    int png_filter;   /**< jf_png_filter (since 1.1; default JF_PNG_FILTER_DEFAULT) */
    int reserved1;    /**< keep 0 */
    int tiff_compression; /**< jf_tiff_compression (since 1.11; default JF_TIFF_SAME) */
    int webp_mode;        /**< jf_webp_mode (since 1.11; default JF_WEBP_SAME) */
} jf_encode_options;

JF_API jf_encode_options jf_encode_defaults(void);
#define JF_ENCODE_OPTIONS_INIT {sizeof(jf_encode_options), JF_FORMAT_PNG, 92, -1, 0, 0, 0, 0, 0}

/** Encode into a malloc()ed buffer the caller frees.  JPEG drops alpha;
 *  WebP holds 8-bit RGB(A) (grey is written as RGB) up to 16383 pixels a
 *  side; TIFF holds everything a picture can (16 bits, CMYK, alpha).
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

/** Several pictures as the pages of one file (TIFF), one page at a time:
 *  begin, add each page (encoded as it is added: only the file so far is
 *  held), then end, which hands over the whole file (malloc()ed), or, with
 *  `bytes` NULL, discards it.  Every page is written with the options given
 *  to begin (format TIFF; JF_ERR_UNSUPPORTED for a format with one page
 *  once a second is added).  Since 1.11. */
typedef struct jf_page_writer jf_page_writer;
JF_API jf_status jf_pages_begin(const jf_encode_options *opt, int pages, jf_page_writer **writer);
JF_API jf_status jf_pages_add(jf_page_writer *writer, const jf_picture *pic);
JF_API jf_status jf_pages_end(jf_page_writer *writer, unsigned char **bytes, size_t *size);

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
