/*
 * Probe (issue 37): the 3 x 3 convolution as column strips streamed
 * through registers (no shared tile, no barrier), against a 16-byte copy
 * of the same image, 8-bit grey or interleaved RGB, edges replicated.  Not
 * part of the library: what it measured is in docs/kernels/studies.md
 * ("Column strips through registers").  Its median, measured with it at
 * commit 75a8792, went into the library (filters/median/median_fast_strip.cu),
 * where `jetfilter bench` times it.
 *
 *   scripts/gpu.sh stream-probe [WxH ...]     (on the GPU machine)
 *
 * Each thread owns W bytes of a row (8 or 16: 8 or 16 grey pixels, or
 * 2 2/3 or 5 1/3 RGB pixels: the filter is blind to channels, a byte's
 * neighbours are C bytes away) and walks a strip of S rows down, one 8- or
 * 16-byte load a row issued a turn ahead of its use; the bytes beside its
 * own come from the neighbouring lanes (warp shuffles), at a warp's ends
 * from memory, loaded with the row.  Blocks loop over strips, as many
 * blocks as fit on the GPU at once; a warp whose strip lies inside the
 * image runs without checks, the others clamp rows and replicate bytes
 * past the row's ends.  The convolution keeps three rows as floats and
 * sums in the CPU reference's order.  MINB is the blocks an SM the
 * registers are cut for (__launch_bounds__).  Every result is checked
 * against a one-thread-a-byte kernel before it is timed (the "diffs"
 * column must be 0).
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

struct img_t {
    const unsigned char *in;
    unsigned char *out;
    size_t pitch; /* both */
    int w, h, c;
};

__device__ __forceinline__ int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Bytes xb .. xb + 3 of a row, those outside it replicated from the edge
 * pixel of the same channel (C channels: the divisions are by a constant). */
template <int C>
__device__ __forceinline__ unsigned word_at(const unsigned char *row, int xb, const img_t &im)
{
    if (xb >= 0 && xb + 4 <= im.w * C)
        return *(const unsigned *)(row + xb);
    unsigned v = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const int e = xb + j;
        const int px = (e + 4 * C) / C - 4; /* floor(e / C) for e >= -4C */
        const int ch = e - px * C;
        v |= (unsigned)row[clampi(px, 0, im.w - 1) * C + ch] << (8 * j);
    }
    return v;
}

/* A thread's W bytes of a row (8 or 16) and a word either side:
 * v[0] left, v[1 .. W/4] own, v[W/4 + 1] right (C <= 4: one word of
 * neighbours is enough for a 3 x 3 window). */
template <int W>
struct row_words {
    unsigned v[W / 4 + 2];
};

template <int W>
__device__ __forceinline__ void load_own(const unsigned char *q, row_words<W> &r)
{
    if (W == 16) {
        const uint4 v = __ldg((const uint4 *)q);
        r.v[1] = v.x;
        r.v[2] = v.y;
        r.v[3] = v.z;
        r.v[4] = v.w;
    } else {
        const uint2 v = __ldg((const uint2 *)q);
        r.v[1] = v.x;
        r.v[2] = v.y;
    }
}

template <int W>
__device__ __forceinline__ void store_own(unsigned char *q, const unsigned (&o)[W / 4])
{
    if (W == 16)
        *(uint4 *)q = make_uint4(o[0], o[1], o[2], o[3]);
    else
        *(uint2 *)q = make_uint2(o[0], o[1]);
}

/* The words beside the thread's own from the neighbouring lanes (a warp's
 * end lanes loaded theirs with the row). */
template <int W>
__device__ __forceinline__ void halo_words(row_words<W> &r)
{
    const int lane = threadIdx.x & 31;
    const unsigned l = __shfl_up_sync(0xffffffffu, r.v[W / 4], 1);
    const unsigned rr = __shfl_down_sync(0xffffffffu, r.v[1], 1);
    if (lane > 0)
        r.v[0] = l;
    if (lane < 31)
        r.v[W / 4 + 1] = rr;
}

/*
 * How a strip reaches its rows.  Row t of the strip is image row
 * y0 - R + t; output t is image row y0 + t.  CHECKED: rows clamped, bytes
 * past the row's ends replicated, stores cut at the image's edges (the
 * strips and threads at the image's edges); otherwise plain loads and
 * stores from row pointers.  Every load of a row, the end lanes' words
 * beside the run included, is issued by fetch, a turn ahead of its use.
 */
