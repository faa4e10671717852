/*
 * Where the time of nvJPEG's hardware JPEG path goes on this GPU: the host
 * side of parsing, the batched hardware decode at several batch sizes, and
 * the GPU encoder with several threads.  Built and run on the GPU machine
 * against the real nvjpeg.h (scripts/gpu/nvjpeg-probe.sh); it is a study for
 * choosing the batch pipeline's sizes, not part of the tool.  Its last
 * part asks what slows the engine inside the tool: the same batches with
 * two decoder states in flight, with CPU threads busy beside it (the
 * jobs' checks) and with GPU encoder threads beside it (the encoder).
 *
 *   [PROBE_BESIDE=1] nvjpeg_probe FILE.jpg...
 *       (all of one size, 8-bit YCbCr, baseline; PROBE_BESIDE adds the last part)
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime.h>
#include <nvjpeg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define CHECK(call)                                                                            \
    do {                                                                                       \
        int status_ = (int)(call);                                                             \
        if (status_ != 0) {                                                                    \
            fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, status_);     \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

/* CPU seconds of the whole process, in the kernel [0] and in user space [1] */
static void cpu_times(double t[2])
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    t[0] = u.ru_stime.tv_sec + u.ru_stime.tv_usec * 1e-6;
    t[1] = u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct file {
    unsigned char *data;
    size_t size;
} file;

static file *files;
static int nfiles, width, height;
static unsigned char **images; /* RGBI on the device, one per file */

static void load(int argc, char **argv)
{
    int i;
    nfiles = argc - 1;
    files = calloc((size_t)nfiles, sizeof *files);
    for (i = 0; i < nfiles; i++) {
        FILE *f = fopen(argv[i + 1], "rb");
        long n;
        if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0) {
            fprintf(stderr, "%s: cannot read\n", argv[i + 1]);
            exit(1);
        }
        rewind(f);
        files[i].size = (size_t)n;
        files[i].data = malloc(files[i].size);
        if (fread(files[i].data, 1, files[i].size, f) != files[i].size)
            exit(1);
        fclose(f);
    }
}

static void parse_times(nvjpegHandle_t h)
{
    nvjpegJpegStream_t js;
    double t0, full = 0, header = 0;
    int i, supported, unsupported = 0;
    unsigned w, hh;
    CHECK(nvjpegJpegStreamCreate(h, &js));
    for (i = 0; i < nfiles; i++) {
        t0 = now();
        CHECK(nvjpegJpegStreamParseHeader(h, files[i].data, files[i].size, js));
        header += now() - t0;
        t0 = now();
        CHECK(nvjpegJpegStreamParse(h, files[i].data, files[i].size, 0, 0, js));
        CHECK(nvjpegDecodeBatchedSupported(h, js, &supported));
        full += now() - t0;
        unsupported += supported != 0;
    }
    CHECK(nvjpegJpegStreamGetFrameDimensions(js, &w, &hh));
    width = (int)w, height = (int)hh;
    printf("parse, one thread: header %.3f ms/img, whole stream + supported %.3f ms/img; "
           "%d of %d not for the engine; %dx%d\n",
           1e3 * header / nfiles, 1e3 * full / nfiles, unsupported, nfiles, width, height);
    CHECK(nvjpegJpegStreamDestroy(js));
}

