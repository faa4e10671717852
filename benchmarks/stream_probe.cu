/*
 * Probe (issue 37): the 3 x 3 median and convolution as column strips
 * streamed through registers (no shared tile, no barrier), against a
 * 16-byte copy of the same image, 8-bit grey or interleaved RGB, edges
 * replicated.  Not part of the library: what it measured is in
 * benchmarks/RESULTS.md ("Column strips through registers").
 *
 *   scripts/gpu.sh stream-probe [WxH ...]     (on the GPU machine)
 *
 * Each thread owns 16 bytes of a row (16 grey pixels, or 5 1/3 RGB pixels:
 * the filters are blind to channels, a byte's neighbours are C bytes away)
 * and walks S rows down, one 16-byte load a row issued a row (or a pair)
 * ahead; the bytes beside its own come from the neighbouring lanes (warp
 * shuffles), at a warp's ends from memory, loaded with the row.  Blocks
 * loop over strips, as many as fit on the GPU at once.  The median keeps
 * two samples a register (bytes x and x + 8 in the high bytes of 16-bit
 * lanes: min.u16x2 / max.u16x2 and their three-input forms are one
 * instruction each on sm_90), sorts each column of three once per pair of
 * output rows and takes the median of the sorted columns;
 * `median3_stream2` is the same with the checks for the image's edges out
 * of the loop.  The convolution keeps K rows as floats and sums in the CPU
 * reference's order.  Every result is checked against a one-thread-a-byte
 * kernel before it is timed (the "diffs" column must be 0).
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

/* A thread's 16 bytes of a row and NH words either side:
 * v[0 .. NH-1] left, v[NH .. NH+3] own, v[NH+4 ..] right. */
template <int NH>
struct row_words {
    unsigned v[4 + 2 * NH];
};

/* Every load of a row: the thread's 16 bytes, and at a warp's ends the
 * words beside them (issued with the rest, a row ahead, so no lane waits
 * on a load of its own when the row is used). */
template <int C, int NH>
__device__ __forceinline__ void own_words(const unsigned char *row, int xb, const img_t &im, row_words<NH> &r)
{
    const int lane = threadIdx.x & 31;
    if (xb + 16 <= im.w * im.c) {
        const uint4 q = __ldg((const uint4 *)(row + xb));
        r.v[NH] = q.x;
        r.v[NH + 1] = q.y;
        r.v[NH + 2] = q.z;
        r.v[NH + 3] = q.w;
    } else {
#pragma unroll
        for (int i = 0; i < 4; i++)
            r.v[NH + i] = word_at<C>(row, xb + 4 * i, im);
    }
    if (lane == 0) {
#pragma unroll
        for (int i = 0; i < NH; i++)
            r.v[i] = word_at<C>(row, xb - 4 * (NH - i), im);
    }
    if (lane == 31) {
#pragma unroll
        for (int i = 0; i < NH; i++)
            r.v[NH + 4 + i] = word_at<C>(row, xb + 16 + 4 * i, im);
    }
}

/* The words beside the thread's own from the neighbouring lanes. */
template <int NH>
__device__ __forceinline__ void halo_words(row_words<NH> &r)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int i = 0; i < NH; i++) {
        const unsigned l = __shfl_up_sync(0xffffffffu, r.v[NH + 4 - NH + i], 1);
        const unsigned rr = __shfl_down_sync(0xffffffffu, r.v[NH + i], 1);
        if (lane > 0)
            r.v[i] = l;
        if (lane < 31)
            r.v[NH + 4 + i] = rr;
    }
}

__device__ __forceinline__ const unsigned char *in_row(const img_t &im, int y)
{
    return im.in + (size_t)clampi(y, 0, im.h - 1) * im.pitch;
}

