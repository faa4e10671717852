/* The batch commands as library calls: `jetfilter denoise` and `noise`
 * from their settings (jobs/settings.h) to a report, every message through
 * the caller's sink (jobs/messages.h).  The command line, serve, Python and
 * C callers (jf_job_*, jetfilter/jobs.h) all run them here. */
#ifndef JF_JOBS_JOBS_H
#define JF_JOBS_JOBS_H

#include "jobs/messages.h"
#include "jobs/settings.h"
#include "pipeline/codec_choice.h"

struct jf_batch;
struct jf_batch_item;
struct jf_job;

/* The batch commands, `job` receiving the report and each file's result
 * (NULL: none): their exit status (JF_EXIT_*). */
int job_denoise(job_settings *s, struct jf_job *job);
int job_noise(job_settings *s, struct jf_job *job);
/* The merge of shards' reports (report_merge.c): the settings' inputs are
 * the reports, `job` receives the merged report but its files. */
int job_report_merge(job_settings *s, struct jf_job *job);
/* The command line's entries (the command table's `run`); `report` takes
 * the word "merge" before the reports. */
int job_denoise_command(job_settings *s);
int job_noise_command(job_settings *s);
int job_report_command(job_settings *s);
/* The process-wide limits, sync and GPU JPEG check from the settings
 * (`cmd` names the command in a message); 0 or JF_EXIT_USAGE. */
int job_apply_limits(const job_settings *s, const char *cmd);

/* Tuning profiles (cli/calibrate.c): the folder ($XDG_CACHE_HOME/jetfilter,
 * else ~/.cache/jetfilter; 0 when neither is set), pointing the library at
 * it for the current power mode, and what a context on `device` uses: its
 * path, or "none" and why, in `out`. */
int job_profile_dir(char *out, size_t n);
void job_use_profiles(void);
/* The power mode (calib/power.h), read once per process: on a Jetson that
 * runs `nvpmodel -q`. */
struct jf_power_mode;
const struct jf_power_mode *job_power_mode(void);

/* What a batch command carries through the batch (jf_batch.user). */
typedef struct job_stream job_stream; /* the report as it is written (report.c) */
typedef struct job_run {
    job_settings *s;
    const char *verb;     /* "denoise", "noise" */
    jf_op_plan plan;      /* the operation, resolved once */
    int device_input_ok;  /* the work takes a decoded image in device memory (nvJPEG) */
    int codec_chosen;     /* --codec auto decided by the cost model: */
    jf_codec_choice codec_choice; /* what it predicted, for -v and --json */
    int said_png, said_jpeg;     /* noise: what is said once a run */
    struct jf_job *job;           /* the library caller's job (NULL: none) */
    job_stream *stream;           /* made by the first file or the start */
} job_run;


/* Batch callbacks and the end of a batch (report.c): a line per file with
 * -v, failures always, the progress line on a terminal; then the summary,
 * --stats and --json.  Returns the exit code. */
void job_batch_start(struct jf_batch *b);
void job_batch_done(struct jf_batch *b, struct jf_batch_item *it);
/* A finished file into the report and the summary's sums (job_batch_done
 * calls it); job_stream_end frees what the report held (an unfinished
 * --json file removed). */
void job_stream_file(struct jf_batch *b, const struct jf_batch_item *it);
void job_stream_end(job_run *run);
void job_batch_log(struct jf_batch *b, int verbose_only, const char *message);
int job_batch_finish(struct jf_batch *b);
void job_batch_progress(const struct jf_batch *b, const char *path);

/* What a library caller's job keeps of a run (jobs/job.c): the report
 * (the job takes `text`) and each file's result, as it finishes. */
void job_keep_report(struct jf_job *job, char *text);
void job_keep_file(struct jf_job *job, const struct jf_batch_item *it);
/* The flag jf_job_cancel sets, which the batch reads before each file. */
const volatile int *job_cancel_flag(struct jf_job *job);

/* Means of PSNR/SSIM against the references over the files that had one
 * (one infinite PSNR, identical images, makes its mean infinite): summed
 * per file, logged as one line, written into a JSON summary. */
typedef struct job_ref_means {
    int refs, pin_inf, pout_inf;
    double pin, pout, sin, sout;
} job_ref_means;
struct json_buf;
void job_ref_means_add(job_ref_means *m, double psnr_in, double psnr_out, double ssim_in,
                       double ssim_out);
