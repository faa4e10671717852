/*
 * JPEG decoding on the GPU with NVIDIA nvJPEG, loaded at run time.
 *
 * Why dlopen and not a link: nvJPEG ships with the CUDA toolkit on x86-64
 * and SBSA machines but not in every toolkit (the build machine's has no
 * headers), and not on a Jetson Nano, whose L4T carries a different
 * libnvjpeg.so (the Multimedia API's libjpeg-compatible library).  So the
 * few calls used here are declared below from nvJPEG's documented C
 * interface (CUDA 11-13), and scripts/gpu-nvjpeg-abi.sh checks every value
 * and layout against the real nvjpeg.h on the GPU machine.  Without the
 * library everything still works: JPEGs are decoded on the CPU.
 *
 * Two decoders: the hardware engine (A100, H100, H200: baseline JPEG, one
 * scan, not 4:1:1/4:1:0), fed by one thread per device that batches what
 * the jobs have queued, and otherwise nvJPEG's hybrid decoder (Huffman on
 * the CPU, the rest on the GPU).  The handles are per device and shared;
 * each context gets its own states (nvJPEG's state is per thread), made on
 * first use and freed with the context.  A file that nvJPEG refuses, or
 * that lacks its end marker, is left to libjpeg-turbo, whose strict checks
 * and messages then apply.
 */
#define _DEFAULT_SOURCE
#include "io/io.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/gpu.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef JF_HAVE_CUDA
#include <dlfcn.h>
#include <pthread.h>

/* ---- the interface, as documented (values checked by gpu-nvjpeg-abi.sh) ---- */
typedef struct nvj_handle_s *nvj_handle;
typedef struct nvj_state_s *nvj_state;
typedef struct nvj_jstream_s *nvj_jstream;
typedef struct nvj_enc_state_s *nvj_enc_state;
typedef struct nvj_enc_params_s *nvj_enc_params;
typedef struct nvj_image { /* nvjpegImage_t */
    unsigned char *channel[4];
    size_t pitch[4];
} nvj_image;
enum { NVJ_BACKEND_DEFAULT = 0, NVJ_BACKEND_HARDWARE = 3 };        /* nvjpegBackend_t */
enum { NVJ_OUTPUT_Y = 2, NVJ_OUTPUT_RGBI = 5 };                    /* nvjpegOutputFormat_t */
enum { NVJ_FLAGS_BITSTREAM_STRICT = 1 << 2 };                       /* NVJPEG_FLAGS_* */
enum { NVJ_INPUT_RGBI = 5 };                                        /* nvjpegInputFormat_t */
enum { NVJ_CSS_444 = 0, NVJ_CSS_422 = 1, NVJ_CSS_420 = 2, NVJ_CSS_440 = 3, NVJ_CSS_411 = 4,
       NVJ_CSS_410 = 5, NVJ_CSS_GRAY = 6 };                          /* nvjpegChromaSubsampling_t */
enum { NVJ_MAJOR_VERSION = 0, NVJ_MINOR_VERSION = 1, NVJ_PATCH_LEVEL = 2 }; /* libraryPropertyType */

static const char *const nvj_status_names[] = {
    "success", "not initialized", "invalid parameter", "bad JPEG", "JPEG not supported",
    "allocator failure", "execution failed", "architecture mismatch", "internal error",
    "implementation not supported", "incomplete bitstream"};

static struct {
    pthread_once_t once;
    void *lib;
    char why[256];  /* why it is not usable, or "" */
    char name[32];  /* the soname that loaded */
    int version[3];
    int (*get_property)(int type, int *value);
    int (*create_ex)(int backend, void *dev_alloc, void *pinned_alloc, unsigned flags,
                     nvj_handle *h);
    int (*destroy)(nvj_handle h);
    int (*hw_info)(nvj_handle h, unsigned *engines, unsigned *cores);
    int (*state_create)(nvj_handle h, nvj_state *s);
    int (*state_destroy)(nvj_state s);
    int (*decode)(nvj_handle h, nvj_state s, const unsigned char *data, size_t length, int format,
                  nvj_image *dst, void *stream);
    int (*batched_init)(nvj_handle h, nvj_state s, int batch, int threads, int format);
    int (*batched)(nvj_handle h, nvj_state s, const unsigned char *const *data,
                   const size_t *lengths, nvj_image *dst, void *stream);
    /* optional (CUDA 11.6 on): the hardware decoder's buffers made once */
    int (*batched_prealloc)(nvj_handle h, nvj_state s, int batch, int width, int height, int css,
                            int format);
    int (*jstream_create)(nvj_handle h, nvj_jstream *js);
    int (*jstream_destroy)(nvj_jstream js);
    int (*jstream_parse)(nvj_handle h, const unsigned char *data, size_t length, int save_meta,
                         int save_stream, nvj_jstream js);
    /* the header only (CUDA 11.2 on): half the cost of a full parse */
    int (*jstream_parse_header)(nvj_handle h, const unsigned char *data, size_t length,
                                nvj_jstream js);
    int (*batched_supported)(nvj_handle h, nvj_jstream js, int *is_supported);
    /* the encoder (optional: without it JPEGs are encoded on the CPU) */
    int (*enc_state_create)(nvj_handle h, nvj_enc_state *s, void *stream);
    int (*enc_state_destroy)(nvj_enc_state s);
    int (*enc_params_create)(nvj_handle h, nvj_enc_params *p, void *stream);
    int (*enc_params_destroy)(nvj_enc_params p);
    int (*enc_quality)(nvj_enc_params p, const int quality, void *stream);
    int (*enc_sampling)(nvj_enc_params p, int css, void *stream);
    int (*enc_image)(nvj_handle h, nvj_enc_state s, const nvj_enc_params p, const nvj_image *src,
                     int input_format, int width, int height, void *stream);
    int (*enc_yuv)(nvj_handle h, nvj_enc_state s, const nvj_enc_params p, const nvj_image *src,
                   int css, int width, int height, void *stream);
    int (*enc_retrieve)(nvj_handle h, nvj_enc_state s, unsigned char *data, size_t *length,
                        void *stream);
    int can_encode;
} nv = {PTHREAD_ONCE_INIT};

static void load(void)
{
    /* newest first; a bare libnvjpeg.so last (a development symlink, or on a
     * Jetson the libjpeg-compatible library, which lacks these symbols) */
    static const char *const names[] = {"libnvjpeg.so.13", "libnvjpeg.so.12", "libnvjpeg.so.11",
                                        "libnvjpeg.so"};
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0] && !nv.lib; i++)
        if ((nv.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) != NULL)
            snprintf(nv.name, sizeof nv.name, "%s", names[i]);
    if (!nv.lib) {
        snprintf(nv.why, sizeof nv.why, "nvJPEG not found (libnvjpeg.so.11 to .13, from the CUDA "
                 "toolkit; not part of a Jetson's L4T)");
        return;
    }
