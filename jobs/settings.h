/* The settings of jetfilter's commands: one table of options (name,
 * letter, argument, help, default, range or choices, the commands it
 * belongs to, an environment variable), read by the command line from argv
 * and by the library's jobs (jf_job_set) by name; the operation's
 * parameters come from the operation table (filters/ops.c). */
#ifndef JF_JOBS_SETTINGS_H
#define JF_JOBS_SETTINGS_H

#include "jetfilter.h"
#include "filters/ops.h"

#include <stddef.h>

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
    CMD_BENCH = 1 << 4,
    CMD_REPORT = 1 << 5,
    CMD_STREAM = 1 << 6,
    CMD_CALIBRATE = 1 << 7,
    CMD_SERVE = 1 << 8
};

/* --format, in the order of its names (job_out_formats) */
typedef enum out_format { OUT_SAME, OUT_PNG, OUT_JPEG, OUT_TIFF, OUT_WEBP, OUT_PFM } out_format;

#define JOB_MAX_PARAMS 24
#define JOB_MAX_DEVICES 64

/* Everything the command line can set; the option table fills it. */
typedef struct job_settings {
    const char *output;
    /* the operation's parameters, as given (lists for the bench): one text
     * per row of job_params(), and the operation (--filter) */
    const char *filter;
    const char *param[JOB_MAX_PARAMS];
    unsigned char param_given[JOB_MAX_PARAMS]; /* on the command line or from the environment, not a default */
    const jf_op *noise_op;   /* noise: --salt-pepper or --gaussian */
    double noise_amount;
    const char *backend;     /* a name, or a list (bench) */
    const char *device_text; /* --device as given: N, a list, or "all" */
    int device;              /* the first (bench, metrics: the only) device */
    int devices[JOB_MAX_DEVICES]; /* denoise: every device named (device_all: found at run time) */
    int device_count;
    int device_all;
    const char *shard;       /* --shard INDEX/COUNT or auto */
    int memory;              /* jf_memory */
    int codec;               /* jf_codec */
    double peak_gbps;
    int jobs;
    int threads;
    int quality;
    int png_level;           /* 0..9 */
    int png_filter;          /* index in jf_png_filter_names + 1 */
    int tiff_compression;    /* jf_tiff_compression */
    int webp_mode;           /* jf_webp_mode */
    int format;              /* out_format */
    int format_given;        /* --format on the command line (not the default) */
    int depth;               /* 0: as the input, 1: 8 bits, 2: 16 bits, 3: float32 */
    int cmyk_to_rgb;         /* CMYK JPEG to a PNG: convert (else refused) */
    int skip_existing;
    int max_depth;           /* folders walked at most this deep */
    const char *reference;
    /* stream */
    const char *input;       /* -i FILE or "-" */
    int planes;              /* 0 all, 1 luma */
    const char *raw;         /* --raw WxH */
    const char *pix_fmt;
    const char *json;        /* file, or "-" for standard output */
    int quiet;
    int verbose;
    int stats;
    const char *suffix;
    double max_mpix;
    double max_memory_mb;    /* 0: half the RAM */
    double max_metadata_mb;
    int max_scans;
    int max_markers;
    int max_pages;
    int no_sync;
    int trust_input;         /* --trust-input: nvJPEG's output not checked by libjpeg-turbo */
    int force;               /* replace a report or table jetfilter did not write */
    long long seed;
    /* bench */
    const char *sizes, *channels, *csv, *photo, *tag;
    const char *depths;      /* --depth 8,16 */
    int reps, warmup, random, energy;
    int quick;               /* calibrate --quick */
    double impulses;
    double ceiling_mb;
    double max_request_mb;   /* serve: the longest request line */
    int help;
    /* positional arguments */
    const char **inputs;
    int input_count;
} job_settings;

