/*
 * The option table: one row per option drives both the parser and --help
 * (name, short letter, argument, help, default, range or choices, and the
 * subcommands it belongs to).
 */
#include "pipeline/cli.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef enum opt_type { OPT_FLAG, OPT_INT, OPT_DOUBLE, OPT_STRING, OPT_CHOICE, OPT_INT64 } opt_type;

typedef struct cli_option {
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
} cli_option;

static const char *const FILTERS[] = {"median", "box", "gauss", "sharpen", "laplace", "conv", NULL};
static const char *const BORDERS[] = {"zero", "replicate", "reflect", "mirror", NULL};
static const char *const BACKENDS[] = {"auto", "cpu", "cuda", NULL};
static const char *const VARIANTS[] = {"auto", "cpu", "global", "shared", "fast", NULL};
static const char *const FORMATS[] = {"same", "png", "jpg", NULL};
static const char *const MEMORIES[] = {"auto", "copy", "managed", NULL};

#define AT(field) offsetof(cli_settings, field)
#define RUN (CMD_DENOISE | CMD_NOISE)
#define FILTERING (CMD_DENOISE)
#define ALL (CMD_DENOISE | CMD_NOISE | CMD_METRICS | CMD_INFO)

static const cli_option OPTIONS[] = {
    {"output", 'o', OPT_STRING, "DIR", "folder for the results (the input tree is mirrored)", NULL, 0, 0, NULL, AT(output), RUN},
    {"filter", 'f', OPT_CHOICE, "NAME", "filter to apply", "median", 0, 0, FILTERS, AT(filter), FILTERING},
    {"ksize", 'k', OPT_INT, "K", "kernel size, odd (default 3; gauss: from --sigma)", "0", 1, JF_MEDIAN_MAX_KSIZE, NULL, AT(ksize), FILTERING},
    {"sigma", 0, OPT_DOUBLE, "S", "Gaussian sigma (default: from -k, else 1.0)", "0", 0.01, 10, NULL, AT(sigma), FILTERING},
    {"kernel", 0, OPT_STRING, "FILE", "weights for --filter conv: k rows of k numbers", NULL, 0, 0, NULL, AT(kernel_file), FILTERING},
    {"border", 'b', OPT_CHOICE, "MODE", "how pixels beyond the edge are made up ('zero' is the seed report's)", "replicate", 0, 0, BORDERS, AT(border), FILTERING},
    {"backend", 0, OPT_CHOICE, "NAME", "where filters run; auto: CUDA if a device is present", "auto", 0, 0, BACKENDS, AT(backend), FILTERING | CMD_METRICS},
    {"device", 0, OPT_INT, "N", "CUDA device index", "0", 0, 64, NULL, AT(device), FILTERING | CMD_METRICS | CMD_BENCH},
    {"variant", 0, OPT_CHOICE, "NAME", "kernel variant", "auto", 0, 0, VARIANTS, AT(variant), FILTERING},
    {"block", 0, OPT_STRING, "WxH", "CUDA block shape (default 32x8; W a multiple of 4)", NULL, 0, 0, NULL, AT(block), FILTERING},
    {"memory", 0, OPT_CHOICE, "MODE", "how images reach the GPU; auto: managed on Jetson, copy elsewhere", "auto", 0, 0, MEMORIES, AT(memory), FILTERING | CMD_METRICS},
    {"peak-gbps", 0, OPT_DOUBLE, "X", "theoretical bandwidth for the percentages (default: the device's)", "0", 0.001, 1e6, NULL, AT(peak_gbps), FILTERING | CMD_METRICS | CMD_INFO | CMD_BENCH},
    {"jobs", 'j', OPT_INT, "N", "files processed at once", "1", 1, 256, NULL, AT(jobs), RUN},
    {"threads", 't', OPT_INT, "N", "CPU threads in all (0: every core)", "0", 0, 1024, NULL, AT(threads), ALL | CMD_BENCH},
    {"quality", 'q', OPT_INT, "Q", "JPEG quality of written files", "92", 1, 100, NULL, AT(quality), RUN},
    {"format", 0, OPT_CHOICE, "FMT", "output format", "same", 0, 0, FORMATS, AT(format), RUN},
    {"suffix", 0, OPT_STRING, "TEXT", "add TEXT to output names (allows writing inside an input folder)", NULL, 0, 0, NULL, AT(suffix), RUN},
    {"skip-existing", 0, OPT_FLAG, NULL, "leave outputs that already exist (resume a run)", NULL, 0, 0, NULL, AT(skip_existing), RUN},
    {"reference", 0, OPT_STRING, "DIR", "clean originals (same relative paths): report PSNR/SSIM of input and output", NULL, 0, 0, NULL, AT(reference), FILTERING},
    {"json", 0, OPT_STRING, "FILE", "write per-file results and a summary as JSON", NULL, 0, 0, NULL, AT(json), RUN},
    {"sizes", 0, OPT_STRING, "LIST", "image sizes WxH,... (default: the seed's five, 1920x1080, 3840x2160, 7680x4320)", NULL, 0, 0, NULL, AT(sizes), CMD_BENCH},
    {"ksizes", 0, OPT_STRING, "LIST", "kernel sizes (default 3,5,7,9,11)", NULL, 0, 0, NULL, AT(ksizes), CMD_BENCH},
    {"filters", 0, OPT_STRING, "LIST", "median,conv (default both)", NULL, 0, 0, NULL, AT(filters), CMD_BENCH},
    {"variants", 0, OPT_STRING, "LIST", "global,shared,fast (default: all; the median has no fast one)", NULL, 0, 0, NULL, AT(variants), CMD_BENCH},
    {"borders", 0, OPT_STRING, "LIST", "border modes (default replicate)", NULL, 0, 0, NULL, AT(borders), CMD_BENCH},
    {"channels", 0, OPT_STRING, "LIST", "1,3 (default 1, as the seed)", NULL, 0, 0, NULL, AT(channels), CMD_BENCH},
    {"backends", 0, OPT_STRING, "LIST", "cpu,cuda (default cuda when present, else cpu)", NULL, 0, 0, NULL, AT(backends), CMD_BENCH},
    {"reps", 0, OPT_INT, "N", "timed repetitions per cell (median, min and max reported)", "30", 1, 100000, NULL, AT(reps), CMD_BENCH},
    {"warmup", 0, OPT_INT, "N", "untimed calls before timing", "3", 0, 1000, NULL, AT(warmup), CMD_BENCH},
    {"photo", 0, OPT_STRING, "FILE", "photo tiled to each size (default samples/images/retina.jpg)", NULL, 0, 0, NULL, AT(photo), CMD_BENCH},
    {"random", 0, OPT_FLAG, NULL, "seeded random pixels instead of a photo", NULL, 0, 0, NULL, AT(random), CMD_BENCH},
    {"energy", 0, OPT_FLAG, NULL, "measure energy per image (each cell runs at least 0.5 s more)", NULL, 0, 0, NULL, AT(energy), CMD_BENCH},
    {"tag", 0, OPT_STRING, "TEXT", "label every result row (e.g. the power mode)", NULL, 0, 0, NULL, AT(tag), CMD_BENCH},
    {"ceiling-mb", 0, OPT_DOUBLE, "MB", "size of the copy that measures the bandwidth ceiling", "1024", 1, 65536, NULL, AT(ceiling_mb), CMD_BENCH},
    {"csv", 0, OPT_STRING, "FILE", "write every cell as CSV", NULL, 0, 0, NULL, AT(csv), CMD_BENCH},
    {"json", 0, OPT_STRING, "FILE", "write metadata and every cell as JSON", NULL, 0, 0, NULL, AT(json), CMD_BENCH},
    {"json", 0, OPT_FLAG, NULL, "print one JSON object instead of text", NULL, 0, 0, NULL, AT(json_flag), CMD_METRICS | CMD_INFO},
    {"stats", 0, OPT_FLAG, NULL, "print per-stage timings and bandwidth at the end", NULL, 0, 0, NULL, AT(stats), FILTERING},
    {"salt-pepper", 0, OPT_DOUBLE, "D", "impulse noise: fraction of pixels set to 0 or 255", "-1", 0, 1, NULL, AT(salt_pepper), CMD_NOISE},
    {"gaussian", 0, OPT_DOUBLE, "SIGMA", "Gaussian noise of this standard deviation (levels)", "-1", 0, 1000, NULL, AT(gaussian), CMD_NOISE},
    {"seed", 0, OPT_INT64, "N", "noise seed (same seed, same noise)", "1", 0, 9.2e18, NULL, AT(seed), CMD_NOISE},
    {"max-mpix", 0, OPT_DOUBLE, "M", "refuse images over M megapixels", "268.435456", 0.000001, 1e6, NULL, AT(max_mpix), ALL | CMD_BENCH},
    {"quiet", 0, OPT_FLAG, NULL, "print errors only", NULL, 0, 0, NULL, AT(quiet), ALL | CMD_BENCH},
    {"verbose", 'v', OPT_FLAG, NULL, "print a line per file", NULL, 0, 0, NULL, AT(verbose), RUN},
    {"help", 'h', OPT_FLAG, NULL, "show this help", NULL, 0, 0, NULL, AT(help), ALL | CMD_BENCH},
};
#define OPTION_COUNT (sizeof OPTIONS / sizeof OPTIONS[0])

