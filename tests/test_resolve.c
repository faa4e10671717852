/*
 * The variant resolver (filters/resolve.c) on made-up devices, without a
 * GPU: what `auto` picks and why, what an explicit variant that cannot run
 * gets (JF_ERR_UNSUPPORTED, with the reason), blocks, shared memory limits,
 * tuning profiles, and the wording made from the variant table.
 */
#include "common.h"
#include "core/profile.h"
#include "filters/conv/conv.h"
#include "filters/conv/conv_fast_fixed.h"
#include "filters/denoise/denoise.h"
#include "filters/median/median.h"
#include "filters/median/median_shapes.h"
#include "filters/ops.h"
#include "filters/resolve.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static jf_device_info device(const char *name, int major, int minor, int sms, int smem_optin,
                             int smem_sm, int regs_block, int limited)
{
    jf_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "%s", name);
    d.cc_major = major;
    d.cc_minor = minor;
    d.multiprocessors = sms;
    d.shared_per_block = 48 * 1024;
    d.shared_per_block_optin = smem_optin;
    d.shared_per_sm = smem_sm;
    d.registers_per_block = regs_block;
    d.registers_per_sm = 65536;
    d.max_threads_per_block = 1024;
    d.limited = limited;
    return d;
}

static jf_device_info h100(void) { return device("NVIDIA H100 80GB HBM3", 9, 0, 132, 232448, 233472, 65536, 0); }
static jf_device_info h200(void) { return device("NVIDIA H200", 9, 0, 132, 232448, 233472, 65536, 0); }
static jf_device_info nano(void) { return device("NVIDIA Tegra X1", 5, 3, 1, 49152, 65536, 32768, 0); }
/* the Orin Nano 8 GB and the Orin NX (GA10B: 8 SMs, 163 KiB a block by opting in) */
static jf_device_info orin(void) { return device("Orin", 8, 7, 8, 166912, 167936, 65536, 0); }
/* an H100 under JETFILTER_DEVICE_LIMITS=nano */
static jf_device_info h100_nano_limits(void) { return device("NVIDIA H100 80GB HBM3", 9, 0, 1, 49152, 65536, 32768, 1); }
/* a device that gives a block 48 KiB and no more (no opt-in) */
static jf_device_info small_smem(void) { return device("a 48 KiB device", 8, 6, 28, 49152, 102400, 65536, 0); }
/* a device with little shared memory: the fast kernel's tiles and weights
 * at k = 63 fit nowhere, the tiled kernel's single plane does */
static jf_device_info tiny_smem(void)
{
    jf_device_info d = device("a 24 KiB device", 8, 6, 8, 24576, 24576, 65536, 0);
    d.shared_per_block = 24576;
    return d;
}

typedef struct req {
    const jf_family *f;
    const jf_device_info *dev;
    int w, h, ch;
    jf_sample sample;
    int rank1, k;
    jf_variant asked;
    int bx, by;
    const jf_profile *profile;
    const float *weights; /* a convolution's, where a CPU row reads them */
} req;

static jf_status resolve(const req *r, jf_choice *c)
{
    jf_resolve_in in;
    memset(&in, 0, sizeof in);
    in.family = r->f;
    in.fn = "test";
    in.dev = r->dev;
    in.shape.width = r->w;
    in.shape.height = r->h;
    in.shape.channels = r->ch ? r->ch : 1;
    in.shape.sample = r->sample;
    in.shape.rank1 = r->rank1;
    in.shape.weights = r->weights;
    in.k = r->k;
    in.asked = r->asked;
    in.block_x = r->bx;
    in.block_y = r->by;
    in.profile = r->profile;
    return jf_resolve(&in, c);
}

/* auto for one image: the variant, and the kernel that runs it */
static jf_variant auto_variant(const jf_family *f, const jf_device_info *dev, int w, int h, int ch,
                               jf_sample s, int k, jf_choice *c)
{
    req r = {f, dev, w, h, ch, s, 0, k, JF_VARIANT_AUTO, 0, 0, NULL};
    assert_int_equal(resolve(&r, c), JF_OK);
    assert_true(c->reason[0] != '\0');
    return c->variant;
}

