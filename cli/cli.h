/* Internal to the jetfilter command-line tool: settings, the option parser,
 * the commands, and reporting helpers. */
#ifndef JF_CLI_CLI_H
#define JF_CLI_CLI_H

#include "jetfilter.h"
#include "filters/ops.h"
#include "pipeline/codec_choice.h"

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
    CMD_BENCH = 1 << 4,
    CMD_REPORT = 1 << 5,
    CMD_STREAM = 1 << 6,
    CMD_CALIBRATE = 1 << 7,
    CMD_SERVE = 1 << 8
};

typedef enum out_format { OUT_SAME, OUT_PNG, OUT_JPEG } out_format;

#define CLI_MAX_PARAMS 16
#define CLI_MAX_DEVICES 64

/* Everything the command line can set; the option table fills it. */
typedef struct cli_settings {
    const char *output;
    /* the operation's parameters, as given (lists for the bench): one text
     * per row of cli_params(), and the operation (--filter) */
    const char *filter;
    const char *param[CLI_MAX_PARAMS];
    unsigned char param_given[CLI_MAX_PARAMS]; /* on the command line or from the environment, not a default */
    const jf_op *noise_op;   /* noise: --salt-pepper or --gaussian */
    double noise_amount;
    const char *backend;     /* a name, or a list (bench) */
    const char *device_text; /* --device as given: N, a list, or "all" */
    int device;              /* the first (bench, metrics: the only) device */
    int devices[CLI_MAX_DEVICES]; /* denoise: every device named (device_all: found at run time) */
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
    int format;              /* out_format */
    int format_given;        /* --format on the command line (not the default) */
    int depth;               /* 0: as the input, 1: 8 bits, 2: 16 bits */
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
} cli_settings;

/* The commands (commands.c): one row each, for main, --help, the man page
 * and the completions. */
typedef struct cli_command {
    const char *name;
    int bit;
    int (*run)(struct cli_settings *s);
    const char *summary;     /* one line, for the list of commands */
    const char *usage;       /* after "jetfilter NAME " */
    const char *details;     /* more lines of --help (NULL: none) */
    const char *exit_status; /* what the exit codes mean (NULL: the usual 0, 1, 2) */
} cli_command;
extern const cli_command cli_commands[];
extern const int cli_command_count;
const cli_command *cli_command_of(int bit);

/* An option as the documentation shows it (cli_option_views). */
typedef struct cli_option_view {
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
} cli_option_view;
int cli_option_views(int command, cli_option_view *out, int max);

/* The man page and the bash and zsh completions, from the tables (doc.c). */
void cli_doc_man(FILE *out);
void cli_doc_bash(FILE *out);
void cli_doc_zsh(FILE *out);

/* Parse argv (after the subcommand) into s.  Returns 0, or prints one line
 * naming the problem and returns JF_EXIT_USAGE. */
int cli_parse(int command, const char *command_name, int argc, char **argv, cli_settings *s);

/* Print the help of one subcommand, generated from the option table and
 * the operation table. */
void cli_help(FILE *out, int command, const char *command_name);

/* The operation's arguments from the settings: one value per parameter
 * that op takes, set by the table's rules (a list, or a value outside op's
 * range, is refused with a usage message naming `cmd`).  Returns 0 or
 * JF_EXIT_USAGE. */
int cli_op_args(const char *cmd, const cli_settings *s, const jf_op *op, jf_op_args *args);

/* The operations' parameters as the command line knows them (one per name,
 * ranges widened over every operation); settings.param[i] holds row i's text. */
const jf_param_def *cli_params(int *count);

/* The text of parameter `name` ("ksize", "border", ...), or NULL. */
const char *cli_param(const cli_settings *s, const char *name);

/* Split a comma list into at most `max` tokens of `buf` (modified). */
int cli_split(char *buf, char **tokens, int max);

/* The operation of --filter with its parameters and --block, resolved
 * once into run->plan; a usage message naming `cmd` and JF_EXIT_USAGE when
 * something does not fit. */
struct cli_run;
int cli_plan_filter(const char *cmd, cli_settings *s, struct cli_run *run);

/* Subcommands (one file each) */
int cli_denoise(cli_settings *s);
int cli_noise(cli_settings *s);
int cli_metrics(cli_settings *s);
int cli_info(cli_settings *s);
int cli_bench(cli_settings *s);
int cli_report(cli_settings *s);
int cli_stream(cli_settings *s);
int cli_calibrate(cli_settings *s);
int cli_serve(cli_settings *s);

/* One command line as `jetfilter ARGS...` runs it (argv[0] the program),
 * its exit status returned: main() calls it once, serve once a request. */
int cli_dispatch(int argc, char **argv);

/* Tuning profiles (cli/calibrate.c): the folder ($XDG_CACHE_HOME/jetfilter,
 * else ~/.cache/jetfilter; 0 when neither is set), pointing the library at
 * it for the current power mode, and what a context on `device` uses: its
 * path, or "none" and why, in `out`. */
int cli_profile_dir(char *out, size_t n);
void cli_use_profiles(void);
/* The power mode (calib/power.h), read once per process: on a Jetson that
 * runs `nvpmodel -q`. */
struct jf_power_mode;
const struct jf_power_mode *cli_power_mode(void);
const char *cli_profile_status(int device, char *out, size_t n);

struct jf_batch;
struct jf_batch_item;

/* What a batch command carries through the batch (jf_batch.user). */
typedef struct cli_run {
    cli_settings *s;
    const char *verb;     /* "denoise", "noise" */
    jf_op_plan plan;      /* the operation, resolved once */
    int device_input_ok;  /* the work takes a decoded image in device memory (nvJPEG) */
    int codec_chosen;     /* --codec auto decided by the cost model: */
    jf_codec_choice codec_choice; /* what it predicted, for -v and --json */
} cli_run;

