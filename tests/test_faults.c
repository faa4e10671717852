/* Write errors on every path that writes.  The file layer's write, fsync,
 * close, rename and mkstemp are wrapped at link time (-Wl,--wrap), so one
 * output of a batch can fail in each way a disk fails: a short write then
 * ENOSPC, EIO, a failed flush, a failed close, a failed rename, no room for
 * the temporary; standard output and the --json report too.  The command
 * runs in this process (cli_dispatch, as serve runs it).  Each time: exit 1
 * with the file and the system's reason, the other outputs written whole,
 * no temporary left, the inputs untouched. */
#define _GNU_SOURCE
#include "common.h"
#include "cli/cli.h"
#include "io/io.h"
#include "cli_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

enum fault {
    F_NONE,
    F_WRITE_SHORT_ENOSPC, /* the nth temporary: part of a write, then no space */
    F_WRITE_EIO,          /* the nth temporary: an I/O error on its first write */
    F_FSYNC,              /* the nth temporary cannot be flushed */
    F_CLOSE,              /* the nth temporary's close reports an error */
    F_RENAME,             /* the nth rename of a temporary into place fails */
    F_MKSTEMP,            /* the nth temporary cannot be made */
    F_STDOUT,             /* every write to standard output: no space */
    F_WRITEV_SPLIT        /* every writev: its first piece and one byte of the next */
};

#define MAX_FD 1024
static struct {
    enum fault kind;
    int nth;
    int temps_made, renames;
    int temp_of_fd[MAX_FD]; /* which temporary (1, 2, ...) an open fd is; 0: none */
    int short_done[MAX_FD];
    int hits;
} g_f;

int __wrap_mkstemp(char *tmpl);
ssize_t __wrap_writev(int fd, const struct iovec *iov, int n);
ssize_t __real_writev(int fd, const struct iovec *iov, int n);
ssize_t __wrap_write(int fd, const void *buf, size_t n);
int __wrap_fsync(int fd);
int __wrap_close(int fd);
int __wrap_rename(const char *from, const char *to);
int __real_mkstemp(char *tmpl);
int __real_close(int fd);
int __real_fsync(int fd);
int __real_rename(const char *from, const char *to);
ssize_t __real_write(int fd, const void *buf, size_t n);

static int temp_index(int fd) { return fd >= 0 && fd < MAX_FD ? g_f.temp_of_fd[fd] : 0; }

int __wrap_mkstemp(char *tmpl)
{
    int fd;
    if (g_f.kind == F_MKSTEMP && g_f.temps_made + 1 == g_f.nth) {
        g_f.temps_made++;
        g_f.hits++;
        errno = ENOSPC;
        return -1;
    }
    fd = __real_mkstemp(tmpl);
    if (fd >= 0 && fd < MAX_FD) {
        g_f.temp_of_fd[fd] = ++g_f.temps_made;
        g_f.short_done[fd] = 0;
    }
    return fd;
}

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
    const int t = temp_index(fd);
    if (t && t == g_f.nth && g_f.kind == F_WRITE_SHORT_ENOSPC) {
        if (!g_f.short_done[fd] && n > 1) { /* part of it goes, as on a filling disk */
            g_f.short_done[fd] = 1;
            return __real_write(fd, buf, n / 2);
        }
        g_f.hits++;
        errno = ENOSPC;
        return -1;
    }
    if ((t && t == g_f.nth && g_f.kind == F_WRITE_EIO) || (fd == 1 && g_f.kind == F_STDOUT)) {
        g_f.hits++;
        errno = fd == 1 ? ENOSPC : EIO;
        return -1;
    }
    return __real_write(fd, buf, n);
}

/* A pipe's partial writes, at their most awkward: a writev that ends one
 * byte into a piece, so the writer must step past whole pieces and into
 * the next. */
ssize_t __wrap_writev(int fd, const struct iovec *iov, int n)
{
    struct iovec part[2];
    if (fd == 1 && g_f.kind == F_STDOUT) { /* a stream's frames to a full disk */
        g_f.hits++;
        errno = ENOSPC;
        return -1;
    }
    if (g_f.kind != F_WRITEV_SPLIT || n < 2 || iov[1].iov_len < 2)
        return __real_writev(fd, iov, n);
    part[0] = iov[0];
    part[1].iov_base = iov[1].iov_base;
    part[1].iov_len = 1;
    g_f.hits++;
    return __real_writev(fd, part, 2);
}

