/* The GStreamer plugin `jetfilter`: one element of the same name
 * (element.c).  gst-inspect-1.0 jetfilter lists it. */
#include "gst/element.h"

#ifndef PACKAGE
#define PACKAGE "jetfilter"
#endif

static gboolean plugin_init(GstPlugin *plugin)
{
    return jf_gst_register(plugin);
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, jetfilter,
                  "Median filters and convolutions on video frames, on a CUDA GPU or the CPU",
                  plugin_init, JF_GST_VERSION, "unknown", "jetfilter", "https://github.com/jetfilter/jetfilter")
