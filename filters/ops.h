/*
 * Internal: the operation table.  Every operation declares itself once, in
 * ops.c, as a jf_op: its public description (jetfilter/operations.h: name,
 * summary, parameters with defaults and ranges, sample types), the family
 * of kernels it runs on (the variant table below: which variant exists for
 * which k, sample type and device, its kernel and block), the order `auto`
 * prefers them in, the NPP function the bench compares it with, and the
 * glue that runs it.  Everything else reads the table: the public plan API
 * (and through it Python and GStreamer), the command line (options, --help,
 * the man page), the variant resolver (resolve.h), the bench, calibrate,
 * tuning profiles, the Nano launch list and the GPU tests.
 */
#ifndef JF_FILTERS_OPS_H
#define JF_FILTERS_OPS_H

#include "jetfilter.h"
#include "jetfilter/operations.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sample types as bits of jf_variant_row.samples and jf_op.samples. */
#define S8 (1u << JF_SAMPLE_U8)
#define S16 (1u << JF_SAMPLE_U16)
#define SF (1u << JF_SAMPLE_F32)

/* The NPP function `jetfilter bench` runs beside an operation. */
typedef enum jf_npp_kind {
    JF_NPP_NONE = 0,
    JF_NPP_MEDIAN, /* nppiFilterMedian_8u_C1R/C3R_Ctx */
    JF_NPP_FILTER  /* nppiFilter32f_8u_C1R/C3R_Ctx with the operation's weights */
} jf_npp_kind;

/* Which parameter a row of an operation's list is (bits of jf_op.params). */
enum jf_param_id {
    JF_P_KSIZE = 1 << 0,
    JF_P_SIGMA = 1 << 1,
    JF_P_KERNEL = 1 << 2,  /* weights from a file */
    JF_P_WEIGHTS = 1 << 3, /* weights in memory (the API's, Python's) */
    JF_P_BORDER = 1 << 4,
    JF_P_VARIANT = 1 << 5,
    JF_P_BLOCK = 1 << 6,
    JF_P_MAX_KSIZE = 1 << 7, /* largest window of a window that grows */
    JF_P_AMOUNT = 1 << 8,    /* noise density or strength */
    JF_P_SEED = 1 << 9,
    JF_P_NOISE_SIGMA = 1 << 10, /* the denoisers: the noise, when not estimated */
    JF_P_STRENGTH = 1 << 11,
    JF_P_SEARCH = 1 << 12,      /* non-local means: the search window */
    JF_P_PATCH = 1 << 13,       /* and the patches compared */
    JF_P_SIGMA_COLOR = 1 << 14, /* bilateral */
    JF_P_SIGMA_SPACE = 1 << 15,
    JF_P_EPS = 1 << 16,         /* guided */
    JF_P_SPEED = 1 << 17,       /* auto: quality or speed */
    JF_P_IGNORE = 1 << 18,      /* the median, box, gauss, conv: samples left out (jf_ignore) */
    JF_P_IGNORE_VALUE = 1 << 19, /* and the value */
    JF_P_DATA_RANGE = 1 << 20    /* the metrics: L (0: the sample type's) */
};

/* The value of every parameter; each operation reads the ones it takes. */
typedef struct jf_op_args {
    int ksize;               /* 0: the operation's default */
    double sigma;            /* gauss; 0: from ksize, else 1.0 */
    const char *kernel_file; /* conv */
    const float *weights;    /* conv: weights in memory instead of a file */
    int weights_ksize;
    jf_border border;
    jf_variant variant;
    int block_x, block_y;
    double amount;           /* noise */
    long long seed;          /* noise */
    int max_ksize;           /* impulse filters; 0: the operation's default */
    double noise_sigma;      /* denoisers: 8-bit levels; 0: estimated */
    double strength;         /* non-local means: a factor on h */
    int search, patch;       /* non-local means; 0: from the noise */
    double sigma_color, sigma_space; /* bilateral; 0: from the noise, from k */
    double eps;              /* guided; 0: from the noise */
    int speed;               /* auto: 0 quality, 1 fast */
    int ignore;              /* median: jf_ignore */
    double ignore_value;     /* median: what JF_IGNORE_VALUE leaves out */
    double data_range;       /* psnr, ssim: 0 for the sample type's */
    unsigned given;          /* JF_P_* of the values set through jf_op_args_set; a
                                numeric parameter neither given nor set in the
                                struct takes its row's default (jf_op_prepare) */
} jf_op_args;

