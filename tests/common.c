#define _DEFAULT_SOURCE
#include "common.h"

#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <math.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t t_rand(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x2545F4914F6CDD1Dull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

jf_image t_random_image(int w, int h, int ch, int pad, uint64_t seed)
{
    size_t stride = (size_t)w * ch + (size_t)pad, i;
    unsigned char *data = malloc(stride * (size_t)h);
    jf_image img;
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    assert_non_null(data);
    for (i = 0; i < stride * (size_t)h; i++)
        data[i] = (unsigned char)(t_rand(&s) >> 56);
    img = jf_image_wrap(data, w, h, ch, stride);
    img.owned = 1; /* jf_image_free releases it */
    return img;
}

jf_image t_random_image16(int w, int h, int ch, int pad, int shift, uint64_t seed)
{
    size_t stride = ((size_t)w * ch + (size_t)pad) * 2, i;
    uint16_t *data = malloc(stride * (size_t)h);
    jf_image img;
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 7;
    assert_non_null(data);
    for (i = 0; i < stride / 2 * (size_t)h; i++)
        data[i] = (uint16_t)((t_rand(&s) >> 48) >> shift);
    img = jf_image_wrap_as(data, w, h, ch, stride, JF_SAMPLE_U16);
    img.owned = 1;
    return img;
}

jf_image t_random_float(int w, int h, int ch, int pad, int kind, uint64_t seed)
{
    static const float levels[5] = {-1.0f, -0.0f, 0.0f, 0.5f, NAN};
    const float specials[5] = {NAN, -NAN, INFINITY, -INFINITY, -0.0f}; /* NaN of either sign */
    size_t stride = ((size_t)w * ch + (size_t)pad) * sizeof(float), i;
    float *data = malloc(stride * (size_t)h);
    jf_image img;
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 11;
    assert_non_null(data);
    for (i = 0; i < stride / sizeof(float) * (size_t)h; i++) {
        const uint64_t r = t_rand(&s);
        if (kind == 1)
            data[i] = levels[(r >> 32) % 5];
        else if (kind == 0 && (r & 15) < 1)
            data[i] = specials[(r >> 8) % 5];
        else if (kind == 0 && (r & 15) == 1)
            data[i] = 0.0f;
        else
            data[i] = (float)((double)(r >> 11) / 9007199254740992.0 * 5.0 - 2.0);
    }
    img = jf_image_wrap_as(data, w, h, ch, stride, JF_SAMPLE_F32);
    img.owned = 1;
    return img;
}

double t_fpx(const jf_image *img, int x, int y, int c)
{
    const unsigned char *row = img->data + (size_t)y * img->stride;
    const size_t at = (size_t)x * img->channels + (size_t)c;
    if (img->sample == JF_SAMPLE_F32)
        return ((const float *)(const void *)row)[at];
    return t_px(img, x, y, c);
}

void t_set_fpx(jf_image *img, int x, int y, int c, double v)
{
    unsigned char *row = img->data + (size_t)y * img->stride;
    ((float *)(void *)row)[(size_t)x * img->channels + (size_t)c] = (float)v;
}

/* NumPy's order: NaN after everything (-0 and +0 alike). */
static int cmp_numpy(const void *pa, const void *pb)
{
    const double a = *(const double *)pa, b = *(const double *)pb;
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}

int t_window(const jf_image *src, int x, int y, int c, int k, jf_border border, double *win)
{
    int r = k / 2, i, j, n = 0;
    for (j = -r; j <= r; j++)
        for (i = -r; i <= r; i++)
            win[n++] = t_sample_at(src, x + i, y + j, c, border);
    return n;
}

void t_median_reference_f(const jf_image *src, int k, jf_border border, jf_image *dst)
{
    int x, y, c, n;
    double *win = malloc(sizeof(double) * (size_t)k * k);
    assert_non_null(win);
    for (y = 0; y < src->height; y++)
        for (x = 0; x < src->width; x++)
            for (c = 0; c < src->channels; c++) {
                n = t_window(src, x, y, c, k, border, win);
                qsort(win, (size_t)n, sizeof *win, cmp_numpy);
                t_set_fpx(dst, x, y, c, win[n / 2]);
            }
    free(win);
}

