/* Batches as library calls (jetfilter/jobs.h): options by name with the
 * command line's rules, a batch run in this process with each file's
 * result, the report, progress and messages to the caller's callbacks, the
 * process's settings left as they were, and the callers a library meets
 * (a callback that starts a job, jobs from several threads). */
#define _POSIX_C_SOURCE 200809L
#include "cli_util.h"
#include "common.h"
#include "jobs/json.h"

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *at(const char *rel)
{
    static char path[4][600];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", g_dir, rel);
    return p;
}

static int setup(void **state)
{
    (void)state;
    new_test_dir("in");
    assert_int_equal(mkdir(at("in/sub"), 0755), 0);
    copy_in("samples/images/chelsea.png", "in/a.png", 0);
    copy_in("samples/images/rocket.jpg", "in/sub/b.jpg", 0);
    copy_in("samples/images/chelsea.png", "in/broken.png", 900); /* cut short */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    t_rmtree(g_dir);
    return 0;
}

/* A job of `command` over in/ into `out`, on the CPU. */
static jf_job *make_job(const char *command, const char *out)
{
    jf_job *job = NULL;
    assert_int_equal(jf_job_create(command, &job), JF_OK);
    assert_int_equal(jf_job_add_input(job, at("in")), JF_OK);
    assert_int_equal(jf_job_set(job, "output", at(out)), JF_OK);
    if (strcmp(command, "denoise") == 0) /* noise is made on the CPU */
        assert_int_equal(jf_job_set(job, "backend", "cpu"), JF_OK);
    return job;
}

/* Names go into reports as text only when they are UTF-8: every length
 * of sequence at its edges, overlongs, surrogates, past U+10FFFF, a bad
 * continuation in each place, a sequence cut short. */
static void test_utf8_edges(void **state)
{
    static const char *const valid[] = {"", "a", "\xC2\x80", "\xDF\xBF", "\xE0\xA0\x80", "\xED\x9F\xBF",
                                        "\xEF\xBF\xBF", "\xF0\x90\x80\x80", "\xF4\x8F\xBF\xBF",
                                        "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x93\xB7"};
    static const char *const invalid[] = {"\x80", "\xC1\xBF", "\xC2\x41", "\xE0\x9F\x80", "\xED\xA0\x80",
                                          "\xE1\x41\x80", "\xE1\x80\x41", "\xF0\x8F\xBF\xBF",
                                          "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xF1\x41\x80\x80",
                                          "\xF1\x80\x41\x80", "\xF1\x80\x80\x41", "\xF1\x80\x80",
                                          "ok\xFF", "\xC2\x41", "\xE1\x41\x41", "\xF1\x41\x41\x41"};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof valid / sizeof valid[0]; i++)
        if (!json_utf8_valid(valid[i]))
            fail_msg("valid UTF-8 %zu refused", i);
    for (i = 0; i < sizeof invalid / sizeof invalid[0]; i++)
        if (json_utf8_valid(invalid[i]))
            fail_msg("invalid UTF-8 %zu taken", i);
}

