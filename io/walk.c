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

jf_format jf_extension_format(const char *name)
{
    static const struct { const char *ext; jf_format format; } exts[] = {
        {".jpg", JF_FORMAT_JPEG}, {".jpeg", JF_FORMAT_JPEG}, {".jpe", JF_FORMAT_JPEG},
        {".jfif", JF_FORMAT_JPEG}, {".png", JF_FORMAT_PNG},   {".tif", JF_FORMAT_TIFF},
        {".tiff", JF_FORMAT_TIFF}, {".webp", JF_FORMAT_WEBP}, {".pfm", JF_FORMAT_PFM}};
    const char *dot = strrchr(name, '.');
    size_t i;
    if (!dot || strchr(dot, '/'))
        return JF_FORMAT_UNKNOWN;
    for (i = 0; i < sizeof exts / sizeof exts[0]; i++)
        if (strcasecmp(dot, exts[i].ext) == 0)
            return exts[i].format;
    return JF_FORMAT_UNKNOWN;
}

int jf_has_image_extension(const char *name) { return jf_extension_format(name) != JF_FORMAT_UNKNOWN; }

jf_format jf_file_format(const char *path, double *bytes)
{
    unsigned char head[12];
    struct stat st;
    ssize_t n = -1;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return JF_FORMAT_UNKNOWN;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        n = read(fd, head, sizeof head);
        if (bytes)
            *bytes = (double)st.st_size;
    }
    close(fd);
    return n > 0 ? jf_sniff_format(head, (size_t)n) : JF_FORMAT_UNKNOWN;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A folder being walked: its sorted names (one block of text, so a folder
 * of a million files costs its names and a pointer each), and the next. */
typedef struct frame {
    char *dir, *rel;
    char *text;
    char **names;
    size_t count, next;
} frame;

struct jf_walker {
    const char *skip_real;
    int max_depth, depth; /* frames in use: depth + 1 (-1: none) */
    frame *frames;
    dev_t *dev;           /* the folders on the current path, for loops */
    ino_t *ino;
    int started;
    char *root;
    char path[PATH_MAX], rel[PATH_MAX], reason[192];
};

/* The sorted names in `dir` (hidden ones left out); 0, -1 with errno when
 * the folder cannot be read, -2 out of memory. */
static int list_names(const char *dir, frame *f)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t used = 0, cap = 0, i, k;
    char *text = NULL;
    if (!d)
        return -1;
    f->count = 0;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name) + 1;
        if (e->d_name[0] == '.') /* hidden files, "." and ".." and our own temporaries */
            continue;
        if (used + n > cap) {
            char *grown;
            cap = cap ? cap * 2 : 4096;
            while (cap < used + n)
                cap *= 2;
            if (!(grown = (char *)realloc(text, cap)))
                goto nomem;
            text = grown;
        }
        memcpy(text + used, e->d_name, n);
        used += n;
        f->count++;
    }
    closedir(d);
    f->text = text;
    if (!(f->names = (char **)malloc(sizeof *f->names * (f->count ? f->count : 1)))) {
        free(text);
        f->text = NULL;
        return -2;
    }
    for (i = 0, k = 0; i < f->count; i++, k += strlen(text + k) + 1)
        f->names[i] = text + k;
    qsort(f->names, f->count, sizeof *f->names, cmp_names);
    f->next = 0;
    return 0;
nomem:
    closedir(d);
    free(text);
    return -2;
}

static void pop(jf_walker *w)
{
    frame *f = &w->frames[w->depth--];
    free(f->dir);
    free(f->rel);
    free(f->text);
    free(f->names);
    memset(f, 0, sizeof *f);
}

/* Enter a folder: -1 out of memory, 1 an event (it cannot be read), 0. */
static int push(jf_walker *w, const char *dir, const char *rel, int *event)
{
    frame *f = &w->frames[w->depth + 1];
    int rc;
    memset(f, 0, sizeof *f);
    if ((rc = list_names(dir, f)) == -2)
        return -1;
    if (rc == -1) {
        snprintf(w->path, sizeof w->path, "%s", dir);
        snprintf(w->rel, sizeof w->rel, "%s", rel);
        snprintf(w->reason, sizeof w->reason, "%s", strerror(errno));
        *event = JF_WALK_FAILED;
        return 1;
    }
    if (!(f->dir = strdup(dir)) || !(f->rel = strdup(rel))) {
        w->depth++;
        pop(w);
        return -1;
    }
    w->depth++;
    return 0;
}

jf_walker *jf_walker_open(const char *root, const char *skip_real, int max_depth)
{
    jf_walker *w = (jf_walker *)calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->skip_real = skip_real;
    w->max_depth = max_depth > 0 ? max_depth : JF_WALK_DEFAULT_DEPTH;
    w->depth = -1;
    w->frames = (frame *)calloc((size_t)w->max_depth + 2, sizeof *w->frames);
    w->dev = (dev_t *)malloc(sizeof *w->dev * (size_t)(w->max_depth + 2));
    w->ino = (ino_t *)malloc(sizeof *w->ino * (size_t)(w->max_depth + 2));
    w->root = strdup(root);
    if (!w->frames || !w->dev || !w->ino || !w->root) {
        jf_walker_close(w);
        return NULL;
    }
    return w;
}

void jf_walker_close(jf_walker *w)
{
    if (!w)
        return;
    while (w->depth >= 0)
        pop(w);
    free(w->frames);
    free(w->dev);
    free(w->ino);
    free(w->root);
    free(w);
}

