/* Internal to the jetfilter command-line tool. */
#ifndef JF_PIPELINE_CLI_H
#define JF_PIPELINE_CLI_H

#include "jetfilter.h"

#include <stdio.h>

/* Exit codes */
#define JF_EXIT_OK 0     /* everything succeeded */
#define JF_EXIT_FAILED 1 /* some inputs failed */
#define JF_EXIT_USAGE 2  /* bad command line */

/* Subcommands, as bits so an option can belong to several. */
enum {
    CMD_DENOISE = 1 << 0,
    CMD_NOISE = 1 << 1,
    CMD_METRICS = 1 << 2,
    CMD_INFO = 1 << 3,
    CMD_BENCH = 1 << 4
};

typedef enum filter_kind {
    FILTER_MEDIAN, FILTER_BOX, FILTER_GAUSS, FILTER_SHARPEN, FILTER_LAPLACE, FILTER_CONV
} filter_kind;

typedef enum out_format { OUT_SAME, OUT_PNG, OUT_JPEG } out_format;

/* Everything the command line can set; the option table fills it. */
typedef struct cli_settings {
    const char *output;
    int filter;      /* filter_kind */
    int ksize;       /* 0: the filter's default */
    double sigma;
    const char *kernel_file;
    int border;      /* jf_border */
    int backend;     /* jf_backend */
    int device;
    int variant;     /* jf_variant */
    int memory;      /* jf_memory */
    double peak_gbps;
    const char *block; /* "WxH" */
    int block_x, block_y;
    int jobs;
    int threads;
    int quality;
    int format;      /* out_format */
    int skip_existing;
    const char *reference;
    const char *json;      /* denoise/noise: file; metrics: flag via json_flag */
    int json_flag;
    int quiet;
    int verbose;
    int stats;
    const char *suffix;
    double max_mpix;
    double salt_pepper;    /* < 0: not given */
    double gaussian;       /* < 0: not given */
    long long seed;
    /* bench */
    const char *sizes, *ksizes, *filters, *variants, *borders, *channels, *backends;
    const char *csv, *photo, *tag;
    int reps, warmup, random, energy;
    double ceiling_mb;
    int help;
    int version;
    /* positional arguments */
    const char **inputs;
    int input_count;
} cli_settings;

/* Parse argv (after the subcommand) into s.  Returns 0, or prints one line
 * naming the problem and returns JF_EXIT_USAGE. */
int cli_parse(int command, const char *command_name, int argc, char **argv, cli_settings *s);

/* Print the help of one subcommand, generated from the option table. */
void cli_help(FILE *out, int command, const char *command_name);

/* Subcommands */
int cli_denoise(cli_settings *s);
int cli_noise(cli_settings *s);
int cli_metrics(cli_settings *s);
int cli_info(cli_settings *s);
int cli_bench(cli_settings *s);

/* Logging to stderr (clears the progress line first). */
void cli_log(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
extern int cli_quiet;
extern int cli_argc;     /* the command line, for bench's metadata */
extern char **cli_argv;

#endif
