/* Internal: recording errors into jf_status / jf_last_error(). */
#ifndef JF_CORE_ERRORS_H
#define JF_CORE_ERRORS_H

#include "jetfilter.h"

#if defined(__GNUC__)
#define JF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define JF_PRINTF(a, b)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Record "detail" for this thread and return `status`, so that callers can
 * write `return jf_fail(JF_ERR_ARG, "ksize %d is even", k);`. */
jf_status jf_fail(jf_status status, const char *fmt, ...) JF_PRINTF(2, 3);

/* Prefix the current detail with "prefix: " (used to add a file name). */
void jf_error_prefix(const char *prefix);

/* Forget the last error of this thread. */
void jf_error_clear(void);

/* Add to this thread's warning (what a decode or encode left out), and
 * clear it when a new one starts. */
void jf_warn(const char *fmt, ...) JF_PRINTF(1, 2);
void jf_warning_clear(void);

#ifdef __cplusplus
}
#endif
#endif
