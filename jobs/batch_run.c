/* What the batch commands (denoise, noise) share: reading and decoding one
 * input, converting and writing one output, and running a whole batch
 * with its options, codecs and report. */
#define _DEFAULT_SOURCE
#include "jobs/jobs.h"
#include "core/errors.h"
#include "core/names.h"
#include "core/stats.h"
#include "core/util.h"
#include "io/io.h"
#include "pipeline/batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p the folder that will hold `path`, through no link inside the
 * output folder `root`. */
static jf_status make_parent(const char *root, const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        return JF_OK;
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    return root ? jf_mkdirs_below(root, dir) : jf_mkdirs(dir);
}

void job_item_note(jf_batch_item *it, const char *note)
{
    size_t used = strlen(it->notes);
    if (used + 3 < sizeof it->notes)
        snprintf(it->notes + used, sizeof it->notes - used, "%s%s", used ? "; " : "", note);
}

jf_encode_options job_encode_options(const job_settings *s, const jf_picture *pic)
{
    jf_encode_options e = jf_encode_defaults();
    e.quality = s->quality;
    e.png_level = s->png_level;
    e.png_filter = s->png_filter + 1; /* the CLI's list starts after "default" */
    e.tiff_compression = s->tiff_compression;
    e.webp_mode = s->webp_mode;
    switch (s->format) {
    case OUT_PNG: e.format = JF_FORMAT_PNG; break;
    case OUT_JPEG: e.format = JF_FORMAT_JPEG; break;
    case OUT_TIFF: e.format = JF_FORMAT_TIFF; break;
    case OUT_WEBP: e.format = JF_FORMAT_WEBP; break;
    case OUT_PFM: e.format = JF_FORMAT_PFM; break;
    default: e.format = pic->format > JF_FORMAT_UNKNOWN && pic->format < JF_FORMAT_COUNT ? pic->format
                                                                                       : JF_FORMAT_PNG;
    }
    return e;
}

/* --depth and --cmyk-to-rgb: the picture as it will be written (its planes
 * replaced by converted copies it owns). */
static jf_status convert_output(jf_batch_item *it, const job_settings *s, jf_picture *pic,
                                const jf_encode_options *e)
{
    static const jf_sample depths[] = {JF_SAMPLE_U8, JF_SAMPLE_U8, JF_SAMPLE_U16, JF_SAMPLE_F32};
    /* PFM holds nothing but float32: an integer input is made float there */
    const jf_sample want = s->depth ? depths[s->depth]
                           : e->format == JF_FORMAT_PFM ? JF_SAMPLE_F32 : pic->color.sample;
    jf_status st;
    if (s->depth == 2 && (e->format == JF_FORMAT_JPEG || e->format == JF_FORMAT_WEBP))
        return jf_fail(JF_ERR_UNSUPPORTED, "--depth 16: %s holds 8 bits per sample; "
                       "write PNG or TIFF (--format png, --format tif)",
                       e->format == JF_FORMAT_JPEG ? "JPEG" : "WebP");
    if (s->depth == 3 && e->format != JF_FORMAT_TIFF && e->format != JF_FORMAT_PFM)
        return jf_fail(JF_ERR_UNSUPPORTED, "--depth float: %s holds integer samples; "
                       "write TIFF or PFM (--format tif, --format pfm)", jf_format_name(e->format));
    if (s->depth && s->depth < 3 && e->format == JF_FORMAT_PFM)
        return jf_fail(JF_ERR_UNSUPPORTED, "--depth %s: PFM holds float32 samples; write PNG or "
                       "TIFF (--format png, --format tif)", s->depth == 1 ? "8" : "16");
    if (pic->color_model == JF_COLOR_CMYK && e->format == JF_FORMAT_PFM && !s->cmyk_to_rgb)
        return jf_fail(JF_ERR_UNSUPPORTED, "a CMYK image cannot be written as PFM (PFM has no "
                       "CMYK): convert it to RGB first (--cmyk-to-rgb)");
    if (pic->color_model == JF_COLOR_CMYK &&
        (e->format == JF_FORMAT_PNG || e->format == JF_FORMAT_WEBP || e->format == JF_FORMAT_PFM) &&
        s->cmyk_to_rgb) {
        if ((st = jf_picture_cmyk_to_rgb(pic)) != JF_OK)
            return st;
        job_item_note(it, "CMYK converted to RGB");
    }
    if (want != pic->color.sample) {
        const jf_sample from = pic->color.sample;
        jf_image color = {0}, alpha = {0};
        color.sample = alpha.sample = want;
        if ((st = jf_image_convert(&pic->color, &color)) != JF_OK ||
            (pic->alpha.data && (st = jf_image_convert(&pic->alpha, &alpha)) != JF_OK)) {
            jf_image_free(&color);
            return st;
        }
        jf_image_free(&pic->color);
        jf_image_free(&pic->alpha);
        pic->color = color;
        pic->alpha = alpha;
        job_item_note(it, want == JF_SAMPLE_F32 ? "made float32 (0..1)"
                          : from == JF_SAMPLE_F32 ? (want == JF_SAMPLE_U8 ? "float32 rounded to 8 bits"
                                                                          : "float32 rounded to 16 bits")
                          : want == JF_SAMPLE_U8 ? "16 bits rounded to 8" : "8 bits widened to 16");
    }
    return JF_OK;
}