__device__ __forceinline__ void store16(const img_t &im, int y, int xb, const unsigned (&o)[4])
{
    if (y >= im.h)
        return;
    unsigned char *row = im.out + (size_t)y * im.pitch;
    const int rowbytes = im.w * im.c;
    if (xb + 16 <= rowbytes) {
        *(uint4 *)(row + xb) = make_uint4(o[0], o[1], o[2], o[3]);
    } else {
        for (int j = 0; j < 16 && xb + j < rowbytes; j++)
            row[xb + j] = (unsigned char)(o[j >> 2] >> (8 * (j & 3)));
    }
}

/* ---- median 3 x 3 ---------------------------------------------------- */
__device__ __forceinline__ unsigned mn(unsigned a, unsigned b) { return __vminu2(a, b); }
__device__ __forceinline__ unsigned mx(unsigned a, unsigned b) { return __vmaxu2(a, b); }
__device__ __forceinline__ unsigned med3(unsigned a, unsigned b, unsigned c)
{
    return mx(mn(a, b), mn(mx(a, b), c));
}

/* Q[x + C] = bytes x and x + 8 of the thread's run in the high bytes of
 * two 16-bit lanes, x = -C .. 7 + C. */
template <int C, int NH>
__device__ __forceinline__ void lanes_of(const row_words<NH> &r, unsigned (&q)[8 + 2 * C])
{
#pragma unroll
    for (int x = -C; x < 8 + C; x++) {
        const int a = x + 4 * NH, b = x + 8 + 4 * NH; /* byte indices in r.v */
        const unsigned sel = (unsigned)((a & 3) | ((a & 3) << 4) | ((4 + (b & 3)) << 8) | ((4 + (b & 3)) << 12));
        q[x + C] = __byte_perm(r.v[a >> 2], r.v[b >> 2], sel);
    }
}

template <int C>
__device__ __forceinline__ void median_out(const unsigned (&lo)[8 + 2 * C], const unsigned (&mi)[8 + 2 * C],
                                           const unsigned (&hi)[8 + 2 * C], unsigned (&o)[4])
{
    unsigned res[8];
#pragma unroll
    for (int x = 0; x < 8; x++) {
        const unsigned L = __vimax3_u16x2(lo[x], lo[x + C], lo[x + 2 * C]);
        const unsigned H = __vimin3_u16x2(hi[x], hi[x + C], hi[x + 2 * C]);
        const unsigned M = med3(mi[x], mi[x + C], mi[x + 2 * C]);
        res[x] = med3(L, M, H);
    }
#pragma unroll
    for (int g = 0; g < 2; g++) {
        const unsigned A = __byte_perm(res[4 * g], res[4 * g + 1], 0x7351u);
        const unsigned B = __byte_perm(res[4 * g + 2], res[4 * g + 3], 0x7351u);
        o[g] = __byte_perm(A, B, 0x5410u);
        o[g + 2] = __byte_perm(A, B, 0x7632u);
    }
}

/* One row's lanes (its own 16 bytes already loaded into r). */
template <int C, int NH>
__device__ __forceinline__ void row_lanes(const unsigned char *row, int xb, const img_t &im, row_words<NH> &r,
                                          unsigned (&q)[8 + 2 * C])
{
    halo_words(r);
    lanes_of<C>(r, q);
}

/* The strip's rows two at a time in a loop (unrolled whole, the strip's
 * straight-line code outgrew the instruction cache: a 7 x 5 image took
 * 35 us at 8 rows, 110 at 32); each pair's loads are issued before the
 * previous pair is sorted. */
