/*
 * The library API as a program built against it sees it: the ABI rule for
 * options structs (sizes pinned, older and newer sizes), defaults, stats off
 * unless asked and bounded when on, calls that allocate nothing and start
 * no thread once a context has seen a size, NULL contexts, wrapping.
 *
 * Allocations are counted by wrapping malloc, calloc, realloc and
 * pthread_create at link time (-Wl,--wrap, tests/CMakeLists.txt): the
 * library is a static archive linked into this program, so its calls go
 * through the wrappers too.
 */
#define _DEFAULT_SOURCE /* nanosleep */
#include "common.h"

#include <errno.h>
#include "core/context.h"
#include "core/errors.h"
#include "core/image.h"
#include "core/parse.h"
#include "core/stats.h"
#include "core/util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <malloc.h>
#include <math.h>
#include <string.h>
#include <time.h>

static atomic_long g_allocs, g_threads;
static atomic_int g_refuse_threads; /* 1: every thread start fails (EAGAIN) */
static atomic_size_t g_refuse_bytes; /* not 0: an allocation of this many bytes or more fails */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
int __real_posix_memalign(void **p, size_t align, size_t n);
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
int __wrap_posix_memalign(void **p, size_t align, size_t n);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg);

void *__wrap_malloc(size_t n)
{
    const size_t refuse = atomic_load(&g_refuse_bytes);
    atomic_fetch_add(&g_allocs, 1);
    return refuse && n >= refuse ? NULL : __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t m)
{
    atomic_fetch_add(&g_allocs, 1);
    return __real_calloc(n, m);
}
void *__wrap_realloc(void *p, size_t n)
{
    atomic_fetch_add(&g_allocs, 1);
    return __real_realloc(p, n);
}
int __wrap_posix_memalign(void **p, size_t align, size_t n) /* images from 32 MiB */
{
    const size_t refuse = atomic_load(&g_refuse_bytes);
    atomic_fetch_add(&g_allocs, 1);
    return refuse && n >= refuse ? ENOMEM : __real_posix_memalign(p, align, n);
}
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg)
{
    atomic_fetch_add(&g_threads, 1);
    if (atomic_load(&g_refuse_threads))
        return EAGAIN;
    return __real_pthread_create(t, a, f, arg);
}

/* Every options struct keeps its v1 layout: a change here breaks programs
 * built against the 1.0 header (LP64 figures: Linux x86_64 and aarch64). */
static void test_abi_layout(void **state)
{
    (void)state;
    if (sizeof(void *) != 8)
        skip();
    assert_int_equal(sizeof(jf_median_options), 48); /* 32 before 1.12 */
    assert_int_equal(offsetof(jf_median_options, ksize), 8);
    assert_int_equal(offsetof(jf_median_options, block_y), 24);
    assert_int_equal(offsetof(jf_median_options, ignore), 32); /* past 1.11's padding */
    assert_int_equal(offsetof(jf_median_options, ignore_value), 40);
    assert_int_equal(sizeof(jf_conv_options), 56); /* 40 before 1.13 */
    assert_int_equal(offsetof(jf_conv_options, weights), 16);
    assert_int_equal(offsetof(jf_conv_options, ignore), 40);
    assert_int_equal(offsetof(jf_conv_options, ignore_value), 48);
    assert_int_equal(sizeof(jf_encode_options), 40);
    assert_int_equal(offsetof(jf_encode_options, png_filter), 24);
    assert_int_equal(offsetof(jf_encode_options, tiff_compression), 32); /* 1.11: after 1.10's last byte */
    assert_int_equal(sizeof(jf_noise_options), 32);
    assert_int_equal(sizeof(jf_impulse_options), 24);
    assert_int_equal(offsetof(jf_impulse_options, refine), 20);
    assert_int_equal(sizeof(jf_impulse_choice), 16);
    assert_int_equal(sizeof(jf_context_options), 64);
    assert_int_equal(offsetof(jf_context_options, stats), 48);
    assert_int_equal(offsetof(jf_context_options, codec), 56);
    assert_int_equal(offsetof(jf_picture, decoded_on_gpu), 204);
    assert_int_equal(offsetof(jf_picture, color_model), 208); /* 1.5: was reserved[0..2] */
    assert_int_equal(offsetof(jf_picture, jpeg_adobe), 216);
    assert_int_equal(offsetof(jf_picture, compression), 220); /* 1.11: was reserved[0..3] */
    assert_int_equal(offsetof(jf_picture, alpha_associated), 232);
    assert_int_equal(offsetof(jf_image, sample), 40);
    assert_int_equal(sizeof(jf_image), 72);
    assert_int_equal(sizeof(jf_picture), 240);
    assert_int_equal(sizeof(jf_device_info), 472);
    assert_int_equal(offsetof(jf_limits, max_text_chunks), 44);
    assert_int_equal(offsetof(jf_limits, max_markers), 48); /* 1.7: after 1.0's last byte */
    assert_int_equal(offsetof(jf_limits, max_pages), 52);   /* 1.11: was reserved0 */
    assert_int_equal(sizeof(jf_limits), 56);
    assert_int_equal(sizeof(jf_op_result), 336);
    assert_int_equal(offsetof(jf_op_result, estimate), 328);
}

static void test_defaults(void **state)
{
    jf_median_options m = jf_median_defaults(), mi = JF_MEDIAN_OPTIONS_INIT;
    jf_conv_options c = jf_conv_defaults();
    jf_context_options x = jf_context_defaults();
    jf_encode_options e = jf_encode_defaults();
    jf_noise_options n = jf_noise_defaults();
    jf_impulse_options i = jf_impulse_defaults(), ii = JF_IMPULSE_OPTIONS_INIT;
    (void)state;
    assert_true(i.size == ii.size && i.max_ksize == ii.max_ksize && i.border == ii.border &&
                i.variant == ii.variant && i.refine == ii.refine && i.size == sizeof i);
    assert_int_equal(m.size, sizeof m);
    /* field by field: padding bytes are not part of the value */
    assert_true(m.size == mi.size && m.ksize == mi.ksize && m.border == mi.border &&
                m.variant == mi.variant && m.block_x == mi.block_x && m.block_y == mi.block_y);
    assert_int_equal(m.ksize, 3);
    assert_int_equal(m.border, JF_BORDER_REPLICATE);
    assert_int_equal(m.variant, JF_VARIANT_AUTO);
    assert_int_equal(c.size, sizeof c);
    assert_null(c.weights);
    assert_int_equal(x.size, sizeof x);
    assert_int_equal(x.stats, 0);
    assert_int_equal(x.codec, JF_CODEC_CPU);
    assert_int_equal(e.quality, 92);
    assert_int_equal(e.png_level, -1);
    assert_int_equal(n.kind, JF_NOISE_SALT_PEPPER);
}

