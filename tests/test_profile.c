/*
 * Tuning profiles (`jetfilter calibrate`, core/profile.c) without a GPU:
 * writing and reading back, the errors a damaged or foreign file gets, the
 * matching of device and power mode, the choice for an image, and the
 * fallback to the built-in tables where a profile has no entry, the image
 * is 16-bit, the context is a CPU one, or no file exists.
 */
#define _POSIX_C_SOURCE 200809L
#include "common.h"
#include "core/context.h"
#include "core/profile.h"
#include "filters/filters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static jf_profile_choice choice(const char *op, int ch, int w, int h, int k, jf_variant v, int bx,
                                int by, double ms)
{
    jf_profile_choice c;
    memset(&c, 0, sizeof c);
    snprintf(c.op, sizeof c.op, "%s", op);
    c.channels = ch;
    c.width = w;
    c.height = h;
    c.k = k;
    c.variant = v;
    c.block_x = bx;
    c.block_y = by;
    c.ms = ms;
    return c;
}

static jf_device_info h100(void)
{
    jf_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "NVIDIA H100 80GB HBM3");
    d.cc_major = 9;
    d.multiprocessors = 132;
    return d;
}

/* A profile of three choices for the H100 in no power mode. */
static void sample_profile(jf_profile *p)
{
    jf_profile_choice c;
    memset(p, 0, sizeof *p);
    snprintf(p->device, sizeof p->device, "NVIDIA H100 80GB HBM3");
    p->cc_major = 9;
    p->multiprocessors = 132;
    p->driver = 13000;
    snprintf(p->power_mode, sizeof p->power_mode, "none");
    snprintf(p->date, sizeof p->date, "2026-11-23T10:00:00Z");
    c = choice("median", 1, 640, 480, 3, JF_VARIANT_GLOBAL, 64, 4, 0.004);
    assert_int_equal(jf_profile_add(p, &c), JF_OK);
    c = choice("median", 1, 3840, 2160, 3, JF_VARIANT_FAST, 32, 8, 0.0123);
    assert_int_equal(jf_profile_add(p, &c), JF_OK);
    c = choice("conv-rank1", 3, 1920, 1080, 15, JF_VARIANT_FAST, 0, 0, 0.041);
    assert_int_equal(jf_profile_add(p, &c), JF_OK);
}

static char *write_to_text(const jf_profile *p)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(jf_profile_write(f, p), JF_OK);
    fclose(f);
    return text;
}

static void test_round_trip(void **state)
{
    jf_profile p, q;
    char *text;
    int i;
    (void)state;
    sample_profile(&p);
    text = write_to_text(&p);
    assert_int_equal(jf_profile_parse(text, "h100.profile", &q), JF_OK);
    assert_string_equal(q.device, p.device);
    assert_int_equal(q.cc_major, 9);
    assert_int_equal(q.cc_minor, 0);
    assert_int_equal(q.multiprocessors, 132);
    assert_int_equal(q.driver, 13000);
    assert_string_equal(q.power_mode, "none");
    assert_string_equal(q.date, p.date);
    assert_int_equal(q.count, 3);
    assert_int_equal(q.ignored, 0); /* no line written past the choices */
    for (i = 0; i < 3; i++) {
        assert_string_equal(q.choices[i].op, p.choices[i].op);
        assert_int_equal(q.choices[i].channels, p.choices[i].channels);
        assert_int_equal(q.choices[i].width, p.choices[i].width);
        assert_int_equal(q.choices[i].k, p.choices[i].k);
        assert_int_equal(q.choices[i].variant, p.choices[i].variant);
        assert_int_equal(q.choices[i].block_x, p.choices[i].block_x);
        assert_int_equal(q.choices[i].block_y, p.choices[i].block_y);
        assert_true(q.choices[i].ms > p.choices[i].ms - 1e-5 && q.choices[i].ms < p.choices[i].ms + 1e-5);
    }
    jf_profile_free(&q);
    free(text);
    /* nvpmodel's modes are numbers: a one-character mode is kept, none is "none" */
    snprintf(p.power_mode, sizeof p.power_mode, "0");
    text = write_to_text(&p);
    assert_non_null(strstr(text, "power_mode 0\n"));
    free(text);
    p.power_mode[0] = '\0';
    text = write_to_text(&p);
    assert_non_null(strstr(text, "power_mode none\n"));
    free(text);
    jf_profile_free(&p);
}

