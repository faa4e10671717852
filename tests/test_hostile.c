/*
 * Hostile files and folders.  Each case is written here (with zlib and
 * libjpeg, no binary fixtures) and given to `jetfilter denoise` in a child
 * process under a memory cap (512 MB of address space; in sanitizer builds,
 * where the shadow memory needs more, the peak resident size is checked
 * instead) and a time cap (5 s; 20 s under sanitizers).  Every case must end
 * with a clean refusal that names the file (exit 1) or a correct output
 * (exit 0): no crash, no kill, no case over either cap.
 */
#define _DEFAULT_SOURCE
#include "common.h"
#include "io/io.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jpeglib.h>
#include <zlib.h>

/* Under an emulator (qemu for the aarch64 check) time runs slower:
 * JF_TIME_SCALE stretches the time cap, never the memory cap. */
#ifdef JF_SANITIZED
#define TIME_CAP_BASE 20.0
#define RSS_CAP_KB (1024L * 1024L)
#else
#define TIME_CAP_BASE 5.0
#define RSS_CAP_KB (512L * 1024L)
#endif
#define TIME_CAP_S (TIME_CAP_BASE * time_scale())

static double time_scale(void)
{
    const char *s = getenv("JF_TIME_SCALE");
    double v = s ? atof(s) : 1.0;
    return v >= 1.0 ? v : 1.0;
}

static char g_dir[256];

/* ---- writing files ------------------------------------------------------------- */

typedef struct buf {
    unsigned char *d;
    size_t n, cap;
} buf;

static void put(buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n)
            cap *= 2;
        b->d = (unsigned char *)realloc(b->d, cap);
        assert_non_null(b->d);
        b->cap = cap;
    }
    memcpy(b->d + b->n, p, n);
    b->n += n;
}

static void put32(buf *b, uint32_t v)
{
    unsigned char x[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 8), (unsigned char)v};
    put(b, x, 4);
}

/* A chunk with its true length and CRC. */
static void chunk(buf *b, const char *type, const void *data, size_t n)
{
    uLong crc = crc32(0, (const Bytef *)type, 4);
    put32(b, (uint32_t)n);
    put(b, type, 4);
    if (n && data) { /* crc32(crc, NULL, 0) would return zlib's initial value, not crc */
        put(b, data, n);
        crc = crc32(crc, (const Bytef *)data, (uInt)n);
    }
    put32(b, (uint32_t)crc);
}

/* A chunk header that claims `claim` bytes, followed by only `have` bytes. */
static void lying_chunk(buf *b, const char *type, uint32_t claim, size_t have)
{
    unsigned char zero[64] = {0};
    put32(b, claim);
    put(b, type, 4);
    while (have > 0) {
        size_t k = have < sizeof zero ? have : sizeof zero;
        put(b, zero, k);
        have -= k;
    }
}

static void png_start(buf *b, uint32_t w, uint32_t h)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    unsigned char ihdr[13];
    put(b, sig, 8);
    ihdr[0] = (unsigned char)(w >> 24); ihdr[1] = (unsigned char)(w >> 16);
    ihdr[2] = (unsigned char)(w >> 8); ihdr[3] = (unsigned char)w;
    ihdr[4] = (unsigned char)(h >> 24); ihdr[5] = (unsigned char)(h >> 16);
    ihdr[6] = (unsigned char)(h >> 8); ihdr[7] = (unsigned char)h;
    ihdr[8] = 8;  /* depth */
    ihdr[9] = 0;  /* grey */
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    chunk(b, "IHDR", ihdr, 13);
}

/* zlib of `n` bytes of `byte` (streamed: n may be far larger than memory). */
static void deflated(buf *out, uint64_t n, int byte)
{
    static unsigned char in[1 << 16], o[1 << 16];
    z_stream z;
    int flush;
    memset(&z, 0, sizeof z);
    memset(in, byte, sizeof in);
    assert_int_equal(deflateInit(&z, 9), Z_OK);
    do {
        size_t k = n < sizeof in ? (size_t)n : sizeof in;
        n -= k;
        flush = n == 0 ? Z_FINISH : Z_NO_FLUSH;
        z.next_in = in;
        z.avail_in = (uInt)k;
        do {
            z.next_out = o;
            z.avail_out = sizeof o;
            deflate(&z, flush);
            put(out, o, sizeof o - z.avail_out);
        } while (z.avail_out == 0);
    } while (flush != Z_FINISH);
    deflateEnd(&z);
}

