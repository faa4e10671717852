/*
 * Median selection inside one thread, shared by the CUDA median variants.
 *
 * k = 3: a min/max network.  Sort each column of three, then the median is
 *        med3(max of the lows, med3 of the middles, min of the highs).
 * k = 5: each column of five sorted (9 comparators), then the 85 of the
 *        CPU's network over sorted columns (median_net_template.c, checked
 *        there on every 0-1 input): 130 min/max pairs where a selection bit
 *        by bit costs 25 compare-adds a bit (32 bits for floats' keys).
 * k = 7: the window is loaded into registers (K is a template constant,
 *        so the array never touches local memory) and selected bit by bit.
 * any k: bitwise radix select straight from memory.  The median M of n = k*k
 *        samples is the largest value c with count(v < c) <= n/2; it is built
 *        from the top bit down, one counting pass over the window per bit.
 *        Cost 8k^2 compare-adds (16k^2 at 16 bits), no sorting, no local
 *        array, no divergence.
 * Templates over the sample type T (8 or 16 bits, or float through 32-bit
 * keys: jf_key); `pitch` counts samples of T from one window row to the
 * next.
 */
#ifndef JF_FILTERS_MEDIAN_SELECT_CUH
#define JF_FILTERS_MEDIAN_SELECT_CUH

/* A sample as an unsigned key of the same order: integers as they are;
 * floats as NumPy sorts them (-inf < ... < -0 < +0 < ... < +inf < NaN,
 * every NaN alike), the CPU's order (median_cpu_keys.c), and back (a NaN
 * comes back as 0x7fffffff, as on the CPU). */
template <typename T> struct jf_key {
    static __device__ __forceinline__ unsigned of(T v) { return v; }
    static __device__ __forceinline__ T back(unsigned k) { return (T)k; }
};
template <> struct jf_key<float> {
    static __device__ __forceinline__ unsigned of(float v)
    {
        const unsigned b = __float_as_uint(v);
        if ((b & 0x7fffffffu) > 0x7f800000u)
            return 0xffffffffu;
        return (b & 0x80000000u) ? ~b : b | 0x80000000u;
    }
    static __device__ __forceinline__ float back(unsigned k)
    {
        return __uint_as_float((k & 0x80000000u) ? k & 0x7fffffffu : ~k);
    }
};

__device__ __forceinline__ unsigned jf_min(unsigned a, unsigned b) { return a < b ? a : b; }
__device__ __forceinline__ unsigned jf_max(unsigned a, unsigned b) { return a > b ? a : b; }
__device__ __forceinline__ unsigned jf_med3(unsigned a, unsigned b, unsigned c)
{
    return jf_max(jf_min(a, b), jf_min(jf_max(a, b), c));
}

/* The median of nine keys, w[3 j + i] the window's row j, column i. */
__device__ __forceinline__ unsigned jf_median9_keys(const unsigned (&w)[9])
{
    unsigned lo[3], mid[3], hi[3];
#pragma unroll
    for (int i = 0; i < 3; i++) {
        const unsigned a = w[i], b = w[3 + i], c = w[6 + i];
        const unsigned t0 = jf_min(a, b), t1 = jf_max(a, b);
        lo[i] = jf_min(t0, c);
        hi[i] = jf_max(t1, c);
        mid[i] = jf_max(t0, jf_min(t1, c));
    }
    return jf_med3(jf_max(jf_max(lo[0], lo[1]), lo[2]), jf_med3(mid[0], mid[1], mid[2]),
                   jf_min(jf_min(hi[0], hi[1]), hi[2]));
}

/* rows: three pointers to the three window rows; reads p[0..2] of each */
template <typename T>
__device__ __forceinline__ T jf_median9(const T *r0, const T *r1, const T *r2)
{
    unsigned w[9];
#pragma unroll
    for (int i = 0; i < 3; i++) {
        w[i] = jf_key<T>::of(r0[i]);
        w[3 + i] = jf_key<T>::of(r1[i]);
        w[6 + i] = jf_key<T>::of(r2[i]);
    }
    return jf_key<T>::back(jf_median9_keys(w));
}

/* Window of K x K in registers, from rows `pitch` samples apart. */
template <int K, typename T>
__device__ __forceinline__ T jf_median_regs(const T *p, size_t pitch)
{
    unsigned v[K * K];
    unsigned result = 0;
#pragma unroll
    for (int j = 0; j < K; j++)
#pragma unroll
        for (int i = 0; i < K; i++)
            v[j * K + i] = jf_key<T>::of(p[(size_t)j * pitch + i]);
#pragma unroll
    for (int bit = 8 * (int)sizeof(T) - 1; bit >= 0; bit--) {
        unsigned cand = result | (1u << bit);
        int below = 0;
#pragma unroll
        for (int n = 0; n < K * K; n++)
            below += v[n] < cand;
        if (below <= (K * K) / 2)
            result = cand;
    }
    return jf_key<T>::back(result);
}