static void expect_refused(const char *text, const char *words)
{
    jf_profile q;
    assert_int_equal(jf_profile_parse(text, "bad.profile", &q), JF_ERR_DECODE);
    assert_non_null(strstr(jf_last_error(), "bad.profile"));
    if (!strstr(jf_last_error(), words))
        fail_msg("error \"%s\" does not say \"%s\"", jf_last_error(), words);
    assert_int_equal(q.count, 0);
    assert_null(q.choices);
}

static void test_damaged_files(void **state)
{
    const char *head = "jetfilter-profile 1\ndevice X\ncompute_capability 5.3\nmultiprocessors 1\n";
    char text[1024];
    jf_profile q;
    (void)state;
    expect_refused("", "not a jetfilter profile");
    expect_refused("P6\n640 480\n", "not a jetfilter profile");
    expect_refused("jetfilter-profile 2\ndevice X\n", "version 2");
    expect_refused("jetfilter-profile 1\n# nothing else\n", "no device");
    /* choices out of range are left out, one by one, and counted: the rest
     * of the profile stands (a profile is a file anything can write) */
    {
        static const char *const bad[] = {
            "median 1 640x480 4 fast 0x0 0.1",          /* even k */
            "median 1 640x480 257 fast 0x0 0.1",        /* k past any operation */
            "median 1 640x480 3 cpu 0x0 0.1",           /* not a GPU variant */
            "median 1 640x480 3 auto 0x0 0.1",          /* a choice is a variant, not auto */
            "median 1 640x480 3 fastest 0x0 0.1",       /* no such variant */
            "median 1 640x480 3 fast 64x32 0.1",        /* 2048 threads */
            "median 1 640x480 3 fast 65536x65536 0.1",  /* overflows W x H in int */
            "median 1 640x480 3 fast 0x512 0.1",
            "median 1 640x480 3 fast 3x1 0.1",          /* W not a multiple of 4 */
            "median 9 640x480 3 fast 0x0 0.1",          /* 9 channels */
            "median 1 2000000000x2000000000 3 fast 0x0 0.1",
            "median 1 640x480 3 fast 0x0 -1",           /* a negative time */
            "median 1 640x480 3 fast 0x0 nan",
            "Median! 1 640x480 3 fast 0x0 0.1",         /* not a name */
            "median 1 640x480 3 fast 0x0 0.1 extra",
            "median 0 640x480 3 fast 0x0 0.1",          /* no channels */
            "median 5 640x480 3 fast 0x0 0.1",          /* one past RGBA */
            "median 1 0x480 3 fast 0x0 0.1",            /* no width */
            "median 1 640x0 3 fast 0x0 0.1",            /* no height */
            "median 1 640x480 -1 fast 0x0 0.1",
            "median 1 640x480 3 fast 4x0 0.1",          /* no rows */
            "median 1 640x480 3 fast 1028x1 0.1",       /* wider than a block */
            "median 1 640x480 3 fast 4x257 0.1",        /* 1028 threads */
            "median 1 640x480 3 fast 0x0 1e9",          /* past any time */
        };
        /* and the edges of each range are kept */
        static const char *const edges[] = {
            "median 4 1x1 1 fast 0x0 0",
            "median 1 65536x65536 255 global 1024x1 999999999",
            "median 1 640x480 3 fast 4x256 0.1",
            "median 1 640x480 3 fast 4x1 0.1",
        };
        size_t i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            snprintf(text, sizeof text, "%schoice median 1 640x480 5 shared 32x8 0.25\nchoice %s\n",
                     head, bad[i]);
            if (jf_profile_parse(text, "bad.profile", &q) != JF_OK)
                fail_msg("%s: the whole profile refused: %s", bad[i], jf_last_error());
            if (q.count != 1 || q.ignored != 1 || !strstr(q.first_ignored, "line 6"))
                fail_msg("%s: %d kept, %d ignored (%s)", bad[i], q.count, q.ignored, q.first_ignored);
            jf_profile_free(&q);
        }
        for (i = 0; i < sizeof edges / sizeof edges[0]; i++) {
            snprintf(text, sizeof text, "%schoice %s\n", head, edges[i]);
            if (jf_profile_parse(text, "edge.profile", &q) != JF_OK || q.count != 1 || q.ignored)
                fail_msg("%s: not kept (%s)", edges[i], q.first_ignored);
            jf_profile_free(&q);
        }
    }
    /* device limits: full or nano, nothing else */
    snprintf(text, sizeof text, "%sdevice_limits nano\n", head);
    assert_int_equal(jf_profile_parse(text, "ok.profile", &q), JF_OK);
    assert_int_equal(q.limited, 1);
    jf_profile_free(&q);
    snprintf(text, sizeof text, "%sdevice_limits full\n", head);
    assert_int_equal(jf_profile_parse(text, "ok.profile", &q), JF_OK);
    assert_int_equal(q.limited, 0);
    jf_profile_free(&q);
    snprintf(text, sizeof text, "%sdevice_limits small\n", head);
    expect_refused(text, "line 5");
    snprintf(text, sizeof text, "%scompute_capability five\n", head);
    expect_refused(text, "line 5");
    /* unknown keys (a newer calibrate) are passed over; CRLF lines read */
    snprintf(text, sizeof text, "%sfan_speed 3000\r\nchoice median 3 640x480 5 shared 32x8 0.25\r\n", head);
    assert_int_equal(jf_profile_parse(text, "ok.profile", &q), JF_OK);
    assert_int_equal(q.count, 1);
    assert_int_equal(q.choices[0].variant, JF_VARIANT_SHARED);
    assert_int_equal(q.choices[0].channels, 3);
    jf_profile_free(&q);
    /* a CRLF line's value ends before the CR */
    assert_int_equal(jf_profile_parse("jetfilter-profile 1\r\ndevice X\r\ncompute_capability 5.3\r\n",
                                      "crlf.profile", &q), JF_OK);
    assert_string_equal(q.device, "X");
    jf_profile_free(&q);
}