/* The image data of a w x h grey image (filter byte 0 on every row). */
static void idat(buf *b, uint32_t w, uint32_t h)
{
    buf raw = {0}, z = {0};
    unsigned char row[4097];
    uint32_t y, x;
    for (y = 0; y < h; y++) {
        row[0] = 0;
        for (x = 0; x < w && x < 4096; x++)
            row[x + 1] = (unsigned char)(x * 7 + y * 3);
        put(&raw, row, (size_t)w + 1);
    }
    z.cap = compressBound((uLong)raw.n);
    z.d = (unsigned char *)malloc(z.cap);
    assert_non_null(z.d);
    {
        uLongf zn = (uLongf)z.cap;
        assert_int_equal(compress(z.d, &zn, raw.d, (uLong)raw.n), Z_OK);
        z.n = zn;
    }
    chunk(b, "IDAT", z.d, z.n);
    free(raw.d);
    free(z.d);
}

static void png_end(buf *b) { chunk(b, "IEND", NULL, 0); }

/* A zTXt (or iCCP) chunk whose payload inflates to `n` bytes. */
static void bomb_chunk(buf *b, const char *type, uint64_t n)
{
    buf c = {0};
    put(&c, type[0] == 'i' ? "ICC\0\0" : "Comment\0\0", type[0] == 'i' ? 5 : 9);
    deflated(&c, n, 'A');
    chunk(b, type, c.d, c.n);
    free(c.d);
}

static void save(const char *name, const buf *b)
{
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/in/%s", g_dir, name);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b->d, 1, b->n, f), b->n);
    fclose(f);
}

/* A small real JPEG (progressive or not) through libjpeg, into b. */
static void jpeg_file(buf *b, int w, int h, int progressive)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    unsigned char *mem = NULL, *row;
    unsigned long n = 0;
    int y, x;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &mem, &n);
    c.image_width = (JDIMENSION)w;
    c.image_height = (JDIMENSION)h;
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    if (progressive)
        jpeg_simple_progression(&c);
    jpeg_start_compress(&c, TRUE);
    row = (unsigned char *)malloc((size_t)w * 3);
    for (y = 0; y < h; y++) {
        for (x = 0; x < w * 3; x++)
            row[x] = (unsigned char)(x * 5 + y * 11);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    free(row);
    put(b, mem, n);
    free(mem);
}

/* Offset of the first marker `m` in a JPEG, or 0. */
static size_t find_marker(const buf *b, int m)
{
    size_t i;
    for (i = 2; i + 1 < b->n; i++)
        if (b->d[i] == 0xFF && b->d[i + 1] == m)
            return i;
    return 0;
}

/* ---- running jetfilter under the caps --------------------------------------------- */

typedef struct outcome {
    int exited, code, signal;
    double seconds;
    long maxrss_kb;
    char out[4096];
} outcome;

static outcome run_capped(const char *args)
{
    char cmd[2048], log[512];
    outcome r;
    struct rusage ru;
    struct timespec t0, t1;
    int status = 0;
    pid_t pid;
    memset(&r, 0, sizeof r);
    snprintf(log, sizeof log, "%s/.log", g_dir);
    snprintf(cmd, sizeof cmd, "cd %s && exec %s %s > %s 2>&1 < /dev/null", g_dir, JF_CLI_PATH, args, log);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
#ifndef JF_SANITIZED
        struct rlimit as = {512ul << 20, 512ul << 20};
        setrlimit(RLIMIT_AS, &as);
#endif
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    for (;;) {
        pid_t w = wait4(pid, &status, WNOHANG, &ru);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        r.seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        if (w == pid)
            break;
        if (r.seconds > TIME_CAP_S) {
            kill(pid, SIGKILL);
            wait4(pid, &status, 0, &ru);
            break;
        }
        usleep(2000);
    }
    r.exited = WIFEXITED(status);
    r.code = r.exited ? WEXITSTATUS(status) : -1;
    r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    r.maxrss_kb = ru.ru_maxrss;
    {
        FILE *f = fopen(log, "r");
        if (f) {
            size_t n = fread(r.out, 1, sizeof r.out - 1, f);
            r.out[n] = '\0';
            fclose(f);
        }
        unlink(log);
    }
    return r;
}