/* jf_encode_options as 1.0 had it (24 bytes, png_filter after them): its
 * trailing padding may hold anything and is ignored; the filter is the
 * default.  A filter that is not one is refused. */
static void test_encode_options_1_0(const jf_image *img)
{
    jf_picture pic;
    jf_encode_options e = jf_encode_defaults(), old;
    unsigned char *want = NULL, *got = NULL;
    size_t want_size = 0, got_size = 0;
    memset(&pic, 0, sizeof pic);
    pic.color = *img;
    pic.format = JF_FORMAT_PNG;
    assert_int_equal(jf_picture_encode(&pic, &e, &want, &want_size), JF_OK);
    memset(&old, 0x5A, sizeof old);
    old.size = 24;
    old.format = JF_FORMAT_PNG;
    old.quality = 92;
    old.png_level = -1;
    assert_int_equal(jf_picture_encode(&pic, &old, &got, &got_size), JF_OK);
    assert_true(got_size == want_size && memcmp(got, want, want_size) == 0);
    free(got);
    e.png_filter = JF_PNG_FILTER_COUNT;
    assert_int_equal(jf_picture_encode(&pic, &e, &got, &got_size), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "PNG filter"));
    free(want);
}

/* An options struct from an older, shorter header: the fields it lacks
 * take their defaults.  A newer, longer one: accepted when its unknown tail
 * is zero.  Never initialised (size 0): refused, naming the initialiser. */
/* The size check's bound is a quarter of the address space a channel:
 * 2^31 - 1 squared grey fits under it, two channels do not, and nothing
 * is allocated to find out. */
static void test_size_check_bound(void **state)
{
    (void)state;
    assert_int_equal(jf_check_size("x", INT32_MAX, INT32_MAX, 1), SIZE_MAX > 0xFFFFFFFFu ? JF_OK : JF_ERR_LIMIT);
    assert_int_equal(jf_check_size("x", INT32_MAX, INT32_MAX, 2), JF_ERR_LIMIT);
    assert_non_null(strstr(jf_last_error(), "too large for this machine"));
    assert_int_equal(jf_check_size("x", (uint64_t)INT32_MAX + 1, 1, 1), JF_ERR_LIMIT);
    assert_int_equal(jf_check_size("x", 1, 0, 1), JF_ERR_LIMIT);
    assert_int_equal(jf_check_size("x", 0, 1, 1), JF_ERR_LIMIT);
}

static void test_abi_sizes(void **state)
{
    jf_image src = t_random_image(37, 23, 3, 2, 5), want = {0}, got = {0};
    struct { jf_median_options o; int future[4]; } newer;
    jf_median_options mo = t_median_opts(5, JF_BORDER_REFLECT, JF_VARIANT_CPU);
    (void)state;
    assert_int_equal(jf_median(NULL, &src, &want, &mo), JF_OK);

    /* "version 0.9": no block fields; a garbage block shape past its size is not read */
    mo.block_x = 3;
    mo.block_y = -7;
    mo.size = offsetof(jf_median_options, block_x);
    assert_int_equal(jf_median(NULL, &src, &got, &mo), JF_OK);
    assert_true(t_images_equal(&got, &want));

    memset(&newer, 0, sizeof newer);
    newer.o = t_median_opts(5, JF_BORDER_REFLECT, JF_VARIANT_CPU);
    newer.o.size = sizeof newer;
    assert_int_equal(jf_median(NULL, &src, &got, &newer.o), JF_OK);
    assert_true(t_images_equal(&got, &want));
    newer.future[1] = 1;
    assert_int_equal(jf_median(NULL, &src, &got, &newer.o), JF_ERR_UNSUPPORTED);
    assert_non_null(strstr(jf_last_error(), "newer jetfilter"));

    mo.size = 0;
    assert_int_equal(jf_median(NULL, &src, &got, &mo), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "jf_median_defaults"));
    /* a size no struct has (past 64 KiB): garbage, not a newer caller */
    newer.o.size = 70000;
    assert_int_equal(jf_median(NULL, &src, &got, &newer.o), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "options have size 70000"));
    test_encode_options_1_0(&src);
    {   /* limits from a 1.6 caller (48 bytes): the marker limit keeps its default */
        jf_limits l = jf_limits_defaults(), old = jf_get_limits();
        l.max_scans = 7;
        l.max_markers = -5; /* past a 1.6 struct's size: not read */
        l.size = offsetof(jf_limits, max_markers);
        assert_int_equal(jf_set_limits(&l), JF_OK);
        assert_int_equal(jf_get_limits().max_scans, 7);
        assert_int_equal(jf_get_limits().max_markers, 1000);
        l.size = sizeof l;
        assert_int_equal(jf_set_limits(&l), JF_ERR_ARG);
        assert_int_equal(jf_set_limits(NULL), JF_ERR_ARG);
        assert_non_null(strstr(jf_last_error(), "limits are NULL"));
        assert_int_equal(jf_set_limits(&old), JF_OK);
    }
    jf_image_free(&src);
    jf_image_free(&want);
    jf_image_free(&got);
}

/* The GPU's kept buffers (core/gpu_memory.cu) grow by this rule: a shape
 * that fits is kept; growing keeps each dimension's largest while that
 * costs at most twice the larger size, never the product of a tall image's
 * rows and a long queue's width (a guided filter, then an adaptive median
 * on 1080p RGB: 60 GB). */
static void test_kept_buffer_shapes(void **state)
{
    size_t p, r;
    (void)state;
    assert_int_equal(jf_buffer_shape(0, 0, 4096, 577, &p, &r), 0); /* none yet: as asked */
    assert_true(p == 4096 && r == 577);
    assert_int_equal(jf_buffer_shape(4096, 577, 4000, 500, &p, &r), 1); /* fits: kept */
    assert_true(p == 4096 && r == 577);
    assert_int_equal(jf_buffer_shape(4096, 577, 8192, 1080, &p, &r), 0); /* a larger image */
    assert_true(p == 8192 && r == 1080);
    assert_int_equal(jf_buffer_shape(8192, 1080, 7680, 1200, &p, &r), 0); /* a little taller */
    assert_true(p == 8192 && r == 1200);
    /* 6 x 3 x 1080 float rows, then a 1-row queue of 2 x 6.2 M ints */
    assert_int_equal(jf_buffer_shape(7680, 19440, 49766408, 1, &p, &r), 0);
    assert_true(p == 49766408 && r == 1);
    /* and back: the rows again, no product either */
    assert_int_equal(jf_buffer_shape(p, r, 7680, 19440, &p, &r), 0);
    assert_true(p == 7680 && r == 19440);
    /* a long row, then a few narrow ones: not millions of aligned rows */
    assert_int_equal(jf_buffer_shape(50000000, 1, 1, 5, &p, &r), 0);
    assert_true(p == 1 && r == 5);
    /* sizes whose product wraps a size_t: no wrap, the asked shape at least */
    assert_int_equal(jf_buffer_shape((size_t)1 << 40, 1, 1, (size_t)1 << 40, &p, &r), 0);
    assert_true(p == 1 && r == (size_t)1 << 40);
}