static void test_median_auto(void **state)
{
    const jf_device_info big = h100(), nano_ = nano(), lim = h100_nano_limits(), h2 = h200();
    jf_choice c;
    (void)state;
    /* 4K grey k = 3 on an H100: strips through registers, blocks of 128
     * threads, no shared memory */
    assert_int_equal(auto_variant(&jf_median_family, &big, 3840, 2160, 1, JF_SAMPLE_U8, 3, &c), JF_VARIANT_FAST);
    assert_int_equal(c.row->lanes, 2);
    assert_string_equal(c.row->kernel, "median_fast_strip_kernel");
    assert_int_equal(c.block_x * c.block_y, 128);
    assert_int_equal(c.smem, 0);
    /* 16-bit there: the networks, two samples a register, 32 x 4 */
    assert_int_equal(auto_variant(&jf_median_family, &big, 3840, 2160, 1, JF_SAMPLE_U16, 3, &c), JF_VARIANT_FAST);
    assert_int_equal(c.row->lanes, 2);
    assert_string_equal(c.row->kernel, "median_fast_kernel");
    assert_int_equal(c.block_x, 32);
    assert_int_equal(c.block_y, 4);
    assert_true(c.smem > 0 && c.smem <= 48 * 1024);
    /* a small image at k = 3: global (under 4 M samples on 132 SMs) */
    assert_int_equal(auto_variant(&jf_median_family, &big, 640, 480, 1, JF_SAMPLE_U8, 3, &c), JF_VARIANT_GLOBAL);
    assert_non_null(strstr(c.reason, "small image"));
    assert_int_equal(c.block_x * c.block_y, 256);
    /* the threshold scales with the SMs: the Nano's one SM fills sooner */
    assert_int_equal(auto_variant(&jf_median_family, &nano_, 640, 480, 1, JF_SAMPLE_U8, 3, &c), JF_VARIANT_FAST);
    /* there, grey 8-bit k = 3 runs the video min/max kernel (native on 5.x, 6.x) */
    assert_string_equal(c.row->kernel, "median_fast_video_kernel");
    assert_string_equal(c.row->kernel, "median_fast_video_kernel");
    assert_int_equal(c.block_x, 8);
    assert_int_equal(c.block_y, 4);
    assert_int_equal((int)c.smem, (8 * 32 + 32) * (4 * 8 + 2)); /* the edge blocks' tile */
    /* ... as on a big GPU under the Nano's limits, so that one tests it */
    assert_int_equal(auto_variant(&jf_median_family, &lim, 1920, 1080, 1, JF_SAMPLE_U8, 3, &c), JF_VARIANT_FAST);
    assert_string_equal(c.row->kernel, "median_fast_video_kernel");
    /* not for RGB, 16 bits, nor on 7.0 and newer at full size */
    assert_int_equal(auto_variant(&jf_median_family, &nano_, 1920, 1080, 3, JF_SAMPLE_U8, 3, &c), JF_VARIANT_FAST);
    assert_string_equal(c.row->kernel, "median_fast_kernel");
    assert_int_equal(c.row->lanes, 1);
    assert_int_equal(auto_variant(&jf_median_family, &nano_, 1920, 1080, 1, JF_SAMPLE_U16, 3, &c), JF_VARIANT_FAST);
    assert_string_equal(c.row->kernel, "median_fast_kernel");
    /* grey 8-bit k = 5 and 7 there: the networks in video instructions, the
     * one-lane networks' block and tile; RGB k = 5 the networks */
    assert_int_equal(auto_variant(&jf_median_family, &nano_, 1920, 1080, 1, JF_SAMPLE_U8, 5, &c), JF_VARIANT_FAST);
    assert_string_equal(c.row->kernel, "median_fast_video_net_kernel");
    assert_string_equal(c.row->kernel, "median_fast_video_net_kernel");
    assert_int_equal(c.block_x * c.block_y, 128);
    assert_int_equal(auto_variant(&jf_median_family, &lim, 1920, 1080, 1, JF_SAMPLE_U8, 5, &c), JF_VARIANT_FAST);
    assert_string_equal(c.row->kernel, "median_fast_video_net_kernel");
    assert_int_equal(auto_variant(&jf_median_family, &nano_, 1920, 1080, 1, JF_SAMPLE_U8, 7, &c), JF_VARIANT_FAST);
    assert_string_equal(c.row->kernel, "median_fast_video_net_kernel");
    assert_int_equal(auto_variant(&jf_median_family, &nano_, 1920, 1080, 3, JF_SAMPLE_U8, 5, &c), JF_VARIANT_FAST);
    assert_string_equal(c.row->kernel, "median_fast_kernel");
    assert_int_equal(auto_variant(&jf_median_family, &big, 3840, 2160, 1, JF_SAMPLE_U8, 5, &c), JF_VARIANT_FAST);
    assert_string_equal(c.row->kernel, "median_fast_kernel");
    {
        const jf_device_info small = small_smem(); /* 8.6 */
        req r = {&jf_median_family, &small, 1920, 1080, 1, JF_SAMPLE_U8, 0, 3, JF_VARIANT_FAST, 0, 0, NULL};
        assert_int_equal(resolve(&r, &c), JF_OK);
        assert_string_equal(c.row->kernel, "median_fast_kernel");
        assert_int_equal(c.row->lanes, 1);
    }
    {
        char why[160];
        const jf_variant_row *video = NULL;
        const jf_shape grey = {1920, 1080, 1, JF_SAMPLE_U8, 0}, rgb = {1920, 1080, 3, JF_SAMPLE_U8, 0};
        int i;
        for (i = 0; i < jf_median_family.row_count; i++)
            if (strcmp(jf_median_family.rows[i].kernel, "median_fast_video_kernel") == 0)
                video = &jf_median_family.rows[i];
        assert_non_null(video);
        assert_false(jf_row_runs(video, &big, &grey, 3, why, sizeof why));
        assert_non_null(strstr(why, "compute capability 6.2 and older (this device: 9.0)"));
        assert_false(jf_row_runs(video, &nano_, &rgb, 3, why, sizeof why));
        assert_non_null(strstr(why, "grey images only"));
        assert_true(jf_row_runs(video, &nano_, &grey, 3, why, sizeof why));
        assert_true(jf_row_runs(video, &lim, &grey, 3, why, sizeof why));
    }
    {
        /* a Nano-only build (compute_53 PTX) on an H100: the two-lane
         * kernels' bodies are compiled out there, so the one-lane row runs */
        jf_device_info ptx53 = h100();
        ptx53.code_cc = 53;
        assert_int_equal(auto_variant(&jf_median_family, &ptx53, 3840, 2160, 1, JF_SAMPLE_U8, 3, &c), JF_VARIANT_FAST);
        assert_int_equal(c.row->lanes, 1);
        assert_string_equal(c.row->kernel, "median_fast_kernel");
        assert_int_equal(auto_variant(&jf_median_family, &ptx53, 1920, 1080, 1, JF_SAMPLE_U8, 9, &c), JF_VARIANT_SHARED);
        assert_non_null(strstr(c.reason, "as compiled for 5.3"));
        ptx53.code_cc = 90; /* machine code for the device itself */
        assert_int_equal(auto_variant(&jf_median_family, &ptx53, 3840, 2160, 1, JF_SAMPLE_U8, 3, &c), JF_VARIANT_FAST);
        assert_int_equal(c.row->lanes, 2);
    }
    assert_int_equal(auto_variant(&jf_median_family, &nano_, 160, 120, 1, JF_SAMPLE_U8, 3, &c), JF_VARIANT_GLOBAL);
    /* k = 1 is a copy */
    assert_int_equal(auto_variant(&jf_median_family, &big, 3840, 2160, 1, JF_SAMPLE_U8, 1, &c), JF_VARIANT_GLOBAL);
    /* k = 9, 11: networks only with two lanes (cc 9.0, full device) */
    assert_int_equal(auto_variant(&jf_median_family, &h2, 1920, 1080, 1, JF_SAMPLE_U8, 11, &c), JF_VARIANT_FAST);
    /* k = 11 from about 5 M samples: the histograms */
    assert_int_equal(auto_variant(&jf_median_family, &h2, 1920, 1080, 3, JF_SAMPLE_U8, 11, &c), JF_VARIANT_SHARED);
    assert_int_equal(auto_variant(&jf_median_family, &big, 7680, 4320, 1, JF_SAMPLE_U8, 11, &c), JF_VARIANT_SHARED);
    assert_int_equal(auto_variant(&jf_median_family, &big, 7680, 4320, 1, JF_SAMPLE_U8, 9, &c), JF_VARIANT_FAST);
    assert_int_equal(auto_variant(&jf_median_family, &nano_, 1920, 1080, 1, JF_SAMPLE_U8, 9, &c), JF_VARIANT_SHARED);
    assert_non_null(strstr(c.reason, "compute capability 9.0")); /* why fast was passed over */
    assert_int_equal(auto_variant(&jf_median_family, &lim, 1920, 1080, 1, JF_SAMPLE_U8, 9, &c), JF_VARIANT_SHARED);
    assert_int_equal(auto_variant(&jf_median_family, &lim, 1920, 1080, 1, JF_SAMPLE_U8, 7, &c), JF_VARIANT_FAST);
    assert_int_equal(c.row->lanes, 1);
    /* beyond the networks: histograms at 8 bits, global at 16 */
    assert_int_equal(auto_variant(&jf_median_family, &big, 1920, 1080, 1, JF_SAMPLE_U8, 13, &c), JF_VARIANT_SHARED);
    assert_int_equal(c.block_x, 32);
    assert_int_equal(c.block_y, 2);
    assert_int_equal(auto_variant(&jf_median_family, &big, 1920, 1080, 1, JF_SAMPLE_U16, 13, &c), JF_VARIANT_GLOBAL);
    assert_int_equal(auto_variant(&jf_median_family, &big, 1920, 1080, 1, JF_SAMPLE_U16, 5, &c), JF_VARIANT_FAST);
    assert_int_equal(auto_variant(&jf_median_family, &nano_, 4000, 3000, 1, JF_SAMPLE_U8, 255, &c), JF_VARIANT_SHARED);
}