/* Defaults of jf_op_args (border replicate, variant auto, seed 1, ...). */
jf_op_args jf_op_args_defaults(void);

/* A parameter of an operation: its public description and where its value
 * lives in jf_op_args. */
typedef struct jf_param_def {
    jf_param_info info;
    unsigned id;   /* JF_P_* */
    size_t offset; /* of the field in jf_op_args (SIZE: block_x, then block_y) */
    const char *const *values; /* CHOICE: the enum's names, indexed by value (NULL:
                                  the index in info.choices is the value) */
} jf_param_def;

/* What a kernel is run on: the image's shape and what the weights are. */
typedef struct jf_shape {
    int width, height, channels;
    jf_sample sample;
    int rank1; /* convolutions: the weights are col x row (box, Gaussian) */
    const float *weights; /* convolutions: the k x k weights, where the caller has them
                             (rows that take only some weights read them) */
} jf_shape;

/* The CUDA type of a shape's samples as cu++filt writes it in a kernel's
 * instance ("median_global_kernel<unsignedshort>"). */
static inline const char *jf_cuda_type_name(const jf_shape *s)
{
    return s->sample == JF_SAMPLE_F32 ? "float" : s->sample == JF_SAMPLE_U16 ? "unsignedshort" : "unsignedchar";
}

/* Receives one kernel launch a variant makes (jf_variant_row.launches):
 * the kernel instance, its block and dynamic shared memory. */
typedef void (*jf_emit_fn)(void *user, const char *instance, int bx, int by, size_t smem);

/* What a GPU row's launch gets from its family's CUDA entry: the input as
 * jf_gpu_filter_setup leaves it, the output's view, the resolver's choice
 * (row and block), k, for the convolutions the caller's k x k weights
 * and, for rank-1 weights, the column and row factors, and for families
 * that prepare their own buffers (the denoisers) their arguments. */
struct jf_filter_in;
struct jf_dview;
struct jf_choice;
typedef struct jf_gpu_call {
    jf_context *ctx;
    const struct jf_filter_in *in;
    const struct jf_dview *out;
    const struct jf_choice *choice;
    int k;
    const float *weights, *col, *row;
    const void *args; /* a family's own launch arguments (non-local means, bilateral) */
} jf_gpu_call;

/* A row's launch, named in its variant table as JF_GPU_RUN(fn): the
 * function where the build has CUDA, NULL where it has not. */
typedef jf_status (*jf_gpu_run_fn)(const jf_gpu_call *call);
#ifdef JF_HAVE_CUDA
#define JF_GPU_RUN(fn) (fn)
#else
#define JF_GPU_RUN(fn) NULL
#endif

/* What a CPU row's implementation gets from its family's entry: the
 * source (apart from the output), the prepared output, k, the border and,
 * for the convolutions, the k x k weights and for rank-1 weights their
 * column and row factors.  It may name what it ran in `stat` (for
 * --stats; default "cpu"), what it read in `bytes_read` (default the
 * source's bytes) and move `t0` (jf_now_ms) past its own set-up (a padded
 * copy), which the figures leave out. */
typedef struct jf_cpu_call {
    jf_context *ctx;
    const jf_image *src;
    jf_image *dst;
    int k;
    jf_border border;
    const float *weights, *col, *row;
    const void *args; /* a family's own arguments (the rank filters: which) */
    const char *stat;
    uint64_t bytes_read;
    double t0;
} jf_cpu_call;
typedef jf_status (*jf_cpu_run_fn)(jf_cpu_call *call);

/* One way to run a family's operations: a variant, the kernel that
 * implements it, and when it can run.  A family lists its rows in the order
 * the resolver tries them within a variant (the first that can run wins). */
