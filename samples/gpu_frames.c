/*
 * gpu_frames: a frame loop for embedded vision with the asynchronous API.
 *
 *   jetfilter-gpu-frames [WIDTH HEIGHT FRAMES]     (default 1920 1080 300)
 *
 * The frames live in device memory that this program owns, as a camera or
 * decoder library would hand them over; jetfilter only describes them
 * (jf_image_wrap_device).  The context queues on this program's own CUDA
 * stream.  Per frame: the "camera" copies a frame in, a 5 x 5 median and a
 * Gaussian blur are queued behind it, the result is copied out, and there is
 * one wait.  Everything (frames, the context's buffers, its threads) is made
 * before the loop: nothing is allocated per frame.  The first and last
 * frames are checked against the CPU.  Exit 77 when there is no CUDA device.
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime.h>
#include <jetfilter.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* A moving test pattern, so every frame differs (never zeros). */
static void camera_frame(unsigned char *p, size_t pitch, int w, int h, int f)
{
    int x, y;
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++)
            p[(size_t)y * pitch + x] = (unsigned char)((x * 7 + y * 13 + f * 5) ^ ((x * y + f) & 0x3F));
}

static int max_diff(const unsigned char *a, size_t pa, const unsigned char *b, size_t pb, int w, int h)
{
    int x, y, m = 0;
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++) {
            int d = abs((int)a[(size_t)y * pa + x] - (int)b[(size_t)y * pb + x]);
            m = d > m ? d : m;
        }
    return m;
}

#define CUDA_OK(call)                                                                  \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "gpu_frames: %s: %s\n", #call, cudaGetErrorString(e_));    \
            return 1;                                                                  \
        }                                                                              \
    } while (0)

/* The CPU's answer for one frame: the same two operations. */
static int cpu_reference(const unsigned char *frame, size_t pitch, int w, int h,
                         const jf_median_options *mo, const jf_conv_options *co, jf_image *out)
{
    jf_context_options o = jf_context_defaults();
    jf_median_options m = *mo;
    jf_conv_options c = *co;
    jf_image in = jf_image_wrap((unsigned char *)frame, w, h, 1, pitch), mid = {0};
    jf_context *cpu;
    int ok;
    o.backend = JF_BACKEND_CPU;
    m.variant = c.variant = JF_VARIANT_CPU;
    if (jf_context_create(&o, &cpu) != JF_OK)
        return 0;
    ok = jf_median(cpu, &in, &mid, &m) == JF_OK && jf_convolve(cpu, &mid, out, &c) == JF_OK;
    jf_image_free(&mid);
    jf_context_destroy(cpu);
    return ok;
}

/* The buffers of the loop: made once, used for every frame. */
typedef struct frames {
    int w, h;
    cudaStream_t stream;
    unsigned char *h_in, *h_out, *d_in, *d_mid, *d_out;
    size_t p_in, p_mid, p_out;
    jf_image in, mid, out;
} frames;

static int frames_alloc(frames *fr)
{
    CUDA_OK(cudaHostAlloc((void **)&fr->h_in, (size_t)fr->w * fr->h, cudaHostAllocDefault));
    CUDA_OK(cudaHostAlloc((void **)&fr->h_out, (size_t)fr->w * fr->h, cudaHostAllocDefault));
    CUDA_OK(cudaMallocPitch((void **)&fr->d_in, &fr->p_in, (size_t)fr->w, (size_t)fr->h));
    CUDA_OK(cudaMallocPitch((void **)&fr->d_mid, &fr->p_mid, (size_t)fr->w, (size_t)fr->h));
    CUDA_OK(cudaMallocPitch((void **)&fr->d_out, &fr->p_out, (size_t)fr->w, (size_t)fr->h));
    /* jetfilter only describes memory another library owns */
    fr->in = jf_image_wrap_device(fr->d_in, fr->w, fr->h, 1, fr->p_in, JF_LOC_DEVICE);
    fr->mid = jf_image_wrap_device(fr->d_mid, fr->w, fr->h, 1, fr->p_mid, JF_LOC_DEVICE);
    fr->out = jf_image_wrap_device(fr->d_out, fr->w, fr->h, 1, fr->p_out, JF_LOC_DEVICE);
    return 0;
}

static void frames_free(frames *fr)
{
    cudaFreeHost(fr->h_in);
    cudaFreeHost(fr->h_out);
    cudaFree(fr->d_in);
    cudaFree(fr->d_mid);
    cudaFree(fr->d_out);
}

