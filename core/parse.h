/* Internal: the one parser of numbers and sizes from text, for every front
 * end (the command line, plans, serve, Python through plans, GStreamer
 * properties).  The whole text must be the number: no spaces, nothing
 * after it, no overflow; ranges are the caller's, so that its message can
 * name the option. */
#ifndef JF_CORE_PARSE_H
#define JF_CORE_PARSE_H

#ifdef __cplusplus
extern "C" {
#endif

/* A whole number in base 10 (a leading '-' or '+' allowed).  0, or -1. */
int jf_parse_ll(const char *text, long long *out);

/* A finite real number (strtod's forms, no "inf" or "nan").  0, or -1. */
int jf_parse_real(const char *text, double *out);

/* "WxH": two whole numbers from 1 to max_side each.  0, or -1. */
int jf_parse_wxh(const char *text, int max_side, int *width, int *height);

#ifdef __cplusplus
}
#endif
#endif
