/*
 * A persistent fork-join pool per context.  Filters split images into
 * horizontal bands, one per worker, so every thread streams through its own
 * rows.  Workers are created on the first parallel call and then sleep on a
 * condition variable between calls: a frame loop creates no threads.
 */
#define _POSIX_C_SOURCE 200809L
#include "core/context.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct jf_pool {
    pthread_mutex_t lock;
    pthread_cond_t wake, done_cv;
    pthread_t *tid;
    int workers;         /* threads started (the caller is worker 0 besides) */
    unsigned long generation;
    int remaining;       /* bands of the current job not finished */
    int stop;
    /* the current job */
    jf_range_fn fn;
    void *arg;
    int n, bands;
} jf_pool;

typedef struct worker_arg {
    jf_pool *pool;
    int index; /* 1.. */
} worker_arg;

static void run_band(jf_pool *p, int band)
{
    int begin = (int)((long long)p->n * band / p->bands);
    int end = (int)((long long)p->n * (band + 1) / p->bands);
    if (begin < end)
        p->fn(p->arg, begin, end, band);
}

static void *worker_main(void *a)
{
    worker_arg *wa = (worker_arg *)a;
    jf_pool *p = wa->pool;
    const int index = wa->index;
    unsigned long seen = 0;
    free(wa);
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop)
            break;
        seen = p->generation;
        if (index < p->bands) {
            pthread_mutex_unlock(&p->lock);
            run_band(p, index);
            pthread_mutex_lock(&p->lock);
            if (--p->remaining == 0)
                pthread_cond_signal(&p->done_cv);
        }
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static jf_pool *pool_create(int threads)
{
    jf_pool *p = (jf_pool *)calloc(1, sizeof *p);
    int i;
    if (!p)
        return NULL;
    p->tid = (pthread_t *)calloc((size_t)threads, sizeof *p->tid);
    if (!p->tid || pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p->tid);
        free(p);
        return NULL;
    }
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    for (i = 1; i < threads; i++) {
        worker_arg *wa = (worker_arg *)malloc(sizeof *wa);
        if (!wa)
            break;
        wa->pool = p;
        wa->index = i;
        if (pthread_create(&p->tid[i], NULL, worker_main, wa) != 0) {
            free(wa);
            break;
        }
        p->workers = i;
    }
    return p;
}

void jf_pool_destroy(jf_pool *p)
{
    int i;
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (i = 1; i <= p->workers; i++)
        pthread_join(p->tid[i], NULL);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done_cv);
    pthread_mutex_destroy(&p->lock);
    free(p->tid);
    free(p);
}

int jf_parallel_bands(const jf_context *ctx, int n)
{
    int t = ctx && ctx->threads > 0 ? ctx->threads : 1;
    return n < 1 ? 1 : t < n ? t : n;
}

void jf_parallel_for(jf_context *ctx, int n, jf_range_fn fn, void *arg)
{
    jf_pool *p;
    int bands = jf_parallel_bands(ctx, n), b;
    if (n <= 0)
        return;
    if (bands == 1) {
        fn(arg, 0, n, 0);
        return;
    }
    if (!ctx->pool)
        ctx->pool = pool_create(ctx->threads);
    p = ctx->pool;
    if (!p || p->workers + 1 < bands) {
        /* threads could not start: every band here, still split so that
         * per-band scratch stays per band */
        for (b = 0; b < bands; b++) {
            int begin = (int)((long long)n * b / bands), end = (int)((long long)n * (b + 1) / bands);
            if (begin < end)
                fn(arg, begin, end, b);
        }
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->arg = arg;
    p->n = n;
    p->bands = bands;
    p->remaining = bands - 1;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    run_band(p, 0);
    pthread_mutex_lock(&p->lock);
    while (p->remaining > 0)
        pthread_cond_wait(&p->done_cv, &p->lock);
    pthread_mutex_unlock(&p->lock);
}
