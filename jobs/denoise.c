/* jetfilter denoise: every file through the chosen operation of the table. */
#define _DEFAULT_SOURCE
#include "jobs/jobs.h"
#include "core/errors.h"
#include "core/names.h"
#include "core/stats.h"
#include "core/util.h"
#include "io/io.h"
#include "pipeline/batch.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The clean original of `rel` under the reference folder: the same path,
 * else the one image of the same name with another extension (noise writes
 * PNG for JPEG originals: noisy/x.png is compared with clean/x.jpg).  0 when
 * there is none, or more than one to choose from (named in `path`). */
static int find_reference(const char *root, const char *rel, char *path, size_t n)
{
    char dir[4096];
    const char *slash = strrchr(rel, '/'), *base = slash ? slash + 1 : rel;
    const char *dot = strrchr(base, '.');
    const size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    struct dirent *e;
    DIR *d;
    int found = 0;
    snprintf(path, n, "%s/%s", root, rel);
    if (access(path, F_OK) == 0)
        return 1;
    snprintf(dir, sizeof dir, "%s/%.*s", root, slash ? (int)(slash - rel) : 0, rel);
    if (!(d = opendir(dir)))
        return 0;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, base, stem) == 0 && e->d_name[stem] == '.' &&
            !strchr(e->d_name + stem + 1, '.') && jf_has_image_extension(e->d_name)) {
            if (found++ == 0 && snprintf(path, n, "%s/%s", dir, e->d_name) >= (int)n)
                found = 2; /* too long to name: not taken */
        }
    closedir(d);
    return found == 1;
}

/* PSNR/SSIM of input and output against the clean original, when present. */
static void compare_reference(const job_settings *s, jf_batch_item *it, const jf_image *in,
                              const jf_image *out, jf_context *ctx)
{
    char path[4096];
    jf_picture ref;
    double t0 = jf_now_ms();
    if (!find_reference(s->reference, it->rel, path, sizeof path)) {
        if (!job_quiet)
            job_log("jetfilter: %s: no reference %s (nor one image of its name with another "
                    "extension)", it->input, path);
        return;
    }
    if (jf_picture_read(path, &ref) != JF_OK) {
        if (!job_quiet)
            job_log("jetfilter: %s: no usable reference (%s)", it->input, jf_last_error());
        return;
    }
    if (ref.color.width != in->width || ref.color.height != in->height ||
        ref.color.channels != in->channels) {
        if (!job_quiet)
            job_log("jetfilter: %s: reference %s is %dx%dx%d, the input %dx%dx%d; not compared",
                    it->input, path, ref.color.width, ref.color.height, ref.color.channels,
                    in->width, in->height, in->channels);
    } else if (jf_psnr(ctx, &ref.color, in, &it->psnr_in, NULL) == JF_OK &&
               jf_psnr(ctx, &ref.color, out, &it->psnr_out, NULL) == JF_OK &&
               jf_ssim(ctx, &ref.color, in, &it->ssim_in) == JF_OK &&
               jf_ssim(ctx, &ref.color, out, &it->ssim_out) == JF_OK) {
        it->have_ref = 1;
    } else if (!job_quiet) {
        job_log("jetfilter: %s: not compared with its reference: %s", it->input, jf_last_error());
    }
    it->ms_metrics = jf_now_ms() - t0;
    jf_picture_free(&ref);
}

/* The filter over one page, its result left in pic->color (the input's
 * metadata kept); compared with the reference (the first page only). */
