/* Latency histogram (latency.h). */
#include "pipeline/latency.h"

#include <math.h>

/* Microseconds to a bucket: exact below JF_LATENCY_SUB, then the top ten
 * bits after the leading one, per power of two. */
static uint64_t bucket_of(uint64_t us)
{
    int p = 0;
    if (us < JF_LATENCY_SUB)
        return us;
    while ((us >> p) >= 2 * JF_LATENCY_SUB)
        p++;
    if (p >= JF_LATENCY_POWERS)
        return (uint64_t)JF_LATENCY_SUB * (JF_LATENCY_POWERS + 1) - 1;
    return (uint64_t)JF_LATENCY_SUB * (uint64_t)(p + 1) + ((us >> p) - JF_LATENCY_SUB);
}

/* The largest microsecond count in bucket b. */
static double upper_us(uint64_t b)
{
    uint64_t p;
    if (b < JF_LATENCY_SUB)
        return (double)b;
    p = b / JF_LATENCY_SUB - 1;
    return (double)(((b % JF_LATENCY_SUB + JF_LATENCY_SUB + 1) << p) - 1);
}

void jf_latency_add(jf_latency *h, double ms)
{
    const double us = ms > 0 ? floor(ms * 1000.0 + 0.5) : 0;
    const uint64_t b = bucket_of(us < 1.8e19 ? (uint64_t)us : UINT64_MAX >> 1);
    if (h->count[b] < UINT32_MAX)
        h->count[b]++;
    h->n++;
    if (ms > h->max_ms)
        h->max_ms = ms;
}

double jf_latency_quantile(const jf_latency *h, double q)
{
    const uint64_t need = (uint64_t)ceil(q * (double)h->n);
    uint64_t seen = 0, b;
    if (!h->n)
        return 0;
    for (b = 0; b < (uint64_t)JF_LATENCY_SUB * (JF_LATENCY_POWERS + 1); b++) {
        seen += h->count[b];
        if (seen >= (need ? need : 1)) {
            const double ms = upper_us(b) / 1000.0;
            return ms < h->max_ms ? ms : h->max_ms;
        }
    }
    return h->max_ms;
}