/* A frame loop on the CPU: after the first call at a size, no call
 * allocates and no thread starts. */
static void test_no_allocation_per_call(void **state)
{
    jf_context_options o = t_context_opts(JF_BACKEND_CPU, 3, JF_MEMORY_AUTO);
    jf_image src = t_random_image(203, 119, 3, 3, 9), dst, padded;
    jf_median_options m3 = t_median_opts(3, JF_BORDER_MIRROR, JF_VARIANT_AUTO);
    jf_median_options m9 = t_median_opts(9, JF_BORDER_ZERO, JF_VARIANT_AUTO);
    jf_kernel gauss, sharpen;
    jf_conv_options cg, cs;
    jf_context *ctx;
    double v;
    long before = 0, threads_before = 0;
    int round;
    (void)state;
    o.stats = 16;
    assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
    assert_int_equal(jf_image_alloc(&dst, src.width, src.height, src.channels), JF_OK);
    assert_int_equal(jf_image_alloc(&padded, src.width + 6, src.height + 6, src.channels), JF_OK);
    assert_int_equal(jf_kernel_make(JF_KERNEL_GAUSS, 7, 1.5, &gauss), JF_OK);    /* separable */
    assert_int_equal(jf_kernel_make(JF_KERNEL_SHARPEN, 5, 0, &sharpen), JF_OK); /* direct */
    cg = t_conv_opts(gauss.ksize, gauss.weights, JF_BORDER_REFLECT, JF_VARIANT_AUTO);
    cs = t_conv_opts(sharpen.ksize, sharpen.weights, JF_BORDER_REPLICATE, JF_VARIANT_AUTO);
    for (round = 0; round < 4; round++) {
        if (round == 1) {
            before = atomic_load(&g_allocs);
            threads_before = atomic_load(&g_threads);
        }
        assert_int_equal(jf_median(ctx, &src, &dst, &m3), JF_OK);
        assert_int_equal(jf_median(ctx, &src, &dst, &m9), JF_OK);
        assert_int_equal(jf_convolve(ctx, &src, &dst, &cg), JF_OK);
        assert_int_equal(jf_convolve(ctx, &src, &dst, &cs), JF_OK);
        assert_int_equal(jf_pad(ctx, &src, 3, JF_BORDER_MIRROR, &padded), JF_OK);
        assert_int_equal(jf_psnr(ctx, &src, &dst, &v, NULL), JF_OK);
        assert_int_equal(jf_ssim(ctx, &src, &dst, &v), JF_OK);
        assert_int_equal(jf_context_sync(ctx), JF_OK);
    }
    assert_int_equal(atomic_load(&g_allocs) - before, 0);
    assert_int_equal(atomic_load(&g_threads) - threads_before, 0);
    assert_true(threads_before > 0); /* the pool did start, once */
    jf_kernel_free(&gauss);
    jf_kernel_free(&sharpen);
    jf_image_free(&src);
    jf_image_free(&dst);
    jf_image_free(&padded);
    jf_context_destroy(ctx);
}

/* Off unless asked; when on, the last N records and totals that never drop. */
static void test_stats_bounded(void **state)
{
    jf_context_options o = t_context_opts(JF_BACKEND_CPU, 1, JF_MEMORY_AUTO);
    /* k = 11: a pad record and a median record per call (k = 3 to 9 pad as
     * they go, one record) */
    jf_median_options mo = t_median_opts(11, JF_BORDER_REPLICATE, JF_VARIANT_AUTO);
    jf_image src = t_random_image(40, 30, 1, 0, 3), dst = {0};
    jf_stat_total totals[8];
    jf_context *ctx;
    size_t n, i;
    uint64_t calls = 0;
    (void)state;
    assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
    assert_int_equal(jf_median(ctx, &src, &dst, &mo), JF_OK);
    assert_int_equal(jf_stats_count(ctx), 0);
    assert_int_equal(jf_stats_totals(ctx, NULL, 0), 0);
    jf_context_destroy(ctx);

    o.stats = 1; /* the smallest ring keeps the last record */
    assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
    assert_int_equal(jf_median(ctx, &src, &dst, &mo), JF_OK);
    assert_int_equal(jf_stats_count(ctx), 1);
    assert_string_equal(jf_stats_at(ctx, 0)->name, "median");
    jf_context_destroy(ctx);

    o.stats = 5;
    assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
    for (i = 0; i < 100; i++)
        assert_int_equal(jf_median(ctx, &src, &dst, &mo), JF_OK); /* pad + median: 2 records */
    assert_int_equal(jf_stats_count(ctx), 5);
    assert_int_equal(jf_stats_dropped(ctx), 195);
    assert_string_equal(jf_stats_at(ctx, 4)->name, "median");
    assert_int_equal(jf_stats_at(ctx, 4)->width, 40);
    assert_int_equal(jf_stats_at(ctx, 4)->height, 30);
    assert_int_equal(jf_stats_at(ctx, 4)->channels, 1);
    assert_int_equal(jf_stats_at(ctx, 4)->ksize, 11);
    assert_null(jf_stats_at(ctx, 5));
    n = jf_stats_totals(ctx, totals, 8);
    assert_int_equal(n, 2);
    for (i = 0; i < n; i++) {
        calls += totals[i].calls;
        assert_true(totals[i].min_ms <= totals[i].max_ms);
    }
    assert_int_equal(calls, 200);
    jf_stats_clear(ctx);
    assert_int_equal(jf_stats_count(ctx), 0);
    assert_int_equal(jf_stats_dropped(ctx), 0);
    assert_int_equal(jf_stats_totals(ctx, NULL, 0), 0);
    {
        /* bandwidth: bytes read and written over the time; a share of the peak */
        jf_stat one;
        memset(&one, 0, sizeof one);
        one.ms = 2.0;
        one.bytes_read = 3000000;
        one.bytes_written = 1000000;
        one.peak_gbps = 4.0;
        assert_true(fabs(jf_stat_gbps(&one) - 2.0) < 1e-12);
        assert_true(fabs(jf_stat_percent(&one) - 50.0) < 1e-9);
        one.peak_gbps = 0.0; /* no peak known: no share of it */
        assert_true(jf_stat_percent(&one) == 0.0);
        one.ms = 0.0;
        assert_true(jf_stat_gbps(&one) == 0.0);
        assert_true(jf_stat_gbps(NULL) == 0.0);
    }
    jf_image_free(&src);
    jf_image_free(&dst);
    jf_context_destroy(ctx);
}

