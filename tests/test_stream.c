/*
 * Video streams: the Y4M and raw reader and writer of the library, and
 * `jetfilter stream` between pipes, with Debian's ffmpeg making the streams
 * and consuming ours: every output frame equals the CPU library's filter of
 * the input frame, plane by plane; the header survives; every bad input
 * ends with a one-line error naming the frame and exit 1.  On a machine
 * with a CUDA device the same streams through --backend cuda are
 * byte-identical to the CPU's.
 */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char g_dir[512];
static char g_out[16384];
static int g_ffmpeg;

/* Run a bash command in the test folder ($J is the CLI); its stderr (and
 * stdout where the command does not redirect it) lands in g_out. */
static int sh(const char *fmt, ...)
{
    char cmd[8192], full[16384], log[600], script[600];
    va_list ap;
    FILE *f;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    snprintf(log, sizeof log, "%s/.log", g_dir);
    snprintf(script, sizeof script, "%s/.cmd.sh", g_dir);
    f = fopen(script, "w");
    assert_non_null(f);
    fprintf(f, "cd '%s' && J='%s' && S='%s'\n%s\n", g_dir, JF_CLI_PATH, JF_SAMPLE_STREAM, cmd);
    fclose(f);
    snprintf(full, sizeof full, "bash '%s' > '%s' 2>&1 < /dev/null", script, log);
    return t_run_logged(full, log, g_out, sizeof g_out);
}

static const char *path_in(const char *name)
{
    static char p[4][700];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof p[i], "%s/%s", g_dir, name);
    return p[i];
}

static int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "%s", t_make_tmpdir());
    g_ffmpeg = system("command -v ffmpeg > /dev/null 2>&1") == 0;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    t_rmtree(g_dir);
    return 0;
}

/* ---- the reader and writer on their own ----------------------------------- */