/* 16-bit four-channel tiles are the largest: on the Nano the default 32 x 4
 * block of the fast median halves its rows until it fits 48 KiB. */
static void test_median_blocks_fit(void **state)
{
    const jf_device_info nano_ = nano();
    jf_choice c;
    int k;
    (void)state;
    for (k = 3; k <= 7; k += 2) {
        assert_int_equal(auto_variant(&jf_median_family, &nano_, 1920, 1080, 4, JF_SAMPLE_U16, k, &c),
                         JF_VARIANT_FAST);
        assert_int_equal(c.block_x, 32);
        assert_true(c.block_y >= 1 && c.block_y <= 4);
        assert_true(c.smem <= 48 * 1024);
    }
}

/* On the Orin every family's auto choice runs, at every k, depth and
 * channel count and rank of weights, on a frame and a thumbnail: a GPU row whose block fits a
 * block's 1024 threads and the shared memory the Orin gives one (the
 * registers are checked against the sm_87 build by scripts/orin-check.sh). */
static void test_orin_choices(void **state)
{
    const jf_device_info dev = orin();
    static const int sizes[][2] = {{1920, 1080}, {97, 61}};
    static const int chans[] = {1, 3, 4};
    int f, k, si, ci, s, rank1, gpu = 0;
    jf_choice c;
    (void)state;
    for (f = 0; f < jf_family_total; f++)
        for (s = 0; s < JF_SAMPLE_COUNT; s++)
            for (si = 0; si < 2; si++)
                for (ci = 0; ci < 3; ci++)
                    for (rank1 = 0; rank1 <= 1; rank1++)
                        for (k = 1; k <= 63; k += 2) {
                            req r = {jf_families[f], &dev, sizes[si][0], sizes[si][1], chans[ci],
                                     (jf_sample)s, rank1, k, JF_VARIANT_AUTO, 0, 0, NULL};
                            if (resolve(&r, &c) != JF_OK)
                                continue; /* the family has no such k or depth */
                            if (!c.row || !c.row->launches)
                                continue; /* the CPU, or a row that launches no kernel of its own */
                            gpu++;
                            assert_true(c.block_x * c.block_y >= 32 && c.block_x * c.block_y <= 1024);
                            assert_true(c.smem <= (size_t)dev.shared_per_block_optin);
                        }
    assert_true(gpu > 500);
    assert_int_equal(auto_variant(&jf_median_family, &dev, 1920, 1080, 1, JF_SAMPLE_U8, 3, &c), JF_VARIANT_FAST);
    /* the byte-selecting video min/max are sm_5x's: the Orin takes the general network */
    assert_null(strstr(c.row->kernel, "video"));
}

