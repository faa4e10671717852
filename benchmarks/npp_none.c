/* The NPP baseline in builds without NPP: reports that it is absent. */
#include "benchmarks/npp.h"
#include "core/errors.h"

int jf_npp_available(void) { return 0; }

const char *jf_npp_version(void) { return "not built (no NPP in this CUDA toolkit)"; }

jf_status jf_npp_median(jf_context *ctx, const jf_image *padded, int count, int k,
                        jf_image *dst, int warmup, int reps, double *ms)
{
    (void)ctx; (void)padded; (void)count; (void)k; (void)dst; (void)warmup; (void)reps;
    *ms = 0.0;
    return jf_fail(JF_ERR_UNSUPPORTED, "NPP baseline not built");
}

jf_status jf_npp_filter(jf_context *ctx, const jf_image *padded, int count, int k,
                        const float *weights, jf_image *dst, int warmup, int reps, double *ms)
{
    (void)ctx; (void)padded; (void)count; (void)k; (void)weights; (void)dst; (void)warmup;
    (void)reps;
    *ms = 0.0;
    return jf_fail(JF_ERR_UNSUPPORTED, "NPP baseline not built");
}
