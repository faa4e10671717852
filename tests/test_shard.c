/* Shards: --shard parsing and the scheduler variables, the partition of
 * 100,000 paths (balance, and pinned values so a change of hash is caught),
 * then the CLI end to end: one run against four shards run at once with GNU
 * parallel, report merge, --shard auto, --skip-existing, and bad values. */
#define _DEFAULT_SOURCE
#include "common.h"
#include "pipeline/shard.h"

#include <stdarg.h>

/* Values of the hash, worked out once by hand from its definition
 * (FNV-1a 64, then splitmix64's finaliser; a Python one-liner agrees). */
#define PIN_HASH_EMPTY 0xf52a15e9a9b5e89bull
#define PIN_HASH_HOLIDAY 0xc61a0620f4c32231ull
#define PIN_SHARD_4 1
#define PIN_SHARD_7 6
#define PIN_SHARD_100 46
#define PIN_SHARD_UTF8 3

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *const SCHEDULER_VARS[] = {
    "JOB_COMPLETION_INDEX", "JETFILTER_SHARD_COUNT", "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP", NULL};

static void clear_env(void)
{
    int i;
    for (i = 0; SCHEDULER_VARS[i]; i++)
        unsetenv(SCHEDULER_VARS[i]);
}

static int parses(const char *text, int index, int count)
{
    jf_shard s;
    char why[256];
    if (jf_shard_parse(text, &s, why, sizeof why) != 0) {
        print_message("'%s' refused: %s\n", text, why);
        return 0;
    }
    return s.index == index && s.count == count;
}

static int refused(const char *text, const char *reason_part)
{
    jf_shard s;
    char why[256] = "";
    if (jf_shard_parse(text, &s, why, sizeof why) == 0)
        return 0;
    if (reason_part && !strstr(why, reason_part)) {
        print_message("'%s': reason '%s' lacks '%s'\n", text, why, reason_part);
        return 0;
    }
    return 1;
}

static void test_parse(void **state)
{
    static const char *const bad[] = {"3/3", "-1/2", "a/b", "0/0", "1/", "/2", " 1/2", "1/2x",
                                      "1/2/3", "1", "", "+1/2", "0/99999999999", "auto/0",
                                      "auto/x", "autox", "0/1000001"};
    size_t i;
    (void)state;
    clear_env();
    assert_true(parses("0/1", 0, 1));
    assert_true(parses("3/4", 3, 4));
    assert_true(parses("999999/1000000", 999999, 1000000));
    assert_true(parses("000000000003/000000000008", 3, 8)); /* twelve digits, zero-padded */
    assert_true(refused("0000000000003/8", "want INDEX/COUNT"));  /* thirteen */
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (!refused(bad[i], NULL))
            fail_msg("--shard '%s' accepted", bad[i]);
    }
    assert_true(refused("3/3", "below COUNT"));
    assert_true(refused("3/3", "(e.g. 0/3 .. 2/3)"));
    assert_true(refused("0/0", "(e.g. 0/4 .. 3/4)")); /* no count to show: an example's */
}

