/* --codec auto for a batch: the cost model (codec_choice.h). */
#include "pipeline/codec_choice.h"

#include <stdio.h>

jf_codec_costs jf_codec_costs_measured(void)
{
    /* NVIDIA H100 with 16 cores, 1920x1080 JPEGs of 906 KB, median k=5,
     * JPEG out: docs/kernels/studies.md, "The damaged-data check as a walk" */
    jf_codec_costs m = {"H100 figures, studies.md \"The damaged-data check as a walk\"",
                        35.7, 13.4, 6.9, 955.0, 0.91};
    return m;
}

void jf_codec_choose(const jf_codec_costs *m, int files, double jpeg_mb, int jobs, int cores,
                     int check, int engine_running, jf_codec_choice *out)
{
    const int workers = jobs < cores ? (jobs > 0 ? jobs : 1) : (cores > 0 ? cores : 1);
    const double per_mb = check ? m->gpu_core_ms_per_mb : m->trust_core_ms_per_mb;
    double cores_s, engine_s;
    if (jpeg_mb < 0)
        jpeg_mb = 0;
    out->cpu_s = jpeg_mb * m->cpu_core_ms_per_mb / workers / 1e3;
    cores_s = jpeg_mb * per_mb / workers / 1e3;
    engine_s = m->engine_mb_per_s > 0 ? jpeg_mb / m->engine_mb_per_s : 0.0;
    out->gpu_s = (engine_running ? 0.0 : m->gpu_start_s) + (cores_s > engine_s ? cores_s : engine_s);
    out->gpu = files > 0 && out->gpu_s < out->cpu_s;
    snprintf(out->reason, sizeof out->reason,
             "%s: predicted %.2f s against %.2f s for the %s (%d JPEG%s, %.0f MB, %d job%s%s; %s)",
             out->gpu ? "the GPU's" : "the CPU's", out->gpu ? out->gpu_s : out->cpu_s,
             out->gpu ? out->cpu_s : out->gpu_s, out->gpu ? "CPU's" : "GPU's", files,
             files == 1 ? "" : "s", jpeg_mb, workers, workers == 1 ? "" : "s",
             engine_running ? ", the engine running" : "", m->source);
}