static void test_options_by_name_with_the_command_lines_rules(void **state)
{
    jf_job *job = NULL;
    (void)state;
    assert_int_equal(jf_job_create("bench", &job), JF_ERR_ARG);
    assert_null(job);
    assert_non_null(strstr(jf_last_error(), "bench"));
    assert_int_equal(jf_job_create("denoise", &job), JF_OK);
    assert_int_equal(jf_job_set(job, "bogus", "1"), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "unknown option '--bogus'"));
    assert_int_equal(jf_job_set(job, "jobs", "0"), JF_ERR_ARG); /* 1..256 */
    assert_non_null(strstr(jf_last_error(), "--jobs wants a whole number from 1 to 256"));
    assert_int_equal(jf_job_set(job, "jobs", "2.5"), JF_ERR_ARG);
    assert_int_equal(jf_job_set(job, "format", "tiff"), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "'tiff' is not one of"));
    assert_int_equal(jf_job_set(job, "ksize", "-3"), JF_ERR_ARG); /* a parameter's row */
    assert_int_equal(jf_job_set(job, "skip-existing", "maybe"), JF_ERR_ARG);
    assert_int_equal(jf_job_set(job, "skip-existing", "true"), JF_OK);
    assert_int_equal(jf_job_set(job, "skip-existing", "0"), JF_OK);
    assert_int_equal(jf_job_set(job, "device", "0,0"), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "named twice"));
    assert_int_equal(jf_job_set(job, "salt-pepper", "0.1"), JF_ERR_ARG); /* noise's */
    assert_int_equal(jf_job_set(job, "sizes", "64x64"), JF_ERR_ARG);      /* the bench's */
    assert_int_equal(jf_job_set(job, "output", NULL), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "--output needs a value"));
    assert_int_equal(jf_job_set(NULL, "jobs", "1"), JF_ERR_ARG);
    assert_int_equal(jf_job_add_input(job, ""), JF_ERR_ARG);
    /* what the plan decides is refused when the job runs: no output yet */
    assert_int_equal(jf_job_add_input(job, at("in")), JF_OK);
    assert_int_equal(jf_job_run(job), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "-o"));
    assert_null(jf_job_report(job));
    assert_int_equal(jf_job_set(job, "output", at("x")), JF_OK);
    assert_int_equal(jf_job_set(job, "quiet", NULL), JF_OK);
    assert_int_equal(jf_job_set(job, "verbose", NULL), JF_OK);
    assert_int_equal(jf_job_run(job), JF_ERR_ARG); /* as the command line refuses them */
    assert_non_null(strstr(jf_last_error(), "--quiet and --verbose contradict each other"));
    assert_int_equal(run("denoise in -o cli-out --quiet -v"), 2);
    assert_non_null(strstr(g_out, "--quiet and --verbose contradict each other"));
    assert_int_equal(jf_job_set(job, "verbose", "false"), JF_OK);
    assert_int_equal(jf_job_set(job, "filter", "median"), JF_OK);
    assert_int_equal(jf_job_set(job, "sigma", "2"), JF_OK);
    assert_int_equal(jf_job_run(job), JF_ERR_ARG); /* the median has no sigma */
    assert_non_null(strstr(jf_last_error(), "--sigma is not a setting of --filter median"));
    jf_job_destroy(job);
    jf_job_destroy(NULL);
}

typedef struct heard {
    pthread_mutex_t lock;
    int calls, starts, ends, last_done, total, errors, lines;
    char error[512];
} heard;

static void on_progress(void *user, const jf_job_progress *p)
{
    heard *h = (heard *)user;
    pthread_mutex_lock(&h->lock);
    h->calls++;
    if (!p->path && p->done == 0)
        h->starts++;
    else if (!p->path)
        h->ends++;
    if (p->done > h->last_done)
        h->last_done = p->done;
    h->total = p->total;
    pthread_mutex_unlock(&h->lock);
}

static void on_message(void *user, int is_error, const char *text)
{
    heard *h = (heard *)user;
    pthread_mutex_lock(&h->lock);
    h->lines++;
    if (is_error && !h->errors++)
        snprintf(h->error, sizeof h->error, "%s", text);
    pthread_mutex_unlock(&h->lock);
}

