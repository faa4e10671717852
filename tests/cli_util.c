/* Running the jetfilter command in a test folder, and looking at what it
 * left there (cli_util.h). */
#define _DEFAULT_SOURCE
#include "cli_util.h"
#include "common.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char g_dir[256];
char g_out[8192];

int run(const char *fmt, ...)
{
    char cmd[4096], log[512], full[4096 + 1024];
    va_list ap;
    int rc;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    snprintf(log, sizeof log, "%s/.log", g_dir);
    snprintf(full, sizeof full, "cd %s && %s %s > %s 2>&1 < /dev/null", g_dir, JF_CLI_PATH, cmd, log);
    rc = t_run_logged(full, log, g_out, sizeof g_out);
    unlink(log);
    return rc;
}

int shell(const char *fmt, ...)
{
    char cmd[4096], log[512], full[4096 + 1024];
    va_list ap;
    int rc;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    snprintf(log, sizeof log, "%s/.log", g_dir);
    snprintf(full, sizeof full, "cd %s && J='%s' && { %s ; } > %s 2>&1 < /dev/null", g_dir,
             JF_CLI_PATH, cmd, log);
    rc = t_run_logged(full, log, g_out, sizeof g_out);
    unlink(log);
    return rc;
}

void write_bytes(const char *rel, const void *data, size_t n)
{
    char path[2048];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", g_dir, rel);
    f = fopen(path, "wb");
    assert_non_null(f);
    if (n)
        assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

unsigned char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf;
    long len;
    *n = 0;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)len + 1);
    if (!buf) {
        fclose(f);
        return NULL;
    }
    *n = fread(buf, 1, (size_t)len, f);
    buf[*n] = 0;
    fclose(f);
    return buf;
}

void new_test_dir(const char *sub)
{
    char path[512];
    snprintf(g_dir, sizeof g_dir, "%s", t_make_tmpdir());
    snprintf(path, sizeof path, "%s/%s", g_dir, sub);
    assert_int_equal(mkdir(path, 0755), 0);
}

void copy_in(const char *src_rel, const char *dst_rel, size_t cut)
{
    size_t n;
    unsigned char *d = read_all(t_source_path(src_rel), &n);
    assert_non_null(d);
    write_bytes(dst_rel, d, cut && cut < n ? cut : n);
    free(d);
}

int exists(const char *rel)
{
    char path[2048];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", g_dir, rel);
    return stat(path, &sb) == 0;
}

/* Two files under the test folder with the same bytes? */
int files_equal(const char *a_rel, const char *b_rel)
{
    char a_path[2048], b_path[2048];
    size_t na = 0, nb = 0;
    unsigned char *a, *b;
    int same;
    snprintf(a_path, sizeof a_path, "%s/%s", g_dir, a_rel);
    snprintf(b_path, sizeof b_path, "%s/%s", g_dir, b_rel);
    a = read_all(a_path, &na);
    b = read_all(b_path, &nb);
    same = a && b && na == nb && memcmp(a, b, na) == 0;
    free(a);
    free(b);
    return same;
}

/* Any temporary (".jf-PID-XXXXXX") left under a folder? */
int leftovers(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        char sub[2048];
        struct stat sb;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        if (strstr(e->d_name, ".jf-"))
            found++;
        if (stat(sub, &sb) == 0 && S_ISDIR(sb.st_mode))
            found += leftovers(sub);
    }
    closedir(d);
    return found;
}