typedef struct jf_variant_row {
    jf_variant variant;
    const char *kernel;  /* the kernel's name ("" on the CPU) */
    int kmin, kmax;      /* the odd k it has */
    unsigned samples;    /* bit (1u << jf_sample) per sample type */
    int rank1;           /* 1: rank-1 weights only */
    int min_cc;          /* compute capability x 10 it needs (0: any) */
    int max_cc;          /* the newest it is made for (0: any); under
                            JETFILTER_DEVICE_LIMITS any, so a big GPU tests
                            the Nano's kernels */
    int grey_only;       /* 1: one channel only */
    int full_device;     /* 1: not under JETFILTER_DEVICE_LIMITS (which stands for the Nano) */
    const char *what;    /* a few words for the auto rule's wording and the reasons */
    /* Its default block: block_x x block_y, or what `block` says for this
     * image, k and device; a default is then halved in rows until `smem`
     * (the dynamic shared memory a bx x by block needs; NULL: none) fits. */
    int block_x, block_y;
    void (*block)(const jf_device_info *dev, const jf_shape *s, int k, int *bx, int *by);
    size_t (*smem)(const jf_shape *s, int k, int bx, int by);
    /* Every kernel launch it makes (a pad pass first, say) for this image,
     * k and block on this device: emit(user, instance, bx, by, smem) with
     * the instance as cu++filt names it without spaces
     * ("median_fast_kernel<(int)5,(int)1,unsignedchar>") - the Nano launch
     * list is made from these. */
    void (*launches)(const jf_device_info *dev, const jf_shape *s, int k, int bx, int by,
                     jf_emit_fn emit, void *user);
    int lanes;           /* the median's fast kernels: samples a register (1 or 2) */
    jf_gpu_run_fn run;   /* its launch (families whose CUDA entry dispatches through
                            the rows: the median, the convolutions); NULL on the CPU */
    /* For families whose entry dispatches through the rows: a CPU row's
     * implementation; the test of the weights a row takes where it takes
     * only some (a GPU row's always; a CPU row's under `auto`: asked for by
     * name, the first CPU row without one, the reference, runs); a CPU
     * row's host memory beyond its images with `threads` workers (NULL: none). */
    jf_cpu_run_fn cpu;
    int (*takes)(const jf_shape *s, int k);
    size_t (*cpu_work)(const jf_shape *s, int k, int threads);
} jf_variant_row;

/* `auto`'s preferences, tried in order: the first whose conditions hold
 * and whose variant has a row that can run wins. */
typedef struct jf_auto_pref {
    jf_variant variant;
    int kmin, kmax;           /* applies to these k */
    double below_samples;     /* > 0: only for images with fewer samples than this
                                 (scaled by the device's multiprocessors / 132, an H100's) */
    const char *why;          /* the reason, in words */
} jf_auto_pref;

/* A family of operations that run on the same kernels (the median; every
 * convolution; the impulse filters; padding; the metrics; noise). */
typedef struct jf_family {
    const char *name;          /* the tuning profile's name for it ("median", "conv") */
    const jf_variant_row *rows;
    int row_count;
    const jf_auto_pref *prefs;
    int pref_count;
    int tuned;                 /* `jetfilter calibrate` measures it; profiles may hold it */
} jf_family;

/* What an operation decided for one image, when it decides (auto-impulse). */
typedef struct jf_op_note {
    char text[96];   /* "switching-median k<=9 refine" ("" when nothing to say) */
    double estimate; /* what the decision rests on (impulse density), or NAN */
} jf_op_note;

struct jf_op;

/* An operation with its parameters resolved, ready to run on many images. */
typedef struct jf_op_plan {
    const struct jf_op *op;
    jf_op_args args;
    unsigned given;    /* JF_P_* of the parameters set (else defaults) */
    int ksize;         /* resolved kernel size */
    jf_kernel kernel;  /* convolutions: the weights */
    int rank1;         /* the weights are rank 1 */
    char describe[96]; /* "median k=5", "gauss k=7 sigma 1.5" */
} jf_op_plan;

typedef struct jf_op {
    const char *name;     /* --filter NAME, bench --filter NAME, Python's function */
    const char *summary;  /* one line for --help */
    jf_op_kind kind;
    unsigned samples;     /* bit (1u << jf_sample) for every sample type it takes */
    int exact;            /* its GPU variants give the CPU's bytes (else within 1 level) */
    const jf_param_def *params;
    int param_count;
    const char *stat;     /* name of the stats record of its main kernel */
    const jf_family *family;
    jf_npp_kind npp;
    const char *estimate_name; /* the JSON key of jf_op_note.estimate (NULL: none) */
    /* resolve the arguments once (weights); NULL: nothing to resolve */
    jf_status (*prepare)(jf_op_plan *plan);
    /* FILTER and PAD: src -> dst; NOISE: in place on src (dst unused).  Call
     * it through jf_op_apply. */
    jf_status (*apply)(jf_context *ctx, const jf_op_plan *plan, jf_image *src, jf_image *dst);
    /* instead of apply, for operations that decide per image */
    jf_status (*apply_noted)(jf_context *ctx, const jf_op_plan *plan, jf_image *src,
                             jf_image *dst, jf_op_note *note);
    /* METRIC: the number */
    jf_status (*measure)(jf_context *ctx, const jf_op_args *args, const jf_image *a,
                         const jf_image *b, double *value);
    /* ESTIMATE: what the image's noise is */
    jf_status (*estimate)(jf_context *ctx, const jf_image *img, jf_noise_estimate *out);
} jf_op;