template <int C, int MINB>
__global__ void __launch_bounds__(128, MINB) median3_stream(img_t im, int S)
{
    enum { NH = (C + 3) / 4, NQ = 8 + 2 * C };
    const int xb = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
    if ((xb & ~511) >= im.w * C) /* a whole warp past the row */
        return;
    for (int y0 = blockIdx.y * S; y0 < im.h; y0 += gridDim.y * S) { /* strips, as many blocks as fit at once */
    unsigned qa[NQ], qb[NQ], qc[NQ], qd[NQ];
    row_words<NH> a, b;
    own_words<C>(in_row(im, y0 - 1), xb, im, a);
    own_words<C>(in_row(im, y0), xb, im, b);
    row_lanes<C>(in_row(im, y0 - 1), xb, im, a, qa);
    row_lanes<C>(in_row(im, y0), xb, im, b, qb);
    own_words<C>(in_row(im, y0 + 1), xb, im, a);
    own_words<C>(in_row(im, y0 + 2), xb, im, b);
#pragma unroll 1
    for (int y = y0; y < y0 + S; y += 2) {
        row_lanes<C>(in_row(im, y + 1), xb, im, a, qc);
        row_lanes<C>(in_row(im, y + 2), xb, im, b, qd);
        own_words<C>(in_row(im, y + 3), xb, im, a); /* the next pair, in flight while this one is sorted */
        own_words<C>(in_row(im, y + 4), xb, im, b);
        unsigned lo[NQ], mi[NQ], hi[NQ], lo2[NQ], mi2[NQ], hi2[NQ];
#pragma unroll
        for (int i = 0; i < NQ; i++) {
            const unsigned pmin = mn(qb[i], qc[i]), pmax = mx(qb[i], qc[i]);
            lo[i] = mn(pmin, qa[i]);
            hi[i] = mx(pmax, qa[i]);
            mi[i] = mx(pmin, mn(pmax, qa[i]));
            lo2[i] = mn(pmin, qd[i]);
            hi2[i] = mx(pmax, qd[i]);
            mi2[i] = mx(pmin, mn(pmax, qd[i]));
        }
        unsigned o[4];
        median_out<C>(lo, mi, hi, o);
        store16(im, y, xb, o);
        median_out<C>(lo2, mi2, hi2, o);
        store16(im, y + 1, xb, o);
#pragma unroll
        for (int i = 0; i < NQ; i++) {
            qa[i] = qc[i];
            qb[i] = qd[i];
        }
    }
    }
}

/* The same median with the edges taken out of the loop: a thread whose
 * loads all lie inside the image (columns and the strip's rows) walks
 * row pointers and loads and stores without a check; the others run the
 * checked loop above.  Two pairs of rows a turn, so the four rows of
 * lanes change roles without copies. */
template <int C>
struct lanes_pair_io {
    const unsigned char *p; /* row y0 - 1 + at */
    size_t pitch;
    int xb, lane;
    __device__ __forceinline__ void fetch(int row, row_words<1> &r) const
    {
        const unsigned char *q = p + (size_t)row * pitch + xb;
        const uint4 v = __ldg((const uint4 *)q);
        r.v[1] = v.x;
        r.v[2] = v.y;
        r.v[3] = v.z;
        r.v[4] = v.w;
        if (lane == 0)
            r.v[0] = __ldg((const unsigned *)(q - 4));
        if (lane == 31)
            r.v[5] = __ldg((const unsigned *)(q + 16));
    }
};

template <int C>
__device__ __forceinline__ void pair_out(const unsigned (&qa)[8 + 2 * C], const unsigned (&qb)[8 + 2 * C],
                                         const unsigned (&qc)[8 + 2 * C], const unsigned (&qd)[8 + 2 * C],
                                         unsigned char *o0, size_t pitch)
{
    enum { NQ = 8 + 2 * C };
    unsigned lo[NQ], mi[NQ], hi[NQ], lo2[NQ], mi2[NQ], hi2[NQ];
#pragma unroll
    for (int i = 0; i < NQ; i++) {
        const unsigned pmin = mn(qb[i], qc[i]), pmax = mx(qb[i], qc[i]);
        lo[i] = mn(pmin, qa[i]);
        hi[i] = mx(pmax, qa[i]);
        mi[i] = mx(pmin, mn(pmax, qa[i]));
        lo2[i] = mn(pmin, qd[i]);
        hi2[i] = mx(pmax, qd[i]);
        mi2[i] = mx(pmin, mn(pmax, qd[i]));
    }
    unsigned o[4];
    median_out<C>(lo, mi, hi, o);
    *(uint4 *)o0 = make_uint4(o[0], o[1], o[2], o[3]);
    median_out<C>(lo2, mi2, hi2, o);
    *(uint4 *)(o0 + pitch) = make_uint4(o[0], o[1], o[2], o[3]);
}

