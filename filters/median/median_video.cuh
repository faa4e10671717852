/*
 * Video min/max: op2(op1(a.byte BA, b.byte BB), c) in one instruction
 * (VMNMX) on compute capability 5.x and 6.x, the Jetson Nano's sm_53;
 * emulated, correct and slower, from 7.0 on.  a and b are any byte of any
 * register (a packed sample needs no unpacking; a result, below 256, is
 * byte 0 of its own register), c a whole register.  The byte selectors
 * are template arguments: they are part of the instruction.
 */
#ifndef JF_FILTERS_MEDIAN_VIDEO_CUH
#define JF_FILTERS_MEDIAN_VIDEO_CUH

#define JF_VIDEO_OP(name, op1, op2)                                                           \
    template <int BA, int BB>                                                                 \
    __device__ __forceinline__ unsigned name(unsigned a, unsigned b, unsigned c)             \
    {                                                                                         \
        unsigned d;                                                                           \
        asm(op1 ".u32.u32.u32." op2 " %0, %1.b%4, %2.b%5, %3;"                                \
            : "=r"(d)                                                                         \
            : "r"(a), "r"(b), "r"(c), "n"(BA), "n"(BB));                                      \
        return d;                                                                             \
    }
JF_VIDEO_OP(jf_v_min_min, "vmin", "min") /* min(min(a, b), c) */
JF_VIDEO_OP(jf_v_max_max, "vmax", "max") /* max(max(a, b), c) */
JF_VIDEO_OP(jf_v_min_max, "vmin", "max") /* max(min(a, b), c) */
JF_VIDEO_OP(jf_v_max_min, "vmax", "min") /* min(max(a, b), c) */
#undef JF_VIDEO_OP

#endif
