/* jetfilter denoise and jetfilter noise: per-file work for the batch. */
#define _DEFAULT_SOURCE
#include "pipeline/batch.h"
#include "pipeline/context.h"
#include "pipeline/errors.h"
#include "io/io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct denoise_plan {
    jf_kernel kernel; /* for convolution filters */
} denoise_plan;

static const char *const FILTER_NAMES[] = {"median", "box", "gauss", "sharpen", "laplace", "conv"};

/* mkdir -p the folder that will hold `path`. */
static jf_status make_parent(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        return JF_OK;
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    return jf_mkdirs(dir);
}

static jf_encode_options encode_options(const cli_settings *s, const jf_picture *pic)
{
    jf_encode_options e = {JF_FORMAT_PNG, s->quality, -1};
    if (s->format == OUT_JPEG || (s->format == OUT_SAME && pic->format == JF_FORMAT_JPEG))
        e.format = JF_FORMAT_JPEG;
    return e;
}

static jf_status write_output(batch_item *it, const cli_settings *s, const jf_picture *pic,
                              jf_context *ctx)
{
    jf_encode_options e = encode_options(s, pic);
    double t0 = jf_now_ms();
    jf_status st;
    if (e.format == JF_FORMAT_JPEG && pic->alpha.data && !cli_quiet)
        cli_log("jetfilter: %s: note: JPEG has no alpha channel; transparency dropped", it->input);
    if ((st = make_parent(it->output)) != JF_OK ||
        (st = jf_picture_write(it->output, pic, &e)) != JF_OK)
        return st;
    it->ms_encode = jf_now_ms() - t0;
    jf_record(ctx, "encode", jf_format_name(e.format), 0, &pic->color, it->ms_encode,
              (uint64_t)pic->color.width * pic->color.height * pic->color.channels, 0);
    return JF_OK;
}

static jf_status read_input(batch_item *it, jf_picture *pic, jf_context *ctx)
{
    double t0 = jf_now_ms();
    jf_status st = jf_picture_read(it->input, pic);
    if (st != JF_OK)
        return st;
    it->ms_decode = jf_now_ms() - t0;
    it->width = pic->color.width;
    it->height = pic->color.height;
    it->channels = pic->color.channels;
    jf_record(ctx, "decode", jf_format_name(pic->format), 0, &pic->color, it->ms_decode, 0,
              (uint64_t)pic->color.width * pic->color.height * pic->color.channels);
    return JF_OK;
}

/* PSNR/SSIM of input and output against the clean original, when present. */
static void compare_reference(batch *b, batch_item *it, const jf_image *in,
                              const jf_image *out, jf_context *ctx)
{
    char path[4096];
    jf_picture ref;
    double t0 = jf_now_ms();
    snprintf(path, sizeof path, "%s/%s", b->s->reference, it->rel);
    if (jf_picture_read(path, &ref) != JF_OK) {
        if (!cli_quiet)
            cli_log("jetfilter: %s: no usable reference (%s)", it->input, jf_last_error());
        return;
    }
    if (ref.color.width != in->width || ref.color.height != in->height ||
        ref.color.channels != in->channels) {
        if (!cli_quiet)
            cli_log("jetfilter: %s: reference %s is %dx%dx%d, the input %dx%dx%d; not compared",
                    it->input, path, ref.color.width, ref.color.height, ref.color.channels,
                    in->width, in->height, in->channels);
    } else if (jf_psnr(ctx, &ref.color, in, &it->psnr_in, NULL) == JF_OK &&
               jf_psnr(ctx, &ref.color, out, &it->psnr_out, NULL) == JF_OK &&
               jf_ssim(ctx, &ref.color, in, &it->ssim_in) == JF_OK &&
               jf_ssim(ctx, &ref.color, out, &it->ssim_out) == JF_OK) {
        it->have_ref = 1;
    } else if (!cli_quiet) {
        cli_log("jetfilter: %s: not compared with its reference: %s", it->input, jf_last_error());
    }
    it->ms_metrics = jf_now_ms() - t0;
    jf_picture_free(&ref);
}

static jf_status denoise_one(batch *b, batch_item *it, jf_context *ctx)
{
    const cli_settings *s = b->s;
    const denoise_plan *plan = (const denoise_plan *)b->user;
    jf_picture pic;
    jf_image out = {0};
    jf_status st;
    double t0;

    if ((st = read_input(it, &pic, ctx)) != JF_OK)
        return st;
    t0 = jf_now_ms();
    if (s->filter == FILTER_MEDIAN) {
        jf_median_options mo = {s->ksize, (jf_border)s->border, (jf_variant)s->variant,
                                s->block_x, s->block_y};
        st = jf_median(ctx, &pic.color, &out, &mo);
    } else {
        jf_conv_options co = {plan->kernel.ksize, plan->kernel.weights, (jf_border)s->border,
                              (jf_variant)s->variant, s->block_x, s->block_y};
        st = jf_convolve(ctx, &pic.color, &out, &co);
    }
    it->ms_filter = jf_now_ms() - t0;
    if (st != JF_OK) {
        jf_error_prefix(it->input);
        goto done;
    }
    if (s->reference)
        compare_reference(b, it, &pic.color, &out, ctx);
    jf_image_free(&pic.color);
    pic.color = out; /* the picture now owns the filtered pixels */
    out.data = NULL;
    st = write_output(it, s, &pic, ctx);
done:
    jf_image_free(&out);
    jf_picture_free(&pic);
    return st;
}