static void *field(cli_settings *s, const cli_option *o) { return (char *)s + o->offset; }

/* `checked`: user input is held to the option's range; built-in defaults are not
 * (0 and -1 mean "not given"). */
static int set_value(const char *cmd, cli_settings *s, const cli_option *o, const char *v,
                     int checked)
{
    char *end = NULL;
    int i;
    errno = 0;
    switch (o->type) {
    case OPT_FLAG:
        *(int *)field(s, o) = 1;
        return 0;
    case OPT_STRING:
        *(const char **)field(s, o) = v;
        return 0;
    case OPT_INT:
    case OPT_INT64: {
        long long n = strtoll(v, &end, 10);
        if (end == v || *end || errno ||
            (checked && (n < (long long)o->min || (double)n > o->max))) {
            fprintf(stderr, "jetfilter %s: --%s wants a whole number from %.0f to %.0f, not '%s'\n",
                    cmd, o->name, o->min, o->max, v);
            return JF_EXIT_USAGE;
        }
        if (o->type == OPT_INT)
            *(int *)field(s, o) = (int)n;
        else
            *(long long *)field(s, o) = n;
        return 0;
    }
    case OPT_DOUBLE: {
        double d = strtod(v, &end);
        if (end == v || *end || errno || (checked && !(d >= o->min && d <= o->max))) {
            fprintf(stderr, "jetfilter %s: --%s wants a number from %g to %g, not '%s'\n", cmd,
                    o->name, o->min, o->max, v);
            return JF_EXIT_USAGE;
        }
        *(double *)field(s, o) = d;
        return 0;
    }
    case OPT_CHOICE:
        for (i = 0; o->choices[i]; i++)
            if (strcmp(o->choices[i], v) == 0 ||
                (strcmp(v, "jpeg") == 0 && strcmp(o->choices[i], "jpg") == 0)) {
                *(int *)field(s, o) = i;
                return 0;
            }
        fprintf(stderr, "jetfilter %s: --%s wants one of", cmd, o->name);
        for (i = 0; o->choices[i]; i++)
            fprintf(stderr, "%s %s", i ? "," : "", o->choices[i]);
        fprintf(stderr, "; not '%s'\n", v);
        return JF_EXIT_USAGE;
    }
    return JF_EXIT_USAGE;
}

