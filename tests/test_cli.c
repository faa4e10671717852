/* The jetfilter command end to end, on a temporary folder holding good and
 * broken files: outputs, exit codes, messages, and nothing left half-done. */
#define _DEFAULT_SOURCE
#include "common.h"

#include <math.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>

#include "cli_util.h"

static int setup(void **state)
{
    char path[512];
    (void)state;
    snprintf(g_dir, sizeof g_dir, "%s", t_make_tmpdir());
    snprintf(path, sizeof path, "%s/in/sub", g_dir);
    assert_int_equal(system((snprintf(g_out, sizeof g_out, "mkdir -p %s %s/bad", path, g_dir), g_out)), 0);
    copy_in("samples/images/rocket.jpg", "in/rocket.jpg", 0);
    copy_in("tests/data/coffee_grey_a.png", "in/sub/grey.png", 0);
    copy_in("tests/data/chelsea_noisy.png", "in/CHELSEA.PNG", 0);
    copy_in("tests/data/small_40x12_a.png", "in/no_extension", 0);
    write_bytes("in/notes.txt", "not an image\n", 13);
    write_bytes("bad/empty.jpg", "", 0);
    write_bytes("bad/text.jpg", "hello, I am text\n", 17);
    copy_in("samples/images/rocket.jpg", "bad/cut.jpg", 40000);
    copy_in("samples/images/coffee.png", "bad/cut.png", 100000);
    {
        /* IHDR claiming 100000 x 100000, CRC correct */
        static const unsigned char huge[] = {
            0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R',
            0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0, 8, 2, 0, 0, 0, 0x27, 0x30, 0x9C, 0x9F};
        write_bytes("bad/huge.png", huge, sizeof huge);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    t_rmtree(g_dir);
    return 0;
}

static void test_batch_with_broken_files(void **state)
{
    size_t n1, n2;
    unsigned char *before = read_all(t_source_path("samples/images/rocket.jpg"), &n1), *after;
    char path[1024];
    (void)state;
    assert_int_equal(run("denoise in bad -o out -k 3"), 1);
    /* the good files, mirrored; nothing for the broken ones */
    assert_true(exists("out/rocket.jpg"));
    assert_true(exists("out/sub/grey.png"));
    assert_true(exists("out/CHELSEA.PNG"));
    assert_true(exists("out/no_extension"));
    assert_false(exists("out/notes.txt"));
    assert_false(exists("out/empty.jpg") || exists("out/text.jpg") || exists("out/cut.jpg") ||
                 exists("out/cut.png") || exists("out/huge.png"));
    /* one line per broken file, naming it and the reason */
    assert_non_null(strstr(g_out, "bad/empty.jpg: empty file"));
    assert_non_null(strstr(g_out, "bad/text.jpg: not a JPEG, PNG, TIFF, WebP or PFM file"));
    assert_non_null(strstr(g_out, "bad/cut.jpg: premature end of JPEG file"));
    assert_non_null(strstr(g_out, "bad/cut.png: "));
    assert_non_null(strstr(g_out, "bad/huge.png: PNG header: 100000x100000 exceeds the limit"));
    assert_non_null(strstr(g_out, "4 ok, 5 failed, 0 skipped"));
    assert_non_null(strstr(g_out, "1 file in the folders passed over: not images"));
    snprintf(path, sizeof path, "%s/out", g_dir);
    assert_int_equal(leftovers(path), 0);
    /* inputs untouched */
    snprintf(path, sizeof path, "%s/in/rocket.jpg", g_dir);
    after = read_all(path, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(before, after, n1);
    free(before);
    free(after);
}

static void test_usage_errors(void **state)
{
    (void)state;
    assert_int_equal(run("denoise in -o out2 -k 4"), 2);
    assert_non_null(strstr(g_out, "ksize 4: want an odd whole number from 1 to 255"));
    assert_int_equal(run("denoise in -o out2 -k -3"), 2);
    assert_int_equal(run("denoise in -o out2 -k 999"), 2);
    assert_int_equal(run("denoise in -o out2 -f box -k 65"), 2);
    assert_int_equal(run("denoise in"), 2);
    assert_non_null(strstr(g_out, "-o OUTDIR"));
    assert_int_equal(run("denoise in -o out2 --no-such-option"), 2);
    assert_non_null(strstr(g_out, "unknown option '--no-such-option'"));
    assert_int_equal(run("denoise in -o out2 -b sideways"), 2);
    assert_non_null(strstr(g_out, "zero, replicate, reflect, mirror"));
    assert_int_equal(run("frobnicate"), 2);
    write_bytes("bad_kernel.txt", "1 2 3\n4 five 6\n7 8 9\n", 21);
    assert_int_equal(run("denoise in -o out2 -f conv --kernel bad_kernel.txt"), 2);
    assert_non_null(strstr(g_out, "bad_kernel.txt:2: 'five' is not a number"));
    write_bytes("nul_kernel.txt", "1 2 3\n4 5 6\n7 8 9\n", 19); /* with its NUL byte */
    assert_int_equal(run("denoise in -o out2 -f conv --kernel nul_kernel.txt"), 2);
    assert_non_null(strstr(g_out, "nul_kernel.txt: holds a NUL byte at offset 18"));
    assert_int_equal(run("denoise in -o out2 -f conv"), 2);
    assert_int_equal(run("noise in -o out2"), 2);
    /* writing into an input folder needs --suffix */
    assert_int_equal(run("denoise in -o in/clean"), 2);
    assert_non_null(strstr(g_out, "inside input folder"));
    assert_int_equal(run("denoise in -o in"), 2); /* the input itself */
    assert_non_null(strstr(g_out, "inside input folder"));
    /* beside the input, in a folder to be made under one that exists: not inside it */
    assert_int_equal(shell("mkdir -p nest/t"), 0);
    copy_in("samples/images/chelsea.png", "nest/t/a.png", 0);
    assert_int_equal(run("denoise nest/t -o nest/x -k 3 --quiet"), 0);
    assert_true(exists("nest/x/a.png"));
    assert_false(exists("out2"));
    assert_int_equal(run("--version"), 0);
    assert_non_null(strstr(g_out, JF_VERSION_STRING));
    assert_int_equal(run("denoise --help"), 0);
    assert_non_null(strstr(g_out, "--border MODE"));
    /* `help COMMAND` is that command's help, the first command's too */
    assert_int_equal(run("help denoise"), 0);
    assert_non_null(strstr(g_out, "--border MODE"));
    assert_int_equal(run("help serve"), 0);
    assert_non_null(strstr(g_out, "--max-request"));
    /* --device: one index, a list or all for denoise; one only elsewhere */
    assert_int_equal(run("denoise in -o out2 --device 0,0"), 2);
    assert_non_null(strstr(g_out, "named twice"));
    assert_int_equal(run("denoise in -o out2 --device x"), 2);
    assert_int_equal(run("denoise in -o out2 --device -1"), 2);
    assert_int_equal(run("denoise in -o out2 --device 0,"), 2);
    assert_int_equal(run("bench --device 0,1"), 2);
    assert_non_null(strstr(g_out, "one device at a time"));
    assert_int_equal(run("bench --device all"), 2);
    assert_int_equal(run("report --help"), 0);
    assert_non_null(strstr(g_out, "merge REPORT.json"));
    assert_false(exists("out2"));
}

#define NO_GPU_TEXT(out) (strstr(out, "no usable GPU") || strstr(out, "no CUDA device") || \
                         strstr(out, "built without CUDA"))

/* --backend cuda where there is no device: one clear line, exit 1, nothing
 * made; auto falls back to the CPU, saying so once (a CPU-only build only
 * with -v: it has no GPU by choice), never with --quiet. */
static void test_cuda_backend_without_device(void **state)
{
    (void)state;
    if (jf_built_with_cuda() && jf_device_count() > 0)
        skip();
    assert_int_equal(run("denoise in/rocket.jpg -o cuda_out/ --backend cuda"), 1);
    assert_true(NO_GPU_TEXT(g_out));
    assert_false(exists("cuda_out")); /* not even the folder */
    assert_int_equal(run("denoise in/rocket.jpg -o env_out/"), 0);
    assert_int_equal(run("denoise in/rocket.jpg -o auto_out/"), 0);
    if (jf_built_with_cuda()) {
        assert_non_null(strstr(g_out, "using the CPU"));
        assert_null(strstr(strstr(g_out, "using the CPU") + 1, "using the CPU")); /* once */
    } else {
        assert_null(strstr(g_out, "using the CPU"));
        assert_int_equal(run("denoise in/rocket.jpg -o auto_out/ -v"), 0);
        assert_non_null(strstr(g_out, "using the CPU"));
    }
    assert_int_equal(run("denoise in/rocket.jpg -o auto_out/ --quiet"), 0);
    assert_string_equal(g_out, "");
    assert_true(exists("auto_out/rocket.jpg"));
    /* so does --device all, with no device to spread over */
    assert_int_equal(run("denoise in/rocket.jpg -o all_out/ --device all -j 2 -v"), 0);
    assert_non_null(strstr(g_out, "using the CPU"));
    assert_true(exists("all_out/rocket.jpg"));
    /* calibrate measures the GPU: without one it says so and writes nothing */
    assert_int_equal(run("calibrate --quick -o calib.profile"), 1);
    assert_true(NO_GPU_TEXT(g_out));
    assert_false(exists("calib.profile"));
    assert_int_equal(run("calibrate --bogus"), 2);
}

/* Per-machine defaults from the environment, held to the options' rules,
 * listed in --help; the command line wins. */
static void test_environment_defaults(void **state)
{
    (void)state;
    if (jf_built_with_cuda() && jf_device_count() > 0)
        skip();
    assert_int_equal(run("denoise --help"), 0);
    assert_non_null(strstr(g_out, "JETFILTER_BACKEND"));
    assert_non_null(strstr(g_out, "JETFILTER_THREADS"));
    setenv("JETFILTER_BACKEND", "cuda", 1);
    assert_int_equal(run("denoise in/rocket.jpg -o env_cuda/"), 1); /* as --backend cuda */
    assert_true(NO_GPU_TEXT(g_out));
    assert_int_equal(run("denoise in/rocket.jpg -o env_cpu/ --backend cpu"), 0);
    assert_null(strstr(g_out, "using the CPU"));
    setenv("JETFILTER_BACKEND", "gpu", 1);
    assert_int_equal(run("denoise in/rocket.jpg -o env_bad/"), 2);
    assert_non_null(strstr(g_out, "JETFILTER_BACKEND=gpu"));
    setenv("JETFILTER_BACKEND", "cpu", 1);
    setenv("JETFILTER_THREADS", "-3", 1);
    assert_int_equal(run("metrics in/rocket.jpg in/rocket.jpg"), 2);
    assert_non_null(strstr(g_out, "JETFILTER_THREADS=-3"));
    unsetenv("JETFILTER_THREADS");
    assert_int_equal(run("denoise in/rocket.jpg -o env_ok/ -v"), 0);
    assert_null(strstr(g_out, "using the CPU")); /* asked for: nothing to say */
    unsetenv("JETFILTER_BACKEND");
}

static void test_unwritable_output(void **state)
{
    (void)state;
    write_bytes("a_file", "x", 1);
    assert_int_equal(run("denoise in -o a_file/out"), 1);
    assert_non_null(strstr(g_out, "a_file"));
    assert_non_null(strstr(g_out, "not a folder"));
}

/* Inputs with no image in them fail and say so, whether the folder is
 * empty or holds only other files; nothing is written. */
static void test_no_images_found(void **state)
{
    (void)state;
    assert_int_equal(shell("mkdir -p empty other && echo notes > other/notes.txt"), 0);
    assert_int_equal(run("denoise empty -o out_empty"), 1);
    assert_non_null(strstr(g_out, "no JPEG or PNG files found"));
    assert_int_equal(run("denoise other -o out_other"), 1);
    assert_non_null(strstr(g_out, "no JPEG or PNG files found"));
    assert_int_equal(shell("find out_empty out_other -type f 2>/dev/null | wc -l | grep -qx 0"), 0);
}

static void test_median_output_exact_every_border(void **state)
{
    static const char *borders[] = {"zero", "replicate", "reflect", "mirror"};
    char path[1024];
    int b;
    (void)state;
    for (b = 0; b < 4; b++) {
        jf_picture in, out;
        jf_image want;
        assert_int_equal(run("denoise in/sub/grey.png -o med_%s/ -k 5 -b %s --backend cpu",
                             borders[b], borders[b]), 0);
        snprintf(path, sizeof path, "%s/in/sub/grey.png", g_dir);
        assert_int_equal(jf_picture_read(path, &in), JF_OK);
        snprintf(path, sizeof path, "%s/med_%s/grey.png", g_dir, borders[b]);
        assert_int_equal(jf_picture_read(path, &out), JF_OK);
        want = t_poisoned_like(&in.color, 0);
        t_median_reference(&in.color, 5, (jf_border)b, &want);
        assert_true(t_images_equal(&out.color, &want));
        jf_image_free(&want);
        jf_picture_free(&in);
        jf_picture_free(&out);
    }
}

static void test_metrics_command(void **state)
{
    (void)state;
    assert_int_equal(run("metrics in/CHELSEA.PNG in/CHELSEA.PNG --json"), 0);
    assert_non_null(strstr(g_out, "\"psnr_db\":null,\"psnr_db_infinite\":true"));
    assert_non_null(strstr(g_out, "\"ssim\":1"));
    assert_non_null(strstr(g_out, "\"mse\":0"));
    assert_int_equal(run("metrics in/CHELSEA.PNG in/CHELSEA.PNG"), 0);
    assert_non_null(strstr(g_out, "psnr_db  inf"));
    copy_in("samples/images/chelsea.png", "clean_chelsea.png", 0);
    assert_int_equal(run("metrics clean_chelsea.png in/CHELSEA.PNG --json"), 0);
    /* the scikit-image figures of tests/data/reference_metrics.txt */
    assert_non_null(strstr(g_out, "\"psnr_db\":22.1653947"));
    assert_non_null(strstr(g_out, "\"ssim\":0.3618752"));
    assert_int_equal(run("metrics clean_chelsea.png in/sub/grey.png"), 1);
    assert_non_null(strstr(g_out, "cannot compare"));
    {   /* one dimension apart is enough: the same size in grey, one row fewer */
        jf_picture clean, other;
        char path[2048];
        jf_encode_options e = jf_encode_defaults();
        int y, x, k;
        e.format = JF_FORMAT_PNG;
        snprintf(path, sizeof path, "%s/clean_chelsea.png", g_dir);
        assert_int_equal(jf_picture_read(path, &clean), JF_OK);
        for (k = 0; k < 2; k++) {
            const int ch = k == 0 ? 1 : clean.color.channels, h = clean.color.height - k;
            memset(&other, 0, sizeof other);
            assert_int_equal(jf_image_alloc(&other.color, clean.color.width, h, ch), JF_OK);
            for (y = 0; y < h; y++)
                for (x = 0; x < clean.color.width * ch; x++)
                    other.color.data[(size_t)y * other.color.stride + x] =
                        clean.color.data[(size_t)y * clean.color.stride + x];
            snprintf(path, sizeof path, "%s/apart%d.png", g_dir, k);
            assert_int_equal(jf_picture_write(path, &other, &e), JF_OK);
            jf_picture_free(&other);
            assert_int_equal(run("metrics clean_chelsea.png apart%d.png", k), 1);
            assert_non_null(strstr(g_out, "cannot compare"));
        }
        jf_picture_free(&clean);
    }
    assert_int_equal(run("metrics clean_chelsea.png in/CHELSEA.PNG in/CHELSEA.PNG"), 2);
    /* one image: its noise, Gaussian of level 20 added to the clean photo */
    assert_int_equal(run("metrics in/CHELSEA.PNG --json"), 0);
    {
        const char *s = strstr(g_out, "\"noise\":{\"sigma\":");
        double sigma;
        assert_non_null(s);
        sigma = atof(s + 17);
        if (sigma < 18.0 || sigma > 22.0)
            fail_msg("metrics: the noise of in/CHELSEA.PNG read as sigma %g, not about 20", sigma);
    }
    assert_int_equal(run("metrics clean_chelsea.png"), 0);
    assert_non_null(strstr(g_out, "noise_sigma"));
}

static void test_reference_json_skip_and_jobs(void **state)
{
    size_t n;
    char path[1024];
    char *json;
    (void)state;
    assert_int_equal(run("noise in -o noisy --salt-pepper 0.08 --seed 5"), 0);
    assert_int_equal(run("denoise noisy -o clean -k 3 --reference in --json report.json -j 3"), 0);
    assert_non_null(strstr(g_out, "against the references"));
    snprintf(path, sizeof path, "%s/report.json", g_dir);
    json = (char *)read_all(path, &n);
    assert_non_null(json);
    json[n] = '\0';
    assert_non_null(strstr(json, "\"ok\":4"));
    assert_non_null(strstr(json, "\"psnr_out_db\""));
    assert_non_null(strstr(json, "\"name\":\"median\""));
    free(json);
    /* median removes most impulse noise: the summary says how much */
    assert_non_null(strstr(g_out, "PSNR "));
    /* same outputs with one job as with three */
    assert_int_equal(run("denoise noisy -o clean1 -k 3 -j 1 --quiet"), 0);
    assert_int_equal(system((snprintf(path, sizeof path, "cmp -s %s/clean/sub/grey.png %s/clean1/sub/grey.png",
                                      g_dir, g_dir), path)), 0);
    /* resume */
    assert_int_equal(run("denoise noisy -o clean -k 3 --skip-existing"), 0);
    assert_non_null(strstr(g_out, "0 ok, 0 failed, 4 skipped"));
    /* same seed, same noise */
    assert_int_equal(run("noise in -o noisy2 --salt-pepper 0.08 --seed 5 --quiet"), 0);
    assert_int_equal(system((snprintf(path, sizeof path, "cmp -s %s/noisy/CHELSEA.PNG %s/noisy2/CHELSEA.PNG",
                                      g_dir, g_dir), path)), 0);
    /* 0 is a density and a seed as any other, not the default */
    assert_int_equal(run("noise in/CHELSEA.PNG -o zero.png --salt-pepper 0 --quiet"), 0);
    assert_int_equal(run("metrics in/CHELSEA.PNG zero.png"), 0);
    assert_non_null(strstr(g_out, "inf"));
    assert_int_equal(run("noise in -o noisy0 --salt-pepper 0.08 --seed 0 --quiet"), 0);
    assert_int_not_equal(system((snprintf(path, sizeof path, "cmp -s %s/noisy/CHELSEA.PNG %s/noisy0/CHELSEA.PNG",
                                          g_dir, g_dir), path)), 0);
    assert_int_equal(run("noise in -o noisy1 --salt-pepper 0.08 --seed 1 --quiet"), 0);
    assert_int_not_equal(system((snprintf(path, sizeof path, "cmp -s %s/noisy0/CHELSEA.PNG %s/noisy1/CHELSEA.PNG",
                                          g_dir, g_dir), path)), 0);
}

/* A number after "key": in a JSON text (the first one). */
static double json_number(const char *json, const char *key)
{
    char pat[64];
    const char *p;
    snprintf(pat, sizeof pat, "\"%s\":", key);
    p = strstr(json, pat);
    if (!p)
        fail_msg("no %s in %s", key, json);
    return strtod(p + strlen(pat), NULL);
}

static char *read_text(const char *rel)
{
    char path[1024];
    size_t n;
    char *text;
    snprintf(path, sizeof path, "%s/%s", g_dir, rel);
    text = (char *)read_all(path, &n);
    assert_non_null(text);
    text[n] = '\0';
    return text;
}

/* Lines of a file in the test's folder. */
static int count_lines(const char *rel)
{
    char *text = read_text(rel), *c;
    int lines = 0;
    for (c = text; *c; c++)
        lines += *c == '\n';
    free(text);
    return lines;
}

/* Occurrences of `what` in `text`. */
static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (; (text = strstr(text, what)) != NULL; text++)
        n++;
    return n;
}