/* `file` (under in/) must be refused cleanly, the message naming it and,
 * when given, containing `why`; or processed (`ok`). */
static void expect(const char *file, int ok, const char *why)
{
    char args[1024];
    outcome r;
    snprintf(args, sizeof args, "denoise in/%s -o out/ --backend cpu -k 3", file);
    r = run_capped(args);
    if (!r.exited)
        fail_msg("%s: killed (signal %d) after %.1f s; output: %s", file, r.signal, r.seconds, r.out);
    if (r.seconds > TIME_CAP_S)
        fail_msg("%s: took %.1f s (cap %.0f)", file, r.seconds, TIME_CAP_S);
    if (r.maxrss_kb > RSS_CAP_KB)
        fail_msg("%s: peak resident %ld MB (cap %ld)", file, r.maxrss_kb / 1024, RSS_CAP_KB / 1024);
    if (r.code != (ok ? 0 : 1))
        fail_msg("%s: exit %d, expected %d; output: %s", file, r.code, ok ? 0 : 1, r.out);
    if (!ok && !strstr(r.out, file))
        fail_msg("%s: the message does not name the file: %s", file, r.out);
    if (why && !strstr(r.out, why))
        fail_msg("%s: expected '%s' in: %s", file, why, r.out);
}

static int setup(void **state)
{
    char path[512];
    (void)state;
    snprintf(g_dir, sizeof g_dir, "%s", t_make_tmpdir());
    snprintf(path, sizeof path, "%s/in", g_dir);
    return mkdir(path, 0755);
}

static int teardown(void **state)
{
    (void)state;
    t_rmtree(g_dir);
    return 0;
}

/* ---- PNG ---------------------------------------------------------------------- */

static void test_png_text_claims(void **state)
{
    buf b = {0};
    (void)state;
    png_start(&b, 16, 16);
    lying_chunk(&b, "tEXt", 0x7FFFFFF0u, 40); /* 110 bytes in all, claiming 2 GB */
    save("text_2g.png", &b);
    expect("text_2g.png", 0, "claims");
    free(b.d);
}

/* Every chunk type with a length far past the end of the file. */
static void test_png_every_chunk_absurd(void **state)
{
    static const char *types[] = {"IHDR", "PLTE", "IDAT", "tRNS", "gAMA", "cHRM", "sRGB", "iCCP",
                                  "tEXt", "zTXt", "iTXt", "bKGD", "pHYs", "sBIT", "sPLT", "hIST",
                                  "tIME", "eXIf", "oFFs", "abCd", "IEND"};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof types / sizeof types[0]; i++) {
        buf b = {0};
        char name[64];
        png_start(&b, 8, 8);
        lying_chunk(&b, types[i], 0xFFFFFFF0u - (uint32_t)i, 16);
        snprintf(name, sizeof name, "absurd_%s.png", types[i]);
        save(name, &b);
        expect(name, 0, NULL);
        free(b.d);
    }
}

/* Found by fuzzing: the file ends inside a chunk header whose length says
 * 1.8 GB; libpng would read the header and allocate the claim. */
static void test_png_cut_header(void **state)
{
    buf b = {0};
    (void)state;
    png_start(&b, 9, 9);
    chunk(&b, "tEXt", "Title\0seed", 10);
    put(&b, "le\0szTXt\xc8", 9);
    save("cut_header.png", &b);
    expect("cut_header.png", 0, "cut off");
    free(b.d);
}