static void test_context_basics(void **state)
{
    jf_context_options o = t_context_opts(JF_BACKEND_CPU, 2, JF_MEMORY_AUTO);
    jf_context *ctx = NULL;
    jf_device_info d;
    int fake;
    jf_image w;
    (void)state;
    assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
    assert_int_equal(jf_context_sync(ctx), JF_OK);
    assert_null(jf_context_stream(ctx));
    assert_int_equal(jf_context_threads(ctx), 2);
    assert_int_equal(jf_context_device(ctx, &d), JF_ERR_NO_DEVICE);
    if (!jf_built_with_cuda()) { /* a query without CUDA clears what it was given */
        size_t i;
        memset(&d, 0x5A, sizeof d);
        assert_int_equal(jf_device_query(0, &d), JF_ERR_NO_DEVICE);
        for (i = 0; i < sizeof d; i++)
            assert_int_equal(((const unsigned char *)&d)[i], 0);
        assert_int_equal(jf_device_query(0, NULL), JF_ERR_NO_DEVICE);
    }
    /* a CPU context has no stream to move to, and needs none */
    assert_int_equal(jf_context_set_stream(ctx, NULL), JF_OK);
    assert_int_equal(jf_context_set_stream(ctx, (void *)&fake), JF_ERR_NO_DEVICE);
    assert_int_equal(jf_context_set_stream(NULL, NULL), JF_ERR_ARG);
    jf_context_destroy(ctx);
    /* no thread count given: the machine's cores, never none */
    o.threads = 0;
    assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
    assert_true(jf_context_threads(ctx) >= 1);
    assert_int_equal(jf_context_threads(ctx), jf_context_threads(NULL));
    jf_context_destroy(ctx);
    {   /* ordinary memory is HOST on any build */
        jf_location loc = JF_LOC_DEVICE;
        int dev = 7;
        void *p = malloc(64);
        assert_int_equal(jf_memory_locate(p, &loc, &dev), JF_OK);
        assert_int_equal(loc, JF_LOC_HOST);
        assert_int_equal(dev, -1);
        assert_int_equal(jf_memory_locate(NULL, &loc, NULL), JF_ERR_ARG);
        assert_int_equal(jf_memory_locate(p, NULL, NULL), JF_ERR_ARG);
        free(p);
    }
    o.threads = -1;
    assert_int_equal(jf_context_create(&o, &ctx), JF_ERR_ARG);
    o.threads = 4096; /* the most threads a context takes, and one more */
    assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
    jf_context_destroy(ctx);
    o.threads = 4097;
    assert_int_equal(jf_context_create(&o, &ctx), JF_ERR_ARG);
    o.threads = 2;
    o.backend = (jf_backend)JF_BACKEND_COUNT; /* one past the last backend */
    assert_int_equal(jf_context_create(&o, &ctx), JF_ERR_ARG);
    o.backend = JF_BACKEND_CPU;
    assert_int_equal(jf_context_sync(NULL), JF_OK);
    w = jf_image_wrap_device(&fake, 1, 1, 1, 0, JF_LOC_DEVICE);
    assert_int_equal(w.location, JF_LOC_DEVICE);
    assert_int_equal(w.owned, 0);
    jf_image_free(&w); /* not owned: nothing happens */
}

/* jf_context_options as 1.0-1.3 had them (56 bytes): whatever sits in their
 * trailing padding is ignored and the codec is the CPU's; a codec that is
 * not one is refused; nvJPEG is refused without CUDA, with the reason. */
static void test_context_codec(void **state)
{
    jf_context_options o = t_context_opts(JF_BACKEND_CPU, 1, JF_MEMORY_AUTO), old;
    jf_context *ctx = NULL;
    jf_picture pic;
    unsigned char *bytes = NULL;
    size_t size = 0;
    jf_encode_options e = jf_encode_defaults();
    jf_image img = t_random_image(33, 17, 3, 1, 3);
    char detail[128];
    (void)state;
    memset(&old, 0x5A, sizeof old);
    memcpy(&old, &o, 52);
    old.size = 56;
    assert_int_equal(jf_context_create(&old, &ctx), JF_OK);
    jf_context_destroy(ctx);
    o.codec = JF_CODEC_COUNT;
    assert_int_equal(jf_context_create(&o, &ctx), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "codec"));
    assert_int_equal(jf_codec_probe(JF_CODEC_CPU, 0, detail, sizeof detail), JF_OK);
    assert_non_null(strstr(detail, "libjpeg-turbo"));
    assert_int_equal(jf_codec_probe(JF_CODEC_AUTO, 0, NULL, 0), JF_OK);
    assert_int_equal(jf_codec_probe(JF_CODEC_COUNT, 0, NULL, 0), JF_ERR_ARG);
    assert_string_equal(jf_codec_name(JF_CODEC_NVJPEG), "nvjpeg");
    if (!jf_built_with_cuda()) {
        assert_int_equal(jf_codec_probe(JF_CODEC_NVJPEG, 0, NULL, 0), JF_ERR_UNSUPPORTED);
        assert_non_null(strstr(jf_last_error(), "CUDA"));
    }
    /* a CPU context asked for nvJPEG decodes and encodes on the CPU, as before */
    o.codec = JF_CODEC_NVJPEG;
    assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
    memset(&pic, 0, sizeof pic);
    pic.color = img;
    e.format = JF_FORMAT_JPEG;
    assert_int_equal(jf_picture_encode(&pic, &e, &bytes, &size), JF_OK);
    assert_int_equal(jf_picture_decode_frame(ctx, bytes, size, "t.jpg", &pic), JF_OK);
    assert_int_equal(pic.decoded_on_gpu, 0);
    assert_int_equal(pic.color.location, JF_LOC_HOST);
    assert_int_equal(pic.color.width, 33);
    {
        unsigned char *again = NULL;
        size_t again_size = 0;
        int on_gpu = -1;
        assert_int_equal(jf_picture_encode_frame(ctx, &pic, &e, &again, &again_size, &on_gpu), JF_OK);
        assert_int_equal(on_gpu, 0);
        assert_true(again_size > 100 && again[0] == 0xFF && again[1] == 0xD8);
        free(again);
        assert_int_equal(jf_picture_encode_frame(NULL, &pic, &e, &again, &again_size, NULL), JF_ERR_ARG);
    }
    jf_picture_free(&pic);
    free(bytes);
    jf_image_free(&img);
    jf_context_destroy(ctx);
}