static void test_load_errors(void **state)
{
    char path[512];
    FILE *f;
    jf_profile q;
    (void)state;
    assert_int_equal(jf_profile_load("/nonexistent/x.profile", &q), JF_ERR_IO);
    assert_non_null(strstr(jf_last_error(), "/nonexistent/x.profile"));
    snprintf(path, sizeof path, "/tmp/jf-profile-%d.bin", (int)getpid());
    f = fopen(path, "wb");
    assert_non_null(f);
    fwrite("jetfilter-profile 1\n\0\1\2", 1, 23, f);
    fclose(f);
    assert_int_equal(jf_profile_load(path, &q), JF_ERR_DECODE);
    assert_non_null(strstr(jf_last_error(), "binary"));
    unlink(path);
}

static void test_matching(void **state)
{
    jf_profile p;
    jf_device_info d = h100();
    char why[256];
    (void)state;
    sample_profile(&p);
    assert_true(jf_profile_matches(&p, &d, NULL, why, sizeof why));
    assert_true(jf_profile_matches(&p, &d, "", why, sizeof why));
    assert_false(jf_profile_matches(&p, &d, "MAXN", why, sizeof why));
    assert_non_null(strstr(why, "MAXN"));
    snprintf(d.name, sizeof d.name, "NVIDIA H200");
    assert_false(jf_profile_matches(&p, &d, NULL, why, sizeof why));
    assert_non_null(strstr(why, "H200"));
    d = h100();
    d.multiprocessors = 114; /* the PCIe H100 */
    assert_false(jf_profile_matches(&p, &d, NULL, why, sizeof why));
    assert_non_null(strstr(why, "114"));
    d = h100();
    d.limited = 1;
    assert_false(jf_profile_matches(&p, &d, NULL, why, sizeof why));
    assert_non_null(strstr(why, "Nano-limits"));
    jf_profile_free(&p);
}