template <int C, int W, bool CHECKED>
struct strip_io {
    img_t im;
    int xb, y0, R, lane;
    __device__ __forceinline__ void fetch(int t, row_words<W> &r) const
    {
        const int y = y0 - R + t;
        if (!CHECKED) {
            const unsigned char *q = im.in + (size_t)y * im.pitch + xb;
            load_own<W>(q, r);
            if (lane == 0)
                r.v[0] = __ldg((const unsigned *)(q - 4));
            if (lane == 31)
                r.v[W / 4 + 1] = __ldg((const unsigned *)(q + W));
            return;
        }
        const unsigned char *row = im.in + (size_t)clampi(y, 0, im.h - 1) * im.pitch;
        if (xb + W <= im.w * C) {
            load_own<W>(row + xb, r);
        } else {
#pragma unroll
            for (int i = 0; i < W / 4; i++)
                r.v[1 + i] = word_at<C>(row, xb + 4 * i, im);
        }
        if (lane == 0)
            r.v[0] = word_at<C>(row, xb - 4, im);
        if (lane == 31)
            r.v[W / 4 + 1] = word_at<C>(row, xb + W, im);
    }
    __device__ __forceinline__ void store(int t, const unsigned (&o)[W / 4]) const
    {
        const int y = y0 + t;
        unsigned char *q = im.out + (size_t)y * im.pitch;
        if (!CHECKED) {
            store_own<W>(q + xb, o);
            return;
        }
        if (y >= im.h)
            return;
        if (xb + W <= im.w * C) {
            store_own<W>(q + xb, o);
        } else {
            for (int j = 0; j < W && xb + j < im.w * C; j++)
                q[xb + j] = (unsigned char)(o[j >> 2] >> (8 * (j & 3)));
        }
    }
};

/* May a warp's strip run unchecked: every row it reads (rows y0 - R to
 * last_row) and every byte beside the warp's runs inside the image. */
template <int C, int W>
__device__ __forceinline__ bool strip_inside(const img_t &im, int xb, int y0, int R, int last_row)
{
    const bool in = xb >= 4 && xb + W + 4 <= im.w * C && y0 - R >= 0 && last_row < im.h;
    return __all_sync(0xffffffffu, in);
}

/* ---- convolution 3 x 3 ----------------------------------------------- */
template <int K>
struct weights_t {
    float w[K * K];
};

__device__ __forceinline__ float sample_f(const unsigned *v, int e)
{
    return __int_as_float((int)__byte_perm(v[e >> 2], 0x4B000000u, (unsigned)(e & 3) | 0x7650u)) - 8388608.0f;
}

__device__ __forceinline__ unsigned round_bits(float v)
{
    const int bits = __float_as_int(__fadd_rd(v + 0.5f, 8388608.0f));
    return (unsigned)min(max(bits, 0x4B000000), 0x4B0000FF);
}

/* Row t's bytes as floats, byte -C .. W - 1 + C of the run. */
template <int C, int W>
__device__ __forceinline__ void floats_of(row_words<W> &r, float (&f)[W + 2 * C])
{
    halo_words<W>(r);
#pragma unroll
    for (int e = 0; e < W + 2 * C; e++)
        f[e] = sample_f(r.v, e - C + 4);
}

template <int C, int W, bool CHECKED>
__device__ __forceinline__ void conv_row(const strip_io<C, W, CHECKED> &io, int t, const weights_t<3> &K3,
                                         const float (&f0)[W + 2 * C], const float (&f1)[W + 2 * C],
                                         const float (&f2)[W + 2 * C])
{
    unsigned res[W];
#pragma unroll
    for (int x = 0; x < W; x++) {
        float acc = 0.0f;
#pragma unroll
        for (int i = 0; i < 3; i++)
            acc = fmaf(K3.w[i], f0[x + i * C], acc);
#pragma unroll
        for (int i = 0; i < 3; i++)
            acc = fmaf(K3.w[3 + i], f1[x + i * C], acc);
#pragma unroll
        for (int i = 0; i < 3; i++)
            acc = fmaf(K3.w[6 + i], f2[x + i * C], acc);
        res[x] = round_bits(acc);
    }
    unsigned o[W / 4];
#pragma unroll
    for (int q = 0; q < W / 4; q++)
        o[q] = __byte_perm(__byte_perm(res[4 * q], res[4 * q + 1], 0x0040u),
                           __byte_perm(res[4 * q + 2], res[4 * q + 3], 0x0040u), 0x5410u);
    io.store(t, o);
}

