/*
 * jetfilter/operations.h - every operation described at run time, and run
 * by name (since 1.7).
 * Part of the public API; include <jetfilter.h>, which includes every part.
 *
 * The library declares each operation once: its name, what it does, the
 * parameters it takes (name, type, default, range, choices), the sample
 * types and variants it has.  The command line, the Python module and the
 * GStreamer element are built from these descriptions, so a new operation
 * reaches all of them without an edit there.  A program can do the same:
 *
 *   jf_plan *p;
 *   jf_plan_create("median", &p);
 *   jf_plan_set(p, "ksize", "5");         // text, as on the command line
 *   jf_plan_set_int(p, "ksize", 5);       // or typed
 *   if (jf_plan_prepare(p) == JF_OK)      // checks ranges, reads files
 *       jf_plan_run(ctx, p, &src, &dst, NULL);
 *   jf_plan_free(p);
 *
 * The descriptions are the library's own (static, never freed); structs
 * that describe may grow at their end in later versions, so never copy
 * them by value or allocate them yourself.
 */
#ifndef JETFILTER_OPERATIONS_H
#define JETFILTER_OPERATIONS_H

#include "jetfilter/base.h"
#include "jetfilter/context.h"
#include "jetfilter/filters.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What an operation does to images. */
typedef enum jf_op_kind {
    JF_OP_FILTER = 0, /**< image in, image of the same shape and type out */
    JF_OP_PAD,        /**< image in, a larger image out (k / 2 on every side) */
    JF_OP_METRIC,     /**< two images in, a number out */
    JF_OP_NOISE,      /**< an image changed in place */
    JF_OP_ESTIMATE,   /**< one image in, what its noise is out (since 1.8) */
    JF_OP_KIND_COUNT
} jf_op_kind;

/** The type of a parameter's value. */
typedef enum jf_param_type {
    JF_PARAM_INT = 0,  /**< a whole number in [min, max] (odd when `odd` is set) */
    JF_PARAM_DOUBLE,   /**< a number in [min, max] */
    JF_PARAM_CHOICE,   /**< one of `choices` */
    JF_PARAM_FILE,     /**< a file name (read by jf_plan_prepare) */
    JF_PARAM_SIZE,     /**< two whole numbers, as text "WxH" */
    JF_PARAM_WEIGHTS,  /**< a k x k float matrix: jf_plan_set_weights only */
    JF_PARAM_TYPE_COUNT
} jf_param_type;

/** One parameter of one operation. */
typedef struct jf_param_info {
    const char *name;     /**< "ksize": the command line's --ksize, Python's ksize= */
    char letter;          /**< the command line's short option ('k'), or 0 */
    jf_param_type type;
    const char *metavar;  /**< what the value is called in help ("K") */
    const char *help;     /**< one line */
    const char *default_text; /**< the default as text ("3", "replicate"), or NULL
                                   when there is none or it follows from other
                                   parameters (the help says how) */
    double min, max;      /**< INT and DOUBLE: the range this operation accepts */
    int odd;              /**< INT: odd values only (kernel sizes) */
    const char *const *choices; /**< CHOICE: the names, NULL-terminated */
} jf_param_info;

/** One operation. */
typedef struct jf_op_info {
    const char *name;     /**< "median", "gauss", "salt-pepper" ... */
    const char *summary;  /**< one line */
    jf_op_kind kind;
    int param_count;
    const jf_param_info *params; /**< param_count of them */
    unsigned samples;     /**< bit (1u << jf_sample) for every sample type it takes */
    unsigned variants;    /**< bit (1u << jf_variant) for every variant that may be asked */
    int exact;            /**< its GPU variants give the CPU's result bit for bit
                               (else within one level: float sums) */
    const char *auto_rule;   /**< what the variant `auto` picks on a GPU, in words */
    const char *samples_rule; /**< the sample types in words ("8 and 16 bits; shared: 8") */
    const char *estimate_name; /**< an operation that decides per image: the name of
                                    the number it decides on ("impulse_density"),
                                    else NULL */
} jf_op_info;

/** Number of operations. */
JF_API int jf_op_count(void);
/** Operation `index` (0 .. jf_op_count() - 1), or NULL. */
JF_API const jf_op_info *jf_op_get(int index);
/** The operation called `name`, or NULL. */
JF_API const jf_op_info *jf_op_lookup(const char *name);
/** The parameter called `name` of `op`, or NULL. */
JF_API const jf_param_info *jf_op_param(const jf_op_info *op, const char *name);
/** "filter", "pad", "metric", "noise", "estimate" ("unknown" otherwise). */
JF_API const char *jf_op_kind_name(jf_op_kind kind);

/** An operation with its parameters: made once, run on many images. */
typedef struct jf_plan jf_plan;

/** A plan of the operation called `op`, every parameter at its default.
 *  Errors: JF_ERR_ARG (no such operation: the detail lists them),
 *  JF_ERR_NOMEM. */