/* The impulse filters end to end: noise, denoise against the reference,
 * the decision and the estimate in the report, the gain over the median. */
static void test_impulse_filters(void **state)
{
    char *med, *aut;
    double p_med, p_auto;
    (void)state;
    assert_int_equal(system((snprintf(g_out, sizeof g_out, "mkdir -p %s/imp/clean", g_dir), g_out)), 0);
    copy_in("samples/images/chelsea.png", "imp/clean/chelsea.png", 0);
    assert_int_equal(run("noise imp/clean -o imp/noisy --salt-pepper 0.4 --seed 2 --quiet"), 0);
    assert_int_equal(run("denoise imp/noisy -o imp/med -f median -k 5 --reference imp/clean "
                         "--json imp/med.json --quiet"), 0);
    assert_int_equal(run("denoise imp/noisy -o imp/auto -f auto-impulse --reference imp/clean "
                         "--json imp/auto.json -v"), 0);
    assert_non_null(strstr(g_out, "switching-median k<="));
    med = read_text("imp/med.json");
    aut = read_text("imp/auto.json");
    assert_non_null(strstr(aut, "\"decision\":\"switching-median k<="));
    assert_true(fabs(json_number(aut, "impulse_density") - 0.4) < 0.02);
    p_med = json_number(med, "psnr_out_db");
    p_auto = json_number(aut, "psnr_out_db");
    if (p_auto < p_med + 5.0)
        fail_msg("auto-impulse %.2f dB, median k=5 %.2f dB", p_auto, p_med);
    free(med);
    free(aut);
    /* a window given by hand is used and named */
    assert_int_equal(run("denoise imp/noisy -o imp/auto13 -f auto-impulse --max-ksize 13 --json -"), 0);
    assert_non_null(strstr(g_out, "switching-median k<=13 refine"));
    /* a clean image is left as it is */
    assert_int_equal(run("denoise imp/clean -o imp/same -f auto-impulse --reference imp/clean --json -"), 0);
    assert_non_null(strstr(g_out, "\"decision\":\"none (clean)\""));
    /* the other two filters, and their window checked */
    assert_int_equal(run("denoise imp/noisy -o imp/ad -f adaptive-median --max-ksize 9 --quiet"), 0);
    assert_int_equal(run("denoise imp/noisy -o imp/sw -f switching-median --variant cpu --quiet"), 0);
    assert_int_equal(run("denoise imp/noisy -o imp/x -f switching-median --max-ksize 4"), 2);
    assert_non_null(strstr(g_out, "odd"));
    assert_int_equal(run("denoise imp/noisy -o imp/x -f switching-median --variant shared"), 2);
    assert_int_equal(run("denoise imp/noisy -o imp/x -f median --max-ksize 5"), 2);
    assert_non_null(strstr(g_out, "max-ksize"));
}