/* What one entry is: 1 with an event, 0 when it was a folder entered (or
 * the output folder, left out), -1 out of memory. */
static int visit(jf_walker *w, const char *name, int *event)
{
    struct stat lsb, sb;
    const int depth = w->depth;
    int i;
    w->reason[0] = '\0';
    if (lstat(w->path, &lsb) != 0) {
        snprintf(w->reason, sizeof w->reason, "%s", strerror(errno));
        *event = JF_WALK_FAILED;
        return 1;
    }
    if (stat(w->path, &sb) != 0) { /* an image's name: it was meant to be read */
        snprintf(w->reason, sizeof w->reason, "%s",
                 errno == ELOOP ? "symbolic link loop" : "dangling symbolic link");
        *event = jf_has_image_extension(name) ? JF_WALK_FAILED : JF_WALK_OTHER;
        return 1;
    }
    if (S_ISDIR(sb.st_mode)) {
        char real[PATH_MAX];
        if (w->skip_real && realpath(w->path, real) && strcmp(real, w->skip_real) == 0)
            return 0; /* the output folder inside an input folder */
        for (i = 0; i <= depth; i++)
            if (w->dev[i] == sb.st_dev && w->ino[i] == sb.st_ino) {
                snprintf(w->reason, sizeof w->reason,
                         "link to a folder it is inside of (a loop); not followed");
                *event = JF_WALK_PASSED;
                return 1;
            }
        if (depth + 1 > w->max_depth) {
            snprintf(w->reason, sizeof w->reason, "folder nested deeper than %d levels, the "
                     "limit; not read (raise it with --max-depth)", w->max_depth);
            *event = JF_WALK_FAILED;
            return 1;
        }
        w->dev[depth + 1] = sb.st_dev;
        w->ino[depth + 1] = sb.st_ino;
        {
            char dir[PATH_MAX], rel[PATH_MAX];
            memcpy(dir, w->path, sizeof dir);
            memcpy(rel, w->rel, sizeof rel);
            return push(w, dir, rel, event);
        }
    }
    if (!S_ISREG(sb.st_mode)) { /* never opened: a FIFO would block */
        snprintf(w->reason, sizeof w->reason, "%s",
                 S_ISFIFO(sb.st_mode) ? "a FIFO, not a file" :
                 S_ISSOCK(sb.st_mode) ? "a socket, not a file" : "a device, not a file");
        *event = jf_has_image_extension(name) ? JF_WALK_FAILED : JF_WALK_OTHER;
        return 1;
    }
    *event = jf_has_image_extension(name) || jf_file_format(w->path, NULL) != JF_FORMAT_UNKNOWN ? JF_WALK_IMAGE
                                                                               : JF_WALK_OTHER;
    return 1;
}

int jf_walker_next(jf_walker *w, jf_walk_event *event, const char **path, const char **rel,
                   const char **reason)
{
    int ev = JF_WALK_OTHER, rc;
    *path = w->path;
    *rel = w->rel;
    *reason = NULL;
    if (!w->started) {
        struct stat sb;
        w->started = 1;
        if (stat(w->root, &sb) != 0) {
            snprintf(w->path, sizeof w->path, "%s", w->root); /* rel is still "" */
            snprintf(w->reason, sizeof w->reason, "%s", strerror(errno));
            *event = JF_WALK_FAILED;
            *reason = w->reason;
            return 1;
        }
        w->dev[0] = sb.st_dev;
        w->ino[0] = sb.st_ino;
        if ((rc = push(w, w->root, "", &ev)) != 0) {
            *event = (jf_walk_event)ev;
            *reason = w->reason;
            return rc;
        }
    }
    while (w->depth >= 0) {
        frame *f = &w->frames[w->depth];
        const char *name;
        int n1, n2;
        if (f->next == f->count) {
            pop(w);
            continue;
        }
        name = f->names[f->next++];
        n1 = snprintf(w->path, sizeof w->path, "%s/%s", f->dir, name);
        n2 = f->rel[0] ? snprintf(w->rel, sizeof w->rel, "%s/%s", f->rel, name)
                       : snprintf(w->rel, sizeof w->rel, "%s", name);
        if (n1 < 0 || (size_t)n1 >= sizeof w->path || n2 < 0 || (size_t)n2 >= sizeof w->rel) {
            snprintf(w->path, sizeof w->path, "%s", f->dir);
            snprintf(w->rel, sizeof w->rel, "%s", f->rel);
            snprintf(w->reason, sizeof w->reason, "a path inside is too long");
            *event = JF_WALK_FAILED;
            *reason = w->reason;
            return 1;
        }
        if ((rc = visit(w, name, &ev)) != 0) {
            *event = (jf_walk_event)ev;
            *reason = w->reason[0] ? w->reason : NULL;
            return rc;
        }
    }
    return 0;
}

int jf_walk(const char *root, const char *skip_real, int max_depth, jf_walk_fn fn, void *user)
{
    jf_walker *w = jf_walker_open(root, skip_real, max_depth);
    jf_walk_event ev;
    const char *path, *rel, *reason;
    int rc;
    if (!w)
        return -1;
    while ((rc = jf_walker_next(w, &ev, &path, &rel, &reason)) == 1)
        if ((rc = fn(user, ev, path, rel, reason)) != 0)
            break;
    jf_walker_close(w);
    return rc;
}