/* An encoded output to its place: standard output, or its file (written
 * atomically, its folder made below the output folder). */
static jf_status deliver(const job_settings *s, const jf_batch_item *it, const unsigned char *bytes,
                         size_t size)
{
    jf_status st;
    if (strcmp(it->output, "-") == 0)
        return jf_write_fd(1, "standard output", bytes, size);
    if ((st = make_parent(s->output, it->output)) != JF_OK)
        return st;
    return jf_write_file_atomic(it->output, bytes, size);
}

/* Encode and write one output (denoise and noise share it); a picture in
 * device memory is encoded there when it can be (nvJPEG). */
jf_status job_write_output(jf_batch_item *it, const job_settings *s, jf_picture *pic,
                           jf_context *ctx)
{
    jf_encode_options e = job_encode_options(s, pic);
    double t0 = jf_now_ms();
    unsigned char *bytes = NULL;
    size_t size = 0;
    jf_status st;
    int on_gpu = 0;
    if (e.format == JF_FORMAT_JPEG && pic->alpha.data)
        job_item_note(it, "JPEG has no alpha channel; transparency dropped");
    if (e.format == JF_FORMAT_WEBP && pic->color.channels == 1)
        job_item_note(it, "WebP has no grey: written as RGB");
    if ((st = convert_output(it, s, pic, &e)) != JF_OK) {
        jf_error_prefix(it->input);
        return st;
    }
    if ((st = jf_picture_encode_frame(ctx, pic, &e, &bytes, &size, &on_gpu)) == JF_OK)
        st = deliver(s, it, bytes, size);
    else
        jf_error_prefix(strcmp(it->output, "-") == 0 ? "standard output" : it->output);
    free(bytes);
    if (st != JF_OK)
        return st;
    if (jf_last_warning()[0])
        job_item_note(it, jf_last_warning());
    it->ms_encode = jf_now_ms() - t0;
    jf_record(ctx, "encode", on_gpu ? "jpeg-nvjpeg" : jf_format_name(e.format), 0, &pic->color,
              it->ms_encode,
              (uint64_t)pic->color.width * pic->color.height * pic->color.channels, 0);
    return JF_OK;
}

/* The file's bytes again for its later pages, when the batch did not keep
 * them. */
static jf_status input_bytes(jf_batch_item *it, unsigned char **owned, const unsigned char **bytes,
                             size_t *size)
{
    jf_status st;
    *owned = NULL;
    if (it->bytes) {
        *bytes = it->bytes;
        *size = it->nbytes;
        return JF_OK;
    }
    if ((st = jf_read_file(it->input, (size_t)jf_get_limits().max_file_bytes, owned, size)) != JF_OK)
        jf_error_prefix(it->input);
    *bytes = *owned;
    return st;
}