/* bench on the CPU backend: a tiny sweep, its CSV and JSON. */
static void test_bench_cpu(void **state)
{
    char *text;
    (void)state;
    assert_int_equal(run("bench --backends cpu --sizes 33x17,64x3 --ksizes 3,5 --reps 2 "
                         "--ceiling-mb 16 --photo %s --csv b.csv --json b.json",
                         t_source_path("samples/images/rocket.jpg")), 0);
    assert_non_null(strstr(g_out, "CPU copy ceiling"));
    text = read_text("b.csv");
    assert_non_null(strstr(text, "tag,backend,width,height,channels,operation,border,variant,ksize,"));
    free(text);
    assert_int_equal(count_lines("b.csv"), 1 + 2 * 2 * 2); /* header + sizes x ksizes x filters */
    text = read_text("b.json");
    assert_non_null(strstr(text, "\"copy_ceiling_gbps_cpu\":"));
    assert_non_null(strstr(text, "\"power_mode_id\":"));
    assert_non_null(strstr(text, "\"operation\":\"conv\""));
    /* the command as given, the program's name first; a cell for each CSV row */
    assert_non_null(strstr(text, "jetfilter bench --backends cpu --sizes 33x17,64x3 --ksizes 3,5"));
    assert_null(strstr(text, "\"command\":\"bench --backends"));
    assert_int_equal(count_of(text, "\"ksize\":"), 2 * 2 * 2);
    free(text);
    /* more cells than the first allocation holds (256): every one kept */
    assert_int_equal(run("bench --backends cpu --sizes 9x7,8x8,5x5,7x3,3x9,6x6 --ksizes 3,5,7,9,11,13,15,17 "
                         "-f median,box,erode --channels 1,3,4 --reps 1 --warmup 0 --json many.json --quiet"), 0);
    text = read_text("many.json");
    assert_int_equal(count_of(text, "\"ksize\":"), 6 * 8 * 3 * 3);
    assert_int_equal(count_of(text, "\"channels\":4"), 6 * 8 * 3);
    free(text);
    /* bad lists are usage errors */
    assert_int_equal(run("bench --backends cpu --ksizes 4"), 2);
    assert_int_equal(run("bench --backends cpu --sizes 10by10"), 2);
    assert_int_equal(run("bench --backends cpu --filters blur"), 2);
    /* numbers out of the list's range, each end */
    assert_int_equal(run("bench --backend cpu --channels 0"), 2);
    assert_non_null(strstr(g_out, "bad channel list '0'"));
    assert_int_equal(run("bench --backend cpu --channels 2"), 2);
    assert_non_null(strstr(g_out, "channels are 1, 3 or 4"));
    assert_int_equal(run("bench --backend cpu --depth 8,100001"), 2);
    assert_non_null(strstr(g_out, "bad depth list '8,100001'"));
}

/* The bench keeps what fixes a kernel as denoise does: --sigma gives the
 * Gaussian its k (2 ceil(3 sigma) + 1) while the median sweeps the default
 * sizes; --kernel measures that file's weights at its size, and a -k that
 * disagrees with the file, or a setting no filter has, is a usage error. */