#define NVJ_SYM(field, symbol) *(void **)&nv.field = dlsym(nv.lib, symbol)
    NVJ_SYM(get_property, "nvjpegGetProperty");
    NVJ_SYM(create_ex, "nvjpegCreateEx");
    NVJ_SYM(destroy, "nvjpegDestroy");
    NVJ_SYM(hw_info, "nvjpegGetHardwareDecoderInfo");
    NVJ_SYM(state_create, "nvjpegJpegStateCreate");
    NVJ_SYM(state_destroy, "nvjpegJpegStateDestroy");
    NVJ_SYM(decode, "nvjpegDecode");
    NVJ_SYM(batched_init, "nvjpegDecodeBatchedInitialize");
    NVJ_SYM(batched, "nvjpegDecodeBatched");
    NVJ_SYM(batched_prealloc, "nvjpegDecodeBatchedPreAllocate");
    NVJ_SYM(jstream_create, "nvjpegJpegStreamCreate");
    NVJ_SYM(jstream_destroy, "nvjpegJpegStreamDestroy");
    NVJ_SYM(jstream_parse, "nvjpegJpegStreamParse");
    NVJ_SYM(jstream_parse_header, "nvjpegJpegStreamParseHeader");
    NVJ_SYM(batched_supported, "nvjpegDecodeBatchedSupported");
    NVJ_SYM(enc_state_create, "nvjpegEncoderStateCreate");
    NVJ_SYM(enc_state_destroy, "nvjpegEncoderStateDestroy");
    NVJ_SYM(enc_params_create, "nvjpegEncoderParamsCreate");
    NVJ_SYM(enc_params_destroy, "nvjpegEncoderParamsDestroy");
    NVJ_SYM(enc_quality, "nvjpegEncoderParamsSetQuality");
    NVJ_SYM(enc_sampling, "nvjpegEncoderParamsSetSamplingFactors");
    NVJ_SYM(enc_image, "nvjpegEncodeImage");
    NVJ_SYM(enc_yuv, "nvjpegEncodeYUV");
    NVJ_SYM(enc_retrieve, "nvjpegEncodeRetrieveBitstream");
#undef NVJ_SYM
    nv.can_encode = nv.enc_state_create && nv.enc_state_destroy && nv.enc_params_create &&
                    nv.enc_params_destroy && nv.enc_quality && nv.enc_sampling && nv.enc_image &&
                    nv.enc_yuv && nv.enc_retrieve;
    if (!nv.get_property || !nv.create_ex || !nv.destroy || !nv.state_create ||
        !nv.state_destroy || !nv.decode || !nv.batched_init || !nv.batched ||
        !nv.jstream_create || !nv.jstream_destroy || !nv.jstream_parse || !nv.batched_supported) {
        snprintf(nv.why, sizeof nv.why, "%s is not NVIDIA's CUDA nvJPEG (it lacks nvjpegCreateEx "
                 "or the batched decoder; on a Jetson it is the Multimedia API's library)", nv.name);
        dlclose(nv.lib);
        nv.lib = NULL;
        return;
    }
    nv.get_property(NVJ_MAJOR_VERSION, &nv.version[0]);
    nv.get_property(NVJ_MINOR_VERSION, &nv.version[1]);
    nv.get_property(NVJ_PATCH_LEVEL, &nv.version[2]);
}

static const char *status_name(int s)
{
    return s >= 0 && s < (int)(sizeof nvj_status_names / sizeof nvj_status_names[0])
               ? nvj_status_names[s] : "unknown status";
}

/* ---- the hardware engine: one batching decoder per device, for the process --
 *
 * One decode call at a time per handle is what nvJPEG's hardware backend
 * does well with (measured: a handle per job at -j 4 and -j 16 ran slower
 * than one job), and a batch is how it spreads work over its engines.  So
 * the jobs of all contexts on a device hand their files to one thread,
 * which decodes whatever has queued up as one batch (up to NVJ_MAX_BATCH of
 * one output format) on its own stream into each job's device buffer, waits
 * for it, and wakes the jobs.  Nobody waits for a batch to fill: a batch is
 * what arrived while the previous one ran. */
#define NVJ_MAX_BATCH 32
/* AUTO: files that may wait for the engine before a job decodes on its CPU.
 * Two batches: the engine path costs a core less than the CPU's decode
 * (the damaged-data check is cheaper than decoding), so the CPU takes a
 * file only when the engine is far behind (docs/kernels/studies.md, "start-up": waiting
 * at 2 decoded 40% of a 16-job batch on the CPU, and ran slower) */
#define NVJ_AUTO_WAITING (2 * NVJ_MAX_BATCH)
#define NVJ_MAX_DEVICES 64

/* A file to decode, or (format NVJ_ENCODE) an image to encode. */
enum { NVJ_ENCODE = -1 };
typedef struct nvj_request {
    const unsigned char *bytes;
    size_t size;
    int format;          /* NVJ_OUTPUT_Y or NVJ_OUTPUT_RGBI, or NVJ_ENCODE */
    nvj_image dst;       /* decoded into; or the image to encode */
    int dst_width, dst_height; /* decoding */
    int width, height, channels, css, quality; /* encoding */
    unsigned char *bits; /* encoded: malloc'ed, the caller's */
    size_t len;
    int state;           /* 0 queued, 1 done, -1 not taken (decode) or failed (encode);
                          * set under g_lock: the job may return as soon as it changes */
    int result;          /* the state to be, as the service thread found it */
    double queued_at, taken_at, done_at; /* jf_now_ms(): what the tally adds up */
    int status;          /* nvJPEG's status of a failed encode */
    jf_status error;     /* or the CUDA or memory failure */
    struct nvj_request *next;
} nvj_request;

/* The engine of a device's service: made on the decoder's thread, so that
 * jobs read and check their first files (or, AUTO, decode them on the CPU)
 * while nvJPEG starts it, which takes longer than a file (docs/kernels/studies.md,
 * "--codec auto from measurements"). */
enum { NVJ_ENGINE_STARTING, NVJ_ENGINE_READY, NVJ_ENGINE_NONE };

/* An encoder of the service: every encode runs on one of these threads;
 * jobs each calling nvJPEG slowed one another's decodes and encodes many
 * times over at -j 16, and a second thread gained half again on one
 * (docs/kernels/studies.md, "The GPU JPEG path at 16 jobs"). */