static const cli_option *find_long(int command, const char *name, size_t len)
{
    size_t i;
    for (i = 0; i < OPTION_COUNT; i++)
        if ((OPTIONS[i].commands & command) && strlen(OPTIONS[i].name) == len &&
            strncmp(OPTIONS[i].name, name, len) == 0)
            return &OPTIONS[i];
    return NULL;
}

static const cli_option *find_short(int command, char letter)
{
    size_t i;
    for (i = 0; i < OPTION_COUNT; i++)
        if ((OPTIONS[i].commands & command) && OPTIONS[i].letter == letter)
            return &OPTIONS[i];
    return NULL;
}

int cli_parse(int command, const char *cmd, int argc, char **argv, cli_settings *s)
{
    size_t i;
    int a, rc, only_positional = 0;

    memset(s, 0, sizeof *s);
    for (i = 0; i < OPTION_COUNT; i++)
        if ((OPTIONS[i].commands & command) && OPTIONS[i].def &&
            (rc = set_value(cmd, s, &OPTIONS[i], OPTIONS[i].def, 0)) != 0)
            return rc;
    s->inputs = (const char **)calloc((size_t)argc + 1, sizeof *s->inputs);
    if (!s->inputs) {
        fprintf(stderr, "jetfilter: out of memory\n");
        return JF_EXIT_USAGE;
    }
    for (a = 0; a < argc; a++) {
        const char *arg = argv[a];
        const cli_option *o = NULL;
        const char *value = NULL;
        if (only_positional || arg[0] != '-' || arg[1] == '\0') {
            s->inputs[s->input_count++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_positional = 1;
            continue;
        }
        if (arg[1] == '-') {
            const char *eq = strchr(arg + 2, '=');
            size_t len = eq ? (size_t)(eq - (arg + 2)) : strlen(arg + 2);
            o = find_long(command, arg + 2, len);
            if (!o) {
                fprintf(stderr, "jetfilter %s: unknown option '%.*s' (see jetfilter %s --help)\n",
                        cmd, (int)(len + 2), arg, cmd);
                return JF_EXIT_USAGE;
            }
            if (eq) {
                if (o->type == OPT_FLAG) {
                    fprintf(stderr, "jetfilter %s: --%s takes no value\n", cmd, o->name);
                    return JF_EXIT_USAGE;
                }
                value = eq + 1;
            }
        } else {
            o = find_short(command, arg[1]);
            if (!o) {
                fprintf(stderr, "jetfilter %s: unknown option '-%c' (see jetfilter %s --help)\n",
                        cmd, arg[1], cmd);
                return JF_EXIT_USAGE;
            }
            if (arg[2]) {
                if (o->type == OPT_FLAG) {
                    fprintf(stderr, "jetfilter %s: -%c takes no value\n", cmd, arg[1]);
                    return JF_EXIT_USAGE;
                }
                value = arg + 2;
            }
        }
        if (o->type != OPT_FLAG && !value) {
            if (a + 1 >= argc) {
                fprintf(stderr, "jetfilter %s: --%s needs a value (%s)\n", cmd, o->name, o->arg);
                return JF_EXIT_USAGE;
            }
            value = argv[++a];
        }
        if ((rc = set_value(cmd, s, o, value, 1)) != 0)
            return rc;
    }
    return 0;
}

void cli_help(FILE *out, int command, const char *cmd)
{
    size_t i;
    int j;
    static const struct { int command; const char *usage; const char *what; } USAGE[] = {
        {CMD_DENOISE, "denoise INPUT... -o OUTDIR [options]",
         "Filter every JPEG and PNG in the given files and folders (recursively) into\n"
         "OUTDIR, mirroring the input tree.  Inputs are never modified; outputs appear\n"
         "only when complete.  Exit status: 0 all done, 1 some inputs failed, 2 usage."},
        {CMD_NOISE, "noise INPUT... -o OUTDIR (--salt-pepper D | --gaussian SIGMA) [--seed N]",
         "Write noisy copies of images, reproducibly, to make test data."},
        {CMD_METRICS, "metrics A B [--json]",
         "PSNR (dB), SSIM (Wang et al. 2004) and MSE of image B against image A."},
        {CMD_INFO, "info [--json]", "Version, backends, CPU threads and CUDA devices."},
        {CMD_BENCH, "bench [--sizes LIST] [--ksizes LIST] [--csv FILE] [--json FILE] [options]",
         "Time median and convolution over image sizes x kernel sizes x variants (and\n"
         "NPP where built), each cell verified against the CPU reference; report ms,\n"
         "Mpix/s, effective bandwidth against the theoretical figure and the measured\n"
         "copy ceiling, and with --energy the energy per image."},
    };
    for (j = 0; j < (int)(sizeof USAGE / sizeof USAGE[0]); j++)
        if (USAGE[j].command == command)
            fprintf(out, "usage: jetfilter %s\n\n%s\n\noptions:\n", USAGE[j].usage, USAGE[j].what);
    (void)cmd;
    for (i = 0; i < OPTION_COUNT; i++) {
        const cli_option *o = &OPTIONS[i];
        char left[64];
        if (!(o->commands & command))
            continue;
        if (o->letter)
            snprintf(left, sizeof left, "-%c, --%s%s%s", o->letter, o->name, o->arg ? " " : "",
                     o->arg ? o->arg : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", o->name, o->arg ? " " : "",
                     o->arg ? o->arg : "");
        fprintf(out, "  %-26s %s", left, o->help);
        if (o->type == OPT_CHOICE) {
            fprintf(out, " [");
            for (j = 0; o->choices[j]; j++)
                fprintf(out, "%s%s", j ? "|" : "", o->choices[j]);
            fprintf(out, "; default %s]", o->def);
        } else if (o->def && o->type != OPT_FLAG && strcmp(o->def, "0") != 0 &&
                   strcmp(o->def, "-1") != 0) {
            fprintf(out, " [default %s]", o->def);
        }
        fputc('\n', out);
    }
}