long t_float_mismatches(const jf_image *a, const jf_image *b)
{
    long bad = 0;
    int x, y, c;
    for (y = 0; y < a->height; y++)
        for (x = 0; x < a->width; x++)
            for (c = 0; c < a->channels; c++) {
                const double va = t_fpx(a, x, y, c), vb = t_fpx(b, x, y, c);
                if (isnan(va) && isnan(vb))
                    continue;
                if (va != vb && bad++ == 0)
                    print_error("first difference at x=%d y=%d c=%d: %.9g vs %.9g\n", x, y, c, va, vb);
            }
    return bad;
}

unsigned t_px(const jf_image *img, int x, int y, int c)
{
    const unsigned char *row = img->data + (size_t)y * img->stride;
    const size_t at = (size_t)x * img->channels + (size_t)c;
    if (img->sample == JF_SAMPLE_F32) /* the bits: equal samples are the same float */
        return ((const uint32_t *)(const void *)row)[at];
    return img->sample == JF_SAMPLE_U16 ? ((const uint16_t *)(const void *)row)[at] : row[at];
}

void t_set_px(jf_image *img, int x, int y, int c, unsigned v)
{
    unsigned char *row = img->data + (size_t)y * img->stride;
    const size_t at = (size_t)x * img->channels + (size_t)c;
    if (img->sample == JF_SAMPLE_F32)
        ((uint32_t *)(void *)row)[at] = v;
    else if (img->sample == JF_SAMPLE_U16)
        ((uint16_t *)(void *)row)[at] = (uint16_t)v;
    else
        row[at] = (unsigned char)v;
}

void t_map_bytes(jf_image *img, int shift)
{
    int x, y;
    for (y = 0; y < img->height; y++) {
        unsigned char *row = (unsigned char *)img->data + (size_t)y * img->stride;
        for (x = 0; x < img->width * img->channels; x++)
            row[x] = (unsigned char)(row[x] >> shift);
    }
}

jf_image t_poisoned_like(const jf_image *like, int pad)
{
    const size_t bps = jf_sample_size(like->sample);
    size_t stride = ((size_t)like->width * like->channels + (size_t)pad) * bps;
    unsigned char *data = malloc(stride * (size_t)like->height);
    jf_image img;
    assert_non_null(data);
    memset(data, 0xA5, stride * (size_t)like->height);
    img = jf_image_wrap_as(data, like->width, like->height, like->channels, stride, like->sample);
    img.owned = 1;
    return img;
}

int t_images_equal(const jf_image *a, const jf_image *b)
{
    int x, y;
    if (a->width != b->width || a->height != b->height || a->channels != b->channels ||
        a->sample != b->sample) {
        print_error("shape %dx%dx%d/%d vs %dx%dx%d/%d\n", a->width, a->height, a->channels,
                    (int)a->sample, b->width, b->height, b->channels, (int)b->sample);
        return 0;
    }
    for (y = 0; y < a->height; y++)
        for (x = 0; x < a->width * a->channels; x++) {
            int va = (int)t_px(a, x / a->channels, y, x % a->channels);
            int vb = (int)t_px(b, x / b->channels, y, x % b->channels);
            if (va != vb) {
                print_error("first difference at x=%d y=%d c=%d: %d vs %d\n", x / a->channels,
                            y, x % a->channels, va, vb);
                return 0;
            }
        }
    return 1;
}

int t_max_abs_diff(const jf_image *a, const jf_image *b)
{
    int x, y, m = 0;
    for (y = 0; y < a->height; y++)
        for (x = 0; x < a->width * a->channels; x++) {
            int d = abs((int)t_px(a, x / a->channels, y, x % a->channels) -
                        (int)t_px(b, x / b->channels, y, x % b->channels));
            if (d > m)
                m = d;
        }
    return m;
}

int t_border_index(int i, int n, jf_border border)
{
    if (border == JF_BORDER_ZERO)
        return i >= 0 && i < n ? i : -1;
    if (border == JF_BORDER_REPLICATE)
        return i < 0 ? 0 : i >= n ? n - 1 : i;
    if (border == JF_BORDER_MIRROR && n == 1)
        return 0;
    while (i < 0 || i >= n) {
        if (border == JF_BORDER_REFLECT)
            i = i < 0 ? -i - 1 : 2 * n - 1 - i;
        else
            i = i < 0 ? -i : 2 * n - 2 - i;
    }
    return i;
}

