/*
 * Latencies kept in bounded memory: a histogram exact to the microsecond up
 * to about a millisecond and to one part in 1024 above (HDR-style: 1024
 * buckets for each power of two), so percentiles of a stream of any length
 * cost a fixed 220 KB instead of 8 bytes a frame.
 */
#ifndef JF_PIPELINE_LATENCY_H
#define JF_PIPELINE_LATENCY_H

#include <stdint.h>

#define JF_LATENCY_SUB 1024 /* buckets a power of two, and the exact range in us */
#define JF_LATENCY_POWERS 44 /* 2^(10 + 44) us: far beyond any run */

typedef struct jf_latency {
    uint32_t count[JF_LATENCY_SUB * (JF_LATENCY_POWERS + 1)];
    uint64_t n;
    double max_ms;
} jf_latency;

void jf_latency_add(jf_latency *h, double ms);
/* The latency below which a fraction q (0..1) of the samples lie, ms (the
 * bucket's upper edge: a microsecond, or 0.1%); 0 with no samples. */
double jf_latency_quantile(const jf_latency *h, double q);

#endif
