/* Internal to the CUDA sources: per-context GPU state, cached buffers,
 * getting images onto and off the device, event timers, and JF_CUDA_TRY. */
#ifndef JF_PIPELINE_GPU_CUH
#define JF_PIPELINE_GPU_CUH

#include <cuda_runtime.h>

#include "jetfilter.h"
#include "pipeline/context.h"
#include "pipeline/errors.h"
#include "pipeline/gpu.h"

/* Record "call failed (file:line): CUDA's message" and return JF_ERR_CUDA.
 * JF_CUDA_TRY wraps every runtime call; JF_LAUNCH_CHECK("kernel") follows
 * every launch and names the kernel in the message. */
jf_status jf_cuda_fail(const char *call, const char *file, int line, cudaError_t err);
#define JF_CUDA_TRY(call)                                                     \
    do {                                                                      \
        cudaError_t jf_e_ = (call);                                           \
        if (jf_e_ != cudaSuccess)                                             \
            return jf_cuda_fail(#call, __FILE__, __LINE__, jf_e_);            \
    } while (0)
#define JF_LAUNCH_CHECK(kernel_name)                                          \
    do {                                                                      \
        cudaError_t jf_e_ = cudaPeekAtLastError();                            \
        if (jf_e_ != cudaSuccess)                                             \
            return jf_cuda_fail(kernel_name, __FILE__, __LINE__, jf_e_);      \
    } while (0)

/* A device-addressable 2-D byte array. */
typedef struct jf_dview {
    unsigned char *ptr;
    size_t pitch;
} jf_dview;

/* Buffers a context keeps between calls, grown on demand. */
enum jf_slot { JF_SLOT_IN, JF_SLOT_IN2, JF_SLOT_PAD, JF_SLOT_OUT, JF_SLOT_STAGE_IN,
               JF_SLOT_STAGE_OUT, JF_SLOT_AUX, JF_SLOT_COUNT };

typedef struct jf_buffer {
    unsigned char *ptr;
    size_t pitch, rows;   /* capacity */
    int kind;             /* 0 device (pitched), 1 pinned host, 2 managed */
} jf_buffer;

#define JF_MAX_TIMERS 16

typedef struct jf_timer {
    char name[32], variant[16];
    int ksize, width, height, channels;
    uint64_t bytes_read, bytes_written;
    int host;             /* host-side work: ms measured on the CPU clock */
    double host_ms;
    cudaEvent_t start, stop;
} jf_timer;

struct jf_gpu {
    int device;
    int smem_optin;   /* bytes of shared memory a block may opt into */
    cudaStream_t stream;
    int own_stream;
    jf_memory memory;
    jf_device_info info;
    jf_buffer buf[JF_SLOT_COUNT];
    jf_timer timers[JF_MAX_TIMERS];
    int ntimers;
};

/* Make `slot` hold at least width_bytes x rows (pitched for device memory). */
jf_status jf_gpu_buffer(jf_context *ctx, int slot, size_t width_bytes, size_t rows,
                        int kind, jf_dview *view);

/* Start an operation: clears pending timers and selects the device. */
jf_status jf_gpu_begin(jf_context *ctx);

/* A device view of `src`: itself when on the device (or mapped/managed),
 * else uploaded into `slot` (COPY: pinned staging + async copy; MANAGED:
 * copied into a managed buffer).  The upload is timed as "upload". */
jf_status jf_gpu_input(jf_context *ctx, const jf_image *src, int slot, jf_dview *view);

/* Where a kernel writes an image shaped like dst: dst itself when the GPU
 * can address it, else the OUT slot. */
jf_status jf_gpu_output(jf_context *ctx, const jf_image *dst, jf_dview *view);

/* Bring the output view back into dst if it is not there already ("download"),
 * wait for the stream, and turn the timers into stats records. */
jf_status jf_gpu_finish(jf_context *ctx, jf_image *dst, const jf_dview *view);

/* Event timers around GPU work on the context's stream. */
jf_status jf_gpu_timer_start(jf_context *ctx, int *id);
jf_status jf_gpu_timer_stop(jf_context *ctx, int id, const char *name, const char *variant,
                            int ksize, const jf_image *shape, uint64_t bytes_read,
                            uint64_t bytes_written);

/* Padded planes in the PAD slot: `channels` planes of (w+2r) x (h+2r),
 * with room for tile loads that overrun the right edge. */
jf_status jf_gpu_pad_planes(jf_context *ctx, const jf_dview *src, int w, int h, int ch,
                            int radius, jf_border border, jf_dview *planes, int *plane_rows);

/* Is `bytes` of dynamic shared memory possible for one block on this device?
 * Up to 48 KiB always; beyond that up to the device's opt-in limit (Volta and
 * later; 48 KiB is all the Nano has).  The caller raises the kernel's limit
 * with cudaFuncSetAttribute when it asks for more than 48 KiB. */
jf_status jf_gpu_shared_limit(jf_context *ctx, const char *what, int bx, int by, int k,
                              size_t bytes);

/* The steps every filter shares: select the device, get the input onto it,
 * find where the output goes, and pad the input to planes (radius k/2). */
jf_status jf_gpu_filter_setup(jf_context *ctx, const jf_image *src, const jf_image *dst, int k,
                              jf_border border, jf_dview *planes, int *plane_rows, jf_dview *out);

/* After a filter kernel's launch: check the launch, then stop its timer with
 * the seed's byte counts (padded input read once, output written once). */
jf_status jf_gpu_filter_done(jf_context *ctx, int id, const char *kernel, const char *name,
                             const char *variant, int k, const jf_image *shape);

/* Grid of ceil(w/bx) x ceil(h/by) x z blocks. */
static inline dim3 jf_grid(int w, int h, int z, dim3 block)
{
    return dim3((unsigned)((w + (int)block.x - 1) / (int)block.x),
                (unsigned)((h + (int)block.y - 1) / (int)block.y), (unsigned)z);
}

#endif