/* Frames: two reusable buffers per context, not owned, grown on demand and
 * then reused without allocating. */
static void test_context_frames(void **state)
{
    jf_context *ctx = t_cpu_context(2);
    jf_image a, b, c, keep;
    long before;
    (void)state;
    assert_int_equal(jf_context_frame(ctx, 0, 640, 480, 3, &a), JF_OK);
    assert_int_equal(jf_context_frame(ctx, 1, 640, 480, 3, &b), JF_OK);
    assert_int_equal(a.location, JF_LOC_HOST);
    assert_int_equal(a.owned, 0);
    assert_true(a.stride >= 640 * 3);
    assert_ptr_not_equal(a.data, b.data);
    memset(a.data, 7, a.stride * 480); /* all of it is writable */
    keep = a;
    before = atomic_load(&g_allocs);
    assert_int_equal(jf_context_frame(ctx, 0, 320, 200, 1, &c), JF_OK); /* smaller: reused */
    assert_int_equal(atomic_load(&g_allocs) - before, 0);
    assert_ptr_equal(c.data, keep.data);
    jf_image_free(&c); /* forgotten, not freed */
    assert_null(c.data);
    assert_int_equal(jf_context_frame(ctx, 0, 320, 200, 1, &c), JF_OK);
    assert_ptr_equal(c.data, keep.data);
    assert_int_equal(jf_context_frame(ctx, 4, 8, 8, 1, &c), JF_ERR_ARG);
    assert_int_equal(jf_context_frame(ctx, 2, 8, 8, 1, &c), JF_ERR_NO_DEVICE); /* device side */
    assert_int_equal(jf_context_frame(NULL, 0, 8, 8, 1, &c), JF_ERR_ARG);
    assert_int_equal(jf_context_frame(ctx, 0, 0, 8, 1, &c), JF_ERR_ARG);
    assert_int_equal(jf_context_frame(ctx, 0, 8, 8, 5, &c), JF_ERR_ARG);
    jf_context_destroy(ctx);
}

/* A sample type this version does not know (a newer header's) is refused;
 * an operation that takes 8 bits only refuses 16 with the reason; an
 * output of the wrong depth is refused. */
static void test_sample_type(void **state)
{
    jf_image src = t_random_image(9, 9, 1, 0, 1), dst = {0}, deep = {0};
    jf_median_options mo = t_median_opts(3, JF_BORDER_ZERO, JF_VARIANT_AUTO);
    jf_impulse_options io = jf_impulse_defaults();
    (void)state;
    src.sample = (jf_sample)7;
    assert_int_equal(jf_median(NULL, &src, &dst, &mo), JF_ERR_UNSUPPORTED);
    assert_non_null(strstr(jf_last_error(), "unknown sample type 7"));
    src.sample = JF_SAMPLE_U8;
    assert_int_equal(jf_sample_size(JF_SAMPLE_U16), 2);
    assert_int_equal(jf_sample_max(JF_SAMPLE_U16), 65535);
    deep.sample = JF_SAMPLE_U16;
    assert_int_equal(jf_image_convert(&src, &deep), JF_OK);
    assert_int_equal(deep.sample, JF_SAMPLE_U16);
    assert_int_equal(deep.stride, 18);
    assert_int_equal(jf_switching_median(NULL, &deep, &dst, &io), JF_ERR_UNSUPPORTED);
    assert_non_null(strstr(jf_last_error(), "8-bit samples only"));
    assert_int_equal(jf_image_alloc(&dst, 9, 9, 1), JF_OK); /* 8-bit output of a 16-bit input */
    assert_int_equal(jf_median(NULL, &deep, &dst, &mo), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "output image has u8 samples, the input u16"));
    deep.stride = 19; /* 16-bit rows must stay 2-byte aligned */
    jf_image_free(&dst);
    assert_int_equal(jf_median(NULL, &deep, &dst, &mo), JF_ERR_ARG);
    deep.stride = 18;
    jf_image_free(&deep);
    jf_image_free(&src);
}

/* The image calls keep their contract: a copy needs one shape and one known
 * sample type (each difference alone is refused), host memory only; a
 * conversion rounds 16 bits to the nearest 8-bit level and widens 8 bits by
 * 257 exactly (every value), refuses device memory, unknown types and an
 * output of another shape; an allocation refuses empty and oversized
 * images and a NULL image. */
/* A context whose worker threads cannot start (a process at its thread
 * limit) still filters every band, in the calling thread, to the same
 * bytes as a context of one thread. */
/* Options a context cannot have, each refused alone. */
static void test_context_options_refused(void **state)
{
    jf_context_options o = jf_context_defaults();
    jf_context *ctx = (jf_context *)&o;
    (void)state;
    o.backend = JF_BACKEND_CPU;
    o.peak_gbps = -1.0;
    assert_int_equal(jf_context_create(&o, &ctx), JF_ERR_ARG);
    assert_null(ctx);
    o.peak_gbps = NAN;
    assert_int_equal(jf_context_create(&o, &ctx), JF_ERR_ARG);
    o.peak_gbps = 0.0;
    o.stats = -1;
    assert_int_equal(jf_context_create(&o, &ctx), JF_ERR_ARG);
    o.stats = 0;
    o.threads = 4097;
    assert_int_equal(jf_context_create(&o, &ctx), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "invalid options"));
    o.threads = 1;
    assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
    jf_context_destroy(ctx);
}

/* Numbers as the command line reads them: whole text, finite. */
static void test_parse_real(void **state)
{
    double v = 7.0;
    (void)state;
    assert_int_equal(jf_parse_real("2.5", &v), 0);
    assert_true(v == 2.5);
    v = 7.0;
    assert_int_equal(jf_parse_real("12x", &v), -1);
    assert_int_equal(jf_parse_real("1e999", &v), -1);
    assert_int_equal(jf_parse_real("nan", &v), -1);
    assert_int_equal(jf_parse_real(" 1", &v), -1);
    assert_int_equal(jf_parse_real("", &v), -1);
    assert_true(v == 7.0); /* untouched when refused */
}

