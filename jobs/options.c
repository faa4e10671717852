/*
 * The option table: one row per option drives the command line's parser,
 * the library's jobs (jf_job_set, by name) and --help
 * (name, short letter, argument, help, default, range or choices, and the
 * subcommands it belongs to).  The filter parameters (-k, --sigma, --kernel,
 * -b, --variant) and the noise options come from the operation table
 * (filters/ops.c), so a new operation's options need no change here.
 *
 * One word for one idea: an option that the bench sweeps takes a list
 * (`--ksize 3,5,7`) there and one value elsewhere.  The bench's old plural
 * spellings (--sizes, --ksizes, --filters, ...) are aliases for one release.
 */
#include "jobs/jobs.h"
#include "core/names.h"
#include "core/parse.h"
#include "io/io.h"

#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const FORMATS[] = {"same", "png", "jpg", "tif", "webp", "pfm", NULL};
static const char *const TIFF_COMPRESSIONS[] = {"same", "none", "lzw", "deflate", "packbits", NULL};
static const char *const WEBP_MODES[] = {"same", "lossy", "lossless", NULL};
static const char *const DEPTHS[] = {"same", "8", "16", "float", NULL};

#define AT(field) offsetof(job_settings, field)
#define STRINGIFY(x) #x
#define TO_STRING(x) STRINGIFY(x)
#define PNG_LEVEL TO_STRING(JF_PNG_DEFAULT_LEVEL)
#define RUN (CMD_DENOISE | CMD_NOISE)
#define ALL (CMD_DENOISE | CMD_NOISE | CMD_METRICS | CMD_INFO | CMD_BENCH)
#define FILTERS (CMD_DENOISE | CMD_STREAM) /* commands that run one filter */
static const char *const PLANES[] = {"all", "luma", NULL};