/* The window's middle value: insertion sort for small windows, counts for
 * large ones (of the 8-bit values, or of the 16-bit values' high bytes and
 * then the low bytes within the middle's bin): every element is counted
 * or placed, then the middle read. */
static int middle_of(int *win, int n, int wide)
{
    int i, j, count[256] = {0}, seen = 0;
    if (n <= 81) {
        for (i = 1; i < n; i++) {
            int v = win[i];
            for (j = i; j > 0 && win[j - 1] > v; j--)
                win[j] = win[j - 1];
            win[j] = v;
        }
        return win[n / 2];
    }
    if (wide) { /* the high byte's counts find the bin, the low byte's the value */
        int hi = 0, lo[256] = {0};
        for (i = 0; i < n; i++)
            count[win[i] >> 8]++;
        for (hi = 0; hi < 255 && seen + count[hi] <= n / 2; hi++)
            seen += count[hi];
        for (i = 0; i < n; i++)
            if (win[i] >> 8 == hi)
                lo[win[i] & 255]++;
        for (i = 0; i < 256; i++) {
            seen += lo[i];
            if (seen > n / 2)
                return hi << 8 | i;
        }
        return 65535;
    }
    for (i = 0; i < n; i++)
        count[win[i]]++;
    for (i = 0; i < 256; i++) {
        seen += count[i];
        if (seen > n / 2)
            return i;
    }
    return 255;
}

static int sample(const jf_image *src, int x, int y, int c, jf_border border)
{
    int sx = t_border_index(x, src->width, border), sy = t_border_index(y, src->height, border);
    if (sx < 0 || sy < 0)
        return 0;
    return (int)t_px(src, sx, sy, c);
}

double t_sample_at(const jf_image *src, int x, int y, int c, jf_border border)
{
    int sx = t_border_index(x, src->width, border), sy = t_border_index(y, src->height, border);
    if (sx < 0 || sy < 0)
        return 0.0;
    return t_fpx(src, sx, sy, c);
}