static void test_threads_refused(void **state)
{
    jf_image src = t_random_image(301, 97, 3, 5, 41), one = {0}, many = {0};
    jf_context_options o = jf_context_defaults();
    jf_median_options mo = jf_median_defaults();
    jf_context *c1, *c4;
    (void)state;
    o.backend = JF_BACKEND_CPU;
    o.threads = 1;
    assert_int_equal(jf_context_create(&o, &c1), JF_OK);
    o.threads = 4;
    atomic_store(&g_refuse_threads, 1);
    assert_int_equal(jf_context_create(&o, &c4), JF_OK);
    mo.ksize = 7;
    assert_int_equal(jf_median(c1, &src, &one, &mo), JF_OK);
    assert_int_equal(jf_median(c4, &src, &many, &mo), JF_OK);
    atomic_store(&g_refuse_threads, 0);
    assert_true(t_images_equal(&one, &many));
    jf_image_free(&one);
    jf_image_free(&many);
    jf_image_free(&src);
    jf_context_destroy(c1);
    jf_context_destroy(c4);
}

/* Images from 32 MiB start on a 2 MiB boundary (on Linux, for its huge
 * pages), hold every byte and free as any other; smaller ones as malloc
 * gives them. */
static void test_image_large(void **state)
{
    jf_image big = {0}, small = {0};
    (void)state;
    assert_int_equal(jf_image_alloc(&big, 6000, 2000, 3), JF_OK); /* 36 MB */
    big.data[0] = 1;
    big.data[big.stride * 2000 - 1] = 2;
    assert_int_equal(big.data[0] + big.data[big.stride * 2000 - 1], 3);
#ifdef __linux__
    assert_int_equal((uintptr_t)big.data % ((uintptr_t)2 << 20), 0);
#endif
    jf_image_free(&big);
    assert_null(big.data);
    assert_int_equal(jf_image_alloc_as(&big, 4096, 4096, 1, JF_SAMPLE_U16), JF_OK); /* exactly 32 MiB */
#ifdef __linux__
    assert_int_equal((uintptr_t)big.data % ((uintptr_t)2 << 20), 0);
#endif
    jf_image_free(&big);
    /* no memory for it: a clear error, nothing held */
    atomic_store(&g_refuse_bytes, (size_t)32 << 20);
    {
        const jf_status st = jf_image_alloc(&big, 6000, 2000, 3);
        atomic_store(&g_refuse_bytes, 0); /* before any assertion can end the test */
        assert_int_equal(st, JF_ERR_NOMEM);
    }
    assert_non_null(strstr(jf_last_error(), "cannot allocate 6000x2000x3"));
    assert_null(big.data);
    assert_int_equal(jf_image_alloc(&small, 64, 64, 3), JF_OK);
    small.data[64 * 64 * 3 - 1] = 7;
    jf_image_free(&small);
}

static void test_image_contracts(void **state)
{
    jf_image a = {0}, b = {0}, wide = {0}, narrow = {0};
    uint16_t *w16;
    int v, i;
    (void)state;
    assert_int_equal(jf_image_alloc(&a, 7, 5, 3), JF_OK);
    /* NULL options: refused, naming the call */
    assert_int_equal(jf_median(NULL, &a, &b, NULL), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "jf_median: options are NULL"));
    assert_int_equal(jf_convolve(NULL, &a, &b, NULL), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "jf_convolve: options are NULL"));
    assert_int_equal(jf_adaptive_median(NULL, &a, &b, NULL), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "options are NULL"));
    assert_int_equal(jf_add_noise(NULL, &a, NULL), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "jf_add_noise: options are NULL"));
    for (i = 0; i < 4; i++) {
        jf_image_free(&b);
        assert_int_equal(jf_image_alloc_as(&b, 7 + (i == 0), 5 + (i == 1), 3 - 2 * (i == 2),
                                           i == 3 ? JF_SAMPLE_U16 : JF_SAMPLE_U8), JF_OK);
        assert_int_equal(jf_image_copy(&a, &b), JF_ERR_ARG);
        assert_non_null(strstr(jf_last_error(), "differ"));
    }
    jf_image_free(&b);
    assert_int_equal(jf_image_alloc(&b, 7, 5, 3), JF_OK);
    memset(a.data, 0x5A, a.stride * 5);
    assert_int_equal(jf_image_copy(&a, &b), JF_OK);
    assert_true(t_images_equal(&a, &b));
    a.sample = b.sample = (jf_sample)9;
    assert_int_equal(jf_image_copy(&a, &b), JF_ERR_ARG);
    a.sample = b.sample = JF_SAMPLE_U8;
    b.location = JF_LOC_DEVICE;
    assert_int_equal(jf_image_copy(&a, &b), JF_ERR_ARG);
    assert_int_equal(jf_image_transfer(NULL, &a, &b), JF_ERR_NO_DEVICE); /* no CUDA context */
    b.location = JF_LOC_HOST;
    assert_int_equal(jf_image_copy(NULL, &b), JF_ERR_ARG);

    /* every 16-bit value to the nearest 8-bit level, every 8-bit value back */
    assert_int_equal(jf_image_alloc_as(&wide, 256, 256, 1, JF_SAMPLE_U16), JF_OK);
    for (v = 0; v < 65536; v++)
        ((uint16_t *)(void *)(wide.data + (size_t)(v / 256) * wide.stride))[v % 256] = (uint16_t)v;
    narrow.sample = JF_SAMPLE_U8;
    assert_int_equal(jf_image_convert(&wide, &narrow), JF_OK);
    for (v = 0; v < 65536; v++) {
        const int got = narrow.data[(size_t)(v / 256) * narrow.stride + (size_t)(v % 256)];
        if (got != (int)lround(v / 257.0))
            fail_msg("16-bit %d became %d, not %ld", v, got, lround(v / 257.0));
    }
    for (v = 0; v < 256; v++)
        narrow.data[v] = (unsigned char)v;
    jf_image_free(&wide);
    wide.sample = JF_SAMPLE_U16;
    assert_int_equal(jf_image_convert(&narrow, &wide), JF_OK);
    w16 = (uint16_t *)(void *)wide.data;
    for (v = 0; v < 256; v++)
        assert_int_equal(w16[v], v * 257);
    /* to the same sample type: a copy */
    jf_image_free(&b);
    b.sample = JF_SAMPLE_U16;
    assert_int_equal(jf_image_convert(&wide, &b), JF_OK);
    assert_true(t_images_equal(&wide, &b));
    /* an output of another shape, an unknown type, device memory */
    jf_image_free(&b);
    assert_int_equal(jf_image_alloc(&b, 255, 256, 1), JF_OK);
    assert_int_equal(jf_image_convert(&wide, &b), JF_ERR_ARG);
    jf_image_free(&b);
    b.sample = (jf_sample)9;
    assert_int_equal(jf_image_convert(&wide, &b), JF_ERR_ARG);
    b.sample = JF_SAMPLE_U8;
    wide.location = JF_LOC_DEVICE;
    assert_int_equal(jf_image_convert(&wide, &b), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "device memory"));
    wide.location = JF_LOC_HOST;
    /* into an output of its own (host: converted; device: refused), and
     * NULL on either side */
    assert_int_equal(jf_image_alloc(&b, 256, 256, 1), JF_OK);
    assert_int_equal(jf_image_convert(&wide, &b), JF_OK);
    assert_int_equal(b.data[1], 1); /* 257: back to 1 */
    assert_int_equal(b.data[255], 255);
    b.location = JF_LOC_DEVICE;
    assert_int_equal(jf_image_convert(&wide, &b), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "device memory"));
    b.location = JF_LOC_HOST;
    assert_int_equal(jf_image_convert(NULL, &b), JF_ERR_ARG);
    assert_int_equal(jf_image_convert(&wide, NULL), JF_ERR_ARG);
    jf_image_free(&b);

    assert_int_equal(jf_image_alloc(&b, 0, 5, 1), JF_ERR_ARG);
    assert_int_equal(jf_image_alloc(&b, 5, 0, 1), JF_ERR_ARG);
    assert_int_equal(jf_image_alloc(&b, 5, 5, 0), JF_ERR_ARG);
    assert_int_equal(jf_image_alloc(NULL, 5, 5, 1), JF_ERR_ARG);
    assert_int_equal(jf_image_alloc(&b, 1 << 30, 1 << 30, 1), JF_ERR_LIMIT);
    jf_image_free(&a);
    jf_image_free(&wide);
    jf_image_free(&narrow);
}