/* A strip of S rows (S % 3 == 0), three a turn (the ring of three rows of
 * floats indexed at compile time), each row loaded a row ahead. */
template <int C, int W, bool CHECKED>
__device__ __forceinline__ void conv_strip(const strip_io<C, W, CHECKED> &io, int S, const weights_t<3> &K3)
{
    float f0[W + 2 * C], f1[W + 2 * C], f2[W + 2 * C];
    row_words<W> r;
    io.fetch(0, r);
    floats_of<C, W>(r, f0);
    io.fetch(1, r);
    floats_of<C, W>(r, f1);
    io.fetch(2, r);
#pragma unroll 1
    for (int t = 0; t < S; t += 3) {
        row_words<W> cur = r;
        io.fetch(t + 3, r);
        floats_of<C, W>(cur, f2);
        conv_row(io, t, K3, f0, f1, f2);
        cur = r;
        io.fetch(t + 4, r);
        floats_of<C, W>(cur, f0);
        conv_row(io, t + 1, K3, f1, f2, f0);
        cur = r;
        io.fetch(t + 5, r);
        floats_of<C, W>(cur, f1);
        conv_row(io, t + 2, K3, f2, f0, f1);
    }
}

template <int C, int W, int MINB>
__global__ void __launch_bounds__(128, MINB) conv3_strips(img_t im, const weights_t<3> K3, int S)
{
    const int lane = threadIdx.x & 31;
    const int xb = (blockIdx.x * blockDim.x + threadIdx.x) * W;
    if (xb - lane * W >= im.w * C)
        return;
    for (int y0 = blockIdx.y * S; y0 < im.h; y0 += gridDim.y * S) {
        if (strip_inside<C, W>(im, xb, y0, 1, y0 + S + 1)) {
            const strip_io<C, W, false> io = {im, xb, y0, 1, lane};
            conv_strip(io, S, K3);
        } else {
            const strip_io<C, W, true> io = {im, xb, y0, 1, lane};
            conv_strip(io, S, K3);
        }
    }
}

/* ---- references: one thread a byte --------------------------------- */
__device__ unsigned char px_at(const img_t &im, int x, int y, int ch)
{
    return im.in[(size_t)clampi(y, 0, im.h - 1) * im.pitch + clampi(x, 0, im.w - 1) * im.c + ch];
}

template <int K>
__global__ void conv_ref(img_t im, const weights_t<K> W)
{
    const int e = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (e >= im.w * im.c)
        return;
    const int x = e / im.c, ch = e % im.c, R = K / 2;
    float acc = 0.0f;
    for (int j = 0; j < K; j++)
        for (int i = 0; i < K; i++)
            acc = fmaf(W.w[j * K + i], (float)px_at(im, x + i - R, y + j - R, ch), acc);
    im.out[(size_t)y * im.pitch + e] = (unsigned char)(round_bits(acc) & 0xFF);
}

__global__ void copy16(img_t im)
{
    const int xb = (blockIdx.x * blockDim.x + threadIdx.x) * 16, y = blockIdx.y;
    if (xb + 16 <= im.w * im.c)
        *(uint4 *)(im.out + (size_t)y * im.pitch + xb) = __ldg((const uint4 *)(im.in + (size_t)y * im.pitch + xb));
}

/* ---- host ------------------------------------------------------------ */
template <typename F>
static float time_ms(F launch, int reps)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 3; i++)
        launch();
    std::vector<float> t;
    for (int i = 0; i < reps; i++) {
        CK(cudaEventRecord(a));
        launch();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    CK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

static size_t diff_count(const img_t &a, const unsigned char *ref, int *maxd)
{
    const size_t n = a.pitch * a.h;
    std::vector<unsigned char> x(n), y(n);
    CK(cudaMemcpy(x.data(), a.out, n, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(y.data(), ref, n, cudaMemcpyDeviceToHost));
    size_t d = 0;
    *maxd = 0;
    for (int r = 0; r < a.h; r++)
        for (int e = 0; e < a.w * a.c; e++) {
            const int v = abs((int)x[r * a.pitch + e] - (int)y[r * a.pitch + e]);
            d += v != 0;
            *maxd = std::max(*maxd, v);
        }
    return d;
}

/* As many blocks as fit on the GPU at once (strips loop inside), or one
 * block a strip where that is fewer. */
static dim3 grid_for(const void *kernel, const img_t &im, int S, int W)
{
    int dev, sms, per_sm;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 128, 0));
    const int bx = ((im.w * im.c + W - 1) / W + 127) / 128, strips = (im.h + S - 1) / S;
    const int by = std::max(1, std::min(strips, (sms * per_sm + bx - 1) / bx));
    return dim3(bx, by);
}