static jf_status denoise_page(jf_batch *b, jf_batch_item *it, jf_context *ctx, jf_picture *pic,
                              int page)
{
    const job_run *run = (const job_run *)b->user;
    jf_image out = {0};
    jf_op_note note;
    jf_status st;
    double t0;
    if (jf_op_plan_identity(&run->plan) && !pic->decoded_on_gpu) { /* decode and encode only */
        if (run->s->reference && page == 0)
            compare_reference(run->s, it, &pic->color, &pic->color, ctx);
        return JF_OK;
    }
    t0 = jf_now_ms();
    /* the output in the other frame, which the encoder then reads in place:
     * on the GPU (frame 3) when nvJPEG decoded the input and a JPEG goes out,
     * to be encoded there too */
    if ((st = jf_context_frame_as(ctx, pic->decoded_on_gpu && job_encode_options(run->s, pic).format ==
                                               JF_FORMAT_JPEG ? 3 : 1,
                                  pic->color.width, pic->color.height, pic->color.channels,
                                  pic->color.sample, &out)) == JF_OK &&
        (st = jf_op_apply(ctx, &run->plan, &pic->color, &out, &note)) == JF_OK)
        st = jf_context_sync(ctx); /* managed frames: the work was only queued */
    it->ms_filter += jf_now_ms() - t0;
    if (st == JF_OK && note.text[0] && page == 0) {
        snprintf(it->decision, sizeof it->decision, "%s", note.text);
        it->estimate_name = run->plan.op->estimate_name;
        it->estimate = note.estimate;
    }
    if (st != JF_OK) {
        jf_error_prefix(it->input);
        jf_image_free(&out);
        return st;
    }
    if (run->s->reference && page == 0)
        compare_reference(run->s, it, &pic->color, &out, ctx);
    jf_image_free(&pic->color); /* a frame: only forgotten */
    pic->color = out;           /* the filtered pixels, with the input's metadata */
    return JF_OK;
}

static jf_status denoise_one(jf_batch *b, jf_batch_item *it, jf_context *ctx)
{
    const job_run *run = (const job_run *)b->user;
    jf_picture pic;
    jf_status st;

    if ((st = job_read_input(it, &pic, ctx)) != JF_OK)
        return st;
    if (run->plan.op->estimate_name && strcmp(run->plan.op->estimate_name, "impulse_density") == 0 &&
        pic.format == JF_FORMAT_JPEG)
        job_item_note(it, "a JPEG: its compression has blurred the impulses, so the estimate "
                          "and the repair are approximate (impulse noise belongs in PNG)");
    if (pic.pages > 1)
        return job_pages(b, it, ctx, &pic, denoise_page);
    if ((st = denoise_page(b, it, ctx, &pic, 0)) == JF_OK)
        st = job_write_output(it, run->s, &pic, ctx);
    jf_picture_free(&pic);
    return st;
}

/* --codec nvjpeg where it cannot work is refused before any file. */
static int check_codec(const job_settings *s)
{
    char detail[256];
    jf_status st;
    if (s->codec != JF_CODEC_NVJPEG)
        return 0;
    if (s->backend && strcmp(s->backend, "cpu") == 0) {
        job_error("jetfilter denoise: --codec nvjpeg needs the CUDA backend (not --backend cpu)");
        return JF_EXIT_USAGE;
    }
    /* the words only with -v: asking nvJPEG for the engines takes time */
    if ((st = jf_codec_probe(JF_CODEC_NVJPEG, s->device, s->verbose ? detail : NULL,
                             sizeof detail)) != JF_OK) {
        job_error("jetfilter denoise: --codec nvjpeg: %s", jf_last_error());
        job_stopped(st);
        return JF_EXIT_FAILED;
    }
    if (s->verbose && !job_quiet)
        job_log("jetfilter denoise: JPEG decoding: %s", detail);
    return 0;
}

int job_denoise_command(job_settings *s) { return job_denoise(s, NULL); }

int job_denoise(job_settings *s, struct jf_job *job)
{
    job_run run;
    int rc;
    if ((rc = check_codec(s)) != 0)
        return rc;
    memset(&run, 0, sizeof run);
    run.s = s;
    run.job = job;
    run.verb = "denoise";
    run.device_input_ok = 1;
    if ((rc = job_plan_filter("denoise", s, &run)) == 0)
        rc = job_batch(s, &run, denoise_one);
    jf_op_plan_free(&run.plan);
    if (s->verbose && !job_quiet) {
        char line[600];
        int i;
        for (i = 0; i < (s->device_count > 0 ? s->device_count : 1); i++) {
            const int device = s->device_count > 0 ? s->devices[i] : s->device;
            if (jf_nvjpeg_tally(device, line, sizeof line))
                job_log("jetfilter denoise: device %d's nvJPEG %s", device, line);
        }
    }
    return rc;
}