template <int C>
__global__ void __launch_bounds__(128, 4) median3_stream2(img_t im, int S)
{
    enum { NQ = 8 + 2 * C };
    static_assert(C <= 4, "one word of halo");
    const int xb = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
    if ((xb & ~511) >= im.w * C)
        return;
    const int lane = threadIdx.x & 31;
    const bool inner_x = xb >= 4 && xb + 20 <= im.w * C;
    for (int y0 = blockIdx.y * S; y0 < im.h; y0 += gridDim.y * S) {
        /* rows y0 - 1 .. y0 + S, and the loop's last prefetch reads up to y0 + S + 2: S % 4 == 0 */
        const bool inner = inner_x && y0 >= 1 && y0 + S + 2 < im.h;
        if (!__all_sync(0xffffffffu, inner)) {
            /* the checked loop of median3_stream for this strip */
            unsigned qa[NQ], qb[NQ], qc[NQ], qd[NQ];
            row_words<1> a, b;
            own_words<C>(in_row(im, y0 - 1), xb, im, a);
            own_words<C>(in_row(im, y0), xb, im, b);
            row_lanes<C>(in_row(im, y0 - 1), xb, im, a, qa);
            row_lanes<C>(in_row(im, y0), xb, im, b, qb);
            own_words<C>(in_row(im, y0 + 1), xb, im, a);
            own_words<C>(in_row(im, y0 + 2), xb, im, b);
            for (int y = y0; y < y0 + S; y += 2) {
                row_lanes<C>(in_row(im, y + 1), xb, im, a, qc);
                row_lanes<C>(in_row(im, y + 2), xb, im, b, qd);
                own_words<C>(in_row(im, y + 3), xb, im, a);
                own_words<C>(in_row(im, y + 4), xb, im, b);
                unsigned lo[NQ], mi[NQ], hi[NQ], lo2[NQ], mi2[NQ], hi2[NQ];
#pragma unroll
                for (int i = 0; i < NQ; i++) {
                    const unsigned pmin = mn(qb[i], qc[i]), pmax = mx(qb[i], qc[i]);
                    lo[i] = mn(pmin, qa[i]);
                    hi[i] = mx(pmax, qa[i]);
                    mi[i] = mx(pmin, mn(pmax, qa[i]));
                    lo2[i] = mn(pmin, qd[i]);
                    hi2[i] = mx(pmax, qd[i]);
                    mi2[i] = mx(pmin, mn(pmax, qd[i]));
                }
                unsigned o[4];
                median_out<C>(lo, mi, hi, o);
                store16(im, y, xb, o);
                median_out<C>(lo2, mi2, hi2, o);
                store16(im, y + 1, xb, o);
#pragma unroll
                for (int i = 0; i < NQ; i++) {
                    qa[i] = qc[i];
                    qb[i] = qd[i];
                }
            }
            continue;
        }
        lanes_pair_io<C> io = {im.in + (size_t)(y0 - 1) * im.pitch, im.pitch, xb, lane};
        unsigned char *o0 = im.out + (size_t)y0 * im.pitch + xb;
        unsigned q0[NQ], q1[NQ], q2[NQ], q3[NQ];
        row_words<1> a, b;
        io.fetch(0, a);
        io.fetch(1, b);
        halo_words(a);
        lanes_of<C>(a, q0);
        halo_words(b);
        lanes_of<C>(b, q1);
        io.fetch(2, a);
        io.fetch(3, b);
        for (int y = 0; y < S; y += 4) {
            /* rows y + 1, y + 2 arrive (q2, q3): outputs y, y + 1 from q0..q3 */
            halo_words(a);
            lanes_of<C>(a, q2);
            halo_words(b);
            lanes_of<C>(b, q3);
            io.fetch(y + 4, a);
            io.fetch(y + 5, b);
            pair_out<C>(q0, q1, q2, q3, o0 + (size_t)y * im.pitch, im.pitch);
            /* rows y + 3, y + 4 (into q0, q1): outputs y + 2, y + 3 from q2, q3, q0, q1 */
            halo_words(a);
            lanes_of<C>(a, q0);
            halo_words(b);
            lanes_of<C>(b, q1);
            io.fetch(y + 6, a);
            io.fetch(y + 7, b);
            pair_out<C>(q2, q3, q0, q1, o0 + (size_t)(y + 2) * im.pitch, im.pitch);
        }
    }
}