void job_ref_means_log(const job_ref_means *m);
void job_ref_means_json(struct json_buf *j, const job_ref_means *m);

/* "operation": its name, and "parameters": every parameter's resolved value,
 * typed (numbers as numbers, defaults filled in), as the reports write them. */
void job_json_operation(struct json_buf *j, const jf_op_plan *plan);

/* ".png", ".jpg", ".tif", ".webp" or ".pfm" for an out_format; NULL for OUT_SAME. */
const char *job_format_extension(int format);

/* How an output of this picture is written (format, quality, PNG settings). */
jf_encode_options job_encode_options(const job_settings *s, const jf_picture *pic);

/* The steps of a batch command (batch_run.c): read and decode one input,
 * encode and write one output (stats and notes into the item), and the
 * whole batch: collect, run, report; returns the exit code. */
jf_status job_read_input(struct jf_batch_item *it, jf_picture *pic, jf_context *ctx);
/* What was left out or is doubtful on the way, for -v and the JSON report. */
void job_item_note(struct jf_batch_item *it, const char *note);
jf_status job_write_output(struct jf_batch_item *it, const job_settings *s, jf_picture *pic,
                           jf_context *ctx);
/* An input of several pages (a multi-page TIFF), `pic` its first as read:
 * each page through `page_fn` (which leaves the page's result in
 * pic->color), all written into one TIFF; into a format of one page, the
 * first alone, which the notes say.  `pic` is freed. */
typedef jf_status (*job_page_fn)(struct jf_batch *b, struct jf_batch_item *it, jf_context *ctx,
                                 jf_picture *pic, int page);
jf_status job_pages(struct jf_batch *b, struct jf_batch_item *it, jf_context *ctx, jf_picture *pic,
                    job_page_fn page_fn);
int job_batch(job_settings *s, job_run *run,
              jf_status (*work)(struct jf_batch *b, struct jf_batch_item *it, jf_context *ctx));


/* The --stats table: its header (`per`: the title of the per-call or
 * per-frame column) and one row (effective GB/s and % of peak from the
 * bytes, "-" where unknown). */
void job_stage_header(const char *per);
void job_stage_row(const char *name, unsigned long long calls, double ms, double per_ms,
                   double bytes, double peak_gbps);

/* The files a command writes, checked together before any work
 * (outputs.c): never an input (whatever path reaches it), never two outputs
 * in one file, folders that exist and are writable, and a report, table or
 * profile that already exists replaced only when jetfilter wrote it (or
 * with --force).  Prints why and returns JF_EXIT_USAGE, or 0. */
typedef enum job_out_kind {
    JOB_OUT_REPORT,  /* --json: ours when it opens with {"jetfilter": */
    JOB_OUT_TABLE,   /* --csv: ours when it opens with the bench's header */
    JOB_OUT_PROFILE, /* calibrate -o */
    JOB_OUT_IMAGE,   /* an image written atomically; may replace an older output */
    JOB_OUT_STREAM,  /* a stream written atomically; may replace an older output */
    JOB_OUT_LOG      /* appended to (serve's "stdout" and "stderr"): any file but an image */
} job_out_kind;
typedef struct job_output {
    const char *option; /* "--json", "-o" */
    const char *path;   /* NULL: not given; "-": standard output */
    job_out_kind kind;
} job_output;
#define JOB_MAX_OUTPUTS 6
typedef struct job_outputs {
    const char *cmd;
    const char *const *inputs; /* files and folders the command reads ("-" and NULL skipped) */
    int input_count;
    job_output out[JOB_MAX_OUTPUTS];
    int count;
    int force;
} job_outputs;
int job_outputs_check(const job_outputs *o);

/* Every file or folder a parsed command line reads (its positional
 * inputs, --reference, -i, --kernel, --photo), at most max into out; how
 * many. */
#define JOB_MAX_INPUTS_LISTED 4100
int job_inputs_of(const job_settings *s, const char **out, int max);
/* How the bench's CSV starts (its first fields), so it is known as ours. */
#define JOB_CSV_FIRST_FIELDS "tag,backend,width,height,"

/* Write `text` to the --json target ("-": standard output). */
int job_json_write(const char *path, const char *text, size_t len);

#endif
