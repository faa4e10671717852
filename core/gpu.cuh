/* Internal to the CUDA sources: per-context GPU state and what every CUDA
 * file shares (JF_CUDA_TRY, buffers, transfers, timers, launch limits); the
 * definitions live in core/gpu*.cu, one file per concern. */
#ifndef JF_CORE_GPU_CUH
#define JF_CORE_GPU_CUH

#include <cuda_runtime.h>

#include "jetfilter.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/gpu.h"
#include "core/image.h"

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

/* Buffers a context keeps between calls, grown on demand, named by role. */
enum jf_slot {
    JF_SLOT_IN, JF_SLOT_IN2,    /* a call's inputs, where they had to be uploaded */
    JF_SLOT_PAD,                /* padded planes (the kernels that read windows from them) */
    JF_SLOT_OUT,                /* a call's output, where it cannot be written in place */
    JF_SLOT_STAGE_IN, JF_SLOT_STAGE_OUT, /* pinned staging of host images */
    JF_SLOT_WORK1, JF_SLOT_WORK2, /* an operation's own working memory (partial sums,
                                     an intermediate image, a queue of samples) */
    JF_SLOT_FRAME0, JF_SLOT_FRAME1, /* jf_context_frame(): host side */
    JF_SLOT_FRAME2, JF_SLOT_FRAME3, /* device side: a decoded input, an output to encode */
    JF_SLOT_COUNT
};

enum jf_buffer_kind { JF_BUF_DEVICE, JF_BUF_PINNED, JF_BUF_MANAGED };

typedef struct jf_buffer {
    unsigned char *ptr;
    size_t pitch, rows;   /* capacity */
    int kind;             /* jf_buffer_kind */
} jf_buffer;

/* Timed steps not yet turned into stats: GPU work between two events, or a
 * host-side step whose time is already known. */
#define JF_MAX_TIMERS 64

typedef struct jf_timer {
    char name[32], variant[16];
    int ksize, width, height, channels;
    uint64_t bytes_read, bytes_written;
    int host;             /* host-side work: ms measured on the CPU clock */
    double host_ms;
    unsigned epoch;       /* the stats' epoch when it started (jf_stats) */
    cudaEvent_t start, stop;
} jf_timer;

/* Shared between the core/gpu*.cu files. */
int jf_device_code_cc(void); /* what the kernels run as on the current device (device_cuda.cu) */
jf_status jf_gpu_timers_make(struct jf_gpu *g);
jf_status jf_gpu_collect(jf_context *ctx); /* stats of every finished timer */
jf_status jf_gpu_host_timer(jf_context *ctx, const char *name, const jf_image *shape, double ms,
                            uint64_t bytes_read, uint64_t bytes_written);
void jf_gpu_buffer_release(struct jf_buffer *b);
void jf_copy_rows(unsigned char *dst, size_t dst_pitch, const unsigned char *src, size_t src_pitch,
                  size_t row_bytes, int rows);

/* Launch attributes of a kernel on this context's device, looked up once. */
#define JF_MAX_KERNELS 48
typedef struct jf_kernel_attr {
    const void *func;
    int regs, max_threads;
    size_t static_smem;
} jf_kernel_attr;

struct jf_gpu {
    int device;
    jf_device_info info;  /* limits included (JETFILTER_DEVICE_LIMITS) */
    cudaStream_t stream;  /* where work queues now */
    cudaStream_t home;    /* the context's own stream, or NULL (never made) */
    cudaEvent_t handoff;  /* orders a new stream after the old (jf_context_set_stream) */
    jf_memory memory;
    jf_buffer buf[JF_SLOT_COUNT];
    jf_timer timers[JF_MAX_TIMERS]; /* a ring: `pending` from `head` */
    int timer_head, timer_pending, timers_made;
    int must_sync;        /* the current call touched a host image: wait at its end */
    /* convolution weights: device copy, pinned staging and what they hold */
    float *d_weights, *h_weights;
    int weights_k;
    cudaEvent_t weights_copied;
    jf_kernel_attr kernels[JF_MAX_KERNELS];
    int nkernels;
};

/* Selects the context's device for the lifetime of the scope and restores
 * the caller's current device afterwards. */
struct jf_device_scope {
    int prev;
    jf_status status;
    explicit jf_device_scope(const jf_context *ctx);
    ~jf_device_scope();
    jf_device_scope(const jf_device_scope &) = delete;
    jf_device_scope &operator=(const jf_device_scope &) = delete;
};

/* Make `slot` hold at least width_bytes x rows (pitched for device memory). */
jf_status jf_gpu_buffer(jf_context *ctx, int slot, size_t width_bytes, size_t rows,
                        int kind, jf_dview *view);

/* Start an operation (per-call state). */
void jf_gpu_begin(jf_context *ctx);

/* A device view of `src`: itself when on the device (or mapped/managed),
 * else uploaded into `slot` (COPY: pinned staging + async copy; MANAGED:
 * copied into a managed buffer); an upload makes the call synchronous. */
jf_status jf_gpu_input(jf_context *ctx, const jf_image *src, int slot, jf_dview *view);

/* Where a kernel writes an image shaped like dst: dst itself when the GPU
 * can address it, else the OUT slot (and the call is synchronous). */
jf_status jf_gpu_output(jf_context *ctx, const jf_image *dst, jf_dview *view);

/* Bring the output view back into a host dst, and, if the call touched a
 * host image, wait for the stream and collect its stats.  Work on device
 * images stays queued. */
jf_status jf_gpu_finish(jf_context *ctx, jf_image *dst, const jf_dview *view);

/* Event timers around GPU work on the context's stream; *id is -1 (and
 * nothing is recorded) when the context keeps no stats. */
jf_status jf_gpu_timer_start(jf_context *ctx, int *id);
jf_status jf_gpu_timer_stop(jf_context *ctx, int id, const char *name, const char *variant,
                            int ksize, const jf_image *shape, uint64_t bytes_read,
                            uint64_t bytes_written);

/* Convolution weights on the device, in the context's own buffer, written
 * by a copy ordered on its stream (and skipped when they are unchanged). */
jf_status jf_gpu_weights(jf_context *ctx, const float *weights, int k, const float **d_weights);

/* Can `func` launch with `threads` threads and `dyn_smem` bytes of dynamic
 * shared memory on this device (registers, threads, shared memory, within
 * the device's limits or the Nano's)?  `what` names it in the error.  Raises
 * the kernel's dynamic shared-memory limit when more than 48 KiB is needed
 * and the device offers it. */
jf_status jf_gpu_launch_fits(jf_context *ctx, const void *func, const char *what, int threads,
                             size_t dyn_smem);
/* The same as a yes/no, for choosing (nothing recorded). */
int jf_gpu_launch_ok(jf_context *ctx, const void *func, int threads, size_t dyn_smem);

/* Grid of ceil(w/bx) x ceil(h/by) x z blocks. */
static inline dim3 jf_grid(int w, int h, int z, dim3 block)
{
    return dim3((unsigned)((w + (int)block.x - 1) / (int)block.x),
                (unsigned)((h + (int)block.y - 1) / (int)block.y), (unsigned)z);
}

#endif