/* ---- convolution K x K --------------------------------------------- */
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

/* K rows a loop turn, so the ring of rows is indexed at compile time;
 * each row's own words are loaded a row ahead. */
template <int K, int C, int MINB>
__global__ void __launch_bounds__(128, MINB) conv_stream(img_t im, const weights_t<K> W, int S)
{
    enum { R = K / 2, HB = R * C, NH = (HB + 3) / 4, NF = 16 + 2 * HB };
    const int xb = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
    if ((xb & ~511) >= im.w * C)
        return;
    for (int y0 = blockIdx.y * S; y0 < im.h; y0 += gridDim.y * S) {
    float f[K][NF];
    row_words<NH> r;
    own_words<C>(in_row(im, y0 - R), xb, im, r);
#pragma unroll
    for (int t = 0; t < K - 1; t++) {
        const unsigned char *row = in_row(im, y0 - R + t);
        halo_words(r);
        row_words<NH> cur = r;
        own_words<C>(in_row(im, y0 - R + t + 1), xb, im, r);
#pragma unroll
        for (int e = 0; e < NF; e++)
            f[t][e] = sample_f(cur.v, e - HB + 4 * NH);
    }
#pragma unroll 1
    for (int g = 0; g < S; g += K) {
#pragma unroll
        for (int u = 0; u < K; u++) {
            const int y = y0 + g + u; /* output row; input row y + R arrives */
            const unsigned char *row = in_row(im, y + R);
            halo_words(r);
            row_words<NH> cur = r;
            own_words<C>(in_row(im, y + R + 1), xb, im, r);
#pragma unroll
            for (int e = 0; e < NF; e++)
                f[(u + K - 1) % K][e] = sample_f(cur.v, e - HB + 4 * NH);
            unsigned res[16];
#pragma unroll
            for (int x = 0; x < 16; x++) {
                float acc = 0.0f;
#pragma unroll
                for (int j = 0; j < K; j++)
#pragma unroll
                    for (int i = 0; i < K; i++)
                        acc = fmaf(W.w[j * K + i], f[(u + j) % K][x + HB + (i - R) * C], acc);
                res[x] = round_bits(acc);
            }
            unsigned o[4];
#pragma unroll
            for (int q = 0; q < 4; q++)
                o[q] = __byte_perm(__byte_perm(res[4 * q], res[4 * q + 1], 0x0040u),
                                   __byte_perm(res[4 * q + 2], res[4 * q + 3], 0x0040u), 0x5410u);
            if (g + u < S)
                store16(im, y, xb, o);
        }
    }
    }
}

/* ---- references: one thread a byte --------------------------------- */
__device__ unsigned char px_at(const img_t &im, int x, int y, int ch)
{
    return im.in[(size_t)clampi(y, 0, im.h - 1) * im.pitch + clampi(x, 0, im.w - 1) * im.c + ch];
}

__global__ void median3_ref(img_t im)
{
    const int e = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (e >= im.w * im.c)
        return;
    const int x = e / im.c, ch = e % im.c;
    unsigned char v[9];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            v[j * 3 + i] = px_at(im, x + i - 1, y + j - 1, ch);
    for (int a = 0; a < 9; a++)
        for (int b = a + 1; b < 9; b++)
            if (v[b] < v[a]) {
                unsigned char t = v[a];
                v[a] = v[b];
                v[b] = t;
            }
    im.out[(size_t)y * im.pitch + e] = v[4];
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
static dim3 grid_for(const void *kernel, const img_t &im, int S)
{
    int dev, sms, per_sm;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 128, 0));
    const int bx = ((im.w * im.c + 15) / 16 + 127) / 128, strips = (im.h + S - 1) / S;
    const int by = std::max(1, std::min(strips, (sms * per_sm + bx - 1) / bx));
    return dim3(bx, by);
}