/* Edges of the core calls: a backend one past the last is an argument
 * error; a stat without a peak has no percentage; converting to the same
 * sample type copies; a device image's size is checked before anything
 * else; a CPU context says it cannot move device memory; warnings fill
 * their buffer and no more. */
static void test_core_edges(void **state)
{
    jf_context_options o = jf_context_defaults();
    jf_context *ctx = NULL;
    jf_stat st;
    jf_image a = {0}, b = {0}, dev;
    unsigned char scratch[64];
    int i, x, y;
    (void)state;
    o.backend = JF_BACKEND_COUNT;
    assert_int_equal(jf_context_create(&o, &ctx), JF_ERR_ARG);
    assert_null(ctx);
    memset(&st, 0, sizeof st);
    st.ms = 1.0;
    st.bytes_read = 1000000;
    st.peak_gbps = 0.0;
    assert_true(jf_stat_gbps(&st) > 0.0);
    assert_true(jf_stat_percent(&st) == 0.0);
    st.peak_gbps = 4.0;
    assert_true(fabs(jf_stat_percent(&st) - 25.0) < 1e-9);
    for (i = 0; i < 2; i++) { /* u8, then u16: the same samples come back */
        const jf_sample sample = i ? JF_SAMPLE_U16 : JF_SAMPLE_U8;
        assert_int_equal(jf_image_alloc_as(&a, 7, 5, 3, sample), JF_OK);
        for (y = 0; y < 5; y++)
            for (x = 0; x < 7 * 3 * (i + 1); x++)
                a.data[(size_t)y * a.stride + x] = (unsigned char)(y * 31 + x * 7 + 1);
        b.sample = sample;
        assert_int_equal(jf_image_convert(&a, &b), JF_OK);
        assert_int_equal(b.sample, sample);
        for (y = 0; y < 5; y++)
            assert_memory_equal(a.data + (size_t)y * a.stride, b.data + (size_t)y * b.stride,
                                (size_t)7 * 3 * (i + 1));
        jf_image_free(&a);
        jf_image_free(&b);
    }
    ctx = t_cpu_context(1);
    assert_int_equal(jf_image_alloc_on(ctx, &a, 0, 5, 3, JF_LOC_DEVICE), JF_ERR_ARG);
    assert_non_null(strstr(jf_last_error(), "invalid size 0x5"));
    assert_int_equal(jf_image_alloc_on(ctx, &a, 5, 0, 3, JF_LOC_DEVICE), JF_ERR_ARG);
    dev = jf_image_wrap_device(scratch, 4, 4, 1, 0, JF_LOC_DEVICE);
    assert_int_equal(jf_image_alloc(&a, 4, 4, 1), JF_OK);
    assert_int_equal(jf_image_transfer(ctx, &a, &dev), JF_ERR_NO_DEVICE);
    assert_non_null(strstr(jf_last_error(), "needs a CUDA context"));
    jf_image_free(&a);
    jf_context_destroy(ctx);
    jf_warning_clear();
    for (i = 0; i < 200; i++)
        jf_warn("warning number %d of many, each of them different", i);
    assert_true(strlen(jf_last_warning()) < 512);
    assert_non_null(strstr(jf_last_warning(), "warning number 0 of many"));
    jf_warning_clear();
    assert_string_equal(jf_last_warning(), "");
    assert_int_equal(jf_fail(JF_ERR_ARG, "a reason"), JF_ERR_ARG);
    assert_string_equal(jf_last_error(), "a reason");
    jf_error_clear();
    assert_string_equal(jf_last_error(), "");
}

/* The pool runs every item once, in the bands jf_parallel_bands counts
 * (each worker index once, contiguous), whether its workers are awake
 * (calls back to back) or asleep (a pause between calls), whether the
 * caller waits awake for the last band or sleeps, with fewer items than
 * threads, and from one call to the next. */
typedef struct pool_probe {
    atomic_int *count;
    int slow_workers; /* bands but the caller's take a millisecond: the caller sleeps */
    atomic_int band_seen[8];
    atomic_int covered;
} pool_probe;

static void pool_probe_rows(void *arg, int begin, int end, int worker)
{
    pool_probe *p = (pool_probe *)arg;
    int i;
    const struct timespec ms = {0, 1000000};
    atomic_fetch_add(&p->band_seen[worker], 1);
    if (p->slow_workers && worker > 0)
        nanosleep(&ms, NULL);
    for (i = begin; i < end; i++)
        atomic_fetch_add(&p->count[i], 1);
    atomic_fetch_add(&p->covered, end - begin);
}

