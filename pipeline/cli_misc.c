/* jetfilter metrics and jetfilter info. */
#include "pipeline/batch.h"
#include "pipeline/context.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static void print_db(const char *label, double v)
{
    if (isinf(v))
        printf("%-8s inf\n", label);
    else
        printf("%-8s %.4f\n", label, v);
}

int cli_metrics(cli_settings *s)
{
    jf_picture a, b;
    jf_context *ctx = NULL;
    jf_context_options opt = {JF_BACKEND_CPU, s->device, s->threads, NULL,
                              (jf_memory)s->memory, s->peak_gbps};
    double psnr = 0, mse = 0, ssim = NAN;
    int rc = JF_EXIT_FAILED;

    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    if (s->input_count != 2) {
        fprintf(stderr, "jetfilter metrics: needs exactly two images, A and B\n");
        return JF_EXIT_USAGE;
    }
    opt.backend = (jf_backend)s->backend;
    if (jf_context_create(&opt, &ctx) != JF_OK) {
        fprintf(stderr, "jetfilter: %s\n", jf_last_error());
        return JF_EXIT_FAILED;
    }
    if (jf_picture_read(s->inputs[0], &a) != JF_OK || jf_picture_read(s->inputs[1], &b) != JF_OK) {
        fprintf(stderr, "jetfilter: %s\n", jf_last_error());
        goto done;
    }
    if (a.color.width != b.color.width || a.color.height != b.color.height ||
        a.color.channels != b.color.channels) {
        fprintf(stderr, "jetfilter: %s is %dx%dx%d but %s is %dx%dx%d; cannot compare\n",
                s->inputs[0], a.color.width, a.color.height, a.color.channels, s->inputs[1],
                b.color.width, b.color.height, b.color.channels);
        goto done;
    }
    if (jf_psnr(ctx, &a.color, &b.color, &psnr, &mse) != JF_OK) {
        fprintf(stderr, "jetfilter: %s\n", jf_last_error());
        goto done;
    }
    if (a.color.width >= 11 && a.color.height >= 11 &&
        jf_ssim(ctx, &a.color, &b.color, &ssim) != JF_OK) {
        fprintf(stderr, "jetfilter: %s\n", jf_last_error());
        goto done;
    }
    if (s->json_flag) {
        json_buf j = {0};
        json_open(&j, NULL, '{');
        json_num(&j, "psnr_db", psnr);
        json_num(&j, "ssim", ssim); /* null when the image is under 11x11 */
        json_num(&j, "mse", mse);
        json_int(&j, "width", a.color.width);
        json_int(&j, "height", a.color.height);
        json_int(&j, "channels", a.color.channels);
        json_close(&j, '}');
        if (j.fail) {
            fprintf(stderr, "jetfilter: out of memory\n");
            goto done;
        }
        printf("%s\n", j.data);
        free(j.data);
    } else {
        print_db("psnr_db", psnr);
        if (isnan(ssim))
            printf("%-8s n/a (image under 11x11)\n", "ssim");
        else
            printf("%-8s %.6f\n", "ssim", ssim);
        printf("%-8s %.6f\n", "mse", mse);
    }
    rc = JF_EXIT_OK;
done:
    jf_picture_free(&a);
    jf_picture_free(&b);
    jf_context_destroy(ctx);
    return rc;
}

int cli_info(cli_settings *s)
{
    int n = jf_device_count(), i;
    char why[512];
    snprintf(why, sizeof why, "%s", n ? "" : jf_last_error());
    if (s->json_flag) {
        json_buf j = {0};
        json_open(&j, NULL, '{');
        json_str(&j, "version", jf_version());
        json_int(&j, "cpu_threads", jf_cpu_count());
        json_int(&j, "cuda_built", jf_built_with_cuda());
        json_open(&j, "devices", '[');
        for (i = 0; i < n; i++) {
            jf_device_info d;
            if (jf_device_query(i, &d) != JF_OK)
                continue;
            if (s->peak_gbps > 0) {
                d.theoretical_gbps = s->peak_gbps;
                snprintf(d.theoretical_source, sizeof d.theoretical_source, "--peak-gbps");
            }
            json_open(&j, NULL, '{');
            json_int(&j, "index", d.index);
            json_str(&j, "name", d.name);
            json_int(&j, "cc_major", d.cc_major);
            json_int(&j, "cc_minor", d.cc_minor);
            json_int(&j, "multiprocessors", d.multiprocessors);
            json_int(&j, "memory_bytes", (long long)d.total_memory);
            json_int(&j, "integrated", d.integrated);
            json_num(&j, "theoretical_gbps", d.theoretical_gbps);
            json_str(&j, "theoretical_source", d.theoretical_source);
            json_int(&j, "runtime_version", d.runtime_version);
            json_int(&j, "driver_version", d.driver_version);
            json_close(&j, '}');
        }
        json_close(&j, ']');
        if (!n)
            json_str(&j, "cuda_note", why);
        json_close(&j, '}');
        if (!j.fail)
            printf("%s\n", j.data);
        free(j.data);
        return j.fail ? JF_EXIT_FAILED : JF_EXIT_OK;
    }
    printf("jetfilter %s\n", jf_version());
    printf("backends:    cpu (%d threads)%s\n", jf_cpu_count(),
           jf_built_with_cuda() ? ", cuda" : "");
    if (!n) {
        printf("cuda:        %s\n", why);
        return JF_EXIT_OK;
    }
    for (i = 0; i < n; i++) {
        jf_device_info d;
        if (jf_device_query(i, &d) != JF_OK) {
            printf("device %d:    %s\n", i, jf_last_error());
            continue;
        }
        if (s->peak_gbps > 0) {
            d.theoretical_gbps = s->peak_gbps;
            snprintf(d.theoretical_source, sizeof d.theoretical_source, "--peak-gbps");
        }
        printf("device %d:    %s, compute capability %d.%d, %d SMs, %.1f GiB, %s\n", d.index,
               d.name, d.cc_major, d.cc_minor, d.multiprocessors,
               (double)d.total_memory / (1024.0 * 1024.0 * 1024.0),
               d.integrated ? "integrated (memory shared with the CPU)" : "discrete");
        printf("             theoretical bandwidth %.1f GB/s (%s)\n", d.theoretical_gbps,
               d.theoretical_source);
        printf("             CUDA runtime %d.%d, driver %d.%d\n", d.runtime_version / 1000,
               d.runtime_version % 1000 / 10, d.driver_version / 1000,
               d.driver_version % 1000 / 10);
    }
    return JF_EXIT_OK;
}