jf_status job_pages(jf_batch *b, jf_batch_item *it, jf_context *ctx, jf_picture *pic,
                    job_page_fn page_fn)
{
    const job_run *run = (const job_run *)b->user;
    const job_settings *s = run->s;
    jf_encode_options e = job_encode_options(s, pic);
    const int pages = pic->pages;
    const unsigned char *bytes = NULL;
    unsigned char *owned = NULL, *out = NULL;
    jf_page_writer *w = NULL;
    size_t size = 0, out_size = 0;
    char note[160];
    double t0;
    jf_status st;
    int p;
    if (e.format != JF_FORMAT_TIFF) {
        snprintf(note, sizeof note, "%d pages: %s holds one, so the first alone is written "
                 "(--format tif keeps every page)", pages, jf_format_name(e.format));
        job_item_note(it, note);
        if ((st = page_fn(b, it, ctx, pic, 0)) == JF_OK)
            st = job_write_output(it, s, pic, ctx);
        jf_picture_free(pic);
        return st;
    }
    snprintf(note, sizeof note, "%d pages", pages);
    job_item_note(it, note);
    if ((st = input_bytes(it, &owned, &bytes, &size)) != JF_OK ||
        (st = jf_pages_begin(&e, pages, &w)) != JF_OK)
        goto done;
    for (p = 0; p < pages; p++) {
        if (p > 0) {
            jf_picture_free(pic);
            t0 = jf_now_ms();
            if ((st = jf_picture_decode_page_frame(ctx, bytes, size, it->input, p, pic)) != JF_OK)
                goto done;
            it->ms_decode += jf_now_ms() - t0;
        }
        if ((st = page_fn(b, it, ctx, pic, p)) != JF_OK)
            goto done;
        t0 = jf_now_ms();
        if ((st = convert_output(it, s, pic, &e)) != JF_OK || (st = jf_pages_add_frame(ctx, w, pic)) != JF_OK) {
            jf_error_prefix(it->input);
            goto done;
        }
        if (jf_last_warning()[0])
            job_item_note(it, jf_last_warning());
        it->ms_encode += jf_now_ms() - t0;
    }
    t0 = jf_now_ms();
    st = jf_pages_end(w, &out, &out_size);
    w = NULL;
    if (st != JF_OK) {
        jf_error_prefix(it->output);
        goto done;
    }
    st = deliver(s, it, out, out_size);
    it->ms_encode += jf_now_ms() - t0;
done:
    jf_pages_end(w, NULL, NULL);
    free(out);
    free(owned);
    jf_picture_free(pic);
    return st;
}

jf_status job_read_input(jf_batch_item *it, jf_picture *pic, jf_context *ctx)
{
    double t0 = jf_now_ms();
    jf_status st;
    memset(pic, 0, sizeof *pic);
    /* the batch has read the file already (to size its memory) */
    /* straight into the context's frame: the buffer its GPU takes without
     * a staging copy (pinned, or managed on a Jetson) */
    st = it->bytes ? jf_picture_decode_frame(ctx, it->bytes, it->nbytes, it->input, pic)
                   : jf_picture_read(it->input, pic);
    if (st != JF_OK)
        return st;
    if (jf_last_warning()[0])
        job_item_note(it, jf_last_warning());
    it->ms_decode = jf_now_ms() - t0;
    it->width = pic->color.width;
    it->height = pic->color.height;
    it->channels = pic->color.channels;
    jf_record(ctx, "decode", pic->decoded_on_gpu == 1   ? "jpeg-nvjpeg-hw"
                             : pic->decoded_on_gpu == 2 ? "jpeg-nvjpeg-hybrid"
                                                        : jf_format_name(pic->format),
              0, &pic->color, it->ms_decode, 0,
              (uint64_t)pic->color.width * pic->color.height * pic->color.channels);
    return JF_OK;
}


/* Is the GPU's JPEG codec a choice for this batch?  Then the files are
 * sniffed as they are counted. */
static int codec_open(const job_settings *s, const job_run *run)
{
    return run->device_input_ok && !(s->backend && strcmp(s->backend, "cpu") == 0) &&
           jf_device_count() > 0;
}