/* The median's and the convolutions' GPU rows name their launch where the
 * build has CUDA (their CUDA entries call it; nothing else chooses), and
 * the CPU rows none. */
static void test_rows_name_their_launch(void **state)
{
    static const jf_family *const families[] = {&jf_median_family, &jf_conv_family,
                                                &jf_nlmeans_family, &jf_bilateral_family};
    size_t f;
    int r;
    (void)state;
    for (f = 0; f < sizeof families / sizeof families[0]; f++)
        for (r = 0; r < families[f]->row_count; r++) {
            const jf_variant_row *row = &families[f]->rows[r];
            if (row->variant == JF_VARIANT_CPU)
                assert_true(!row->run && (row->cpu || f >= 2)); /* the denoisers' CPU: their entry */
            else
                assert_int_equal(row->run != NULL, jf_built_with_cuda());
        }
}

/* The histogram median's long strips (the ring) from k = 31, and from
 * k = 25 on images of 20 M samples and more (scaled by the SMs). */
static void test_median_ring_rule(void **state)
{
    const jf_device_info big = h100();
    const size_t limit = jf_device_smem_limit(&big);
    int strip, chunk;
    (void)state;
    assert_true(jf_median_ring_plan(7680, 4320, 1, 64, 25, big.multiprocessors, limit, &strip, &chunk) > 0);
    assert_true(strip > JF_MEDIAN_STRIP_MAX);
    assert_true(jf_median_ring_plan(3840, 2160, 3, 64, 29, big.multiprocessors, limit, &strip, &chunk) > 0);
    assert_int_equal(jf_median_ring_plan(7680, 4320, 1, 64, 23, big.multiprocessors, limit, &strip, &chunk), 0);
    assert_int_equal(jf_median_ring_plan(3840, 2160, 1, 64, 25, big.multiprocessors, limit, &strip, &chunk), 0);
    assert_int_equal(jf_median_ring_plan(1920, 1080, 3, 64, 29, big.multiprocessors, limit, &strip, &chunk), 0);
    assert_true(jf_median_ring_plan(1920, 1080, 3, 64, 31, big.multiprocessors, limit, &strip, &chunk) > 0);
    /* one SM: the threshold scales down */
    assert_true(jf_median_ring_plan(640, 480, 1, 64, 25, 1, limit, &strip, &chunk) > 0);
}

static void test_explicit_variants_keep_their_word(void **state)
{
    const jf_device_info big = h100(), nano_ = nano();
    req r = {&jf_median_family, &big, 1920, 1080, 1, JF_SAMPLE_U8, 0, 13, JF_VARIANT_FAST, 0, 0, NULL};
    jf_choice c;
    (void)state;
    /* no network at k = 13: refused with the reason, never another variant */
    assert_int_equal(resolve(&r, &c), JF_ERR_UNSUPPORTED);
    assert_non_null(strstr(jf_last_error(), "'fast'"));
    assert_non_null(strstr(jf_last_error(), "k = 3 to 11"));
    /* k = 9 needs two lanes: not on the Nano */
    r.dev = &nano_;
    r.k = 9;
    assert_int_equal(resolve(&r, &c), JF_ERR_UNSUPPORTED);
    assert_non_null(strstr(jf_last_error(), "compute capability 9.0"));
    /* shared takes 8 bits */
    r.dev = &big;
    r.asked = JF_VARIANT_SHARED;
    r.sample = JF_SAMPLE_U16;
    r.k = 5;
    assert_int_equal(resolve(&r, &c), JF_ERR_UNSUPPORTED);
    assert_non_null(strstr(jf_last_error(), "8-bit"));
    /* what can run, runs as asked */
    r.sample = JF_SAMPLE_U8;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_SHARED);
    assert_string_equal(c.reason, "asked for");
    r.asked = JF_VARIANT_GLOBAL;
    r.k = 201;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_GLOBAL);
    /* the impulse filters have no fast or shared variant */
    r.f = &jf_impulse_family;
    r.k = 7;
    r.asked = JF_VARIANT_FAST;
    assert_int_equal(resolve(&r, &c), JF_ERR_UNSUPPORTED);
    assert_non_null(strstr(jf_last_error(), "no 'fast' variant"));
    r.asked = JF_VARIANT_AUTO;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_GLOBAL);
    assert_int_equal(c.block_x * c.block_y, 128);
}

static void test_cpu(void **state)
{
    const jf_device_info big = h100();
    req r = {&jf_median_family, NULL, 64, 64, 1, JF_SAMPLE_U8, 0, 5, JF_VARIANT_AUTO, 0, 0, NULL};
    jf_choice c;
    (void)state;
    memset(&c, 0x5A, sizeof c); /* whatever the caller's choice held goes */
    assert_int_equal(resolve(&r, &c), JF_OK); /* the CPU backend */
    assert_int_equal(c.variant, JF_VARIANT_CPU);
    assert_string_equal(c.reason, "the CPU backend");
    assert_true(c.block_x == 0 && c.block_y == 0 && c.smem == 0);
    r.asked = JF_VARIANT_FAST; /* a GPU variant without a GPU */
    assert_int_equal(resolve(&r, &c), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "CUDA backend"));
    r.dev = &big; /* asked for the CPU on a GPU context */
    r.asked = JF_VARIANT_CPU;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_CPU);
    assert_null(c.row->launches);
    r.asked = (jf_variant)17;
    assert_int_equal(resolve(&r, &c), JF_ERR_ARG);
    /* noise has no GPU kernels: the CPU, and says so */
    r.f = &jf_noise_family;
    r.asked = JF_VARIANT_AUTO;
    r.k = 1;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_CPU);
    assert_non_null(strstr(c.reason, "CPU only"));
}