static void test_png_compressed_metadata(void **state)
{
    buf b = {0};
    int i;
    (void)state;
    /* 100 zTXt of 7.9 MB each (inflated) */
    png_start(&b, 16, 16);
    for (i = 0; i < 100; i++)
        bomb_chunk(&b, "zTXt", 7900000);
    idat(&b, 16, 16);
    png_end(&b);
    save("ztxt_100.png", &b);
    expect("ztxt_100.png", 0, "metadata");
    b.n = 0;
    /* one zTXt of 200 MB; one iCCP profile of 60 MB (nested compression) */
    png_start(&b, 16, 16);
    bomb_chunk(&b, "zTXt", 200u << 20);
    idat(&b, 16, 16);
    png_end(&b);
    save("ztxt_200m.png", &b);
    expect("ztxt_200m.png", 0, "over the limit");
    b.n = 0;
    png_start(&b, 16, 16);
    bomb_chunk(&b, "iCCP", 60u << 20);
    idat(&b, 16, 16);
    png_end(&b);
    save("iccp_60m.png", &b);
    expect("iccp_60m.png", 0, "over the limit");
    free(b.d);
}

static void test_png_large_exif(void **state)
{
    buf b = {0};
    unsigned char *exif = (unsigned char *)calloc(1, 20u << 20);
    (void)state;
    memcpy(exif, "MM\0*", 4);
    png_start(&b, 16, 16);
    chunk(&b, "eXIf", exif, 20u << 20);
    idat(&b, 16, 16);
    png_end(&b);
    save("exif_20m.png", &b);
    expect("exif_20m.png", 0, "over the limit");
    free(exif);
    free(b.d);
}

/* Image data far beyond what 16 x 16 pixels need: refused, not inflated. */
static void test_png_data_beyond_image(void **state)
{
    buf b = {0}, z = {0};
    (void)state;
    png_start(&b, 16, 16);
    deflated(&z, 512u << 20, 0); /* half a gigabyte of zeros, ~0.5 MB */
    chunk(&b, "IDAT", z.d, z.n);
    png_end(&b);
    save("idat_bomb.png", &b);
    expect("idat_bomb.png", 0, "image data");
    free(b.d);
    free(z.d);
}

/* 2,000 small text chunks: the file is processed; those past the limit are
 * left out with a note, not in silence. */
static void test_png_many_texts(void **state)
{
    buf b = {0};
    outcome r;
    int i;
    (void)state;
    png_start(&b, 16, 16);
    for (i = 0; i < 2000; i++)
        chunk(&b, "tEXt", "Comment\0hello", 13);
    idat(&b, 16, 16);
    png_end(&b);
    save("texts_2000.png", &b);
    expect("texts_2000.png", 1, NULL);
    r = run_capped("denoise in/texts_2000.png -o out2/ --backend cpu -v");
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "left out"));
    free(b.d);
}

/* A valid file cut short at many points: each a clean refusal. */
static void test_png_truncated(void **state)
{
    buf b = {0};
    size_t cut;
    (void)state;
    png_start(&b, 40, 30);
    chunk(&b, "tEXt", "Title\0x", 7);
    idat(&b, 40, 30);
    png_end(&b);
    for (cut = 9; cut < b.n - 1; cut += 23) {
        buf t = {0};
        char name[64];
        put(&t, b.d, cut);
        snprintf(name, sizeof name, "cut_%03zu.png", cut);
        save(name, &t);
        expect(name, 0, NULL);
        free(t.d);
    }
    free(b.d);
}

/* ---- JPEG ---------------------------------------------------------------------- */

/* A progressive file's scans 5,000 times over: refused from the structure,
 * before any is decoded.  The image is small, and so is the file (9 MB): at
 * 512 x 512 it was 460 MB, whose writing and reading alone could pass the
 * time cap on a machine whose disk was busy. */
static void test_jpeg_scan_bomb(void **state)
{
    buf b = {0}, out = {0};
    size_t sos, eoi;
    int i;
    (void)state;
    jpeg_file(&b, 64, 64, 1);
    sos = find_marker(&b, 0xDA);
    eoi = b.n - 2;
    assert_true(sos > 0);
    put(&out, b.d, eoi);
    for (i = 0; i < 5000; i++)
        put(&out, b.d + sos, eoi - sos); /* every scan again */
    put(&out, "\xFF\xD9", 2);
    save("scan_bomb.jpg", &out);
    expect("scan_bomb.jpg", 0, "scans");
    free(b.d);
    free(out.d);
}