void t_median_reference(const jf_image *src, int k, jf_border border, jf_image *dst)
{
    int r = k / 2, x, y, c, i, j, n;
    int *win = malloc(sizeof(int) * (size_t)k * k);
    assert_non_null(win);
    for (y = 0; y < src->height; y++)
        for (x = 0; x < src->width; x++)
            for (c = 0; c < src->channels; c++) {
                n = 0;
                for (j = -r; j <= r; j++)
                    for (i = -r; i <= r; i++)
                        win[n++] = sample(src, x + i, y + j, c, border);
                t_set_px(dst, x, y, c, (unsigned)middle_of(win, n, src->sample == JF_SAMPLE_U16));
            }
    free(win);
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* Sorted window of (x, y, c) at size k into win (k * k values). */
static void sorted_window(const jf_image *src, int x, int y, int c, int k, jf_border border, int *win)
{
    int r = k / 2, i, j, n = 0;
    for (j = -r; j <= r; j++)
        for (i = -r; i <= r; i++)
            win[n++] = sample(src, x + i, y + j, c, border);
    qsort(win, (size_t)n, sizeof *win, cmp_int);
}

void t_adaptive_reference(const jf_image *src, int kmax, jf_border border, jf_image *dst)
{
    int *win = malloc(sizeof(int) * (size_t)kmax * kmax);
    int x, y, c, k;
    assert_non_null(win);
    for (y = 0; y < src->height; y++)
        for (x = 0; x < src->width; x++)
            for (c = 0; c < src->channels; c++) {
                const int z = sample(src, x, y, c, border);
                int out = -1;
                for (k = 3; k <= kmax && out < 0; k += 2) {
                    int lo, med, hi;
                    sorted_window(src, x, y, c, k, border, win);
                    lo = win[0];
                    med = win[k * k / 2];
                    hi = win[k * k - 1];
                    if (lo < med && med < hi)
                        out = lo < z && z < hi ? z : med; /* level B */
                    else if (k == kmax)
                        out = med;
                }
                dst->data[(size_t)y * dst->stride + (size_t)x * dst->channels + c] = (unsigned char)out;
            }
    free(win);
}

void t_switching_reference(const jf_image *src, int kmax, jf_border border, int refine, jf_image *dst)
{
    int *win = malloc(sizeof(int) * (size_t)kmax * kmax);
    jf_image first = *dst;
    int x, y, c, k, i;
    assert_non_null(win);
    if (refine) {
        first.stride = (size_t)src->width * src->channels;
        first.data = malloc(first.stride * (size_t)src->height);
        assert_non_null(first.data);
    }
    for (y = 0; y < src->height; y++)
        for (x = 0; x < src->width; x++)
            for (c = 0; c < src->channels; c++) {
                const int z = sample(src, x, y, c, border);
                int out = z;
                if (z == 0 || z == 255) {
                    out = -1;
                    for (k = 3; k <= kmax && out < 0; k += 2) {
                        int n = 0, zeros = 0;
                        sorted_window(src, x, y, c, k, border, win);
                        for (i = 0; i < k * k; i++) { /* the clean values, in order */
                            zeros += win[i] == 0;
                            if (win[i] != 0 && win[i] != 255)
                                win[n++] = win[i];
                        }
                        if (n > 0) /* even n: the two middle ones' mean, half up */
                            out = n % 2 ? win[n / 2] : (win[n / 2 - 1] + win[n / 2] + 1) / 2;
                        else if (k == kmax) /* 0s and 255s only: the majority */
                            out = 2 * zeros > k * k ? 0 : 255;
                    }
                }
                first.data[(size_t)y * first.stride + (size_t)x * src->channels + c] = (unsigned char)out;
            }
    free(win);
    if (!refine)
        return;
    for (y = 0; y < src->height; y++)
        for (x = 0; x < src->width; x++)
            for (c = 0; c < src->channels; c++) {
                const int z = src->data[(size_t)y * src->stride + (size_t)x * src->channels + c];
                int sum = 0, n = 0, dx, dy, out;
                for (dy = -1; dy <= 1; dy++)
                    for (dx = -1; dx <= 1; dx++)
                        if (x + dx >= 0 && x + dx < src->width && y + dy >= 0 && y + dy < src->height) {
                            sum += first.data[(size_t)(y + dy) * first.stride +
                                              (size_t)(x + dx) * src->channels + c];
                            n++;
                        }
                out = z == 0 || z == 255
                          ? (int)floor((double)sum / n + 0.5)
                          : first.data[(size_t)y * first.stride + (size_t)x * src->channels + c];
                dst->data[(size_t)y * dst->stride + (size_t)x * dst->channels + c] = (unsigned char)out;
            }
    free(first.data);
}

double t_impulse_density_reference(const jf_image *src)
{
    uint64_t n[2] = {0, 0};
    int x, y, c, dx, dy;
    for (y = 0; y < src->height; y++)
        for (x = 0; x < src->width; x++)
            for (c = 0; c < src->channels; c++) {
                const int z = sample(src, x, y, c, JF_BORDER_REPLICATE);
                int other = 0;
                if (z != 0 && z != 255)
                    continue;
                for (dy = -1; dy <= 1; dy++)
                    for (dx = -1; dx <= 1; dx++)
                        other |= sample(src, x + dx, y + dy, c, JF_BORDER_REPLICATE) != z;
                n[z == 255] += (uint64_t)other;
            }
    return 2.0 * (double)(n[0] < n[1] ? n[0] : n[1]) /
           ((double)src->width * src->height * src->channels);
}

void t_salt_pepper(jf_image *img, double density, uint64_t seed)
{
    int x, y, c;
    for (y = 0; y < img->height; y++)
        for (x = 0; x < img->width; x++) {
            const double u = (double)(t_rand(&seed) >> 11) / 9007199254740992.0;
            const unsigned char v = (t_rand(&seed) >> 63) ? 255 : 0;
            if (u < density || density >= 1.0)
                for (c = 0; c < img->channels; c++)
                    img->data[(size_t)y * img->stride + (size_t)x * img->channels + c] = v;
        }
}

double t_conv_reference_at(const jf_image *src, int x, int y, int c, int k, const float *w,
                           jf_border border)
{
    int r = k / 2, i, j;
    double acc = 0.0;
    for (j = 0; j < k; j++)
        for (i = 0; i < k; i++)
            acc += (double)w[j * k + i] * t_sample_at(src, x + i - r, y + j - r, c, border);
    return acc;
}

const char *t_source_path(const char *relative)
{
    static char buf[8][4096];
    static int next = 0;
    char *out = buf[next++ % 8];
    /* JF_SOURCE_DIR in the environment: the tree was moved (GPU machine) */
    const char *root = getenv("JF_SOURCE_DIR");
    snprintf(out, 4096, "%s/%s", root && *root ? root : JF_SOURCE_DIR, relative);
    return out;
}

const char *t_make_tmpdir(void)
{
    static char buf[8][256];
    static int next = 0;
    char *out = buf[next++ % 8];
    const char *tmp = getenv("TMPDIR"); /* the mutation runs give each mutant its own */
    snprintf(out, 256, "%s/jetfilter-test-XXXXXX", tmp && *tmp && strlen(tmp) < 200 ? tmp : "/tmp");
    assert_non_null(mkdtemp(out));
    return out;
}

void t_rmtree(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    char sub[4096];
    struct stat sb;
    if (!d) { /* a file, or a folder that cannot be opened (test_pipeline's "closed") */
        if (rmdir(path) != 0)
            unlink(path);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        if (lstat(sub, &sb) == 0 && S_ISDIR(sb.st_mode))
            t_rmtree(sub);
        else
            unlink(sub);
    }
    closedir(d);
    rmdir(path);
}

jf_median_options t_median_opts(int k, jf_border border, jf_variant variant)
{
    jf_median_options o = jf_median_defaults();
    o.ksize = k;
    o.border = border;
    o.variant = variant;
    return o;
}

jf_conv_options t_conv_opts(int k, const float *weights, jf_border border, jf_variant variant)
{
    jf_conv_options o = jf_conv_defaults();
    o.ksize = k;
    o.weights = weights;
    o.border = border;
    o.variant = variant;
    return o;
}

jf_encode_options t_encode_opts(jf_format format, int quality, int png_level)
{
    jf_encode_options o = jf_encode_defaults();
    o.format = format;
    o.quality = quality ? quality : 92;
    o.png_level = png_level;
    return o;
}

jf_noise_options t_noise_opts(jf_noise_kind kind, double amount, uint64_t seed)
{
    jf_noise_options o = jf_noise_defaults();
    o.kind = kind;
    o.amount = amount;
    o.seed = seed;
    return o;
}

jf_context_options t_context_opts(jf_backend backend, int threads, jf_memory memory)
{
    jf_context_options o = jf_context_defaults();
    o.backend = backend;
    o.threads = threads;
    o.memory = memory;
    return o;
}

jf_impulse_options t_impulse_opts(int max_ksize, jf_border border, jf_variant variant, int refine)
{
    jf_impulse_options o = jf_impulse_defaults();
    o.max_ksize = max_ksize;
    o.border = border;
    o.variant = variant;
    o.refine = refine;
    return o;
}

jf_context *t_cpu_context(int threads)
{
    jf_context_options o = t_context_opts(JF_BACKEND_CPU, threads, JF_MEMORY_AUTO);
    jf_context *ctx = NULL;
    assert_int_equal(jf_context_create(&o, &ctx), JF_OK);
    return ctx;
}

jf_status t_impulse_run(int kind, jf_context *ctx, const jf_image *src, jf_image *dst, int max_ksize,
                        jf_border border, jf_variant variant)
{
    jf_impulse_options o = t_impulse_opts(max_ksize, border, variant, kind == 2);
    return kind == 0 ? jf_adaptive_median(ctx, src, dst, &o) : jf_switching_median(ctx, src, dst, &o);
}

int t_run_logged(const char *command, const char *log, char *out, size_t outsize)
{
    int rc = system(command);
    FILE *f = fopen(log, "r");
    size_t n;
    assert_non_null(f);
    n = fread(out, 1, outsize - 1, f);
    out[n] = '\0';
    fclose(f);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

long t_peak_kb(const char *command, int *status)
{
    struct rusage ru;
    int st = 0;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    assert_int_equal(wait4(pid, &st, 0, &ru), pid);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return ru.ru_maxrss;
}