/* The CPU's implementations are rows the resolver chooses like a GPU's:
 * by k and sample type, and for the convolutions under `auto` by what the
 * weights allow; asked for by name, the float reference. */
static const char *cpu_kernel(const jf_family *f, int w, int h, int ch, jf_sample s, int rank1,
                              int k, const float *weights, jf_variant asked)
{
    static jf_choice c;
    req r = {f, NULL, w, h, ch, s, rank1, k, asked, 0, 0, NULL, weights};
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_CPU);
    assert_non_null(c.row);
    assert_non_null(c.row->cpu);
    return c.row->kernel;
}

static void test_cpu_rows(void **state)
{
    const jf_family *m = &jf_median_family, *cv = &jf_conv_family;
    const jf_variant A = JF_VARIANT_AUTO, C = JF_VARIANT_CPU;
    float gauss[49], odd[49], big[31 * 31], amplify[9];
    const int ks[] = {1, 3, 5, 7, 9, 31, JF_MEDIAN_MAX_KSIZE};
    jf_shape shape = {640, 480, 3, JF_SAMPLE_U8, 0, NULL};
    int i, j;
    (void)state;
    for (i = 0; i < 7; i++) { /* the median: every k of both depths has its row */
        const int k = ks[i], small = k >= 3 && k <= 9;
        assert_string_equal(cpu_kernel(m, 37, 23, 3, JF_SAMPLE_U8, 0, k, NULL, A),
                            small ? "median_cpu_networks" : "median_cpu_histogram");
        assert_string_equal(cpu_kernel(m, 37, 23, 1, JF_SAMPLE_U16, 0, k, NULL, C),
                            small ? "median_cpu_networks" : "median_cpu_histogram16");
        shape.sample = JF_SAMPLE_U16;
        /* scratch: the padded copy of the histograms, none for the networks */
        assert_int_equal(jf_cpu_work_bytes(m, &shape, k, 2),
                         small ? 0 : (size_t)(640 + k - 1) * (480 + k - 1) * 3 * 2);
        /* float32: the networks to k = 7 (k = 9's are kept to the integer
         * depths), a selection in each window beyond */
        assert_string_equal(cpu_kernel(m, 37, 23, 1, JF_SAMPLE_F32, 0, k, NULL, A),
                            k >= 3 && k <= 7 ? "median_cpu_networks" : "median_cpu_select");
    }
    for (j = 0; j < 7; j++)
        for (i = 0; i < 7; i++) {
            gauss[j * 7 + i] = (float)((1 + 3 * (i < 4 ? i : 6 - i)) * (1 + 3 * (j < 4 ? j : 6 - j))) / 1600.0f;
            odd[j * 7 + i] = (float)((i * 7 + j * 3) % 5) / 100.0f; /* not rank 1 */
        }
    for (i = 0; i < 31 * 31; i++)
        big[i] = (float)((i * 13) % 7) / 3000.0f;
    for (i = 0; i < 9; i++)
        amplify[i] = 0.5f; /* rank 1, but a sum of 4.5: no 16-bit fixed point */
    /* rank-1 8-bit weights summing to at most 1: fixed point under auto,
     * the float reference by name and at 16 bits */
    assert_string_equal(cpu_kernel(cv, 64, 48, 3, JF_SAMPLE_U8, 1, 7, gauss, A), "conv_cpu_fixed");
    assert_string_equal(cpu_kernel(cv, 64, 48, 3, JF_SAMPLE_U8, 1, 7, gauss, C), "conv_cpu");
    assert_string_equal(cpu_kernel(cv, 64, 48, 3, JF_SAMPLE_U16, 1, 7, gauss, A), "conv_cpu");
    assert_string_equal(cpu_kernel(cv, 64, 48, 1, JF_SAMPLE_U8, 1, 3, amplify, A), "conv_cpu");
    /* weights not known (a description): the reference */
    assert_string_equal(cpu_kernel(cv, 64, 48, 3, JF_SAMPLE_U8, 1, 7, NULL, A), "conv_cpu");
    /* full-rank weights: the FFT where it is the cheaper (a large k on a
     * large image), the direct sum on a small one */
    assert_string_equal(cpu_kernel(cv, 64, 48, 1, JF_SAMPLE_U8, 0, 7, odd, A), "conv_cpu");
    assert_string_equal(cpu_kernel(cv, 1920, 1080, 1, JF_SAMPLE_U8, 0, 31, big, A), "conv_cpu_fft");
    assert_string_equal(cpu_kernel(cv, 1920, 1080, 1, JF_SAMPLE_U8, 0, 31, big, C), "conv_cpu");
    /* the estimate: the larger of auto's row and the reference */
    shape.width = 1920;
    shape.height = 1080;
    shape.channels = 1;
    shape.sample = JF_SAMPLE_U8;
    shape.weights = big;
    assert_int_equal(jf_cpu_work_bytes(cv, &shape, 31, 2),
                     jf_conv_fft_work(&shape, 31, 2) > jf_conv_float_work(&shape, 31, 2)
                         ? jf_conv_fft_work(&shape, 31, 2) : jf_conv_float_work(&shape, 31, 2));
    assert_true(jf_conv_fft_work(&shape, 31, 2) > 0);
    /* a family whose CPU code does not go through rows has none to run */
    assert_false(jf_family_runs_cpu_rows(&jf_noise_family));
    assert_true(jf_family_runs_cpu_rows(m) && jf_family_runs_cpu_rows(cv));
}

