/*
 * The frame stream (stream.h).  Three stages run at once over a ring of
 * JF_STREAM_SLOTS frames: the reader thread fills slot n, the caller's
 * thread filters slot n-1 on its context, the writer thread writes slot n-2
 * (and measures it against the reference).  Sequence counters under one
 * lock say which slot each stage may touch; nothing is allocated per frame.
 *
 * Where the slots live: on a discrete GPU (memory mode copy) in mapped
 * page-locked memory, which the filter kernels read and write directly over
 * the bus, so a frame costs no copy on the CPU and no staging; on a CPU
 * context, and on an integrated GPU (managed mode), in ordinary memory: a
 * Nano without concurrent managed access forbids the CPU to touch managed
 * memory attached to a stream while that stream runs, which the reader and
 * writer would do, so there the library's managed buffers take one CPU copy
 * in and one out per frame (untested on a Jetson).
 */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/stream.h"
#include "pipeline/latency.h"
#include "core/util.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct slot {
    jf_image in[JF_VIDEO_MAX_PLANES], out[JF_VIDEO_MAX_PLANES], ref[JF_VIDEO_MAX_PLANES];
    char params[JF_VIDEO_MAX_LINE];
    double t_read, filter_ms;
    long long index;
} slot;

typedef struct stream {
    const jf_stream_options *opt;
    jf_stream_result *res;
    const jf_video_format *fmt;
    slot slots[JF_STREAM_SLOTS];
    pthread_mutex_t lock;
    pthread_cond_t cond;
    long long n_read, n_done, n_written;
    int read_end, filter_end, stop;
    jf_context *metrics_ctx;
    jf_latency latency; /* bounded, whatever the number of frames */
    double t0, t_last;
} stream;

/* The first failure wins.  One of the filter or the writer stops every
 * stage; one of the input (a bad or truncated frame) ends the reading, and
 * the frames read before it are still filtered and written. */
static void fail_at(stream *s, jf_status st, const char *what, int input)
{
    pthread_mutex_lock(&s->lock);
    if (s->res->status == JF_OK) {
        s->res->status = st;
        snprintf(s->res->message, sizeof s->res->message, "%s", what);
    }
    if (input)
        s->read_end = 1;
    else
        s->stop = 1;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
}

static void fail(stream *s, jf_status st, const char *what) { fail_at(s, st, what, 0); }

static void *reader_main(void *arg)
{
    stream *s = (stream *)arg;
    const jf_stream_options *o = s->opt;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
    for (;;) {
        slot *sl;
        int got = 0, got_ref = 1, old;
        double t;
        jf_status st;
        pthread_mutex_lock(&s->lock);
        while (!s->stop && s->n_read - s->n_written >= JF_STREAM_SLOTS)
            pthread_cond_wait(&s->cond, &s->lock);
        if (s->stop) {
            pthread_mutex_unlock(&s->lock);
            break;
        }
        sl = &s->slots[s->n_read % JF_STREAM_SLOTS];
        pthread_mutex_unlock(&s->lock);

        /* a pipe may block here for as long as its writer likes: the only
         * place where a failure elsewhere cancels this thread */
        pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
        t = jf_now_ms();
        st = jf_video_read(o->in, sl->in, &got);
        s->res->read_ms += jf_now_ms() - t;
        if (st == JF_OK && got && o->ref)
            st = jf_video_read(o->ref, sl->ref, &got_ref);
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
        if (st != JF_OK) {
            fail_at(s, st, jf_last_error(), 1);
            break;
        }
        if (got && !got_ref) {
            char m[320];
            snprintf(m, sizeof m, "reference: frame %lld: the reference stream has ended", s->n_read);
            fail_at(s, JF_ERR_DECODE, m, 1);
            break;
        }
        pthread_mutex_lock(&s->lock);
        if (!got) {
            s->read_end = 1;
        } else {
            snprintf(sl->params, sizeof sl->params, "%s", jf_video_frame_params(o->in));
            sl->t_read = jf_now_ms();
            sl->index = s->n_read++;
        }
        pthread_cond_broadcast(&s->cond);
        pthread_mutex_unlock(&s->lock);
        if (!got)
            break;
    }
    return NULL;
}

/* Stats of everything the context ran so far, in ms. */
static double stats_ms(const jf_context *ctx)
{
    jf_stat_total t[64];
    size_t n = jf_stats_totals(ctx, t, 64), i;
    double ms = 0;
    for (i = 0; i < n; i++)
        ms += t[i].ms;
    return ms;
}

