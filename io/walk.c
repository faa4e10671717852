/* Finding image files under folders, with every odd entry reported rather
 * than skipped in silence: unreadable folders, dangling links, link loops,
 * FIFOs and devices, folders past the depth limit. */
#define _DEFAULT_SOURCE
#include "io/io.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

int jf_has_image_extension(const char *name)
{
    static const char *const exts[] = {".jpg", ".jpeg", ".jpe", ".jfif", ".png"};
    const char *dot = strrchr(name, '.');
    size_t i;
    if (!dot || strchr(dot, '/'))
        return 0;
    for (i = 0; i < sizeof exts / sizeof exts[0]; i++)
        if (strcasecmp(dot, exts[i]) == 0)
            return 1;
    return 0;
}

int jf_file_sniffs_as_image(const char *path)
{
    unsigned char head[8];
    ssize_t n;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    n = read(fd, head, sizeof head);
    close(fd);
    return n > 0 && jf_sniff_format(head, (size_t)n) != JF_FORMAT_UNKNOWN;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

typedef struct walker {
    jf_walk_fn fn;
    void *user;
    const char *skip_real;
    int max_depth;
    dev_t *dev; /* the folders on the current path (max_depth + 1), for loops */
    ino_t *ino;
} walker;

/* The sorted names in `dir` (hidden ones left out), or NULL with errno. */
static char **list_names(const char *dir, size_t *count, int *oom)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t cap = 0;
    *count = 0;
    *oom = 0;
    if (!d)
        return NULL;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') /* hidden files, "." and ".." and our own temporaries */
            continue;
        if (*count == cap) {
            char **grown;
            cap = cap ? cap * 2 : 64;
            if (!(grown = (char **)realloc(names, cap * sizeof *names)))
                goto nomem;
            names = grown;
        }
        if (!(names[*count] = strdup(e->d_name)))
            goto nomem;
        (*count)++;
    }
    closedir(d);
    if (!names) /* an empty folder: a valid, empty list */
        names = (char **)malloc(sizeof *names);
    if (!names)
        *oom = 1;
    else
        qsort(names, *count, sizeof *names, cmp_names);
    return names;
nomem:
    closedir(d);
    while (*count > 0)
        free(names[--*count]);
    free(names);
    *oom = 1;
    return NULL;
}

static int walk_dir(walker *w, const char *dir, const char *rel, int depth);

static int visit(walker *w, const char *path, const char *sub, const char *name, int depth)
{
    struct stat lsb, sb;
    char reason[160];
    int i;
    if (lstat(path, &lsb) != 0)
        return w->fn(w->user, JF_WALK_FAILED, path, sub, strerror(errno));
    if (stat(path, &sb) != 0) { /* an image's name: it was meant to be read */
        snprintf(reason, sizeof reason, "%s",
                 errno == ELOOP ? "symbolic link loop" : "dangling symbolic link");
        return w->fn(w->user, jf_has_image_extension(name) ? JF_WALK_FAILED : JF_WALK_OTHER, path,
                     sub, reason);
    }
    if (S_ISDIR(sb.st_mode)) {
        char real[PATH_MAX];
        if (w->skip_real && realpath(path, real) && strcmp(real, w->skip_real) == 0)
            return 0; /* the output folder inside an input folder */
        for (i = 0; i <= depth; i++)
            if (w->dev[i] == sb.st_dev && w->ino[i] == sb.st_ino)
                return w->fn(w->user, JF_WALK_PASSED, path, sub,
                             "link to a folder it is inside of (a loop); not followed");
        if (depth + 1 > w->max_depth) {
            snprintf(reason, sizeof reason, "folder nested deeper than %d levels, the limit; "
                     "not read (raise it with --max-depth)", w->max_depth);
            return w->fn(w->user, JF_WALK_FAILED, path, sub, reason);
        }
        w->dev[depth + 1] = sb.st_dev;
        w->ino[depth + 1] = sb.st_ino;
        return walk_dir(w, path, sub, depth + 1);
    }
    if (!S_ISREG(sb.st_mode)) /* never opened: a FIFO would block */
        return w->fn(w->user, jf_has_image_extension(name) ? JF_WALK_FAILED : JF_WALK_OTHER, path,
                     sub, S_ISFIFO(sb.st_mode) ? "a FIFO, not a file" :
                          S_ISSOCK(sb.st_mode) ? "a socket, not a file" : "a device, not a file");
    if (jf_has_image_extension(name) || jf_file_sniffs_as_image(path))
        return w->fn(w->user, JF_WALK_IMAGE, path, sub, NULL);
    return w->fn(w->user, JF_WALK_OTHER, path, sub, NULL);
}

static int walk_dir(walker *w, const char *dir, const char *rel, int depth)
{
    size_t count = 0, i;
    int oom, rc = 0;
    char **names = list_names(dir, &count, &oom);
    if (!names)
        return oom ? -1 : w->fn(w->user, JF_WALK_FAILED, dir, rel, strerror(errno));
    for (i = 0; i < count && rc == 0; i++) {
        char path[PATH_MAX], sub[PATH_MAX];
        int n1 = snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        int n2 = rel[0] ? snprintf(sub, sizeof sub, "%s/%s", rel, names[i])
                        : snprintf(sub, sizeof sub, "%s", names[i]);
        if (n1 < 0 || (size_t)n1 >= sizeof path || n2 < 0 || (size_t)n2 >= sizeof sub)
            rc = w->fn(w->user, JF_WALK_FAILED, dir, rel, "a path inside is too long");
        else
            rc = visit(w, path, sub, names[i], depth);
    }
    for (i = 0; i < count; i++)
        free(names[i]);
    free(names);
    return rc;
}

int jf_walk(const char *root, const char *skip_real, int max_depth, jf_walk_fn fn, void *user)
{
    walker w;
    struct stat sb;
    int rc;
    memset(&w, 0, sizeof w);
    w.fn = fn;
    w.user = user;
    w.skip_real = skip_real;
    w.max_depth = max_depth > 0 ? max_depth : JF_WALK_DEFAULT_DEPTH;
    if (stat(root, &sb) != 0)
        return fn(user, JF_WALK_FAILED, root, "", strerror(errno));
    w.dev = (dev_t *)malloc(sizeof *w.dev * (size_t)(w.max_depth + 1));
    w.ino = (ino_t *)malloc(sizeof *w.ino * (size_t)(w.max_depth + 1));
    if (!w.dev || !w.ino) {
        free(w.dev);
        free(w.ino);
        return -1;
    }
    w.dev[0] = sb.st_dev;
    w.ino[0] = sb.st_ino;
    rc = walk_dir(&w, root, "", 0);
    free(w.dev);
    free(w.ino);
    return rc;
}