JF_API jf_status jf_plan_create(const char *op, jf_plan **out);

/** Set a parameter from text, exactly as the command line takes it ("5",
 *  "replicate", "32x8", a file name).  Errors: JF_ERR_ARG naming the
 *  parameter and what it wants (not a parameter of this operation, not a
 *  number, out of range, not one of the choices). */
JF_API jf_status jf_plan_set(jf_plan *plan, const char *param, const char *value);
/** Set an INT parameter (or a CHOICE by its index).  Errors as jf_plan_set. */
JF_API jf_status jf_plan_set_int(jf_plan *plan, const char *param, int64_t value);
/** Set a DOUBLE (or INT, when `value` is whole) parameter.  Errors as jf_plan_set. */
JF_API jf_status jf_plan_set_double(jf_plan *plan, const char *param, double value);
/** Set the WEIGHTS parameter: ksize x ksize floats, row-major, copied.
 *  Errors: JF_ERR_ARG (the operation takes none, ksize not odd or over its
 *  range, a weight not finite), JF_ERR_NOMEM. */
JF_API jf_status jf_plan_set_weights(jf_plan *plan, const float *weights, int ksize);
/** Was the parameter set (else it has its default)?  0 for an unknown name. */
JF_API int jf_plan_is_set(const jf_plan *plan, const char *param);

/** Check the parameters together and resolve them (a Gaussian's size from
 *  its sigma, weights from a file).  After it the plan is read-only and may
 *  be run by several threads at once, each with its own context; setting a
 *  parameter again needs another jf_plan_prepare.  Errors: JF_ERR_ARG,
 *  JF_ERR_IO (a weights file), JF_ERR_NOMEM. */
JF_API jf_status jf_plan_prepare(jf_plan *plan);

/** The operation a plan runs. */
JF_API const jf_op_info *jf_plan_op(const jf_plan *plan);
/** The plan in a few words: "median k=5", "gauss k=7 sigma 1.2". */
JF_API const char *jf_plan_describe(const jf_plan *plan);
/** A parameter's value after jf_plan_prepare, as text: what was set, else
 *  what the operation resolved it to ("7" for a Gaussian's ksize from its
 *  sigma); "" for a parameter that has no value (no weights file).
 *  Errors: JF_ERR_ARG (unknown parameter, plan not prepared). */
JF_API jf_status jf_plan_value(const jf_plan *plan, const char *param, char *out, size_t size);

/** What one run did. */
typedef struct jf_op_result {
    size_t size;           /**< sizeof(jf_op_result): use JF_OP_RESULT_INIT */
    jf_variant variant;    /**< the variant that ran (CPU, GLOBAL, SHARED, FAST) */
    char kernel[48];       /**< its kernel ("median_fast_kernel"); on the CPU the
                                median's and the convolutions' implementation
                                ("median_cpu_networks", since 1.11), else "" */
    int block_x, block_y;  /**< its CUDA block (0 on the CPU) */
    char reason[160];      /**< why that variant ("auto: k = 5, shared min/max networks") */
    char decision[96];     /**< what an operation that decides per image chose
                                ("switching-median k<=9 refine"), else "" */
    double estimate;       /**< the number it decided on (NAN when none) */
} jf_op_result;
#define JF_OP_RESULT_INIT {sizeof(jf_op_result), JF_VARIANT_AUTO, "", 0, 0, "", "", 0.0}

/**
 * Run a FILTER, PAD or NOISE plan: `src` -> `dst` (FILTER: the same shape
 * and type; PAD: larger by ksize - 1 each way; `dst` with NULL data is
 * allocated, as for the functions of filters.h); NOISE changes `src` in
 * place (`dst` is not used, may be NULL).  The images and the asynchronous
 * rules are those of the operation's own function (jf_median, ...).
 * `result` (may be NULL) receives what ran and why.  Errors: those of the
 * operation's function, plus JF_ERR_ARG for a plan not prepared or a METRIC
 * plan.
 */
JF_API jf_status jf_plan_run(jf_context *ctx, const jf_plan *plan, jf_image *src, jf_image *dst,
                             jf_op_result *result);

/** Run a METRIC plan: the number for `a` (reference) and `b`. */
JF_API jf_status jf_plan_measure(jf_context *ctx, const jf_plan *plan, const jf_image *a,
                                 const jf_image *b, double *value);

/** Run an ESTIMATE plan: the noise of `img` (jf_estimate_noise). */
JF_API jf_status jf_plan_estimate(jf_context *ctx, const jf_plan *plan, const jf_image *img,
                                  jf_noise_estimate *out);

/** Release a plan.  NULL is fine. */
JF_API void jf_plan_free(jf_plan *plan);

#ifdef __cplusplus
}
#endif
#endif /* JETFILTER_OPERATIONS_H */
