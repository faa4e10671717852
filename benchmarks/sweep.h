/*
 * Internal: the measuring half of `jetfilter bench` (the command itself, its
 * options and its tables, CSV and JSON are in cli/bench.c).
 *
 * Method (benchmarks/RESULTS.md):
 *  - inputs: a real photo tiled to each size (or seeded random data), never
 *    zeros; at 16 bits the photo widened (v * 256 plus a seeded low byte); on the GPU several device-resident copies are rotated so repeated
 *    calls do not reread one buffer from the cache (cells whose data fits in
 *    L2 anyway are flagged);
 *  - warm-up calls, then N timed calls; the kernel's own time (CUDA events
 *    on the GPU, the wall clock on the CPU) is read from the stats; median,
 *    min and max are reported;
 *  - every cell's last output is compared once with the CPU reference: a
 *    fast wrong kernel is a failed cell, not a fast one;
 *  - effective bandwidth = (padded input read once + output written once) /
 *    time, against the theoretical bandwidth and against the copy ceiling
 *    measured at start (bytes read + written by a large copy);
 *  - with `energy`, each cell then runs for at least 0.5 s more while a
 *    background thread integrates the board's power (Jetson INA3221, NVML).
 */
#ifndef JF_BENCHMARKS_SWEEP_H
#define JF_BENCHMARKS_SWEEP_H

#include "jetfilter.h"
#include "filters/ops.h"

#define JF_SWEEP_MAX 32

/* One measured cell. */
typedef struct jf_sweep_cell {
    char backend[8], filter[24], border[12], variant[16], check[40];
    int width, height, channels, k, reps;
    int depth;       /* bits per sample: 8 or 16 */
    double ms, min_ms, max_ms, pad_ms, mpix_s, gbps, pct_peak, pct_ceiling;
    double npp_ms, jf_over_npp;
    double energy_mj, mean_w;
    double energy_compute_mj; /* a Jetson's compute rail over the same calls (NAN: none) */
    unsigned long long bytes_read, bytes_written;
    int l2_resident; /* 1, 0, or -1 unknown */
} jf_sweep_cell;

typedef struct jf_sweep {
    /* what to measure */
    int sizes[JF_SWEEP_MAX][2], nsizes;
    int ks[JF_SWEEP_MAX], nks;
    const jf_op *ops[JF_SWEEP_MAX];
    int nops;
    /* per operation (the index of ops): the settings it keeps across the
     * sweep (sigma, a weights file; the size, border and variant are set per
     * cell), and the one k those settings fix (0: every k of ks) */
    jf_op_args op_args[JF_SWEEP_MAX];
    int op_k[JF_SWEEP_MAX];
    jf_variant variants[JF_VARIANT_COUNT];
    int nvariants;
    jf_border borders[JF_BORDER_COUNT];
    int nborders;
    int channels[3], nchannels;
    int depths[2], ndepths; /* 8, 16 (none given: 8) */
    jf_backend backends[2];
    int nbackends;
    int reps;          /* 0: 30 on the GPU, 5 on the CPU */
    int warmup;
    const jf_image *photo; /* RGB photo to tile, or NULL: seeded random pixels */
    double impulses;   /* salt-and-pepper density added to the inputs (0: none) */
    int energy;
    int device, threads, block_x, block_y;
    jf_memory memory;
    double peak_gbps, ceiling_mb;
    /* where results go */
    void (*on_backend)(void *user, jf_backend backend, const jf_device_info *dev,
                       double ceiling_gbps, double ceiling_mb);
    void (*on_cell)(void *user, const jf_sweep_cell *cell);
    void (*log)(void *user, const char *message);
    void *user;
    /* filled by the run */
    double ceiling[2];   /* copy ceiling per backend (0 cpu, 1 cuda), GB/s */
    jf_device_info dev;
    int have_dev;
    int failures;        /* cells that failed verification or did not run */
    char energy_source[320]; /* what measured energy, or what was looked for */
    char energy_rail[64], energy_compute_rail[64]; /* a Jetson's rails ("" none) */
} jf_sweep;

/* Measure every cell.  Returns JF_OK (failed cells are counted, not fatal),
 * or an error when no context or input could be made. */
jf_status jf_sweep_run(jf_sweep *sw);

#endif