#define NVJ_ENCODERS 2
typedef struct nvj_encoder {
    struct nvj_service *service;
    pthread_t thread;
    jf_context *ctx;      /* its device and stream */
    nvj_enc_state state;
    nvj_enc_params params;
    int failed;
} nvj_encoder;

typedef struct nvj_service {
    int open;             /* started and not yet closed (users may be 0: kept) */
    int users, stop, running, closing;
    int kept;             /* one of the users is a probe's, for the next context */
    int engine;           /* NVJ_ENGINE_*: whether the hardware decoder runs */
    int waiting;          /* decodes queued, not yet taken into a batch */
    pthread_t thread;     /* the decoder's */
    pthread_cond_t work, done;
    nvj_request *head, *tail;
    jf_context *ctx;      /* the decoder's device and stream */
    /* the encoders' threads, each with its stream and state, beside the
     * decoder's (one thread for both was busy nearly all the time at -j
     * 16); jobs' encodes come in bursts, one a file of each decoded batch */
    nvj_encoder enc[NVJ_ENCODERS];
    int enc_running;      /* encoders' threads started */
    nvj_handle hw;        /* NULL: the device has no hardware decoder */
    /* nvJPEG's default backend, for every context on the device: the hybrid
     * decoder and the encoder (a handle is thread-safe, the states are per
     * context; a handle per context slowed 16 jobs' encodes more than
     * tenfold) */
    nvj_handle coder;
    int coder_failed;
    /* a decoder state per output format (Y, RGBI), initialised for each
     * batch's size: a state per batch size is slow to make, and 16 jobs'
     * batches come in every size */
    nvj_state states[2];
    int state_failed[2];
} nvj_service;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
/* Engines start one at a time: two devices' started together took half as
 * long again each, both later than one alone (g_lock). */
static int g_engine_starting;
static pthread_cond_t g_engine_started = PTHREAD_COND_INITIALIZER;
static pthread_cond_t g_closed = PTHREAD_COND_INITIALIZER; /* a service finished closing */
static nvj_service g_services[NVJ_MAX_DEVICES];
/* jf_nvjpeg_keep: services stay open without users (g_lock) */
static int g_keep;

/* What each device's service threads did, over the process (g_lock): how
 * long the engine took to start, how busy the decoder's and encoder's
 * threads were against the time the service was open, how much of the
 * decoder's time went into nvJPEG's calls (host work, or waiting inside
 * them) rather than waiting for the engine's stream, and the batches the
 * engine got; -v prints it. */
typedef struct nvj_tally {
    double open_ms, opened_at, decode_ms, encode_ms;
    double contexts_ms, ready_ms; /* its start: the service's contexts made, the engine up */
    double decode_calls_ms; /* of decode_ms, inside nvJPEG's calls */
    /* summed over requests: waiting to be taken, then in the service's
     * hands, then until the job ran again; decodes [0], encodes [1] */
    double queued_ms[2], served_ms[2], woken_ms[2];
    long batches, decoded, encoded;
} nvj_tally;
static nvj_tally g_tally[NVJ_MAX_DEVICES];
static double g_first_opened; /* when the process's first service opened */

/* Decode one batch (all of one format, each file checked by its job as one
 * the engine takes); marks each request.  Returns the milliseconds spent in
 * nvJPEG's calls (the rest went to waiting for the engine). */
static double service_decode(nvj_service *s, nvj_request **batch, int n)
{
    const unsigned char *data[NVJ_MAX_BATCH];
    size_t sizes[NVJ_MAX_BATCH];
    nvj_image dst[NVJ_MAX_BATCH];
    int i, ok, f = batch[0]->format == NVJ_OUTPUT_Y ? 0 : 1;
    nvj_state *st;
    double calls_ms;
    for (i = 0; i < n; i++) {
        data[i] = batch[i]->bytes;
        sizes[i] = batch[i]->size;
        dst[i] = batch[i]->dst;
    }
    st = &s->states[f];
    if (!*st && !s->state_failed[f]) {
        if (nv.state_create(s->hw, st) != 0) {
            *st = NULL;
            s->state_failed[f] = 1;
        } else if (nv.batched_prealloc) { /* the largest batch of this size, once */
            nv.batched_prealloc(s->hw, *st, NVJ_MAX_BATCH, batch[0]->dst_width,
                                batch[0]->dst_height, NVJ_CSS_444, batch[0]->format);
        }
    }
    calls_ms = jf_now_ms();
    ok = *st && nv.batched_init(s->hw, *st, n, 1, batch[0]->format) == 0 &&
         nv.batched(s->hw, *st, data, sizes, dst, jf_context_stream(s->ctx)) == 0;
    calls_ms = jf_now_ms() - calls_ms;
    ok = jf_context_sync(s->ctx) == JF_OK && ok;
    for (i = 0; i < n; i++)
        batch[i]->result = ok ? 1 : -1;
    return calls_ms;
}

/* The device's default-backend handle, made on first use (on the caller's
 * device, which is the service's). */
static nvj_handle service_coder(nvj_service *s)
{
    nvj_handle h;
    pthread_mutex_lock(&g_lock);
    if (!s->coder && !s->coder_failed &&
        nv.create_ex(NVJ_BACKEND_DEFAULT, NULL, NULL, NVJ_FLAGS_BITSTREAM_STRICT, &s->coder) != 0)
        s->coder_failed = 1, s->coder = NULL;
    h = s->coder;
    pthread_mutex_unlock(&g_lock);
    return h;
}

/* Encode one image on `ctx`'s stream; the bitstream is malloc'ed into *bits.
 * Returns nvJPEG's status; *st a CUDA or memory failure. */
static int encode_image(jf_context *ctx, nvj_handle h, nvj_enc_state es, nvj_enc_params ep,
                        const nvj_request *r, unsigned char **bits, size_t *len, jf_status *st)
{
    void *stream = jf_context_stream(ctx);
    nvj_image src = r->dst;
    int s = nv.enc_quality(ep, r->quality, stream);
    *bits = NULL, *len = 0, *st = JF_OK;
    if (s == 0)
        s = nv.enc_sampling(ep, r->css, stream);
    if (s == 0)
        s = r->channels == 1
                ? nv.enc_yuv(h, es, ep, &src, NVJ_CSS_GRAY, r->width, r->height, stream)
                : nv.enc_image(h, es, ep, &src, NVJ_INPUT_RGBI, r->width, r->height, stream);
    if (s == 0)
        s = nv.enc_retrieve(h, es, NULL, len, stream);
    if (s == 0 && (*st = jf_gpu_sync(ctx)) == JF_OK && !(*bits = (unsigned char *)malloc(*len + 1)))
        *st = JF_ERR_NOMEM;
    if (s == 0 && *st == JF_OK)
        s = nv.enc_retrieve(h, es, *bits, len, stream);
    if (s == 0 && *st == JF_OK)
        *st = jf_gpu_sync(ctx);
    if (s != 0 || *st != JF_OK) {
        free(*bits);
        *bits = NULL;
    }
    return s;
}

