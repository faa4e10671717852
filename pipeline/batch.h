/*
 * The batch scheduler: which files, where their outputs go, and a pool of
 * jobs that works through them, each job with its own jf_context (its own
 * CPU threads or CUDA stream), so files are independent and a failure stays
 * with its file.  What is done to each file (decode, filter, encode) comes
 * from the caller as a callback; so does the reporting.
 */
#ifndef JF_PIPELINE_BATCH_H
#define JF_PIPELINE_BATCH_H

#include "jetfilter.h"
#include "io/io.h"
#include "pipeline/shard.h"

#include <limits.h>
#include <stdint.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

typedef struct jf_batch_item {
    char *input;      /* path as given or found */
    char *rel;        /* path relative to its input folder (or the file name) */
    char *output;     /* path to write ("-": standard output) */
    int from_stdin;   /* the input is standard input (input names it for messages) */
    /* results */
    jf_status status;
    char *message;    /* why it failed, whole (paths can be long); NULL when it did not */
    int skipped;
    int width, height, channels;
    /* wall time of each step; total is all of them plus bookkeeping */
    double ms_read, ms_wait, ms_decode, ms_filter, ms_metrics, ms_encode, ms_total;
    int have_ref;
    double psnr_in, psnr_out, ssim_in, ssim_out;
    char notes[256];  /* what was dropped or changed on the way ("" if nothing) */
    char decision[96]; /* what an operation that decides per image chose ("" if none) */
    const char *estimate_name; /* and the number it decided on (NULL if none) */
    double estimate;
    const unsigned char *bytes; /* the file, read by the batch before the work runs */
    size_t nbytes;
    uint64_t memory;  /* what the batch reserved for this file, bytes */
    int device;       /* CUDA device of the job that did it (-1: the CPU) */
    jf_stat *stats;   /* kernel/stage records of this file */
    size_t stats_count;
} jf_batch_item;

typedef struct jf_batch jf_batch;
typedef jf_status (*jf_batch_work_fn)(jf_batch *b, jf_batch_item *item, jf_context *ctx);
/* Called once per finished item, under the batch's lock (print, progress). */
typedef void (*jf_batch_done_fn)(jf_batch *b, jf_batch_item *item);
/* Messages about the inputs that are not failures of one file. */
typedef void (*jf_batch_log_fn)(jf_batch *b, int verbose_only, const char *message);

typedef struct jf_batch_options {
    const char *verb;          /* "denoise", "noise": in messages */
    const char *output;        /* output folder (the input tree is mirrored), or with
                                  `single` the output file ("-": standard output) */
    int single;                /* one input, a file or "-" (standard input), to one file */
    const char *suffix;        /* added to output names, or NULL */
    const char *extension;     /* ".png"/".jpg" to change format, NULL to keep */
    const char *const *inputs; /* files and folders */
    int input_count;
    int jobs;                  /* files at once */
    int threads;               /* CPU threads in all (0: every core) */
    int skip_existing;
    int max_depth;             /* folders deeper are failures (0: JF_WALK_DEFAULT_DEPTH) */
    jf_context_options context; /* backend, device, memory, stats of every job */
    const int *devices;        /* CUDA devices the jobs are spread over (NULL: context.device) */
    int device_count;
    jf_shard shard;            /* this process's part of the inputs (count 0 or 1: all) */
    uint64_t max_memory;       /* budget of all jobs together, bytes (0: half the RAM) */
    /* what working on a file takes, from its structure and size (the command
     * knows its operation and output format); NULL: the file, its pixels
     * and an output as large */
    uint64_t (*estimate)(const void *user, const jf_probe *probe, size_t file_bytes);
    /* set by another thread to stop the batch: no file starts after it,
     * those left fail as cancelled (NULL: none) */
    const volatile int *cancel;
    int count_jpegs;           /* count the JPEGs among the files (jpeg_files) */
} jf_batch_options;

struct jf_batch_feed;

/* The files are found twice: jf_batch_collect counts them (the progress
 * total, the shard record, the JPEG count, stale temporaries cleared) and
 * keeps none; jf_batch_run walks them again in a thread that hands them to
 * the jobs through a short queue.  An item lives from the walk to on_done:
 * memory does not grow with the number of files. */