typedef enum opt_type {
    OPT_FLAG, OPT_INT, OPT_DOUBLE, OPT_STRING, OPT_CHOICE, OPT_INT64,
    OPT_NAMES,  /* a name, or a comma list of names (bench), from `choices` */
    OPT_OPS,    /* operation names, one or a list */
    OPT_PARAM,  /* an operation parameter, one value or a list, checked by its row */
    OPT_NOISE,  /* --salt-pepper D, --gaussian SIGMA: picks the noise operation */
    OPT_JSON    /* a file; in metrics and info also a bare flag (standard output) */
} opt_type;

/* One option (several rows may share a name, each for other commands). */
typedef struct job_option {
    const char *name;
    char letter;
    opt_type type;
    const char *arg;
    const char *help;
    const char *def; /* applied before parsing; NULL: zero */
    double min, max;
    const char *const *choices;
    size_t offset;
    int commands;
    const char *alias_of;      /* an old spelling of this option */
    int param;                 /* OPT_PARAM: index in the parameter table (job_params) */
    const jf_op *op;           /* OPT_NOISE: the operation */
    const char *env;           /* an environment variable that sets the default */
} job_option;

/* Every row, built once from the table and the operations. */
const job_option *job_options(int *count);
/* The row of `command` named `name` (len bytes), or of letter `letter`; NULL: none. */
const job_option *job_option_long(int command, const char *name, size_t len);
const job_option *job_option_short(int command, char letter);

/* Settings of `command` (`cmd`: its name, in messages) before any option:
 * every default, then the environment's (JETFILTER_THREADS, ...), held to
 * the options' rules.  `inputs` room for `max_inputs` positional inputs is
 * allocated (free(s->inputs)).  0, or a message and JF_EXIT_USAGE. */
int job_settings_init(int command, const char *cmd, job_settings *s, int max_inputs);
/* One option's value, checked (NULL for a flag).  0, or a message and JF_EXIT_USAGE. */
int job_option_set(const char *cmd, job_settings *s, const job_option *o, const char *value);
/* After the options: what they imply together (the device list; --quiet
 * and --verbose refused together).  0, or a message and JF_EXIT_USAGE. */
int job_settings_finish(int command, const char *cmd, job_settings *s);

/* An option as the documentation shows it (job_option_views). */
typedef struct job_option_view {
    const char *name;
    char letter;
    const char *arg;             /* NULL: a flag */
    const char *help;
    const char *def;             /* NULL: none worth showing */
    const char *const *choices;  /* NULL-terminated, or NULL */
    const char *env;             /* environment variable that sets the default, or NULL */
    int path;                    /* its value is a file or folder name */
    int number;                  /* 0: not a number; 1: an integer; 2: a real */
    double min, max;             /* a number's range, both ends allowed */
} job_option_view;
int job_option_views(int command, job_option_view *out, int max);

/* The operation's arguments from the settings: one value per parameter
 * that op takes, set by the table's rules (a list, or a value outside op's
 * range, is refused with a usage message naming `cmd`).  Returns 0 or
 * JF_EXIT_USAGE. */
int job_op_args(const char *cmd, const job_settings *s, const jf_op *op, jf_op_args *args);

/* The operations' parameters as the command line knows them (one per name,
 * ranges widened over every operation); settings.param[i] holds row i's text. */
const jf_param_def *job_params(int *count);

/* The text of parameter `name` ("ksize", "border", ...), or NULL. */
const char *job_param(const job_settings *s, const char *name);

/* Split a comma list into at most `max` tokens of `buf` (modified). */
int job_split(char *buf, char **tokens, int max);

/* The operation of --filter with its parameters and --block, resolved
 * once into run->plan; a usage message naming `cmd` and JF_EXIT_USAGE when
 * something does not fit. */
struct job_run;
int job_plan_filter(const char *cmd, job_settings *s, struct job_run *run);

/* The context a one-context command (metrics, stream) asks for:
 * --backend, --device, --threads, --memory, --peak-gbps. */
jf_context_options job_context_options(const job_settings *s);

#endif