/* An encoder state and parameters on handle `h` (NULL: none); 1 made. */
static int make_encoder(nvj_handle h, nvj_enc_state *state, nvj_enc_params *params, void *stream)
{
    return h && nv.enc_state_create(h, state, stream) == 0 &&
           nv.enc_params_create(h, params, stream) == 0;
}

/* Encode the requests taken, one after another, with one of the service's
 * encoders. */
static void service_encode(nvj_encoder *e, nvj_request **batch, int n)
{
    void *stream = jf_context_stream(e->ctx);
    int i;
    if (!e->state && !e->failed &&
        !make_encoder(service_coder(e->service), &e->state, &e->params, stream))
        e->failed = 1;
    for (i = 0; i < n; i++) {
        nvj_request *r = batch[i];
        r->error = JF_OK;
        r->status = e->failed ? 9 /* not supported */
                              : encode_image(e->ctx, e->service->coder, e->state, e->params, r,
                                             &r->bits, &r->len, &r->error);
        r->result = r->status == 0 && r->error == JF_OK ? 1 : -1;
    }
}

/* Take the queued requests of one kind (g_lock held): decodes of the first
 * one's output format, up to NVJ_MAX_BATCH; or one encode, so that the
 * encoders share a burst. */
static int service_take(nvj_service *s, int encodes, nvj_request **batch)
{
    nvj_request **link, *r;
    int n = 0, format = 0;
    const int most = encodes ? 1 : NVJ_MAX_BATCH;
    for (link = &s->head; (r = *link) != NULL && n < most;) {
        if ((r->format == NVJ_ENCODE) == encodes && (n == 0 || r->format == format)) {
            format = r->format;
            r->taken_at = jf_now_ms();
            *link = r->next;
            batch[n++] = r;
        } else {
            link = &r->next;
        }
    }
    for (s->tail = s->head; s->tail && s->tail->next; s->tail = s->tail->next) {}
    if (!encodes)
        s->waiting -= n;
    return n;
}

/* A service thread: the decoder's (batches; `e` NULL) or an encoder's. */
static void service_loop(nvj_service *s, nvj_encoder *e)
{
    nvj_request *batch[NVJ_MAX_BATCH];
    jf_status st;
    const int encodes = e != NULL;
    int n, prev = jf_gpu_enter(encodes ? e->ctx : s->ctx, &st);
    (void)prev; /* this thread stays on the device */
    pthread_mutex_lock(&g_lock);
    for (;;) {
        if ((n = service_take(s, encodes, batch)) == 0) {
            if (s->stop)
                break;
            pthread_cond_wait(&s->work, &g_lock);
            continue;
        }
        pthread_mutex_unlock(&g_lock);
        {
            nvj_tally *t = &g_tally[s - g_services];
            const double t0 = jf_now_ms();
            double calls_ms = 0, t1;
            int i;
            if (encodes)
                service_encode(e, batch, n);
            else
                calls_ms = service_decode(s, batch, n);
            t1 = jf_now_ms();
            pthread_mutex_lock(&g_lock);
            for (i = 0; i < n; i++) {
                batch[i]->done_at = t1;
                t->queued_ms[encodes] += batch[i]->taken_at - batch[i]->queued_at;
                t->served_ms[encodes] += t1 - batch[i]->taken_at;
                batch[i]->state = batch[i]->result;
            }
            t->decode_calls_ms += calls_ms;
            if (encodes) {
                t->encode_ms += t1 - t0;
                t->encoded += n;
            } else {
                t->decode_ms += t1 - t0;
                t->decoded += n;
                t->batches++;
            }
        }
        pthread_cond_broadcast(&s->done);
    }
    pthread_mutex_unlock(&g_lock);
}

/* The decoder's thread: makes the hardware decoder and its state for RGB
 * output (the usual one), says whether it has an engine, then batches.
 * The hardware decoder is not made strict: its strictness is a pass over
 * each bitstream on this thread, which more than doubled its host time a
 * file and made this thread the batch's limit (docs/kernels/studies.md,
 * "the engine's host time"), and it refused only part of what the check
 * refuses; the check (or libjpeg-turbo, for a file the engine does not
 * take) is what keeps damaged data out. */
static void *decoder_main(void *arg)
{
    nvj_service *s = (nvj_service *)arg;
    jf_status st;
    int ok, stop, prev = jf_gpu_enter(s->ctx, &st);
    (void)prev; /* this thread stays on the device */
    pthread_mutex_lock(&g_lock);
    while (g_engine_starting && !s->stop)
        pthread_cond_wait(&g_engine_started, &g_lock);
    stop = s->stop;
    g_engine_starting += !stop;
    pthread_mutex_unlock(&g_lock);
    ok = !stop && st == JF_OK && nv.create_ex(NVJ_BACKEND_HARDWARE, NULL, NULL, 0, &s->hw) == 0;
    if (!ok)
        s->hw = NULL;
    else if (nv.state_create(s->hw, &s->states[1]) != 0)
        s->states[1] = NULL, s->state_failed[1] = 1;
    pthread_mutex_lock(&g_lock);
    g_engine_starting -= !stop;
    pthread_cond_broadcast(&g_engine_started);
    s->engine = ok ? NVJ_ENGINE_READY : NVJ_ENGINE_NONE;
    g_tally[s - g_services].ready_ms = jf_now_ms() - g_tally[s - g_services].opened_at;
    pthread_cond_broadcast(&s->done);
    pthread_mutex_unlock(&g_lock);
    if (ok)
        service_loop(s, NULL);
    return NULL;
}

/* The device's hardware decoder: NVJ_ENGINE_*; with `wait`, once it has
 * started or failed to. */
static int service_engine(nvj_service *s, int wait)
{
    int engine;
    if (!s)
        return NVJ_ENGINE_NONE;
    pthread_mutex_lock(&g_lock);
    while (wait && s->engine == NVJ_ENGINE_STARTING)
        pthread_cond_wait(&s->done, &g_lock);
    engine = s->engine;
    pthread_mutex_unlock(&g_lock);
    return engine;
}