static void test_a_batch_in_this_process(void **state)
{
    heard h;
    jf_job *job = make_job("denoise", "out");
    jf_job_file f;
    const char *report;
    int i, ok = 0, failed = 0;
    (void)state;
    memset(&h, 0, sizeof h);
    pthread_mutex_init(&h.lock, NULL);
    assert_int_equal(jf_job_set(job, "jobs", "2"), JF_OK);
    assert_int_equal(jf_job_set(job, "ksize", "5"), JF_OK);
    assert_int_equal(jf_job_set(job, "format", "png"), JF_OK);
    assert_int_equal(jf_job_set(job, "verbose", NULL), JF_OK);
    jf_job_on_progress(job, on_progress, &h);
    jf_job_on_message(job, on_message, &h);
    assert_int_equal(jf_job_run(job), JF_OK); /* ran: one file failed */
    assert_int_equal(jf_job_file_count(job), 3);
    assert_int_equal(jf_job_failed_count(job), 1);
    for (i = 0; i < 3; i++) {
        assert_int_equal(jf_job_file_get(job, i, &f), JF_OK);
        if (f.status == JF_OK) {
            ok++;
            assert_null(f.error);
            assert_non_null(f.output);
            assert_true(exists(f.output + strlen(g_dir) + 1));
        } else {
            failed++;
            assert_string_equal(f.path, "broken.png");
            assert_null(f.output);
            assert_non_null(strstr(f.error, "broken.png"));
        }
    }
    assert_int_equal(ok, 2);
    assert_int_equal(failed, 1);
    assert_int_equal(jf_job_file_get(job, 3, &f), JF_ERR_ARG);
    assert_true(exists("out/a.png") && exists("out/sub/b.png") && !exists("out/broken.png"));
    report = jf_job_report(job);
    assert_non_null(report);
    assert_non_null(strstr(report, "\"command\":\"denoise\""));
    assert_non_null(strstr(report, "\"failed\":1"));
    assert_non_null(strstr(report, "\"ksize\":5"));
    assert_int_equal(h.starts, 1);
    assert_int_equal(h.ends, 1);
    assert_int_equal(h.calls, 3 + 2);
    assert_int_equal(h.last_done, 3);
    assert_int_equal(h.total, 3);
    assert_int_equal(h.errors, 1);
    assert_non_null(strstr(h.error, "broken.png"));
    assert_true(h.lines > h.errors); /* -v: a line per file, the summary */
    assert_int_equal(leftovers(g_dir), 0);
    /* again, the same job: the outputs are there now */
    assert_int_equal(jf_job_set(job, "skip-existing", NULL), JF_OK);
    assert_int_equal(jf_job_run(job), JF_OK);
    for (i = 0, ok = 0; i < jf_job_file_count(job); i++) {
        assert_int_equal(jf_job_file_get(job, i, &f), JF_OK);
        ok += f.skipped;
    }
    assert_int_equal(ok, 2);
    jf_job_destroy(job);
    pthread_mutex_destroy(&h.lock);
}

/* The output of the job equals the command line's, byte for byte. */
static void test_the_same_outputs_as_the_command_line(void **state)
{
    jf_job *job = make_job("noise", "noisy");
    (void)state;
    assert_int_equal(jf_job_set(job, "gaussian", "12"), JF_OK);
    assert_int_equal(jf_job_set(job, "seed", "7"), JF_OK);
    assert_int_equal(jf_job_run(job), JF_OK);
    jf_job_destroy(job);
    assert_int_equal(run("noise in -o noisy-cli --gaussian 12 --seed 7 --quiet"), 1);
    assert_true(files_equal("noisy/a.png", "noisy-cli/a.png"));
    assert_true(files_equal("noisy/sub/b.png", "noisy-cli/sub/b.png"));
}

/* The encoder settings reach the files; a name that is not UTF-8 is in the
 * report as it is, in base64 beside its escaped text. */
static void test_outputs_as_the_options_say(void **state)
{
    jf_job *job;
    size_t none_size, paeth_size;
    unsigned char *a, *b;
    (void)state;
    copy_in("samples/images/chelsea.png", "in/x\xff.png", 0);
    job = make_job("denoise", "none");
    assert_int_equal(jf_job_set(job, "png-filter", "none"), JF_OK);
    assert_int_equal(jf_job_run(job), JF_OK);
    assert_non_null(strstr(jf_job_report(job), "\"path_b64\":\"eP8ucG5n\""));
    jf_job_destroy(job);
    job = make_job("denoise", "paeth");
    assert_int_equal(jf_job_set(job, "png-filter", "paeth"), JF_OK);
    assert_int_equal(jf_job_run(job), JF_OK);
    jf_job_destroy(job);
    a = read_all(at("none/a.png"), &none_size);
    b = read_all(at("paeth/a.png"), &paeth_size);
    assert_non_null(a);
    assert_non_null(b);
    assert_true(none_size != paeth_size || memcmp(a, b, none_size) != 0);
    free(a);
    free(b);
}