static void test_blocks(void **state)
{
    const jf_device_info big = h100(), nano_ = nano();
    req r = {&jf_median_family, &big, 1920, 1080, 1, JF_SAMPLE_U8, 0, 5, JF_VARIANT_FAST, 64, 2, NULL};
    jf_choice c;
    (void)state;
    assert_int_equal(resolve(&r, &c), JF_OK); /* the caller's block, as given */
    assert_int_equal(c.block_x, 64);
    assert_int_equal(c.block_y, 2);
    r.bx = 30; /* width not a multiple of 4 */
    assert_int_equal(resolve(&r, &c), JF_ERR_ARG);
    r.bx = 64, r.by = 32; /* 2048 threads */
    assert_int_equal(resolve(&r, &c), JF_ERR_ARG);
    /* a block whose tile passes the device's shared memory */
    r.dev = &nano_;
    r.ch = 4;
    r.sample = JF_SAMPLE_U16;
    r.bx = 32, r.by = 16;
    assert_int_equal(resolve(&r, &c), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "shared memory"));
}

/* The k = 3 convolution in fixed point: 8-bit images (grey and
 * interleaved) with weights it holds within half a level (a box, a
 * Gaussian, integer kernels), in video instructions on the Nano and under
 * its limits, in dot products from 6.1; anything else the float kernel,
 * asked for by name too. */
static void test_conv_fast_fixed(void **state)
{
    static const float box[9] = {1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f, 1 / 9.f};
    static const float sharpen[9] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
    static const float coarse[9] = {0, 0, 0, 0, 1000.3f, 0, 0, 0, 0};
    const jf_device_info nano_ = nano(), lim = h100_nano_limits(), big = h100(), orin_ = orin();
    req r = {&jf_conv_family, &nano_, 1920, 1080, 1, JF_SAMPLE_U8, 1, 3, JF_VARIANT_AUTO, 0, 0, NULL, box};
    jf_conv_fast_fixed_weights q;
    jf_choice c;
    float nan_w[9];
    (void)state;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_fast_video_kernel");
    assert_int_equal(c.block_x, JF_CONV_FAST_FIXED_BLOCK_X_VIDEO);
    assert_int_equal(c.block_y, JF_CONV_FAST_FIXED_BLOCK_Y);
    assert_true(c.smem > 0 && c.smem <= 48 * 1024);
    r.dev = &lim;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_fast_video_kernel");
    r.weights = sharpen, r.rank1 = 0;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_fast_video_kernel");
    r.asked = JF_VARIANT_FAST; /* by name: the weights it cannot hold go to the float kernel */
    r.weights = coarse;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_fast_kernel");
    r.weights = NULL;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_fast_kernel");
    r.asked = JF_VARIANT_AUTO, r.weights = box, r.ch = 3;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_fast_video_kernel");
    r.ch = 4, r.weights = coarse;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_fast_kernel");
    r.ch = 1, r.weights = box, r.sample = JF_SAMPLE_U16;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_fast_kernel");
    r.sample = JF_SAMPLE_U8, r.k = 5;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_fast_kernel");
    r.k = 3, r.dev = &big; /* video instructions emulated there: the dot products */
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_fast_dp_kernel");
    assert_int_equal(c.block_x, JF_CONV_FAST_FIXED_BLOCK_X_DP);
    assert_int_equal(c.block_y, JF_CONV_FAST_FIXED_BLOCK_Y);
    r.ch = 3;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_fast_dp_kernel");
    r.ch = 1, r.dev = &orin_;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_fast_dp_kernel");
    r.ch = 4;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_fast_dp_kernel");
    r.weights = coarse; /* and what they cannot hold, the float kernel */
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_fast_kernel");

    /* 2 rows a thread below 1.2 blocks of 8 rows an SM, 4 below 14, else
     * 8: with the dot products' 16 x 8 blocks, 720p grey on an H100 has
     * 120 blocks of 128 x 64 outputs, 1080p 255, 4K 1020, 8K 4080; a row's
     * bytes count (1080p RGB 765, 4K RGB 3060); in the video kernel's 32 x
     * 8 blocks 1080p grey has 136 (2 rows); the Nano's one SM takes 8 from
     * 14 blocks (of 256 x 64) */
    assert_int_equal(jf_conv_fast_fixed_rows(1280, 720, 16, 8, 132), JF_CONV_FAST_FIXED_ROWS_SMALL);
    assert_int_equal(jf_conv_fast_fixed_rows(1920, 1080, 16, 8, 132), JF_CONV_FAST_FIXED_ROWS_MID);
    assert_int_equal(jf_conv_fast_fixed_rows(3840, 2160, 16, 8, 132), JF_CONV_FAST_FIXED_ROWS_MID);
    assert_int_equal(jf_conv_fast_fixed_rows(7680, 4320, 16, 8, 132), JF_CONV_FAST_FIXED_ROWS);
    assert_int_equal(jf_conv_fast_fixed_rows(1920 * 3, 1080, 16, 8, 132), JF_CONV_FAST_FIXED_ROWS_MID);
    assert_int_equal(jf_conv_fast_fixed_rows(3840 * 3, 2160, 16, 8, 132), JF_CONV_FAST_FIXED_ROWS);
    assert_int_equal(jf_conv_fast_fixed_rows(1920, 1080, 32, 8, 132), JF_CONV_FAST_FIXED_ROWS_SMALL);
    /* at the thresholds: 159 and 1848 blocks on 132 SMs */
    assert_int_equal(jf_conv_fast_fixed_rows(256 * 53, 64 * 3, 32, 8, 132), JF_CONV_FAST_FIXED_ROWS_MID);
    assert_int_equal(jf_conv_fast_fixed_rows(256 * 79, 64 * 2, 32, 8, 132), JF_CONV_FAST_FIXED_ROWS_SMALL);
    assert_int_equal(jf_conv_fast_fixed_rows(256 * 66, 64 * 28, 32, 8, 132), JF_CONV_FAST_FIXED_ROWS);
    assert_int_equal(jf_conv_fast_fixed_rows(256 * 66, 64 * 28 - 64, 32, 8, 132),
                     JF_CONV_FAST_FIXED_ROWS_MID);
    assert_int_equal(jf_conv_fast_fixed_rows(1920, 1080, 32, 8, 1), JF_CONV_FAST_FIXED_ROWS);
    assert_int_equal(jf_conv_fast_fixed_rows(256 * 13, 64, 32, 8, 1), JF_CONV_FAST_FIXED_ROWS_MID);
    assert_int_equal(jf_conv_fast_fixed_rows(256 * 14, 64, 32, 8, 1), JF_CONV_FAST_FIXED_ROWS);
    assert_int_equal(jf_conv_fast_fixed_rows(256, 64, 32, 8, 1), JF_CONV_FAST_FIXED_ROWS_SMALL);
    assert_int_equal(jf_conv_fast_fixed_rows(257, 64, 32, 8, 1), JF_CONV_FAST_FIXED_ROWS_MID);

    /* the quantiser: exact fractions stay exact, at the largest shift */
    assert_true(jf_conv_fast_fixed_quantise(sharpen, 3, &q));
    assert_int_equal(q.shift, 12); /* 5 x 2^12 fits 16 bits, 5 x 2^13 not */
    assert_int_equal(q.q[4], 5 << 12);
    assert_int_equal(q.q[1], -(1 << 12));
    assert_int_equal(q.q[0], 0);
    assert_true(jf_conv_fast_fixed_quantise(box, 3, &q));
    assert_int_equal(q.shift, 15);
    assert_int_equal(q.q[0], 3641); /* 32768 / 9 rounded */
    /* a weight of 1000.3 at shift 5 moves a sum by 255 x 0.4 / 32 levels:
     * more than half of one */
    assert_false(jf_conv_fast_fixed_quantise(coarse, 3, &q));
    assert_false(jf_conv_fast_fixed_quantise(box, 5, &q));
    assert_false(jf_conv_fast_fixed_quantise(NULL, 3, &q));
    memcpy(nan_w, box, sizeof nan_w);
    nan_w[3] = NAN;
    assert_false(jf_conv_fast_fixed_quantise(nan_w, 3, &q));
    nan_w[3] = 40000.0f; /* no shift holds it in 16 bits */
    assert_false(jf_conv_fast_fixed_quantise(nan_w, 3, &q));
}