static void *encoder_main(void *arg)
{
    nvj_encoder *e = (nvj_encoder *)arg;
    service_loop(e->service, e);
    return NULL;
}

static void service_close(nvj_service *s)
{
    int f;
    jf_status st;
    int prev;
    if (s->running) { /* the thread needs the lock to finish; nobody opens meanwhile */
        s->closing = 1;
        s->stop = 1;
        pthread_cond_broadcast(&s->work);
        pthread_cond_broadcast(&g_engine_started); /* one waiting for its turn to start */
        pthread_mutex_unlock(&g_lock);
        pthread_join(s->thread, NULL);
        for (f = 0; f < s->enc_running; f++)
            pthread_join(s->enc[f].thread, NULL);
        pthread_mutex_lock(&g_lock);
    }
    if (s->ctx) {
        prev = jf_gpu_enter(s->ctx, &st);
        for (f = 0; f < 2; f++)
            if (s->states[f])
                nv.state_destroy(s->states[f]);
        for (f = 0; f < NVJ_ENCODERS; f++) {
            if (s->enc[f].params) nv.enc_params_destroy(s->enc[f].params);
            if (s->enc[f].state) nv.enc_state_destroy(s->enc[f].state);
        }
        if (s->hw) nv.destroy(s->hw);
        if (s->coder) nv.destroy(s->coder);
        jf_gpu_leave(prev);
        for (f = 0; f < NVJ_ENCODERS; f++)
            jf_context_destroy(s->enc[f].ctx);
        jf_context_destroy(s->ctx);
    }
    pthread_cond_destroy(&s->work);
    pthread_cond_destroy(&s->done);
    g_tally[s - g_services].open_ms += jf_now_ms() - g_tally[s - g_services].opened_at;
    memset(s, 0, sizeof *s);
    pthread_cond_broadcast(&g_closed);
}

/* The device's service, started by its first user (g_lock held): its
 * threads start at once, the decoder's making the engine (engine
 * NVJ_ENGINE_STARTING until it has, NONE where the device has none). */
static nvj_service *service_open(int device)
{
    jf_context_options o = jf_context_defaults();
    nvj_service *s;
    int i;
    if (device < 0 || device >= NVJ_MAX_DEVICES)
        return NULL;
    s = &g_services[device];
    while (s->closing)
        pthread_cond_wait(&g_closed, &g_lock);
    if (s->kept) { /* a probe's reference: this context takes it over */
        s->kept = 0;
        return s;
    }
    if (s->users++ > 0 || s->open)
        return s; /* open, or kept open between batches (jf_nvjpeg_keep) */
    s->open = 1;
    pthread_cond_init(&s->work, NULL);
    pthread_cond_init(&s->done, NULL);
    g_tally[device].opened_at = jf_now_ms();
    if (g_first_opened == 0.0)
        g_first_opened = g_tally[device].opened_at;
    o.backend = JF_BACKEND_CUDA;
    o.device = device;
    s->engine = NVJ_ENGINE_NONE;
    if (jf_context_create(&o, &s->ctx) != JF_OK)
        return s; /* no engine: the hybrid decoder */
    s->engine = NVJ_ENGINE_STARTING;
    s->running = pthread_create(&s->thread, NULL, decoder_main, s) == 0;
    if (!s->running)
        s->engine = NVJ_ENGINE_NONE;
    for (i = 0; s->running && i < NVJ_ENCODERS; i++) {
        nvj_encoder *e = &s->enc[i];
        e->service = s;
        if (jf_context_create(&o, &e->ctx) != JF_OK ||
            pthread_create(&e->thread, NULL, encoder_main, e) != 0)
            break; /* those started serve; a context made is destroyed on closing */
        s->enc_running++;
    }
    g_tally[device].contexts_ms = jf_now_ms() - g_tally[device].opened_at;
    return s;
}

static void service_release(nvj_service *s)
{
    pthread_mutex_lock(&g_lock);
    if (--s->users == 0 && !g_keep)
        service_close(s);
    pthread_mutex_unlock(&g_lock);
}

/* Hand a file to the engine: 1 queued, 0 busy (only with `max_waiting` >=
 * 0: that many files already wait for the engine, so the caller's own CPU
 * will be done sooner).  A queued request must be waited for. */
static int service_submit(nvj_service *s, nvj_request *r, int max_waiting)
{
    pthread_mutex_lock(&g_lock);
    if (max_waiting >= 0 && s->waiting >= max_waiting) {
        pthread_mutex_unlock(&g_lock);
        return 0;
    }
    if (r->format != NVJ_ENCODE)
        s->waiting++;
    r->queued_at = jf_now_ms();
    if (s->tail)
        s->tail->next = r;
    else
        s->head = r;
    s->tail = r;
    pthread_cond_broadcast(&s->work); /* the decoder's thread or the encoder's */
    pthread_mutex_unlock(&g_lock);
    return 1;
}

/* 1 decoded, -1 not taken by the engine. */
static int service_wait(nvj_service *s, nvj_request *r)
{
    int state;
    pthread_mutex_lock(&g_lock);
    while (r->state == 0)
        pthread_cond_wait(&s->done, &g_lock);
    state = r->state;
    g_tally[s - g_services].woken_ms[r->format == NVJ_ENCODE] += jf_now_ms() - r->done_at;
    pthread_mutex_unlock(&g_lock);
    return state;
}

/* ---- per context: the device's service, and a hybrid decoder of its own -- */
typedef struct nvj_ctx {
    nvj_service *service;
    nvj_handle hybrid;   /* the service's coder, made when a file first needs it */
    nvj_state hybrid_state;
    nvj_jstream jstream; /* for asking whether the engine takes a file */
    int jstream_failed;
    int hybrid_failed;
    nvj_enc_state enc_state;
    nvj_enc_params enc_params;
    int enc_failed;
} nvj_ctx;

static void ctx_free(jf_context *ctx)
{
    nvj_ctx *c = (nvj_ctx *)ctx->codec_state;
    jf_status st;
    int prev;
    if (!c)
        return;
    prev = jf_gpu_enter(ctx, &st);
    if (c->enc_params) nv.enc_params_destroy(c->enc_params);
    if (c->enc_state) nv.enc_state_destroy(c->enc_state);
    if (c->hybrid_state) nv.state_destroy(c->hybrid_state);
    if (c->jstream) nv.jstream_destroy(c->jstream);
    jf_gpu_leave(prev);
    if (c->service)
        service_release(c->service);
    free(c);
    ctx->codec_state = NULL;
    ctx->codec_state_free = NULL;
}

