/*
 * --codec auto for a batch: whether the GPU's JPEG codecs (nvJPEG's
 * hardware decoder and its encoder) take part, or the CPU's do it all.
 * A cost model with measured figures, not a rule of thumb: each path's
 * time is its start-up plus the files' share of the busier of the CPU
 * cores and the engine; the GPU path wins where its time is the shorter.
 * Pure: the CLI gives it the batch and the machine, tests give it fake
 * figures.
 */
#ifndef JF_PIPELINE_CODEC_CHOICE_H
#define JF_PIPELINE_CODEC_CHOICE_H

/* What each path costs, per megabyte of JPEG input (the entropy-coded data
 * sets the CPU's share on both paths) and per run. */
typedef struct jf_codec_costs {
    const char *source;        /* where the figures come from (a RESULTS.md section) */
    double cpu_core_ms_per_mb; /* CPU path: a core's time, read to written */
    double gpu_core_ms_per_mb; /* GPU path with the damaged-data check: a core's time */
    double trust_core_ms_per_mb; /* GPU path trusting the input */
    double engine_mb_per_s;    /* GPU path: what the engine and encoder take at most */
    double gpu_start_s;        /* GPU path: start-up beyond the CPU path's, not overlapped */
} jf_codec_costs;

/* The figures measured on the reference GPU machine (RESULTS.md, the
 * section `source` names). */
jf_codec_costs jf_codec_costs_measured(void);

typedef struct jf_codec_choice {
    int gpu;             /* 1: the GPU's codecs take part (JF_CODEC_AUTO); 0: the CPU's */
    double cpu_s, gpu_s; /* predicted seconds of each path */
    char reason[256];
} jf_codec_choice;

/* `files` JPEGs of `jpeg_mb` megabytes in all, `jobs` jobs on `cores`
 * cores; `check`: the damaged-data check is on; `engine_running`: the
 * process has the engine started already (jetfilter serve after its
 * start), so the GPU path has no start-up to pay back. */
void jf_codec_choose(const jf_codec_costs *m, int files, double jpeg_mb, int jobs, int cores,
                     int check, int engine_running, jf_codec_choice *out);

#endif