template <int C, int MINB>
static void run_median(img_t im, unsigned char *ref, double bytes, float copy_ms, int reps, int S)
{
    const dim3 grid = grid_for((const void *)median3_stream<C, MINB>, im, S);
    CK(cudaMemset(im.out, 0, im.pitch * im.h));
    median3_stream<C, MINB><<<grid, 128>>>(im, S);
    CK(cudaDeviceSynchronize());
    int maxd;
    const size_t d = diff_count(im, ref, &maxd);
    const float ms = time_ms([&] { median3_stream<C, MINB><<<grid, 128>>>(im, S); }, reps);
    printf("median3 stream S=%-3d minb %d %dx%dx%d  %.4f ms  %6.0f GB/s  %5.1f%% of copy  diffs %zu\n", S, MINB,
           im.w, im.h, C, ms, bytes / ms / 1e6, 100.0 * copy_ms / ms, d);
}

template <int C>
static void run_median2(img_t im, unsigned char *ref, double bytes, float copy_ms, int reps, int S)
{
    const dim3 grid = grid_for((const void *)median3_stream2<C>, im, S);
    CK(cudaMemset(im.out, 0, im.pitch * im.h));
    median3_stream2<C><<<grid, 128>>>(im, S);
    CK(cudaDeviceSynchronize());
    int maxd;
    const size_t d = diff_count(im, ref, &maxd);
    const float ms = time_ms([&] { median3_stream2<C><<<grid, 128>>>(im, S); }, reps);
    printf("median3 stream2 S=%-3d %dx%dx%d  %.4f ms  %6.0f GB/s  %5.1f%% of copy  diffs %zu\n", S,
           im.w, im.h, C, ms, bytes / ms / 1e6, 100.0 * copy_ms / ms, d);
}

template <int K, int C, int MINB>
static void run_conv(img_t im, unsigned char *ref, const weights_t<K> &W, double bytes, float copy_ms, int reps, int S)
{
    const dim3 grid = grid_for((const void *)conv_stream<K, C, MINB>, im, S);
    CK(cudaMemset(im.out, 0, im.pitch * im.h));
    conv_stream<K, C, MINB><<<grid, 128>>>(im, W, S);
    CK(cudaDeviceSynchronize());
    int maxd;
    const size_t d = diff_count(im, ref, &maxd);
    const float ms = time_ms([&] { conv_stream<K, C, MINB><<<grid, 128>>>(im, W, S); }, reps);
    printf("conv%d   stream S=%-3d minb %d %dx%dx%d  %.4f ms  %6.0f GB/s  %5.1f%% of copy  diffs %zu (max %d)\n", K, S,
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
    median3_ref<<<rg, 256>>>(r);
    CK(cudaDeviceSynchronize());
    for (int S : {8, 16, 32}) {
        run_median<C, 4>(im, ref, bytes, copy_ms, reps, S);
        run_median2<C>(im, ref, bytes, copy_ms, reps, S);
    }

    weights_t<3> W3;
    for (int i = 0; i < 9; i++)
        W3.w[i] = (float)(1 + (i * 7) % 5) / 27.0f - (i == 4 ? 0.05f : 0.0f);
    conv_ref<3><<<rg, 256>>>(r, W3);
    CK(cudaDeviceSynchronize());
    for (int S : {6, 12, 24}) {
        run_conv<3, C, 4>(im, ref, W3, bytes, copy_ms, reps, S);
        run_conv<3, C, 6>(im, ref, W3, bytes, copy_ms, reps, S);
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