/* The context's nvJPEG state; NULL (with the reason) when it cannot have one. */
static nvj_ctx *ctx_state(jf_context *ctx)
{
    nvj_ctx *c;
    if (ctx->codec_state)
        return (nvj_ctx *)ctx->codec_state;
    pthread_once(&nv.once, load);
    if (!nv.lib) {
        jf_fail(JF_ERR_UNSUPPORTED, "%s", nv.why);
        return NULL;
    }
    if (ctx->backend != JF_BACKEND_CUDA || !ctx->gpu) {
        jf_fail(JF_ERR_UNSUPPORTED, "nvJPEG needs a CUDA context");
        return NULL;
    }
    if (!(c = (nvj_ctx *)calloc(1, sizeof *c))) {
        jf_fail(JF_ERR_NOMEM, "out of memory");
        return NULL;
    }
    pthread_mutex_lock(&g_lock);
    c->service = service_open(ctx->device);
    pthread_mutex_unlock(&g_lock);
    ctx->codec_state = c;
    ctx->codec_state_free = ctx_free;
    return c;
}

int jf_nvjpeg_wanted(jf_context *ctx)
{
    nvj_ctx *c;
    if (!ctx || ctx->codec == JF_CODEC_CPU || ctx->backend != JF_BACKEND_CUDA)
        return 0;
    if (ctx->codec == JF_CODEC_AUTO && ctx->memory != JF_MEMORY_COPY)
        return 0; /* integrated GPUs: no CUDA nvJPEG, and the CPU decodes into managed frames */
    if (!(c = ctx_state(ctx)))
        return 0;
    /* AUTO: only where a hardware engine can take work off the CPU (the
     * hybrid decoder keeps Huffman decoding on the CPU); while it starts,
     * the file is asked for and goes to the CPU */
    return ctx->codec == JF_CODEC_NVJPEG || (c->service && c->service->engine != NVJ_ENGINE_NONE);
}

/* The device's default-backend handle and this context's decoder state,
 * made on first use (the caller is on the context's device). */
static int own_handle(nvj_ctx *c)
{
    if (c->hybrid || c->hybrid_failed)
        return !c->hybrid_failed;
    c->hybrid = c->service ? service_coder(c->service) : NULL;
    if (!c->hybrid || nv.state_create(c->hybrid, &c->hybrid_state) != 0)
        c->hybrid_failed = 1;
    return !c->hybrid_failed;
}

/* nvJPEG's hybrid decoder, on the context's own stream. */
static int decode_hybrid(jf_context *ctx, nvj_ctx *c, const unsigned char *bytes, size_t size,
                         int format, const nvj_image *dst)
{
    if (!own_handle(c))
        return 9; /* "implementation not supported" */
    nvj_image out = *dst; /* nvJPEG's parameter is not const */
    return nv.decode(c->hybrid, c->hybrid_state, bytes, size, format, &out, jf_context_stream(ctx));
}

/* Does the engine take this file (baseline, one scan, not 4:1:1 ...)?
 * Asked by the job, so that parsing runs on many threads, not the
 * service's one. */
static int engine_takes(nvj_ctx *c, const unsigned char *bytes, size_t size)
{
    int supported = 1;
    if (!c->jstream && !c->jstream_failed &&
        nv.jstream_create(c->service->hw, &c->jstream) != 0)
        c->jstream_failed = 1, c->jstream = NULL;
    if (!c->jstream)
        return 0;
    if ((nv.jstream_parse_header ? nv.jstream_parse_header(c->service->hw, bytes, size, c->jstream)
                                 : nv.jstream_parse(c->service->hw, bytes, size, 0, 0, c->jstream)) != 0)
        return 0;
    return nv.batched_supported(c->service->hw, c->jstream, &supported) == 0 && supported == 0;
}

/* The decode, on the context's device: the engine if it takes the file,
 * else (not AUTO) the hybrid decoder; with `check`, libjpeg-turbo reads the
 * entropy-coded data too, on this thread while the engine works. */
static jf_status decode_on_device(jf_context *ctx, nvj_ctx *c, const unsigned char *bytes,
                                  size_t size, int width, int height, int format, int check,
                                  const nvj_image *dst, int *engine)
{
    jf_status st;
    int s, state = service_engine(c->service, 0);
    if (state == NVJ_ENGINE_STARTING) {
        if (ctx->codec == JF_CODEC_AUTO)
            return JF_ERR_UNSUPPORTED; /* the CPU decodes while the engine starts */
        if (check && (st = jf_jpeg_check_entropy(bytes, size)) != JF_OK)
            return st; /* checked meanwhile; damaged: the CPU decoder's message */
        check = 0;
        state = service_engine(c->service, 1);
    }
    if (state == NVJ_ENGINE_READY && engine_takes(c, bytes, size)) {
        /* AUTO shares the work: the engine takes files while few wait for
         * it, the job's CPU decodes the rest; NVJPEG sends everything to the
         * engine */
        nvj_request r;
        memset(&r, 0, sizeof r);
        r.bytes = bytes, r.size = size, r.format = format, r.dst = *dst;
        r.dst_width = width, r.dst_height = height;
        if (service_submit(c->service, &r, ctx->codec == JF_CODEC_AUTO ? NVJ_AUTO_WAITING : -1)) {
            jf_status checked = check ? jf_jpeg_check_entropy(bytes, size) : JF_OK;
            if (service_wait(c->service, &r) == 1 || checked != JF_OK)
                return checked; /* decoded, or damaged (the CPU decoder's message) */
        }
    }
    if (ctx->codec == JF_CODEC_AUTO)
        return JF_ERR_UNSUPPORTED; /* busy, or not the engine's: the CPU's */
    *engine = 2;
    if ((s = decode_hybrid(ctx, c, bytes, size, format, dst)) != 0)
        return jf_fail(JF_ERR_UNSUPPORTED, "nvJPEG: %s", status_name(s));
    /* the pixels are ready when this returns, and an asynchronous failure is
     * this file's */
    if ((st = jf_gpu_sync(ctx)) != JF_OK)
        return st;
    return check ? jf_jpeg_check_entropy(bytes, size) : JF_OK;
}

jf_status jf_nvjpeg_decode(jf_context *ctx, const unsigned char *bytes, size_t size, int width,
                           int height, int channels, int check, jf_image *out, int *engine)
{
    nvj_ctx *c = ctx_state(ctx);
    nvj_image dst;
    jf_status st;
    int prev;
    if (!c)
        return JF_ERR_UNSUPPORTED;
    if ((st = jf_context_frame(ctx, 2, width, height, channels, out)) != JF_OK)
        return st;
    memset(&dst, 0, sizeof dst);
    dst.channel[0] = out->data;
    dst.pitch[0] = out->stride;
    *engine = 1;
    prev = jf_gpu_enter(ctx, &st);
    if (st != JF_OK)
        return st;
    st = decode_on_device(ctx, c, bytes, size, width, height,
                          channels == 1 ? NVJ_OUTPUT_Y : NVJ_OUTPUT_RGBI, check, &dst, engine);
    jf_gpu_leave(prev);
    if (st != JF_OK)
        memset(out, 0, sizeof *out);
    return st;
}

