/*
 * Median selection inside one thread, shared by the CUDA median variants.
 *
 * k = 3: a min/max network.  Sort each column of three, then the median is
 *        med3(max of the lows, med3 of the middles, min of the highs).
 * k = 5, 7: the window is loaded into registers (K is a template constant,
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

/* rows: three pointers to the three window rows; reads p[0..2] of each */
template <typename T>
__device__ __forceinline__ T jf_median9(const T *r0, const T *r1, const T *r2)
{
    unsigned lo[3], mid[3], hi[3];
#pragma unroll
    for (int i = 0; i < 3; i++) {
        unsigned a = jf_key<T>::of(r0[i]), b = jf_key<T>::of(r1[i]), c = jf_key<T>::of(r2[i]);
        unsigned t0 = jf_min(a, b), t1 = jf_max(a, b);
        lo[i] = jf_min(t0, c);
        hi[i] = jf_max(t1, c);
        mid[i] = jf_max(t0, jf_min(t1, c));
    }
    return jf_key<T>::back(jf_med3(jf_max(jf_max(lo[0], lo[1]), lo[2]), jf_med3(mid[0], mid[1], mid[2]),
                                   jf_min(jf_min(hi[0], hi[1]), hi[2])));
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
    case 5: return jf_median_regs<5>(p, pitch);
    case 7: return jf_median_regs<7>(p, pitch);
    default: return jf_median_bitwise(p, pitch, k);
    }
}

#endif