static void test_bench_fixed_settings(void **state)
{
    static const char k5[] = "1 1 1 1 1\n1 2 2 2 1\n1 2 4 2 1\n1 2 2 2 1\n1 1 1 1 1\n";
    char *text;
    const char *photo = t_source_path("samples/images/rocket.jpg");
    (void)state;
    assert_int_equal(run("bench --backend cpu --size 33x17 -f gauss,median --sigma 2 --reps 1 "
                         "--ceiling-mb 4 --photo %s --csv s.csv --quiet", photo), 0);
    assert_int_equal(count_lines("s.csv"), 1 + 1 + 5);
    text = read_text("s.csv");
    assert_non_null(strstr(text, ",gauss,replicate,cpu-fixed,13,")); /* what `auto` runs */
    assert_null(strstr(text, ",gauss,replicate,cpu-fixed,3,"));
    assert_non_null(strstr(text, ",median,replicate,cpu,11,"));
    free(text);
    write_bytes("k5.txt", k5, sizeof k5 - 1);
    assert_int_equal(run("bench --backend cpu --size 33x17 -f conv --kernel k5.txt --reps 1 "
                         "--ceiling-mb 4 --photo %s --csv c.csv --quiet", photo), 0);
    assert_int_equal(count_lines("c.csv"), 2);
    text = read_text("c.csv");
    assert_non_null(strstr(text, ",conv,replicate,cpu,5,1,")); /* not rank 1: the 2-D loop */
    free(text);
    assert_int_equal(run("bench --backend cpu -f conv --kernel k5.txt -k 3,5"), 2);
    assert_non_null(strstr(g_out, "holds a 5x5 kernel"));
    assert_int_equal(run("bench --backend cpu -f median --sigma 2"), 2);
    assert_non_null(strstr(g_out, "--sigma is not a setting of any --filter given"));
    /* the border's and variant's defaults are no settings given: SSIM, which
     * takes neither, runs; given, they are refused as any other */
    assert_int_equal(run("bench --backend cpu --size 33x17 -f ssim --reps 1 --ceiling-mb 4 "
                         "--photo %s --csv m.csv --quiet", photo), 0);
    assert_int_equal(count_lines("m.csv"), 2);
    assert_int_equal(run("bench --backend cpu -f ssim --variant fast"), 2);
    assert_non_null(strstr(g_out, "--variant is not a setting of any --filter given"));
    assert_int_equal(run("bench --backend cpu -f ssim --border zero"), 2);
    assert_non_null(strstr(g_out, "--border is not a setting of any --filter given"));
    assert_int_equal(run("bench --backend cpu -f conv --kernel missing.txt"), 2);
    assert_non_null(strstr(g_out, "missing.txt"));
}

/* One word for one idea: the bench takes the same option names as denoise
 * (lists where it sweeps), the old plural spellings still work, --quiet
 * prints no header, a tag with a comma stays one CSV field, and the fast
 * convolution past k = 11 (where it does not exist) gives no row. */
static void test_bench_options(void **state)
{
    char *text;
    const char *photo = t_source_path("samples/images/rocket.jpg");
    (void)state;
    assert_int_equal(run("bench --backend cpu --size 33x17 --ksize 3,13 --filter median,gauss,pad,ssim "
                         "--border zero,mirror --variant fast --reps 2 --ceiling-mb 4 --photo %s "
                         "--csv o.csv --tag 'mode 0, 10 W' --quiet", photo), 0);
    assert_null(strstr(g_out, "# jetfilter"));
    assert_int_equal(count_lines("o.csv"), 1 + 2 * 2 * 3 + 1);
    text = read_text("o.csv");
    assert_non_null(strstr(text, "\n\"mode 0, 10 W\",cpu,"));
    assert_non_null(strstr(text, ",pad,"));
    assert_non_null(strstr(text, ",ssim,"));
    free(text);
    assert_int_equal(run("bench --backends cpu --sizes 33x17 --ksizes 3 --filters median --borders zero "
                         "--reps 2 --ceiling-mb 4 --photo %s --csv p.csv", photo), 0);
    assert_int_equal(count_lines("p.csv"), 2);
    assert_non_null(strstr(g_out, "# reps per cell"));
    assert_int_equal(run("bench --backend cpu --filter salt-pepper"), 2);
    assert_int_equal(run("denoise in -o x --ksize 3,5"), 2);
    assert_non_null(strstr(g_out, "takes one value"));
    assert_int_equal(run("denoise in -o x -f median --sigma 2"), 2);
    assert_non_null(strstr(g_out, "--sigma is not a setting of --filter median"));
    assert_int_equal(run("denoise in -o x --block 1000000x1000000"), 2);
    assert_int_equal(run("denoise in -o x --quiet -v"), 2);
    assert_false(exists("x"));
}

/* --json FILE everywhere, '-' for standard output; metrics and info keep a
 * bare --json (standard output) for one release, never taking an image
 * name as the file. */
static void test_json_everywhere(void **state)
{
    (void)state;
    assert_int_equal(run("metrics in/CHELSEA.PNG in/CHELSEA.PNG --json -"), 0);
    assert_non_null(strstr(g_out, "\"psnr_db\":null,\"psnr_db_infinite\":true"));
    assert_int_equal(run("metrics --json in/CHELSEA.PNG in/CHELSEA.PNG"), 0);
    assert_non_null(strstr(g_out, "\"ssim\":1"));
    assert_int_equal(run("metrics --json m.json in/CHELSEA.PNG in/CHELSEA.PNG"), 0);
    assert_true(exists("m.json"));
    assert_int_equal(run("info --json"), 0);
    assert_non_null(strstr(g_out, "\"operations\":[\"median\""));
    assert_int_equal(run("info --json i.json"), 0);
    assert_true(exists("i.json"));
    /* a --json that cannot be written fails before any work */
    assert_int_equal(run("denoise in -o never --json no/such/dir/r.json"), 2);
    assert_false(exists("never"));
}

/* Odd names and folders: a name of 250 bytes is written (the temporary name
 * is short); a non-UTF-8 name stays valid JSON (escaped, plus base64 of the
 * bytes); a newline in a name is escaped on stderr; a temporary left by a
 * killed run is removed; an -o refused inside the input creates nothing. */
static void test_odd_names(void **state)
{
    char name[300], path[1024], *text;
    size_t n;
    struct stat sb;
    struct utimbuf old = {1000000000, 1000000000};
    (void)state;
    mkdir((snprintf(path, sizeof path, "%s/odd", g_dir), path), 0755);
    memset(name, 'n', 246);
    memcpy(name + 246, ".png", 5);
    copy_in("tests/data/small_40x12_a.png", (snprintf(path, sizeof path, "odd/%s", name), path), 0);
    copy_in("tests/data/small_40x12_a.png", "odd/caf\xe9.png", 0);
    copy_in("tests/data/small_40x12_a.png", "odd/two\nlines.png", 0);
    mkdir((snprintf(path, sizeof path, "%s/odd_out", g_dir), path), 0755);
    write_bytes("odd_out/.jf-999999-aB3dE9", "half", 4); /* pid 999999: no such process */
    utime((snprintf(path, sizeof path, "%s/odd_out/.jf-999999-aB3dE9", g_dir), path), &old);
    assert_int_equal(run("denoise odd -o odd_out --json odd.json --no-sync"), 0);
    assert_true(exists((snprintf(path, sizeof path, "odd_out/%s", name), path)));
    assert_false(exists("odd_out/.jf-999999-aB3dE9"));
    assert_non_null(strstr(g_out, "removed 1 temporary file"));
    snprintf(path, sizeof path, "%s/odd.json", g_dir);
    text = (char *)read_all(path, &n);
    assert_non_null(text);
    text[n] = '\0';
    assert_non_null(strstr(text, "caf\\udce9.png"));
    assert_non_null(strstr(text, "\"input_b64\":\""));
    assert_non_null(strstr(text, "two\\u000alines.png"));
    free(text);
    write_bytes("odd/broken\nname.png", "not a png", 9);
    assert_int_equal(run("denoise \"$(printf 'odd/broken\\nname.png')\" -o odd_out2/"), 1);
    assert_non_null(strstr(g_out, "broken\\x0aname.png"));
    /* refused -o inside the input: no folder made */
    assert_int_equal(run("denoise odd -o odd/new/deeper"), 2);
    assert_int_not_equal(stat((snprintf(path, sizeof path, "%s/odd/new", g_dir), path), &sb), 0);
}

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    size_t i;
    int k;
    for (i = 0; i < n; i++) {
        c ^= p[i];
        for (k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    }
    return ~c;
}

/* Metadata that the output format cannot carry is named with -v and in the
 * JSON report, not dropped in silence. */