static void test_auto_from_schedulers(void **state)
{
    jf_shard s;
    char why[256];
    (void)state;
    clear_env();
    assert_true(refused("auto", "neither JOB_COMPLETION_INDEX"));
    /* Kubernetes Indexed Job: the index from the pod, the count given */
    setenv("JOB_COMPLETION_INDEX", "2", 1);
    assert_true(refused("auto", "JETFILTER_SHARD_COUNT"));
    assert_true(parses("auto/5", 2, 5));
    setenv("JETFILTER_SHARD_COUNT", "5", 1);
    assert_int_equal(jf_shard_parse("auto", &s, why, sizeof why), 0);
    assert_int_equal(s.index, 2);
    assert_int_equal(s.count, 5);
    assert_string_equal(s.source, "JOB_COMPLETION_INDEX");
    assert_true(refused("auto/4", "JETFILTER_SHARD_COUNT=5"));
    setenv("JETFILTER_SHARD_COUNT", "2", 1);
    assert_true(refused("auto", "below the count"));
    setenv("JOB_COMPLETION_INDEX", "x", 1);
    assert_true(refused("auto", "not an index"));
    clear_env();
    /* Slurm: --array=5-7 gives ids 5, 6, 7 with MIN 5 and COUNT 3 */
    setenv("SLURM_ARRAY_TASK_ID", "7", 1);
    assert_true(refused("auto", "SLURM_ARRAY_TASK_COUNT"));
    setenv("SLURM_ARRAY_TASK_COUNT", "3", 1);
    setenv("SLURM_ARRAY_TASK_MIN", "5", 1);
    assert_int_equal(jf_shard_parse("auto", &s, why, sizeof why), 0);
    assert_int_equal(s.index, 2);
    assert_int_equal(s.count, 3);
    assert_string_equal(s.source, "SLURM_ARRAY_TASK_ID");
    /* --array=5-9:2 gives 5, 7, 9 */
    setenv("SLURM_ARRAY_TASK_STEP", "2", 1);
    setenv("SLURM_ARRAY_TASK_ID", "9", 1);
    assert_true(parses("auto", 2, 3));
    setenv("SLURM_ARRAY_TASK_ID", "8", 1);
    assert_true(refused("auto", "not in the array"));
    setenv("SLURM_ARRAY_TASK_ID", "4", 1);
    assert_true(refused("auto", "not in the array"));
    setenv("SLURM_ARRAY_TASK_ID", "7", 1);
    setenv("SLURM_ARRAY_TASK_STEP", "0", 1); /* no array steps by 0: refused, never divided by */
    assert_true(refused("auto", "SLURM_ARRAY_TASK_STEP='0' is not a step"));
    setenv("SLURM_ARRAY_TASK_STEP", "2", 1);
    /* auto/N: the task id is the shard, so task 5 re-run alone
     * (sbatch --array=5: MIN 5, COUNT 1) is still shard 5 of 16 */
    clear_env();
    setenv("SLURM_ARRAY_TASK_ID", "5", 1);
    setenv("SLURM_ARRAY_TASK_MIN", "5", 1);
    setenv("SLURM_ARRAY_TASK_COUNT", "1", 1);
    assert_true(parses("auto/16", 5, 16));
    assert_true(refused("auto", "give --shard auto/N"));
    assert_true(refused("auto/4", "below the count"));
    clear_env();
}

/* The key drops the extension, never a dot in a folder name or a leading dot. */
static void test_key(void **state)
{
    (void)state;
    assert_int_equal(jf_shard_key_length("a/b/photo.jpg"), 9);
    assert_int_equal(jf_shard_key_length("photo.tar.png"), 9);
    assert_int_equal(jf_shard_key_length("x.d/noext"), 9);
    assert_int_equal(jf_shard_key_length("x/.hidden"), 9);
    assert_int_equal(jf_shard_key_length(""), 0);
    assert_int_equal(jf_shard_of("d/IMG_1.jpg", 7), jf_shard_of("d/IMG_1.png", 7));
    assert_int_equal(jf_shard_of("anything", 1), 0);
}

/* 100,000 paths shaped like a camera folder tree: every count splits them
 * within a few percent; and the shard of fixed paths is fixed forever. */