struct jf_batch {
    jf_batch_options opt;
    int count;            /* this process's files (its shard), as counted */
    int ignored;          /* non-image files in the folders (FIFOs, devices and dangling
                             links without an image's name among them, named by -v) */
    int earlier_outputs;  /* files named as outputs (--suffix) passed over */
    int passed;           /* links back into the tree, not followed (their files are
                             reached the other way) */
    char out_real[PATH_MAX]; /* resolved output folder */
    jf_batch_work_fn work;
    /* once the backend is known, before the first file (not called when no
     * job runs: an empty shard) */
    void (*on_start)(jf_batch *b);
    jf_batch_done_fn on_done; /* the item is freed after it */
    jf_batch_log_fn log;
    /* how a job makes its context (NULL: jf_context_create; tests inject failures) */
    jf_status (*make_context)(const jf_context_options *opt, jf_context **out);
    /* whether a device has started in this process already, so that it joins
     * at once (NULL: jf_nvjpeg_running, its JPEG engine kept; tests inject it) */
    int (*device_warm)(int device);
    double device_pays_ms; /* the least time left that starts another device (0: 2 s) */
    void *user;
    jf_backend backend;   /* what the contexts actually used */
    char backend_note[256];
    /* progress */
    int done, failed, skipped;
    double mpix_done, started_ms;
    /* the memory budget: what the jobs in flight reserved */
    uint64_t memory_in_use, memory_peak;
    int in_flight;
    int stale_removed;    /* temporaries of killed runs removed from output folders */
    /* the whole walk, before sharding, so that shard reports can be checked
     * against each other when merged */
    int walk_files;       /* files found in all shards */
    int *shard_files;     /* files per shard (shard.count entries; NULL without sharding) */
    uint64_t walk_digest; /* sum of the hashes of every relative path found */
    int jpeg_files;       /* with opt.count_jpegs: the files that are JPEGs by their first */
    double jpeg_bytes;    /* bytes, as the decoder tells them, and their sizes */
    /* internal */
    int listing;          /* 0: counting (collect), 1: handing out (run) */
    long long collect_time; /* when counting began (seconds since the epoch) */
    char *cleaned;        /* the output folder last cleared of stale temporaries */
    jf_batch_item *single; /* opt.single: the one item, made by collect */
    struct jf_batch_feed *feed;
};

/* Half the machine's memory (a Jetson's 4 GB are shared with its GPU). */
uint64_t jf_batch_default_memory(void);

/* A job's CPU threads: `threads` in all (0: every core) shared among `jobs`,
 * at least one each. */
int jf_batch_job_threads(int threads, int jobs);

/* Whether a batch's jobs go on the CPUs near their device: when the
 * devices are near different CPUs, each near some CPU the process may use
 * and all together near every one (placed otherwise, some CPUs would idle).
 * `near`: `devices` masks of `cpus` bytes (non-zero: near); `allowed`: the
 * process's CPUs. */
int jf_batch_place_jobs(const unsigned char *near, int devices, const unsigned char *allowed,
                        int cpus);

/* The name an input read from standard input has in messages and reports. */
#define JF_STDIN_NAME "standard input"

/* Check the inputs and the output, create the output folder and count the
 * files (with opt.single: check the one input and its output file, made
 * by the caller).  Returns JF_OK; JF_ERR_ARG for a usage problem (no
 * output, output inside an input without --suffix, ...) with the detail
 * in jf_last_error(); another error when nothing can be done.  Problems
 * with single inputs become failed items, never a stop. */
jf_status jf_batch_collect(jf_batch *b);

/* Walk the inputs again and run `work` over every file with opt.jobs
 * workers, each with its own context; on_done sees each item once, in the
 * order they finish.  A worker whose context cannot be made leaves its share to the
 * others; if none can, the items left are failed with the reason.  Returns
 * JF_OK, or the error of the first context when none could be made. */
jf_status jf_batch_run(jf_batch *b, jf_batch_work_fn work);

void jf_batch_free(jf_batch *b);

#endif