static void test_jpeg_markers(void **state)
{
    buf b = {0}, out = {0};
    unsigned char app[65537];
    int i;
    (void)state;
    jpeg_file(&b, 64, 48, 0);
    /* a marker claiming more than the file holds */
    put(&out, b.d, 2);
    put(&out, "\xFF\xE1\xFF\xFF" "Exif", 8);
    save("app1_claims.jpg", &out);
    expect("app1_claims.jpg", 0, "claims");
    /* 600 APP markers of 64 KB: 39 MB of metadata */
    out.n = 0;
    put(&out, b.d, 2);
    memset(app, 'x', sizeof app);
    app[0] = 0xFF;
    app[1] = 0xEA;
    app[2] = 0xFF;
    app[3] = 0xFF;
    for (i = 0; i < 600; i++)
        put(&out, app, 65537);
    put(&out, b.d + 2, b.n - 2);
    save("app_flood.jpg", &out);
    expect("app_flood.jpg", 0, "metadata");
    /* 80,000 empty COM markers: no metadata to speak of, but libjpeg walks its
     * list of saved markers for each new one (quadratic time) */
    out.n = 0;
    put(&out, b.d, 2);
    for (i = 0; i < 80000; i++)
        put(&out, "\xFF\xFE\x00\x02", 4);
    put(&out, b.d + 2, b.n - 2);
    save("marker_flood.jpg", &out);
    expect("marker_flood.jpg", 0, "APPn/COM markers");
    /* a second frame header between scans */
    out.n = 0;
    {
        size_t sof = find_marker(&b, 0xC0), len = ((size_t)b.d[sof + 2] << 8) | b.d[sof + 3];
        size_t sos = find_marker(&b, 0xDA);
        put(&out, b.d, b.n - 2);
        put(&out, b.d + sof, len + 2);
        put(&out, b.d + sos, b.n - 2 - sos);
        put(&out, "\xFF\xD9", 2);
    }
    save("sof_twice.jpg", &out);
    expect("sof_twice.jpg", 0, NULL);
    /* 65535 x 65535 */
    out.n = 0;
    put(&out, b.d, b.n);
    {
        size_t sof = find_marker(&out, 0xC0);
        out.d[sof + 5] = out.d[sof + 6] = out.d[sof + 7] = out.d[sof + 8] = 0xFF;
    }
    save("huge_sof.jpg", &out);
    expect("huge_sof.jpg", 0, "limit");
    free(b.d);
    free(out.d);
}

static void test_jpeg_truncated(void **state)
{
    buf b = {0};
    size_t cut;
    (void)state;
    jpeg_file(&b, 96, 64, 1);
    for (cut = 3; cut < b.n - 2; cut += b.n / 23 + 1) {
        buf t = {0};
        char name[64];
        put(&t, b.d, cut);
        snprintf(name, sizeof name, "cut_%05zu.jpg", cut);
        save(name, &t);
        expect(name, 0, NULL);
        free(t.d);
    }
    free(b.d);
}

/* ---- limits that must not refuse what they accepted --------------------------------- */

/* An image exactly at the pixel limit is also processed (padding included). */
static void test_pixel_limit_exact(void **state)
{
    buf b = {0};
    outcome r;
    (void)state;
    png_start(&b, 1000, 1000);
    idat(&b, 1000, 1000);
    png_end(&b);
    save("megapixel.png", &b);
    r = run_capped("denoise in/megapixel.png -o out3/ --backend cpu -k 31 --max-mpix 1");
    assert_int_equal(r.code, 0);
    r = run_capped("denoise in/megapixel.png -o out4/ --backend cpu --max-mpix 0.999");
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.out, "exceeds the limit"));
    r = run_capped("denoise in/megapixel.png -o out5/ --backend cpu --max-memory 16");
    assert_int_equal(r.code, 0);
    free(b.d);
    /* a file that alone needs more than the budget: refused with the reason */
    b.d = NULL;
    b.n = b.cap = 0;
    png_start(&b, 4000, 2000);
    idat(&b, 4000, 2000);
    png_end(&b);
    save("wide.png", &b);
    r = run_capped("denoise in/wide.png -o out6/ --backend cpu --max-memory 16");
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.out, "over the memory budget"));
    free(b.d);
}

