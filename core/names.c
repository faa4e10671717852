/* Names of the public enums, in one place each. */
#include "core/names.h"

#include <string.h>

const char *const jf_border_names[JF_BORDER_COUNT + 1] = {"zero", "replicate", "reflect", "mirror",
                                                          NULL};
const char *const jf_variant_names[JF_VARIANT_COUNT + 1] = {"auto", "cpu", "global", "shared",
                                                            "fast", NULL};
const char *const jf_backend_names[JF_BACKEND_COUNT + 1] = {"auto", "cpu", "cuda", NULL};
const char *const jf_memory_names[JF_MEMORY_COUNT + 1] = {"auto", "copy", "managed", NULL};
const char *const jf_codec_names[JF_CODEC_COUNT + 1] = {"auto", "cpu", "nvjpeg", NULL};
const char *const jf_location_names[JF_LOC_COUNT + 1] = {"host", "device", "mapped", "managed",
                                                         NULL};

int jf_name_index(const char *const *names, const char *name)
{
    int i;
    for (i = 0; name && names[i]; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

static const char *name_of(const char *const *names, int count, int v)
{
    return v >= 0 && v < count ? names[v] : "?";
}

const char *jf_border_name(jf_border b) { return name_of(jf_border_names, JF_BORDER_COUNT, (int)b); }
const char *jf_variant_name(jf_variant v) { return name_of(jf_variant_names, JF_VARIANT_COUNT, (int)v); }
const char *jf_backend_name(jf_backend b) { return name_of(jf_backend_names, JF_BACKEND_COUNT, (int)b); }
const char *jf_memory_name(jf_memory m) { return name_of(jf_memory_names, JF_MEMORY_COUNT, (int)m); }
const char *jf_codec_name(jf_codec c) { return name_of(jf_codec_names, JF_CODEC_COUNT, (int)c); }
