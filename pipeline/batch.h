/* Internal to the CLI: the list of files a run works on, and the scheduler
 * that works through it with several jobs at once. */
#ifndef JF_PIPELINE_BATCH_H
#define JF_PIPELINE_BATCH_H

#include "pipeline/cli.h"

#include <stdint.h>

typedef struct batch_item {
    char *input;      /* path as given or found */
    char *rel;        /* path relative to its input folder (or the file name) */
    char *output;     /* path to write */
    /* results */
    jf_status status;
    char message[512];
    int skipped;
    int width, height, channels;
    double ms_decode, ms_filter, ms_metrics, ms_encode, ms_total;
    int have_ref;
    double psnr_in, psnr_out, ssim_in, ssim_out;
    jf_stat *stats;   /* kernel/stage records of this file */
    size_t stats_count;
} batch_item;

typedef struct batch batch;
typedef jf_status (*batch_work_fn)(batch *b, batch_item *item, jf_context *ctx);

struct batch {
    cli_settings *s;
    batch_item *items;
    int count, cap;
    int ignored;          /* non-image files passed over in folders */
    char out_real[4096];  /* resolved output folder */
    batch_work_fn work;
    void *user;
    const char *verb;     /* "denoise", "noise" */
    jf_backend backend;   /* what the contexts actually used */
    char backend_note[256];
    /* progress */
    int next, done, failed, skipped;
    double mpix_done, started_ms;
};

/* Walk the inputs, decide output paths, check the output folder.  Prints
 * problems; returns 0, JF_EXIT_USAGE or JF_EXIT_FAILED (nothing to do). */
int batch_collect(batch *b, cli_settings *s);

/* Run `work` over every item with s->jobs workers, each with its own
 * context.  Returns 0, or JF_EXIT_FAILED if a context could not be made. */
int batch_run(batch *b, batch_work_fn work);

/* Summary line(s), JSON file, exit code. */
int batch_finish(batch *b);

void batch_free(batch *b);

/* Directory walk (walk.c): calls add(b, input, rel) for every candidate image
 * file under `root`, in sorted order, skipping hidden entries, symbolic links
 * to folders and the folder `skip_real`. */
typedef int (*walk_add_fn)(batch *b, const char *path, const char *rel);
int walk_folder(batch *b, const char *root, const char *skip_real, walk_add_fn add);

/* Has an image file name extension (.jpg .jpeg .jpe .jfif .png, any case)? */
int has_image_extension(const char *name);

/* Progress and reporting (report.c) */
void progress_update(batch *b, const batch_item *it);
void progress_clear(void);
int is_terminal_stderr(void);

/* A tiny JSON writer into a growing buffer. */
typedef struct json_buf {
    char *data;
    size_t len, cap;
    int fail;
    int need_comma;
} json_buf;
void json_raw(json_buf *j, const char *text);
void json_key(json_buf *j, const char *key);
void json_str(json_buf *j, const char *key, const char *value);
void json_num(json_buf *j, const char *key, double value);
void json_int(json_buf *j, const char *key, long long value);
void json_open(json_buf *j, const char *key, char bracket);
void json_close(json_buf *j, char bracket);

#endif