/* ---- encoding on the GPU --------------------------------------------------- */

/* nvJPEG's chroma subsampling for the picture: the input's, else (from a
 * PNG) the CPU encoder's rule: 4:4:4 at quality >= 90, else 4:2:0. */
static int sampling(const jf_picture *pic, int quality)
{
    if (pic->color.channels == 1)
        return NVJ_CSS_GRAY;
    switch (pic->jpeg_h_samp * 10 + pic->jpeg_v_samp) {
    case 11: return NVJ_CSS_444;
    case 21: return NVJ_CSS_422;
    case 22: return NVJ_CSS_420;
    case 12: return NVJ_CSS_440;
    case 41: return NVJ_CSS_411;
    case 42: return NVJ_CSS_410;
    default: return quality >= 90 ? NVJ_CSS_444 : NVJ_CSS_420;
    }
}

typedef struct growing {
    unsigned char *data;
    size_t len, cap;
    int failed;
} growing;

static void append(growing *g, const void *p, size_t n)
{
    if (g->failed)
        return;
    if (g->len + n > g->cap) {
        size_t cap = (g->len + n) * 2;
        unsigned char *grown = (unsigned char *)realloc(g->data, cap);
        if (!grown) {
            g->failed = 1;
            return;
        }
        g->data = grown;
        g->cap = cap;
    }
    memcpy(g->data + g->len, p, n);
    g->len += n;
}

static void put_segment(void *user, int marker, const unsigned char *data, unsigned int len)
{
    unsigned char head[4] = {0xFF, (unsigned char)marker, (unsigned char)((len + 2) >> 8),
                             (unsigned char)((len + 2) & 0xFF)};
    append((growing *)user, head, 4);
    append((growing *)user, data, len);
}

/* The encode itself: by the device's service where it runs (after this
 * context's stream has finished writing the image), else with this
 * context's own encoder on its stream. */
static jf_status encode_bits(jf_context *ctx, nvj_ctx *c, nvj_request *r)
{
    void *stream = jf_context_stream(ctx);
    jf_status st;
    int prev;
    if (c->service && c->service->enc_running) {
        if ((st = jf_gpu_sync(ctx)) != JF_OK)
            return st;
        service_submit(c->service, r, -1);
        service_wait(c->service, r);
    } else {
        prev = jf_gpu_enter(ctx, &st);
        if (st != JF_OK)
            return st;
        if (!c->enc_state && !c->enc_failed &&
            !make_encoder(own_handle(c) ? c->hybrid : NULL, &c->enc_state, &c->enc_params, stream))
            c->enc_failed = 1;
        r->error = JF_OK;
        r->status = c->enc_failed ? 9 : encode_image(ctx, c->hybrid, c->enc_state, c->enc_params,
                                                     r, &r->bits, &r->len, &r->error);
        jf_gpu_leave(prev);
    }
    if (r->error == JF_ERR_NOMEM)
        return jf_fail(JF_ERR_NOMEM, "out of memory for %zu bytes of JPEG", r->len);
    if (r->error != JF_OK)
        return r->error;
    if (r->status != 0 || r->len < 4 || r->bits[0] != 0xFF || r->bits[1] != 0xD8) {
        free(r->bits);
        r->bits = NULL;
        return jf_fail(JF_ERR_ENCODE, "nvJPEG encoder: %s", status_name(r->status));
    }
    return JF_OK;
}

jf_status jf_nvjpeg_encode(jf_context *ctx, const jf_picture *pic, int quality,
                           unsigned char **out, size_t *out_size)
{
    const jf_image *img = &pic->color;
    nvj_ctx *c;
    nvj_request r;
    growing g = {0};
    unsigned char *bits;
    size_t len, head;
    jf_status st;
    if (!ctx || ctx->codec == JF_CODEC_CPU || !(c = ctx_state(ctx)))
        return JF_ERR_UNSUPPORTED;
    if (!nv.can_encode || c->enc_failed || img->location != JF_LOC_DEVICE)
        return jf_fail(JF_ERR_UNSUPPORTED, "nvJPEG encoder not available for this image");
    memset(&r, 0, sizeof r);
    r.format = NVJ_ENCODE;
    r.dst.channel[0] = img->data;
    r.dst.pitch[0] = img->stride;
    r.width = img->width, r.height = img->height, r.channels = img->channels;
    r.css = sampling(pic, quality);
    r.quality = quality;
    if ((st = encode_bits(ctx, c, &r)) != JF_OK)
        return st;
    bits = r.bits, len = r.len;
    /* the metadata after SOI and the encoder's JFIF segment, as libjpeg
     * writes it */
    head = 2;
    if (bits[2] == 0xFF && bits[3] == 0xE0 && len > 6)
        head += 2 + (((size_t)bits[4] << 8) | bits[5]);
    append(&g, bits, head < len ? head : len);
    jf_jpeg_metadata(pic, put_segment, &g);
    if (head < len)
        append(&g, bits + head, len - head);
    free(bits);
    if (g.failed) {
        free(g.data);
        return jf_fail(JF_ERR_NOMEM, "out of memory for the JPEG file");
    }
    *out = g.data;
    *out_size = g.len;
    return JF_OK;
}

