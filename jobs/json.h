/* A small JSON writer (the reports) into a growing buffer. */
#ifndef JF_JOBS_JSON_H
#define JF_JOBS_JSON_H

#include <stddef.h>

typedef struct json_buf {
    char *data;
    size_t len, cap;
    int fail;
    int need_comma;
} json_buf;

void json_raw(json_buf *j, const char *text);
void json_key(json_buf *j, const char *key);
/* A string value; bytes that are not UTF-8 are escaped reversibly (see
 * json.c), control bytes as \u00XX. */
void json_str(json_buf *j, const char *key, const char *value);
/* A file name: as json_str, plus "<key>_b64" with the raw bytes in base64
 * when the name is not valid UTF-8, so a consumer can find the file. */
void json_path(json_buf *j, const char *key, const char *path);
/* A number; null when it is not finite (JSON has neither NaN nor infinity). */
void json_num(json_buf *j, const char *key, double value);
/* A number that may be infinite (the PSNR of identical images): +infinity
 * is written as null beside "<key>_infinite": true, which readers check. */
void json_db(json_buf *j, const char *key, double value);
void json_bool(json_buf *j, const char *key, int value);
void json_int(json_buf *j, const char *key, long long value);
void json_open(json_buf *j, const char *key, char bracket);
void json_close(json_buf *j, char bracket);

/* Open a report of command `command`: every report jetfilter writes starts
 * {"jetfilter":"VERSION","command":"denoise", ... (how it knows its own
 * files before replacing one). */
void json_report_open(json_buf *j, const char *command);

/* Is `s` valid UTF-8? */
int json_utf8_valid(const char *s);

#endif
