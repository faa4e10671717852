/* Finding image files under folders. */
#define _DEFAULT_SOURCE
#include "pipeline/batch.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

int has_image_extension(const char *name)
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

/* A file without an image extension counts if its first bytes say JPEG/PNG. */
static int sniffs_as_image(const char *path)
{
    unsigned char head[8];
    ssize_t n;
    int fd = open(path, O_RDONLY);
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

static int walk(batch *b, const char *dir, const char *rel, const char *skip_real,
                walk_add_fn add, int depth)
{
    DIR *d;
    struct dirent *e;
    char **names = NULL;
    size_t count = 0, cap = 0, i;
    int rc = 0;

    if (depth > 64) {
        cli_log("jetfilter: %s: folders nested too deeply, not descending", dir);
        return 0;
    }
    d = opendir(dir);
    if (!d) {
        cli_log("jetfilter: %s: cannot open folder", dir);
        return 1;
    }
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') /* hidden files, "." and ".." and our own temporaries */
            continue;
        if (count == cap) {
            char **grown;
            cap = cap ? cap * 2 : 64;
            grown = (char **)realloc(names, cap * sizeof *names);
            if (!grown) { rc = 1; break; }
            names = grown;
        }
        names[count] = strdup(e->d_name);
        if (!names[count]) { rc = 1; break; }
        count++;
    }
    closedir(d);
    if (names)
        qsort(names, count, sizeof *names, cmp_names);
    for (i = 0; i < count && rc == 0; i++) {
        char path[PATH_MAX], sub[PATH_MAX];
        struct stat lsb, sb;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (rel[0])
            snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
        else
            snprintf(sub, sizeof sub, "%s", names[i]);
        if (lstat(path, &lsb) != 0 || stat(path, &sb) != 0)
            continue; /* dangling link */
        if (S_ISDIR(sb.st_mode)) {
            char real[PATH_MAX];
            if (S_ISLNK(lsb.st_mode))
                continue; /* links to folders could loop */
            if (skip_real && realpath(path, real) && strcmp(real, skip_real) == 0)
                continue; /* the output folder inside an input folder */
            rc = walk(b, path, sub, skip_real, add, depth + 1);
        } else if (S_ISREG(sb.st_mode)) {
            if (has_image_extension(names[i]) || sniffs_as_image(path))
                rc = add(b, path, sub);
            else
                b->ignored++;
        }
    }
    for (i = 0; i < count; i++)
        free(names[i]);
    free(names);
    return rc;
}

int walk_folder(batch *b, const char *root, const char *skip_real, walk_add_fn add)
{
    return walk(b, root, "", skip_real, add, 0);
}