static void test_partition(void **state)
{
    static const int counts[] = {2, 3, 4, 7, 16, 100};
    enum { PATHS = 100000 };
    size_t c;
    (void)state;
    for (c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        int n = counts[c], i, *per = (int *)calloc((size_t)n, sizeof *per), lo = PATHS, hi = 0;
        double mean = (double)PATHS / n, tol = n <= 16 ? 0.03 : 0.15;
        char path[64];
        assert_non_null(per);
        for (i = 0; i < PATHS; i++) {
            snprintf(path, sizeof path, "%04d/%02d/IMG_%05d.JPG", 2000 + i / 5000, i / 400 % 12 + 1, i);
            per[jf_shard_of(path, n)]++;
        }
        for (i = 0; i < n; i++) {
            lo = per[i] < lo ? per[i] : lo;
            hi = per[i] > hi ? per[i] : hi;
        }
        print_message("%3d shards: smallest %d, largest %d (mean %.0f)\n", n, lo, hi, mean);
        assert_true(lo >= mean * (1 - tol) && hi <= mean * (1 + tol));
        free(per);
    }
    /* pinned: these numbers change only if the hash does, which would move
     * files between the shards of runs under way */
    assert_true(jf_shard_hash("", 0) == PIN_HASH_EMPTY);
    assert_true(jf_shard_hash("holiday/IMG_0001", 16) == PIN_HASH_HOLIDAY);
    assert_int_equal(jf_shard_of("holiday/IMG_0001.jpg", 4), PIN_SHARD_4);
    assert_int_equal(jf_shard_of("holiday/IMG_0001.jpg", 7), PIN_SHARD_7);
    assert_int_equal(jf_shard_of("2001/03/IMG_00042.JPG", 100), PIN_SHARD_100);
    assert_int_equal(jf_shard_of("caf\xc3\xa9/na\xefve.png", 16), PIN_SHARD_UTF8);
}

/* ---- the command end to end --------------------------------------------------- */

static char g_dir[256];
static char g_out[16384];

static int sh(const char *fmt, ...)
{
    char cmd[8192], full[16384], log[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    snprintf(log, sizeof log, "%s/.log", g_dir);
    snprintf(full, sizeof full, "cd %s && J='%s' && { %s ; } > %s 2>&1 < /dev/null", g_dir,
             JF_CLI_PATH, cmd, log);
    return t_run_logged(full, log, g_out, sizeof g_out);
}

/* The peak resident size, in KB, of a command run in the tree. */
static long peak_kb(const char *cmd)
{
    char full[16384];
    int status;
    long kb;
    snprintf(full, sizeof full, "cd %s && J='%s' && { %s ; } > /dev/null 2>&1 < /dev/null", g_dir,
             JF_CLI_PATH, cmd);
    kb = t_peak_kb(full, &status);
    assert_true(status >= 0 && status != 127);
    return kb;
}

/* A tree of 48 small photos-to-be: JPEG and PNG, grey and colour, three
 * levels deep, names with spaces and UTF-8, one broken file. */
static int setup_tree(void **state)
{
    int i;
    (void)state;
    snprintf(g_dir, sizeof g_dir, "%s", t_make_tmpdir());
    assert_int_equal(sh("mkdir -p 'in/a b/deep' in/c in/caf\xc3\xa9"), 0);
    for (i = 0; i < 47; i++) {
        static const char *const dirs[] = {"in", "in/a b", "in/a b/deep", "in/c", "in/caf\xc3\xa9"};
        jf_picture pic;
        char path[512];
        memset(&pic, 0, sizeof pic);
        pic.color = t_random_image(17 + i * 3, 12 + i, i % 3 ? 3 : 1, 0, 1000 + (uint64_t)i);
        pic.format = i % 2 ? JF_FORMAT_JPEG : JF_FORMAT_PNG;
        snprintf(path, sizeof path, "%s/%s/img %02d.%s", g_dir, dirs[i % 5], i, i % 2 ? "jpg" : "png");
        {
            jf_encode_options e = t_encode_opts(pic.format, 90, 1);
            assert_int_equal(jf_picture_write(path, &pic, &e), JF_OK);
        }
        jf_image_free(&pic.color);
    }
    assert_int_equal(sh("printf 'not a jpeg' > in/c/broken.jpg"), 0);
    return 0;
}

static int teardown_tree(void **state)
{
    (void)state;
    clear_env();
    t_rmtree(g_dir);
    return 0;
}

/* The number after "key": in a JSON report's summary. */
static int summary_count(const char *file, const char *key)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "grep -o '\"summary\":{.*' %s | grep -o '\"%s\":[0-9]*' | cut -d: -f2",
             file, key);
    if (sh("%s", cmd) != 0)
        return -1;
    return atoi(g_out);
}

