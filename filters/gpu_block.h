/* Internal: checking a requested CUDA block shape and choosing the default. */
#ifndef JF_FILTERS_GPU_BLOCK_H
#define JF_FILTERS_GPU_BLOCK_H

#include "pipeline/errors.h"

/* 32 x 8: a warp per tile row (conflict-free shared reads), 256 threads. */
static inline jf_status jf_block_shape(const char *fn, int *bx, int *by)
{
    if (*bx == 0 && *by == 0) {
        *bx = 32;
        *by = 8;
    }
    if (*bx < 4 || *bx % 4 != 0 || *by < 1 || *bx * *by > 1024)
        return jf_fail(JF_ERR_ARG, "%s: block %dx%d: width must be a multiple of 4 and "
                       "width x height at most 1024", fn, *bx, *by);
    return JF_OK;
}

#endif