/* --codec auto: the GPU's JPEG codecs take part where the cost model
 * (pipeline/codec_choice.h) predicts the batch done sooner with them;
 * the JPEGs are told by their first bytes, their sizes read from the file
 * system (counted by jf_batch_collect). */
static jf_codec job_codec(const job_settings *s, const jf_batch *b, job_run *run)
{
    jf_codec_costs m = jf_codec_costs_measured();
    const int cores = s->threads ? s->threads : jf_cpu_count();
    if (s->codec != JF_CODEC_AUTO)
        return (jf_codec)s->codec;
    jf_codec_choose(&m, b->jpeg_files, b->jpeg_bytes / 1048576.0, s->jobs, cores, !s->trust_input,
                    jf_nvjpeg_running(s->device), &run->codec_choice);
    run->codec_chosen = 1;
    return run->codec_choice.gpu ? JF_CODEC_AUTO : JF_CODEC_CPU;
}

/* What one file takes at its peak, measured path by path (8000x6000 and
 * 4000x3000 photos: RGB, grey, RGBA and 16-bit PNG, baseline and
 * progressive JPEG; tests/test_cli.c holds it within 1.3x of the peak and
 * never under it): the file's bytes and its pixels for the whole job;
 * then the larger of a progressive JPEG's coefficients (while it decodes)
 * and the filtered output, the operation's working memory, the encoded
 * output (held until written: PNG about half the pixels, three quarters at
 * 16 bits, or the input PNG's size, which an unfiltered PNG keeps; JPEG an
 * eighth), an alpha plane's
 * interleaving and a --depth 8 copy; and the process's own few MB.
 * auto-impulse is counted as filtering: on a clean image it is over. */
static uint64_t memory_estimate(const void *user, const jf_probe *p, size_t file_bytes)
{
    const job_run *run = (const job_run *)user;
    const uint64_t px = (uint64_t)p->width * (uint64_t)p->height;
    const int alpha = p->channels == 2 || p->channels == 4, color = p->channels - alpha;
    const uint64_t pixels = px * (uint64_t)p->channels * (uint64_t)p->sample_bytes;
    const uint64_t coefficients = p->decode_bytes > pixels ? p->decode_bytes - pixels : 0;
    const jf_sample sample = p->sample_bytes == 4 ? JF_SAMPLE_F32 : p->sample_bytes == 2 ? JF_SAMPLE_U16 : JF_SAMPLE_U8;
    const int identity = run->plan.op && jf_op_plan_identity(&run->plan);
    /* a filter that refuses the sample type costs nothing past the decode */
    const int filters = run->plan.op && run->plan.op->kind == JF_OP_FILTER && !identity &&
                        (run->plan.op->samples & (1u << sample));
    /* lossless outputs (PNG, TIFF, a lossless WebP, noise's) cost about half the pixels */
    const int png_out = run->s->format == OUT_PNG || run->s->format == OUT_TIFF ||
                        run->s->format == OUT_WEBP ||
                        (run->s->format == OUT_SAME && p->format != JF_FORMAT_JPEG) ||
                        (run->plan.op && run->plan.op->kind == JF_OP_NOISE);
    uint64_t later = filters ? px * (uint64_t)color * (uint64_t)p->sample_bytes : 0;
    /* 16 bits: low bytes are noise; floats hardly compress (PFM: not at all) */
    uint64_t encoded = p->sample_bytes == 4 ? pixels : p->sample_bytes == 2 ? pixels / 4 * 3 : pixels / 2;
    if (filters)
        later += jf_op_plan_work_bytes(&run->plan, p->width, p->height, color, p->sample_bytes,
                                       jf_batch_job_threads(run->s->threads, run->s->jobs));
    if (png_out && p->format == JF_FORMAT_PNG && identity) /* the same pixels: about the input's size */
        later += file_bytes + file_bytes / 4;
    else if (png_out)
        later += p->format == JF_FORMAT_PNG && file_bytes > encoded ? file_bytes : encoded;
    else
        later += pixels / 8;
    if (alpha) /* the encoder interleaves it: the whole picture when nothing was filtered */
        later += identity ? pixels : px * (uint64_t)p->sample_bytes;
    if (p->sample_bytes == 2 && run->s->depth == 1) /* --depth 8: an 8-bit copy */
        later += pixels / 2;
    if (run->s->reference) /* the clean original, read to compare */
        later += pixels;
    if (p->pages > 1) /* a multi-page output grows page by page */
        later += (uint64_t)(p->pages - 1) * encoded;
    /* the process itself: 6 MB, 2 MB more where the CUDA runtime is linked
     * in (resident even without a GPU: 1.5-2.3 MB more at every peak of
     * test_memory_estimate_follows_peak in the CUDA 13 and 11.8 builds) */
    return (uint64_t)file_bytes + pixels + (later > coefficients ? later : coefficients) +
           ((uint64_t)(jf_built_with_cuda() ? 8 : 6) << 20);
}