static jf_status open_text(const char *text, size_t len, jf_video_reader **r, int *fd)
{
    FILE *f = fopen(path_in("t.y4m"), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
    *fd = open(path_in("t.y4m"), O_RDONLY);
    assert_true(*fd >= 0);
    return jf_video_open_y4m(*fd, "t.y4m", r);
}

static void expect_header(const char *header, jf_status want, const char *words)
{
    jf_video_reader *r = NULL;
    int fd;
    jf_status st = open_text(header, strlen(header), &r, &fd);
    if (st != want)
        fail_msg("'%s': status %d, wanted %d (%s)", header, st, want, jf_last_error());
    if (words && !strstr(jf_last_error(), words))
        fail_msg("'%s': error '%s' does not say '%s'", header, jf_last_error(), words);
    jf_video_reader_close(r);
    close(fd);
}

static void test_y4m_headers(void **state)
{
    static const struct {
        const char *c;
        int planes, color, cw, ch;
    } cs[] = {{"", 3, 3, 4, 3}, {" Cmono", 1, 1, 7, 5}, {" C420paldv", 3, 3, 4, 3},
              {" C420mpeg2", 3, 3, 4, 3}, {" C420", 3, 3, 4, 3}, {" C411", 3, 3, 2, 5},
              {" C422", 3, 3, 4, 5}, {" C444", 3, 3, 7, 5}, {" C444alpha", 4, 3, 7, 5}};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        char h[256];
        jf_video_reader *r;
        const jf_video_format *f;
        int fd;
        snprintf(h, sizeof h, "YUV4MPEG2 W7 H5 F30000:1001 It A1:1%s XCOLORRANGE=FULL\n", cs[i].c);
        assert_int_equal(open_text(h, strlen(h), &r, &fd), JF_OK);
        f = jf_video_reader_format(r);
        assert_int_equal(f->width, 7);
        assert_int_equal(f->height, 5);
        assert_int_equal(f->planes, cs[i].planes);
        assert_int_equal(f->color_planes, cs[i].color);
        if (f->planes > 1) {
            assert_int_equal(f->plane_width[1], cs[i].cw);
            assert_int_equal(f->plane_height[2], cs[i].ch);
        }
        assert_int_equal(f->fps_num, 30000);
        assert_int_equal(f->fps_den, 1001);
        h[strlen(h) - 1] = '\0';
        assert_string_equal(jf_video_reader_header(r), h); /* kept verbatim */
        jf_video_reader_close(r);
        close(fd);
    }
    expect_header("YUV4MPEG2 W7 H5 C420p10\n", JF_ERR_UNSUPPORTED, "8 bits");
    expect_header("YUV4MPEG2 W7 H5 Cmono16\n", JF_ERR_UNSUPPORTED, "16 bits");
    expect_header("YUV4MPEG2 W7 H5 Cxyz\n", JF_ERR_UNSUPPORTED, "'xyz'");
    expect_header("YUV4MPEG2 H5\n", JF_ERR_DECODE, "width");
    expect_header("YUV4MPEG2 W0 H5\n", JF_ERR_DECODE, "width");
    expect_header("YUV4MPEG2 W7 H5 F30\n", JF_ERR_DECODE, "frame rate");
    expect_header("YUV4MPEG2 W7 H5 Ix\n", JF_ERR_DECODE, "interlacing");
    expect_header("YUV4MPEG W7 H5\n", JF_ERR_DECODE, "not a YUV4MPEG2");
    expect_header("\x89PNG\r\n\x1a\n", JF_ERR_DECODE, "not a YUV4MPEG2");
    expect_header("", JF_ERR_DECODE, "empty");
    expect_header("YUV4MPEG2 W7 H5", JF_ERR_DECODE, "truncated header");
    {
        static char longh[6000];
        memset(longh, 'X', sizeof longh - 1);
        memcpy(longh, "YUV4MPEG2 W7 H5 ", 16);
        expect_header(longh, JF_ERR_DECODE, "longer than");
    }
    /* what a refusal shows of the line: its first 24 bytes, then "..." */
    expect_header("RIFF0123456789abcdefghijklmnop\n", JF_ERR_DECODE,
                  "it starts with 'RIFF0123456789abcdefghij...'");
    expect_header("RIFF\x01\n", JF_ERR_DECODE, "it starts with 'RIFF\\x01')");
    jf_set_max_pixels(1000);
    expect_header("YUV4MPEG2 W100 H11\n", JF_ERR_LIMIT, "limit");
    jf_set_max_pixels(jf_limits_defaults().max_pixels);
    { /* raw frames: a pixel format not handled, a size of nothing; no reader left */
        jf_video_reader *r = (jf_video_reader *)&state;
        assert_int_equal(jf_video_open_raw(0, "raw", 8, 8, "nv12", &r), JF_ERR_ARG);
        assert_null(r);
        assert_non_null(strstr(jf_last_error(), "'nv12' not handled"));
        r = (jf_video_reader *)&state;
        assert_int_equal(jf_video_open_raw(0, "raw", 0, 8, "gray", &r), JF_ERR_ARG);
        assert_null(r);
        assert_non_null(strstr(jf_last_error(), "bad frame size 0x8"));
        assert_int_equal(jf_video_open_raw(0, "raw", 8, 6, "yuv420p", &r), JF_OK);
        assert_true(jf_video_reader_format(r)->raw);
        assert_int_equal(jf_video_reader_format(r)->frame_bytes, 8 * 6 + 2 * 4 * 3);
        assert_string_equal(jf_video_reader_header(r), "");
        jf_video_reader_close(r);
    }
    { /* raw grey frames into a plane with padded rows: one frame and a half
       * is a frame, then a truncated one (not the stream's clean end) */
        static unsigned char bytes[6 * 4 + 6 * 2];
        unsigned char plane[8 * 4];
        jf_image im = jf_image_wrap(plane, 6, 4, 1, 8);
        jf_video_reader *r = NULL;
        int fds[2], got = -1;
        assert_int_equal(pipe(fds), 0);
        assert_int_equal(write(fds[1], bytes, sizeof bytes), (ssize_t)sizeof bytes);
        close(fds[1]);
        assert_int_equal(jf_video_open_raw(fds[0], "raw", 6, 4, "gray", &r), JF_OK);
        assert_int_equal(jf_video_read(r, &im, &got), JF_OK);
        assert_int_equal(got, 1);
        assert_int_equal(jf_video_read(r, &im, &got), JF_ERR_DECODE);
        assert_non_null(strstr(jf_last_error(), "truncated (12 of 24 bytes)"));
        jf_video_reader_close(r);
        close(fds[0]);
    }
}

