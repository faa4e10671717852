/* Noise runs on the CPU only (host, mapped or managed images), whatever the
 * context (filters/ops.h). */
#include "filters/ops.h"

static const jf_variant_row ROWS[] = {
    {.variant = JF_VARIANT_CPU, .kernel = "", .kmin = 1, .kmax = 1,
     .samples = S8 | S16, .what = "the CPU"},
};

const jf_family jf_noise_family = {"noise", ROWS, 1, NULL, 0, 0};