/* Settings every batch command shares, into the batch's options. */
static void batch_options(job_settings *s, job_run *run, jf_batch *b)
{
    memset(b, 0, sizeof *b);
    b->opt.verb = run->verb;
    b->opt.output = s->output;
    b->opt.suffix = s->suffix;
    b->opt.extension = job_format_extension(s->format);
    b->opt.inputs = s->inputs;
    b->opt.input_count = s->input_count;
    b->opt.jobs = s->jobs;
    b->opt.threads = s->threads;
    b->opt.skip_existing = s->skip_existing;
    b->opt.max_depth = s->max_depth;
    b->opt.context = jf_context_defaults();
    b->opt.context.device = s->device;
    b->opt.devices = s->devices;
    b->opt.device_count = s->device_count;
    b->opt.context.memory = (jf_memory)s->memory;
    b->opt.context.codec = JF_CODEC_CPU; /* decided once the files are known */
    b->opt.context.peak_gbps = s->peak_gbps;
    b->opt.context.stats = s->stats || s->json || run->job ? 256 : 0;
    b->opt.max_memory = (uint64_t)(s->max_memory_mb * 1048576.0);
    b->opt.estimate = memory_estimate;
    b->opt.cancel = run->job ? job_cancel_flag(run->job) : NULL;
    b->user = run;
    b->on_start = job_batch_start;
    b->on_done = job_batch_done;
    b->log = job_batch_log;
}

const char *job_format_extension(int format)
{
    static const char *const ext[] = {NULL, ".png", ".jpg", ".tif", ".webp", ".pfm"};
    return format > OUT_SAME && format <= OUT_PFM ? ext[format] : NULL;
}

/* The format a file name asks for by its extension (OUT_SAME: none). */
static int format_of_name(const char *path)
{
    switch (jf_extension_format(path)) {
    case JF_FORMAT_PNG: return OUT_PNG;
    case JF_FORMAT_JPEG: return OUT_JPEG;
    case JF_FORMAT_TIFF: return OUT_TIFF;
    case JF_FORMAT_WEBP: return OUT_WEBP;
    case JF_FORMAT_PFM: return OUT_PFM;
    default: return OUT_SAME;
    }
}

/* One file in, one file out, as convert and ffmpeg do: -o names a file when
 * it is "-" (standard output), has an image's extension, or is a file that
 * exists; the input is then one file or "-" (standard input).  Sets
 * *single; a usage message and JF_EXIT_USAGE when the two do not fit. */
/* One file in and a new -o without an extension: a file or a folder?  A
 * folder only when the name says so (a trailing '/'). */
static int folder_meant(const char *verb, const job_settings *s)
{
    struct stat sb;
    const char *out = s->output;
    if (!out || !out[0] || out[strlen(out) - 1] == '/' || stat(out, &sb) == 0 ||
        s->input_count != 1 || strcmp(s->inputs[0], "-") == 0 || stat(s->inputs[0], &sb) != 0 ||
        S_ISDIR(sb.st_mode))
        return 0;
    job_error("jetfilter %s: -o %s: no such folder, and the name has no image extension; "
            "end it in .png, .jpg, .tif, .webp or .pfm for one file, or in / for a folder to be made", verb, out);
    return JF_EXIT_USAGE;
}

