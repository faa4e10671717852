/* jetfilter noise: noisy copies of files, with a seed per file so a folder
 * gets different but reproducible noise in every image. */
#include "jobs/jobs.h"
#include "core/errors.h"
#include "pipeline/batch.h"

#include <stdio.h>
#include <string.h>

/* FNV-1a of the relative path, so each file of a folder gets its own noise. */
static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Said once a run: noise and JPEG do not mix. */
static void say_once(jf_batch *b, int *said, const char *message)
{
    if (!__atomic_exchange_n(said, 1, __ATOMIC_RELAXED))
        job_batch_log(b, 0, message);
}

/* Noise over one page: the seed is per file and page. */
static jf_status noise_page(jf_batch *b, jf_batch_item *it, jf_context *ctx, jf_picture *pic, int page)
{
    const job_run *run = (const job_run *)b->user;
    jf_op_plan plan = run->plan; /* a copy: the seed is per file */
    jf_status st;
    plan.args.seed = (long long)(((uint64_t)run->s->seed ^ hash_name(it->rel)) +
                                 (uint64_t)page * 0x9E3779B97F4A7C15ull);
    if ((st = jf_op_apply(ctx, &plan, &pic->color, NULL, NULL)) != JF_OK)
        jf_error_prefix(it->input);
    return st;
}

static jf_status noise_one(jf_batch *b, jf_batch_item *it, jf_context *ctx)
{
    job_run *run = (job_run *)b->user;
    jf_picture pic;
    jf_status st;
    jf_format out;
    int lossless_webp;
    if ((st = job_read_input(it, &pic, ctx)) != JF_OK)
        return st;
    out = job_encode_options(run->s, &pic).format;
    lossless_webp = run->s->webp_mode == JF_WEBP_LOSSLESS ||
                              (run->s->webp_mode == JF_WEBP_SAME && pic.format == JF_FORMAT_WEBP &&
                               pic.compression == 1);
    if (out == JF_FORMAT_JPEG || (out == JF_FORMAT_WEBP && !lossless_webp)) {
        job_item_note(it, "written lossy: its compression changes the noise");
        say_once(b, &run->said_jpeg, strcmp(run->plan.op->name, "salt-pepper") == 0
                 ? "jetfilter noise: writing lossy JPEG or WebP, whose compression changes the noise "
                   "(salt and pepper is no longer 0 and 255); --format png keeps it exact"
                 : "jetfilter noise: writing lossy JPEG or WebP, whose compression changes the "
                   "noise; --format png keeps it exact");
    } else if (pic.format == JF_FORMAT_JPEG && !run->s->format_given) {
        say_once(b, &run->said_png, "jetfilter noise: JPEG inputs are written as PNG, so the noise "
                 "stays exact (--format same keeps JPEG)");
    }
    if (pic.pages > 1)
        return job_pages(b, it, ctx, &pic, noise_page);
    if ((st = noise_page(b, it, ctx, &pic, 0)) == JF_OK)
        st = job_write_output(it, run->s, &pic, ctx);
    jf_picture_free(&pic);
    return st;
}

int job_noise_command(job_settings *s) { return job_noise(s, NULL); }

int job_noise(job_settings *s, struct jf_job *job)
{
    job_run run;
    jf_op_args args;
    int rc;
    if (!s->noise_op) {
        job_error("jetfilter noise: give one of --salt-pepper D or --gaussian SIGMA");
        return JF_EXIT_USAGE;
    }
    memset(&run, 0, sizeof run);
    run.s = s;
    run.job = job;
    run.verb = "noise";
    if ((rc = job_op_args("noise", s, s->noise_op, &args)) != 0)
        return rc;
    if (jf_op_prepare(s->noise_op, &args, &run.plan) != JF_OK) {
        job_error("jetfilter noise: %s", jf_last_error());
        return JF_EXIT_USAGE;
    }
    s->backend = "cpu"; /* noise is made on the host */
    rc = job_batch(s, &run, noise_one);
    jf_op_plan_free(&run.plan);
    return rc;
}