static void test_metadata_notes(void **state)
{
    static const unsigned char text[] = "tEXtComment\0made by a test";
    char path[1024], *report;
    unsigned char *png, *out, crc[4];
    size_t n, m = sizeof text - 1;
    uint32_t c = crc32_of(text, m);
    (void)state;
    png = read_all(t_source_path("tests/data/small_40x12_a.png"), &n);
    assert_non_null(png);
    /* signature and IHDR (33 bytes), our tEXt, the rest */
    out = (unsigned char *)malloc(n + m + 8);
    memcpy(out, png, 33);
    out[33] = 0; out[34] = 0; out[35] = 0; out[36] = (unsigned char)(m - 4);
    memcpy(out + 37, text, m);
    crc[0] = (unsigned char)(c >> 24); crc[1] = (unsigned char)(c >> 16);
    crc[2] = (unsigned char)(c >> 8); crc[3] = (unsigned char)c;
    memcpy(out + 37 + m, crc, 4);
    memcpy(out + 41 + m, png + 33, n - 33);
    write_bytes("texted.png", out, n + m + 8);
    assert_int_equal(run("denoise texted.png -o as_jpg/ --format jpg -v --json notes.json"), 0);
    assert_non_null(strstr(g_out, "1 PNG text chunk not written"));
    snprintf(path, sizeof path, "%s/notes.json", g_dir);
    report = (char *)read_all(path, &n);
    assert_non_null(report);
    report[n] = '\0';
    assert_non_null(strstr(report, "\"notes\":\"1 PNG text chunk not written"));
    free(report);
    free(out);
    free(png);
}

/* `jetfilter serve`: requests as JSON lines, one answer line each and
 * nothing else on standard output; each request runs as the same command
 * line would alone (no setting carries over to the next: limits, --quiet),
 * its output where it asked; bad requests answered, not fatal. */
static void test_serve(void **state)
{
    static const char *const requests[] = {
        "[\"denoise\", \"in/rocket.jpg\", \"-o\", \"serve_a/\", \"-k\", \"5\", \"--backend\", \"cpu\", \"--quiet\"]",
        "",
        "[\"denoise\", \"in/rocket.jpg\", \"-o\", \"serve_b/\", \"--max-mpix\", \"0.01\", \"--backend\", \"cpu\"]",
        "{\"args\": [\"denoise\", \"in/rocket.jpg\", \"-o\", \"serve_b/\", \"--backend\", \"cpu\"], \"stderr\": \"serve_err.txt\"}",
        "[\"info\"]",
        "[\"serve\"]",
        "[\"denoise\", 5]",
        "not json",
        "{\"args\": [\"info\"], \"stdin\": \"x\"}",
        "[\"denoise\", \"in/rocket.jpg\", \"-o\", \"serve_c/\", \"-k\", \"4\"]",
        /* arguments as bytes in base64 (padded, and not) */
        "[\"denoise\", {\"b64\": \"aW4vcm9ja2V0LmpwZw==\"}, \"-o\", {\"b64\": \"c2VydmVfZDkv\"}, "
        "\"--backend\", \"cpu\", \"--quiet\"]",
        "[\"info\", {\"b64\": \"aW5=mZv\"}]",
    };
    static const char *const answers[] = {
        "{\"exit\":0,", "{\"exit\":1,", "{\"exit\":0,", "{\"exit\":0,", "{\"exit\":2,",
        "{\"exit\":2,", "{\"exit\":2,", "{\"exit\":2,", "{\"exit\":2,", "{\"exit\":0,",
        "{\"exit\":2,",
    };
    char path[512], *line, *next;
    unsigned char *text;
    size_t n, i;
    FILE *f;
    (void)state;
    snprintf(path, sizeof path, "%s/requests.txt", g_dir);
    assert_non_null(f = fopen(path, "w"));
    for (i = 0; i < sizeof requests / sizeof requests[0]; i++)
        fprintf(f, "%s\n", requests[i]);
    fclose(f);
    assert_int_equal(shell("$J serve < requests.txt > serve_answers.txt 2> serve_log.txt"), 0);
    snprintf(path, sizeof path, "%s/serve_answers.txt", g_dir);
    assert_non_null(text = read_all(path, &n));
    for (i = 0, line = (char *)text; line && *line; i++, line = next) {
        next = strchr(line, '\n');
        assert_non_null(next);
        *next++ = '\0';
        assert_true(i < sizeof answers / sizeof answers[0]);
        if (strncmp(line, answers[i], strlen(answers[i])) != 0)
            fail_msg("answer %zu: '%s', not '%s...'", i, line, answers[i]);
        assert_non_null(strstr(line, "\"seconds\":"));
    }
    assert_int_equal(i, sizeof answers / sizeof answers[0]); /* the blank line: no answer */
    free(text);
    /* the reasons, in the answers */
    assert_int_equal(shell("grep -c '\"error\"' serve_answers.txt"), 0);
    assert_int_equal(atoi(g_out), 7); /* every failure says why: the command's own last message */
    assert_int_equal(shell("grep -F 'in base64' serve_answers.txt"), 0);
    assert_true(files_equal("serve_d9/rocket.jpg", "serve_b/rocket.jpg"));
    assert_int_equal(shell("grep -F 'exceeds the limit' serve_answers.txt && "
                           "grep -F 'ksize 4' serve_answers.txt"), 0);
    assert_int_equal(shell("grep -F 'serve runs other commands' serve_answers.txt && "
                           "grep -F 'not JSON' serve_answers.txt && "
                           "grep -F 'nothing else' serve_answers.txt"), 0);
    /* the same pixels as the command alone */
    assert_int_equal(run("denoise in/rocket.jpg -o alone_a/ -k 5 --backend cpu --quiet"), 0);
    assert_true(files_equal("serve_a/rocket.jpg", "alone_a/rocket.jpg"));
    assert_true(exists("serve_b/rocket.jpg")); /* the limit of the request before did not stay */
    /* each command's output where it went: --quiet did not stay either */
    assert_int_equal(shell("grep -c 'denoise: 1 ok' serve_err.txt"), 0);
    assert_int_equal(shell("grep -F 'exceeds the limit' serve_log.txt && grep -F 'backends:' serve_log.txt "
                           "&& grep -F 'ksize' serve_log.txt"), 0);
    assert_false(exists("serve_c"));
}

/* One file in, one file out, and pipes, as convert and ffmpeg take them:
 * the same pixels as the folder form, nothing but the image on standard
 * output, and the cases that do not fit refused before anything is made. */
