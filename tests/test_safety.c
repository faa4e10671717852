/*
 * Data safety, through the command as a careless or hostile user types it:
 * no command writes over what it reads or over a file it did not write,
 * nothing is passed over in silence, and what grows with the input is
 * bounded, with refusals that name the file, frame or report.
 */
#define _DEFAULT_SOURCE
#include "common.h"
#include "cli_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

/* A tiny Y4M stream: mono 8 x 4, `frames` frames of counting bytes. */
static void write_y4m(const char *rel, int frames)
{
    char buf[512];
    size_t n = (size_t)snprintf(buf, sizeof buf, "YUV4MPEG2 W8 H4 F25:1 Cmono\n");
    int f, i;
    for (f = 0; f < frames; f++) {
        n += (size_t)snprintf(buf + n, sizeof buf - n, "FRAME\n");
        for (i = 0; i < 32; i++)
            buf[n++] = (char)(i * 7 + f);
    }
    write_bytes(rel, buf, n);
}

static int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "%s", t_make_tmpdir());
    assert_int_equal(system((snprintf(g_out, sizeof g_out, "mkdir -p %s/in/sub", g_dir), g_out)), 0);
    copy_in("samples/images/rocket.jpg", "in/rocket.jpg", 0);
    copy_in("tests/data/coffee_grey_a.png", "in/sub/grey.png", 0);
    write_bytes("in/notes.txt", "my notes\n", 9);
    write_y4m("clip.y4m", 3);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    t_rmtree(g_dir);
    return 0;
}

static int same_as_source(const char *rel, const char *source)
{
    char path[2048];
    size_t a = 0, b = 0;
    unsigned char *x, *y;
    int same;
    snprintf(path, sizeof path, "%s/%s", g_dir, rel);
    x = read_all(path, &a);
    y = read_all(t_source_path(source), &b);
    same = x && y && a == b && memcmp(x, y, a) == 0;
    free(x);
    free(y);
    return same;
}

/* Interrupted (Ctrl-C) at three moments of a batch: no temporary is left
 * in the output folder, the batch says how far it got and how to go on, and
 * --skip-existing then finishes it. */
static void test_interrupt_leaves_no_temporaries(void **state)
{
    static const char script[] =
        "mkdir -p many && for i in $(seq 1 200); do cp in/rocket.jpg many/r$i.jpg; done\n"
        "for n in 5 40 100; do\n"
        "  rm -rf out_many\n"
        "  $J denoise many -o out_many -j 2 --no-sync 2> int_$n.txt & p=$!\n"
        "  while kill -0 $p 2> /dev/null && [ $(ls out_many 2> /dev/null | wc -l) -lt $n ]; do sleep 0.01; done\n"
        "  kill -INT $p; wait $p; echo $? > rc_$n.txt\n"
        "  ls -a out_many | grep -c '^[.]jf-' > left_$n.txt\n"
        "done\n"
        "cat rc_*.txt left_*.txt int_*.txt\n";
    (void)state;
    write_bytes("interrupt.sh", script, sizeof script - 1);
    assert_int_equal(shell("J=\"$J\" sh interrupt.sh"), 0);
    assert_int_equal(shell("cat rc_5.txt rc_40.txt rc_100.txt | grep -cx 130 | grep -qx 3"), 0);
    assert_int_equal(shell("cat left_5.txt left_40.txt left_100.txt | grep -cx 0 | grep -qx 3"), 0);
    assert_int_equal(shell("grep -c 'interrupted: [0-9]* of 200 files done; the same command with "
                           "--skip-existing' int_5.txt int_40.txt int_100.txt | grep -c ':1$' | grep -qx 3"), 0);
    assert_int_equal(shell("$J denoise many -o out_many -j 2 --skip-existing --quiet && "
                           "[ $(ls out_many | wc -l) -eq 200 ] && [ $(ls -a out_many | grep -c '^[.]jf-') -eq 0 ]"), 0);
}

