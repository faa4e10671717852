/* Internal: reading a versioned options struct (the ABI rule of jetfilter.h). */
#ifndef JF_CORE_OPTIONS_H
#define JF_CORE_OPTIONS_H

#include "jetfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `out` (out_size bytes) holds the defaults; `user` starts with its size_t
 * size.  Copies what the caller's version knows over the defaults; a larger
 * struct from a newer header is accepted when its unknown tail is zero.
 * `fn` and `defaults_fn` name the call and the initialiser in errors. */
jf_status jf_options_read(const char *fn, const char *defaults_fn, void *out, size_t out_size,
                          const void *user);

#ifdef __cplusplus
}
#endif
#endif