static void test_four_shards_equal_one_run(void **state)
{
    char means[256];
    int i;
    (void)state;
    if (sh("command -v parallel") != 0)
        fail_msg("GNU parallel is needed for this test (scripts/setup.sh installs it)");
    /* one process */
    assert_int_equal(sh("$J denoise in -o one -k 3 --reference in --json one.json 2>&1 | "
                        "grep 'against the references'"), 0); /* the inputs as their own references */
    snprintf(means, sizeof means, "%.200s", g_out);
    assert_non_null(strstr(means, "(mean of 47): PSNR inf -> "));
    /* four at once, as a scheduler would start them */
    assert_int_equal(sh("parallel -j4 \"$J denoise in -o four -k 3 --reference in --shard {}/4 "
                        "--json s{}.json --quiet\" ::: 0 1 2 3"), 1); /* broken.jpg's shard fails */
    assert_int_equal(sh("diff -r one four"), 0);
    /* no file in two shards, every file in one */
    assert_int_equal(sh("cat s0.json s1.json s2.json s3.json | grep -o '\"path\":\"[^\"]*\"' | sort "
                        "| uniq -d | wc -l"), 0);
    assert_int_equal(atoi(g_out), 0);
    assert_int_equal(sh("cat s0.json s1.json s2.json s3.json | grep -o '\"path\":\"[^\"]*\"' | wc -l"), 0);
    assert_int_equal(atoi(g_out), 48);
    for (i = 0; i < 4; i++) { /* and each shard did some */
        char name[16];
        snprintf(name, sizeof name, "s%d.json", i);
        assert_true(summary_count(name, "files") > 0);
    }
    /* the merge: the single run's counts; exit 1 for the broken file */
    assert_int_equal(sh("$J report merge s0.json s1.json s2.json s3.json -o all.json"), 1);
    assert_non_null(strstr(g_out, "48 files: 47 ok, 1 failed, 0 skipped"));
    assert_non_null(strstr(g_out, "c/broken.jpg"));
    assert_non_null(strstr(g_out, means)); /* the same means as the one run */
    assert_int_equal(summary_count("all.json", "files"), summary_count("one.json", "files"));
    assert_int_equal(summary_count("all.json", "ok"), summary_count("one.json", "ok"));
    assert_int_equal(summary_count("all.json", "failed"), summary_count("one.json", "failed"));
    assert_int_equal(sh("grep -c '\"complete\":true' all.json"), 0);
    /* the merged report merges again, alone */
    assert_int_equal(sh("$J report merge all.json"), 1);
    assert_non_null(strstr(g_out, "47 ok, 1 failed"));

    /* a shard missing, a shard twice, a shard of other settings */
    assert_int_equal(sh("$J report merge s0.json s1.json s3.json"), 1);
    assert_non_null(strstr(g_out, "shard 2 of 4: no report"));
    assert_int_equal(sh("$J report merge s0.json s1.json s2.json s3.json s2.json"), 1);
    assert_non_null(strstr(g_out, "shard 2 of 4 given twice"));
    assert_non_null(strstr(g_out, "counted twice"));
    assert_non_null(strstr(g_out, "5 reports, 4 shards of 4"));
    assert_int_equal(sh("$J denoise in -o k5 -k 5 --reference in --shard 2/4 --json k5.json --quiet; "
                        "$J report merge s0.json s1.json k5.json s3.json"), 1);
    assert_non_null(strstr(g_out, "different settings"));
    assert_non_null(strstr(g_out, "ksize"));
    assert_int_equal(sh("$J report merge s0.json one.json"), 1);
    assert_non_null(strstr(g_out, "number of shards"));
    assert_int_equal(sh("$J report merge s0.json in/c/broken.jpg"), 1);
    assert_non_null(strstr(g_out, "not a jetfilter --json report"));
    /* a report without its settings, or with a shard index past its count */
    assert_int_equal(sh("sed -E 's/\"settings\"[[:space:]]*:/\"settingz\":/' s0.json > nos.json && "
                        "$J report merge nos.json s1.json s2.json s3.json"), 1);
    assert_non_null(strstr(g_out, "no settings or shard record"));
    assert_int_equal(sh("sed -E 's/\"index\"[[:space:]]*:[[:space:]]*0/\"index\": 7/' s0.json > idx.json && "
                        "$J report merge idx.json s1.json s2.json s3.json"), 1);
    assert_non_null(strstr(g_out, "shard record is incomplete"));
    assert_int_equal(sh("$J report merge"), 2);
    assert_int_equal(sh("$J report s0.json"), 2);

    /* a shard re-run with --skip-existing does only what is missing, and
     * its report takes the first run's place in the merge */
    assert_int_equal(sh("for s in 0 1 2 3; do grep -q '\"path\":\"a b/deep/img 02.png\"' s$s.json && "
                        "echo $s; done"), 0);
    {
        const int shard = atoi(g_out);
        char first[16], merge[128];
        int k;
        snprintf(first, sizeof first, "s%d.json", shard);
        (void)sh("rm 'four/a b/deep/img 02.png' && $J denoise in -o four -k 3 --reference in "
                 "--shard %d/4 --skip-existing --json r.json --quiet", shard);
        assert_int_equal(summary_count("r.json", "ok"), 1);
        assert_int_equal(summary_count("r.json", "skipped"), summary_count(first, "ok") - 1);
        assert_int_equal(sh("diff -r one four"), 0);
        merge[0] = '\0';
        for (k = 0; k < 4; k++)
            snprintf(merge + strlen(merge), sizeof merge - strlen(merge), " %s",
                     k == shard ? "r.json" : (snprintf(first, sizeof first, "s%d.json", k), first));
        assert_int_equal(sh("$J report merge%s", merge), 1); /* broken.jpg still fails */
        assert_non_null(strstr(g_out, "48 files: "));
        assert_non_null(strstr(g_out, " 1 failed, "));
        assert_null(strstr(g_out, "do not cover"));
    }
}

