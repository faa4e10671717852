/* jetfilter metrics: PSNR, SSIM and MSE of B against A. */
#include "cli/cli.h"
#include "jobs/json.h"
#include "core/names.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int report(const job_settings *s, const jf_picture *a, double psnr, double ssim, double mse)
{
    if (s->json) {
        json_buf j = {0};
        int ok;
        json_report_open(&j, "metrics");
        json_db(&j, "psnr_db", psnr);
        json_num(&j, "ssim", ssim); /* null when the image is under 11x11 */
        json_num(&j, "mse", mse);
        json_int(&j, "width", a->color.width);
        json_int(&j, "height", a->color.height);
        json_int(&j, "channels", a->color.channels);
        json_close(&j, '}');
        json_raw(&j, "\n");
        ok = !j.fail && job_json_write(s->json, j.data, j.len);
        free(j.data);
        if (!ok) {
            job_error("jetfilter metrics: cannot write the JSON: %s",
                    j.fail ? "out of memory" : jf_last_error());
            return JF_EXIT_FAILED;
        }
        if (strcmp(s->json, "-") == 0)
            return JF_EXIT_OK;
    }
    if (isinf(psnr))
        printf("%-8s inf\n", "psnr_db");
    else
        printf("%-8s %.4f\n", "psnr_db", psnr);
    if (isnan(ssim))
        printf("%-8s n/a (image under 11x11)\n", "ssim");
    else
        printf("%-8s %.6f\n", "ssim", ssim);
    printf("%-8s %.6f\n", "mse", mse);
    return JF_EXIT_OK;
}

/* One image: what its noise is. */
static int estimate_one(const job_settings *s, jf_context *ctx)
{
    jf_picture a;
    jf_noise_estimate e;
    int rc = JF_EXIT_FAILED;
    memset(&a, 0, sizeof a);
    memset(&e, 0, sizeof e);
    e.size = sizeof e;
    if (jf_picture_read(s->inputs[0], &a) != JF_OK || jf_estimate_noise(ctx, &a.color, &e) != JF_OK) {
        job_error("jetfilter: %s", jf_last_error());
        goto done;
    }
    if (s->json) {
        json_buf j = {0};
        int ok;
        json_report_open(&j, "metrics");
        json_open(&j, "noise", '{');
        json_num(&j, "sigma", e.sigma);
        json_num(&j, "poisson_a", e.poisson_a);
        json_num(&j, "poisson_b", e.poisson_b);
        json_bool(&j, "signal_dependent", e.signal_dependent);
        json_num(&j, "impulse_density", e.impulse_density);
        json_int(&j, "patches", e.patches);
        json_close(&j, '}');
        json_int(&j, "width", a.color.width);
        json_int(&j, "height", a.color.height);
        json_int(&j, "channels", a.color.channels);
        json_close(&j, '}');
        json_raw(&j, "\n");
        ok = !j.fail && job_json_write(s->json, j.data, j.len);
        free(j.data);
        if (!ok) {
            job_error("jetfilter metrics: cannot write the JSON: %s", j.fail ? "out of memory" : jf_last_error());
            goto done;
        }
        if (strcmp(s->json, "-") == 0) {
            rc = JF_EXIT_OK;
            goto done;
        }
    }
    printf("%-17s %.4f  (levels of %d)\n", "noise_sigma", e.sigma, (int)jf_sample_max(a.color.sample));
    printf("%-17s %.6g\n%-17s %.6g  (variance = a * value + b)\n", "poisson_a", e.poisson_a,
           "poisson_b", e.poisson_b);
    printf("%-17s %s\n", "signal_dependent", e.signal_dependent ? "yes" : "no");
    printf("%-17s %.6f\n", "impulse_density", e.impulse_density);
    printf("%-17s %d\n", "patches", e.patches);
    rc = JF_EXIT_OK;
done:
    jf_picture_free(&a);
    return rc;
}

int cli_metrics(job_settings *s)
{
    jf_picture a, b;
    jf_context *ctx = NULL;
    jf_context_options opt;
    double psnr = 0, mse = 0, ssim = NAN;
    int rc = JF_EXIT_FAILED;

    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    if (s->input_count != 1 && s->input_count != 2) {
        job_error("jetfilter metrics: needs two images, A and B (or one, for its noise)");
        return JF_EXIT_USAGE;
    }
    if (s->backend && strchr(s->backend, ',')) {
        job_error("jetfilter metrics: --backend takes one value here");
        return JF_EXIT_USAGE;
    }
    {
        job_outputs o = {"metrics", s->inputs, s->input_count,
                         {{"--json", s->json, JOB_OUT_REPORT}}, 1, s->force};
        if (job_outputs_check(&o) != 0)
            return JF_EXIT_USAGE;
    }
    opt = job_context_options(s);
    if (jf_context_create(&opt, &ctx) != JF_OK) {
        job_error("jetfilter: %s", jf_last_error());
        return JF_EXIT_FAILED;
    }
    if (s->input_count == 1) {
        rc = estimate_one(s, ctx);
        goto done;
    }
    if (jf_picture_read(s->inputs[0], &a) != JF_OK || jf_picture_read(s->inputs[1], &b) != JF_OK) {
        job_error("jetfilter: %s", jf_last_error());
        goto done;
    }
    if (a.color.width != b.color.width || a.color.height != b.color.height ||
        a.color.channels != b.color.channels) {
        job_error("jetfilter: %s is %dx%dx%d but %s is %dx%dx%d; cannot compare", s->inputs[0],
                a.color.width, a.color.height, a.color.channels, s->inputs[1], b.color.width,
                b.color.height, b.color.channels);
        goto done;
    }
    if (jf_psnr(ctx, &a.color, &b.color, &psnr, &mse) != JF_OK ||
        (a.color.width >= 11 && a.color.height >= 11 &&
         jf_ssim(ctx, &a.color, &b.color, &ssim) != JF_OK)) {
        job_error("jetfilter: %s", jf_last_error());
        goto done;
    }
    rc = report(s, &a, psnr, ssim, mse);
done:
    jf_picture_free(&a);
    jf_picture_free(&b);
    jf_context_destroy(ctx);
    return rc;
}