static void test_single_file_and_pipes(void **state)
{
    (void)state;
    assert_int_equal(run("denoise in/rocket.jpg -o one.png"), 0);
    assert_string_equal(g_out, ""); /* quiet, as convert is */
    assert_int_equal(shell("test -f one.png && head -c 8 one.png | od -An -c | grep -q P"), 0);
    assert_int_equal(run("denoise in/rocket.jpg -o folder/ --format png"), 0);
    assert_int_equal(shell("cmp one.png folder/rocket.png"), 0);
    assert_int_equal(run("denoise in/rocket.jpg -o folder_same/"), 0);
    /* -o -: the image alone on standard output, in the input's format */
    assert_int_equal(shell("$J denoise in/rocket.jpg -o - > std.jpg 2> err.txt && cmp std.jpg "
                           "folder_same/rocket.jpg && test ! -s err.txt"), 0);
    /* -: one image from standard input, format sniffed; pipes chain */
    assert_int_equal(shell("cat in/rocket.jpg | $J denoise - -o - --format png > piped.png && "
                           "cmp piped.png one.png"), 0);
    assert_int_equal(shell("cat in/CHELSEA.PNG | $J denoise - -o - -k 5 | $J denoise - -o twice.jpg"), 0);
    assert_int_equal(shell("head -c 3 twice.jpg | od -An -tx1 | grep -q 'ff d8 ff'"), 0);
    assert_int_equal(shell("$J denoise in/CHELSEA.PNG -o - -k 5 | cmp - twice.jpg"), 1); /* PNG != JPEG */
    /* the same for noise, and a --json report of the one file */
    assert_int_equal(run("noise in/rocket.jpg -o noisy.png --salt-pepper 0.1 --json n.json"), 0);
    assert_int_equal(shell("grep -q '\"output\":\"noisy.png\"' n.json"), 0);
    /* an image at the name is replaced; anything else is not */
    assert_int_equal(run("denoise in/sub/grey.png -o one.png"), 0);
    write_bytes("notes.png", "my notes\n", 9);
    assert_int_equal(run("denoise in/rocket.jpg -o notes.png"), 2);
    assert_non_null(strstr(g_out, "not an image"));
    assert_int_equal(shell("grep -q 'my notes' notes.png"), 0);
    /* a damaged input: named, nothing written */
    assert_int_equal(run("denoise bad/cut.png -o cut_out.png"), 1);
    assert_non_null(strstr(g_out, "bad/cut.png"));
    assert_false(exists("cut_out.png"));
    assert_int_equal(shell("$J denoise - -o - < bad/text.jpg > text_out.png"), 1);
    assert_non_null(strstr(g_out, "standard input"));
    assert_int_equal(shell("$J denoise - -o empty_out.png < /dev/null"), 1);
    assert_non_null(strstr(g_out, "standard input: empty"));
    assert_false(exists("empty_out.png"));
    /* a terminal as the image's stream (a pseudo-terminal from script(1)): a usage error */
    assert_int_equal(shell("script -qec \"$J denoise - -o tty_out.png\" /dev/null < /dev/null"), 2);
    assert_non_null(strstr(g_out, "standard input is a terminal"));
    assert_false(exists("tty_out.png"));
    /* what does not fit, refused with the reason, nothing made */
    assert_int_equal(run("denoise in/rocket.jpg in/CHELSEA.PNG -o two.png"), 2);
    assert_non_null(strstr(g_out, "several"));
    assert_int_equal(run("denoise in -o tree.png"), 2);
    assert_non_null(strstr(g_out, "is a folder"));
    assert_int_equal(run("denoise - -o stdin_folder"), 2);
    assert_non_null(strstr(g_out, "standard input"));
    assert_int_equal(run("denoise in/rocket.jpg -o clash.png --format jpg"), 2);
    assert_non_null(strstr(g_out, "--format jpg, but -o clash.png names another format"));
    assert_int_equal(run("denoise in/rocket.jpg -o out.bmp"), 2);
    assert_non_null(strstr(g_out, "PNG, JPEG, TIFF, WebP and PFM, not bmp"));
    assert_int_equal(run("denoise in/rocket.jpg -o s.png --suffix _x"), 2);
    assert_int_equal(shell("$J denoise in/rocket.jpg -o - --json - > /dev/null"), 2);
    assert_int_equal(run("denoise in/rocket.jpg -o in/rocket.jpg"), 2);
    assert_false(exists("two.png") || exists("tree.png") || exists("stdin_folder") ||
                 exists("clash.png") || exists("out.bmp") || exists("s.png"));
    assert_int_equal(leftovers(g_dir), 0);
}

/* Experiments that do what they say: noise writes PNG (JPEG would blur the
 * impulses) and says so; JPEG on request, warned; auto-impulse notes a JPEG
 * input; --reference finds clean/x.jpg for noisy/x.png; "in/" prints as
 * "in/x", not "in//x". */
static void test_noise_formats_and_references(void **state)
{
    char path[1024];
    size_t n;
    char *json;
    (void)state;
    assert_int_equal(run("noise in/rocket.jpg in/CHELSEA.PNG -o np --salt-pepper 0.2"), 0);
    assert_true(exists("np/rocket.png") && exists("np/CHELSEA.PNG") && !exists("np/rocket.jpg"));
    assert_non_null(strstr(g_out, "written as PNG"));
    assert_int_equal(run("noise in/rocket.jpg -o nj/ --salt-pepper 0.2 --format same"), 0);
    assert_true(exists("nj/rocket.jpg"));
    assert_non_null(strstr(g_out, "no longer 0 and 255"));
    assert_int_equal(run("noise in/CHELSEA.PNG -o nq/ --salt-pepper 0.2"), 0);
    assert_null(strstr(g_out, "PNG")); /* nothing to say: PNG in, PNG out */
    /* the PNG's impulses are exact: the estimate finds the density */
    assert_int_equal(run("denoise np/ -o dp -f auto-impulse --reference in --json dp.json -v"), 0);
    assert_non_null(strstr(g_out, "np/rocket.png"));
    assert_null(strstr(g_out, "np//"));
    assert_null(strstr(g_out, "no reference"));
    assert_non_null(strstr(g_out, "against the references (mean of 2)"));
    snprintf(path, sizeof path, "%s/dp.json", g_dir);
    assert_non_null(json = (char *)read_all(path, &n));
    assert_null(strstr(json, "blurred the impulses"));
    free(json);
    assert_int_equal(run("denoise nj -o dj -f auto-impulse --json dj.json"), 0);
    snprintf(path, sizeof path, "%s/dj.json", g_dir);
    assert_non_null(json = (char *)read_all(path, &n));
    assert_non_null(strstr(json, "blurred the impulses"));
    free(json);
    /* two clean files of one name: which one is meant is not guessed */
    assert_int_equal(shell("mkdir two"), 0);
    copy_in("samples/images/rocket.jpg", "two/rocket.jpg", 0);
    copy_in("samples/images/rocket.jpg", "two/rocket.JPEG", 0);
    assert_int_equal(run("denoise np/rocket.png -o dt/ --reference two"), 0);
    assert_non_null(strstr(g_out, "no reference"));
}

static void test_format_and_suffix(void **state)
{
    (void)state;
    assert_int_equal(run("denoise in/rocket.jpg -o as_png/ --format png"), 0);
    assert_true(exists("as_png/rocket.png"));
    assert_int_equal(run("denoise in/sub -o in/sub --suffix _dn"), 0);
    assert_true(exists("in/sub/grey_dn.png"));
    /* a second run does not filter its own outputs again */
    assert_int_equal(run("denoise in/sub -o in/sub --suffix _dn"), 0);
    assert_false(exists("in/sub/grey_dn_dn.png"));
    /* an output that would replace its input is refused */
    assert_int_equal(run("denoise in/rocket.jpg -o in/"), 1);
    assert_non_null(strstr(g_out, "refusing to overwrite the input"));
}

/* PNG level and filter change the file, never the pixels. */
/* A filter that changes nothing (k = 1, a kernel of one 1 at the centre)
 * is decode and encode only: the pixels come out as they went in, and no
 * filter stage runs. */
static void test_identity_passes_through(void **state)
{
    (void)state;
    write_bytes("identity.txt", "0 0 0\n0 1 0\n0 0 0\n", 18);
    assert_int_equal(run("denoise in/CHELSEA.PNG -o id_median/ -k 1 --stats --json id_median.json"), 0);
    assert_int_equal(shell("grep -q '\"stages\":\\[{\"name\":\"decode\"[^]]*\"name\":\"encode\"[^]]*\\]' "
                           "id_median.json && ! grep -q '\"name\":\"median\"' id_median.json"), 0);
    assert_int_equal(run("metrics in/CHELSEA.PNG id_median/CHELSEA.PNG"), 0);
    assert_non_null(strstr(g_out, "inf"));
    assert_int_equal(run("denoise in/rocket.jpg -o id_conv/ --filter conv --kernel identity.txt --format png "
                         "--stats --json id_conv.json"), 0);
    assert_int_equal(shell("! grep -q '\"name\":\"conv\"' id_conv.json"), 0);
    assert_int_equal(run("metrics in/rocket.jpg id_conv/rocket.png"), 0);
    assert_non_null(strstr(g_out, "inf"));
    /* a kernel that is not the identity still runs */
    assert_int_equal(run("denoise in/CHELSEA.PNG -o k3/ -k 3 --stats --json k3.json"), 0);
    {   /* and --stats gives its row: one call, its time and its GB/s */
        const char *row = strstr(g_out, "\nmedian/");
        char name[64], gbps[16];
        unsigned long long calls = 0;
        double total = 0, per = 0;
        assert_non_null(row);
        assert_int_equal(sscanf(row + 1, "%63s %llu %lf %lf %15s", name, &calls, &total, &per, gbps), 5);
        assert_true(calls == 1 && total > 0 && per > 0 && atof(gbps) > 0);
    }
    assert_int_equal(shell("grep -q '\"name\":\"median\"' k3.json"), 0);
    /* the decode stage counts the pixels it made: 451 x 300 x 3 bytes */
    assert_int_equal(shell("grep -q '\"name\":\"decode\",\"variant\":\"png\",\"ksize\":null,"
                           "\"ms\":[0-9.e-]*,\"bytes_read\":0,\"bytes_written\":405900,' k3.json"), 0);
}

/* The peak resident memory a run's report gives, in MB. */
static double report_peak_mb(const char *report)
{
    char *text = read_text(report), *at;
    double mb;
    assert_non_null(at = strstr(text, "\"peak_rss_mb\":"));
    mb = atof(at + 14);
    free(text);
    return mb;
}

/* A photo at 3000x2000: the retina image stretched, with a little noise
 * so that it compresses as a photo does. */
