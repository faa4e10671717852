/*
 * A frame stream: read -> filter -> write with a reader thread, the filter
 * work on the caller's thread (its context's CUDA stream or CPU pool) and a
 * writer thread, over a ring of frame slots allocated once.  Frames leave
 * in the order they came.
 */
#ifndef JF_PIPELINE_STREAM_H
#define JF_PIPELINE_STREAM_H

#include "filters/ops.h"
#include "jetfilter.h"

#include <stdint.h>

/* Frame slots in the ring: one being read, one being filtered, one being
 * written, and one spare so the reader never waits on a steady pipe. */
#define JF_STREAM_SLOTS 4

typedef struct jf_stream_frame {
    long long index;   /* from 0 */
    double latency_ms; /* from the end of its read to the end of its write */
    double filter_ms;  /* the filter work's own time (stats: GPU events, or CPU wall) */
    int have_ref;
    double psnr_y, psnr, ssim_y; /* against the reference frame (y: plane 0 alone) */
} jf_stream_frame;

typedef struct jf_stream_options {
    jf_context *ctx;              /* filters run here; stats on (>= 64 records) */
    const jf_op_plan *plan;       /* the operation */
    unsigned plane_mask;          /* bit p: filter plane p (others pass unchanged) */
    jf_video_reader *in;
    jf_video_reader *ref;         /* may be NULL */
    jf_video_writer *out;
    /* called on the writer thread after each frame is written */
    void (*on_frame)(void *user, const jf_stream_frame *f);
    void *user;
} jf_stream_options;

typedef struct jf_stream_result {
    jf_status status;    /* JF_OK, or the first failure (message below) */
    char message[600];
    long long frames;    /* frames written */
    double seconds;      /* first read to last write */
    double latency_p50, latency_p99, latency_max; /* ms */
    double filter_ms;    /* sum over frames */
    double read_ms, write_ms; /* time the reader spent in reading, the writer in writing */
    const char *memory;  /* where the frame slots live: "mapped", "host" */
} jf_stream_result;

/* The memory a stream of this layout holds at once: JF_STREAM_SLOTS
 * frames in the ring (the input, the filtered planes' outputs, the
 * reference frame) and the filter's working copy of its largest plane,
 * padded by k - 1. */
uint64_t jf_stream_memory(const jf_video_format *f, unsigned plane_mask, int with_ref, int k);

/* Run the stream to its end or its first failure; frames before a failure
 * are all written. */
void jf_stream_run(const jf_stream_options *opt, jf_stream_result *res);

#endif