static int decide_single(job_run *run, job_settings *s, int *single)
{
    const char *out = s->output, *verb = run->verb;
    struct stat sb;
    int i, stdin_inputs = 0, out_exists = out && stat(out, &sb) == 0;
    int file_out;
    *single = 0;
    for (i = 0; i < s->input_count; i++)
        stdin_inputs += strcmp(s->inputs[i], "-") == 0;
    if (!out)
        return 0; /* the batch says what is missing */
    file_out = strcmp(out, "-") == 0 ||
               (out_exists ? !S_ISDIR(sb.st_mode) : format_of_name(out) != OUT_SAME);
    if (stdin_inputs && (s->input_count > 1 || !file_out)) {
        job_error("jetfilter %s: '-' reads one image from standard input: give it alone, "
                "with -o FILE or -o - (standard output)", verb);
        return JF_EXIT_USAGE;
    }
    if (stdin_inputs && isatty(STDIN_FILENO)) {
        job_error("jetfilter %s: '-': standard input is a terminal; pipe an image in "
                "(< photo.jpg, or cat photo.jpg |)", verb);
        return JF_EXIT_USAGE;
    }
    if (!file_out) {
        static const char *const others[] = {".bmp", ".gif", ".ppm", ".pgm", ".pnm", ".jp2",
                                             ".heic", ".avif", ".jxl"};
        const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
        size_t k;
        for (k = 0; dot && (!slash || dot > slash) && k < sizeof others / sizeof others[0]; k++)
            if (strcasecmp(dot, others[k]) == 0) {
                job_error("jetfilter %s: -o %s: jetfilter writes PNG, JPEG, TIFF, WebP and PFM, not "
                          "%s; name a .png, .jpg, .tif, .webp or .pfm file, or a folder", verb, out,
                          others[k] + 1);
                return JF_EXIT_USAGE;
            }
        return 0;
    }
    if (s->input_count > 1 || (!stdin_inputs && s->input_count == 1 &&
                               stat(s->inputs[0], &sb) == 0 && S_ISDIR(sb.st_mode))) {
        job_error("jetfilter %s: -o %s names a file, but the input%s %s; give a folder to -o "
                "(it is made if missing)", verb, out, s->input_count > 1 ? "s" : "",
                s->input_count > 1 ? "are several" : "is a folder");
        return JF_EXIT_USAGE;
    }
    if (s->suffix || s->shard) {
        job_error("jetfilter %s: %s names outputs in a folder; -o %s names one file", verb,
                s->suffix ? "--suffix" : "--shard", out);
        return JF_EXIT_USAGE;
    }
    if (strcmp(out, "-") != 0) {
        const int named = format_of_name(out);
        if (named == OUT_SAME) {
            job_error("jetfilter %s: -o %s: the name says no format; end it in .png, .jpg, .tif, "
                      ".webp or .pfm", verb, out);
            return JF_EXIT_USAGE;
        }
        if (s->format_given && s->format != OUT_SAME && s->format != named) {
            job_error("jetfilter %s: --format %s, but -o %s names another format", verb,
                      job_format_extension(s->format) + 1, out);
            return JF_EXIT_USAGE;
        }
        s->format = named;
    } else if (isatty(STDOUT_FILENO)) {
        job_error("jetfilter %s: -o -: standard output is a terminal; pipe it on "
                "(| display, > out.png) or name a file", verb);
        return JF_EXIT_USAGE;
    } else if (s->json && strcmp(s->json, "-") == 0) {
        job_error("jetfilter %s: -o - and --json - both want standard output; write the "
                "report to a file", verb);
        return JF_EXIT_USAGE;
    }
    *single = 1;
    return 0;
}