int __wrap_fsync(int fd)
{
    if (g_f.kind == F_FSYNC && temp_index(fd) == g_f.nth) {
        g_f.hits++;
        errno = EIO;
        return -1;
    }
    return __real_fsync(fd);
}

int __wrap_close(int fd)
{
    const int t = temp_index(fd);
    int rc;
    if (fd >= 0 && fd < MAX_FD)
        g_f.temp_of_fd[fd] = 0; /* the number may be reused from here on */
    rc = __real_close(fd);
    if (rc == 0 && t && t == g_f.nth && g_f.kind == F_CLOSE) {
        g_f.hits++;
        errno = EIO; /* as NFS reports a write that failed late */
        return -1;
    }
    return rc;
}

int __wrap_rename(const char *from, const char *to)
{
    if (strstr(from, ".jf-") && g_f.kind == F_RENAME && ++g_f.renames == g_f.nth) {
        g_f.hits++;
        errno = EIO;
        return -1;
    }
    return __real_rename(from, to);
}

static char g_err[16384];

static void arm(enum fault kind, int nth)
{
    memset(&g_f, 0, sizeof g_f);
    g_f.kind = kind;
    g_f.nth = nth;
}

/* `jetfilter ARGS...` in this process, in g_dir, with stdout to a file
 * (or /dev/null) and stderr captured in g_err; its exit status. */