/* Frames of any layout and awkward size, written and read back. */
static void test_y4m_round_trip(void **state)
{
    static const struct {
        int w, h;
        const char *layout;
    } cases[] = {{7, 5, "420jpeg"}, {1, 1, "mono"}, {1023, 577, "444"}, {33, 17, "422"},
                 {9, 3, "411"}, {5, 4, "444alpha"}};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char header[128];
        jf_video_reader *r, *r2;
        jf_video_writer *w;
        jf_image a[3][4], b[4];
        const jf_video_format *f;
        int fd, fd2, frame, p, got;
        snprintf(header, sizeof header, "YUV4MPEG2 W%d H%d F25:1 Ip A0:0 C%s", cases[i].w, cases[i].h,
                 cases[i].layout);
        fd = open(path_in("hdr.y4m"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        assert_true(dprintf(fd, "%s\n", header) > 0);
        close(fd);
        fd = open(path_in("hdr.y4m"), O_RDONLY);
        assert_int_equal(jf_video_open_y4m(fd, "hdr", &r), JF_OK);
        f = jf_video_reader_format(r);
        fd2 = open(path_in("rt.y4m"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        assert_int_equal(jf_video_writer_open(fd2, "rt.y4m", f, jf_video_reader_header(r), &w), JF_OK);
        for (frame = 0; frame < 3; frame++) {
            for (p = 0; p < f->planes; p++)
                a[frame][p] = t_random_image(f->plane_width[p], f->plane_height[p], f->plane_channels[p],
                                             frame, 77u + (uint64_t)(frame * 4 + p));
            assert_int_equal(jf_video_write(w, a[frame], frame == 1 ? "Ib XKEY=1" : NULL), JF_OK);
        }
        jf_video_writer_close(w);
        close(fd2);
        fd2 = open(path_in("rt.y4m"), O_RDONLY);
        assert_int_equal(jf_video_open_y4m(fd2, "rt.y4m", &r2), JF_OK);
        assert_string_equal(jf_video_reader_header(r2), header);
        for (p = 0; p < f->planes; p++)
            assert_int_equal(jf_image_alloc(&b[p], f->plane_width[p], f->plane_height[p], f->plane_channels[p]), JF_OK);
        for (frame = 0; frame < 3; frame++) {
            assert_int_equal(jf_video_read(r2, b, &got), JF_OK);
            assert_int_equal(got, 1);
            assert_string_equal(jf_video_frame_params(r2), frame == 1 ? "Ib XKEY=1" : "");
            for (p = 0; p < f->planes; p++)
                assert_true(t_images_equal(&a[frame][p], &b[p]));
        }
        assert_int_equal(jf_video_read(r2, b, &got), JF_OK);
        assert_int_equal(got, 0);
        for (frame = 0; frame < 3; frame++)
            for (p = 0; p < f->planes; p++)
                jf_image_free(&a[frame][p]);
        for (p = 0; p < f->planes; p++)
            jf_image_free(&b[p]);
        jf_video_reader_close(r);
        jf_video_reader_close(r2);
        close(fd);
        close(fd2);
    }
}

/* ---- the command, checked frame by frame ------------------------------------ */

typedef struct filt {
    const char *name; /* median, gauss */
    int k;
    unsigned mask;    /* planes filtered */
    jf_border border;
} filt;

/* Every frame of `out` equals the CPU library's filter of the frame of
 * `in` (same layout); returns the number of frames. */
static int check_frames(const char *in, const char *out, const char *raw_fmt, int w, int h, filt fl)
{
    jf_video_reader *ri, *ro;
    jf_image a[4], b[4], want[4];
    const jf_video_format *f;
    jf_context *ctx = t_cpu_context(0);
    int fdi = open(path_in(in), O_RDONLY), fdo = open(path_in(out), O_RDONLY), p, frames = 0;
    jf_kernel kern = {0, NULL};
    assert_true(fdi >= 0 && fdo >= 0);
    if (raw_fmt) {
        assert_int_equal(jf_video_open_raw(fdi, in, w, h, raw_fmt, &ri), JF_OK);
        assert_int_equal(jf_video_open_raw(fdo, out, w, h, raw_fmt, &ro), JF_OK);
    } else {
        assert_int_equal(jf_video_open_y4m(fdi, in, &ri), JF_OK);
        if (jf_video_open_y4m(fdo, out, &ro) != JF_OK)
            fail_msg("%s: %s", out, jf_last_error());
        assert_string_equal(jf_video_reader_header(ro), jf_video_reader_header(ri));
    }
    if (strcmp(fl.name, "gauss") == 0)
        assert_int_equal(jf_kernel_make(JF_KERNEL_GAUSS, 0, 2.0, &kern), JF_OK);
    f = jf_video_reader_format(ri);
    for (p = 0; p < f->planes; p++) {
        assert_int_equal(jf_image_alloc(&a[p], f->plane_width[p], f->plane_height[p], f->plane_channels[p]), JF_OK);
        assert_int_equal(jf_image_alloc(&b[p], f->plane_width[p], f->plane_height[p], f->plane_channels[p]), JF_OK);
        assert_int_equal(jf_image_alloc(&want[p], f->plane_width[p], f->plane_height[p], f->plane_channels[p]), JF_OK);
    }
    for (;;) {
        int ga, gb;
        assert_int_equal(jf_video_read(ri, a, &ga), JF_OK);
        if (jf_video_read(ro, b, &gb) != JF_OK)
            fail_msg("%s: %s", out, jf_last_error());
        assert_int_equal(ga, gb);
        if (!ga)
            break;
        for (p = 0; p < f->planes; p++) {
            if (p < f->color_planes && (fl.mask >> p & 1u)) {
                if (kern.weights) {
                    jf_conv_options o = t_conv_opts(kern.ksize, kern.weights, fl.border, JF_VARIANT_AUTO);
                    assert_int_equal(jf_convolve(ctx, &a[p], &want[p], &o), JF_OK);
                } else {
                    jf_median_options o = t_median_opts(fl.k, fl.border, JF_VARIANT_CPU);
                    assert_int_equal(jf_median(ctx, &a[p], &want[p], &o), JF_OK);
                }
            } else {
                assert_int_equal(jf_image_copy(&a[p], &want[p]), JF_OK);
            }
            if (!t_images_equal(&want[p], &b[p]))
                fail_msg("%s: frame %d plane %d differs from the library's %s", out, frames, p, fl.name);
        }
        frames++;
    }
    for (p = 0; p < f->planes; p++) {
        jf_image_free(&a[p]);
        jf_image_free(&b[p]);
        jf_image_free(&want[p]);
    }
    jf_kernel_free(&kern);
    jf_video_reader_close(ri);
    jf_video_reader_close(ro);
    close(fdi);
    close(fdo);
    jf_context_destroy(ctx);
    return frames;
}

#define NEED_FFMPEG()                                              \
    do {                                                           \
        if (!g_ffmpeg) {                                           \
            print_message("ffmpeg not installed: skipped\n");      \
            skip();                                                \
        }                                                          \
    } while (0)

static const filt MEDIAN5 = {"median", 5, 0xF, JF_BORDER_REPLICATE};

/* The pipe: ffmpeg | jetfilter stream | ffmpeg. */
static void test_pipe_720p(void **state)
{
    /* the quick set (sanitizers): 12 frames, the reference's median being
     * the slow part there */
    const int n = getenv("JF_TEST_QUICK") ? 12 : 60;
    char want[64];
    (void)state;
    NEED_FFMPEG();
    assert_int_equal(sh("ffmpeg -v error -f lavfi -i testsrc2=size=1280x720:rate=30 -frames:v %d "
                        "-f yuv4mpegpipe - > src.y4m", n), 0);
    assert_int_equal(sh("set -o pipefail; ffmpeg -v error -f lavfi -i testsrc2=size=1280x720:rate=30 "
                        "-frames:v %d -f yuv4mpegpipe - | $J stream -f median -k 5 --backend cpu --quiet | "
                        "ffmpeg -v error -f yuv4mpegpipe -i - -f yuv4mpegpipe -y piped.y4m", n), 0);
    /* ffmpeg wrote piped.y4m with its own header: the frames must be ours */
    assert_int_equal(sh("$J stream -f median -k 5 --backend cpu -i src.y4m -o direct.y4m"), 0);
    snprintf(want, sizeof want, "%d frames of 1280x720 420jpeg", n);
    assert_non_null(strstr(g_out, want));
    assert_int_equal(check_frames("src.y4m", "direct.y4m", NULL, 0, 0, MEDIAN5), n);
    assert_int_equal(sh("tail -c +$(( $(head -1 piped.y4m | wc -c) + 1 )) piped.y4m | cmp - "
                        "<(tail -c +$(( $(head -1 direct.y4m | wc -c) + 1 )) direct.y4m)"), 0);
    /* the sample program: luma median k = 5, chroma passed through */
    assert_int_equal(sh("$S 5 < src.y4m > sample.y4m"), 0);
    {
        filt luma = {"median", 5, 0x1, JF_BORDER_REPLICATE};
        assert_int_equal(check_frames("src.y4m", "sample.y4m", NULL, 0, 0, luma), n);
    }
    /* the header's rate, aspect, interlacing and comments survive */
    assert_int_equal(sh("head -1 direct.y4m | grep -q '^YUV4MPEG2 W1280 H720 F30:1 Ip A1:1 C420jpeg XYSCSS=420JPEG$'"), 0);
}

/* Grey, 4:2:2, 4:4:4 (with alpha too) and odd 4:2:0 sizes; gauss; luma only. */
static void test_layouts(void **state)
{
    static const struct {
        const char *pix, *size;
        filt fl;
        const char *args;
    } cases[] = {
        {"gray", "641:359", {"median", 3, 0xF, JF_BORDER_REPLICATE}, "-k 3"},
        {"yuv422p", "320:181", {"median", 7, 0xF, JF_BORDER_REPLICATE}, "-k 7 -b replicate"},
        {"yuv444p", "1023:577", {"median", 5, 0xF, JF_BORDER_REPLICATE}, "-k 5"},
        {"yuv420p", "641:359", {"median", 5, 0xF, JF_BORDER_REPLICATE}, "-k 5"},
        {"yuv420p", "333:201", {"gauss", 0, 0xF, JF_BORDER_REPLICATE}, "-f gauss --sigma 2"},
        {"yuv420p", "333:201", {"median", 9, 0x1, JF_BORDER_REPLICATE}, "-k 9 --planes luma"},
        {"yuv420p", "1:1", {"median", 3, 0xF, JF_BORDER_REPLICATE}, "-k 3"},
        {"yuv420p", "7:5", {"median", 5, 0xF, JF_BORDER_MIRROR}, "-k 5 -b mirror"},
        {"yuva444p -strict -1", "33:17", {"median", 3, 0xF, JF_BORDER_REPLICATE}, "-k 3"},
    };
    size_t i;
    (void)state;
    NEED_FFMPEG();
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* testsrc2 rounds its size to even: scale to the odd one */
        assert_int_equal(sh("ffmpeg -v error -f lavfi -i testsrc2=size=640x480:rate=25 -frames:v 7 "
                            "-vf scale=%s -pix_fmt %s -f yuv4mpegpipe - > l.y4m", cases[i].size,
                            cases[i].pix), 0);
        if (sh("$J stream --backend cpu %s < l.y4m > lo.y4m", cases[i].args) != 0)
            fail_msg("%s %s: %s", cases[i].pix, cases[i].args, g_out);
        assert_int_equal(check_frames("l.y4m", "lo.y4m", NULL, 0, 0, cases[i].fl), 7);
    }
}

static void test_raw(void **state)
{
    static const char *const fmts[] = {"gray", "rgb24", "yuv420p"};
    size_t i;
    (void)state;
    NEED_FFMPEG();
    for (i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        assert_int_equal(sh("ffmpeg -v error -f lavfi -i testsrc2=size=640x480:rate=25 -frames:v 5 "
                            "-vf scale=331:97 -pix_fmt %s -f rawvideo - > r.raw", fmts[i]), 0);
        if (sh("$J stream --backend cpu -k 5 --raw 331x97 --pix-fmt %s -i r.raw -o ro.raw", fmts[i]) != 0)
            fail_msg("%s: %s", fmts[i], g_out);
        assert_int_equal(check_frames("r.raw", "ro.raw", fmts[i], 331, 97, MEDIAN5), 5);
    }
    /* a raw stream cut inside a frame */
    assert_int_equal(sh("head -c 100000 r.raw | $J stream --backend cpu --raw 331x97 --pix-fmt yuv420p > cut.raw"), 1);
    assert_non_null(strstr(g_out, "frame 2: truncated"));
    assert_int_equal(sh("test $(stat -c %%s cut.raw) -eq $((2 * (331 * 97 + 2 * 166 * 49)))"), 0);
    assert_int_equal(sh("$J stream --raw 331x97 < r.raw"), 2);
    assert_int_equal(sh("$J stream --raw 331x97 --pix-fmt nv12 < r.raw"), 1);
    assert_non_null(strstr(g_out, "'nv12' not handled"));
}

/* Every bad input: one line naming the frame, exit 1, the frames before it
 * written to a pipe, nothing left of a file output. */
static void test_bad_input(void **state)
{
    (void)state;
    NEED_FFMPEG();
    assert_int_equal(sh("ffmpeg -v error -f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 6 "
                        "-f yuv4mpegpipe - > b.y4m && ffmpeg -v error -f lavfi -i testsrc2=size=176x144:rate=25 "
                        "-frames:v 2 -f yuv4mpegpipe - > other.y4m"), 0);
    /* frame 3 cut short (header 52 + 4 frames of 6 + 28800 bytes, less 100) */
    assert_int_equal(sh("head -c $(( $(head -1 b.y4m | wc -c) + 4 * 28806 - 100 )) b.y4m > cut.y4m"), 0);
    assert_int_equal(sh("$J stream --backend cpu < cut.y4m > out.y4m"), 1);
    assert_non_null(strstr(g_out, "frame 3: truncated"));
    assert_int_equal(sh("test $(stat -c %%s out.y4m) -eq $(( $(head -1 b.y4m | wc -c) + 3 * 28806 ))"), 0);
    /* to a file: nothing is left, not even a temporary */
    assert_int_equal(sh("$J stream --backend cpu -i cut.y4m -o file.y4m"), 1);
    assert_int_equal(sh("test ! -e file.y4m && test -z \"$(ls -A | grep '^\\.jf-')\""), 0);
    /* not a stream */
    assert_int_equal(sh("$J stream --backend cpu -i %s > x.y4m", t_source_path("samples/images/retina.jpg")), 1);
    assert_non_null(strstr(g_out, "not a YUV4MPEG2 stream"));
    /* a header that changes between frames; the same header again is fine */
    assert_int_equal(sh("cat b.y4m other.y4m | $J stream --backend cpu > x.y4m"), 1);
    assert_non_null(strstr(g_out, "frame 6: the stream header changes"));
    assert_int_equal(sh("cat b.y4m b.y4m | $J stream --backend cpu --quiet | wc -c | "
                        "grep -qx $(( $(head -1 b.y4m | wc -c) + 12 * 28806 ))"), 0);
    /* a FRAME line that is not one */
    assert_int_equal(sh("{ cat b.y4m; printf 'FRAMX\\n'; } | $J stream --backend cpu > x.y4m"), 1);
    assert_non_null(strstr(g_out, "frame 6: expected a FRAME line"));
    /* over the pixel limit, before any frame */
    assert_int_equal(sh("$J stream --backend cpu --max-mpix 0.01 < b.y4m > x.y4m"), 1);
    assert_non_null(strstr(g_out, "exceeds the limit"));
    /* the consumer quits early: an error naming the frame, no crash */
    assert_int_equal(sh("ffmpeg -v error -f lavfi -i testsrc2=size=640x480:rate=25 -frames:v 50 "
                        "-f yuv4mpegpipe - > big.y4m"), 0);
    assert_int_equal(sh("$J stream --backend cpu -i big.y4m | head -c 1000000 > /dev/null; "
                        "exit ${PIPESTATUS[0]}"), 1);
    assert_non_null(strstr(g_out, "the consumer closed the pipe"));
    assert_non_null(strstr(g_out, "frame "));
    /* a consumer that reads everything and then closes: not an error */
    assert_int_equal(sh("$J stream --backend cpu --quiet -i b.y4m | cat > /dev/null; exit ${PIPESTATUS[0]}"), 0);
    /* usage */
    assert_int_equal(sh("$J stream --planes chroma < b.y4m"), 2);
    assert_int_equal(sh("$J stream -o - --json - < b.y4m"), 2);
    assert_int_equal(sh("$J stream b.y4m"), 2);
}

/* --reference: PSNR and SSIM of every frame, in the JSON. */
static void test_reference_json(void **state)
{
    jf_video_reader *ra, *rb;
    jf_image a[3], b[3];
    const jf_video_format *f;
    double psnr, want;
    const char *at;
    int fa, fb, p, got;
    (void)state;
    NEED_FFMPEG();
    assert_int_equal(sh("ffmpeg -v error -f lavfi -i testsrc2=size=200x150:rate=25 -frames:v 4 "
                        "-f yuv4mpegpipe - > clean.y4m && ffmpeg -v error -i clean.y4m -vf noise=alls=30:allf=t "
                        "-f yuv4mpegpipe - > noisy.y4m"), 0);
    assert_int_equal(sh("$J stream --backend cpu -k 3 -i noisy.y4m -o den.y4m --reference clean.y4m "
                        "--json rep.json"), 0);
    assert_int_equal(sh("grep -o '\"frame\":' rep.json | wc -l | grep -qx 4"), 0);
    assert_int_equal(sh("cat rep.json"), 0);
    /* frame 0's luma PSNR, from the files by the library */
    fa = open(path_in("clean.y4m"), O_RDONLY);
    fb = open(path_in("den.y4m"), O_RDONLY);
    assert_int_equal(jf_video_open_y4m(fa, "clean", &ra), JF_OK);
    assert_int_equal(jf_video_open_y4m(fb, "den", &rb), JF_OK);
    f = jf_video_reader_format(ra);
    for (p = 0; p < 3; p++) {
        assert_int_equal(jf_image_alloc(&a[p], f->plane_width[p], f->plane_height[p], 1), JF_OK);
        assert_int_equal(jf_image_alloc(&b[p], f->plane_width[p], f->plane_height[p], 1), JF_OK);
    }
    assert_int_equal(jf_video_read(ra, a, &got), JF_OK);
    assert_int_equal(jf_video_read(rb, b, &got), JF_OK);
    assert_int_equal(jf_psnr(NULL, &a[0], &b[0], &want, NULL), JF_OK);
    at = strstr(g_out, "\"psnr_y_db\":");
    assert_non_null(at);
    psnr = strtod(at + 12, NULL);
    if (fabs(psnr - want) > 1e-6)
        fail_msg("frame 0 PSNR %f in the report, %f by the library", psnr, want);
    {   /* every plane's: the squared errors of all planes over all their samples */
        double sse = 0.0, n = 0.0, mse;
        for (p = 0; p < 3; p++) {
            assert_int_equal(jf_psnr(NULL, &a[p], &b[p], &psnr, &mse), JF_OK);
            sse += mse * a[p].width * a[p].height;
            n += (double)a[p].width * a[p].height;
        }
        want = 10.0 * log10(255.0 * 255.0 / (sse / n));
        at = strstr(g_out, "\"psnr_db\":");
        assert_non_null(at);
        if (fabs(strtod(at + 10, NULL) - want) > 1e-6)
            fail_msg("frame 0 PSNR of all planes %f in the report, %f by the library",
                     strtod(at + 10, NULL), want);
    }
    at = strstr(g_out, "\"ssim_y\":");
    assert_non_null(at);
    assert_int_equal(jf_ssim(NULL, &a[0], &b[0], &want), JF_OK); /* the luma plane's */
    if (fabs(strtod(at + 9, NULL) - want) > 1e-6)
        fail_msg("frame 0 SSIM %f in the report, %f by the library", strtod(at + 9, NULL), want);
    assert_non_null(strstr(g_out, "\"latency_p99_ms\":"));
    assert_non_null(strstr(g_out, "\"frames_measured\":4"));
    {   /* the run's time, and the rate from it */
        const char *summary = strstr(g_out, "\"summary\":{\"frames\":4,");
        const char *secs = summary ? strstr(summary, "\"seconds\":") : NULL;
        const char *fps = summary ? strstr(summary, "\"fps\":") : NULL;
        double sv, fv;
        assert_non_null(secs);
        assert_non_null(fps);
        sv = strtod(secs + 10, NULL);
        fv = strtod(fps + 6, NULL);
        if (!(sv > 0.0) || fabs(fv * sv - 4.0) > 1e-3 * 4.0)
            fail_msg("seconds %g, fps %g for 4 frames", sv, fv);
    }
    assert_non_null(strstr(g_out, "\"mean_psnr_y_db\":"));
    {   /* the summary's filter time a frame is the frames' own, averaged */
        double sum = 0.0, each;
        int frames = 0;
        for (at = g_out; (at = strstr(at, "\"filter_ms\":")) != NULL; at += 12, frames++)
            sum += strtod(at + 12, NULL);
        at = strstr(g_out, "\"filter_ms_per_frame\":");
        assert_non_null(at);
        each = strtod(at + 22, NULL);
        assert_int_equal(frames, 4);
        if (fabs(each - sum / frames) > 1e-6 * (1.0 + sum))
            fail_msg("filter_ms_per_frame %g, the frames' mean %g", each, sum / frames);
    }
    for (p = 0; p < 3; p++) {
        jf_image_free(&a[p]);
        jf_image_free(&b[p]);
    }
    jf_video_reader_close(ra);
    jf_video_reader_close(rb);
    close(fa);
    close(fb);
    /* a reference of another size is refused before any frame */
    assert_int_equal(sh("ffmpeg -v error -f lavfi -i testsrc2=size=100x50:rate=25 -frames:v 1 "
                        "-f yuv4mpegpipe - > tiny.y4m"), 0);
    assert_int_equal(sh("$J stream --backend cpu -i noisy.y4m -o x.y4m --reference tiny.y4m"), 1);
    assert_non_null(strstr(g_out, "reference"));
}

/* Largest difference of two files of the same length, byte by byte (two
 * streams of one layout: headers and FRAME lines sit at the same places);
 * -1 when the lengths differ. */
static int files_max_diff(const char *a, const char *b)
{
    FILE *fa = fopen(path_in(a), "rb"), *fb = fopen(path_in(b), "rb");
    int ca, cb, m = 0;
    assert_non_null(fa);
    assert_non_null(fb);
    for (;;) {
        ca = getc(fa);
        cb = getc(fb);
        if (ca == EOF || cb == EOF)
            break;
        if (abs(ca - cb) > m)
            m = abs(ca - cb);
    }
    fclose(fa);
    fclose(fb);
    return ca == cb ? m : -1;
}

/* On a machine with a GPU: the CUDA backend gives the CPU's bytes for the
 * median, and within 1 level for a convolution (as jetfilter.h states). */
static void test_cuda_matches_cpu(void **state)
{
    static const struct {
        const char *args;
        int tolerance;
    } cases[] = {{"-k 3", 0}, {"-k 5", 0}, {"-k 11", 0}, {"-k 5 --memory managed", 0},
                 {"-k 5 --planes luma", 0}, {"-f gauss --sigma 2", 1}};
    static const char *const files[] = {"g.y4m", "g1080.y4m"};
    size_t i, f;
    (void)state;
    NEED_FFMPEG();
    if (jf_device_count() < 1) {
        print_message("no CUDA device: skipped\n");
        skip();
    }
    assert_int_equal(sh("ffmpeg -v error -f lavfi -i testsrc2=size=1280x720:rate=30 -frames:v 20 "
                        "-vf scale=1023:577 -pix_fmt yuv420p -f yuv4mpegpipe - > g.y4m && ffmpeg -v error -f lavfi "
                        "-i testsrc2=size=1920x1080:rate=30 -frames:v 30 -f yuv4mpegpipe - > g1080.y4m"), 0);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (f = 0; f < 2; f++) {
            int d;
            if (sh("$J stream --backend cpu %s < %s > cpu.y4m && $J stream --backend cuda %s < %s > gpu.y4m",
                   cases[i].args, files[f], cases[i].args, files[f]) != 0)
                fail_msg("%s: %s", cases[i].args, g_out);
            d = files_max_diff("cpu.y4m", "gpu.y4m");
            if (d < 0 || d > cases[i].tolerance)
                fail_msg("%s %s: CUDA differs from the CPU by %d (allowed %d)", files[f], cases[i].args,
                         d, cases[i].tolerance);
        }
}

/* A stream made here (no ffmpeg): each frame's own parameters go out with
 * it, and the report's latency and write time are those of real frames. */
static void test_frame_params_and_timings(void **state)
{
    FILE *f = fopen(path_in("p.y4m"), "wb");
    unsigned char frame[8 * 6];
    const char *at;
    int i, k;
    (void)state;
    assert_non_null(f);
    fprintf(f, "YUV4MPEG2 W8 H6 F25:1 Ip A1:1 Cmono\n");
    for (i = 0; i < 5; i++) {
        for (k = 0; k < (int)sizeof frame; k++)
            frame[k] = (unsigned char)(k * 37 + i * 11);
        fprintf(f, "FRAME Xn=%d\n", i);
        assert_int_equal(fwrite(frame, 1, sizeof frame, f), sizeof frame);
    }
    fclose(f);
    assert_int_equal(sh("$J stream --backend cpu -k 3 -i p.y4m -o q.y4m --json r.json --quiet && "
                        "echo frames=$(grep -ao 'FRAME Xn=[0-4]' q.y4m | sort -u | wc -l) && cat r.json"), 0);
    assert_non_null(strstr(g_out, "frames=5\n"));
    at = strstr(g_out, "\"latency_p99_ms\":");
    assert_non_null(at);
    assert_true(strtod(at + 17, NULL) > 0.0);
    at = strstr(g_out, "\"write_ms_per_frame\":");
    assert_non_null(at);
    assert_true(strtod(at + 21, NULL) >= 0.0 && strtod(at + 21, NULL) < 1000.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_y4m_headers),
        cmocka_unit_test(test_y4m_round_trip),
        cmocka_unit_test(test_pipe_720p),
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_raw),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_frame_params_and_timings),
        cmocka_unit_test(test_reference_json),
        cmocka_unit_test(test_cuda_matches_cpu),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