/* Resolve -k/--sigma/--kernel into one weight matrix for convolution filters. */
static int plan_filter(cli_settings *s, denoise_plan *plan)
{
    static const jf_kernel_preset presets[] = {JF_KERNEL_BOX, JF_KERNEL_BOX, JF_KERNEL_GAUSS,
                                               JF_KERNEL_SHARPEN, JF_KERNEL_LAPLACE};
    jf_status st;
    memset(plan, 0, sizeof *plan);
    if (s->block && (sscanf(s->block, "%dx%d", &s->block_x, &s->block_y) != 2 ||
                     s->block_x < 4 || s->block_x % 4 || s->block_y < 1 ||
                     s->block_x * s->block_y > 1024)) {
        fprintf(stderr, "jetfilter denoise: --block %s: want WxH, W a multiple of 4, W*H <= 1024\n",
                s->block);
        return JF_EXIT_USAGE;
    }
    if (s->filter == FILTER_MEDIAN) {
        if (s->ksize == 0)
            s->ksize = 3;
        if (s->ksize % 2 == 0) {
            fprintf(stderr, "jetfilter denoise: -k %d: kernel size must be odd\n", s->ksize);
            return JF_EXIT_USAGE;
        }
        return 0;
    }
    if (s->filter == FILTER_CONV) {
        if (!s->kernel_file) {
            fprintf(stderr, "jetfilter denoise: --filter conv needs --kernel FILE\n");
            return JF_EXIT_USAGE;
        }
        st = jf_kernel_load(s->kernel_file, &plan->kernel);
        if (st == JF_OK && s->ksize && s->ksize != plan->kernel.ksize) {
            fprintf(stderr, "jetfilter denoise: -k %d, but %s holds a %dx%d kernel\n", s->ksize,
                    s->kernel_file, plan->kernel.ksize, plan->kernel.ksize);
            return JF_EXIT_USAGE;
        }
    } else {
        int k = s->ksize;
        if (s->filter == FILTER_GAUSS && k == 0 && s->sigma == 0.0)
            s->sigma = 1.0;
        if (k == 0 && s->filter != FILTER_GAUSS)
            k = 3;
        st = jf_kernel_make(presets[s->filter], k, s->sigma, &plan->kernel);
    }
    if (st == JF_OK && plan->kernel.ksize > JF_CONV_MAX_KSIZE)
        st = jf_fail(JF_ERR_ARG, "kernel size %d is over the maximum of %d", plan->kernel.ksize,
                     JF_CONV_MAX_KSIZE);
    if (st != JF_OK) {
        fprintf(stderr, "jetfilter denoise: %s\n", jf_last_error());
        return JF_EXIT_USAGE;
    }
    s->ksize = plan->kernel.ksize;
    return 0;
}

int cli_denoise(cli_settings *s)
{
    batch b;
    denoise_plan plan;
    int rc;
    memset(&b, 0, sizeof b);
    b.verb = "denoise";
    if ((rc = plan_filter(s, &plan)) != 0)
        return rc;
    b.user = &plan;
    rc = batch_collect(&b, s);
    if (rc == 0 && !cli_quiet && s->verbose)
        cli_log("jetfilter denoise: %d file%s, %s k=%d, border %s", b.count, b.count == 1 ? "" : "s",
                FILTER_NAMES[s->filter], s->ksize, jf_border_name((jf_border)s->border));
    if (rc == 0)
        rc = batch_run(&b, denoise_one);
    if (rc == 0)
        rc = batch_finish(&b);
    batch_free(&b);
    jf_kernel_free(&plan.kernel);
    return rc;
}

/* FNV-1a of the relative path, so each file of a folder gets its own noise. */
static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static jf_status noise_one(batch *b, batch_item *it, jf_context *ctx)
{
    const cli_settings *s = b->s;
    jf_noise_options no;
    jf_picture pic;
    jf_status st;
    if ((st = read_input(it, &pic, ctx)) != JF_OK)
        return st;
    no.kind = s->salt_pepper >= 0 ? JF_NOISE_SALT_PEPPER : JF_NOISE_GAUSSIAN;
    no.amount = s->salt_pepper >= 0 ? s->salt_pepper : s->gaussian;
    no.seed = (uint64_t)s->seed ^ hash_name(it->rel);
    if ((st = jf_add_noise(ctx, &pic.color, &no)) == JF_OK)
        st = write_output(it, s, &pic, ctx);
    else
        jf_error_prefix(it->input);
    jf_picture_free(&pic);
    return st;
}

int cli_noise(cli_settings *s)
{
    batch b;
    int rc;
    if ((s->salt_pepper >= 0) == (s->gaussian >= 0)) {
        fprintf(stderr, "jetfilter noise: give exactly one of --salt-pepper D or --gaussian SIGMA\n");
        return JF_EXIT_USAGE;
    }
    memset(&b, 0, sizeof b);
    b.verb = "noise";
    s->backend = JF_BACKEND_CPU; /* noise is generated on the host */
    rc = batch_collect(&b, s);
    if (rc == 0)
        rc = batch_run(&b, noise_one);
    if (rc == 0)
        rc = batch_finish(&b);
    batch_free(&b);
    return rc;
}