/* Outputs a user did not mean: an empty file at -o is not replaced without
 * --force; a link inside the output folder is not written through; a new
 * name without an extension for one input file is a question, not a folder;
 * a failed write to standard output is a failure (exit 1, named); a bad
 * value in the environment is refused by every command. */
static void test_outputs_not_meant(void **state)
{
    char cmd[4096];
    (void)state;
    write_bytes("empty.png", "", 0);
    assert_int_equal(run("denoise in/rocket.jpg -o empty.png"), 2);
    assert_non_null(strstr(g_out, "empty.png exists and is not an image"));
    assert_int_equal(run("denoise in/rocket.jpg -o empty.png --force"), 0);
    assert_int_equal(run("denoise in/rocket.jpg -o noext"), 2);
    assert_non_null(strstr(g_out, "-o noext: no such folder"));
    assert_false(exists("noext"));
    assert_int_equal(run("denoise in/rocket.jpg -o noext/"), 0);
    assert_true(exists("noext/rocket.jpg"));
    snprintf(cmd, sizeof cmd, "mkdir -p %s/links/out %s/foreign && ln -s %s/foreign %s/links/out/sub",
             g_dir, g_dir, g_dir, g_dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(run("denoise in -o links/out"), 1);
    assert_non_null(strstr(g_out, "links/out/sub: a symbolic link"));
    assert_false(exists("foreign/grey.png"));
    assert_true(exists("links/out/rocket.jpg"));
    assert_int_equal(shell("$J metrics in/rocket.jpg in/rocket.jpg > /dev/full"), 1);
    assert_non_null(strstr(g_out, "could not write to standard output"));
    assert_int_equal(shell("$J info > /dev/full"), 1);
    assert_int_equal(shell("$J info --json - > /dev/full"), 1);
    assert_int_equal(shell("JETFILTER_BACKEND=bogus $J info"), 2);
    assert_non_null(strstr(g_out, "JETFILTER_BACKEND=bogus"));
    assert_int_equal(run("denoise in -o o2 --block 65536x65536"), 2);
    assert_non_null(strstr(g_out, "--block 65536x65536"));
}

/* --json naming an input (given, inside an input folder, or through a link)
 * is refused before any work, naming both; the input is untouched. */
static void test_report_never_over_an_input(void **state)
{
    (void)state;
    /* a shell glob of photos puts the first one after --json */
    assert_int_equal(run("denoise --json in/rocket.jpg in/sub/grey.png -o out/"), 2);
    assert_non_null(strstr(g_out, "--json in/rocket.jpg is an image, not a report"));
    assert_int_equal(run("denoise --json in/rocket.jpg in/sub/grey.png -o out/ --force"), 2);
    assert_false(exists("out"));
    assert_int_equal(run("denoise in -o out --json in/sub/grey.png"), 2);
    assert_non_null(strstr(g_out, "would write over the input in"));
    assert_int_equal(symlink("in/rocket.jpg", (snprintf(g_out, sizeof g_out, "%s/link.jpg", g_dir), g_out)), 0);
    assert_int_equal(run("denoise in -o out --json link.jpg"), 2);
    assert_int_equal(run("denoise in -o out --json in/../in/rocket.jpg"), 2);
    assert_true(same_as_source("in/rocket.jpg", "samples/images/rocket.jpg"));
    assert_true(same_as_source("in/sub/grey.png", "tests/data/coffee_grey_a.png"));
    assert_false(exists("out"));
    /* the other commands that read and write */
    assert_int_equal(run("noise in -o noisy --salt-pepper 0.1 --json in/rocket.jpg"), 2);
    assert_int_equal(run("metrics in/rocket.jpg in/rocket.jpg --json in/rocket.jpg"), 2);
    assert_int_equal(run("stream -i clip.y4m -o out.y4m --json clip.y4m"), 2);
    assert_true(same_as_source("in/rocket.jpg", "samples/images/rocket.jpg"));
}

/* A stream's output is never its input or its reference; a merged report
 * never one of the reports it reads. */
static void test_outputs_never_over_inputs(void **state)
{
    size_t before = 0, after = 0;
    unsigned char *a, *b;
    char path[1024];
    (void)state;
    snprintf(path, sizeof path, "%s/clip.y4m", g_dir);
    a = read_all(path, &before);
    assert_int_equal(run("stream -i clip.y4m -o clip.y4m -k 3"), 2);
    assert_non_null(strstr(g_out, "-o clip.y4m would write over the input clip.y4m"));
    assert_int_equal(run("stream -i clip.y4m -o ./clip.y4m --reference clip.y4m"), 2);
    write_y4m("ref.y4m", 3);
    assert_int_equal(run("stream -i clip.y4m -o ref.y4m --reference ref.y4m"), 2);
    b = read_all(path, &after);
    assert_true(a && b && before == after && memcmp(a, b, before) == 0);
    free(a);
    free(b);
    assert_int_equal(run("stream -i clip.y4m -o filtered.y4m -k 3"), 0);
    assert_int_equal(run("denoise in -o o0 --shard 0/2 --json s0.json"), 0);
    assert_int_equal(run("denoise in -o o1 --shard 1/2 --json s1.json"), 0);
    assert_int_equal(run("report merge s0.json s1.json -o s0.json"), 2);
    assert_non_null(strstr(g_out, "would write over the input s0.json"));
    assert_int_equal(run("report merge s0.json s1.json -o all.json"), 0);
    /* the files a command reads besides its inputs: a kernel, a bench's photo */
    write_bytes("k.png", "0 0 0\n0 1 0\n0 0 0\n", 18);
    assert_int_equal(run("denoise in/rocket.jpg -o k.png -f conv --kernel k.png --force"), 2);
    assert_non_null(strstr(g_out, "would write over the input k.png"));
    assert_int_equal(run("bench --photo in/rocket.jpg --json in/rocket.jpg"), 2);
    assert_non_null(strstr(g_out, "would write over the input in/rocket.jpg"));
    assert_true(same_as_source("in/rocket.jpg", "samples/images/rocket.jpg"));
}

/* An existing file that jetfilter did not write is replaced only with
 * --force; its own reports are replaced (a re-run); an empty name, two
 * outputs in one file, and a folder are refused before any work. */
static void test_existing_files_and_names(void **state)
{
    (void)state;
    assert_int_equal(run("denoise in -o out --json in/notes.txt"), 2);
    assert_non_null(strstr(g_out, "exists and is not a file jetfilter wrote"));
    assert_false(exists("out"));
    write_bytes("notes.md", "# mine\n", 7);
    assert_int_equal(run("denoise in -o out --json notes.md"), 2);
    assert_int_equal(run("denoise in -o out --json notes.md --force"), 0);
    assert_int_equal(run("denoise in -o out --json r.json"), 0);
    assert_int_equal(run("denoise in -o out --json r.json"), 0); /* its own report */
    assert_int_equal(run("denoise in -o out2 --json ''"), 2);
    assert_non_null(strstr(g_out, "an empty file name"));
    assert_false(exists("out2"));
    assert_int_equal(run("denoise in -o out2 --json in"), 2);
    assert_int_equal(run("bench --random --size 16x16 -k 3 --reps 1 --warmup 0 --backend cpu "
                         "--json t.out --csv t.out"), 2);
    assert_non_null(strstr(g_out, "are one file"));
    assert_int_equal(run("bench --random --size 16x16 -k 3 --reps 1 --warmup 0 --backend cpu "
                         "--csv notes.md"), 2);
    assert_int_equal(run("bench --random --size 16x16 -k 3 --reps 1 --warmup 0 --backend cpu "
                         "--csv t.csv --json t.json"), 0);
    assert_int_equal(run("bench --random --size 16x16 -k 3 --reps 1 --warmup 0 --backend cpu "
                         "--csv t.csv --json t.json"), 0); /* its own table and report */
}

/* A folder deeper than the limit is a named failure (exit 1), not a
 * silent skip; --max-depth reads it.  -v names every entry passed over
 * with its whole path and reason, however long. */
static void test_nothing_passed_over_in_silence(void **state)
{
    char rel[2048] = "deep", path[4096];
    size_t n = strlen(rel);
    int d;
    (void)state;
    for (d = 0; d < 70; d++) {
        snprintf(path, sizeof path, "%s/%s", g_dir, rel);
        mkdir(path, 0755);
        n += (size_t)snprintf(rel + n, sizeof rel - n, "/folder-%02d", d);
    }
    snprintf(path, sizeof path, "%s/%s", g_dir, rel);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/bottom.png", rel);
    copy_in("tests/data/coffee_grey_a.png", path, 0);
    assert_int_equal(run("denoise deep -o deep_out"), 1);
    assert_non_null(strstr(g_out, "deeper than 64 levels"));
    assert_non_null(strstr(g_out, "--max-depth"));
    assert_non_null(strstr(g_out, "0 ok, 1 failed"));
    assert_int_equal(run("denoise deep -o deep_out --max-depth 100"), 0);
    assert_non_null(strstr(g_out, "1 ok, 0 failed"));
    /* a FIFO and a dangling link with images' names: failures, named */
    snprintf(path, sizeof path, "%s/deep/fifo.png", g_dir);
    assert_int_equal(mkfifo(path, 0644), 0);
    snprintf(path, sizeof path, "%s/deep/gone.jpg", g_dir);
    assert_int_equal(symlink("nowhere.jpg", path), 0);
    snprintf(path, sizeof path, "%s/deep/pipe", g_dir);
    assert_int_equal(mkfifo(path, 0644), 0);
    assert_int_equal(run("denoise deep -o deep_out2 --max-depth 100 -v"), 1);
    assert_non_null(strstr(g_out, "deep/fifo.png: cannot read: a FIFO"));
    assert_non_null(strstr(g_out, "deep/gone.jpg: cannot read: dangling symbolic link"));
    assert_non_null(strstr(g_out, "1 ok, 2 failed"));
    assert_non_null(strstr(g_out, "deep/pipe (a FIFO, not a file; not an image's name)"));
    assert_non_null(strstr(g_out, "1 file in the folders passed over: not images"));
    /* -v lines are whole: the deepest path and its reason */
    assert_non_null(strstr(g_out, "folder-69/bottom.png"));
}

/* Earlier outputs of --suffix in an input folder are their own count. */
static void test_earlier_outputs_counted_apart(void **state)
{
    (void)state;
    assert_int_equal(run("denoise in -o in --suffix _dn"), 0);
    assert_int_equal(run("denoise in -o in --suffix _dn"), 0);
    assert_non_null(strstr(g_out, "2 files passed over: named as outputs (--suffix _dn)"));
    assert_non_null(strstr(g_out, "1 file in the folders passed over: not images"));
}

/* --skip-existing skips only finished outputs: a file at the output's name
 * that is empty, cut short or older than its input is made again. */
static void test_skip_existing_checks_outputs(void **state)
{
    char path[1024];
    struct timeval earlier[2];
    (void)state;
    assert_int_equal(system((snprintf(path, sizeof path, "mkdir -p %s/fresh/sub", g_dir), path)), 0);
    copy_in("samples/images/rocket.jpg", "fresh/rocket.jpg", 0);
    copy_in("tests/data/coffee_grey_a.png", "fresh/sub/grey.png", 0);
    copy_in("samples/images/retina.jpg", "fresh/retina.jpg", 0);
    assert_int_equal(run("denoise fresh -o done -k 3"), 0);
    assert_true(files_equal("done/rocket.jpg", "done/rocket.jpg"));
    copy_in("samples/images/rocket.jpg", "done/rocket.jpg", 5000); /* cut short */
    write_bytes("done/sub/grey.png", "", 0);                      /* empty */
    /* an output from before its input changed */
    snprintf(path, sizeof path, "%s/done/retina.jpg", g_dir);
    gettimeofday(&earlier[0], NULL);
    earlier[0].tv_sec -= 100000;
    earlier[1] = earlier[0];
    assert_int_equal(utimes(path, earlier), 0);
    assert_int_equal(run("denoise fresh -o done -k 3 --skip-existing -v"), 0);
    assert_non_null(strstr(g_out, "3 ok, 0 failed, 0 skipped"));
    assert_non_null(strstr(g_out, "cut short"));
    assert_non_null(strstr(g_out, "empty or cut short"));
    assert_non_null(strstr(g_out, "older than its input"));
    assert_int_equal(run("denoise fresh -o done -k 3 --skip-existing"), 0);
    assert_non_null(strstr(g_out, "0 ok, 0 failed, 3 skipped"));
    /* what is made again is said with -v only */
    copy_in("samples/images/rocket.jpg", "done/rocket.jpg", 5000);
    assert_int_equal(run("denoise fresh -o done -k 3 --skip-existing"), 0);
    assert_non_null(strstr(g_out, "1 ok, 0 failed, 2 skipped"));
    assert_null(strstr(g_out, "redo"));
    snprintf(path, sizeof path, "%s/done/rocket.jpg", g_dir);
    {
        jf_picture pic;
        assert_int_equal(jf_picture_read(path, &pic), JF_OK); /* made again, whole */
        jf_picture_free(&pic);
    }
}

/* Peak resident memory (KB) of `jetfilter ARGS` run in g_dir, and its exit
 * status in *rc. */
static long peak_kb(int *rc, const char *args)
{
    char cmd[4096];
    long kb;
    snprintf(cmd, sizeof cmd, "cd %s && exec %s %s > /dev/null 2> .err < /dev/null", g_dir,
             JF_CLI_PATH, args);
    kb = t_peak_kb(cmd, rc);
    if (*rc != 0) { /* its messages, for the failure's report */
        char path[512];
        size_t n;
        char *err;
        snprintf(path, sizeof path, "%s/.err", g_dir);
        if ((err = (char *)read_all(path, &n)) != NULL)
            print_message("%s: exit %d: %.2000s\n", args, *rc, err);
        free(err);
    }
    return kb;
}

/* A stream's frames in flight are held to --max-memory: a 36-byte header
 * that asks for gigabytes is refused at once, naming the header. */
static void test_stream_memory_budget(void **state)
{
    static const char header[] = "YUV4MPEG2 W16384 H16384 C444alpha\n";
    char path[1024];
    int rc;
    long kb;
    (void)state;
    write_bytes("huge.y4m", header, sizeof header - 1);
    kb = peak_kb(&rc, "stream -i huge.y4m -o huge_out.y4m --max-memory 4000 --backend cpu");
    assert_int_equal(rc, 1);
    assert_true(kb < 200 * 1024);
    snprintf(path, sizeof path, "%s/.err", g_dir);
    {
        size_t n;
        char *err = (char *)read_all(path, &n);
        assert_non_null(err);
        assert_non_null(strstr(err, "huge.y4m: YUV4MPEG2 W16384 H16384 C444alpha"));
        assert_non_null(strstr(err, "--max-memory"));
        free(err);
    }
    assert_false(exists("huge_out.y4m"));
    /* raw frames the same */
    assert_int_equal(run("stream -i huge.y4m --raw 16384x16384 --pix-fmt gray -o - --max-memory 100"), 1);
    assert_non_null(strstr(g_out, "over the memory budget of 100 MB"));
}

/* What a killed stream left in its output folder is removed by the next
 * stream into that folder, as denoise does. */
static void test_stream_removes_stale_temporaries(void **state)
{
    char path[1024];
    struct timeval old[2];
    (void)state;
    assert_int_equal(system((snprintf(path, sizeof path, "mkdir -p %s/streams", g_dir), path)), 0);
    write_bytes("streams/.jf-4000000-AbCdEf", "half a stream", 13);
    snprintf(path, sizeof path, "%s/streams/.jf-4000000-AbCdEf", g_dir);
    gettimeofday(&old[0], NULL);
    old[0].tv_sec -= 3600;
    old[1] = old[0];
    assert_int_equal(utimes(path, old), 0);
    assert_int_equal(run("stream -i clip.y4m -o streams/out.y4m -k 3"), 0);
    assert_false(exists("streams/.jf-4000000-AbCdEf"));
    assert_non_null(strstr(g_out, "removed 1 temporary file"));
    assert_true(exists("streams/out.y4m"));
}

/* Frames under SSIM's 11 x 11 window: SSIM is "not computed" (null in the
 * report), never 0; PSNR of identical frames is infinite. */
static void test_stream_ssim_not_computed(void **state)
{
    char path[1024], *json;
    size_t n;
    (void)state;
    assert_int_equal(run("stream -i clip.y4m -o same.y4m -k 1 --reference clip.y4m --json same.json"), 0);
    assert_non_null(strstr(g_out, "SSIM not computed"));
    assert_null(strstr(g_out, "SSIM 0.0000"));
    snprintf(path, sizeof path, "%s/same.json", g_dir);
    json = (char *)read_all(path, &n);
    assert_non_null(json);
    assert_non_null(strstr(json, "\"mean_ssim_y\":null"));
    assert_non_null(strstr(json, "\"ssim_y\":null"));
    free(json);
}

/* The report of a stream is written as the frames come: memory does not
 * grow with the number of frames. */
static void test_stream_report_bounded(void **state)
{
    char *buf;
    size_t n, i, at = 0;
    int rc, f;
    long few, many;
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    skip(); /* AddressSanitizer's quarantine holds freed memory: resident by design */
#endif
    buf = malloc(40 + (size_t)200000 * 38);
    assert_non_null(buf);
    at = strlen("YUV4MPEG2 W8 H4 F25:1 Cmono\n");
    memcpy(buf, "YUV4MPEG2 W8 H4 F25:1 Cmono\n", at);
    for (f = 0; f < 200000; f++) {
        memcpy(buf + at, "FRAME\n", 6);
        at += 6;
        for (i = 0; i < 32; i++)
            buf[at++] = (char)(i + (size_t)f);
    }
    write_bytes("long.y4m", buf, at);
    n = strlen("YUV4MPEG2 W8 H4 F25:1 Cmono\n") + (size_t)2000 * 38; /* its first 2000 frames */
    write_bytes("short.y4m", buf, n);
    free(buf);
    few = peak_kb(&rc, "stream -i short.y4m -o /dev/null -k 3 --json short.json --backend cpu");
    assert_int_equal(rc, 0);
    many = peak_kb(&rc, "stream -i long.y4m -o /dev/null -k 3 --json long.json --backend cpu");
    assert_int_equal(rc, 0);
    /* 100 times the frames; what a frame record or a latency would have kept: 15 MB */
    assert_true(many < few + 4 * 1024);
    assert_true(exists("long.json"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_never_over_an_input),
        cmocka_unit_test(test_outputs_never_over_inputs),
        cmocka_unit_test(test_existing_files_and_names),
        cmocka_unit_test(test_outputs_not_meant),
        cmocka_unit_test(test_interrupt_leaves_no_temporaries),
        cmocka_unit_test(test_nothing_passed_over_in_silence),
        cmocka_unit_test(test_earlier_outputs_counted_apart),
        cmocka_unit_test(test_skip_existing_checks_outputs),
        cmocka_unit_test(test_stream_memory_budget),
        cmocka_unit_test(test_stream_removes_stale_temporaries),
        cmocka_unit_test(test_stream_ssim_not_computed),
        cmocka_unit_test(test_stream_report_bounded),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