/* The median of 25 keys, w[5 j + i] the window's row j, column i:
 * sorted columns, then the network. */
__device__ __forceinline__ unsigned jf_median25_keys(const unsigned (&w)[25])
{
    unsigned v[25];
#define SORT2_(x, y)                                                          \
    do {                                                                      \
        const unsigned lo_ = jf_min(x, y), hi_ = jf_max(x, y);                \
        x = lo_;                                                              \
        y = hi_;                                                              \
    } while (0)
#pragma unroll
    for (int i = 0; i < 5; i++) { /* v[5 i + r]: the r-th smallest of column i */
        unsigned a = w[i], b = w[5 + i], c = w[10 + i], e = w[15 + i], f = w[20 + i];
        SORT2_(a, b); SORT2_(e, f); SORT2_(c, f); SORT2_(c, e); SORT2_(a, e);
        SORT2_(a, c); SORT2_(b, f); SORT2_(b, e); SORT2_(b, c);
        v[5 * i] = a;
        v[5 * i + 1] = b;
        v[5 * i + 2] = c;
        v[5 * i + 3] = e;
        v[5 * i + 4] = f;
    }
#define CMP(x, y) SORT2_(v[x], v[y]);
        CMP(4, 5) CMP(14, 15) CMP(5, 7) CMP(8, 10) CMP(9, 11) CMP(12, 14) CMP(5, 6) CMP(9, 10)
        CMP(13, 14) CMP(0, 4) CMP(1, 5) CMP(2, 6) CMP(8, 12) CMP(10, 14) CMP(11, 15) CMP(16, 20)
        CMP(17, 21) CMP(18, 22) CMP(19, 23) CMP(2, 4) CMP(3, 5) CMP(10, 12) CMP(11, 13)
        CMP(18, 20) CMP(19, 21) CMP(1, 2) CMP(3, 4) CMP(5, 6) CMP(9, 10) CMP(11, 12) CMP(13, 14)
        CMP(17, 18) CMP(19, 20) CMP(21, 22) CMP(0, 8) CMP(1, 9) CMP(2, 10) CMP(3, 11) CMP(4, 12)
        CMP(5, 13) CMP(6, 14) CMP(7, 15) CMP(4, 8) CMP(5, 9) CMP(6, 10) CMP(7, 11) CMP(20, 24)
        CMP(2, 4) CMP(3, 5) CMP(6, 8) CMP(7, 9) CMP(10, 12) CMP(11, 13) CMP(22, 24) CMP(1, 2)
        CMP(3, 4) CMP(5, 6) CMP(7, 8) CMP(9, 10) CMP(11, 12) CMP(13, 14) CMP(21, 22) CMP(23, 24)
        CMP(0, 16) CMP(1, 17) CMP(2, 18) CMP(3, 19) CMP(4, 20) CMP(5, 21) CMP(6, 22) CMP(7, 23)
        CMP(8, 24) CMP(8, 16) CMP(9, 17) CMP(10, 18) CMP(11, 19) CMP(12, 20) CMP(13, 21)
        CMP(6, 10) CMP(7, 11) CMP(12, 16) CMP(13, 17) CMP(10, 12) CMP(11, 13) CMP(11, 12)
#undef CMP
#undef SORT2_
    return v[12];
}

/* k = 5 from rows `pitch` samples apart. */
template <typename T>
__device__ __forceinline__ T jf_median25(const T *p, size_t pitch)
{
    unsigned w[25];
#pragma unroll
    for (int j = 0; j < 5; j++)
#pragma unroll
        for (int i = 0; i < 5; i++)
            w[5 * j + i] = jf_key<T>::of(p[(size_t)j * pitch + i]);
    return jf_key<T>::back(jf_median25_keys(w));
}

/* Any k, reading the window from memory (global or shared). */
template <typename T>
__device__ __forceinline__ T jf_median_bitwise(const T *p, size_t pitch, int k)
{
    const int rank = (k * k) / 2;
    unsigned result = 0;
    for (int bit = 8 * (int)sizeof(T) - 1; bit >= 0; bit--) {
        const unsigned cand = result | (1u << bit);
        int below = 0;
        for (int j = 0; j < k; j++) {
            const T *row = p + (size_t)j * pitch;
            for (int i = 0; i < k; i++)
                below += jf_key<T>::of(row[i]) < cand;
        }
        if (below <= rank)
            result = cand;
    }
    return jf_key<T>::back(result);
}

/* Dispatch on k: the specialised paths for 3, 5, 7, the general one else. */
template <typename T>
__device__ __forceinline__ T jf_median_select(const T *p, size_t pitch, int k)
{
    switch (k) {
    case 1: return p[0];
    case 3: return jf_median9(p, p + pitch, p + 2 * pitch);
    case 5: return jf_median25(p, pitch);
    case 7: return jf_median_regs<7>(p, pitch);
    default: return jf_median_bitwise(p, pitch, k);
    }
}

#endif
