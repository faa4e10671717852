/*
 * A persistent fork-join pool per context.  Filters split images into
 * horizontal bands, one per worker, so every thread streams through its own
 * rows.  Workers are created on the first parallel call.  Between calls a
 * worker first waits awake for a short while, then sleeps on a condition
 * variable: waking a sleeping thread takes tens of microseconds (more in a
 * virtual machine), longer than a small image's whole filter, so a frame
 * loop finds its workers awake, and an idle pool costs nothing.  The
 * caller waits for the last band the same way.
 *
 * Each worker has a slot of its own (one cache line) where the caller puts
 * its band and raises the slot's generation: a worker reads only its slot,
 * which the caller writes again only after that band is done.
 */
#define _POSIX_C_SOURCE 200809L
#include "core/context.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* How long a worker waits awake for its next band, and the caller for the
 * last band, before sleeping: longer than a frame loop's gap between calls. */
#define POOL_SPIN_NS 100000L

typedef struct worker_slot {
    unsigned long generation; /* atomic: a new band when it changes */
    int asleep;               /* atomic: the worker sleeps on the pool's `wake` */
    int begin, end, band;
    jf_range_fn fn;
    void *arg;
    struct jf_pool *pool;
} __attribute__((aligned(64))) worker_slot;

typedef struct jf_pool {
    pthread_mutex_t lock;
    pthread_cond_t wake, done_cv;
    pthread_t *tid;
    worker_slot *slots;  /* [threads]; slot 0 unused (the caller) */
    void *slots_block;   /* what `slots` was allocated in (aligned inside) */
    int workers;         /* threads started (the caller is worker 0 besides) */
    int remaining;       /* atomic: bands of the current job not finished */
    int caller_asleep;   /* atomic: the caller sleeps on `done_cv` */
    int stop;            /* atomic */
} jf_pool;

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Wait awake, up to POOL_SPIN_NS, for done(what, value); whether it came. */
static int spin_for(int (*done)(const void *, unsigned long), const void *what, unsigned long value)
{
    long long deadline = 0;
    int i;
    for (i = 1;; i++) {
        if (done(what, value))
            return 1;
        if ((i & 63) == 0) {
            long long t = now_ns();
            if (!deadline)
                deadline = t + POOL_SPIN_NS;
            else if (t >= deadline)
                return 0;
        }
        cpu_relax();
    }
}

/* SLEEP_FENCE: a sleeper raises its flag and then looks at what it waits
 * for; the other side changes that with an atomic read-modify-write and
 * then looks at the flag, so one of the two sees the other.  A full fence
 * between the flag's store and the look: a store-release and a
 * load-acquire may pass each other where they are not made sequentially
 * consistent (qemu-aarch64 on x86-64 puts no barrier between them), and
 * a caller and its workers then slept for good, each waiting for the
 * other (test_impulse under the Nano check's qemu). */
static int generation_moved(const void *slot, unsigned long seen)
{
    return __atomic_load_n(&((const worker_slot *)slot)->generation, __ATOMIC_ACQUIRE) != seen;
}

static int bands_done(const void *remaining, unsigned long unused)
{
    (void)unused;
    return __atomic_load_n((const int *)remaining, __ATOMIC_ACQUIRE) == 0;
}

static void *worker_main(void *a)
{
    worker_slot *s = (worker_slot *)a;
    jf_pool *p = s->pool;
    unsigned long seen = 0;
    for (;;) {
        if (!spin_for(generation_moved, s, seen)) {
            /* `asleep` is raised before the last look at the generation, and
             * the caller looks at it after raising the generation: one of
             * the two sees the other */
            pthread_mutex_lock(&p->lock);
            __atomic_store_n(&s->asleep, 1, __ATOMIC_SEQ_CST);
            __atomic_thread_fence(__ATOMIC_SEQ_CST); /* SLEEP_FENCE, above */
            while (__atomic_load_n(&s->generation, __ATOMIC_SEQ_CST) == seen)
                pthread_cond_wait(&p->wake, &p->lock);
            __atomic_store_n(&s->asleep, 0, __ATOMIC_RELAXED);
            pthread_mutex_unlock(&p->lock);
        }
        seen = __atomic_load_n(&s->generation, __ATOMIC_ACQUIRE);
        if (__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE))
            break;
        s->fn(s->arg, s->begin, s->end, s->band);
        if (__atomic_sub_fetch(&p->remaining, 1, __ATOMIC_SEQ_CST) == 0 &&
            __atomic_load_n(&p->caller_asleep, __ATOMIC_SEQ_CST)) {
            pthread_mutex_lock(&p->lock);
            pthread_cond_signal(&p->done_cv);
            pthread_mutex_unlock(&p->lock);
        }
    }
    return NULL;
}

static jf_pool *pool_create(int threads)
{
    jf_pool *p = (jf_pool *)calloc(1, sizeof *p);
    int i;
    if (!p)
        return NULL;
    p->tid = (pthread_t *)calloc((size_t)threads, sizeof *p->tid);
    p->slots_block = calloc((size_t)threads + 1, sizeof(worker_slot));
    if (!p->tid || !p->slots_block || pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p->tid);
        free(p->slots_block);
        free(p);
        return NULL;
    }
    /* a cache line each (calloc's alignment is less) */
    p->slots = (worker_slot *)(((uintptr_t)p->slots_block + 63) & ~(uintptr_t)63);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    for (i = 1; i < threads; i++) {
        p->slots[i].pool = p;
        if (pthread_create(&p->tid[i], NULL, worker_main, &p->slots[i]) != 0)
            break;
        p->workers = i;
    }
    return p;
}

void jf_pool_destroy(jf_pool *p)
{
    int i;
    if (!p)
        return;
    __atomic_store_n(&p->stop, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&p->lock);
    for (i = 1; i <= p->workers; i++)
        __atomic_add_fetch(&p->slots[i].generation, 1, __ATOMIC_SEQ_CST);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (i = 1; i <= p->workers; i++)
        pthread_join(p->tid[i], NULL);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done_cv);
    pthread_mutex_destroy(&p->lock);
    free(p->tid);
    free(p->slots_block);
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
    int bands = jf_parallel_bands(ctx, n), b, sleeper = 0;
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
    __atomic_store_n(&p->remaining, bands - 1, __ATOMIC_SEQ_CST);
    for (b = 1; b < bands; b++) {
        worker_slot *s = &p->slots[b];
        s->fn = fn;
        s->arg = arg;
        s->begin = (int)((long long)n * b / bands);
        s->end = (int)((long long)n * (b + 1) / bands);
        s->band = b;
        __atomic_add_fetch(&s->generation, 1, __ATOMIC_SEQ_CST);
        sleeper |= __atomic_load_n(&s->asleep, __ATOMIC_SEQ_CST);
    }
    if (sleeper) {
        pthread_mutex_lock(&p->lock);
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->lock);
    }
    fn(arg, 0, (int)((long long)n / bands), 0);
    if (!spin_for(bands_done, &p->remaining, 0)) {
        pthread_mutex_lock(&p->lock);
        __atomic_store_n(&p->caller_asleep, 1, __ATOMIC_SEQ_CST);
        __atomic_thread_fence(__ATOMIC_SEQ_CST); /* SLEEP_FENCE */
        while (__atomic_load_n(&p->remaining, __ATOMIC_SEQ_CST) != 0)
            pthread_cond_wait(&p->done_cv, &p->lock);
        __atomic_store_n(&p->caller_asleep, 0, __ATOMIC_SEQ_CST);
        pthread_mutex_unlock(&p->lock);
    }
}
