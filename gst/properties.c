/*
 * Properties from the operation table: a new filter, or a new parameter of
 * one, appears in the element with no edit here.  Numbers are 0 ("unset":
 * the filter's own default, or the value it derives, as a Gaussian's size
 * from its sigma) unless set; choices are GEnums made from the table's
 * names, at the table's default.
 */
#include "gst/properties.h"

#include <gst/gst.h>

#include <stdio.h>
#include <string.h>

#define MAX_PARAMS 32

static jf_gst_param g_params[MAX_PARAMS];
static int g_param_count = -1;

/* A GEnum of `names` (NULL-terminated), registered once under `type_name`. */
static GType enum_of(const char *type_name, const char *const *names)
{
    GType t = g_type_from_name(type_name);
    GEnumValue *values;
    int n = 0, i;
    if (t)
        return t;
    while (names[n])
        n++;
    values = g_new0(GEnumValue, n + 1); /* kept for the type's life: the process's */
    for (i = 0; i < n; i++) {
        values[i].value = i;
        values[i].value_name = names[i];
        values[i].value_nick = names[i];
    }
    return g_enum_register_static(type_name, values);
}

const jf_gst_param *jf_gst_params(int *count)
{
    int i, j, k;
    if (g_param_count < 0) {
        g_param_count = 0;
        for (i = 0; i < jf_op_count(); i++) {
            const jf_op_info *op = jf_op_get(i);
            if (op->kind != JF_OP_FILTER)
                continue;
            for (j = 0; j < op->param_count; j++) {
                const jf_param_info *p = &op->params[j];
                if (p->type == JF_PARAM_WEIGHTS)
                    continue; /* weights in memory have no property form: `kernel` names a file */
                for (k = 0; k < g_param_count && strcmp(g_params[k].name, p->name) != 0; k++)
                    ;
                if (k < g_param_count) { /* seen: widen its range */
                    if (p->min < g_params[k].min)
                        g_params[k].min = p->min;
                    if (p->max > g_params[k].max)
                        g_params[k].max = p->max;
                    continue;
                }
                if (g_param_count == MAX_PARAMS)
                    break;
                g_params[k].name = p->name;
                g_params[k].type = p->type;
                g_params[k].min = p->min;
                g_params[k].max = p->max;
                g_params[k].choices = p->choices;
                g_params[k].help = p->help;
                if (p->type == JF_PARAM_CHOICE) {
                    /* "max-ksize" -> GstJetfilterMaxKsize */
                    char type_name[64] = "GstJetfilter";
                    const char *c;
                    size_t at = strlen(type_name);
                    int up = 1;
                    for (c = p->name; *c && at + 1 < sizeof type_name; c++) {
                        if (*c == '-' || *c == '_') {
                            up = 1;
                            continue;
                        }
                        type_name[at++] = up ? g_ascii_toupper(*c) : *c;
                        up = 0;
                    }
                    type_name[at] = '\0';
                    g_params[k].enum_type = enum_of(type_name, p->choices);
                }
                g_param_count++;
            }
        }
    }
    *count = g_param_count;
    return g_params;
}

GType jf_gst_filter_enum(void)
{
    static const char *names[64];
    int i, n = 0;
    if (!names[0]) {
        for (i = 0; i < jf_op_count() && n < 63; i++)
            if (jf_op_get(i)->kind == JF_OP_FILTER)
                names[n++] = jf_op_get(i)->name;
        names[n] = NULL;
    }
    return enum_of("GstJetfilterFilter", names);
}

GType jf_gst_backend_enum(void)
{
    static const char *const names[] = {"auto", "cpu", "cuda", NULL};
    return enum_of("GstJetfilterBackend", names);
}

GType jf_gst_planes_enum(void)
{
    static const char *const names[] = {"all", "luma", NULL};
    return enum_of("GstJetfilterPlanes", names);
}

/* The default of a CHOICE parameter: its text in the first filter that has one. */
static int choice_default(const jf_gst_param *p)
{
    int i, k;
    for (i = 0; i < jf_op_count(); i++) {
        const jf_op_info *op = jf_op_get(i);
        const jf_param_info *q = op->kind == JF_OP_FILTER ? jf_op_param(op, p->name) : NULL;
        if (q && q->default_text)
            for (k = 0; p->choices[k]; k++)
                if (strcmp(p->choices[k], q->default_text) == 0)
                    return k;
    }
    return 0;
}

void jf_gst_install_properties(GObjectClass *klass)
{
    const GParamFlags rw = (GParamFlags)(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                         GST_PARAM_MUTABLE_PLAYING);
    const jf_gst_param *params;
    int i, n;
    g_object_class_install_property(klass, PROP_FILTER,
        g_param_spec_enum("filter", "Filter", "The operation of jetfilter's table to run",
                          jf_gst_filter_enum(), 0, rw));
    g_object_class_install_property(klass, PROP_BACKEND,
        g_param_spec_enum("backend", "Backend",
                          "Where the filter runs: auto (CUDA when a device is present), cpu, cuda",
                          jf_gst_backend_enum(), 0,
                          (GParamFlags)(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)));
    g_object_class_install_property(klass, PROP_DEVICE,
        g_param_spec_int("device", "Device", "CUDA device index", 0, 1023, 0,
                         (GParamFlags)(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)));
    g_object_class_install_property(klass, PROP_PLANES,
        g_param_spec_enum("planes", "Planes",
                          "Planes to filter: all (each bordered at its own edges, a window of k of "
                          "its own samples, as jetfilter stream), or luma (chroma passes unchanged)",
                          jf_gst_planes_enum(), 0, rw));
    g_object_class_install_property(klass, PROP_STATS,
        g_param_spec_string("stats", "Stats",
                            "What the frames so far cost: frames, ms a frame in the filter, "
                            "in copies to and from the GPU, and the processing latency",
                            "", (GParamFlags)(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
    params = jf_gst_params(&n);
    for (i = 0; i < n; i++) {
        const jf_gst_param *p = &params[i];
        char blurb[512];
        GParamSpec *spec = NULL;
        switch (p->type) {
        case JF_PARAM_INT:
            snprintf(blurb, sizeof blurb, "%s (0: the filter's own default)", p->help);
            spec = g_param_spec_int(p->name, p->name, g_intern_string(blurb), 0, (gint)p->max, 0, rw);
            break;
        case JF_PARAM_DOUBLE:
            snprintf(blurb, sizeof blurb, "%s (0: not set)", p->help);
            spec = g_param_spec_double(p->name, p->name, g_intern_string(blurb), 0.0, p->max, 0.0, rw);
            break;
        case JF_PARAM_CHOICE:
            spec = g_param_spec_enum(p->name, p->name, p->help, p->enum_type, choice_default(p), rw);
            break;
        default: /* FILE, SIZE: text as the command line takes it */
            spec = g_param_spec_string(p->name, p->name, p->help, NULL, rw);
            break;
        }
        g_object_class_install_property(klass, PROP_PARAM0 + i, spec);
    }
}
