/* Clock, CPU count and the median of timings. */
#define _POSIX_C_SOURCE 200809L
#include "core/util.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

double jf_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int jf_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}

int jf_cpu_list_parse(const char *text, unsigned char *cpus, int max)
{
    int count = 0;
    const char *p = text;
    while (*p && *p != '\n') {
        char *end;
        long a, b, i;
        if (*p < '0' || *p > '9')
            return -1;
        a = b = strtol(p, &end, 10);
        p = end;
        if (*p == '-') {
            if (p[1] < '0' || p[1] > '9')
                return -1;
            b = strtol(p + 1, &end, 10);
            p = end;
        }
        if (b < a || b > 1 << 20)
            return -1;
        for (i = a; cpus && i <= b && i < max; i++)
            cpus[i] = 1;
        count += (int)(b - a + 1);
        if (*p == ',')
            p++;
        else if (*p && *p != '\n')
            return -1;
    }
    return count;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double jf_tegra_gbps(int cc_major, int cc_minor, int multiprocessors)
{
    const int cc = cc_major * 10 + cc_minor;
    if (cc == 53)
        return 25.6; /* Nano: LPDDR4 1600 MHz x 64 bit x 2 */
    if (cc == 62)
        return 59.7; /* TX2: LPDDR4 1866 MHz x 128 bit x 2 */
    if (cc == 72)
        return 136.5; /* Xavier: LPDDR4x 2133 MHz x 256 bit x 2 */
    if (cc == 87) {
        /* Orin: LPDDR5 at 3200 MHz x 2 on each module's bus, the peak of
         * its fastest mode (the Orin Nano's 7W and 15W hold the memory at
         * 2133 MHz: 68 GB/s); AGX Orin 14 or 16 SMs, 256 bit; Orin NX and
         * Orin Nano 8 GB 6 or 8 SMs, 128 bit; Orin Nano 4 GB 4 SMs, 64 bit */
        const int bits = multiprocessors >= 12 ? 256 : multiprocessors >= 6 ? 128 : 64;
        return 3200e6 * 2 * (bits / 8) / 1e9;
    }
    return 0;
}

double jf_sort_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

int jf_buffer_shape(size_t old_pitch, size_t old_rows, size_t want_pitch, size_t want_rows,
                    size_t *pitch, size_t *rows)
{
    const size_t max_pitch = old_pitch > want_pitch ? old_pitch : want_pitch;
    const size_t max_rows = old_rows > want_rows ? old_rows : want_rows;
    /* in double: the products of hostile sizes must not wrap */
    const double old_size = (double)old_pitch * (double)old_rows;
    const double want_size = (double)want_pitch * (double)want_rows;
    const double larger = old_size > want_size ? old_size : want_size;
    if (old_pitch >= want_pitch && old_rows >= want_rows) {
        *pitch = old_pitch;
        *rows = old_rows;
        return 1;
    }
    if ((double)max_pitch * (double)max_rows <= 2.0 * larger) {
        *pitch = max_pitch;
        *rows = max_rows;
    } else {
        *pitch = want_pitch;
        *rows = want_rows;
    }
    return 0;
}
