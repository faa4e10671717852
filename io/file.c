/* Whole-file reads, atomic writes through a temporary name, mkdir -p. */
#define _DEFAULT_SOURCE
#include "io/io.h"
#include "core/errors.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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
    /* non-blocking: a FIFO or a device is refused below, never waited on */
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return jf_fail(JF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0) {
        st = jf_fail(JF_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
        goto done;
    }
    if (!S_ISREG(sb.st_mode)) {
        st = jf_fail(JF_ERR_IO, "%s: %s, not a regular file", path,
                     S_ISDIR(sb.st_mode) ? "a folder" : S_ISFIFO(sb.st_mode) ? "a FIFO" : "a device");
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

jf_status jf_read_fd(int fd, const char *name, size_t limit, unsigned char **bytes, size_t *size)
{
    unsigned char *buf = NULL;
    size_t got = 0, cap = 0;
    *bytes = NULL;
    *size = 0;
    if (isatty(fd))
        return jf_fail(JF_ERR_IO, "%s is a terminal: pipe an image in (e.g. < photo.jpg)", name);
    for (;;) {
        ssize_t n;
        if (got == cap) {
            size_t grown_cap = cap ? 2 * cap : 1 << 16;
            unsigned char *grown;
            if (cap > limit) {
                free(buf);
                return jf_fail(JF_ERR_LIMIT, "%s: more than %zu bytes", name, limit);
            }
            if (!(grown = (unsigned char *)realloc(buf, grown_cap + 1))) {
                free(buf);
                return jf_fail(JF_ERR_NOMEM, "%s: out of memory", name);
            }
            buf = grown;
            cap = grown_cap;
        }
        n = read(fd, buf + got, cap - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            free(buf);
            return jf_fail(JF_ERR_IO, "%s: read failed: %s", name, strerror(errno));
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    if (got > limit) {
        free(buf);
        return jf_fail(JF_ERR_LIMIT, "%s: more than %zu bytes", name, limit);
    }
    if (got == 0) {
        free(buf);
        return jf_fail(JF_ERR_IO, "%s: empty (no image came)", name);
    }
    *bytes = buf;
    *size = got;
    return JF_OK;
}

jf_status jf_write_fd(int fd, const char *name, const unsigned char *bytes, size_t size)
{
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, bytes + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return jf_fail(JF_ERR_IO, "%s: %s", name,
                           errno == EPIPE ? "closed before the image was written" : strerror(errno));
        done += (size_t)n;
    }
    return JF_OK;
}

/* Temporary files being written, so a signal handler can remove them: one
 * slot per write in flight (every job of the largest -j, and then some). */
#define JF_MAX_PENDING 1024
static char g_pending[JF_MAX_PENDING][PATH_MAX];
static volatile sig_atomic_t g_pending_used[JF_MAX_PENDING];
static pthread_mutex_t g_pending_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set by the signal handler's cleanup: no temporary is made after it.
 * g_opening counts the threads between deciding to make one and having it
 * in the list, which the cleanup waits for (a short while at most). */
static volatile sig_atomic_t g_dying;
static int g_opening;
static int g_sync = 1;

void jf_set_sync_writes(int on) { g_sync = on; }
int jf_sync_writes(void) { return g_sync; }

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
    /* only async-signal-safe calls: it runs in a signal handler */
    const struct timespec tick = {0, 1000000};
    int i;
    g_dying = 1;
    for (i = 0; i < 200 && __atomic_load_n(&g_opening, __ATOMIC_SEQ_CST) > 0; i++)
        nanosleep(&tick, NULL); /* (the handler's own thread may be one of them) */
    for (i = 0; i < JF_MAX_PENDING; i++)
        if (g_pending_used[i])
            unlink(g_pending[i]);
}

/* The process's umask, read once: umask() can only be read by setting it,
 * which is not safe while other threads create files. */
static mode_t g_mask;
static pthread_once_t g_mask_once = PTHREAD_ONCE_INIT;
static void read_mask(void)
{
    g_mask = umask(0);
    umask(g_mask);
}

/* The folder of `path` ("." when it has none). */
static void folder_of(const char *path, char *dir, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, n, ".");
    else if (slash == path)
        snprintf(dir, n, "/");
    else
        snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

/* After a rename, the folder entry itself must reach the disk too. */
static void sync_folder(const char *path)
{
    char dir[PATH_MAX];
    int fd;
    folder_of(path, dir, sizeof dir);
    if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
        fsync(fd);
        close(fd);
    }
}

static jf_status write_all(int fd, const char *path, const unsigned char *bytes, size_t size)
{
    size_t put = 0;
    while (put < size) {
        ssize_t w = write(fd, bytes + put, size - put);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return jf_fail(JF_ERR_IO, "%s: write failed: %s", path,
                           w < 0 ? strerror(errno) : "no space written");
        put += (size_t)w;
    }
    return JF_OK;
}

jf_status jf_atomic_open(const char *path, jf_atomic_file *f)
{
    char dir[PATH_MAX];
    sigset_t all, was;
    int n, err = 0;

    /* Beside the target, so the rename stays on one file system; a short
     * name (any legal output name still fits), hidden by its dot, with our
     * process id, so a later run can tell a stale one from a live one. */
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->slot = -1;
    if (snprintf(f->path, sizeof f->path, "%s", path) >= (int)sizeof f->path)
        return jf_fail(JF_ERR_IO, "%s: path too long", path);
    folder_of(path, dir, sizeof dir);
    n = snprintf(f->tmp, sizeof f->tmp, "%s/.jf-%ld-XXXXXX", dir, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof f->tmp)
        return jf_fail(JF_ERR_IO, "%s: path too long", path);
    /* made and listed with this thread's signals held (a handler here
     * would leave it unlisted); another thread's handler waits for it */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &was);
    __atomic_add_fetch(&g_opening, 1, __ATOMIC_SEQ_CST);
    if (!g_dying) {
        f->fd = mkstemp(f->tmp);
        err = errno;
        if (f->fd >= 0)
            f->slot = pending_add(f->tmp);
    }
    __atomic_sub_fetch(&g_opening, 1, __ATOMIC_SEQ_CST);
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    if (g_dying && f->fd < 0)
        return jf_fail(JF_ERR_IO, "%s: not made: the process is ending", path);
    if (f->fd < 0)
        return jf_fail(JF_ERR_IO, "%s: cannot create: %s", path, strerror(err));
    pthread_once(&g_mask_once, read_mask);
    if (fchmod(f->fd, 0666 & ~g_mask) != 0) {
        jf_status st = jf_fail(JF_ERR_IO, "%s: cannot set permissions: %s", path, strerror(errno));
        jf_atomic_abort(f);
        return st;
    }
    return JF_OK;
}

