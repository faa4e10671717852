/* Internal: the one table of names for each enum of the public header, so
 * the library, the option parser, the bench and the reports agree. */
#ifndef JF_CORE_NAMES_H
#define JF_CORE_NAMES_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NULL-terminated name lists, indexed by the enum value. */
extern const char *const jf_border_names[JF_BORDER_COUNT + 1];
extern const char *const jf_variant_names[JF_VARIANT_COUNT + 1];
extern const char *const jf_backend_names[JF_BACKEND_COUNT + 1];
extern const char *const jf_memory_names[JF_MEMORY_COUNT + 1];
extern const char *const jf_codec_names[JF_CODEC_COUNT + 1];
extern const char *const jf_location_names[JF_LOC_COUNT + 1];

/* Index of `name` in a NULL-terminated list, or -1. */
int jf_name_index(const char *const *names, const char *name);

#ifdef __cplusplus
}
#endif
#endif