static jf_status measure(stream *s, slot *sl, jf_stream_frame *f)
{
    const jf_video_format *fmt = s->fmt;
    double sse = 0, n = 0, mse, psnr;
    jf_status st;
    int p;
    for (p = 0; p < fmt->color_planes; p++) {
        /* the output may be in mapped memory, which the CPU reads as host memory */
        const jf_image *a = &sl->ref[p], *b = &sl->out[p];
        double count = (double)a->width * a->height * a->channels;
        if ((st = jf_psnr(s->metrics_ctx, a, b, &psnr, &mse)) != JF_OK)
            return st;
        if (p == 0)
            f->psnr_y = psnr;
        sse += mse * count;
        n += count;
        if (p == 0) {
            f->ssim_y = NAN;
            if (a->width >= 11 && a->height >= 11 &&
                (st = jf_ssim(s->metrics_ctx, a, b, &f->ssim_y)) != JF_OK)
                return st;
        }
    }
    mse = sse / n;
    f->psnr = mse > 0 ? 10.0 * log10(255.0 * 255.0 / mse) : INFINITY;
    f->have_ref = 1;
    return JF_OK;
}

static void *writer_main(void *arg)
{
    stream *s = (stream *)arg;
    const jf_stream_options *o = s->opt;
    for (;;) {
        slot *sl;
        jf_stream_frame f;
        jf_status st;
        double t;
        pthread_mutex_lock(&s->lock);
        while (!s->stop && s->n_written == s->n_done && !s->filter_end)
            pthread_cond_wait(&s->cond, &s->lock);
        if (s->stop || s->n_written == s->n_done) {
            pthread_mutex_unlock(&s->lock);
            break;
        }
        sl = &s->slots[s->n_written % JF_STREAM_SLOTS];
        pthread_mutex_unlock(&s->lock);

        t = jf_now_ms(); /* mapped slots are written as they are: host memory too */
        if ((st = jf_video_write(o->out, sl->out, sl->params)) != JF_OK) {
            fail(s, st, jf_last_error());
            break;
        }
        s->res->write_ms += jf_now_ms() - t;
        memset(&f, 0, sizeof f);
        f.index = sl->index;
        f.filter_ms = sl->filter_ms;
        s->t_last = jf_now_ms();
        f.latency_ms = s->t_last - sl->t_read;
        if (o->ref && (st = measure(s, sl, &f)) != JF_OK) {
            fail(s, st, jf_last_error());
            break;
        }
        jf_latency_add(&s->latency, f.latency_ms);
        if (o->on_frame)
            o->on_frame(o->user, &f);
        pthread_mutex_lock(&s->lock);
        s->res->frames++;
        s->n_written++;
        pthread_cond_broadcast(&s->cond);
        pthread_mutex_unlock(&s->lock);
    }
    return NULL;
}

/* The filter stage, on the caller's thread. */
static void filter_loop(stream *s)
{
    const jf_stream_options *o = s->opt;
    double before = stats_ms(o->ctx);
    for (;;) {
        slot *sl;
        jf_status st = JF_OK;
        int p;
        double after;
        pthread_mutex_lock(&s->lock);
        while (!s->stop && s->n_done == s->n_read && !s->read_end)
            pthread_cond_wait(&s->cond, &s->lock);
        if (s->stop || s->n_done == s->n_read) {
            s->filter_end = 1;
            pthread_cond_broadcast(&s->cond);
            pthread_mutex_unlock(&s->lock);
            return;
        }
        sl = &s->slots[s->n_done % JF_STREAM_SLOTS];
        pthread_mutex_unlock(&s->lock);

        for (p = 0; p < s->fmt->planes && st == JF_OK; p++)
            if (sl->out[p].data != sl->in[p].data)
                st = jf_op_apply(o->ctx, o->plan, &sl->in[p], &sl->out[p], NULL);
        if (st == JF_OK)
            st = jf_context_sync(o->ctx);
        if (st != JF_OK) {
            char m[600];
            snprintf(m, sizeof m, "frame %lld: %s", sl->index, jf_last_error());
            fail(s, st, m);
            continue;
        }
        after = stats_ms(o->ctx);
        sl->filter_ms = after - before;
        s->res->filter_ms += after - before;
        before = after;
        pthread_mutex_lock(&s->lock);
        s->n_done++;
        pthread_cond_broadcast(&s->cond);
        pthread_mutex_unlock(&s->lock);
    }
}