static void decode_batched(nvjpegHandle_t h, int batch, int prealloc)
{
    nvjpegJpegState_t st;
    cudaStream_t s;
    const unsigned char **data = malloc(sizeof *data * (size_t)batch);
    size_t *sizes = malloc(sizeof *sizes * (size_t)batch);
    nvjpegImage_t *dst = calloc((size_t)batch, sizeof *dst);
    double t0, call = 0, wait = 0, total;
    int i, b, rep, n = 0;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(nvjpegJpegStateCreate(h, &st));
    if (prealloc)
        CHECK(nvjpegDecodeBatchedPreAllocate(h, st, batch, width, height, NVJPEG_CSS_420,
                                             NVJPEG_OUTPUT_RGBI));
    CHECK(nvjpegDecodeBatchedInitialize(h, st, batch, 1, NVJPEG_OUTPUT_RGBI));
    for (rep = 0; rep < 3; rep++) { /* the first round warms up */
        double r0 = now(), c = 0, w = 0, cpu0[2], cpu1[2];
        cpu_times(cpu0);
        n = 0;
        for (i = 0; i + batch <= nfiles; i += batch) {
            for (b = 0; b < batch; b++) {
                data[b] = files[i + b].data;
                sizes[b] = files[i + b].size;
                dst[b].channel[0] = images[i + b];
                dst[b].pitch[0] = (size_t)width * 3;
            }
            t0 = now();
            CHECK(nvjpegDecodeBatched(h, st, data, sizes, dst, s));
            c += now() - t0;
            t0 = now();
            CHECK(cudaStreamSynchronize(s));
            w += now() - t0;
            n += batch;
        }
        total = now() - r0;
        cpu_times(cpu1);
        if (rep > 0) {
            call = c, wait = w;
            printf("hw decode batch %3d%s: %7.1f img/s; host in the call %.3f ms/img, waiting "
                   "%.3f ms/img; CPU %.3f ms/img in the kernel, %.3f in user space\n", batch,
                   prealloc ? " (preallocated)" : "", n / total, 1e3 * call / n, 1e3 * wait / n,
                   1e3 * (cpu1[0] - cpu0[0]) / n, 1e3 * (cpu1[1] - cpu0[1]) / n);
        }
    }
    CHECK(nvjpegJpegStateDestroy(st));
    CHECK(cudaStreamDestroy(s));
    free(data), free(sizes), free(dst);
}

/* encoders: each thread its own state, parameters and stream, one handle */
typedef struct enc_job {
    nvjpegHandle_t h;
    int first, step;
    double busy;
    size_t bytes;
} enc_job;

static void *encode_thread(void *arg)
{
    enc_job *j = arg;
    nvjpegEncoderState_t es;
    nvjpegEncoderParams_t ep;
    cudaStream_t s;
    unsigned char *out = malloc((size_t)width * height * 3);
    int i;
    double t0 = now();
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(nvjpegEncoderStateCreate(j->h, &es, s));
    CHECK(nvjpegEncoderParamsCreate(j->h, &ep, s));
    CHECK(nvjpegEncoderParamsSetQuality(ep, 92, s));
    CHECK(nvjpegEncoderParamsSetSamplingFactors(ep, NVJPEG_CSS_420, s));
    for (i = j->first; i < nfiles; i += j->step) {
        nvjpegImage_t src;
        size_t len = 0;
        memset(&src, 0, sizeof src);
        src.channel[0] = images[i];
        src.pitch[0] = (size_t)width * 3;
        CHECK(nvjpegEncodeImage(j->h, es, ep, &src, NVJPEG_INPUT_RGBI, width, height, s));
        CHECK(nvjpegEncodeRetrieveBitstream(j->h, es, NULL, &len, s));
        CHECK(cudaStreamSynchronize(s));
        CHECK(nvjpegEncodeRetrieveBitstream(j->h, es, out, &len, s));
        CHECK(cudaStreamSynchronize(s));
        j->bytes += len;
    }
    j->busy = now() - t0;
    nvjpegEncoderParamsDestroy(ep);
    nvjpegEncoderStateDestroy(es);
    cudaStreamDestroy(s);
    free(out);
    return NULL;
}

static void encode(nvjpegHandle_t h, int threads)
{
    pthread_t t[64];
    enc_job j[64];
    double t0;
    size_t bytes = 0;
    int i, rep;
    for (rep = 0; rep < 2; rep++) {
        double cpu0[2], cpu1[2];
        cpu_times(cpu0);
        t0 = now();
        for (i = 0; i < threads; i++) {
            memset(&j[i], 0, sizeof j[i]);
            j[i].h = h, j[i].first = i, j[i].step = threads;
            pthread_create(&t[i], NULL, encode_thread, &j[i]);
        }
        bytes = 0;
        for (i = 0; i < threads; i++) {
            pthread_join(t[i], NULL);
            bytes += j[i].bytes;
        }
        cpu_times(cpu1);
        if (rep > 0)
            printf("gpu encode q92 4:2:0, %2d threads: %7.1f img/s (%.0f KB/img); CPU %.3f ms/img "
                   "in the kernel, %.3f in user space\n", threads, nfiles / (now() - t0),
                   bytes / 1024.0 / nfiles, 1e3 * (cpu1[0] - cpu0[0]) / nfiles,
                   1e3 * (cpu1[1] - cpu0[1]) / nfiles);
    }
}

