/* Internal to filters/denoise/: the arithmetic the CPU and CUDA denoisers
 * share, written once so that both compute the same floats: the weight
 * function, the colour transform and the variance-stabilising transform. */
#ifndef JF_FILTERS_DENOISE_MATH_H
#define JF_FILTERS_DENOISE_MATH_H

#include "filters/filters.h"

#include <math.h>

/* Non-local means' result: the weighted mean `mean` with the share `keep`
 * of the pixel's own value `self` put back (SURE's blend, denoise.c). */
JF_HD float jf_nlm_keep(float mean, float self, float keep) { return mean + keep * (self - mean); }

/* exp(-x) for x >= 0, to about 2e-7 relative: 2^t with t = -x log2(e),
 * the integer part in the exponent bits and a degree-5 polynomial for
 * the fraction; branch-free, so a row loop of it vectorises.  It does not
 * reach 0: past x = 87 it stays at exp(-87), on the CPU and the GPU alike
 * (so a weight never vanishes, and where every weight of a pixel is that
 * small both compute the same mean). */
JF_HD float jf_exp_neg(float x)
{
#if defined(__CUDA_ARCH__)
    /* the GPU's exponential unit: within a few units of the last place of
     * the polynomial below, which is well inside the tolerance between the
     * two (one level of the output) and a fifth of the instructions */
    return __expf(-(x < 87.0f ? x : 87.0f));
#else
    float t = (x < 87.0f ? x : 87.0f) * -1.44269504f, fl, f, p;
    fl = floorf(t);
    f = t - fl;
    p = 1.8775767e-3f;
    p = p * f + 8.9893397e-3f;
    p = p * f + 5.5826318e-2f;
    p = p * f + 2.4015361e-1f;
    p = p * f + 6.9315308e-1f;
    p = p * f + 9.9999994e-1f;
    {
        const int bits = ((int)fl + 127) << 23;
        union {
            int i;
            float f;
        } scale;
        scale.i = bits;
        return p * scale.f;
    }
#endif
}

/* The orthonormal colour transform the non-local means compares patches
 * in: luma and two opponent differences, so that noise independent in R, G
 * and B stays independent, of the same level, and most of a patch's
 * structure lands in the first channel. */
#define JF_DEC_A 0.57735027f /* 1 / sqrt 3 */
#define JF_DEC_B 0.70710678f /* 1 / sqrt 2 */
#define JF_DEC_C 0.40824829f /* 1 / sqrt 6 */

JF_HD void jf_rgb_to_dec(float r, float g, float b, float *y, float *u, float *v)
{
    *y = (r + g + b) * JF_DEC_A;
    *u = (r - b) * JF_DEC_B;
    *v = (r - 2.0f * g + b) * JF_DEC_C;
}

JF_HD void jf_dec_to_rgb(float y, float u, float v, float *r, float *g, float *b)
{
    const float ya = y * JF_DEC_A, vc = v * JF_DEC_C;
    *r = ya + u * JF_DEC_B + vc;
    *g = ya - 2.0f * vc;
    *b = ya - u * JF_DEC_B + vc;
}

/* The generalised Anscombe transform of Poisson-Gaussian noise whose
 * variance is a * value + b (a > 0): to noise of level 1. */
JF_HD float jf_gat_forward(float y, float a, float b)
{
    const float z = y / a + 0.375f + b / (a * a);
    return 2.0f * sqrtf(z > 0.0f ? z : 0.0f);
}

/* Its exact unbiased inverse, in the closed form of Makitalo and Foi
 * (2013): the value whose transform has mean d, not the algebraic inverse
 * (biased low in the dark). */
JF_HD float jf_gat_inverse(float d, float a, float b)
{
    const float s2 = b / (a * a), k = 1.22474487f; /* sqrt(3/2) */
    float z, inv;
    d = d > 0.8f ? d : 0.8f; /* the expansion is not meant below: clipped to 0 there */
    inv = 1.0f / d;
    z = 0.25f * d * d + 0.25f * k * inv - 1.375f * inv * inv + 0.625f * k * inv * inv * inv -
        0.125f - s2;
    return a * (z > 0.0f ? z : 0.0f);
}

#endif
