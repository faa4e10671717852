/* Internal to filters/: padding, which the CPU filters run first. */
#ifndef JF_FILTERS_PAD_H
#define JF_FILTERS_PAD_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CPU reference: src (host) padded by radius on every side into dst (host,
 * already allocated (w+2r) x (h+2r)). */
jf_status jf_pad_cpu(const jf_image *src, int radius, jf_border border, jf_image *dst);
/* One row of it: padded row py (0 .. h + 2r - 1) into out, (w + 2r) pixels
 * (the CPU median's k = 3 and 5 networks pad each band's rows as they go). */
void jf_pad_row(const jf_image *src, int radius, jf_border border, int py, unsigned char *out);
/* The radius border pixels either side of an image row of w pixels of px
 * bytes: left's end and right's start meet the row (what jf_pad_row puts
 * beside it), for a caller that reads the row itself where it can. */
void jf_pad_row_border(const unsigned char *row, int w, size_t px, int radius, jf_border border,
                       unsigned char *left, unsigned char *right);

/* Pad on the CPU into the context's pad scratch buffer (no allocation once
 * the buffer is large enough); `padded` describes it.  Timed as "pad". */
jf_status jf_pad_scratch(jf_context *ctx, const jf_image *src, int radius, jf_border border,
                         jf_image *padded);

#ifdef JF_HAVE_CUDA
jf_status jf_pad_cuda(jf_context *ctx, const jf_image *src, int radius, jf_border border,
                      jf_image *dst);
#endif

#ifdef __cplusplus
}
#endif
#endif