/* What runs beside the engine: CPU threads busy with arithmetic (as the
 * jobs' damaged-data checks keep the cores), or GPU encoder threads
 * encoding the decoded images over and over (as the encoder's thread). */
static volatile int stop_beside;
static long encoded_beside; /* images the encoder threads finished */

static void *spin_thread(void *arg)
{
    volatile unsigned x = 1;
    (void)arg;
    while (!__atomic_load_n(&stop_beside, __ATOMIC_RELAXED))
        for (int i = 0; i < 100000; i++)
            x = x * 1664525u + 1013904223u;
    return NULL;
}

static void *encode_loop(void *arg)
{
    nvjpegHandle_t h = (nvjpegHandle_t)arg;
    nvjpegEncoderState_t es;
    nvjpegEncoderParams_t ep;
    cudaStream_t s;
    unsigned char *out = malloc((size_t)width * height * 3);
    int i = 0;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(nvjpegEncoderStateCreate(h, &es, s));
    CHECK(nvjpegEncoderParamsCreate(h, &ep, s));
    CHECK(nvjpegEncoderParamsSetQuality(ep, 92, s));
    CHECK(nvjpegEncoderParamsSetSamplingFactors(ep, NVJPEG_CSS_420, s));
    while (!__atomic_load_n(&stop_beside, __ATOMIC_RELAXED)) {
        nvjpegImage_t src;
        size_t len = 0;
        memset(&src, 0, sizeof src);
        src.channel[0] = images[i];
        src.pitch[0] = (size_t)width * 3;
        CHECK(nvjpegEncodeImage(h, es, ep, &src, NVJPEG_INPUT_RGBI, width, height, s));
        CHECK(nvjpegEncodeRetrieveBitstream(h, es, NULL, &len, s));
        CHECK(cudaStreamSynchronize(s));
        CHECK(nvjpegEncodeRetrieveBitstream(h, es, out, &len, s));
        CHECK(cudaStreamSynchronize(s));
        i = (i + 1) % nfiles;
        __atomic_add_fetch(&encoded_beside, 1, __ATOMIC_RELAXED);
    }
    nvjpegEncoderParamsDestroy(ep);
    nvjpegEncoderStateDestroy(es);
    cudaStreamDestroy(s);
    free(out);
    return NULL;
}

/* The batched decode of every file, `nstates` batches in flight (each its
 * own state and stream, one thread submitting), with `spinners` CPU
 * threads and `encoders` encoder threads running beside it. */