template <int C, int W, int MINB>
static void run_conv(img_t im, unsigned char *ref, const weights_t<3> &K3, double bytes, float copy_ms, int reps, int S)
{
    const dim3 grid = grid_for((const void *)conv3_strips<C, W, MINB>, im, S, W);
    CK(cudaMemset(im.out, 0, im.pitch * im.h));
    conv3_strips<C, W, MINB><<<grid, 128>>>(im, K3, S);
    CK(cudaDeviceSynchronize());
    int maxd;
    const size_t d = diff_count(im, ref, &maxd);
    const float ms = time_ms([&] { conv3_strips<C, W, MINB><<<grid, 128>>>(im, K3, S); }, reps);
    printf("conv3   W=%-2d S=%-3d minb %d %dx%dx%d  %.4f ms  %6.0f GB/s  %5.1f%% of copy  diffs %zu (max %d)\n", W, S,
           MINB, im.w, im.h, C, ms, bytes / ms / 1e6, 100.0 * copy_ms / ms, d, maxd);
}

template <int C>
static void run_size(int w, int h, int reps)
{
    img_t im;
    im.w = w;
    im.h = h;
    im.c = C;
    size_t pitch;
    unsigned char *in, *out, *ref;
    CK(cudaMallocPitch((void **)&in, &pitch, (size_t)w * C, h));
    CK(cudaMallocPitch((void **)&out, &pitch, (size_t)w * C, h));
    CK(cudaMallocPitch((void **)&ref, &pitch, (size_t)w * C, h));
    im.in = in;
    im.out = out;
    im.pitch = pitch;
    std::vector<unsigned char> host(pitch * h);
    unsigned s = 12345u + w + C;
    for (size_t i = 0; i < host.size(); i++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        host[i] = (unsigned char)(s >> 7);
    }
    CK(cudaMemcpy(in, host.data(), host.size(), cudaMemcpyHostToDevice));
    const double bytes = 2.0 * w * h * C;
    const int threads = (w * C + 15) / 16;
    const float copy_ms = time_ms([&] { copy16<<<dim3((threads + 127) / 128, h), 128>>>(im); }, reps);
    printf("copy16            %dx%dx%d  %.4f ms  %6.0f GB/s\n", w, h, C, copy_ms, bytes / copy_ms / 1e6);

    img_t r = im;
    r.out = ref;
    const dim3 rg((w * C + 255) / 256, h);
    weights_t<3> W3;
    for (int i = 0; i < 9; i++)
        W3.w[i] = (float)(1 + (i * 7) % 5) / 27.0f - (i == 4 ? 0.05f : 0.0f);
    conv_ref<3><<<rg, 256>>>(r, W3);
    CK(cudaDeviceSynchronize());
    for (int S : {6, 12, 24}) {
        run_conv<C, 16, 4>(im, ref, W3, bytes, copy_ms, reps, S);
        run_conv<C, 8, 4>(im, ref, W3, bytes, copy_ms, reps, S);
        run_conv<C, 8, 8>(im, ref, W3, bytes, copy_ms, reps, S);
    }
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(ref));
}

int main(int argc, char **argv)
{
    const int reps = 50;
    std::vector<std::pair<int, int>> sizes;
    for (int i = 1; i < argc; i++) {
        int w, h;
        if (sscanf(argv[i], "%dx%d", &w, &h) == 2)
            sizes.push_back({w, h});
    }
    if (sizes.empty())
        sizes = {{3840, 2160}, {7680, 4320}, {1023, 577}, {7, 5}};
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("# %s, %d SMs, median of %d runs after 3\n", p.name, p.multiProcessorCount, reps);
    for (auto s : sizes) {
        run_size<1>(s.first, s.second, reps);
        run_size<3>(s.first, s.second, reps);
    }
    return 0;
}