/* Shard `index` of 2 of a denoise over in/, its report in `json`. */
static void run_shard(const char *index, const char *out, const char *json, const char *ksize)
{
    jf_job *job = make_job("denoise", out);
    char shard[8];
    snprintf(shard, sizeof shard, "%s/2", index);
    assert_int_equal(jf_job_set(job, "shard", shard), JF_OK);
    assert_int_equal(jf_job_set(job, "json", at(json)), JF_OK);
    assert_int_equal(jf_job_set(job, "ksize", ksize), JF_OK);
    assert_int_equal(jf_job_run(job), JF_OK);
    jf_job_destroy(job);
}

static jf_job *merge_job(const char *a, const char *b)
{
    jf_job *job = NULL;
    assert_int_equal(jf_job_create("report", &job), JF_OK);
    assert_int_equal(jf_job_add_input(job, at(a)), JF_OK);
    assert_int_equal(jf_job_add_input(job, at(b)), JF_OK);
    assert_int_equal(jf_job_set(job, "quiet", NULL), JF_OK);
    return job;
}

/* The shards' reports merged in this process: the job's report is the
 * merged one but its files (which go to "output"); reports of different
 * runs, or a file that is no report, are refused by name. */
static void test_shards_merged_by_a_job(void **state)
{
    jf_job *job;
    size_t size;
    char *merged;
    (void)state;
    run_shard("0", "out", "s0.json", "3");
    run_shard("1", "out", "s1.json", "3");
    run_shard("1", "out5", "k5.json", "5");
    job = merge_job("s0.json", "s1.json");
    assert_int_equal(jf_job_set(job, "output", at("all.json")), JF_OK);
    assert_int_equal(jf_job_set(job, "jobs", "2"), JF_ERR_ARG); /* denoise's, not the merge's */
    assert_int_equal(jf_job_run(job), JF_OK);
    assert_non_null(strstr(jf_job_report(job), "\"files\":3,\"ok\":2,\"failed\":1"));
    assert_non_null(strstr(jf_job_report(job), "\"complete\":true"));
    assert_null(strstr(jf_job_report(job), "\"files\":["));
    merged = (char *)read_all(at("all.json"), &size);
    assert_non_null(merged);
    assert_non_null(strstr(merged, "\"files\":["));
    assert_non_null(strstr(merged, "broken.png"));
    free(merged);
    jf_job_destroy(job);

    job = merge_job("s0.json", "k5.json");
    assert_int_equal(jf_job_run(job), JF_ERR_IO);
    assert_non_null(strstr(jf_last_error(), "different runs"));
    assert_null(jf_job_report(job));
    jf_job_destroy(job);

    job = merge_job("s0.json", "in/a.png");
    assert_int_equal(jf_job_run(job), JF_ERR_IO);
    assert_non_null(strstr(jf_last_error(), "in/a.png: not a jetfilter --json report"));
    jf_job_destroy(job);
}

/* What a job sets for itself (limits, sync, the GPU JPEG check) is the
 * process's again once it ends. */
static void test_the_process_settings_come_back(void **state)
{
    const jf_limits before = jf_get_limits();
    const int check = jf_gpu_jpeg_check();
    jf_job *job = make_job("denoise", "small");
    jf_limits after;
    (void)state;
    assert_int_equal(jf_job_set(job, "max-mpix", "0.01"), JF_OK);
    assert_int_equal(jf_job_set(job, "trust-input", NULL), JF_OK);
    assert_int_equal(jf_job_run(job), JF_OK);
    assert_int_equal(jf_job_failed_count(job), 3); /* every file over the limit */
    jf_job_destroy(job);
    after = jf_get_limits();
    assert_memory_equal(&before, &after, sizeof before);
    assert_int_equal(jf_gpu_jpeg_check(), check);
}

/* Cancelled after the first file: the others are not started, each fails
 * as cancelled; the next run of the job runs whole. */
