/* The element's properties, made from the library's operation table
 * (properties.c): the filter, and every parameter of every filter
 * operation once (ranges widened over the operations; each operation holds
 * its values to its own range when the plan is made), plus what the
 * element itself adds (backend, device, planes, stats). */
#ifndef JF_GST_PROPERTIES_H
#define JF_GST_PROPERTIES_H

#include <glib-object.h>
#include <jetfilter.h>

G_BEGIN_DECLS

/* Property ids: 0 is GObject's; the element's own first, then one per
 * parameter (PROP_PARAM0 + its index in jf_gst_params()). */
enum {
    PROP_0,
    PROP_FILTER,
    PROP_BACKEND,
    PROP_DEVICE,
    PROP_PLANES,
    PROP_STATS,
    PROP_PARAM0
};

/* One parameter as a property: its name, its GParamSpec's type and range. */
typedef struct jf_gst_param {
    const char *name;     /* "ksize", "max-ksize", "border" ... */
    jf_param_type type;
    double min, max;      /* widened over the operations that take it */
    const char *const *choices;
    GType enum_type;      /* CHOICE: a GEnum made from the choices */
    const char *help;
} jf_gst_param;

/* The parameters (made once; never freed). */
const jf_gst_param *jf_gst_params(int *count);

/* The filter operations' names as a GEnum ("median", "box" ...), and the
 * backends' (auto, cpu, cuda). */
GType jf_gst_filter_enum(void);
GType jf_gst_backend_enum(void);
GType jf_gst_planes_enum(void);

/* Install every property on the element's class. */
void jf_gst_install_properties(GObjectClass *klass);

G_END_DECLS

#endif
