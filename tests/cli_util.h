/* Helpers of the tests that run the jetfilter command (test_cli, test_safety):
 * a temporary folder, the command run in it, files written and read there. */
#ifndef JF_TESTS_CLI_UTIL_H
#define JF_TESTS_CLI_UTIL_H

#include <stddef.h>

extern char g_dir[256];  /* the test's folder */
extern char g_out[8192]; /* stdout + stderr of the last run */

/* Run `jetfilter ARGS` in g_dir (stdin from /dev/null); its exit status. */
int run(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Run a shell command in g_dir, with $J the jetfilter command (pipes,
 * redirections); its exit status, its stdout + stderr in g_out. */
int shell(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* A fresh g_dir with an empty folder `sub` in it. */
void new_test_dir(const char *sub);
/* Files relative to g_dir. */
void write_bytes(const char *rel, const void *data, size_t n);
void copy_in(const char *src_rel, const char *dst_rel, size_t cut); /* cut 0: whole */
int exists(const char *rel);
int files_equal(const char *a_rel, const char *b_rel);
/* A whole file (absolute path), NUL-terminated; NULL if unreadable. */
unsigned char *read_all(const char *path, size_t *n);
/* Temporaries (".jf-PID-XXXXXX") left under a folder (absolute path). */
int leftovers(const char *dir);

#endif