static void test_file_names(void **state)
{
    jf_device_info d = h100();
    char name[256];
    (void)state;
    jf_profile_file_name(&d, NULL, name, sizeof name);
    assert_string_equal(name, "nvidia-h100-80gb-hbm3-sm90-none.profile");
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "NVIDIA Tegra X1");
    d.cc_major = 5;
    d.cc_minor = 3;
    jf_profile_file_name(&d, "5W", name, sizeof name);
    assert_string_equal(name, "nvidia-tegra-x1-sm53-5w.profile");
    d.limited = 1;
    jf_profile_file_name(&d, "MAXN", name, sizeof name);
    assert_string_equal(name, "nvidia-tegra-x1-sm53-maxn-nano-limits.profile");
}

static void test_choices_and_fallback(void **state)
{
    jf_profile p;
    const jf_profile_choice *c;
    (void)state;
    sample_profile(&p);
    /* the nearest size by ratio, per operation, channel class and k */
    c = jf_profile_choose(&p, "median", 1, 700, 500, 3);
    assert_non_null(c);
    assert_int_equal(c->variant, JF_VARIANT_GLOBAL);
    c = jf_profile_choose(&p, "median", 1, 2000, 1500, 3);
    assert_int_equal(c->variant, JF_VARIANT_FAST);
    c = jf_profile_choose(&p, "median", 1, 1280, 960, 3); /* 4x 640x480: still its entry */
    assert_non_null(c);
    assert_int_equal(c->variant, JF_VARIANT_GLOBAL);
    assert_null(jf_profile_choose(&p, "median", 1, 1281, 961, 3)); /* farther from both */
    assert_null(jf_profile_choose(&p, "median", 1, 160, 100, 3)); /* far below 640x480 */
    assert_non_null(jf_profile_choose(&p, "median", 1, 7680, 4320, 3)); /* 4x 3840x2160 */
    assert_null(jf_profile_choose(&p, "median", 1, 7680, 4321, 3));
    assert_null(jf_profile_choose(&p, "median", 1, 700, 500, 5)); /* k not measured */
    assert_null(jf_profile_choose(&p, "median", 3, 700, 500, 3)); /* RGB not measured */
    assert_null(jf_profile_choose(&p, "conv", 3, 1920, 1080, 15)); /* rank 1 only */
    c = jf_profile_choose(&p, "conv-rank1", 4, 1920, 1080, 15); /* 4 channels: the multi-channel entry */
    assert_non_null(c);
    assert_null(jf_profile_choose(NULL, "median", 1, 700, 500, 3));

    /* what `auto` does with a profile: tests/test_resolve.c */
    jf_profile_free(&p);
}

/* A folder with a profile in it: CPU contexts never take one (their
 * `auto` is the CPU), and jf_profiles_use(NULL) turns the lookup off. */
static void test_cpu_contexts_ignore_profiles(void **state)
{
    char dir[256], path[512];
    jf_context *ctx = NULL;
    jf_context_options o = t_context_opts(JF_BACKEND_CPU, 1, JF_MEMORY_AUTO);
    jf_profile p;
    FILE *f;
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/jf-profiles-%d", (int)getpid());
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(path, sizeof path, "%s/nvidia-h100-80gb-hbm3-sm90-none.profile", dir);
    sample_profile(&p);
    f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(jf_profile_write(f, &p), JF_OK);
    fclose(f);
    assert_int_equal(jf_profiles_use(dir, NULL), JF_OK);
    assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
    assert_null(jf_context_profile(ctx));
    jf_context_destroy(ctx);
    assert_int_equal(jf_profiles_use(NULL, NULL), JF_OK);
    unlink(path);
    rmdir(dir);
    jf_profile_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_damaged_files),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_matching),
        cmocka_unit_test(test_file_names),
        cmocka_unit_test(test_choices_and_fallback),
        cmocka_unit_test(test_cpu_contexts_ignore_profiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
