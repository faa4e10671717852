/* Whole-file reads, atomic writes through a temporary name, mkdir -p. */
#define _POSIX_C_SOURCE 200809L
#include "io/io.h"
#include "core/errors.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

jf_status jf_read_file(const char *path, size_t limit, unsigned char **bytes, size_t *size)
{
    struct stat sb;
    unsigned char *buf = NULL;
    size_t got = 0;
    jf_status st = JF_OK;
    int fd;

    *bytes = NULL;
    *size = 0;
    fd = open(path, O_RDONLY);
    if (fd < 0)
        return jf_fail(JF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0) {
        st = jf_fail(JF_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
        goto done;
    }
    if (S_ISDIR(sb.st_mode)) {
        st = jf_fail(JF_ERR_IO, "%s: is a folder", path);
        goto done;
    }
    if ((uint64_t)sb.st_size > limit) {
        st = jf_fail(JF_ERR_LIMIT, "%s: file of %lld bytes is larger than %zu", path,
                     (long long)sb.st_size, limit);
        goto done;
    }
    buf = (unsigned char *)malloc((size_t)sb.st_size + 1);
    if (!buf) {
        st = jf_fail(JF_ERR_NOMEM, "%s: out of memory", path);
        goto done;
    }
    while (got < (size_t)sb.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)sb.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            st = jf_fail(JF_ERR_IO, "%s: read failed: %s", path, strerror(errno));
            goto done;
        }
        if (n == 0)
            break; /* file shrank while reading: decode what is there */
        got += (size_t)n;
    }
    *bytes = buf;
    *size = got;
    buf = NULL;
done:
    free(buf);
    close(fd);
    return st;
}

/* Temporary files being written, so a signal handler can remove them. */
#define JF_MAX_PENDING 64
static char g_pending[JF_MAX_PENDING][PATH_MAX];
static volatile sig_atomic_t g_pending_used[JF_MAX_PENDING];
static pthread_mutex_t g_pending_lock = PTHREAD_MUTEX_INITIALIZER;

static int pending_add(const char *path)
{
    int i, slot = -1;
    pthread_mutex_lock(&g_pending_lock);
    for (i = 0; i < JF_MAX_PENDING; i++) {
        if (!g_pending_used[i]) {
            snprintf(g_pending[i], PATH_MAX, "%s", path);
            g_pending_used[i] = 1;
            slot = i;
            break;
        }
    }
    pthread_mutex_unlock(&g_pending_lock);
    return slot;
}

static void pending_remove(int slot)
{
    if (slot >= 0)
        g_pending_used[slot] = 0;
}

void jf_atomic_cleanup(void)
{
    int i;
    for (i = 0; i < JF_MAX_PENDING; i++)
        if (g_pending_used[i])
            unlink(g_pending[i]);
}

jf_status jf_write_file_atomic(const char *path, const unsigned char *bytes, size_t size)
{
    char tmp[PATH_MAX];
    const char *slash = strrchr(path, '/');
    size_t put = 0;
    mode_t mask;
    int fd, slot, n;
    jf_status st = JF_OK;

    /* The temporary lives beside the target so the rename stays on one file
     * system; a leading dot keeps it out of sight while it is written. */
    if (slash)
        n = snprintf(tmp, sizeof tmp, "%.*s/.%s.jf-XXXXXX", (int)(slash - path), path, slash + 1);
    else
        n = snprintf(tmp, sizeof tmp, ".%s.jf-XXXXXX", path);
    if (n < 0 || (size_t)n >= sizeof tmp)
        return jf_fail(JF_ERR_IO, "%s: path too long", path);
    fd = mkstemp(tmp);
    if (fd < 0)
        return jf_fail(JF_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    slot = pending_add(tmp);
    mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) {
        st = jf_fail(JF_ERR_IO, "%s: cannot set permissions: %s", path, strerror(errno));
        goto fail;
    }
    while (put < size) {
        ssize_t w = write(fd, bytes + put, size - put);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            st = jf_fail(JF_ERR_IO, "%s: write failed: %s", path,
                         w < 0 ? strerror(errno) : "no space written");
            goto fail;
        }
        put += (size_t)w;
    }
    if (close(fd) != 0) {
        fd = -1;
        st = jf_fail(JF_ERR_IO, "%s: write failed: %s", path, strerror(errno));
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path) != 0) {
        st = jf_fail(JF_ERR_IO, "%s: cannot rename into place: %s", path, strerror(errno));
        goto fail;
    }
    pending_remove(slot);
    return JF_OK;
fail:
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    pending_remove(slot);
    return st;
}

jf_status jf_mkdirs(const char *path)
{
    char buf[PATH_MAX];
    size_t i, n = strlen(path);
    struct stat sb;
    if (n == 0)
        return JF_OK;
    if (n >= sizeof buf)
        return jf_fail(JF_ERR_IO, "%s: path too long", path);
    memcpy(buf, path, n + 1);
    for (i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return jf_fail(JF_ERR_IO, "%s: cannot create folder: %s", buf, strerror(errno));
        if (stat(buf, &sb) != 0 || !S_ISDIR(sb.st_mode))
            return jf_fail(JF_ERR_IO, "%s: exists and is not a folder", buf);
        if (i < n)
            buf[i] = '/';
    }
    return JF_OK;
}