static void test_shard_auto_and_bad_values(void **state)
{
    static const char *const bad[] = {"3/3", "-1/2", "a/b", "0/0"};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(sh("$J denoise in -o bad --shard '%s'", bad[i]), 2);
        assert_non_null(strstr(g_out, "--shard"));
        assert_int_equal(sh("test -e bad"), 1); /* refused before anything is made */
    }
    assert_int_equal(sh("$J denoise in -o bad --shard auto"), 2);
    assert_non_null(strstr(g_out, "SLURM_ARRAY_TASK_ID"));
    /* each scheduler's variables give the same files as the explicit shard */
    assert_int_equal(sh("$J denoise in -o ex --shard 1/3 --json ex.json --quiet; true"), 0);
    assert_int_equal(sh("JOB_COMPLETION_INDEX=1 JETFILTER_SHARD_COUNT=3 $J denoise in -o k8s "
                        "--shard auto --json k8s.json --quiet; diff -r ex k8s"), 0);
    assert_int_equal(sh("SLURM_ARRAY_TASK_ID=11 SLURM_ARRAY_TASK_MIN=10 SLURM_ARRAY_TASK_COUNT=3 "
                        "$J denoise in -o slurm --shard auto --json slurm.json --quiet; diff -r ex slurm"), 0);
    assert_int_equal(sh("grep -c '\"source\":\"SLURM_ARRAY_TASK_ID\"' slurm.json"), 0);
    assert_int_equal(sh("JOB_COMPLETION_INDEX=3 JETFILTER_SHARD_COUNT=3 $J denoise in -o bad --shard auto"), 2);
    assert_non_null(strstr(g_out, "below the count"));
    /* more shards than files: the empty ones succeed with nothing to do */
    assert_int_equal(sh("for s in $(seq 0 39); do $J denoise in/c -o many --shard $s/40 --quiet "
                        "--json m$s.json || [ $? = 1 ]; done"), 0);
    assert_int_equal(sh("ls many | wc -l"), 0);
    assert_int_equal(atoi(g_out), 9);
    assert_int_equal(sh("cat m*.json | grep -o '\"path\":\"[^\"]*\"' | sort -u | wc -l"), 0);
    assert_int_equal(atoi(g_out), 10); /* the 9 and broken.jpg, each once */
}