jf_status jf_atomic_commit(jf_atomic_file *f)
{
    jf_status st;
    if (g_sync && fsync(f->fd) != 0 && errno != EINVAL && errno != EROFS) {
        st = jf_fail(JF_ERR_IO, "%s: cannot flush to disk: %s", f->path, strerror(errno));
        jf_atomic_abort(f);
        return st;
    }
    if (close(f->fd) != 0) {
        f->fd = -1;
        st = jf_fail(JF_ERR_IO, "%s: write failed: %s", f->path, strerror(errno));
        jf_atomic_abort(f);
        return st;
    }
    f->fd = -1;
    if (rename(f->tmp, f->path) != 0) {
        st = jf_fail(JF_ERR_IO, "%s: cannot rename into place: %s", f->path, strerror(errno));
        jf_atomic_abort(f);
        return st;
    }
    pending_remove(f->slot);
    f->slot = -1;
    if (g_sync)
        sync_folder(f->path);
    return JF_OK;
}

void jf_atomic_abort(jf_atomic_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    if (f->tmp[0])
        unlink(f->tmp);
    f->tmp[0] = '\0';
    pending_remove(f->slot);
    f->slot = -1;
}

jf_status jf_write_file_atomic(const char *path, const unsigned char *bytes, size_t size)
{
    jf_atomic_file f;
    jf_status st;
    if ((st = jf_atomic_open(path, &f)) != JF_OK)
        return st;
    if ((st = write_all(f.fd, path, bytes, size)) != JF_OK) {
        jf_atomic_abort(&f);
        return st;
    }
    return jf_atomic_commit(&f);
}

/* ".jf-PID-XXXXXX": the pid, or -1 when the name is not ours. */
static long temporary_pid(const char *name)
{
    char *end;
    long pid;
    size_t n;
    if (strncmp(name, ".jf-", 4) != 0)
        return -1;
    pid = strtol(name + 4, &end, 10);
    if (end == name + 4 || *end != '-' || pid <= 0)
        return -1;
    n = strlen(end + 1);
    return n == 6 ? pid : -1;
}

int jf_remove_stale_temporaries(const char *folder, long long before)
{
    DIR *d = opendir(folder);
    struct dirent *e;
    int removed = 0;
    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        char path[PATH_MAX];
        struct stat sb;
        long pid = temporary_pid(e->d_name);
        if (pid < 0 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* its writer may still be running */
        if (snprintf(path, sizeof path, "%s/%s", folder, e->d_name) >= (int)sizeof path ||
            lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || (long long)sb.st_mtime >= before)
            continue;
        removed += unlink(path) == 0;
    }
    closedir(d);
    return removed;
}

jf_status jf_mkdirs(const char *path);

