/* Internal: small helpers every layer uses (clock, CPU count, medians). */
#ifndef JF_CORE_UTIL_H
#define JF_CORE_UTIL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Monotonic clock in milliseconds. */
double jf_now_ms(void);

/* Number of online CPUs (>= 1). */
int jf_cpu_count(void);

/* Sort v[0..n) ascending in place and return the median v[n/2]; after the
 * call v[0] is the minimum and v[n-1] the maximum. */
double jf_sort_median(double *v, int n);

#ifdef __cplusplus
}
#endif
#endif