/* Names that are not UTF-8 are written escaped (\udcXX) with their bytes
 * beside them in base64; the merge reads its own escapes back.  Equal
 * settings merge however they were spelled (-k 3, or the default 3). */
static void test_merge_odd_names_and_spellings(void **state)
{
    (void)state;
    assert_int_equal(sh("cp 'in/img 00.png' \"in/$(printf 'caf\\351 latin-1').png\" && "
                        "cp 'in/img 10.png' \"in/$(printf 'x\\377\\376').png\""), 0);
    assert_int_equal(sh("$J denoise in -o o0 --shard 0/2 -k 3 --json e0.json --quiet; "
                        "$J denoise in -o o1 --shard 1/2 --json e1.json --quiet; true"), 0);
    assert_int_equal(sh("grep -c 'udce9' e0.json e1.json | grep -v ':0' | wc -l"), 0);
    assert_true(atoi(g_out) >= 1); /* the escape is in one of the shards */
    assert_int_equal(sh("$J report merge e0.json e1.json -o e.json"), 1); /* broken.jpg */
    assert_null(strstr(g_out, "different settings"));
    assert_null(strstr(g_out, "do not cover"));
    assert_null(strstr(g_out, "not a jetfilter"));
    assert_non_null(strstr(g_out, "50 files: 49 ok, 1 failed"));
    assert_int_equal(sh("$J report merge e.json"), 1); /* the merged report reads back */
    assert_non_null(strstr(g_out, "50 files: 49 ok, 1 failed"));
    /* other settings: said, and not taken for missing files */
    assert_int_equal(sh("$J denoise in -o o2 --shard 1/2 -k 5 --json e2.json --quiet; "
                        "$J report merge e0.json e2.json"), 1);
    assert_non_null(strstr(g_out, "parameters.ksize: 3 against 5"));
    assert_null(strstr(g_out, "do not cover"));
    /* a setting that is not UTF-8 (the suffix), escaped in the reports' heads */
    assert_int_equal(sh("$J denoise in -o o3 --suffix \"_$(printf '\\377')\" --shard 0/2 --json f0.json "
                        "--quiet; $J denoise in -o o3 --suffix \"_$(printf '\\377')\" --shard 1/2 "
                        "--json f1.json --quiet; grep -c 'udcff' f0.json"), 0);
    assert_int_equal(sh("$J report merge f0.json f1.json"), 1); /* broken.jpg */
    assert_non_null(strstr(g_out, "50 files: 49 ok, 1 failed"));
}

/* A report of many files merges in bounded memory: the names are kept as
 * digests, the records copied as they stand; a file in two shards is
 * found among them all, and counted and copied once. */