/* Collect, run and report a batch; the exit code. */
int job_batch(job_settings *s, job_run *run, jf_batch_work_fn work)
{
    jf_batch b;
    jf_status st;
    int rc, single;
    if ((rc = decide_single(run, s, &single)) != 0)
        return rc;
    batch_options(s, run, &b);
    b.opt.single = single;
    if (s->backend)
        b.opt.context.backend = (jf_backend)jf_name_index(jf_backend_names, s->backend);
    if (s->shard) {
        char why[256];
        if (jf_shard_parse(s->shard, &b.opt.shard, why, sizeof why) != 0) {
            job_error("jetfilter %s: --shard %s", run->verb, why);
            return JF_EXIT_USAGE;
        }
    }
    if (s->device_all) { /* every device found (none: the backend says why) */
        int n = jf_device_count(), i;
        if (n > JOB_MAX_DEVICES)
            n = JOB_MAX_DEVICES;
        for (i = 0; i < n; i++)
            s->devices[i] = i;
        s->device_count = n > 0 ? n : 1;
        b.opt.device_count = s->device_count;
    }
    if (b.opt.context.backend == JF_BACKEND_CPU)
        b.opt.device_count = 1; /* no GPU: one list of jobs */
    if (b.opt.device_count > 1) { /* a device named beyond the first is only started if needed */
        int n = jf_device_count(), i;
        for (i = 0; n > 0 && i < b.opt.device_count; i++)
            if (s->devices[i] >= n) {
                job_error("jetfilter %s: --device %s: no device %d (this machine has %d: 0 to %d)",
                          run->verb, s->device_text, s->devices[i], n, n - 1);
                return JF_EXIT_USAGE;
            }
    }
    if (b.opt.device_count > 1 && !b.opt.context.stats)
        b.opt.context.stats = 64; /* the GPU time that brings the other devices in */
    if (b.opt.context.backend == JF_BACKEND_CUDA && jf_device_count() <= 0) {
        /* said before any folder is made */
        job_error("jetfilter %s: --backend cuda: %s", run->verb, jf_last_error());
        job_stopped(JF_ERR_NO_DEVICE);
        return JF_EXIT_FAILED;
    }
    {   /* what the run reads besides its inputs (a kernel file, the references) too */
        const int most = s->input_count + 4;
        const char **reads = (const char **)malloc((size_t)most * sizeof *reads);
        int refused;
        if (!reads) {
            job_error("jetfilter %s: out of memory", run->verb);
            job_stopped(JF_ERR_NOMEM);
            return JF_EXIT_FAILED;
        }
        {
            job_outputs o = {run->verb, reads, job_inputs_of(s, reads, most),
                             {{"--json", s->json, JOB_OUT_REPORT}, {"-o", s->output, JOB_OUT_IMAGE}},
                             single ? 2 : 1, s->force};
            refused = job_outputs_check(&o) != 0 || (!single && folder_meant(run->verb, s));
        }
        free((void *)reads);
        if (refused)
            return JF_EXIT_USAGE;
    }
    b.opt.count_jpegs = s->codec == JF_CODEC_AUTO && codec_open(s, run);
    if ((st = jf_batch_collect(&b)) != JF_OK) {
        if (st == JF_ERR_ARG)
            job_error("jetfilter %s: %s", run->verb, jf_last_error());
        else
            job_error("jetfilter: %s", jf_last_error());
        job_stopped(st);
        jf_batch_free(&b);
        return st == JF_ERR_ARG ? JF_EXIT_USAGE : JF_EXIT_FAILED;
    }
    if (codec_open(s, run)) {
        b.opt.context.codec = job_codec(s, &b, run);
        if (!job_quiet && s->verbose && run->codec_chosen)
            job_log("jetfilter %s: JPEG codecs: %s", run->verb, run->codec_choice.reason);
    }
    if (!job_quiet && s->verbose)
        job_log("jetfilter %s: %d file%s%s%s", run->verb, b.count, b.count == 1 ? "" : "s",
                run->plan.op ? ", " : "", run->plan.op ? run->plan.describe : "");
    if (!job_quiet && b.opt.shard.count > 1)
        job_log("jetfilter %s: shard %d/%d (%s): %d of the %d files found", run->verb,
                b.opt.shard.index, b.opt.shard.count, b.opt.shard.source, b.count, b.walk_files);
    job_batch_progress(&b, NULL);
    if ((st = jf_batch_run(&b, work)) != JF_OK) {
        job_error("jetfilter: %s", jf_last_error());
        job_stopped(st);
        rc = JF_EXIT_FAILED;
    } else {
        rc = job_batch_finish(&b);
    }
    job_stream_end(run);
    jf_batch_free(&b);
    return rc;
}

