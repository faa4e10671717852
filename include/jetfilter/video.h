/*
 * jetfilter/video.h - YUV4MPEG2 (Y4M) and raw video frames.
 * Part of the public API; include <jetfilter.h>, which includes every part.
 */
#ifndef JETFILTER_VIDEO_H
#define JETFILTER_VIDEO_H

#include "jetfilter/base.h"

#ifdef __cplusplus
extern "C" {
#endif

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
JF_API jf_status jf_video_open_y4m(int fd, const char *name, jf_video_reader **out);

/** Start reading headerless frames of `width` x `height` in `pix_fmt`
 *  (see jf_video_format).  Errors as jf_video_open_y4m. */
JF_API jf_status jf_video_open_raw(int fd, const char *name, int width, int height,
                            const char *pix_fmt, jf_video_reader **out);

/** The stream's layout.  Never NULL for an open reader. */
JF_API const jf_video_format *jf_video_reader_format(const jf_video_reader *r);

/** The Y4M header line as read (no newline; "" for raw streams). */
JF_API const char *jf_video_reader_header(const jf_video_reader *r);

/**
 * Read the next frame into `planes` (format.planes host, mapped or managed
 * images of the planes' sizes and channels, any stride; the bytes go
 * straight from the descriptor into them).  `*got` is 1 for a frame, 0 at
 * the end of the stream.  A second header identical to the first between
 * frames (streams joined with cat) is passed over.  Errors name the stream
 * and the frame, counted from 0: JF_ERR_DECODE (a truncated frame, a line
 * that is not FRAME, a header that changes mid-stream), JF_ERR_IO.
 */
JF_API jf_status jf_video_read(jf_video_reader *r, jf_image *planes, int *got);

/** The FRAME line's parameters of the last frame read, without "FRAME "
 *  ("" when there were none). */
JF_API const char *jf_video_frame_params(const jf_video_reader *r);

/** Release the reader (the descriptor is not closed).  NULL is fine. */
JF_API void jf_video_reader_close(jf_video_reader *r);

typedef struct jf_video_writer jf_video_writer;

/** Start writing a stream of `format` to `fd`.  Y4M: `y4m_header` (a
 *  reader's header, so frame rate, aspect, interlacing and comments pass
 *  through unchanged) or NULL for one made from `format`; written now.
 *  Errors: JF_ERR_ARG, JF_ERR_IO, JF_ERR_NOMEM. */
JF_API jf_status jf_video_writer_open(int fd, const char *name, const jf_video_format *format,
                               const char *y4m_header, jf_video_writer **out);

/** Write one frame: its FRAME line (with `frame_params`, may be NULL) and
 *  `planes` as jf_video_read takes them.  A reader that went away (a closed
 *  pipe: the caller should ignore SIGPIPE) is JF_ERR_IO naming the frame. */
JF_API jf_status jf_video_write(jf_video_writer *w, const jf_image *planes, const char *frame_params);

/** Release the writer (the descriptor is not closed).  NULL is fine. */
JF_API void jf_video_writer_close(jf_video_writer *w);

#ifdef __cplusplus
}
#endif
#endif /* JETFILTER_VIDEO_H */