static void test_conv(void **state)
{
    const jf_device_info big = h100(), nano_ = nano(), small = small_smem(), tiny = tiny_smem();
    req r = {&jf_conv_family, &big, 3840, 2160, 1, JF_SAMPLE_U8, 0, 3, JF_VARIANT_AUTO, 0, 0, NULL};
    jf_choice c;
    (void)state;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_FAST);
    assert_string_equal(c.row->kernel, "conv_fast_kernel");
    assert_int_equal(c.block_y, 8);
    /* several channels at k <= 5: the dilated row, the grey block and a
     * tile of (128 + 2 x 3 samples, rounded to 16 bytes) x (64 + 2) rows,
     * no output planes; from k = 7 the channel passes add them */
    r.ch = 3;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.block_y, 8);
    assert_int_equal(c.smem, 144 * 66);
    r.k = 7;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_true(c.smem > (size_t)(144 * 70));
    r.k = 1; /* no window to share */
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_GLOBAL);
    r.asked = JF_VARIANT_FAST;
    assert_int_equal(resolve(&r, &c), JF_ERR_UNSUPPORTED);
    /* rank-1 weights from k = 7 take the separable kernel; others do not */
    r.asked = JF_VARIANT_AUTO;
    r.k = 9;
    r.rank1 = 1;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_separable_kernel");
    r.rank1 = 0;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_fast_kernel");
    r.k = 5;
    r.rank1 = 1;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_fast_kernel");
    /* the separable block: 32 x 8 where the grid gives every SM 3 blocks, else 32 x 4 */
    r.k = 15;
    r.ch = 1;
    r.w = 7680, r.h = 4320;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.block_y, 8);
    r.w = 1920, r.h = 1080, r.ch = 3;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.block_y, 4);
    /* k at run time beyond 13: 32 x 4 where it fits; on the Nano the block
     * with the most threads that fits 48 KiB (16-bit RGB at k = 63) */
    r.rank1 = 0;
    r.k = 63;
    r.ch = 1;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_wide_kernel");
    assert_int_equal(c.block_x * c.block_y, 128);
    r.dev = &nano_;
    r.ch = 3;
    r.sample = JF_SAMPLE_U16;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_string_equal(c.row->kernel, "conv_wide_kernel");
    assert_true(c.block_x * c.block_y < 128);
    assert_true(c.smem <= 48 * 1024);
    r.dev = &small;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_true(c.smem <= 48 * 1024);
    /* where no block of it fits: auto falls back (16 bits: global) and says why; fast is refused */
    r.dev = &tiny;
    r.ch = 4;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_GLOBAL);
    assert_non_null(strstr(c.reason, "shared memory"));
    r.asked = JF_VARIANT_FAST;
    assert_int_equal(resolve(&r, &c), JF_ERR_UNSUPPORTED);
    r.sample = JF_SAMPLE_U8; /* 8 bits: the tiled kernel, whose tile is one plane */
    r.asked = JF_VARIANT_AUTO;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_SHARED);
}

