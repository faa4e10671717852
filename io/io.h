/* Internal to io/: codecs, file helpers and the directory walk. */
#ifndef JF_IO_IO_H
#define JF_IO_IO_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Check width x height x channels against the pixel limit and size_t;
 * `what` names the image in the error. */
jf_status jf_check_dims(const char *what, uint64_t width, uint64_t height, int channels);

/* Allocate the image only if it has no data yet, else check its shape. */
jf_status jf_image_prepare(jf_image *img, int width, int height, int channels);

jf_status jf_jpeg_decode(const unsigned char *bytes, size_t size, jf_picture *pic);
jf_status jf_jpeg_encode(const jf_picture *pic, int quality, unsigned char **out, size_t *out_size);
jf_status jf_png_decode(const unsigned char *bytes, size_t size, jf_picture *pic);
jf_status jf_png_encode(const jf_picture *pic, int level, unsigned char **out, size_t *out_size);

/* Append a metadata blob (copies the bytes). */
jf_status jf_picture_add_blob(jf_picture *pic, int tag, const char *key,
                              const unsigned char *data, size_t size);

/* Read a whole file into a malloc()ed buffer, refusing more than `limit` bytes. */
jf_status jf_read_file(const char *path, size_t limit, unsigned char **bytes, size_t *size);

/* Write bytes to `path` through a temporary file in the same folder and a
 * rename; nothing is left behind on failure or on SIGINT/SIGTERM. */
jf_status jf_write_file_atomic(const char *path, const unsigned char *bytes, size_t size);

/* Remove temporary files still being written (async-signal-safe). */
void jf_atomic_cleanup(void);

/* Create a folder and its parents (mode 0777 & ~umask). */
jf_status jf_mkdirs(const char *path);

#ifdef __cplusplus
}
#endif
#endif