jf_status jf_codec_probe(jf_codec codec, int device, char *detail, size_t detail_size)
{
    jf_context_options o = jf_context_defaults();
    jf_context *ctx = NULL;
    nvj_ctx *c;
    jf_status st;
    unsigned engines = 0, cores = 0;
    int engine;
    if (detail && detail_size)
        detail[0] = '\0';
    if ((unsigned)codec >= JF_CODEC_COUNT)
        return jf_fail(JF_ERR_ARG, "jf_codec_probe: codec %d", (int)codec);
    if (codec == JF_CODEC_CPU || codec == JF_CODEC_AUTO) {
        if (detail && detail_size)
            snprintf(detail, detail_size, "libjpeg-turbo and libpng on the CPU");
        if (codec == JF_CODEC_CPU)
            return JF_OK;
    }
    pthread_once(&nv.once, load);
    if (!nv.lib)
        return codec == JF_CODEC_AUTO ? JF_OK : jf_fail(JF_ERR_UNSUPPORTED, "%s", nv.why);
    o.backend = JF_BACKEND_CUDA;
    o.device = device;
    o.codec = JF_CODEC_NVJPEG;
    if ((st = jf_context_create(&o, &ctx)) != JF_OK)
        return codec == JF_CODEC_AUTO ? JF_OK : st;
    c = ctx_state(ctx);
    /* whether the device has an engine is known once it has started: waited
     * for only when the words are asked for */
    engine = c ? service_engine(c->service, detail && detail_size) : NVJ_ENGINE_NONE;
    if (!c)
        st = JF_ERR_UNSUPPORTED; /* the reason is recorded */
    else if (detail && detail_size)
        snprintf(detail, detail_size, "nvJPEG %d.%d.%d (%s), %s", nv.version[0], nv.version[1],
                 nv.version[2], nv.name, engine == NVJ_ENGINE_READY ? "hardware decoder"
                 : "hybrid decoder (no hardware JPEG engine on this device)");
    /* asked only for the words: the question takes about a quarter of a
     * second of nvJPEG's (docs/kernels/studies.md, "start-up") */
    if (engine == NVJ_ENGINE_READY && detail && detail_size && nv.hw_info) {
        jf_status entered;
        int prev = jf_gpu_enter(ctx, &entered);
        if (entered == JF_OK && nv.hw_info(c->service->hw, &engines, &cores) != 0)
            engines = 0;
        jf_gpu_leave(prev);
    }
    if (engines) {
        size_t n = strlen(detail);
        snprintf(detail + n, detail_size - n, ": %u engine%s x %u core%s", engines,
                 engines == 1 ? "" : "s", cores, cores == 1 ? "" : "s");
    }
    /* the service stays for the next context on the device, which a probe
     * usually precedes (starting an engine costs about half a second), and
     * closes with that context */
    if (engine != NVJ_ENGINE_NONE) {
        pthread_mutex_lock(&g_lock);
        if (!c->service->kept) {
            c->service->kept = 1;
            c->service->users++;
        }
        pthread_mutex_unlock(&g_lock);
    }
    jf_context_destroy(ctx);
    return codec == JF_CODEC_AUTO ? JF_OK : st;
}

void jf_nvjpeg_keep(int keep)
{
    int d;
    pthread_mutex_lock(&g_lock);
    g_keep = keep;
    for (d = 0; !keep && d < NVJ_MAX_DEVICES; d++) {
        nvj_service *s = &g_services[d];
        if (s->kept) { /* a probe's reference that no context took over */
            s->kept = 0;
            s->users--;
        }
        if (s->open && s->users == 0)
            service_close(s);
    }
    pthread_mutex_unlock(&g_lock);
}

int jf_nvjpeg_running(int device)
{
    int running;
    if (device < 0 || device >= NVJ_MAX_DEVICES)
        return 0;
    pthread_mutex_lock(&g_lock);
    running = g_services[device].open && g_services[device].engine != NVJ_ENGINE_NONE;
    pthread_mutex_unlock(&g_lock);
    return running;
}

static double per(double sum, long count)
{
    return count ? sum / (double)count : 0.0;
}

int jf_nvjpeg_tally(int device, char *out, size_t size)
{
    nvj_tally t;
    double first;
    if (device < 0 || device >= NVJ_MAX_DEVICES)
        return 0;
    pthread_mutex_lock(&g_lock);
    t = g_tally[device];
    first = g_first_opened;
    if (g_services[device].open)
        t.open_ms += jf_now_ms() - t.opened_at;
    pthread_mutex_unlock(&g_lock);
    if (t.decoded == 0 && t.encoded == 0)
        return 0;
    snprintf(out, size,
             "engine: %ld files in %ld batches (%.1f a batch), opened %.0f ms after the "
             "process's first and up %.0f ms later (its contexts made in %.0f), its thread busy "
             "%.0f of %.0f ms "
             "(%.0f in nvJPEG's calls), a file queued %.2f ms, in its batch %.2f, its job woken "
             "%.2f later; encoders: %ld images, their threads busy %.0f ms, an image queued %.2f "
             "ms, encoding %.2f, its job woken %.2f later",
             t.decoded, t.batches, per((double)t.decoded, t.batches), t.opened_at - first,
             t.ready_ms, t.contexts_ms, t.decode_ms,
             t.open_ms, t.decode_calls_ms, per(t.queued_ms[0], t.decoded),
             per(t.served_ms[0], t.decoded), per(t.woken_ms[0], t.decoded), t.encoded,
             t.encode_ms, per(t.queued_ms[1], t.encoded), per(t.served_ms[1], t.encoded),
             per(t.woken_ms[1], t.encoded));
    return 1;
}

#else /* no CUDA: the CPU decoders only */

int jf_nvjpeg_tally(int device, char *out, size_t size)
{
    (void)device, (void)out, (void)size;
    return 0;
}

void jf_nvjpeg_keep(int keep)
{
    (void)keep;
}

int jf_nvjpeg_running(int device)
{
    (void)device;
    return 0;
}

int jf_nvjpeg_wanted(jf_context *ctx)
{
    (void)ctx;
    return 0;
}

jf_status jf_nvjpeg_decode(jf_context *ctx, const unsigned char *bytes, size_t size, int width,
                           int height, int channels, int check, jf_image *out, int *engine)
{
    (void)ctx, (void)bytes, (void)size, (void)width, (void)height, (void)channels, (void)check;
    (void)out;
    *engine = 0;
    return jf_fail(JF_ERR_UNSUPPORTED, "nvJPEG needs a CUDA build");
}

jf_status jf_nvjpeg_encode(jf_context *ctx, const jf_picture *pic, int quality,
                           unsigned char **out, size_t *out_size)
{
    (void)ctx, (void)pic, (void)quality, (void)out, (void)out_size;
    return jf_fail(JF_ERR_UNSUPPORTED, "nvJPEG needs a CUDA build");
}

jf_status jf_codec_probe(jf_codec codec, int device, char *detail, size_t detail_size)
{
    (void)device;
    if (detail && detail_size)
        snprintf(detail, detail_size, "libjpeg-turbo and libpng on the CPU");
    if (codec == JF_CODEC_NVJPEG)
        return jf_fail(JF_ERR_UNSUPPORTED, "nvJPEG needs a CUDA build (this one has none)");
    return (unsigned)codec < JF_CODEC_COUNT ? JF_OK
                                            : jf_fail(JF_ERR_ARG, "jf_codec_probe: codec %d", (int)codec);
}
#endif

void jf_codec_keep(int keep) { jf_nvjpeg_keep(keep != 0); }