/* jf_mkdirs of the first n bytes of path */
static jf_status jf_mkdirs_n(const char *path, size_t n)
{
    char buf[PATH_MAX];
    if (n >= sizeof buf)
        return jf_fail(JF_ERR_IO, "%.64s...: path too long", path);
    memcpy(buf, path, n);
    buf[n] = '\0';
    return jf_mkdirs(buf);
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

jf_status jf_mkdirs_below(const char *root, const char *path)
{
    char buf[PATH_MAX];
    size_t r = strlen(root), i, n = strlen(path);
    struct stat sb;
    while (r > 1 && root[r - 1] == '/')
        r--;
    if (strncmp(path, root, r) != 0 || (path[r] != '/' && path[r] != '\0'))
        return jf_mkdirs(path);
    if ((r && jf_mkdirs_n(root, r) != JF_OK) || n >= sizeof buf)
        return n >= sizeof buf ? jf_fail(JF_ERR_IO, "%s: path too long", path) : JF_ERR_IO;
    memcpy(buf, path, n + 1);
    for (i = r + 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        if (buf[i - 1] == '/') /* "a//b" */
            continue;
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return jf_fail(JF_ERR_IO, "%s: cannot create folder: %s", buf, strerror(errno));
        if (lstat(buf, &sb) != 0 || !S_ISDIR(sb.st_mode))
            return jf_fail(JF_ERR_IO, "%s: %s; outputs are not written through links inside "
                           "the output folder", buf,
                           lstat(buf, &sb) == 0 && S_ISLNK(sb.st_mode) ? "a symbolic link"
                                                                       : "not a folder");
        if (i < n)
            buf[i] = '/';
    }
    return JF_OK;
}

/* A TIFF's first directory inside the file: libtiff writes the directories
 * after the pixels, so a file cut short loses it. */
static int tiff_whole(int fd, const unsigned char *head, off_t size)
{
    const int be = head[0] == 'M', big = head[2 + be] == 43;
    unsigned char b[8];
    uint64_t at = 0, entries = 0;
    int i;
    for (i = 0; i < (big ? 8 : 4); i++) /* the first directory's offset */
        at |= (uint64_t)head[(big ? 8 : 4) + (be ? (big ? 7 : 3) - i : i)] << (8 * i);
    if (at < 8 || at + (big ? 8u : 2u) > (uint64_t)size || pread(fd, b, big ? 8 : 2, (off_t)at) != (big ? 8 : 2))
        return 0;
    for (i = 0; i < (big ? 8 : 2); i++)
        entries |= (uint64_t)b[be ? (big ? 7 : 1) - i : i] << (8 * i);
    return entries > 0 && entries < 65536 &&
           at + (big ? 8u : 2u) + entries * (big ? 20u : 12u) + (big ? 8u : 4u) <= (uint64_t)size;
}

int jf_file_whole_image(const char *path, char *why, size_t n)
{
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    unsigned char head[16], tail[12];
    struct stat sb;
    int fd, whole = 0;
    char tmp[8];
    if (!why) {
        why = tmp;
        n = sizeof tmp;
    }
    why[0] = '\0';
    if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0 || fstat(fd, &sb) != 0) {
        snprintf(why, n, "cannot read it: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return 0;
    }
    if (!S_ISREG(sb.st_mode) || sb.st_size < (off_t)(sizeof head + sizeof tail) ||
        pread(fd, head, sizeof head, 0) != (ssize_t)sizeof head ||
        pread(fd, tail, sizeof tail, sb.st_size - (off_t)sizeof tail) != (ssize_t)sizeof tail) {
        snprintf(why, n, "%s", S_ISREG(sb.st_mode) ? "empty or cut short" : "not a regular file");
    } else {
        switch (jf_sniff_format(head, sizeof head)) {
        case JF_FORMAT_JPEG: whole = tail[10] == 0xFF && tail[11] == 0xD9; break;
        case JF_FORMAT_PNG: whole = memcmp(tail, iend, sizeof iend) == 0; break;
        case JF_FORMAT_WEBP: /* the RIFF size is the file's */
            whole = (uint64_t)head[4] + ((uint64_t)head[5] << 8) + ((uint64_t)head[6] << 16) +
                    ((uint64_t)head[7] << 24) + 8 == (uint64_t)sb.st_size;
            break;
        case JF_FORMAT_TIFF: whole = tiff_whole(fd, head, sb.st_size); break;
        case JF_FORMAT_PFM: { /* the header's size of samples is all there */
            unsigned char h[128];
            jf_pfm_scan ps;
            const ssize_t got = pread(fd, h, sizeof h, 0);
            whole = got > 0 && jf_pfm_header(h, (size_t)got, (uint64_t)sb.st_size, &ps, why, n);
            break;
        }
        default: snprintf(why, n, "not a JPEG, PNG, TIFF, WebP or PFM file"); break;
        }
    }
    if (!whole && !why[0])
        snprintf(why, n, "cut short (no end marker)");
    close(fd);
    return whole;
}