/* A profile from `jetfilter calibrate`: its measured choice where it has
 * one near this size, for 8-bit images, if it runs here; the built-in
 * rules elsewhere. */
static void test_profile(void **state)
{
    const jf_device_info big = h100(), nano_ = nano();
    jf_profile p;
    jf_profile_choice e;
    req r = {&jf_median_family, &big, 700, 500, 1, JF_SAMPLE_U8, 0, 3, JF_VARIANT_AUTO, 0, 0, NULL};
    jf_choice c;
    (void)state;
    memset(&p, 0, sizeof p);
    memset(&e, 0, sizeof e);
    snprintf(e.op, sizeof e.op, "median");
    e.channels = 1, e.width = 640, e.height = 480, e.k = 3, e.variant = JF_VARIANT_SHARED;
    e.block_x = 64, e.block_y = 4, e.ms = 0.004;
    assert_int_equal(jf_profile_add(&p, &e), JF_OK);
    e.k = 9, e.variant = JF_VARIANT_FAST, e.block_x = e.block_y = 0;
    assert_int_equal(jf_profile_add(&p, &e), JF_OK);
    e.k = 255; /* a k its variant has no kernel for: the built-in rules */
    assert_int_equal(jf_profile_add(&p, &e), JF_OK);
    snprintf(e.op, sizeof e.op, "conv-rank1");
    e.channels = 3, e.width = 1920, e.height = 1080, e.k = 15, e.variant = JF_VARIANT_SHARED;
    assert_int_equal(jf_profile_add(&p, &e), JF_OK);

    assert_int_equal(resolve(&r, &c), JF_OK); /* no profile: built in */
    assert_int_equal(c.variant, JF_VARIANT_GLOBAL);
    r.profile = &p;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_SHARED);
    assert_int_equal(c.block_x, 64);
    assert_int_equal(c.block_y, 4);
    assert_non_null(strstr(c.reason, "tuning profile"));
    r.bx = 16, r.by = 16; /* the caller's block wins over the profile's */
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.block_x, 16);
    r.bx = r.by = 0;
    r.w = 1281, r.h = 961; /* farther than 4x from 640x480: built in */
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_GLOBAL);
    r.w = 700, r.h = 500;
    r.sample = JF_SAMPLE_U16; /* profiles are for 8-bit images */
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_GLOBAL);
    r.sample = JF_SAMPLE_U8;
    r.k = 9;
    r.dev = &nano_; /* a choice that cannot run here: built in */
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_SHARED);
    assert_null(strstr(c.reason, "tuning profile"));
    r.dev = &big;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_FAST);
    r.k = 255;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_SHARED);
    assert_null(strstr(c.reason, "tuning profile"));
    /* the rank-1 convolution has its own entries */
    r.f = &jf_conv_family;
    r.ch = 3, r.w = 1920, r.h = 1080, r.k = 15, r.rank1 = 1;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_SHARED);
    r.rank1 = 0;
    assert_int_equal(resolve(&r, &c), JF_OK);
    assert_int_equal(c.variant, JF_VARIANT_FAST);
    assert_string_equal(jf_family_profile_key(&jf_conv_family, 1), "conv-rank1");
    assert_string_equal(jf_family_profile_key(&jf_median_family, 1), "median");
    jf_profile_free(&p);
}

/* The words --help and the man page print come from the table. */
static void test_wording(void **state)
{
    const jf_op_info *median = jf_op_lookup("median"), *sw = jf_op_lookup("switching-median");
    (void)state;
    assert_non_null(median);
    assert_non_null(strstr(median->auto_rule, "fast at k = 3 to 9"));
    assert_non_null(strstr(median->auto_rule, "fast at k = 11 below 5 M samples"));
    assert_non_null(strstr(median->auto_rule, "compute capability 9.0"));
    assert_non_null(strstr(median->auto_rule, "global at k = 3 below 4 M samples"));
    assert_non_null(strstr(median->samples_rule, "not 'shared'"));
    assert_string_equal(sw->samples_rule, "8 bits");
    assert_non_null(strstr(median->samples_rule, "; float32 from the library and Python"));
    assert_null(strstr(jf_op_lookup("erode")->samples_rule, "float32"));
    assert_non_null(strstr(jf_op_lookup("gauss")->auto_rule, "rank-1"));
    assert_string_equal(jf_op_lookup("gaussian")->auto_rule, "the CPU only");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median_auto),
        cmocka_unit_test(test_median_blocks_fit),
        cmocka_unit_test(test_orin_choices),
        cmocka_unit_test(test_rows_name_their_launch),
        cmocka_unit_test(test_median_ring_rule),
        cmocka_unit_test(test_explicit_variants_keep_their_word),
        cmocka_unit_test(test_cpu),
        cmocka_unit_test(test_cpu_rows),
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_conv),
        cmocka_unit_test(test_conv_fast_fixed),
        cmocka_unit_test(test_profile),
        cmocka_unit_test(test_wording),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