static const job_option GENERIC[] = {
    {"output", 'o', OPT_STRING, "OUT", "where results go: a folder (the input tree is mirrored; made if missing), or for one input a file (format from its .png/.jpg/.tif/.webp/.pfm name) or '-' (standard output)", NULL, 0, 0, NULL, AT(output), RUN, NULL, 0, NULL},
    {"filter", 'f', OPT_OPS, "NAME", "filter to apply (default median; bench: a list, default median,conv)", NULL, 0, 0, NULL, AT(filter), FILTERS | CMD_BENCH, NULL, 0, NULL},
    {"backend", 0, OPT_NAMES, "NAME", "where filters run: auto (CUDA if a device is present), cpu, cuda (bench: a list)", NULL, 0, 0, jf_backend_names, AT(backend), FILTERS | CMD_METRICS | CMD_BENCH, NULL, 0, NULL, "JETFILTER_BACKEND"},
    {"device", 0, OPT_STRING, "N", "CUDA device index (denoise: also a list 0,2 or 'all': jobs spread over them)", NULL, 0, 0, NULL, AT(device_text), FILTERS | CMD_METRICS | CMD_BENCH | CMD_CALIBRATE, NULL, 0, NULL, "JETFILTER_DEVICE"},
    {"memory", 0, OPT_CHOICE, "MODE", "how images reach the GPU; auto: managed on Jetson, copy elsewhere", "auto", 0, 0, jf_memory_names, AT(memory), FILTERS | CMD_METRICS | CMD_BENCH, NULL, 0, NULL},
    {"codec", 0, OPT_CHOICE, "NAME", "JPEG codecs: auto (the GPU's where measured costs predict the batch done sooner with them, else the CPU's; -v says which), cpu (libjpeg-turbo), nvjpeg (NVIDIA nvJPEG: hardware engine, else its hybrid decoder)", "auto", 0, 0, jf_codec_names, AT(codec), CMD_DENOISE, NULL, 0, NULL},
    {"peak-gbps", 0, OPT_DOUBLE, "X", "theoretical bandwidth for the percentages (default: the device's)", "0", 0.001, 1e6, NULL, AT(peak_gbps), FILTERS | CMD_METRICS | CMD_INFO | CMD_BENCH, NULL, 0, NULL},
    {"jobs", 'j', OPT_INT, "N", "files processed at once", "1", 1, 256, NULL, AT(jobs), RUN, NULL, 0, NULL},
    {"threads", 't', OPT_INT, "N", "CPU threads in all (0: every core)", "0", 0, 1024, NULL, AT(threads), ALL | CMD_STREAM | CMD_CALIBRATE, NULL, 0, NULL, "JETFILTER_THREADS"},
    {"quality", 'q', OPT_INT, "Q", "JPEG and lossy WebP quality of written files", "92", 1, 100, NULL, AT(quality), RUN, NULL, 0, NULL},
    {"png-level", 0, OPT_INT, "N", "zlib level of written PNGs and deflate TIFFs: 0 stores, 9 is smallest and slowest", PNG_LEVEL, 0, 9, NULL, AT(png_level), RUN, NULL, 0, NULL},
    {"png-filter", 0, OPT_CHOICE, "F", "row filter of written PNGs (adaptive: libpng tries all five per row; smaller, slower)", JF_PNG_DEFAULT_FILTER_NAME, 0, 0, jf_png_filter_names + 1, AT(png_filter), RUN, NULL, 0, NULL},
    {"tiff-compression", 0, OPT_CHOICE, "C", "compression of written TIFFs (same: a TIFF input's own, else deflate; LZW and deflate with the horizontal predictor)", "same", 0, 0, TIFF_COMPRESSIONS, AT(tiff_compression), RUN, NULL, 0, NULL},
    {"webp", 0, OPT_CHOICE, "MODE", "written WebPs lossy (at --quality) or lossless (same: lossless when the input was a lossless WebP)", "same", 0, 0, WEBP_MODES, AT(webp_mode), RUN, NULL, 0, NULL},
    {"format", 0, OPT_CHOICE, "FMT", "output format (same: each input's; with -o FILE, its name's)", "same", 0, 0, FORMATS, AT(format), CMD_DENOISE, NULL, 0, NULL},
    {"format", 0, OPT_CHOICE, "FMT", "output format: png keeps the noise exact; JPEG's compression would blur it (same: each input's)", "png", 0, 0, FORMATS, AT(format), CMD_NOISE, NULL, 0, NULL},
    {"depth", 0, OPT_CHOICE, "BITS", "sample depth of written files: same (16-bit PNGs stay 16-bit), 8 (nearest level: (v + 128) / 257), 16 (v * 257), float (float32: v / 255 or v / 65535; floats to 8 or 16 bits: v * 255 or v * 65535, clamped, NaN 0); JPEG holds 8, PNG integers, PFM floats (made float32 from any input)", "same", 0, 0, DEPTHS, AT(depth), RUN, NULL, 0, NULL},
    {"cmyk-to-rgb", 0, OPT_FLAG, NULL, "write CMYK JPEGs as RGB when the output is PNG: (255 - C)(255 - K) / 255 per channel, no print profile (else refused: PNG has no CMYK)", NULL, 0, 0, NULL, AT(cmyk_to_rgb), RUN, NULL, 0, NULL},
    {"suffix", 0, OPT_STRING, "TEXT", "add TEXT to output names (allows writing inside an input folder)", NULL, 0, 0, NULL, AT(suffix), RUN, NULL, 0, NULL},
    {"shard", 0, OPT_STRING, "I/N", "process only shard I of N (from 0) of the inputs, by a hash of each path; 'auto': from Slurm or Kubernetes", NULL, 0, 0, NULL, AT(shard), RUN, NULL, 0, NULL},
    {"output", 'o', OPT_STRING, "FILE", "write the merged report to FILE ('-': standard output)", NULL, 0, 0, NULL, AT(output), CMD_REPORT, NULL, 0, NULL},
    {"output", 'o', OPT_STRING, "FILE", "write the profile to FILE (default: $XDG_CACHE_HOME/jetfilter/, else ~/.cache/jetfilter/, named after the device and power mode, where `auto` finds it)", NULL, 0, 0, NULL, AT(output), CMD_CALIBRATE, NULL, 0, NULL},
    {"quick", 0, OPT_FLAG, NULL, "a small grid (one 640x480 grey size, k = 3, 5, 7, default blocks): seconds, for tests", NULL, 0, 0, NULL, AT(quick), CMD_CALIBRATE, NULL, 0, NULL},
    {"input", 'i', OPT_STRING, "FILE", "Y4M stream to read ('-': standard input)", "-", 0, 0, NULL, AT(input), CMD_STREAM, NULL, 0, NULL},
    {"output", 'o', OPT_STRING, "FILE", "stream to write ('-': standard output; a file appears only when complete)", "-", 0, 0, NULL, AT(output), CMD_STREAM, NULL, 0, NULL},
    {"planes", 0, OPT_CHOICE, "P", "planes to filter: all (each plane bordered at its own edges), or luma (chroma passes unchanged)", "all", 0, 0, PLANES, AT(planes), CMD_STREAM, NULL, 0, NULL},
    {"raw", 0, OPT_STRING, "WxH", "headerless frames of this size in and out, instead of Y4M", NULL, 0, 0, NULL, AT(raw), CMD_STREAM, NULL, 0, NULL},
    {"pix-fmt", 0, OPT_STRING, "FMT", "pixel format of --raw frames: gray, rgb24, yuv420p, yuv422p, yuv444p", NULL, 0, 0, NULL, AT(pix_fmt), CMD_STREAM, NULL, 0, NULL},
    {"reference", 0, OPT_STRING, "FILE", "clean stream of the same layout: PSNR/SSIM of every output frame against it", NULL, 0, 0, NULL, AT(reference), CMD_STREAM, NULL, 0, NULL},
    {"max-depth", 0, OPT_INT, "N", "folders nested deeper than N under an input are failures, named", "64", 1, 100000, NULL, AT(max_depth), RUN, NULL, 0, NULL},
    {"skip-existing", 0, OPT_FLAG, NULL, "leave outputs that already exist (resume a run)", NULL, 0, 0, NULL, AT(skip_existing), RUN, NULL, 0, NULL},
    {"reference", 0, OPT_STRING, "DIR", "clean originals (same relative paths): report PSNR/SSIM of input and output", NULL, 0, 0, NULL, AT(reference), CMD_DENOISE, NULL, 0, NULL},
    {"json", 0, OPT_JSON, "FILE", "write the results as JSON to FILE ('-': standard output)", NULL, 0, 0, NULL, AT(json), ALL | CMD_STREAM, NULL, 0, NULL},
    {"stats", 0, OPT_FLAG, NULL, "print per-stage timings and bandwidth at the end", NULL, 0, 0, NULL, AT(stats), FILTERS, NULL, 0, NULL},
    {"seed", 0, OPT_INT64, "N", "noise seed (same seed, same noise)", "1", 0, 9.2e18, NULL, AT(seed), CMD_NOISE, NULL, 0, NULL},
    {"size", 0, OPT_STRING, "LIST", "image sizes WxH,... (default: the seed's five, 1920x1080, 3840x2160, 7680x4320)", NULL, 0, 0, NULL, AT(sizes), CMD_BENCH, NULL, 0, NULL},
    {"channels", 0, OPT_STRING, "LIST", "1,3,4 (default 1, as the seed; 4: RGB with an opaque alpha)", NULL, 0, 0, NULL, AT(channels), CMD_BENCH, NULL, 0, NULL},
    {"depth", 0, OPT_STRING, "LIST", "bits per sample, 8,16 (default 8): 16-bit inputs are the photo widened (v * 256 plus a seeded low byte); NPP's 16-bit median and filter in the same run", NULL, 0, 0, NULL, AT(depths), CMD_BENCH, NULL, 0, NULL},
    {"reps", 0, OPT_INT, "N", "timed calls per cell (default 30 on the GPU, 5 on the CPU)", "0", 1, 100000, NULL, AT(reps), CMD_BENCH, NULL, 0, NULL},
    {"warmup", 0, OPT_INT, "N", "untimed calls before timing", "3", 0, 1000, NULL, AT(warmup), CMD_BENCH, NULL, 0, NULL},
    {"photo", 0, OPT_STRING, "FILE", "photo tiled to each size (default samples/images/retina.jpg)", NULL, 0, 0, NULL, AT(photo), CMD_BENCH, NULL, 0, NULL},
    {"random", 0, OPT_FLAG, NULL, "seeded random pixels instead of a photo", NULL, 0, 0, NULL, AT(random), CMD_BENCH, NULL, 0, NULL},
    {"impulses", 0, OPT_DOUBLE, "D", "salt and pepper of density D on the inputs (what the impulse filters are for)", "0", 0, 1, NULL, AT(impulses), CMD_BENCH, NULL, 0, NULL},
    {"energy", 0, OPT_FLAG, NULL, "measure energy per image (each cell runs at least 0.5 s more)", NULL, 0, 0, NULL, AT(energy), CMD_BENCH, NULL, 0, NULL},
    {"tag", 0, OPT_STRING, "TEXT", "label every result row (e.g. the power mode)", NULL, 0, 0, NULL, AT(tag), CMD_BENCH, NULL, 0, NULL},
    {"ceiling-mb", 0, OPT_DOUBLE, "MB", "size of the copy that measures the bandwidth ceiling", "1024", 1, 65536, NULL, AT(ceiling_mb), CMD_BENCH, NULL, 0, NULL},
    {"csv", 0, OPT_STRING, "FILE", "write every cell as CSV", NULL, 0, 0, NULL, AT(csv), CMD_BENCH, NULL, 0, NULL},
    {"max-mpix", 0, OPT_DOUBLE, "M", "refuse images over M megapixels", "268.435456", 0.000001, 1e6, NULL, AT(max_mpix), ALL | CMD_STREAM, NULL, 0, NULL},
    {"max-memory", 0, OPT_DOUBLE, "MB", "memory all jobs may use together; files wait for room (stream: the frames in flight; default: half the RAM)", "0", 16, 1e9, NULL, AT(max_memory_mb), RUN | CMD_STREAM, NULL, 0, NULL, "JETFILTER_MAX_MEMORY"},
    {"max-metadata", 0, OPT_DOUBLE, "MB", "metadata one file may carry, inflated (one item at most half of it)", "32", 0.01, 4096, NULL, AT(max_metadata_mb), RUN | CMD_METRICS, NULL, 0, NULL},
    {"max-scans", 0, OPT_INT, "N", "scans a progressive JPEG may have", "100", 1, 100000, NULL, AT(max_scans), RUN | CMD_METRICS, NULL, 0, NULL},
    {"max-markers", 0, OPT_INT, "N", "APPn and COM markers a JPEG may have", "1000", 1, 1000000, NULL, AT(max_markers), RUN | CMD_METRICS, NULL, 0, NULL},
    {"max-pages", 0, OPT_INT, "N", "pages a multi-page TIFF may have", "1000", 1, 65535, NULL, AT(max_pages), RUN | CMD_METRICS, NULL, 0, NULL},
    {"force", 0, OPT_FLAG, NULL, "replace an existing --json, --csv or -o file that jetfilter did not write (inputs are never replaced)", NULL, 0, 0, NULL, AT(force), ALL | CMD_REPORT | CMD_STREAM | CMD_CALIBRATE, NULL, 0, NULL},
    {"trust-input", 0, OPT_FLAG, NULL, "trust the input: JPEGs decoded on the GPU (nvJPEG) are not also checked for damaged data (faster; a damaged file becomes damaged pixels, where by default it is refused as on the CPU)", NULL, 0, 0, NULL, AT(trust_input), CMD_DENOISE, NULL, 0, NULL},
    {"no-sync", 0, OPT_FLAG, NULL, "do not flush outputs to disk before renaming them (faster; a power cut may leave empty files)", NULL, 0, 0, NULL, AT(no_sync), RUN, NULL, 0, NULL},
    {"quiet", 0, OPT_FLAG, NULL, "print errors only", NULL, 0, 0, NULL, AT(quiet), ALL | CMD_REPORT | CMD_STREAM | CMD_CALIBRATE, NULL, 0, NULL},
    {"verbose", 'v', OPT_FLAG, NULL, "print a line per file, and every entry passed over", NULL, 0, 0, NULL, AT(verbose), RUN, NULL, 0, NULL},
    {"max-request", 0, OPT_DOUBLE, "MB", "the longest request line read; a longer one is answered with an error and skipped", "4", 0.001, 1024, NULL, AT(max_request_mb), CMD_SERVE, NULL, 0, NULL},
    {"help", 'h', OPT_FLAG, NULL, "show this help", NULL, 0, 0, NULL, AT(help), ALL | CMD_REPORT | CMD_STREAM | CMD_CALIBRATE | CMD_SERVE, NULL, 0, NULL},
    /* the bench's old spellings, for one release */
    {"sizes", 0, OPT_STRING, "LIST", NULL, NULL, 0, 0, NULL, AT(sizes), CMD_BENCH, "size", 0, NULL},
    {"filters", 0, OPT_OPS, "LIST", NULL, NULL, 0, 0, NULL, AT(filter), CMD_BENCH, "filter", 0, NULL},
    {"backends", 0, OPT_NAMES, "LIST", NULL, NULL, 0, 0, jf_backend_names, AT(backend), CMD_BENCH, "backend", 0, NULL},
};
#define GENERIC_COUNT (int)(sizeof GENERIC / sizeof GENERIC[0])

