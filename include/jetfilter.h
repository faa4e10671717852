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

#include "jetfilter/base.h"
#include "jetfilter/codecs.h"
#include "jetfilter/context.h"
#include "jetfilter/filters.h"
#include "jetfilter/jobs.h"
#include "jetfilter/operations.h"
#include "jetfilter/video.h"

#endif /* JETFILTER_H */