static void cancels_after_one(void *user, const jf_job_progress *p)
{
    if (p->path && p->done == 1)
        jf_job_cancel((jf_job *)user);
}

static void test_a_cancelled_job_starts_no_more_files(void **state)
{
    jf_job *job = make_job("denoise", "cancel");
    jf_job_file f;
    int i, cancelled = 0;
    (void)state;
    assert_int_equal(jf_job_set(job, "jobs", "1"), JF_OK);
    jf_job_on_progress(job, cancels_after_one, job);
    assert_int_equal(jf_job_run(job), JF_OK);
    assert_int_equal(jf_job_file_count(job), 3);
    for (i = 0; i < 3; i++) {
        assert_int_equal(jf_job_file_get(job, i, &f), JF_OK);
        if (f.error && strstr(f.error, "not processed: the batch was cancelled")) {
            cancelled++;
            assert_false(exists(f.output ? f.output : "cancel/none"));
        }
    }
    assert_int_equal(cancelled, 2);
    assert_int_equal(leftovers(g_dir), 0);
    jf_job_on_progress(job, NULL, NULL);
    assert_int_equal(jf_job_run(job), JF_OK);
    assert_int_equal(jf_job_failed_count(job), 1); /* the damaged file only */
    jf_job_cancel(NULL);
    jf_job_destroy(job);
}

/* A callback that starts a job would wait for its own job: refused. */
static jf_status g_nested = JF_OK;
static void starts_a_job(void *user, const jf_job_progress *p)
{
    jf_job *inner = make_job("denoise", "nested");
    (void)user;
    if (p->path && g_nested == JF_OK)
        g_nested = jf_job_run(inner);
    jf_job_destroy(inner);
}

static void test_a_callback_cannot_start_a_job(void **state)
{
    jf_job *job = make_job("denoise", "outer");
    (void)state;
    jf_job_on_progress(job, starts_a_job, NULL);
    assert_int_equal(jf_job_run(job), JF_OK);
    assert_int_equal(g_nested, JF_ERR_ARG);
    assert_false(exists("nested"));
    jf_job_destroy(job);
}

static void *run_one(void *arg)
{
    jf_job *job = (jf_job *)arg;
    return (void *)(intptr_t)jf_job_run(job);
}

/* Jobs of several threads take turns; each gets its own results. */
static void test_jobs_from_several_threads(void **state)
{
    enum { N = 3 };
    pthread_t th[N];
    jf_job *jobs[N];
    char out[N][16];
    void *rc;
    int i;
    (void)state;
    for (i = 0; i < N; i++) {
        snprintf(out[i], sizeof out[i], "t%d", i);
        jobs[i] = make_job("denoise", out[i]);
        assert_int_equal(jf_job_set(jobs[i], "ksize", i == 0 ? "3" : i == 1 ? "5" : "7"), JF_OK);
        assert_int_equal(pthread_create(&th[i], NULL, run_one, jobs[i]), 0);
    }
    for (i = 0; i < N; i++) {
        assert_int_equal(pthread_join(th[i], &rc), 0);
        assert_int_equal((int)(intptr_t)rc, JF_OK);
        assert_int_equal(jf_job_file_count(jobs[i]), 3);
        assert_int_equal(jf_job_failed_count(jobs[i]), 1);
        assert_non_null(strstr(jf_job_report(jobs[i]), i == 0 ? "\"ksize\":3" : i == 1 ? "\"ksize\":5"
                                                                                   : "\"ksize\":7"));
        jf_job_destroy(jobs[i]);
    }
    assert_false(files_equal("t0/a.png", "t2/a.png"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utf8_edges),
        cmocka_unit_test_setup_teardown(test_options_by_name_with_the_command_lines_rules, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_batch_in_this_process, setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_same_outputs_as_the_command_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outputs_as_the_options_say, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shards_merged_by_a_job, setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_process_settings_come_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_cancelled_job_starts_no_more_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_callback_cannot_start_a_job, setup, teardown),
        cmocka_unit_test_setup_teardown(test_jobs_from_several_threads, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