static void decode_beside(nvjpegHandle_t hw, nvjpegHandle_t coder, int batch, int nstates,
                          int spinners, int encoders)
{
    nvjpegJpegState_t st[4];
    cudaStream_t s[4];
    pthread_t beside[64];
    const unsigned char **data = malloc(sizeof *data * (size_t)batch);
    size_t *sizes = malloc(sizeof *sizes * (size_t)batch);
    nvjpegImage_t *dst = calloc((size_t)batch, sizeof *dst);
    double best = 0, call = 0, since = 0;
    long encoded_since = 0;
    int i, b, k, rep, n, nb = 0;
    for (k = 0; k < nstates; k++) {
        CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
        CHECK(nvjpegJpegStateCreate(hw, &st[k]));
        CHECK(nvjpegDecodeBatchedInitialize(hw, st[k], batch, 1, NVJPEG_OUTPUT_RGBI));
    }
    __atomic_store_n(&stop_beside, 0, __ATOMIC_RELAXED);
    for (i = 0; i < spinners; i++)
        pthread_create(&beside[nb++], NULL, spin_thread, NULL);
    for (i = 0; i < encoders; i++)
        pthread_create(&beside[nb++], NULL, encode_loop, coder);
    for (rep = 0; rep < 4; rep++) { /* the first round warms up; the best of three */
        double r0 = now(), c = 0, rate;
        if (rep == 1)
            since = r0, encoded_since = __atomic_load_n(&encoded_beside, __ATOMIC_RELAXED);
        n = 0;
        for (i = 0, k = 0; i + batch <= nfiles; i += batch, k++) {
            const int slot = k % nstates;
            if (k >= nstates)
                CHECK(cudaStreamSynchronize(s[slot]));
            for (b = 0; b < batch; b++) {
                data[b] = files[i + b].data;
                sizes[b] = files[i + b].size;
                dst[b].channel[0] = images[i + b];
                dst[b].pitch[0] = (size_t)width * 3;
            }
            const double t0 = now();
            CHECK(nvjpegDecodeBatched(hw, st[slot], data, sizes, dst, s[slot]));
            c += now() - t0;
            n += batch;
        }
        for (k = 0; k < nstates; k++)
            CHECK(cudaStreamSynchronize(s[k]));
        rate = n / (now() - r0);
        if (rep > 0 && rate > best)
            best = rate, call = c / n;
    }
    const double encode_rate =
        (__atomic_load_n(&encoded_beside, __ATOMIC_RELAXED) - encoded_since) / (now() - since);
    __atomic_store_n(&stop_beside, 1, __ATOMIC_RELAXED);
    for (i = 0; i < nb; i++)
        pthread_join(beside[i], NULL);
    printf("beside: batch %3d, %d state(s) in flight, %2d busy CPU threads, %d encoder threads: "
           "%7.1f img/s; host in the call %.3f ms/img; encoded meanwhile %.1f img/s\n",
           batch, nstates, spinners, encoders, best, 1e3 * call, encode_rate);
    for (k = 0; k < nstates; k++) {
        CHECK(nvjpegJpegStateDestroy(st[k]));
        CHECK(cudaStreamDestroy(s[k]));
    }
    free(data), free(sizes), free(dst);
}

int main(int argc, char **argv)
{
    nvjpegHandle_t hw, hybrid;
    unsigned engines = 0, cores = 0;
    int i, b;
    static const int batches[] = {1, 8, 16, 32, 64, 128};
    static const int threads[] = {1, 2, 4, 8, 16};
    if (argc < 2) {
        fprintf(stderr, "usage: nvjpeg_probe FILE.jpg...\n");
        return 2;
    }
    load(argc, argv);
    CHECK(cudaFree(0));
    CHECK(nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, NULL, NULL, 0, &hw));
    CHECK(nvjpegGetHardwareDecoderInfo(hw, &engines, &cores));
    printf("%d files; hardware decoder: %u engines x %u cores\n", nfiles, engines, cores);
    parse_times(hw);
    images = malloc(sizeof *images * (size_t)nfiles);
    for (i = 0; i < nfiles; i++)
        CHECK(cudaMalloc((void **)&images[i], (size_t)width * height * 3));
    for (b = 0; b < (int)(sizeof batches / sizeof batches[0]); b++)
        if (batches[b] <= nfiles) {
            decode_batched(hw, batches[b], 0);
            decode_batched(hw, batches[b], 1);
        }
    CHECK(nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, NULL, NULL, 0, &hybrid));
    for (i = 0; i < (int)(sizeof threads / sizeof threads[0]); i++)
        encode(hybrid, threads[i]);
    if (getenv("PROBE_BESIDE")) {
        static const int cases[][4] = { /* batch, states, busy CPU threads, encoders */
            {8, 1, 0, 0},  {8, 2, 0, 0},  {16, 1, 0, 0},  {16, 2, 0, 0},  {16, 3, 0, 0},
            {8, 1, 15, 0}, {8, 1, 16, 0}, {8, 1, 32, 0},  {8, 2, 16, 0},  {16, 1, 16, 0},
            {8, 1, 0, 1},  {8, 1, 0, 2},  {8, 2, 0, 1},   {16, 1, 0, 1},  {16, 1, 0, 2},
            {16, 1, 0, 4}, {32, 1, 0, 2}, {8, 1, 15, 1},  {8, 2, 15, 1},  {16, 2, 15, 1},
            {8, 1, 0, 0},
        };
        for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
            decode_beside(hw, hybrid, cases[i][0], cases[i][1], cases[i][2], cases[i][3]);
    }
    return 0;
}
