/*
 * Internal: the operation table.  Every operation declares itself once, in
 * ops.c: its name and one-line description, the parameters it takes with
 * their defaults and ranges, its CPU and CUDA variants and the rule `auto`
 * follows, the NPP function the bench compares it with, and the name of the
 * stats record its kernel leaves.  The command line (parsing, --help,
 * dispatch), the bench sweep and the tests iterate over this table; adding a
 * filter is its own folder, one entry here and its tests (DESIGN.md).
 */
#ifndef JF_FILTERS_OPS_H
#define JF_FILTERS_OPS_H

#include "jetfilter.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum jf_op_kind {
    JF_OP_FILTER, /* image in, image of the same shape out (denoise runs these) */
    JF_OP_PAD,    /* image in, larger image out */
    JF_OP_METRIC, /* two images in, a number out */
    JF_OP_NOISE   /* an image changed in place */
} jf_op_kind;

/* The NPP function `jetfilter bench` runs beside an operation. */
typedef enum jf_npp_kind {
    JF_NPP_NONE = 0,
    JF_NPP_MEDIAN, /* nppiFilterMedian_8u_C1R/C3R_Ctx */
    JF_NPP_FILTER  /* nppiFilter32f_8u_C1R/C3R_Ctx with the operation's weights */
} jf_npp_kind;

/* Parameters an operation may take (bits of jf_op.params). */
enum jf_param_id {
    JF_PARAM_KSIZE = 1 << 0,
    JF_PARAM_SIGMA = 1 << 1,
    JF_PARAM_KERNEL = 1 << 2, /* weights from a file */
    JF_PARAM_BORDER = 1 << 3,
    JF_PARAM_VARIANT = 1 << 4, /* variant and block shape */
    JF_PARAM_AMOUNT = 1 << 5,  /* noise density or strength */
    JF_PARAM_SEED = 1 << 6,
    JF_PARAM_MAX_KSIZE = 1 << 7 /* largest window of a window that grows */
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
} jf_op_args;

/* Defaults of jf_op_args (border replicate, variant auto, seed 1, ...). */
jf_op_args jf_op_args_defaults(void);

/* How a parameter appears on the command line: the CLI builds its options
 * (names, help, ranges, choices) from these rows. */
typedef enum jf_param_type { JF_PT_INT, JF_PT_DOUBLE, JF_PT_STRING, JF_PT_CHOICE, JF_PT_INT64 } jf_param_type;

typedef struct jf_op_param {
    unsigned id;        /* JF_PARAM_* */
    const char *name;   /* long option: "ksize" -> --ksize */
    char letter;        /* short option, or 0 */
    jf_param_type type;
    const char *arg;    /* "K" */
    const char *help;
    const char *def;    /* default as text (NULL: none) */
    double min, max;    /* over every operation; each checks its own range */
    const char *const *choices;
    size_t offset;      /* of the field in jf_op_args */
} jf_op_param;

extern const jf_op_param jf_op_params[];
extern const int jf_op_param_count;

struct jf_op;

/* An operation with its parameters resolved, ready to run on many images. */
typedef struct jf_op_plan {
    const struct jf_op *op;
    jf_op_args args;
    int ksize;        /* resolved kernel size */
    jf_kernel kernel; /* convolutions: the weights */
    char describe[96]; /* "median k=5", "gauss k=7 sigma 1.5" */
} jf_op_plan;

/* What an operation decided for one image, when it decides (auto-impulse). */
typedef struct jf_op_note {
    char text[96];   /* "switching-median k<=9 refine" ("" when nothing to say) */
    double estimate; /* what the decision rests on (impulse density), or NAN */
} jf_op_note;

typedef struct jf_op {
    const char *name;     /* --filter NAME, bench --filter NAME */
    const char *summary;  /* one line for --help */
    jf_op_kind kind;
    const char *stat;     /* name of the stats record of its main kernel */
    unsigned params;      /* JF_PARAM_* bits */
    int default_ksize, max_ksize;
    unsigned variants;    /* bit (1u << jf_variant) for every variant it has */
    const char *auto_rule; /* what `auto` picks on the GPU, in words */
    unsigned samples;     /* bit (1u << jf_sample) for every sample type it takes */
    const char *depths;   /* the same in words ("8 and 16 bits ...") */
    int exact;            /* its GPU variants give the CPU's bytes (else within 1 level) */
    jf_npp_kind npp;
    /* does variant v exist at kernel size k? (NULL: every variant listed) */
    int (*has_variant)(jf_variant v, int k);
    /* resolve the arguments once (weights); NULL: nothing to resolve */
    jf_status (*prepare)(jf_op_plan *plan);
    /* FILTER and PAD: src -> dst; NOISE: in place on src (dst unused).  Call
     * it through jf_op_apply. */
    jf_status (*apply)(jf_context *ctx, const jf_op_plan *plan, jf_image *src, jf_image *dst);
    /* instead of apply, for operations that decide per image */
    jf_status (*apply_noted)(jf_context *ctx, const jf_op_plan *plan, jf_image *src,
                             jf_image *dst, jf_op_note *note);
    const char *estimate_name; /* the JSON key of jf_op_note.estimate */
    /* METRIC: the number */
    jf_status (*measure)(jf_context *ctx, const jf_image *a, const jf_image *b, double *value);
    /* NOISE: the strength's name on the command line and its largest value */
    const char *amount_arg;
    double amount_max;
} jf_op;

extern const jf_op jf_ops[];
extern const int jf_op_count;

/* The operation called `name`, or NULL. */
const jf_op *jf_op_find(const char *name);

/* Names of the operations of one kind, comma-separated, into buf. */
const char *jf_op_names(jf_op_kind kind, char *buf, size_t size);

/* Check the arguments against the operation's ranges and resolve them
 * (weights from presets or files).  Errors name the option. */
jf_status jf_op_prepare(const jf_op *op, const jf_op_args *args, jf_op_plan *plan);
void jf_op_plan_free(jf_op_plan *plan);

/* Run a FILTER, PAD or NOISE operation; `note` (may be NULL) gets what it
 * decided, if anything. */
jf_status jf_op_apply(jf_context *ctx, const jf_op_plan *plan, jf_image *src, jf_image *dst,
                      jf_op_note *note);

/* Does the operation have variant v at kernel size k? */
int jf_op_has_variant(const jf_op *op, jf_variant v, int k);

#ifdef __cplusplus
}
#endif
#endif