/* Every parameter of the operations, once per name (their ranges widened
 * over every operation; each operation holds its values to its own). */
static jf_param_def g_params[JOB_MAX_PARAMS];
static int g_param_count;

static void build_table(void);

const jf_param_def *job_params(int *count)
{
    build_table();
    *count = g_param_count;
    return g_params;
}

/* Commands each operation parameter belongs to: the noise options are
 * named after their operations (--salt-pepper D) and --seed is generic;
 * weights in memory and the metrics' data range (for float images) have
 * no command-line form. */
static int param_commands(const jf_param_def *p)
{
    if (p->id == JF_P_AMOUNT || p->id == JF_P_SEED || p->id == JF_P_WEIGHTS ||
        p->id == JF_P_DATA_RANGE) /* the files the commands read are integers */
        return 0;
    return FILTERS | CMD_BENCH;
}

/* The whole table: the generic rows, then one row per operation parameter
 * (and the bench's plural aliases of -k, -b, --variant), then one per noise
 * operation. */
#define MAX_OPTIONS 128
static job_option g_options[MAX_OPTIONS];
static int g_option_count;

/* Made once, whichever thread asks first (a library caller's threads may). */
static pthread_once_t g_table_once = PTHREAD_ONCE_INIT;

static void fill_table(void)
{
    int i, n = 0, count = jf_op_all_params(g_params, JOB_MAX_PARAMS);
    const jf_param_def *params = g_params;
    count = count < JOB_MAX_PARAMS ? count : JOB_MAX_PARAMS;
    g_param_count = count;
    for (i = 0; i < GENERIC_COUNT && n < MAX_OPTIONS; i++)
        g_options[n++] = GENERIC[i];
    for (i = 0; i < count && n + 2 < MAX_OPTIONS; i++) {
        const jf_param_def *p = &params[i];
        job_option o;
        if (!param_commands(p))
            continue;
        memset(&o, 0, sizeof o);
        o.name = p->info.name;
        o.letter = p->info.letter;
        o.type = OPT_PARAM;
        o.arg = p->info.metavar;
        o.help = p->info.help;
        o.def = p->id == JF_P_BORDER || p->id == JF_P_VARIANT ? p->info.default_text : NULL;
        o.min = p->info.min;
        o.max = p->info.max;
        o.choices = p->info.choices;
        o.offset = AT(param) + (size_t)i * sizeof(const char *);
        o.commands = param_commands(p);
        o.param = i;
        g_options[n++] = o;
        if (p->id == JF_P_KSIZE || p->id == JF_P_BORDER || p->id == JF_P_VARIANT) {
            static char plural[JOB_MAX_PARAMS][32];
            snprintf(plural[i], sizeof plural[i], "%ss", p->info.name);
            o.name = plural[i];
            o.letter = 0;
            o.commands = CMD_BENCH;
            o.alias_of = p->info.name;
            g_options[n++] = o;
        }
    }
    for (i = 0; i < jf_op_total && n < MAX_OPTIONS; i++) {
        const jf_op *op = &jf_ops[i];
        const jf_param_def *amount = NULL;
        job_option o;
        int j;
        if (op->kind != JF_OP_NOISE)
            continue;
        for (j = 0; j < op->param_count; j++)
            if (op->params[j].id == JF_P_AMOUNT)
                amount = &op->params[j];
        if (!amount)
            continue;
        memset(&o, 0, sizeof o);
        o.name = op->name;
        o.type = OPT_NOISE;
        o.arg = amount->info.metavar;
        o.help = op->summary;
        o.min = amount->info.min;
        o.max = amount->info.max;
        o.commands = CMD_NOISE;
        o.op = op;
        g_options[n++] = o;
    }
    g_option_count = n;
}