/* FIFOs given by name (an input, a kernel file) are refused at once. */
static void test_fifos_refused(void **state)
{
    char path[512];
    outcome r;
    (void)state;
    snprintf(path, sizeof path, "%s/in/pipe.png", g_dir);
    assert_int_equal(mkfifo(path, 0644), 0);
    r = run_capped("denoise in/pipe.png -o out7/ --backend cpu");
    assert_true(r.exited);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.out, "not a regular file"));
    r = run_capped("denoise in/texts_2000.png -o out8/ -f conv --kernel in/pipe.png");
    assert_true(r.exited);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.out, "not a regular file"));
    unlink(path);
}

/* The structure scan on its own, with small limits: metadata counted to
 * the byte (exactly the limit passes), text chunks are not inflated even
 * when their words happen to be a zlib stream, a compressed iTXt is
 * inflated from after its translated keyword, and image data is allowed
 * to the documented bound and not a byte more. */
static void test_png_scan_limits(void **state)
{
    jf_limits lim = jf_limits_defaults(), saved = jf_get_limits();
    jf_png_scan sc;
    buf b = {0}, z = {0}, c = {0};
    unsigned char text[100], *idat_bytes;
    uint64_t row, raw, bound;
    int i;
    (void)state;
    lim.max_chunk_bytes = 100;
    lim.max_metadata_bytes = 250;
    assert_int_equal(jf_set_limits(&lim), JF_OK);
    memset(text, 'x', sizeof text);
    memcpy(text, "Comment", 8); /* keyword and its NUL */
    png_start(&b, 16, 16);
    chunk(&b, "tEXt", text, 100);
    chunk(&b, "tEXt", text, 100);
    chunk(&b, "tEXt", text, 50); /* 250: the limit itself */
    png_end(&b);
    assert_int_equal(jf_png_prescan(b.d, b.n, &sc), JF_OK);
    assert_int_equal(sc.metadata_bytes, 250);
    b.n -= 12; /* one byte more */
    chunk(&b, "tEXt", text, 1);
    png_end(&b);
    assert_int_equal(jf_png_prescan(b.d, b.n, &sc), JF_ERR_LIMIT);
    assert_non_null(strstr(jf_last_error(), "metadata of more than 251 bytes (inflated) is over "
                                            "the limit of 250"));
    /* a tEXt whose words are "x" and then a zlib stream of 1000 bytes; an
     * iTXt, compressed, language "en", translated keyword "T", of the same */
    for (i = 0; i < 2; i++) {
        b.n = c.n = 0;
        if (i)
            put(&c, "Comment\0\1\0en\0T\0", 15);
        else
            put(&c, "x", 1);
        deflated(&c, 1000, 'a');
        png_start(&b, 16, 16);
        chunk(&b, i ? "iTXt" : "tEXt", c.d, c.n);
        png_end(&b);
        assert_int_equal(jf_png_prescan(b.d, b.n, &sc), i ? JF_ERR_LIMIT : JF_OK);
    }
    assert_non_null(strstr(jf_last_error(), "iTXt chunk of more than 1015 bytes"));
    assert_int_equal(jf_set_limits(&saved), JF_OK);
    /* a 64 x 64 grey image: rows of 65 bytes, 9 bits a byte, 64 KB of overhead */
    row = 64 + 1;
    raw = row * 64;
    bound = raw + raw / 8 + raw / 1000 + 65536;
    idat_bytes = (unsigned char *)calloc(1, (size_t)bound + 1);
    assert_non_null(idat_bytes);
    b.n = 0;
    png_start(&b, 64, 64);
    chunk(&b, "IDAT", idat_bytes, (size_t)bound);
    png_end(&b);
    assert_int_equal(jf_png_prescan(b.d, b.n, &sc), JF_OK);
    b.n = 0;
    png_start(&b, 64, 64);
    chunk(&b, "IDAT", idat_bytes, (size_t)bound + 1);
    png_end(&b);
    assert_int_equal(jf_png_prescan(b.d, b.n, &sc), JF_ERR_LIMIT);
    assert_non_null(strstr(jf_last_error(), "image data"));
    /* colour type 1 does not exist: the bound assumes the widest pixel (8
     * bytes), so the scan passes it on and libpng says what is wrong */
    b.n = 0;
    png_start(&b, 16, 16);
    b.d[25] = 1;
    chunk(&b, "IDAT", idat_bytes, 67000); /* over a bound for 1 byte a pixel */
    png_end(&b);
    assert_int_equal(jf_png_prescan(b.d, b.n, &sc), JF_OK);
    /* a width past what an int holds is refused however many pixels are allowed */
    lim = jf_limits_defaults();
    lim.max_pixels = (uint64_t)1 << 40;
    assert_int_equal(jf_set_limits(&lim), JF_OK);
    b.n = 0;
    png_start(&b, 0x80000000u, 1);
    png_end(&b);
    assert_int_equal(jf_png_prescan(b.d, b.n, &sc), JF_ERR_LIMIT);
    assert_non_null(strstr(jf_last_error(), "2147483648x1 exceeds the limit"));
    assert_int_equal(jf_set_limits(&saved), JF_OK);
    free(idat_bytes);
    free(b.d);
    free(c.d);
    free(z.d);
}