static void write_big_photo(const char *name, int channels, jf_sample sample, jf_format format)
{
    jf_picture src, big;
    jf_encode_options eo = jf_encode_defaults();
    char path[512];
    uint64_t rs = 5;
    int x, y, c;
    memset(&big, 0, sizeof big);
    assert_int_equal(jf_picture_read(t_source_path("samples/images/retina.jpg"), &src), JF_OK);
    assert_int_equal(jf_image_alloc_as(&big.color, 3000, 2000, channels, sample), JF_OK);
    big.format = format;
    for (y = 0; y < 2000; y++)
        for (x = 0; x < 3000; x++)
            for (c = 0; c < channels; c++) {
                int v = (int)t_px(&src.color, x * src.color.width / 3000, y * src.color.height / 2000,
                                  c % src.color.channels) + (int)(t_rand(&rs) >> 62) - 1;
                v = v < 0 ? 0 : v > 255 ? 255 : v;
                t_set_px(&big.color, x, y, c, sample == JF_SAMPLE_U16 ? (unsigned)(v * 257 + x % 7) : (unsigned)v);
            }
    eo.format = format;
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    assert_int_equal(jf_picture_write(path, &big, &eo), JF_OK);
    jf_picture_free(&big);
    jf_picture_free(&src);
}

/* --max-memory's estimate of a file follows what the run really takes:
 * never under the measured peak, at most 1.3x it, on the main paths
 * (RGB, grey and 16-bit PNG, JPEG; the median with and without a padded
 * copy, a separable convolution, one through the FFT's planes, nothing to
 * filter, a change of format). */
static void test_memory_estimate_follows_peak(void **state)
{
    static const char *const files[] = {"mem_rgb.png", "mem_grey.png", "mem_g16.png", "mem_rgb.jpg"};
    static const char *const ops[] = {"-k 1", "-k 3", "-k 7", "--filter gauss -k 9", "-k 5 --format png",
                                      "-k 3 --format jpg --depth 8", "--filter sharpen -k 31"};
    char args[512];
    int f, o;
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    skip(); /* AddressSanitizer's shadow memory is resident too */
#endif
    if (getenv("JF_EMULATED"))
        skip(); /* qemu's translation cache is resident too */
    write_big_photo("mem_rgb.png", 3, JF_SAMPLE_U8, JF_FORMAT_PNG);
    write_big_photo("mem_grey.png", 1, JF_SAMPLE_U8, JF_FORMAT_PNG);
    write_big_photo("mem_g16.png", 1, JF_SAMPLE_U16, JF_FORMAT_PNG);
    write_big_photo("mem_rgb.jpg", 3, JF_SAMPLE_U8, JF_FORMAT_JPEG);
    for (f = 0; f < 4; f++)
        for (o = 0; o < 7; o++) {
            const char *about;
            double estimate_mb, peak_mb;
            snprintf(args, sizeof args, "denoise %s -o mem_out/ %s --max-memory 16", files[f], ops[o]);
            assert_int_equal(run("%s", args), 1);
            assert_non_null(about = strstr(g_out, "needs about "));
            estimate_mb = atof(about + 12) + 0.5; /* the message rounds down */
            assert_int_equal(run("denoise %s -o mem_out_%d_%d/ %s -j 1 --json mem.json", files[f], f, o,
                                 ops[o]), 0);
            peak_mb = report_peak_mb("mem.json");
            print_message("memory: %-13s %-28s estimate %6.1f MB, peak %6.1f MB (%.2fx)\n", files[f],
                          ops[o], estimate_mb, peak_mb, estimate_mb / peak_mb);
            assert_true(estimate_mb >= peak_mb);
            assert_true(estimate_mb <= 1.3 * peak_mb);
        }
}

static void test_png_level_and_filter(void **state)
{
    size_t fast = 0, small = 0;
    unsigned char *a, *b;
    char path[600];
    (void)state;
    assert_int_equal(run("denoise in/sub/grey.png -o png_fast/ -k 1 --png-level 1 --png-filter none"), 0);
    assert_int_equal(run("denoise in/sub/grey.png -o png_small/ -k 1 --png-level 9 --png-filter adaptive"), 0);
    assert_int_equal(run("metrics png_fast/grey.png png_small/grey.png --json -"), 0);
    assert_non_null(strstr(g_out, "\"psnr_db\":null,\"psnr_db_infinite\":true"));
    snprintf(path, sizeof path, "%s/png_fast/grey.png", g_dir);
    a = read_all(path, &fast);
    snprintf(path, sizeof path, "%s/png_small/grey.png", g_dir);
    b = read_all(path, &small);
    assert_true(a && b);
    if (!(small < fast))
        fail_msg("level 9 adaptive %zu bytes, level 1 none %zu bytes", small, fast);
    free(a);
    free(b);
    assert_int_equal(run("denoise in/sub/grey.png -o png_x/ --png-level 10"), 2);
    assert_int_equal(run("denoise in/sub/grey.png -o png_x/ --png-filter best"), 2);
    assert_false(exists("png_x"));
}

/* --codec: cpu and auto give the CPU decoder's output where no GPU engine
 * decodes; nvjpeg where it cannot run is refused before any file, with the
 * reason; an unknown name is a usage error. */
static void test_codec_option(void **state)
{
    (void)state;
    assert_int_equal(run("denoise in/rocket.jpg -o codec_cpu/ --codec cpu --backend cpu"), 0);
    assert_int_equal(run("denoise in/rocket.jpg -o codec_auto/ --codec auto --backend cpu"), 0);
    assert_true(files_equal("codec_cpu/rocket.jpg", "codec_auto/rocket.jpg"));
    assert_int_equal(run("denoise in/rocket.jpg -o codec_x/ --codec nvjpeg --backend cpu"), 2);
    assert_non_null(strstr(g_out, "--codec nvjpeg needs the CUDA backend"));
    assert_int_equal(run("denoise in/rocket.jpg -o codec_x/ --codec turbo"), 2);
    assert_non_null(strstr(g_out, "--codec"));
    if (!jf_built_with_cuda()) {
        assert_int_equal(run("denoise in/rocket.jpg -o codec_x/ --codec nvjpeg"), 1);
        assert_non_null(strstr(g_out, "nvJPEG needs a CUDA build"));
    }
    assert_false(exists("codec_x"));
    assert_int_equal(run("info"), 0);
    assert_non_null(strstr(g_out, "jpeg decode:"));
}

/* Write a picture under the test folder. */
static void write_picture(const char *rel, const jf_picture *pic, jf_format format)
{
    char path[2048];
    jf_encode_options e = jf_encode_defaults();
    e.format = format;
    snprintf(path, sizeof path, "%s/%s", g_dir, rel);
    if (jf_picture_write(path, pic, &e) != JF_OK)
        fail_msg("%s: %s", rel, jf_last_error());
}

static jf_picture read_picture(const char *rel)
{
    char path[2048];
    jf_picture pic;
    snprintf(path, sizeof path, "%s/%s", g_dir, rel);
    if (jf_picture_read(path, &pic) != JF_OK)
        fail_msg("%s: %s", rel, jf_last_error());
    return pic;
}

/* A folder mixing 8-bit files, a 16-bit RGBA PNG with a text chunk and a
 * CMYK JPEG: every file processed at its own depth and colour model,
 * metadata kept; what a format cannot hold refused with the reason unless
 * a conversion is asked for. */