extern const jf_op jf_ops[];
extern const int jf_op_total;

/* Does op take parameter `id` (JF_P_*)? */
int jf_op_takes(const jf_op *op, unsigned id);
/* The largest window it takes (the top of its ksize, max-ksize or search
 * parameter; 0: none). */
int jf_op_max_ksize(const jf_op *op);

/* The public description of op (jetfilter/operations.h), made once from
 * the table (its wording too), and back. */
const jf_op_info *jf_op_info_of(const jf_op *op);
const jf_op *jf_op_of_info(const jf_op_info *info);

/* The wording of `auto`'s rule and of the sample types, made from the
 * variant table (what --help, the man page and jf_op_info print). */
void jf_op_auto_rule(const jf_op *op, char *out, size_t n);
void jf_op_samples_rule(const jf_op *op, char *out, size_t n);

/* The operation called `name`, or NULL. */
const jf_op *jf_op_find(const char *name);

/* Names of the operations of one kind, comma-separated, into buf. */
const char *jf_op_names(jf_op_kind kind, char *buf, size_t size);

/* The definition of parameter `name` of op (NULL: none). */
const jf_param_def *jf_op_param_def(const jf_op *op, const char *name);

/* Every parameter any operation takes, once per name, in table order (the
 * command line's options), with `min` and `max` widened over every
 * operation's range.  Returns how many; fills up to `max` into out. */
int jf_op_all_params(jf_param_def *out, int max);

/* Set a parameter of args from text (the command line's and jf_plan_set's
 * rules: the number, range, odd, choices of op's row).  On error the detail
 * names `name` as the caller spells it. */
jf_status jf_op_args_set(const jf_op *op, jf_op_args *args, const char *name, const char *value);

/* A CUDA block shape "WxH" as the block parameter takes it (W a multiple
 * of 4, W x H at most 1024): 0, or -1. */
int jf_op_block_parse(const char *text, int *bx, int *by);

/* Check the arguments against the operation's ranges and resolve them
 * (weights from presets or files).  Errors name the option. */
jf_status jf_op_prepare(const jf_op *op, const jf_op_args *args, jf_op_plan *plan);
void jf_op_plan_free(jf_op_plan *plan);

/* A parameter's value in a prepared plan, as text: what was set, else what
 * the operation resolved it to; "" where it has none (jf_plan_value). */
void jf_op_plan_value(const jf_op_plan *plan, const jf_param_def *def, char *out, size_t n);

/* Run a FILTER, PAD or NOISE operation; `note` (may be NULL) gets what it
 * decided, if anything. */
/* Bytes the plan's CPU path allocates for an image of w x h x channels
 * samples of sample_bytes, besides its source and output, with `threads`
 * workers: a padded copy where the kernel reads one (the median beyond
 * k = 5, the impulse filters; auto-impulse two), the convolution's rows or
 * FFT planes for each worker, nothing where rows pad themselves. */
uint64_t jf_op_plan_work_bytes(const jf_op_plan *plan, int w, int h, int channels, int sample_bytes,
                               int threads);

/* 1 when the plan's filter changes no sample (a median of k = 1, weights
 * that are one 1 at the centre): a caller may pass the image through. */
int jf_op_plan_identity(const jf_op_plan *plan);

jf_status jf_op_apply(jf_context *ctx, const jf_op_plan *plan, jf_image *src, jf_image *dst,
                      jf_op_note *note);

/* Does the operation have variant v at kernel size k (on some device)? */
int jf_op_has_variant(const jf_op *op, jf_variant v, int k);

/* The families (each in its folder's *_variants.c). */
extern const jf_family jf_median_family, jf_conv_family, jf_impulse_family, jf_pad_family,
    jf_psnr_family, jf_ssim_family, jf_noise_family, jf_nlmeans_family, jf_bilateral_family,
    jf_guided_family, jf_estimate_family, jf_rank_family;

extern const jf_family *const jf_families[];
extern const int jf_family_total;

/* The family called `name` ("median", "conv"), or NULL. */
const jf_family *jf_family_find(const char *name);

#ifdef __cplusplus
}
#endif
#endif