static void test_pool_bands(void **state)
{
    static const int sizes[] = {1, 2, 3, 4, 5, 7, 64, 1023};
    jf_context *ctx = t_cpu_context(4);
    const struct timespec pause = {0, 1000000};
    atomic_int count[1023];
    int round, s, i;
    (void)state;
    for (round = 0; round < 40; round++)
        for (s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); s++) {
            const int n = sizes[s], bands = jf_parallel_bands(ctx, n);
            pool_probe probe;
            memset(&probe, 0, sizeof probe);
            for (i = 0; i < n; i++)
                atomic_init(&count[i], 0);
            probe.count = count;
            probe.slow_workers = round % 4 == 1;
            if (round % 4 == 3) /* past the workers' wait awake: they sleep */
                nanosleep(&pause, NULL);
            jf_parallel_for(ctx, n, pool_probe_rows, &probe);
            assert_int_equal(bands, n < 4 ? n : 4);
            assert_int_equal(atomic_load(&probe.covered), n);
            for (i = 0; i < n; i++)
                assert_int_equal(atomic_load(&count[i]), 1);
            for (i = 0; i < 8; i++)
                assert_int_equal(atomic_load(&probe.band_seen[i]), i < bands);
        }
    jf_context_destroy(ctx);
}

/* A kernel file whose text cannot be held is refused as out of memory,
 * and nothing is returned. */
static void test_kernel_file_without_memory(void **state)
{
    const char *dir = t_make_tmpdir();
    char path[512];
    jf_kernel kern = {0};
    jf_status st;
    FILE *f;
    int i;
    (void)state;
    snprintf(path, sizeof path, "%s/box.txt", dir);
    assert_non_null(f = fopen(path, "w"));
    for (i = 0; i < 200; i++) /* about 8 KB: larger than anything else the load allocates */
        fprintf(f, "# a comment line to make the file larger than its weights\n");
    fprintf(f, "1 1 1\n1 1 1\n1 1 1\n");
    assert_int_equal(fclose(f), 0);
    atomic_store(&g_refuse_bytes, 4096);
    st = jf_kernel_load(path, &kern);
    atomic_store(&g_refuse_bytes, 0); /* before any assertion can end the test */
    assert_int_equal(st, JF_ERR_NOMEM);
    assert_non_null(strstr(jf_last_error(), "out of memory"));
    assert_null(kern.weights);
    assert_int_equal(jf_kernel_load(path, &kern), JF_OK);
    assert_int_equal(kern.ksize, 3);
    jf_kernel_free(&kern);
    t_rmtree(dir);
}

/* A context gives back every scratch buffer it grew (glibc's count of
 * mapped memory, where it has mallinfo2); a temporary context is a CPU one
 * made without a word; the host copy ceiling is measured. */
static void test_context_resources(void **state)
{
    jf_context *ctx = NULL;
    double gbps = 0.0;
    int slot;
    (void)state;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    {
        /* bytes in use, mapped or from the heap (glibc moves its mapping
         * threshold as blocks come and go) */
        struct mallinfo2 m = mallinfo2();
        const size_t before = m.uordblks + m.hblkhd, grown = ((size_t)8 << 20) * JF_SCRATCH_COUNT;
        ctx = t_cpu_context(1);
        for (slot = 0; slot < JF_SCRATCH_COUNT; slot++)
            assert_non_null(jf_scratch_get(ctx, slot, (size_t)8 << 20));
        m = mallinfo2();
        if (m.uordblks + m.hblkhd < before + grown) { /* a sanitizer's allocator: not counted */
            print_message("mallinfo2 does not count this allocator; the leak check is ASan's\n");
            jf_context_destroy(ctx);
        } else {
            jf_context_destroy(ctx);
            m = mallinfo2();
            assert_true(m.uordblks + m.hblkhd < before + ((size_t)8 << 20));
        }
    }
#else
    (void)slot;
#endif
    /* scratch starts a cache line, at every size and as it grows */
    ctx = t_cpu_context(1);
    for (slot = 0; slot < JF_SCRATCH_COUNT; slot++) {
        size_t bytes;
        for (bytes = 1; bytes < ((size_t)1 << 22); bytes = bytes * 3 + 1) {
            const void *p = jf_scratch_get(ctx, slot, bytes);
            assert_non_null(p);
            assert_int_equal((uintptr_t)p % 64, 0);
        }
    }
    /* a request no allocator can meet fails cleanly, and leaves the slot
     * empty: the next small request gets memory it can write */
    assert_null(jf_scratch_get(ctx, 0, SIZE_MAX));
    {
        char want[64];
        unsigned char *p;
        snprintf(want, sizeof want, "out of memory for %zu bytes of scratch", (size_t)SIZE_MAX);
        assert_string_equal(jf_last_error(), want);
        p = jf_scratch_get(ctx, 0, 1);
        assert_non_null(p);
        p[0] = 7;
        assert_int_equal(p[0], 7);
    }
    jf_context_destroy(ctx);
    assert_int_equal(jf_context_temporary(&ctx), JF_OK);
    assert_int_equal(jf_context_backend(ctx), JF_BACKEND_CPU);
    assert_string_equal(jf_context_note(ctx), "");
    assert_int_equal(jf_measure_copy_gbps(ctx, (size_t)1 << 20, 3, &gbps), JF_OK);
    assert_true(gbps > 0.0);
    assert_int_equal(jf_measure_copy_gbps(ctx, 0, 3, &gbps), JF_ERR_ARG);
    jf_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abi_layout),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_abi_sizes),
        cmocka_unit_test(test_size_check_bound),
        cmocka_unit_test(test_no_allocation_per_call),
        cmocka_unit_test(test_kept_buffer_shapes),
        cmocka_unit_test(test_stats_bounded),
        cmocka_unit_test(test_context_basics),
        cmocka_unit_test(test_context_frames),
        cmocka_unit_test(test_context_codec),
        cmocka_unit_test(test_sample_type),
        cmocka_unit_test(test_threads_refused),
        cmocka_unit_test(test_context_options_refused),
        cmocka_unit_test(test_parse_real),
        cmocka_unit_test(test_image_contracts),
        cmocka_unit_test(test_image_large),
        cmocka_unit_test(test_core_edges),
        cmocka_unit_test(test_kernel_file_without_memory),
        cmocka_unit_test(test_context_resources),
        cmocka_unit_test(test_pool_bands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