static int run_here(const char *stdout_file, int argc, char **argv)
{
    char path[512];
    int saved_out = dup(1), saved_err = dup(2), fd, rc;
    FILE *f;
    size_t n;
    char cwd[512];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(g_dir), 0);
    snprintf(path, sizeof path, "%s/stderr.txt", g_dir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    fflush(stdout);
    fflush(stderr);
    dup2(fd, 2);
    __real_close(fd);
    fd = open(stdout_file ? stdout_file : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    dup2(fd, 1);
    __real_close(fd);
    rc = cli_dispatch(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    __real_close(saved_out);
    __real_close(saved_err);
    assert_int_equal(chdir(cwd), 0);
    f = fopen(path, "r");
    assert_non_null(f);
    n = fread(g_err, 1, sizeof g_err - 1, f);
    g_err[n] = '\0';
    fclose(f);
    return rc;
}

static int present(const char *rel)
{
    char path[512];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", g_dir, rel);
    return stat(path, &sb) == 0 && sb.st_size > 0;
}

static void check_image(const char *rel)
{
    char path[512];
    jf_picture p;
    snprintf(path, sizeof path, "%s/%s", g_dir, rel);
    assert_int_equal(jf_picture_read(path, &p), JF_OK);
    assert_int_equal(p.color.width, 451);
    jf_picture_free(&p);
}

static int setup(void **state)
{
    (void)state;
    new_test_dir("in");
    copy_in("samples/images/chelsea.png", "in/a.png", 0);
    copy_in("samples/images/chelsea.png", "in/b.png", 0);
    copy_in("samples/images/chelsea.png", "in/c.png", 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    t_rmtree(g_dir);
    return 0;
}

/* The folder's outputs after a batch in which the second file's output
 * failed as `kind` says: exit 1, that file named with `reason`, the other
 * two whole, no temporary, the inputs as they were. */
static void batch_with(enum fault kind, const char *reason)
{
    char *argv[] = {"jetfilter", "denoise", "in", "-o", "out", "-j", "1", NULL};
    const char *outs[] = {"out/a.png", "out/b.png", "out/c.png"};
    char failed_line[512] = "";
    int i, whole = 0, missing = -1;
    char out_dir[512];
    snprintf(out_dir, sizeof out_dir, "%s/out", g_dir);
    t_rmtree(out_dir);
    arm(kind, 2);
    assert_int_equal(run_here(NULL, 7, argv), JF_EXIT_FAILED);
    if (g_f.hits == 0)
        fail_msg("the fault was never reached: %s", g_err);
    arm(F_NONE, 0);
    if (!strstr(g_err, reason))
        fail_msg("no '%s' in: %s", reason, g_err);
    for (i = 0; i < 3; i++) {
        if (present(outs[i])) {
            check_image(outs[i]);
            whole++;
        } else {
            missing = i;
        }
    }
    assert_int_equal(whole, 2);
    assert_true(missing >= 0);
    snprintf(failed_line, sizeof failed_line, "%s", outs[missing]);
    if (!strstr(g_err, failed_line))
        fail_msg("the failed output %s is not named in: %s", failed_line, g_err);
    assert_int_equal(leftovers(out_dir), 0);
    for (i = 0; i < 3; i++) {
        static const char *ins[] = {"in/a.png", "in/b.png", "in/c.png"};
        check_image(ins[i]);
    }
}

static void test_short_write_then_no_space(void **state)
{
    (void)state;
    batch_with(F_WRITE_SHORT_ENOSPC, "No space left on device");
}

static void test_write_io_error(void **state)
{
    (void)state;
    batch_with(F_WRITE_EIO, "Input/output error");
}

static void test_flush_fails(void **state)
{
    (void)state;
    batch_with(F_FSYNC, "cannot flush to disk");
}

static void test_close_fails(void **state)
{
    (void)state;
    batch_with(F_CLOSE, "write failed: Input/output error");
}

static void test_rename_fails(void **state)
{
    (void)state;
    batch_with(F_RENAME, "cannot rename into place");
}

static void test_no_room_for_the_temporary(void **state)
{
    (void)state;
    batch_with(F_MKSTEMP, "cannot create: No space left on device");
}

/* A video stream written through writevs that stop inside a piece (as a
 * pipe's may): every byte arrives once, in order. */
static void test_video_partial_writes(void **state)
{
    char path[512];
    jf_video_reader *r;
    jf_video_writer *w;
    jf_image a[3][3], b[3];
    jf_video_format fmt;
    const jf_video_format *f;
    int fd, frame, p, got;
    (void)state;
    snprintf(path, sizeof path, "%s/stream-in.y4m", g_dir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(dprintf(fd, "YUV4MPEG2 W7 H5 F25:1 C420jpeg\n") > 0);
    close(fd);
    fd = open(path, O_RDONLY);
    assert_int_equal(jf_video_open_y4m(fd, "in", &r), JF_OK);
    fmt = *jf_video_reader_format(r); /* the reader's goes with it */
    f = &fmt;
    snprintf(path, sizeof path, "%s/stream-out.y4m", g_dir);
    {
        const int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        arm(F_WRITEV_SPLIT, 0);
        assert_int_equal(jf_video_writer_open(out, "out", f, jf_video_reader_header(r), &w), JF_OK);
        for (frame = 0; frame < 3; frame++) {
            for (p = 0; p < f->planes; p++)
                a[frame][p] = t_random_image(f->plane_width[p], f->plane_height[p], f->plane_channels[p],
                                             1 + frame, 5u + (uint64_t)(frame * 3 + p));
            assert_int_equal(jf_video_write(w, a[frame], frame ? "Ib" : NULL), JF_OK);
        }
        assert_true(g_f.hits >= 3);
        arm(F_NONE, 0);
        jf_video_writer_close(w);
        close(out);
    }
    jf_video_reader_close(r);
    close(fd);
    fd = open(path, O_RDONLY);
    assert_int_equal(jf_video_open_y4m(fd, "out", &r), JF_OK);
    for (p = 0; p < f->planes; p++)
        assert_int_equal(jf_image_alloc(&b[p], f->plane_width[p], f->plane_height[p], f->plane_channels[p]),
                         JF_OK);
    for (frame = 0; frame < 3; frame++) {
        assert_int_equal(jf_video_read(r, b, &got), JF_OK);
        assert_int_equal(got, 1);
        assert_string_equal(jf_video_frame_params(r), frame ? "Ib" : "");
        for (p = 0; p < f->planes; p++) {
            assert_true(t_images_equal(&a[frame][p], &b[p]));
            jf_image_free(&a[frame][p]);
        }
    }
    assert_int_equal(jf_video_read(r, b, &got), JF_OK);
    assert_int_equal(got, 0);
    for (p = 0; p < f->planes; p++)
        jf_image_free(&b[p]);
    jf_video_reader_close(r);
    close(fd);
}

/* An image to a full standard output: exit 1 naming it, not 0. */
static void test_standard_output_full(void **state)
{
    char *argv[] = {"jetfilter", "denoise", "in/a.png", "-o", "-", "--format", "png", NULL};
    char out[512];
    (void)state;
    snprintf(out, sizeof out, "%s/stdout.bin", g_dir);
    arm(F_STDOUT, 0);
    assert_int_equal(run_here(out, 7, argv), JF_EXIT_FAILED);
    assert_true(g_f.hits > 0);
    arm(F_NONE, 0);
    if (!strstr(g_err, "standard output") || !strstr(g_err, "No space left on device"))
        fail_msg("standard output's failure not named: %s", g_err);
}

/* The --json report cannot be put in place: exit 1 naming it, the
 * images written, no temporary, no half report. */
static void test_report_fails(void **state)
{
    char *argv[] = {"jetfilter", "denoise", "in", "-o", "rep", "-j", "1", "--json", "report.json", NULL};
    (void)state;
    arm(F_RENAME, 4); /* three images, then the report */
    assert_int_equal(run_here(NULL, 9, argv), JF_EXIT_FAILED);
    assert_int_equal(g_f.hits, 1);
    arm(F_NONE, 0);
    if (!strstr(g_err, "report.json"))
        fail_msg("the report's failure not named: %s", g_err);
    assert_false(present("report.json"));
    check_image("rep/a.png");
    check_image("rep/c.png");
    assert_int_equal(leftovers(g_dir), 0);
}

/* A stream whose output cannot be put in place: exit 1 naming it, and
 * neither the output's temporary nor the --json report's is left. */
static void test_stream_output_fails(void **state)
{
    char path[512];
    char *argv[] = {"jetfilter", "stream", "-i", "two.y4m", "-o", "two-out.y4m", "-k", "3",
                    "--json", "two.json", NULL};
    unsigned char frame[8 * 6 * 3 / 2];
    int fd, i;
    (void)state;
    snprintf(path, sizeof path, "%s/two.y4m", g_dir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(dprintf(fd, "YUV4MPEG2 W8 H6 F25:1 C420jpeg\n") > 0);
    for (i = 0; i < 2; i++) {
        memset(frame, 40 + 90 * i, sizeof frame);
        assert_true(dprintf(fd, "FRAME\n") > 0);
        assert_int_equal(write(fd, frame, sizeof frame), (ssize_t)sizeof frame);
    }
    close(fd);
    arm(F_RENAME, 1);
    assert_int_equal(run_here(NULL, 10, argv), JF_EXIT_FAILED);
    assert_int_equal(g_f.hits, 1);
    arm(F_NONE, 0);
    if (!strstr(g_err, "two-out.y4m"))
        fail_msg("the output's failure not named: %s", g_err);
    assert_false(present("two-out.y4m"));
    assert_int_equal(leftovers(g_dir), 0);
    /* to standard output, which is full: the report's temporary goes too */
    argv[5] = "-";
    snprintf(path, sizeof path, "%s/stdout.bin", g_dir);
    arm(F_STDOUT, 0);
    assert_int_equal(run_here(path, 10, argv), JF_EXIT_FAILED);
    assert_true(g_f.hits > 0);
    arm(F_NONE, 0);
    assert_int_equal(leftovers(g_dir), 0);
    unlink(path);
    snprintf(path, sizeof path, "%s/two.y4m", g_dir);
    unlink(path);
}

/* What an interrupt's handler removes: every temporary still being
 * written, and nothing else (in a child, whose handler has run). */
static void test_interrupt_removes_the_temporaries(void **state)
{
    pid_t pid;
    int status = -1;
    (void)state;
    arm(F_NONE, 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        jf_atomic_file a, b, c;
        char pa[1024], pb[1024], pc[1024];
        snprintf(pa, sizeof pa, "%s/one.png", g_dir);
        snprintf(pb, sizeof pb, "%s/two.png", g_dir);
        snprintf(pc, sizeof pc, "%s/done.png", g_dir);
        if (jf_atomic_open(pa, &a) != JF_OK || jf_atomic_open(pb, &b) != JF_OK ||
            jf_atomic_open(pc, &c) != JF_OK || jf_atomic_commit(&c) != JF_OK)
            _exit(2);
        if (access(a.tmp, F_OK) != 0 || access(b.tmp, F_OK) != 0)
            _exit(3);
        jf_atomic_cleanup();
        _exit(access(a.tmp, F_OK) == 0 || access(b.tmp, F_OK) == 0 ? 4 : access(pc, F_OK) ? 5 : 0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(leftovers(g_dir), 0);
    {   /* the finished file stays */
        char done[1024];
        snprintf(done, sizeof done, "%s/done.png", g_dir);
        assert_int_equal(unlink(done), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_short_write_then_no_space),
        cmocka_unit_test(test_write_io_error),
        cmocka_unit_test(test_flush_fails),
        cmocka_unit_test(test_close_fails),
        cmocka_unit_test(test_rename_fails),
        cmocka_unit_test(test_no_room_for_the_temporary),
        cmocka_unit_test(test_standard_output_full),
        cmocka_unit_test(test_video_partial_writes),
        cmocka_unit_test(test_report_fails),
        cmocka_unit_test(test_stream_output_fails),
        cmocka_unit_test(test_interrupt_removes_the_temporaries),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
