/* A minimal fork-join over row ranges: filters split images into horizontal
 * bands, one per thread, so every thread streams through its own rows. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline/context.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef struct band {
    jf_range_fn fn;
    void *arg;
    int begin, end;
} band;

static void *run_band(void *p)
{
    band *b = (band *)p;
    b->fn(b->arg, b->begin, b->end);
    return NULL;
}

int jf_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (int)n;
}

double jf_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

void jf_parallel_for(int threads, int n, jf_range_fn fn, void *arg)
{
    enum { MAX_THREADS = 256 };
    pthread_t tid[MAX_THREADS];
    band bands[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    int t, count;

    if (n <= 0)
        return;
    count = threads < 1 ? 1 : threads;
    if (count > MAX_THREADS) count = MAX_THREADS;
    if (count > n) count = n;
    if (count == 1) {
        fn(arg, 0, n);
        return;
    }
    for (t = 0; t < count; t++) {
        bands[t].fn = fn;
        bands[t].arg = arg;
        bands[t].begin = (int)((long long)n * t / count);
        bands[t].end = (int)((long long)n * (t + 1) / count);
    }
    /* Thread 0's band runs here; a band whose thread cannot start runs here too. */
    for (t = 1; t < count; t++)
        started[t] = pthread_create(&tid[t], NULL, run_band, &bands[t]) == 0;
    run_band(&bands[0]);
    for (t = 1; t < count; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            run_band(&bands[t]);
    }
}
