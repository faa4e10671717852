/*
 * SSIM, CPU reference: exactly the mean SSIM of
 *   Z. Wang, A. C. Bovik, H. R. Sheikh, E. P. Simoncelli, "Image quality
 *   assessment: from error visibility to structural similarity", IEEE Trans.
 *   Image Processing 13(4), 600-612, 2004,
 * as scikit-image computes it with gaussian_weights=True, sigma=1.5,
 * use_sample_covariance=False, data_range=L (by default 255, 65535 at 16
 * bits, 1 for float32):
 *   window   w: 11 taps exp(-x^2 / (2 * 1.5^2)), x = -5..5, normalised (2-D = w w^T)
 *   mu_a = w*a, mu_b = w*b, s_aa = w*(a a) - mu_a^2, s_bb likewise,
 *   s_ab = w*(a b) - mu_a mu_b          (population statistics)
 *   C1 = (0.01 * L)^2, C2 = (0.03 * L)^2
 *   SSIM = (2 mu_a mu_b + C1)(2 s_ab + C2) / ((mu_a^2 + mu_b^2 + C1)(s_aa + s_bb + C2))
 * averaged over the pixels whose whole window lies inside the image (the
 * 5-pixel frame is left out, as scikit-image crops it).  All in double.
 *
 * Each thread owns a band of output rows and keeps the 11 horizontally
 * filtered rows it needs in a ring, so memory stays O(width).
 */
#include "filters/metrics/metrics.h"
#include "core/context.h"

#include <math.h>
#include <string.h>

#define TAPS (2 * JF_SSIM_RADIUS + 1)
#define QUANTITIES 5 /* a, b, aa, bb, ab */

void jf_ssim_window(double g[TAPS])
{
    double sum = 0.0;
    int i;
    for (i = 0; i < TAPS; i++) {
        double x = (double)(i - JF_SSIM_RADIUS);
        g[i] = exp(-0.5 * x * x / (1.5 * 1.5));
        sum += g[i];
    }
    for (i = 0; i < TAPS; i++)
        g[i] /= sum;
}

typedef struct ssim_job {
    const jf_image *a, *b;
    int channel;
    int vw;            /* valid width = width - 10 */
    double L;          /* the data range */
    double g[TAPS];
    double *row_sums;  /* one per valid output row */
    double *rings;     /* TAPS filtered rows per band */
} ssim_job;

/* Horizontal pass of source row y into out[q][x], x in 0..vw-1. */
static void filter_row(const ssim_job *job, int y, double *out)
{
    const int ch = job->a->channels, c = job->channel, vw = job->vw;
    const jf_sample t = job->a->sample;
    const unsigned char *pa = job->a->data + (size_t)y * job->a->stride;
    const unsigned char *pb = job->b->data + (size_t)y * job->b->stride;
    const uint16_t *qa = (const uint16_t *)(const void *)pa, *qb = (const uint16_t *)(const void *)pb;
    const float *fa = (const float *)(const void *)pa, *fb = (const float *)(const void *)pb;
    int x, i;
    for (x = 0; x < vw; x++) {
        double s[QUANTITIES] = {0, 0, 0, 0, 0};
        for (i = 0; i < TAPS; i++) {
            const size_t at = (size_t)(x + i) * ch + c;
            const double va = t == JF_SAMPLE_F32 ? fa[at] : t == JF_SAMPLE_U16 ? qa[at] : pa[at];
            const double vb = t == JF_SAMPLE_F32 ? fb[at] : t == JF_SAMPLE_U16 ? qb[at] : pb[at];
            double w = job->g[i];
            s[0] += w * va;
            s[1] += w * vb;
            s[2] += w * va * va;
            s[3] += w * vb * vb;
            s[4] += w * va * vb;
        }
        for (i = 0; i < QUANTITIES; i++)
            out[(size_t)i * vw + x] = s[i];
    }
}

static void ssim_rows(void *arg, int r0, int r1, int band)
{
    ssim_job *job = (ssim_job *)arg;
    const int vw = job->vw;
    const double L = job->L;
    const double c1 = (0.01 * L) * (0.01 * L), c2 = (0.03 * L) * (0.03 * L);
    const size_t row_len = (size_t)QUANTITIES * vw;
    double *ring = job->rings + (size_t)band * row_len * TAPS;
    int r, j, x, next;

    /* output row r (0-based in the valid region) centres on source row r + 5 */
    for (next = r0; next < r0 + TAPS - 1; next++)
        filter_row(job, next, ring + (size_t)(next % TAPS) * row_len);
    for (r = r0; r < r1; r++) {
        double sum = 0.0;
        filter_row(job, r + TAPS - 1, ring + (size_t)((r + TAPS - 1) % TAPS) * row_len);
        for (x = 0; x < vw; x++) {
            double m[QUANTITIES] = {0, 0, 0, 0, 0};
            double ua, ub, vaa, vbb, vab;
            int q;
            for (j = 0; j < TAPS; j++) {
                const double *h = ring + (size_t)((r + j) % TAPS) * row_len + x;
                for (q = 0; q < QUANTITIES; q++)
                    m[q] += job->g[j] * h[(size_t)q * vw];
            }
            ua = m[0];
            ub = m[1];
            vaa = m[2] - ua * ua;
            vbb = m[3] - ub * ub;
            vab = m[4] - ua * ub;
            sum += ((2 * ua * ub + c1) * (2 * vab + c2)) /
                   ((ua * ua + ub * ub + c1) * (vaa + vbb + c2));
        }
        job->row_sums[r] = sum;
    }
}

jf_status jf_ssim_cpu(jf_context *ctx, const jf_image *a, const jf_image *b, int channel,
                      double L, double *ssim)
{
    ssim_job job;
    const int vh = a->height - (TAPS - 1);
    double total = 0.0;
    int r;
    memset(&job, 0, sizeof job);
    job.a = a;
    job.b = b;
    job.channel = channel;
    job.L = L;
    job.vw = a->width - (TAPS - 1);
    jf_ssim_window(job.g);
    job.row_sums = (double *)jf_scratch_get(ctx, JF_SCRATCH_ROWS, sizeof(double) * (size_t)vh);
    job.rings = (double *)jf_scratch_get(ctx, JF_SCRATCH_BANDS,
                                         sizeof(double) * (size_t)QUANTITIES * job.vw * TAPS *
                                             (size_t)jf_parallel_bands(ctx, vh));
    if (!job.row_sums || !job.rings)
        return JF_ERR_NOMEM;
    jf_parallel_for(ctx, vh, ssim_rows, &job);
    for (r = 0; r < vh; r++) /* in row order: the result does not depend on threads */
        total += job.row_sums[r];
    *ssim = total / ((double)vh * (double)job.vw);
    return JF_OK;
}
