/* Helpers shared by the tests: seeded random images, independent reference
 * implementations, sample paths and temporary folders. */
#ifndef JF_TESTS_COMMON_H
#define JF_TESTS_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "jetfilter.h"

/* Deterministic generator for test data (xorshift64*). */
uint64_t t_rand(uint64_t *state);

/* A host image with random bytes and a stride `pad` bytes longer than a row,
 * so every test also exercises non-contiguous rows. */
jf_image t_random_image(int w, int h, int ch, int pad, uint64_t seed);
/* Every sample shifted right by `shift` bits (fewer levels, more ties). */
void t_map_bytes(jf_image *img, int shift);
/* A 16-bit image of random samples >> shift (shift 12: 16 levels, full of
 * ties), rows padded by `pad` samples. */
jf_image t_random_image16(int w, int h, int ch, int pad, int shift, uint64_t seed);
/* One sample of a host image (a float32's bits). */
unsigned t_px(const jf_image *img, int x, int y, int c);
void t_set_px(jf_image *img, int x, int y, int c, unsigned v);

/* A float32 image, rows padded by `pad` samples: `kind` 0 values in
 * [-2, 3) with about one sample in eight NaN (either sign), +-inf, -0 or +0; 1 five
 * levels (-1, -0, +0, 0.5, NaN: windows full of ties); 2 finite values in
 * [-2, 3) only. */
jf_image t_random_float(int w, int h, int ch, int pad, int kind, uint64_t seed);
/* One sample of any host image as a double (floats as they are). */
double t_fpx(const jf_image *img, int x, int y, int c);
void t_set_fpx(jf_image *img, int x, int y, int c, double v);
/* The sample at (x, y) of channel c through the border (0 outside, zero
 * border), as a double. */
double t_sample_at(const jf_image *src, int x, int y, int c, jf_border border);
/* The k x k window of (x, y, c) through the border into win, row by row;
 * returns k * k. */
int t_window(const jf_image *src, int x, int y, int c, int k, jf_border border, double *win);
/* Brute-force median of a float32 image: each window sorted as NumPy
 * sorts (NaN last), its middle element. */
void t_median_reference_f(const jf_image *src, int k, jf_border border, jf_image *dst);
/* Samples of two float32 images that differ (NaN equals NaN, -0 equals
 * +0); prints the first. */
long t_float_mismatches(const jf_image *a, const jf_image *b);

/* Same-shape image filled with 0xA5 ("poison") so unwritten pixels show. */
jf_image t_poisoned_like(const jf_image *like, int pad);

/* Bytes of two images equal? Prints the first difference. */
int t_images_equal(const jf_image *a, const jf_image *b);

/* Largest absolute byte difference. */
int t_max_abs_diff(const jf_image *a, const jf_image *b);

/* Border index by repeated folding (the definition), independent of the
 * library's modular arithmetic.  -1 means zero. */
int t_border_index(int i, int n, jf_border border);

/* Brute-force median: gather the window through t_border_index and sort. */
void t_median_reference(const jf_image *src, int k, jf_border border, jf_image *dst);

/* Brute-force impulse filters by their definitions in jetfilter.h: every
 * window gathered through t_border_index and sorted. */
void t_adaptive_reference(const jf_image *src, int kmax, jf_border border, jf_image *dst);
void t_switching_reference(const jf_image *src, int kmax, jf_border border, int refine,
                           jf_image *dst);
double t_impulse_density_reference(const jf_image *src);

/* Salt and pepper at `density` (1: every pixel), all channels of a pixel
 * alike, by the test's own generator. */
void t_salt_pepper(jf_image *img, double density, uint64_t seed);

/* Direct convolution in double through t_border_index, unrounded. */
double t_conv_reference_at(const jf_image *src, int x, int y, int c, int k,
                           const float *w, jf_border border);

/* Absolute path of a file in the source tree (samples/images/x, tests/data/x). */
const char *t_source_path(const char *relative);

/* Options from their defaults with the fields a test cares about. */
jf_median_options t_median_opts(int k, jf_border border, jf_variant variant);
jf_conv_options t_conv_opts(int k, const float *weights, jf_border border, jf_variant variant);
jf_encode_options t_encode_opts(jf_format format, int quality, int png_level); /* quality 0: 92 */
jf_noise_options t_noise_opts(jf_noise_kind kind, double amount, uint64_t seed);
jf_context_options t_context_opts(jf_backend backend, int threads, jf_memory memory);
jf_impulse_options t_impulse_opts(int max_ksize, jf_border border, jf_variant variant, int refine);

/* A CPU context with `threads` threads (the test fails if it cannot be made). */
jf_context *t_cpu_context(int threads);

/* The impulse filter of `kind` (0 adaptive, 1 switching, 2 switching with
 * refine) through the public calls. */
jf_status t_impulse_run(int kind, jf_context *ctx, const jf_image *src, jf_image *dst, int max_ksize,
                        jf_border border, jf_variant variant);

/* Run `command` through the shell (it sends its output to `log`), then
 * read `log` into out (NUL-terminated, at most outsize - 1 bytes); returns
 * the command's exit status, or -1 when it did not exit. */
int t_run_logged(const char *command, const char *log, char *out, size_t outsize);
/* Run `command` through the shell; the peak resident size (KB) of the
 * shell and what it waited for (wait4 reports the largest), its exit
 * status in *status (-1 when it did not exit). */
long t_peak_kb(const char *command, int *status);

/* A fresh empty folder under /tmp; removed by t_rmtree. */
const char *t_make_tmpdir(void);
void t_rmtree(const char *path);

#endif