static void test_mixed_depths_and_cmyk(void **state)
{
    jf_picture src, deep = {0}, cmyk = {0}, got;
    jf_image want;
    static char text[] = "16-bit test frame";
    int x, y, c;
    (void)state;
    assert_int_equal(system((snprintf(g_out, sizeof g_out, "mkdir -p %s/mixed", g_dir), g_out)), 0);
    copy_in("samples/images/rocket.jpg", "mixed/rocket.jpg", 0);
    copy_in("tests/data/small_40x12_a.png", "mixed/small.png", 0);
    /* 16 bits: a photo widened, with low bits of its own, and alpha */
    assert_int_equal(jf_picture_read(t_source_path("samples/images/chelsea.png"), &src), JF_OK);
    deep.format = JF_FORMAT_PNG;
    deep.color.sample = deep.alpha.sample = JF_SAMPLE_U16;
    assert_int_equal(jf_image_convert(&src.color, &deep.color), JF_OK);
    assert_int_equal(jf_image_alloc_as(&deep.alpha, src.color.width, src.color.height, 1,
                                       JF_SAMPLE_U16), JF_OK);
    for (y = 0; y < deep.color.height; y++)
        for (x = 0; x < deep.color.width; x++) {
            for (c = 0; c < 3; c++)
                t_set_px(&deep.color, x, y, c, t_px(&deep.color, x, y, c) ^ (unsigned)((x * 7 + y * 13 + c) & 255));
            t_set_px(&deep.alpha, x, y, 0, (unsigned)(x * 300 + y));
        }
    deep.extra = calloc(1, sizeof *deep.extra);
    deep.extra_count = 1;
    snprintf(deep.extra[0].key, sizeof deep.extra[0].key, "Comment");
    deep.extra[0].tag = -1; /* PNG_TEXT_COMPRESSION_NONE */
    deep.extra[0].data = (unsigned char *)strdup(text);
    deep.extra[0].size = strlen(text);
    write_picture("mixed/deep.png", &deep, JF_FORMAT_PNG);
    /* CMYK with the Adobe marker (inverted, as Photoshop writes it) */
    cmyk.format = JF_FORMAT_JPEG;
    cmyk.color_model = JF_COLOR_CMYK;
    cmyk.jpeg_adobe = 1;
    assert_int_equal(jf_image_alloc(&cmyk.color, 64, 48, 4), JF_OK);
    for (y = 0; y < 48; y++)
        for (x = 0; x < 64 * 4; x++)
            cmyk.color.data[y * cmyk.color.stride + x] = (unsigned char)(40 + x / 2 + y);
    write_picture("mixed/print.jpg", &cmyk, JF_FORMAT_JPEG);

    assert_int_equal(run("denoise mixed -o mixout -k 3 --backend cpu"), 0);
    assert_non_null(strstr(g_out, "4 ok, 0 failed"));
    got = read_picture("mixout/deep.png");
    assert_int_equal(got.color.sample, JF_SAMPLE_U16);
    assert_non_null(got.alpha.data);
    assert_int_equal(got.alpha.sample, JF_SAMPLE_U16);
    assert_true(t_images_equal(&got.alpha, &deep.alpha)); /* alpha passes untouched */
    want = t_poisoned_like(&deep.color, 0);
    t_median_reference(&deep.color, 3, JF_BORDER_REPLICATE, &want);
    assert_true(t_images_equal(&got.color, &want));
    assert_int_equal(got.extra_count, 1);
    assert_string_equal(got.extra[0].key, "Comment");
    jf_image_free(&want);
    jf_picture_free(&got);
    got = read_picture("mixout/print.jpg");
    assert_int_equal(got.color_model, JF_COLOR_CMYK);
    assert_int_equal(got.color.channels, 4);
    assert_int_equal(got.jpeg_adobe, 1);
    jf_picture_free(&got);
    got = read_picture("mixout/rocket.jpg");
    assert_int_equal(got.color.sample, JF_SAMPLE_U8);
    jf_picture_free(&got);

    /* PNG has no CMYK: refused by name and reason, the rest written */
    assert_int_equal(run("denoise mixed -o pngout --format png --backend cpu"), 1);
    assert_non_null(strstr(g_out, "pngout/print.png: a CMYK image cannot be written as PNG"));
    assert_false(exists("pngout/print.png"));
    assert_true(exists("pngout/deep.png") && exists("pngout/rocket.png"));
    assert_int_equal(run("denoise mixed -o rgbout --format png --cmyk-to-rgb --backend cpu"), 0);
    got = read_picture("rgbout/print.png");
    assert_int_equal(got.color.channels, 3);
    jf_picture_free(&got);
    /* PFM: floats of any input, CMYK refused unless made RGB */
    assert_int_equal(run("denoise mixed -o pfmout --format pfm --backend cpu"), 1);
    assert_non_null(strstr(g_out, "a CMYK image cannot be written as PFM"));
    assert_false(exists("pfmout/print.pfm"));
    assert_int_equal(run("denoise mixed -o pfmout --format pfm --cmyk-to-rgb --backend cpu"), 0);
    got = read_picture("pfmout/deep.pfm");
    assert_int_equal(got.color.sample, JF_SAMPLE_F32);
    assert_int_equal(got.color.channels, 3);
    jf_picture_free(&got);
    got = read_picture("pfmout/print.pfm");
    assert_int_equal(got.color.channels, 3);
    jf_picture_free(&got);
    /* JPEG holds 8 bits: refused unless --depth 8 asks for the rounding */
    assert_int_equal(run("denoise mixed/deep.png -o jpgout/ --format jpg --backend cpu"), 1);
    assert_non_null(strstr(g_out, "16-bit image cannot be written as JPEG"));
    assert_int_equal(run("denoise mixed/deep.png -o jpgout/ --format jpg --depth 8 --backend cpu"), 0);
    got = read_picture("jpgout/deep.jpg");
    assert_int_equal(got.color.sample, JF_SAMPLE_U8);
    assert_int_equal(got.format, JF_FORMAT_JPEG);
    jf_picture_free(&got);
    assert_int_equal(run("denoise mixed/small.png -o wide/ --depth 16 -k 1 --backend cpu"), 0);
    got = read_picture("wide/small.png");
    {
        jf_picture small = read_picture("mixed/small.png");
        assert_int_equal(got.color.sample, JF_SAMPLE_U16);
        for (x = 0; x < small.color.width; x++) /* v * 257 */
            assert_int_equal(t_px(&got.color, x, 2, 0), 257u * t_px(&small.color, x, 2, 0));
        jf_picture_free(&small);
    }
    jf_picture_free(&got);
    /* metrics on 16-bit files: L = 65535 */
    assert_int_equal(run("metrics mixed/deep.png mixout/deep.png --json"), 0);
    assert_non_null(strstr(g_out, "\"psnr_db\":"));
    /* the bench at 16 bits: the cells say their depth; 8-bit-only filters are left out */
    assert_int_equal(run("bench --backend cpu --size 37x23 -k 3,7 -f median,gauss,switching-median "
                         "--depth 8,16 --reps 1 --warmup 0 --random --ceiling-mb 16 --csv d.csv"), 0);
    assert_non_null(strstr(g_out, "37x23@16"));
    assert_null(strstr(g_out, "FAIL"));
    {
        char path[1024];
        size_t n;
        char *csv, *line;
        int wide = 0, impulse = 0;
        snprintf(path, sizeof path, "%s/d.csv", g_dir);
        csv = (char *)read_all(path, &n);
        assert_non_null(csv);
        csv[n] = '\0';
        assert_non_null(strstr(csv, ",mean_w,depth\n"));
        for (line = strstr(csv, "\n"); line && line[1]; line = strstr(line + 1, "\n")) {
            const char *end = strchr(line + 1, '\n');
            const int is16 = strncmp(end - 3, ",16", 3) == 0;
            wide += is16;
            impulse += strncmp(line + 1, ",cpu,37,23,1,switching-median", 29) == 0;
            assert_false(is16 && strncmp(line + 1, ",cpu,37,23,1,switching-median", 29) == 0);
        }
        assert_int_equal(wide, 2 * 2);  /* median and gauss at k = 3, 7 */
        assert_int_equal(impulse, 2);   /* switching-median at 8 bits only */
        free(csv);
    }
    assert_int_equal(run("bench --backend cpu --depth 12 --size 8x8 --random"), 2);
    assert_non_null(strstr(g_out, "8 or 16 bits"));
    /* the impulse filters are 8-bit: said per file, the batch goes on */
    assert_int_equal(run("denoise mixed -o impout -f switching-median --backend cpu"), 1);
    assert_non_null(strstr(g_out, "deep.png: jf_switching_median: takes 8-bit samples only"));
    assert_true(exists("impout/rocket.jpg"));
    snprintf(g_out, sizeof g_out, "%s", g_dir);
    assert_int_equal(leftovers(g_out), 0);
    jf_picture_free(&src);
    jf_picture_free(&deep);
    jf_picture_free(&cmyk);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_with_broken_files),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_unwritable_output),
        cmocka_unit_test(test_no_images_found),
        cmocka_unit_test(test_cuda_backend_without_device),
        cmocka_unit_test(test_environment_defaults),
        cmocka_unit_test(test_median_output_exact_every_border),
        cmocka_unit_test(test_metrics_command),
        cmocka_unit_test(test_reference_json_skip_and_jobs),
        cmocka_unit_test(test_format_and_suffix),
        cmocka_unit_test(test_single_file_and_pipes),
        cmocka_unit_test(test_serve),
        cmocka_unit_test(test_noise_formats_and_references),
        cmocka_unit_test(test_bench_cpu),
        cmocka_unit_test(test_bench_options),
        cmocka_unit_test(test_bench_fixed_settings),
        cmocka_unit_test(test_json_everywhere),
        cmocka_unit_test(test_odd_names),
        cmocka_unit_test(test_codec_option),
        cmocka_unit_test(test_metadata_notes),
        cmocka_unit_test(test_impulse_filters),
        cmocka_unit_test(test_png_level_and_filter),
        cmocka_unit_test(test_identity_passes_through),
        cmocka_unit_test(test_memory_estimate_follows_peak),
        cmocka_unit_test(test_mixed_depths_and_cmyk),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
