/*
 * Frames in CUDA memory (`video/x-raw(memory:CUDAMemory)`), through
 * GStreamer's CUDA library (public from 1.22): built only where it is
 * (JF_GST_CUDA); the element works on system memory without it.
 */
#ifndef JF_GST_CUDA_MEMORY_H
#define JF_GST_CUDA_MEMORY_H

#include <gst/gst.h>
#include <gst/video/video.h>

#ifdef JF_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudautils.h>

/* the caps of frames in CUDA memory, beside the system memory ones */
#define JF_GST_CUDA_FEATURE "memory:CUDAMemory"

/* The CUDA context the library runs in on `device` (the device's primary
 * context, the one the CUDA runtime uses) as GStreamer's, so that the
 * neighbours that ask for a context (cudaupload, nvh264dec, cudadownload)
 * allocate frames in it.  NULL where there is no CUDA driver or device. */
GstCudaContext *jf_gst_cuda_context_new(int device);
void jf_gst_cuda_context_free(GstCudaContext *ctx);

/* A buffer's frame mapped for the GPU: plane pointers are device
 * addresses.  FALSE (nothing mapped) unless every memory of the buffer is
 * CUDA memory of `ctx`. */
gboolean jf_gst_cuda_frame_map(GstVideoFrame *frame, const GstVideoInfo *info, GstBuffer *buf,
                               GstMapFlags flags, GstCudaContext *ctx);

/* The allocation queries: upstream is offered, and downstream must give, a
 * pool of CUDA memory in `ctx`. */
void jf_gst_cuda_propose(GstQuery *query, GstCudaContext *ctx);
gboolean jf_gst_cuda_decide(GstQuery *query, GstCudaContext *ctx);
#endif

#endif