static void test_merge_many_files(void **state)
{
    const int n = 60000;
    int shard, i;
    long kb;
    (void)state;
    for (shard = 0; shard < 2; shard++) {
        char path[512];
        FILE *f;
        snprintf(path, sizeof path, "%s/big%d.json", g_dir, shard);
        f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "{\"jetfilter\":\"1.7.0\",\"command\":\"denoise\",\"backend\":\"cpu\","
                   "\"settings\":{\"command\":\"denoise\",\"operation\":\"median\"},"
                   "\"shard\":{\"index\":%d,\"count\":2,\"source\":null,\"files_in_inputs\":%d,"
                   "\"files_per_shard\":[%d,%d],\"inputs_digest\":\"0123456789abcdef\"},\"files\":[",
                shard, 2 * n, n, n);
        for (i = 0; i < n; i++) /* the last file of shard 1 is shard 0's first again */
            fprintf(f, "%s{\"path\":\"in/%s/photo-%07d.jpg\",\"status\":\"ok\",\"width\":1920,"
                       "\"height\":1080,\"psnr_in_db\":null,\"psnr_in_db_infinite\":true}",
                    i ? ",\n" : "", shard == 1 && i == n - 1 ? "a" : shard ? "b" : "a",
                    shard == 1 && i == n - 1 ? 0 : i);
        fprintf(f, "],\"summary\":{\"files\":%d,\"seconds\":1.5}}\n", n);
        fclose(f);
    }
    assert_int_equal(sh("$J report merge big0.json big1.json -o big.json"), 1);
    assert_non_null(strstr(g_out, "in/a/photo-0000000.jpg counted twice (big0.json and big1.json)"));
    assert_non_null(strstr(g_out, "119999 files: 119999 ok"));
    assert_int_equal(sh("grep -c photo- big.json"), 0);
    assert_int_equal(atoi(g_out), 119999);
    assert_int_equal(sh("grep -c '\"doubled\":1,\"missing\":1,' big.json"), 0);
    /* memory: what a fixed window and the digests take, not the records */
    kb = peak_kb("$J report merge big0.json big1.json -o big2.json");
    assert_int_equal(sh("cmp big.json big2.json"), 0);
    print_message("merge of 120000 files: %ld KB resident at most\n", kb);
#if !defined(__SANITIZE_ADDRESS__) /* its shadow memory and quarantine are resident too */
    assert_true(kb > 0 && kb < 64 * 1024);
#endif
}

/* A report written as jetfilter writes one, with `records` as its files. */
static void write_report(const char *name, const char *records, int files)
{
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"jetfilter\":\"1.10.0\",\"command\":\"denoise\",\"backend\":\"cpu\","
               "\"settings\":{\"command\":\"denoise\"},\"shard\":{\"index\":0,\"count\":1,"
               "\"source\":null,\"files_in_inputs\":%d,\"files_per_shard\":[%d],"
               "\"inputs_digest\":\"0123456789abcdef\"},\"files\":[%s],"
               "\"summary\":{\"files\":%d,\"seconds\":1}}\n", files, files, records, files);
    fclose(f);
}

/* The merge reads each record in place: what JSON allows is taken (numbers
 * with exponents, escapes, members it does not know), what it does not is
 * refused with the reason, nesting is bounded, and a report without its
 * summary is named as not a report. */