/* The scans read nothing past the end of what they are given: the bytes
 * end where a page the process may not read begins. */
static void test_scans_stay_in_bounds(void **state)
{
    static const unsigned char jpeg[] = {0xFF, 0xD8, 0x00, 0x12, 0x34}; /* junk, to the end */
    static const unsigned char sos[] = {0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00,
                                        0x00, 0x3F, 0x00, 0x12, 0x34, 0x56};
    const long page = sysconf(_SC_PAGESIZE);
    unsigned char *map;
    jf_jpeg_scan js;
    (void)state;
    map = (unsigned char *)mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(map != MAP_FAILED);
    assert_int_equal(mprotect(map + page, (size_t)page, PROT_NONE), 0);
    memcpy(map + page - sizeof jpeg, jpeg, sizeof jpeg);
    (void)jf_jpeg_prescan(map + page - sizeof jpeg, sizeof jpeg, &js); /* a crash fails it */
    map[page - 1] = 0xFF; /* a fill byte last */
    (void)jf_jpeg_prescan(map + page - sizeof jpeg, sizeof jpeg, &js);
    /* not a JPEG at all: said at once */
    assert_int_equal(jf_jpeg_prescan((const unsigned char *)"\x89PNG\r\n\x1a\n", 8, &js), JF_ERR_DECODE);
    assert_string_equal(jf_last_error(), "not a JPEG file");
    /* a scan whose entropy-coded data runs to the end */
    memcpy(map + page - sizeof sos, sos, sizeof sos);
    (void)jf_jpeg_prescan(map + page - sizeof sos, sizeof sos, &js);
    munmap(map, (size_t)page * 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_text_claims),
        cmocka_unit_test(test_png_every_chunk_absurd),
        cmocka_unit_test(test_png_cut_header),
        cmocka_unit_test(test_png_compressed_metadata),
        cmocka_unit_test(test_png_large_exif),
        cmocka_unit_test(test_png_data_beyond_image),
        cmocka_unit_test(test_png_many_texts),
        cmocka_unit_test(test_png_truncated),
        cmocka_unit_test(test_jpeg_scan_bomb),
        cmocka_unit_test(test_jpeg_markers),
        cmocka_unit_test(test_jpeg_truncated),
        cmocka_unit_test(test_pixel_limit_exact),
        cmocka_unit_test(test_fifos_refused),
        cmocka_unit_test(test_png_scan_limits),
        cmocka_unit_test(test_scans_stay_in_bounds),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
