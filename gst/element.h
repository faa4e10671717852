/* The jetfilter element (element.c). */
#ifndef JF_GST_ELEMENT_H
#define JF_GST_ELEMENT_H

#include <gst/gst.h>
#include <gst/video/gstvideofilter.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_JETFILTER (gst_jetfilter_get_type())
G_DECLARE_FINAL_TYPE(GstJetfilter, gst_jetfilter, GST, JETFILTER, GstVideoFilter)

/* Register the element with `plugin`. */
gboolean jf_gst_register(GstPlugin *plugin);

G_END_DECLS

#endif