static void build_table(void) { pthread_once(&g_table_once, fill_table); }

static void *field(job_settings *s, const job_option *o) { return (char *)s + o->offset; }

static int bad_number(const char *cmd, const job_option *o, const char *v, int whole)
{
    job_error("jetfilter %s: --%s wants %s from %g to %g, not '%s'", cmd, o->name,
            whole ? "a whole number" : "a number", o->min, o->max, v);
    return JF_EXIT_USAGE;
}

static int check_int(const char *cmd, const job_option *o, const char *v, long long *out)
{
    long long n;
    if (jf_parse_ll(v, &n) || (double)n < o->min || (double)n > o->max)
        return bad_number(cmd, o, v, 1);
    *out = n;
    return 0;
}

static int check_double(const char *cmd, const job_option *o, const char *v, double *out)
{
    double d;
    if (jf_parse_real(v, &d) || !(d >= o->min && d <= o->max))
        return bad_number(cmd, o, v, 0);
    *out = d;
    return 0;
}

static int bad_choice(const char *cmd, const job_option *o, const char *v, const char *const *choices)
{
    char list[512];
    size_t used = 0;
    int i;
    list[0] = '\0';
    for (i = 0; choices[i] && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s %s", i ? "," : "", choices[i]);
    job_error("jetfilter %s: --%s: '%s' is not one of%s", cmd, o->name, v, list);
    return JF_EXIT_USAGE;
}

int job_split(char *buf, char **tokens, int max)
{
    int n = 0;
    char *p = buf;
    while (n < max) {
        char *comma = strchr(p, ',');
        tokens[n++] = p;
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return n;
}

/* Every element of a value that may be a list is checked now, so a typo
 * fails before any work. */
static int check_list(const char *cmd, const job_option *o, const char *v)
{
    char buf[1024], *tok[64];
    int n, i;
    if (snprintf(buf, sizeof buf, "%s", v) >= (int)sizeof buf) {
        job_error("jetfilter %s: --%s: list too long", cmd, o->name);
        return JF_EXIT_USAGE;
    }
    n = job_split(buf, tok, 64);
    for (i = 0; i < n; i++) {
        long long iv;
        double dv;
        if (!tok[i][0]) {
            job_error("jetfilter %s: --%s: empty item in '%s'", cmd, o->name, v);
            return JF_EXIT_USAGE;
        }
        if (o->type == OPT_OPS && !jf_op_find(tok[i])) {
            char names[256];
            job_error("jetfilter %s: --%s: no filter '%s' (filters: %s)", cmd, o->name,
                    tok[i], jf_op_names(JF_OP_FILTER, names, sizeof names));
            return JF_EXIT_USAGE;
        }
        if (o->type == OPT_NAMES && jf_name_index(o->choices, tok[i]) < 0)
            return bad_choice(cmd, o, tok[i], o->choices);
        if (o->type == OPT_PARAM) {
            const jf_param_def *p = &g_params[o->param];
            int w, h;
            if (p->info.type == JF_PARAM_INT && check_int(cmd, o, tok[i], &iv))
                return JF_EXIT_USAGE;
            if (p->info.type == JF_PARAM_DOUBLE && check_double(cmd, o, tok[i], &dv))
                return JF_EXIT_USAGE;
            if (p->info.type == JF_PARAM_CHOICE && jf_name_index(p->info.choices, tok[i]) < 0)
                return bad_choice(cmd, o, tok[i], p->info.choices);
            if (p->info.type == JF_PARAM_SIZE && jf_op_block_parse(tok[i], &w, &h)) {
                job_error("jetfilter %s: --%s %s: want WxH, W a multiple of 4, W x H at "
                        "most 1024", cmd, o->name, tok[i]);
                return JF_EXIT_USAGE;
            }
        }
    }
    return 0;
}

/* `checked`: user input is held to the option's range; built-in defaults
 * are not (0 and -1 mean "not given"). */
static int set_value(const char *cmd, job_settings *s, const job_option *o, const char *v,
                     int checked)
{
    long long n;
    double d;
    int i;
    switch (o->type) {
    case OPT_FLAG:
        *(int *)field(s, o) = 1;
        return 0;
    case OPT_STRING:
    case OPT_JSON:
        *(const char **)field(s, o) = v;
        return 0;
    case OPT_NAMES:
    case OPT_OPS:
    case OPT_PARAM:
        if (checked && o->type == OPT_PARAM && g_params[o->param].info.type == JF_PARAM_FILE) {
            *(const char **)field(s, o) = v; /* a file name: commas are part of it */
            s->param_given[o->param] = 1;
            return 0;
        }
        if (checked && check_list(cmd, o, v))
            return JF_EXIT_USAGE;
        *(const char **)field(s, o) = v;
        if (o->type == OPT_PARAM)
            s->param_given[o->param] = (unsigned char)checked;
        return 0;
    case OPT_INT:
    case OPT_INT64:
        if (!checked) {
            n = strtoll(v, NULL, 10);
        } else if (check_int(cmd, o, v, &n)) {
            return JF_EXIT_USAGE;
        }
        if (o->type == OPT_INT)
            *(int *)field(s, o) = (int)n;
        else
            *(long long *)field(s, o) = n;
        return 0;
    case OPT_DOUBLE:
        if (!checked)
            d = strtod(v, NULL);
        else if (check_double(cmd, o, v, &d))
            return JF_EXIT_USAGE;
        *(double *)field(s, o) = d;
        return 0;
    case OPT_NOISE:
        if (s->noise_op && s->noise_op != o->op) {
            job_error("jetfilter %s: give one kind of noise: --%s or --%s", cmd,
                    s->noise_op->name, o->op->name);
            return JF_EXIT_USAGE;
        }
        if (check_double(cmd, o, v, &d))
            return JF_EXIT_USAGE;
        s->noise_op = o->op;
        s->noise_amount = d;
        return 0;
    case OPT_CHOICE:
        for (i = 0; o->choices[i]; i++)
            if (strcmp(o->choices[i], v) == 0 ||
                (strcmp(v, "jpeg") == 0 && strcmp(o->choices[i], "jpg") == 0)) {
                *(int *)field(s, o) = i;
                if (checked && o->offset == AT(format))
                    s->format_given = 1;
                return 0;
            }
        return bad_choice(cmd, o, v, o->choices);
    }
    return JF_EXIT_USAGE;
}

const job_option *job_option_long(int command, const char *name, size_t len)
{
    int i;
    build_table();
    for (i = 0; i < g_option_count; i++)
        if ((g_options[i].commands & command) && strlen(g_options[i].name) == len &&
            strncmp(g_options[i].name, name, len) == 0)
            return &g_options[i];
    return NULL;
}

const job_option *job_option_short(int command, char letter)
{
    int i;
    build_table();
    for (i = 0; i < g_option_count; i++)
        if ((g_options[i].commands & command) && g_options[i].letter == letter)
            return &g_options[i];
    return NULL;
}

/* --device: one index; denoise also takes a list ("0,2") or "all". */
static int parse_devices(int command, const char *cmd, job_settings *s)
{
    char buf[512], *tok[JOB_MAX_DEVICES + 1];
    int n, i, j;
    s->device_count = 1;
    if (!s->device_text)
        return 0;
    if (strcmp(s->device_text, "all") == 0 && command == CMD_DENOISE) {
        s->device_all = 1;
        return 0;
    }
    if (snprintf(buf, sizeof buf, "%s", s->device_text) >= (int)sizeof buf)
        buf[0] = '\0';
    n = job_split(buf, tok, JOB_MAX_DEVICES + 1);
    for (i = 0; i < n; i++) {
        long long d = -1;
        if (jf_parse_ll(tok[i], &d) || tok[i][0] == '-' || tok[i][0] == '+' || d > 1023 ||
            n > JOB_MAX_DEVICES) {
            job_error("jetfilter %s: --device %s: want %s", cmd, s->device_text,
                    command == CMD_DENOISE ? "an index (0, 1, ...), a list such as 0,2, or all"
                                           : "one index (0, 1, ...)");
            return JF_EXIT_USAGE;
        }
        for (j = 0; j < i; j++)
            if (s->devices[j] == (int)d) {
                job_error("jetfilter %s: --device %s: device %lld named twice", cmd,
                        s->device_text, d);
                return JF_EXIT_USAGE;
            }
        s->devices[i] = (int)d;
    }
    if (n > 1 && command != CMD_DENOISE) {
        job_error("jetfilter %s: --device %s: %s measures one device at a time", cmd,
                s->device_text, cmd);
        return JF_EXIT_USAGE;
    }
    s->device_count = n;
    s->device = s->devices[0];
    return 0;
}

int job_settings_init(int command, const char *cmd, job_settings *s, int max_inputs)
{
    int i, rc;
    build_table();
    memset(s, 0, sizeof *s);
    s->inputs = (const char **)calloc((size_t)max_inputs + 1, sizeof *s->inputs);
    if (!s->inputs) {
        job_error("jetfilter: out of memory");
        return JF_EXIT_USAGE;
    }
    for (i = 0; i < g_option_count; i++)
        if (g_options[i].def && !g_options[i].alias_of && (g_options[i].commands & command))
            if ((rc = set_value(cmd, s, &g_options[i], g_options[i].def, 0)) != 0)
                return rc;
    /* per-machine defaults from the environment, held to the options' rules;
     * a bad value is refused by every command, also one that does not use it */
    for (i = 0; i < g_option_count; i++) {
        const job_option *o = &g_options[i];
        const char *v = o->env ? getenv(o->env) : NULL;
        job_settings scratch;
        if (!v || !*v || o->alias_of)
            continue;
        memset(&scratch, 0, sizeof scratch);
        if ((rc = set_value(cmd, (o->commands & command) ? s : &scratch, o, v, 1)) != 0) {
            job_error("jetfilter %s: (that value came from the environment: %s=%s)", cmd,
                      o->env, v);
            return rc;
        }
    }
    return 0;
}

int job_option_set(const char *cmd, job_settings *s, const job_option *o, const char *value)
{
    if (o->type == OPT_FLAG && value) {
        job_error("jetfilter %s: --%s takes no value", cmd, o->name);
        return JF_EXIT_USAGE;
    }
    if (o->type != OPT_FLAG && !value) {
        job_error("jetfilter %s: --%s needs a value (%s)", cmd, o->name, o->arg);
        return JF_EXIT_USAGE;
    }
    return set_value(cmd, s, o, value, 1);
}

int job_settings_finish(int command, const char *cmd, job_settings *s)
{
    if (s->quiet && s->verbose) {
        job_error("jetfilter %s: --quiet and --verbose contradict each other", cmd);
        return JF_EXIT_USAGE;
    }
    return parse_devices(command, cmd, s);
}

const job_option *job_options(int *count)
{
    build_table();
    *count = g_option_count;
    return g_options;
}

const char *job_param(const job_settings *s, const char *name)
{
    int i, count;
    const jf_param_def *params = job_params(&count);
    for (i = 0; i < count; i++)
        if (strcmp(params[i].info.name, name) == 0)
            return s->param[i];
    return NULL;
}

int job_op_args(const char *cmd, const job_settings *s, const jf_op *op, jf_op_args *args)
{
    int i, count;
    const jf_param_def *params = job_params(&count);
    *args = jf_op_args_defaults();
    for (i = 0; i < count; i++) {
        const char *v = s->param[i];
        if (!v || !jf_op_param_def(op, params[i].info.name))
            continue;
        if (params[i].info.type != JF_PARAM_FILE && strchr(v, ',')) {
            job_error("jetfilter %s: --%s takes one value here, not the list '%s'", cmd,
                    params[i].info.name, v);
            return JF_EXIT_USAGE;
        }
        if (jf_op_args_set(op, args, params[i].info.name, v) != JF_OK) {
            job_error("jetfilter %s: %s", cmd, jf_last_error());
            return JF_EXIT_USAGE;
        }
    }
    /* always values the user chose (or the option's default): 0 is a density
     * and a seed like any other, not "use the row's default" */
    args->amount = s->noise_amount;
    args->seed = s->seed;
    args->given |= JF_P_AMOUNT | JF_P_SEED;
    return 0;
}

jf_context_options job_context_options(const job_settings *s)
{
    jf_context_options o = jf_context_defaults();
    o.backend = s->backend ? (jf_backend)jf_name_index(jf_backend_names, s->backend) : JF_BACKEND_AUTO;
    o.device = s->device;
    o.threads = s->threads;
    o.memory = (jf_memory)s->memory;
    o.peak_gbps = s->peak_gbps;
    return o;
}

/* The options of `command` as the man page and the completions show them. */
int job_option_views(int command, job_option_view *out, int max)
{
    int i, n = 0;
    build_table();
    for (i = 0; i < g_option_count && n < max; i++) {
        const job_option *o = &g_options[i];
        if (!(o->commands & command) || o->alias_of)
            continue;
        out[n].name = o->name;
        out[n].letter = o->letter;
        out[n].arg = o->type == OPT_FLAG ? NULL : o->arg;
        out[n].help = o->help;
        out[n].def = o->def && strcmp(o->def, "0") != 0 && o->type != OPT_INT64 ? o->def : NULL;
        out[n].choices = o->type == OPT_CHOICE || o->type == OPT_NAMES ||
                                 (o->type == OPT_PARAM && o->choices) ? o->choices : NULL;
        if (o->type == OPT_OPS) { /* the operations this command runs */
            static const char *names[4][64];
            const int which = command == CMD_BENCH ? 1 : 0;
            int k, m = 0;
            for (k = 0; k < jf_op_total && m < 63; k++)
                if (jf_ops[k].kind == JF_OP_FILTER ||
                    (which && (jf_ops[k].kind == JF_OP_PAD || jf_ops[k].kind == JF_OP_METRIC)))
                    names[which][m++] = jf_ops[k].name;
            names[which][m] = NULL;
            out[n].choices = names[which];
        }
        out[n].env = o->env;
        out[n].number = o->type == OPT_INT || o->type == OPT_INT64 ? 1
                      : o->type == OPT_DOUBLE || o->type == OPT_NOISE ? 2
                      : o->type != OPT_PARAM ? 0
                      : g_params[o->param].info.type == JF_PARAM_INT ? 1
                      : g_params[o->param].info.type == JF_PARAM_DOUBLE ? 2 : 0;
        out[n].min = o->min;
        out[n].max = o->max;
        out[n].path = o->type == OPT_JSON || (o->arg && (strcmp(o->arg, "FILE") == 0 ||
                      strcmp(o->arg, "DIR") == 0 || strcmp(o->arg, "OUT") == 0)) ||
                      (o->type == OPT_PARAM && g_params[o->param].info.type == JF_PARAM_FILE);
        n++;
    }
    return n;
}

/* The operation and its parameters, resolved once. */
int job_plan_filter(const char *cmd, job_settings *s, job_run *run)
{
    const jf_param_def *params;
    const jf_op *op;
    jf_op_args args;
    int rc, i, count;
    if (!s->filter)
        s->filter = "median";
    op = jf_op_find(s->filter);
    if (!op || op->kind != JF_OP_FILTER || strchr(s->filter, ',')) {
        char names[256];
        job_error("jetfilter %s: --filter %s: one of %s", cmd, s->filter,
                jf_op_names(JF_OP_FILTER, names, sizeof names));
        return JF_EXIT_USAGE;
    }
    params = job_params(&count);
    for (i = 0; i < count; i++) /* a setting the filter does not have */
        if (s->param_given[i] && !jf_op_param_def(op, params[i].info.name)) {
            char takes[160] = "";
            size_t n = 0;
            int j;
            for (j = 0; j < op->param_count; j++)
                if (op->params[j].id != JF_P_WEIGHTS && n < sizeof takes)
                    n += (size_t)snprintf(takes + n, sizeof takes - n, "%s--%s", n ? ", " : "",
                                          op->params[j].info.name);
            job_error("jetfilter %s: --%s is not a setting of --filter %s (it takes %s)",
                    cmd, params[i].info.name, op->name, takes[0] ? takes : "none");
            return JF_EXIT_USAGE;
        }
    if ((rc = job_op_args(cmd, s, op, &args)) != 0)
        return rc;
    if (jf_op_prepare(op, &args, &run->plan) != JF_OK) {
        job_error("jetfilter %s: %s", cmd, jf_last_error());
        return JF_EXIT_USAGE;
    }
    return 0;
}

