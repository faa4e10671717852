/* jetfilter denoise: every file through the chosen operation of the table. */
#define _DEFAULT_SOURCE
#include "cli/cli.h"
#include "core/errors.h"
#include "core/names.h"
#include "core/stats.h"
#include "core/util.h"
#include "io/io.h"
#include "pipeline/batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PSNR/SSIM of input and output against the clean original, when present. */
static void compare_reference(const cli_settings *s, jf_batch_item *it, const jf_image *in,
                              const jf_image *out, jf_context *ctx)
{
    char path[4096];
    jf_picture ref;
    double t0 = jf_now_ms();
    snprintf(path, sizeof path, "%s/%s", s->reference, it->rel);
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

static jf_status denoise_one(jf_batch *b, jf_batch_item *it, jf_context *ctx)
{
    const cli_run *run = (const cli_run *)b->user;
    jf_picture pic;
    jf_image out = {0};
    jf_op_note note;
    jf_status st;
    double t0;

    if ((st = cli_read_input(it, &pic, ctx)) != JF_OK)
        return st;
    t0 = jf_now_ms();
    /* the output in the other frame, which the encoder then reads in place:
     * on the GPU (frame 3) when nvJPEG decoded the input and a JPEG goes out,
     * to be encoded there too */
    if ((st = jf_context_frame_as(ctx, pic.decoded_on_gpu && cli_encode_options(run->s, &pic).format ==
                                               JF_FORMAT_JPEG ? 3 : 1,
                                  pic.color.width, pic.color.height, pic.color.channels,
                                  pic.color.sample, &out)) == JF_OK &&
        (st = jf_op_apply(ctx, &run->plan, &pic.color, &out, &note)) == JF_OK)
        st = jf_context_sync(ctx); /* managed frames: the work was only queued */
    it->ms_filter = jf_now_ms() - t0;
    if (st == JF_OK && note.text[0]) {
        snprintf(it->decision, sizeof it->decision, "%s", note.text);
        it->estimate_name = run->plan.op->estimate_name;
        it->estimate = note.estimate;
    }
    if (st != JF_OK) {
        jf_error_prefix(it->input);
        goto done;
    }
    if (run->s->reference)
        compare_reference(run->s, it, &pic.color, &out, ctx);
    jf_image_free(&pic.color); /* a frame: only forgotten */
    pic.color = out;           /* the filtered pixels, with the input's metadata */
    out.data = NULL;
    st = cli_write_output(it, run->s, &pic, ctx);
done:
    jf_image_free(&out);
    jf_picture_free(&pic);
    return st;
}

/* --codec nvjpeg where it cannot work is refused before any file. */
static int check_codec(const cli_settings *s)
{
    char detail[256];
    if (s->codec != JF_CODEC_NVJPEG)
        return 0;
    if (s->backend && strcmp(s->backend, "cpu") == 0) {
        fprintf(stderr, "jetfilter denoise: --codec nvjpeg needs the CUDA backend (not --backend cpu)\n");
        return JF_EXIT_USAGE;
    }
    if (jf_codec_probe(JF_CODEC_NVJPEG, s->device, detail, sizeof detail) != JF_OK) {
        cli_log("jetfilter denoise: --codec nvjpeg: %s", jf_last_error());
        return JF_EXIT_FAILED;
    }
    if (s->verbose && !cli_quiet)
        cli_log("jetfilter denoise: JPEG decoding: %s", detail);
    return 0;
}

int cli_denoise(cli_settings *s)
{
    cli_run run;
    int rc;
    if ((rc = check_codec(s)) != 0)
        return rc;
    memset(&run, 0, sizeof run);
    run.s = s;
    run.verb = "denoise";
    run.device_input_ok = 1;
    if ((rc = cli_plan_filter("denoise", s, &run)) == 0)
        rc = cli_batch(s, &run, denoise_one);
    jf_op_plan_free(&run.plan);
    return rc;
}