static jf_status alloc_slots(stream *s, jf_location loc)
{
    const jf_video_format *f = s->fmt;
    const jf_stream_options *o = s->opt;
    int i, p;
    jf_status st;
    for (i = 0; i < JF_STREAM_SLOTS; i++) {
        slot *sl = &s->slots[i];
        for (p = 0; p < f->planes; p++) {
            int w = f->plane_width[p], h = f->plane_height[p], c = f->plane_channels[p];
            int filtered = p < f->color_planes && (o->plane_mask >> p & 1u);
            if ((st = jf_image_alloc_on(o->ctx, &sl->in[p], w, h, c, loc)) != JF_OK)
                return st;
            if (filtered) {
                if ((st = jf_image_alloc_on(o->ctx, &sl->out[p], w, h, c, loc)) != JF_OK)
                    return st;
            } else {
                sl->out[p] = sl->in[p]; /* passed through: written from the input */
                sl->out[p].owned = 0;
            }
            if (o->ref && (st = jf_image_alloc(&sl->ref[p], w, h, c)) != JF_OK)
                return st;
        }
    }
    return JF_OK;
}

static void free_slots(stream *s)
{
    int i, p;
    for (i = 0; i < JF_STREAM_SLOTS; i++)
        for (p = 0; p < JF_VIDEO_MAX_PLANES; p++) {
            jf_image_free(&s->slots[i].out[p]);
            jf_image_free(&s->slots[i].in[p]);
            jf_image_free(&s->slots[i].ref[p]);
        }
}

static void percentiles(stream *s)
{
    jf_stream_result *r = s->res;
    r->latency_p50 = jf_latency_quantile(&s->latency, 0.5);
    r->latency_p99 = jf_latency_quantile(&s->latency, 0.99);
    r->latency_max = s->latency.max_ms;
}

uint64_t jf_stream_memory(const jf_video_format *f, unsigned plane_mask, int with_ref, int k)
{
    uint64_t frame = 0, padded = 0;
    int p;
    for (p = 0; p < f->planes; p++) {
        const uint64_t w = (uint64_t)f->plane_width[p], h = (uint64_t)f->plane_height[p];
        const uint64_t bytes = w * h * (uint64_t)f->plane_channels[p];
        const int filtered = p < f->color_planes && (plane_mask >> p & 1u);
        frame += bytes;                                   /* in */
        frame += filtered ? bytes : 0;                    /* out */
        frame += with_ref && p < f->color_planes ? bytes : 0; /* reference */
        if (filtered && (w + (uint64_t)k - 1) * (h + (uint64_t)k - 1) * (uint64_t)f->plane_channels[p] > padded)
            padded = (w + (uint64_t)k - 1) * (h + (uint64_t)k - 1) * (uint64_t)f->plane_channels[p];
    }
    return frame * JF_STREAM_SLOTS + padded;
}

void jf_stream_run(const jf_stream_options *opt, jf_stream_result *res)
{
    stream *s = (stream *)calloc(1, sizeof *s);
    pthread_t reader, writer;
    int have_reader = 0, have_writer = 0;
    jf_location loc = JF_LOC_HOST;
    jf_status st;

    memset(res, 0, sizeof *res);
    if (!s) {
        res->status = JF_ERR_NOMEM;
        snprintf(res->message, sizeof res->message, "out of memory");
        return;
    }
    s->opt = opt;
    s->res = res;
    s->fmt = jf_video_reader_format(opt->in);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    if (jf_context_backend(opt->ctx) == JF_BACKEND_CUDA && jf_context_memory(opt->ctx) == JF_MEMORY_COPY)
        loc = JF_LOC_MAPPED;
    res->memory = loc == JF_LOC_MAPPED ? "mapped" : "host";
    if ((st = alloc_slots(s, loc)) != JF_OK ||
        (opt->ref && (st = jf_context_create(NULL, &s->metrics_ctx)) != JF_OK)) {
        res->status = st;
        snprintf(res->message, sizeof res->message, "the stream's %dx%d %s frames (%d in flight): %s",
                 s->fmt->width, s->fmt->height, s->fmt->layout, JF_STREAM_SLOTS, jf_last_error());
        goto done;
    }
    s->t0 = s->t_last = jf_now_ms();
    if (pthread_create(&reader, NULL, reader_main, s) == 0)
        have_reader = 1;
    if (have_reader && pthread_create(&writer, NULL, writer_main, s) == 0)
        have_writer = 1;
    if (!have_reader || !have_writer)
        fail(s, JF_ERR_NOMEM, "cannot start a thread");
    filter_loop(s);
    if (have_writer)
        pthread_join(writer, NULL);
    if (have_reader) {
        pthread_mutex_lock(&s->lock);
        if (s->stop) /* it may be waiting on a pipe that never speaks again */
            pthread_cancel(reader);
        pthread_mutex_unlock(&s->lock);
        pthread_join(reader, NULL);
    }
    res->seconds = (s->t_last - s->t0) / 1000.0;
    percentiles(s);
done:
    jf_context_destroy(s->metrics_ctx);
    free_slots(s);
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