/* Batch callbacks and the end of a batch (report.c): a line per file with
 * -v, failures always, the progress line on a terminal; then the summary,
 * --stats and --json.  Returns the exit code. */
void cli_batch_done(struct jf_batch *b, struct jf_batch_item *it);
void cli_batch_log(struct jf_batch *b, int verbose_only, const char *message);
int cli_batch_finish(struct jf_batch *b);
void cli_progress_clear(void);

/* Means of PSNR/SSIM against the references over the files that had one
 * (one infinite PSNR, identical images, makes its mean infinite): summed
 * per file, logged as one line, written into a JSON summary. */
typedef struct cli_ref_means {
    int refs, pin_inf, pout_inf;
    double pin, pout, sin, sout;
} cli_ref_means;
struct json_buf;
void cli_ref_means_add(cli_ref_means *m, double psnr_in, double psnr_out, double ssim_in,
                       double ssim_out);
void cli_ref_means_log(const cli_ref_means *m);
void cli_ref_means_json(struct json_buf *j, const cli_ref_means *m);

/* "operation": its name, and "parameters": every parameter's resolved value,
 * typed (numbers as numbers, defaults filled in), as the reports write them. */
void cli_json_operation(struct json_buf *j, const jf_op_plan *plan);

/* How an output of this picture is written (format, quality, PNG settings). */
jf_encode_options cli_encode_options(const cli_settings *s, const jf_picture *pic);

/* The steps of a batch command (batch_run.c): read and decode one input,
 * encode and write one output (stats and notes into the item), and the
 * whole batch: collect, run, report; returns the exit code. */
jf_status cli_read_input(struct jf_batch_item *it, jf_picture *pic, jf_context *ctx);
/* What was left out or is doubtful on the way, for -v and the JSON report. */
void cli_item_note(struct jf_batch_item *it, const char *note);
jf_status cli_write_output(struct jf_batch_item *it, const cli_settings *s, jf_picture *pic,
                           jf_context *ctx);
int cli_batch(cli_settings *s, cli_run *run,
              jf_status (*work)(struct jf_batch *b, struct jf_batch_item *it, jf_context *ctx));

/* An error: printed as cli_log prints, and the first of a command line
 * kept (serve's answers carry it); cli_error_reset() forgets it. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
const char *cli_error_first(void);
void cli_error_reset(void);

/* Logging to stderr (clears the progress line first); names are printed
 * with control bytes escaped. */
void cli_log(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
extern int cli_quiet;

/* How far a batch is, for what an interrupt (Ctrl-C) says before the
 * process ends (cli/main.c). */
void cli_interrupt_progress(int done, int total);
/* That line, made without stdio (a signal handler calls it); 0 when no
 * batch runs or --quiet.  From the call on, cli_error and cli_log print
 * nothing (the process is ending). */
size_t cli_interrupt_line(char line[256]);
extern int cli_argc;     /* the command line, for the bench's metadata */
extern char **cli_argv;

/* The --stats table: its header (`per`: the title of the per-call or
 * per-frame column) and one row (effective GB/s and % of peak from the
 * bytes, "-" where unknown). */
void cli_stage_header(const char *per);
void cli_stage_row(const char *name, unsigned long long calls, double ms, double per_ms,
                   double bytes, double peak_gbps);

/* The context a one-context command (metrics, stream) asks for:
 * --backend, --device, --threads, --memory, --peak-gbps. */
jf_context_options cli_context_options(const cli_settings *s);

/* The files a command writes, checked together before any work
 * (outputs.c): never an input (whatever path reaches it), never two outputs
 * in one file, folders that exist and are writable, and a report, table or
 * profile that already exists replaced only when jetfilter wrote it (or
 * with --force).  Prints why and returns JF_EXIT_USAGE, or 0. */
typedef enum cli_out_kind {
    CLI_OUT_REPORT,  /* --json: ours when it opens with {"jetfilter": */
    CLI_OUT_TABLE,   /* --csv: ours when it opens with the bench's header */
    CLI_OUT_PROFILE, /* calibrate -o */
    CLI_OUT_IMAGE,   /* an image written atomically; may replace an older output */
    CLI_OUT_STREAM,  /* a stream written atomically; may replace an older output */
    CLI_OUT_LOG      /* appended to (serve's "stdout" and "stderr"): any file but an image */
} cli_out_kind;
typedef struct cli_output {
    const char *option; /* "--json", "-o" */
    const char *path;   /* NULL: not given; "-": standard output */
    cli_out_kind kind;
} cli_output;
#define CLI_MAX_OUTPUTS 6
typedef struct cli_outputs {
    const char *cmd;
    const char *const *inputs; /* files and folders the command reads ("-" and NULL skipped) */
    int input_count;
    cli_output out[CLI_MAX_OUTPUTS];
    int count;
    int force;
} cli_outputs;
int cli_outputs_check(const cli_outputs *o);

/* Every file or folder a parsed command line reads (its positional
 * inputs, --reference, -i, --kernel, --photo), at most max into out; how
 * many. */
#define CLI_MAX_INPUTS_LISTED 4100
int cli_inputs_of(const cli_settings *s, const char **out, int max);
/* How the bench's CSV starts (its first fields), so it is known as ours. */
#define CLI_CSV_FIRST_FIELDS "tag,backend,width,height,"

/* Write `text` to the --json target ("-": standard output). */
int cli_json_write(const char *path, const char *text, size_t len);

#endif
