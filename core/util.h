/* Internal: small helpers every layer uses (clock, CPU count, medians). */
#ifndef JF_CORE_UTIL_H
#define JF_CORE_UTIL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Monotonic clock in milliseconds. */
double jf_now_ms(void);

/* Number of online CPUs (>= 1). */
int jf_cpu_count(void);

/* A CPU list as sysfs writes one ("0-3,8,10-11", a trailing newline
 * allowed): each CPU below `max` marked in `cpus` (when not NULL); the
 * number of CPUs listed, or -1 when it is not such a list. */
int jf_cpu_list_parse(const char *text, unsigned char *cpus, int max);

/* The DRAM bandwidth in GB/s of a Jetson's integrated GPU, whose device
 * attributes do not give it (its memory clock attribute is not the
 * memory's): by compute capability, and on the Orin family by the SMs that
 * tell its modules apart.  0 for a part the table does not know. */
double jf_tegra_gbps(int cc_major, int cc_minor, int multiprocessors);

/* Sort v[0..n) ascending in place and return the median v[n/2]; after the
 * call v[0] is the minimum and v[n-1] the maximum. */
double jf_sort_median(double *v, int n);

/* A kept buffer of old_pitch x old_rows bytes (0 x 0: none) asked to hold
 * want_pitch x want_rows: 1 when it already does; else 0 and the shape to
 * allocate.  The largest of each dimension so far is kept while that costs
 * at most twice the larger of the two sizes; past that (a long 1-row queue
 * after a tall image) just the asked shape: alternating shapes never
 * multiply into a buffer neither needs. */
int jf_buffer_shape(size_t old_pitch, size_t old_rows, size_t want_pitch, size_t want_rows,
                    size_t *pitch, size_t *rows);

#ifdef __cplusplus
}
#endif
#endif