static void test_merge_reads_records_in_place(void **state)
{
    char deep[1200];
    int i, n = 0;
    (void)state;
    write_report("odd.json",
                 "{\"path\":\"a\\u00e9.png\",\"status\":\"ok\",\"width\":2e1,\"height\":10,"
                 "\"x\":[1E+2,-3.5e-7,{\"y\":[true,false,null]}],\"psnr_in_db\":2.5E1,"
                 "\"psnr_out_db\":3e1,\"ssim_in\":0.5,\"ssim_out\":1e0},"
                 "{\"path\":\"b.png\",\"status\":\"ok\",\"width\":10,\"height\":10,"
                 "\"psnr_in_db\":null,\"psnr_in_db_infinite\":true,\"psnr_out_db\":35,"
                 "\"ssim_in\":1,\"ssim_out\":1}", 2);
    assert_int_equal(sh("$J report merge odd.json"), 0);
    assert_non_null(strstr(g_out, "2 files: 2 ok"));
    assert_non_null(strstr(g_out, "PSNR inf -> 32.50 dB, SSIM 0.7500 -> 1.0000"));
    /* an exponent with no digits, a number past a double, a member given
     * twice, a key that is no string, and 100 arrays deep (refused, not
     * followed down the stack) */
    n += snprintf(deep + n, sizeof deep - (size_t)n, "{\"path\":\"a.png\",\"status\":\"ok\",\"x\":");
    for (i = 0; i < 100; i++)
        deep[n++] = '[';
    for (i = 0; i < 100; i++)
        deep[n++] = ']';
    snprintf(deep + n, sizeof deep - (size_t)n, "}");
    {
        const struct {
            const char *record, *why;
        } refused[] = {{"{\"path\":\"a.png\",\"status\":\"ok\",\"x\":1e}", "a number cut short"},
                       {"{\"path\":\"a.png\",\"status\":\"ok\",\"x\":1e999}", "out of range"},
                       {"{\"path\":\"a.png\",\"status\":\"ok\",\"path\":\"b\"}", "given twice"},
                       {"{\"path\":\"a.png\",\"status\":\"ok\",\"x\":{5:1}}", "a string expected"},
                       {deep, "nested too deeply"}};
        for (i = 0; i < (int)(sizeof refused / sizeof refused[0]); i++) {
            write_report("bad.json", refused[i].record, 1);
            assert_int_equal(sh("$J report merge bad.json"), 1);
            if (!strstr(g_out, refused[i].why))
                fail_msg("record %d: no '%s' in: %s", i, refused[i].why, g_out);
        }
    }
    /* a head member Jansson refuses: its reason, not a guess */
    assert_int_equal(sh("printf '{\"jetfilter\":\"1.10.0\",\"command\":\"denoise\",\"settings\":"
                        "{\"a\":1,\"a\":2},\"files\":[]}' > dup.json; $J report merge dup.json"), 1);
    assert_non_null(strstr(g_out, "duplicate object key"));
    /* no summary: not a report */
    assert_int_equal(sh("printf '{\"jetfilter\":\"1.10.0\",\"command\":\"denoise\",\"files\":[]}' "
                        "> nosum.json; $J report merge nosum.json"), 1);
    assert_non_null(strstr(g_out, "no jetfilter, command, files or summary"));
}

/* The batch keeps no list of its files and writes its report as they
 * finish: its peak memory over 50,000 files (with --json, one shard of
 * two) stays within a few MB of a 5,000-file run's.  The files are tiny
 * and broken, so each fails at once and the walk, the records and the
 * report are all there is to measure. */
static void test_batch_memory_is_flat(void **state)
{
    long small, large;
    (void)state;
    assert_int_equal(sh("mkdir -p many && cd many && printf 'not a PNG' > seed && "
                        "for d in $(seq 0 49); do mkdir d$d; done && "
                        "for i in $(seq 0 999); do ln seed d0/f$i.png; done && "
                        "for d in $(seq 1 49); do ln d0/*.png d$d/; done"), 0);
    assert_int_equal(sh("for d in 0 1 2 3 4; do mkdir -p few/d$d && ln many/d$d/*.png few/d$d/; done"), 0);
    small = peak_kb("$J denoise few -o o-few --shard 0/2 --json few.json --quiet");
    large = peak_kb("$J denoise many -o o-many --shard 0/2 --json many.json --quiet");
    assert_int_equal(sh("grep -o '\"files\":[0-9]*,\"ok\"' many.json"), 0);
    print_message("batch peak: %ld KB over 5,000 files, %ld KB over 50,000 (%s)\n", small, large,
                  g_out);
    assert_true(small > 0 && large > 0);
#if !defined(__SANITIZE_ADDRESS__) /* its quarantine holds what was freed */
    assert_true(large < small + 4096);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_auto_from_schedulers),
        cmocka_unit_test(test_key),
        cmocka_unit_test(test_partition),
        cmocka_unit_test_setup_teardown(test_four_shards_equal_one_run, setup_tree, teardown_tree),
        cmocka_unit_test_setup_teardown(test_shard_auto_and_bad_values, setup_tree, teardown_tree),
        cmocka_unit_test_setup_teardown(test_merge_odd_names_and_spellings, setup_tree, teardown_tree),
        cmocka_unit_test_setup_teardown(test_merge_many_files, setup_tree, teardown_tree),
        cmocka_unit_test_setup_teardown(test_merge_reads_records_in_place, setup_tree, teardown_tree),
        cmocka_unit_test_setup_teardown(test_batch_memory_is_flat, setup_tree, teardown_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
