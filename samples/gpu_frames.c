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

int main(int argc, char **argv)
{
    const int w = argc > 3 ? atoi(argv[1]) : 1920, h = argc > 3 ? atoi(argv[2]) : 1080;
    const int frames = argc > 3 ? atoi(argv[3]) : 300;
    jf_context_options opt = jf_context_defaults();
    jf_median_options mo = jf_median_defaults();
    jf_conv_options co = jf_conv_defaults();
    jf_kernel gauss;
    jf_context *ctx;
    cudaStream_t stream;
    unsigned char *h_in, *h_out, *d_in, *d_mid, *d_out;
    size_t p_in, p_mid, p_out;
    jf_image in, mid, out, want_first = {0}, want_last = {0};
    double t0, ms;
    int f, worst = 0;

    if (w < 1 || h < 1 || frames < 2) {
        fprintf(stderr, "usage: %s [WIDTH HEIGHT FRAMES]  (FRAMES >= 2)\n", argv[0]);
        return 2;
    }
    if (jf_device_count() == 0) {
        printf("gpu_frames: %s\n", jf_last_error());
        return 77;
    }
    CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    opt.backend = JF_BACKEND_CUDA;
    opt.stream = stream; /* the context queues on our stream */
    if (jf_context_create(&opt, &ctx) != JF_OK) {
        fprintf(stderr, "gpu_frames: %s\n", jf_last_error());
        return 1;
    }
    mo.ksize = 5;
    mo.border = JF_BORDER_MIRROR;
    if (jf_kernel_make(JF_KERNEL_GAUSS, 0, 1.5, &gauss) != JF_OK)
        return 1;
    co.ksize = gauss.ksize;
    co.weights = gauss.weights;
    co.border = JF_BORDER_REFLECT;

    /* frames as another library owns them: pinned host for the "camera",
     * pitched device memory for the pipeline */
    CUDA_OK(cudaHostAlloc((void **)&h_in, (size_t)w * h, cudaHostAllocDefault));
    CUDA_OK(cudaHostAlloc((void **)&h_out, (size_t)w * h, cudaHostAllocDefault));
    CUDA_OK(cudaMallocPitch((void **)&d_in, &p_in, (size_t)w, (size_t)h));
    CUDA_OK(cudaMallocPitch((void **)&d_mid, &p_mid, (size_t)w, (size_t)h));
    CUDA_OK(cudaMallocPitch((void **)&d_out, &p_out, (size_t)w, (size_t)h));
    in = jf_image_wrap_device(d_in, w, h, 1, p_in, JF_LOC_DEVICE);
    mid = jf_image_wrap_device(d_mid, w, h, 1, p_mid, JF_LOC_DEVICE);
    out = jf_image_wrap_device(d_out, w, h, 1, p_out, JF_LOC_DEVICE);

    t0 = now_ms();
    for (f = 0; f < frames; f++) {
        if (f == 1)
            t0 = now_ms(); /* frame 0 grows the context's buffers */
        camera_frame(h_in, (size_t)w, w, h, f);
        CUDA_OK(cudaMemcpy2DAsync(d_in, p_in, h_in, (size_t)w, (size_t)w, (size_t)h,
                                  cudaMemcpyHostToDevice, stream));
        if (jf_median(ctx, &in, &mid, &mo) != JF_OK ||   /* queued, returns at once */
            jf_convolve(ctx, &mid, &out, &co) != JF_OK) { /* queued behind it */
            fprintf(stderr, "gpu_frames: frame %d: %s\n", f, jf_last_error());
            return 1;
        }
        CUDA_OK(cudaMemcpy2DAsync(h_out, (size_t)w, d_out, p_out, (size_t)w, (size_t)h,
                                  cudaMemcpyDeviceToHost, stream));
        if (jf_context_sync(ctx) != JF_OK) { /* the one wait of the frame */
            fprintf(stderr, "gpu_frames: frame %d: %s\n", f, jf_last_error());
            return 1;
        }
        if (f == 0 || f == frames - 1) {
            jf_image *want = f == 0 ? &want_first : &want_last;
            if (!cpu_reference(h_in, (size_t)w, w, h, &mo, &co, want)) {
                fprintf(stderr, "gpu_frames: CPU reference: %s\n", jf_last_error());
                return 1;
            }
            {
                int d = max_diff(h_out, (size_t)w, want->data, want->stride, w, h);
                worst = d > worst ? d : worst;
            }
        }
    }
    ms = (now_ms() - t0) / (frames - 1);
    printf("gpu_frames: %d frames %dx%d, median 5x5 + gauss %dx%d on the caller's stream: "
           "%.3f ms per frame (%.0f frames/s, copies in and out included); "
           "first and last frame within %d level(s) of the CPU\n",
           frames, w, h, gauss.ksize, gauss.ksize, ms, 1000.0 / ms, worst);

    jf_context_destroy(ctx);
    cudaStreamDestroy(stream);
    cudaFreeHost(h_in);
    cudaFreeHost(h_out);
    cudaFree(d_in);
    cudaFree(d_mid);
    cudaFree(d_out);
    jf_kernel_free(&gauss);
    jf_image_free(&want_first);
    jf_image_free(&want_last);
    return worst <= 1 ? 0 : 1;
}
