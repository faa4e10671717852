/*
 * NPP's float32 median and Gaussian, the peer of benchmarks/float_bench.py
 * (the same sizes, k and random images in 0..10): GPU time a call from CUDA
 * events around it, the median of 20 after 3 warm-up calls.  NPP's median
 * has no border mode, so it reads a copy padded by replication, its ROI at
 * (r, r); the Gaussian replicates itself (nppiFilterGaussBorder, NPP's own
 * sigma for each mask size).  A few medians are checked against a sort on
 * the CPU.  Built on the GPU machine with its toolkit:
 *
 *   nvcc -O3 -arch=sm_90 benchmarks/npp_float.cu -lnppif -lnppc -o npp_float && ./npp_float
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include <cuda_runtime.h>
#include <npp.h>

#define CHECK(x)                                                                       \
    do {                                                                               \
        cudaError_t e_ = (x);                                                          \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                   \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

static NppStreamContext context(cudaStream_t stream)
{
    NppStreamContext n;
    cudaDeviceProp prop;
    memset(&n, 0, sizeof n);
    CHECK(cudaGetDeviceProperties(&prop, 0));
    n.hStream = stream;
    n.nCudaDeviceId = 0;
    n.nMultiProcessorCount = prop.multiProcessorCount;
    n.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
    n.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
    n.nSharedMemPerBlock = prop.sharedMemPerBlock;
    n.nCudaDevAttrComputeCapabilityMajor = prop.major;
    n.nCudaDevAttrComputeCapabilityMinor = prop.minor;
    CHECK(cudaStreamGetFlags(stream, &n.nStreamFlags));
    return n;
}

template <typename F>
static double timed(cudaStream_t s, F call)
{
    cudaEvent_t e0, e1;
    std::vector<float> t;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    for (int i = -3; i < 20; i++) {
        float ms = 0;
        CHECK(cudaEventRecord(e0, s));
        NppStatus st = call();
        CHECK(cudaEventRecord(e1, s));
        if (st < 0) {
            fprintf(stderr, "NPP status %d\n", (int)st);
            exit(1);
        }
        CHECK(cudaEventSynchronize(e1));
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (i >= 0)
            t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return (t[9] + t[10]) / 2;
}

int main(void)
{
    static const int sizes[][2] = {{1920, 1080}, {3840, 2160}};
    static const NppiMaskSize masks[] = {NPP_MASK_SIZE_3_X_3, NPP_MASK_SIZE_5_X_5, NPP_MASK_SIZE_7_X_7,
                                         NPP_MASK_SIZE_9_X_9, NPP_MASK_SIZE_11_X_11};
    cudaStream_t stream;
    const NppLibraryVersion *v = nppGetLibVersion();
    unsigned seed = 1;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const NppStreamContext n = context(stream);
    printf("NPP %d.%d.%d\n| size | ch | op | k | NPP ms | check |\n|---|---|---|---|---|---|\n", v->major, v->minor,
           v->build);
    for (int si = 0; si < 2; si++)
        for (int ch = 1; ch <= 3; ch += 2) {
            const int w = sizes[si][0], h = sizes[si][1], R = 5; /* padding for k <= 11 */
            const int pw = w + 2 * R, ph = h + 2 * R;
            std::vector<float> img((size_t)w * h * ch), pad((size_t)pw * ph * ch), got((size_t)w * h * ch);
            for (auto &x : img)
                x = (float)((seed = seed * 1103515245u + 12345u) >> 8) / (float)(1u << 24) * 10.0f;
            for (int y = 0; y < ph; y++) /* replicated border */
                for (int x = 0; x < pw; x++) {
                    const int sy = std::min(std::max(y - R, 0), h - 1), sx = std::min(std::max(x - R, 0), w - 1);
                    for (int c = 0; c < ch; c++)
                        pad[((size_t)y * pw + x) * ch + c] = img[((size_t)sy * w + sx) * ch + c];
                }
            float *dpad, *dsrc, *dout;
            CHECK(cudaMalloc(&dpad, pad.size() * 4));
            CHECK(cudaMalloc(&dsrc, img.size() * 4));
            CHECK(cudaMalloc(&dout, img.size() * 4));
            CHECK(cudaMemcpy(dpad, pad.data(), pad.size() * 4, cudaMemcpyHostToDevice));
            CHECK(cudaMemcpy(dsrc, img.data(), img.size() * 4, cudaMemcpyHostToDevice));
            const int pstep = pw * ch * 4, step = w * ch * 4;
            const NppiSize roi = {w, h};
            for (int k = 3; k <= 11; k += 2) {
                const int r = k / 2;
                /* the image's first pixel inside the padding: NPP reads r around it */
                const Npp32f *src = dpad + ((size_t)R * pw + R) * ch;
                const NppiSize mask = {k, k};
                const NppiPoint anchor = {r, r};
                Npp32u bytes = 0;
                Npp8u *buf;
                if ((ch == 1 ? nppiFilterMedianGetBufferSize_32f_C1R_Ctx(roi, mask, &bytes, n)
                             : nppiFilterMedianGetBufferSize_32f_C3R_Ctx(roi, mask, &bytes, n)) < 0) {
                    fprintf(stderr, "median buffer size\n");
                    return 1;
                }
                CHECK(cudaMalloc(&buf, bytes ? bytes : 1));
                const double med = timed(stream, [&] {
                    return ch == 1 ? nppiFilterMedian_32f_C1R_Ctx(src, pstep, dout, step, roi, mask, anchor, buf, n)
                                   : nppiFilterMedian_32f_C3R_Ctx(src, pstep, dout, step, roi, mask, anchor, buf, n);
                });
                CHECK(cudaMemcpy(got.data(), dout, got.size() * 4, cudaMemcpyDeviceToHost));
                int wrong = 0;
                for (int t = 0; t < 50; t++) { /* spot checks against a sort */
                    const int x = (int)((seed = seed * 1103515245u + 12345u) >> 8) % w;
                    const int y = (int)((seed = seed * 1103515245u + 12345u) >> 8) % h, c = t % ch;
                    std::vector<float> win;
                    for (int j = -r; j <= r; j++)
                        for (int i = -r; i <= r; i++)
                            win.push_back(pad[((size_t)(y + R + j) * pw + (x + R + i)) * ch + c]);
                    std::sort(win.begin(), win.end());
                    const float g = got[((size_t)y * w + x) * ch + c];
                    if (g != win[win.size() / 2] && wrong++ == 0)
                        fprintf(stderr, "NPP median k=%d at %d,%d,%d: %g, the sort's middle %g\n", k, x, y,
                                c, g, win[win.size() / 2]);
                }
                cudaFree(buf);
                const double gauss = timed(stream, [&] {
                    const NppiPoint offset = {0, 0};
                    return ch == 1 ? nppiFilterGaussBorder_32f_C1R_Ctx(dsrc, step, roi, offset, dout, step, roi,
                                                                       masks[r - 1], NPP_BORDER_REPLICATE, n)
                                   : nppiFilterGaussBorder_32f_C3R_Ctx(dsrc, step, roi, offset, dout, step, roi,
                                                                       masks[r - 1], NPP_BORDER_REPLICATE, n);
                });
                printf("| %dx%d | %d | median | %d | %.4f | %s |\n", w, h, ch, k, med,
                       wrong ? "differs from a sort" : "as a sort (50 samples)");
                printf("| %dx%d | %d | gauss | %d | %.4f | NPP's sigma |\n", w, h, ch, k, gauss);
            }
            cudaFree(dpad);
            cudaFree(dsrc);
            cudaFree(dout);
        }
    return 0;
}
