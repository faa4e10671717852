/*
 * PSNR, CPU reference.
 *   MSE  = (1/N) sum (a - b)^2 over all N = width*height*channels samples
 *   PSNR = 10 log10(L^2 / MSE) dB, L = 255 (8-bit) or 65535 (16-bit);
 *   MSE = 0 gives +infinity.
 * Sums are exact: per-row 64-bit integers, added in row order (16-bit:
 * 2^32 per sample, 2^28 samples at most: within 2^64).  float32: per-row
 * sums in double, added in row order (the same result on any threads).
 */
#include "filters/metrics/metrics.h"
#include "core/context.h"

typedef struct sse_job {
    const jf_image *a, *b;
    uint64_t *rows;
    double *float_rows;
} sse_job;

static void sse_rows(void *arg, int y0, int y1, int band)
{
    sse_job *job = (sse_job *)arg;
    const size_t n = (size_t)job->a->width * (size_t)job->a->channels;
    int y;
    size_t x;
    (void)band;
    for (y = y0; y < y1; y++) {
        const unsigned char *pa = job->a->data + (size_t)y * job->a->stride;
        const unsigned char *pb = job->b->data + (size_t)y * job->b->stride;
        uint64_t s = 0;
        if (job->a->sample == JF_SAMPLE_F32) {
            const float *fa = (const float *)(const void *)pa, *fb = (const float *)(const void *)pb;
            double f = 0.0;
            for (x = 0; x < n; x++) {
                const double d = (double)fa[x] - (double)fb[x];
                f += d * d;
            }
            job->float_rows[y] = f;
            continue;
        }
        if (job->a->sample == JF_SAMPLE_U16) {
            const uint16_t *qa = (const uint16_t *)(const void *)pa;
            const uint16_t *qb = (const uint16_t *)(const void *)pb;
            for (x = 0; x < n; x++) {
                int64_t d = (int64_t)qa[x] - (int64_t)qb[x];
                s += (uint64_t)(d * d);
            }
        } else {
            for (x = 0; x < n; x++) {
                int d = (int)pa[x] - (int)pb[x];
                s += (uint64_t)(d * d);
            }
        }
        job->rows[y] = s;
    }
}

jf_status jf_sse_cpu(jf_context *ctx, const jf_image *a, const jf_image *b, double *sse)
{
    sse_job job;
    uint64_t total = 0;
    double ftotal = 0.0;
    int y;
    job.a = a;
    job.b = b;
    job.rows = (uint64_t *)jf_scratch_get(ctx, JF_SCRATCH_ROWS, sizeof(uint64_t) * (size_t)a->height);
    if (!job.rows)
        return JF_ERR_NOMEM;
    job.float_rows = (double *)(void *)job.rows; /* as wide as the integers */
    jf_parallel_for(ctx, a->height, sse_rows, &job);
    for (y = 0; y < a->height; y++) {
        if (a->sample == JF_SAMPLE_F32)
            ftotal += job.float_rows[y];
        else
            total += job.rows[y];
    }
    *sse = a->sample == JF_SAMPLE_F32 ? ftotal : (double)total;
    return JF_OK;
}