/* One frame: in, two queued operations, out, one wait. */
static int process_frame(frames *fr, jf_context *ctx, const jf_median_options *mo,
                         const jf_conv_options *co, int f)
{
    const size_t w = (size_t)fr->w, h = (size_t)fr->h;
    camera_frame(fr->h_in, w, fr->w, fr->h, f);
    CUDA_OK(cudaMemcpy2DAsync(fr->d_in, fr->p_in, fr->h_in, w, w, h, cudaMemcpyHostToDevice,
                              fr->stream));
    if (jf_median(ctx, &fr->in, &fr->mid, mo) != JF_OK ||   /* queued, returns at once */
        jf_convolve(ctx, &fr->mid, &fr->out, co) != JF_OK) { /* queued behind it */
        fprintf(stderr, "gpu_frames: frame %d: %s\n", f, jf_last_error());
        return 1;
    }
    CUDA_OK(cudaMemcpy2DAsync(fr->h_out, w, fr->d_out, fr->p_out, w, h, cudaMemcpyDeviceToHost,
                              fr->stream));
    if (jf_context_sync(ctx) != JF_OK) { /* the one wait of the frame */
        fprintf(stderr, "gpu_frames: frame %d: %s\n", f, jf_last_error());
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const int frame_count = argc > 3 ? atoi(argv[3]) : 300;
    jf_context_options opt = jf_context_defaults();
    jf_median_options mo = jf_median_defaults();
    jf_conv_options co = jf_conv_defaults();
    jf_image want = {0};
    jf_kernel gauss;
    jf_context *ctx;
    frames fr;
    double t0 = 0, ms;
    int f, worst = 0;

    memset(&fr, 0, sizeof fr);
    fr.w = argc > 3 ? atoi(argv[1]) : 1920;
    fr.h = argc > 3 ? atoi(argv[2]) : 1080;
    if (fr.w < 1 || fr.h < 1 || frame_count < 2) {
        fprintf(stderr, "usage: %s [WIDTH HEIGHT FRAMES]  (FRAMES >= 2)\n", argv[0]);
        return 2;
    }
    if (jf_device_count() == 0) {
        printf("gpu_frames: %s\n", jf_last_error());
        return 77;
    }
    CUDA_OK(cudaStreamCreateWithFlags(&fr.stream, cudaStreamNonBlocking));
    opt.backend = JF_BACKEND_CUDA;
    opt.stream = fr.stream; /* the context queues on our stream */
    if (jf_context_create(&opt, &ctx) != JF_OK || jf_kernel_make(JF_KERNEL_GAUSS, 0, 1.5, &gauss) != JF_OK) {
        fprintf(stderr, "gpu_frames: %s\n", jf_last_error());
        return 1;
    }
    mo.ksize = 5;
    mo.border = JF_BORDER_MIRROR;
    co.ksize = gauss.ksize;
    co.weights = gauss.weights;
    co.border = JF_BORDER_REFLECT;
    if (frames_alloc(&fr))
        return 1;
    for (f = 0; f < frame_count; f++) {
        if (f == 1)
            t0 = now_ms(); /* frame 0 grows the context's buffers */
        if (process_frame(&fr, ctx, &mo, &co, f))
            return 1;
        if (f == 0 || f == frame_count - 1) { /* check the first and the last */
            int d;
            jf_image_free(&want);
            if (!cpu_reference(fr.h_in, (size_t)fr.w, fr.w, fr.h, &mo, &co, &want)) {
                fprintf(stderr, "gpu_frames: CPU reference: %s\n", jf_last_error());
                return 1;
            }
            d = max_diff(fr.h_out, (size_t)fr.w, want.data, want.stride, fr.w, fr.h);
            worst = d > worst ? d : worst;
        }
    }
    ms = (now_ms() - t0) / (frame_count - 1);
    printf("gpu_frames: %d frames %dx%d, median 5x5 + gauss %dx%d on the caller's stream: "
           "%.3f ms per frame (%.0f frames/s, copies in and out included); "
           "first and last frame within %d level(s) of the CPU\n",
           frame_count, fr.w, fr.h, gauss.ksize, gauss.ksize, ms, 1000.0 / ms, worst);
    jf_context_destroy(ctx);
    cudaStreamDestroy(fr.stream);
    frames_free(&fr);
    jf_kernel_free(&gauss);
    jf_image_free(&want);
    return worst <= 1 ? 0 : 1;
}
