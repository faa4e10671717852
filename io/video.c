/*
 * Video streams: YUV4MPEG2 (the format of ffmpeg's yuv4mpegpipe and
 * GStreamer's y4menc) and headerless raw frames, read from and written to
 * file descriptors, so pipes work as well as files.
 *
 * Y4M: "YUV4MPEG2 W1280 H720 F30:1 Ip A1:1 C420jpeg XCOMMENT\n", then per
 * frame "FRAME[ params]\n" and the planes one after another.  The header is
 * kept verbatim so everything we do not use (rate, aspect, interlacing,
 * comments) passes through unchanged.  Frame bytes go from the descriptor
 * straight into the caller's planes; only lines pass through a small buffer.
 */
#define _POSIX_C_SOURCE 200809L
#include "core/errors.h"
#include "core/image.h"
#include "jetfilter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define BUF_SIZE 65536

struct jf_video_reader {
    int fd;
    char name[256];
    jf_video_format fmt;
    char header[JF_VIDEO_MAX_LINE];
    char params[JF_VIDEO_MAX_LINE];
    long long frame; /* frames read so far: the number of the next */
    unsigned char buf[BUF_SIZE];
    size_t pos, len;
    int eof;
};

struct jf_video_writer {
    int fd;
    char name[256];
    jf_video_format fmt;
    long long frame;
};

static void set_name(char *dst, size_t n, const char *name)
{
    snprintf(dst, n, "%s", !name ? "<stream>" : strcmp(name, "-") == 0 ? "standard input" : name);
}

/* ---- layouts ------------------------------------------------------------------ */

/* A layout by its name: planes, chroma shifts, channels of plane 0. */
typedef struct layout {
    const char *name;
    int planes, color_planes, sx, sy, channels;
} layout;

static const layout Y4M_LAYOUTS[] = {
    {"mono", 1, 1, 0, 0, 1},     {"420jpeg", 3, 3, 1, 1, 1}, {"420paldv", 3, 3, 1, 1, 1},
    {"420mpeg2", 3, 3, 1, 1, 1}, {"420", 3, 3, 1, 1, 1},     {"411", 3, 3, 2, 0, 1},
    {"422", 3, 3, 1, 0, 1},      {"444", 3, 3, 0, 0, 1},     {"444alpha", 4, 3, 0, 0, 1},
};
static const layout RAW_LAYOUTS[] = {
    {"gray", 1, 1, 0, 0, 1},    {"rgb24", 1, 1, 0, 0, 3},   {"yuv420p", 3, 3, 1, 1, 1},
    {"yuv422p", 3, 3, 1, 0, 1}, {"yuv444p", 3, 3, 0, 0, 1},
};

static const layout *find_layout(const layout *t, size_t n, const char *name)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return &t[i];
    return NULL;
}

static jf_status fill_format(const char *name, const layout *l, int w, int h, jf_video_format *f)
{
    int p;
    jf_status st;
    uint64_t bytes = 0;
    if ((st = jf_check_dims(name, (uint64_t)w, (uint64_t)h, l->channels)) != JF_OK)
        return st;
    f->width = w;
    f->height = h;
    f->planes = l->planes;
    f->color_planes = l->color_planes;
    snprintf(f->layout, sizeof f->layout, "%s", l->name);
    for (p = 0; p < l->planes; p++) {
        int chroma = p == 1 || p == 2;
        f->plane_width[p] = chroma ? (w + (1 << l->sx) - 1) >> l->sx : w;
        f->plane_height[p] = chroma ? (h + (1 << l->sy) - 1) >> l->sy : h;
        f->plane_channels[p] = p == 0 ? l->channels : 1;
        bytes += (uint64_t)f->plane_width[p] * (uint64_t)f->plane_height[p] * (uint64_t)f->plane_channels[p];
    }
    f->frame_bytes = bytes;
    return JF_OK;
}

/* ---- reading ------------------------------------------------------------------- */

/* One read() from the descriptor, retried when a signal interrupts it. */
static jf_status rd_raw(jf_video_reader *r, unsigned char *dst, size_t n, size_t *got)
{
    ssize_t k;
    while ((k = read(r->fd, dst, n)) < 0)
        if (errno != EINTR)
            return jf_fail(JF_ERR_IO, "%s: frame %lld: read failed: %s", r->name, r->frame,
                           strerror(errno));
    *got = (size_t)k;
    return JF_OK;
}

/* Read up to n bytes at once (from the buffer first); 0 at the end. */
static jf_status rd_some(jf_video_reader *r, unsigned char *dst, size_t n, size_t *got)
{
    if (r->pos < r->len) {
        size_t m = r->len - r->pos < n ? r->len - r->pos : n;
        memcpy(dst, r->buf + r->pos, m);
        r->pos += m;
        *got = m;
        return JF_OK;
    }
    return rd_raw(r, dst, n, got);
}

/* Exactly n bytes, or fewer at the end of the stream (*got says how many). */
static jf_status rd_full(jf_video_reader *r, unsigned char *dst, size_t n, size_t *got)
{
    size_t have = 0, k = 0;
    jf_status st;
    while (have < n) {
        if ((st = rd_some(r, dst + have, n - have, &k)) != JF_OK)
            return st;
        if (k == 0)
            break;
        have += k;
    }
    *got = have;
    return JF_OK;
}

static jf_status rd_refill(jf_video_reader *r)
{
    jf_status st;
    r->pos = r->len = 0;
    if ((st = rd_raw(r, r->buf, sizeof r->buf, &r->len)) != JF_OK)
        return st;
    if (r->len == 0)
        r->eof = 1;
    return JF_OK;
}

/* A line up to '\n' (not stored) into `line`; *len = -1 at a clean end of
 * the stream (nothing read).  `what` names the line in errors. */
static jf_status rd_line(jf_video_reader *r, char *line, long *len, const char *what)
{
    size_t n = 0;
    jf_status st = JF_OK;
    for (;;) {
        unsigned char c;
        if (r->pos == r->len) {
            if (r->eof || (st = rd_refill(r)) != JF_OK || r->eof) {
                if (st == JF_OK && n == 0) {
                    *len = -1;
                    return JF_OK;
                }
                if (st != JF_OK)
                    return st;
                return jf_fail(JF_ERR_DECODE, "%s: frame %lld: truncated %s (%zu bytes, no end of line)",
                               r->name, r->frame, what, n);
            }
        }
        c = r->buf[r->pos++];
        if (c == '\n')
            break;
        if (n + 1 >= JF_VIDEO_MAX_LINE)
            return jf_fail(JF_ERR_DECODE, "%s: frame %lld: %s longer than %d bytes", r->name, r->frame,
                           what, JF_VIDEO_MAX_LINE);
        line[n++] = (char)c;
    }
    line[n] = '\0';
    *len = (long)n;
    return JF_OK;
}

/* The first bytes of a bad line, printable. */
static void show(const char *s, char *out, size_t n)
{
    size_t i, o = 0;
    for (i = 0; s[i] && o + 5 < n && i < 24; i++) {
        unsigned char c = (unsigned char)s[i];
        o += (size_t)snprintf(out + o, n - o, c >= 0x20 && c < 0x7F ? "%c" : "\\x%02x", c);
    }
    if (s[i])
        snprintf(out + o, n - o, "...");
}

static int parse_ratio(const char *v, int *num, int *den)
{
    char *end;
    long a, b;
    errno = 0;
    a = strtol(v, &end, 10);
    if (end == v || *end != ':' || errno || a < 0 || a > 0x7FFFFFFF)
        return -1;
    v = end + 1;
    b = strtol(v, &end, 10);
    if (end == v || *end || errno || b < 0 || b > 0x7FFFFFFF)
        return -1;
    *num = (int)a;
    *den = (int)b;
    return 0;
}

/* Parse a header line (without its newline) into fmt. */
static jf_status parse_header(const char *name, const char *line, jf_video_format *fmt)
{
    char copy[JF_VIDEO_MAX_LINE], *tok, *save = NULL, shown[128];
    long w = -1, h = -1;
    const char *cs = "420jpeg";
    const layout *l;
    memset(fmt, 0, sizeof *fmt);
    if (strncmp(line, "YUV4MPEG2", 9) != 0 || (line[9] != ' ' && line[9] != '\0')) {
        show(line, shown, sizeof shown);
        return jf_fail(JF_ERR_DECODE, "%s: not a YUV4MPEG2 stream (it starts with '%s')", name, shown);
    }
    snprintf(copy, sizeof copy, "%s", line + 9);
    for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *end;
        const char *v = tok + 1;
        switch (tok[0]) {
        case 'W':
        case 'H':
            errno = 0;
            if (tok[0] == 'W')
                w = strtol(v, &end, 10);
            else
                h = strtol(v, &end, 10);
            if (end == v || *end || errno || (tok[0] == 'W' ? w : h) < 1 ||
                (tok[0] == 'W' ? w : h) > (1L << 30))
                return jf_fail(JF_ERR_DECODE, "%s: header: bad %s '%s'", name,
                               tok[0] == 'W' ? "width" : "height", v);
            break;
        case 'F':
            if (parse_ratio(v, &fmt->fps_num, &fmt->fps_den) != 0)
                return jf_fail(JF_ERR_DECODE, "%s: header: bad frame rate '%s'", name, v);
            break;
        case 'A': {
            int an, ad;
            if (parse_ratio(v, &an, &ad) != 0)
                return jf_fail(JF_ERR_DECODE, "%s: header: bad aspect '%s'", name, v);
            break;
        }
        case 'I':
            if (strlen(v) != 1 || !strchr("ptbm?", v[0]))
                return jf_fail(JF_ERR_DECODE, "%s: header: bad interlacing '%s'", name, v);
            break;
        case 'C':
            cs = line + 9 + (v - copy);
            break;
        default: /* X comments and tags of later versions: carried, not read */
            break;
        }
    }
    if (w < 0 || h < 0)
        return jf_fail(JF_ERR_DECODE, "%s: header: no %s", name, w < 0 ? "width (W)" : "height (H)");
    {
        char csname[32];
        size_t n = strcspn(cs, " ");
        snprintf(csname, sizeof csname, "%.*s", (int)(n < 31 ? n : 31), cs);
        l = find_layout(Y4M_LAYOUTS, sizeof Y4M_LAYOUTS / sizeof Y4M_LAYOUTS[0], csname);
        if (!l) {
            if (strchr(csname, 'p') && strspn(strchr(csname, 'p') + 1, "0123456789") > 0)
                return jf_fail(JF_ERR_UNSUPPORTED, "%s: colour space %s has more than 8 bits per "
                               "sample; jetfilter streams take 8 bits", name, csname);
            if (strcmp(csname, "mono16") == 0)
                return jf_fail(JF_ERR_UNSUPPORTED, "%s: colour space mono16 has 16 bits per sample; "
                               "jetfilter streams take 8 bits", name);
            return jf_fail(JF_ERR_UNSUPPORTED, "%s: colour space '%s' not handled (mono, 420jpeg, "
                           "420paldv, 420mpeg2, 420, 411, 422, 444, 444alpha)", name, csname);
        }
    }
    return fill_format(name, l, (int)w, (int)h, fmt);
}

static jf_status reader_new(int fd, const char *name, jf_video_reader **out)
{
    jf_video_reader *r;
    if (!out || fd < 0)
        return jf_fail(JF_ERR_ARG, "jf_video_open: %s", !out ? "out is NULL" : "bad descriptor");
    *out = NULL;
    r = (jf_video_reader *)calloc(1, sizeof *r);
    if (!r)
        return jf_fail(JF_ERR_NOMEM, "jf_video_open: out of memory");
    r->fd = fd;
    set_name(r->name, sizeof r->name, name);
    *out = r;
    return JF_OK;
}

jf_status jf_video_open_y4m(int fd, const char *name, jf_video_reader **out)
{
    jf_video_reader *r;
    jf_status st;
    long len;
    if ((st = reader_new(fd, name, &r)) != JF_OK)
        return st;
    if ((st = rd_line(r, r->header, &len, "header")) != JF_OK)
        goto fail;
    if (len < 0) {
        st = jf_fail(JF_ERR_DECODE, "%s: empty stream (no YUV4MPEG2 header)", r->name);
        goto fail;
    }
    if ((st = parse_header(r->name, r->header, &r->fmt)) != JF_OK)
        goto fail;
    *out = r;
    return JF_OK;
fail:
    free(r);
    *out = NULL;
    return st;
}

jf_status jf_video_open_raw(int fd, const char *name, int width, int height, const char *pix_fmt,
                            jf_video_reader **out)
{
    jf_video_reader *r;
    const layout *l;
    jf_status st;
    if ((st = reader_new(fd, name, &r)) != JF_OK)
        return st;
    l = pix_fmt ? find_layout(RAW_LAYOUTS, sizeof RAW_LAYOUTS / sizeof RAW_LAYOUTS[0], pix_fmt) : NULL;
    if (!l)
        st = jf_fail(JF_ERR_ARG, "%s: pixel format '%s' not handled (gray, rgb24, yuv420p, yuv422p, "
                     "yuv444p)", r->name, pix_fmt ? pix_fmt : "(none)");
    else if (width < 1 || height < 1)
        st = jf_fail(JF_ERR_ARG, "%s: bad frame size %dx%d", r->name, width, height);
    else
        st = fill_format(r->name, l, width, height, &r->fmt);
    if (st != JF_OK) {
        free(r);
        *out = NULL;
        return st;
    }
    r->fmt.raw = 1;
    *out = r;
    return JF_OK;
}

const jf_video_format *jf_video_reader_format(const jf_video_reader *r) { return r ? &r->fmt : NULL; }
const char *jf_video_reader_header(const jf_video_reader *r) { return r ? r->header : ""; }
const char *jf_video_frame_params(const jf_video_reader *r) { return r ? r->params : ""; }
void jf_video_reader_close(jf_video_reader *r) { free(r); }

static jf_status check_planes(const char *what, const jf_video_format *f, const jf_image *planes)
{
    int p;
    if (!planes)
        return jf_fail(JF_ERR_ARG, "%s: planes is NULL", what);
    for (p = 0; p < f->planes; p++) {
        const jf_image *im = &planes[p];
        if (!im->data || im->width != f->plane_width[p] || im->height != f->plane_height[p] ||
            im->channels != f->plane_channels[p] || im->location == JF_LOC_DEVICE ||
            im->stride < (size_t)im->width * (size_t)im->channels)
            return jf_fail(JF_ERR_ARG, "%s: plane %d must be a host-addressable %dx%d image of %d "
                           "channel(s)", what, p, f->plane_width[p], f->plane_height[p],
                           f->plane_channels[p]);
    }
    return JF_OK;
}

/* The pixel bytes of one frame into the planes; `*got` as for a frame. */
static jf_status read_planes(jf_video_reader *r, jf_image *planes, int started, int *got)
{
    uint64_t done = 0;
    int p, y;
    for (p = 0; p < r->fmt.planes; p++) {
        jf_image *im = &planes[p];
        size_t row = (size_t)im->width * (size_t)im->channels, k;
        jf_status st;
        if (im->stride == row) { /* packed: the whole plane in one read */
            if ((st = rd_full(r, im->data, row * (size_t)im->height, &k)) != JF_OK)
                return st;
            done += k;
            if (k < row * (size_t)im->height)
                goto short_read;
            continue;
        }
        for (y = 0; y < im->height; y++) {
            if ((st = rd_full(r, im->data + (size_t)y * im->stride, row, &k)) != JF_OK)
                return st;
            done += k;
            if (k < row)
                goto short_read;
        }
    }
    *got = 1;
    return JF_OK;
short_read:
    if (done == 0 && !started) { /* raw: the end of the stream between frames */
        *got = 0;
        return JF_OK;
    }
    return jf_fail(JF_ERR_DECODE, "%s: frame %lld: truncated (%llu of %llu bytes)", r->name,
                   r->frame, (unsigned long long)done, (unsigned long long)r->fmt.frame_bytes);
}

jf_status jf_video_read(jf_video_reader *r, jf_image *planes, int *got)
{
    char line[JF_VIDEO_MAX_LINE], shown[128];
    jf_status st;
    long len;
    if (!r || !got)
        return jf_fail(JF_ERR_ARG, "jf_video_read: %s is NULL", !r ? "reader" : "got");
    *got = 0;
    if ((st = check_planes("jf_video_read", &r->fmt, planes)) != JF_OK)
        return st;
    r->params[0] = '\0';
    if (!r->fmt.raw) {
        for (;;) {
            if ((st = rd_line(r, line, &len, "FRAME line")) != JF_OK)
                return st;
            if (len < 0)
                return JF_OK; /* the end, between frames */
            if (strncmp(line, "FRAME", 5) == 0 && (line[5] == '\0' || line[5] == ' '))
                break;
            if (strncmp(line, "YUV4MPEG2", 9) == 0) {
                if (strcmp(line, r->header) == 0)
                    continue; /* two streams of one layout joined: one stream */
                show(line + 9 + (line[9] == ' '), shown, sizeof shown);
                return jf_fail(JF_ERR_DECODE, "%s: frame %lld: the stream header changes mid-stream "
                               "(a new header '%s' differs from the first)", r->name, r->frame, shown);
            }
            show(line, shown, sizeof shown);
            return jf_fail(JF_ERR_DECODE, "%s: frame %lld: expected a FRAME line, found '%s'", r->name,
                           r->frame, shown);
        }
        snprintf(r->params, sizeof r->params, "%s", line[5] ? line + 6 : "");
    }
    if ((st = read_planes(r, planes, !r->fmt.raw, got)) != JF_OK)
        return st;
    if (*got)
        r->frame++;
    return JF_OK;
}

/* ---- writing ------------------------------------------------------------------- */

static jf_status write_iov(jf_video_writer *w, struct iovec *iov, int n)
{
    while (n > 0) {
        ssize_t k = writev(w->fd, iov, n) /* n <= 64, under every IOV_MAX */;
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && errno == EPIPE)
            return jf_fail(JF_ERR_IO, "%s: frame %lld: the consumer closed the pipe", w->name, w->frame);
        if (k <= 0)
            return jf_fail(JF_ERR_IO, "%s: frame %lld: write failed: %s", w->name, w->frame,
                           k < 0 ? strerror(errno) : "nothing written");
        while (n > 0 && (size_t)k >= iov->iov_len) {
            k -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + k;
            iov->iov_len -= (size_t)k;
        }
    }
    return JF_OK;
}

jf_status jf_video_writer_open(int fd, const char *name, const jf_video_format *format,
                               const char *y4m_header, jf_video_writer **out)
{
    jf_video_writer *w;
    char made[JF_VIDEO_MAX_LINE + 1];
    jf_status st;
    if (!out || !format || fd < 0)
        return jf_fail(JF_ERR_ARG, "jf_video_writer_open: %s",
                       !out ? "out is NULL" : !format ? "format is NULL" : "bad descriptor");
    *out = NULL;
    if (format->planes < 1 || format->planes > JF_VIDEO_MAX_PLANES || format->width < 1 ||
        format->height < 1)
        return jf_fail(JF_ERR_ARG, "jf_video_writer_open: bad format");
    w = (jf_video_writer *)calloc(1, sizeof *w);
    if (!w)
        return jf_fail(JF_ERR_NOMEM, "jf_video_writer_open: out of memory");
    w->fd = fd;
    w->fmt = *format;
    snprintf(w->name, sizeof w->name, "%s", !name ? "<stream>" : strcmp(name, "-") == 0 ? "standard output" : name);
    if (!format->raw) {
        struct iovec iov;
        int n;
        if (y4m_header && y4m_header[0])
            n = snprintf(made, sizeof made, "%s\n", y4m_header);
        else if (format->fps_num > 0 && format->fps_den > 0)
            n = snprintf(made, sizeof made, "YUV4MPEG2 W%d H%d F%d:%d C%s\n", format->width,
                         format->height, format->fps_num, format->fps_den, format->layout);
        else
            n = snprintf(made, sizeof made, "YUV4MPEG2 W%d H%d C%s\n", format->width, format->height,
                         format->layout);
        if (n < 0 || n >= (int)sizeof made) {
            free(w);
            return jf_fail(JF_ERR_ARG, "jf_video_writer_open: header longer than %d bytes",
                           JF_VIDEO_MAX_LINE);
        }
        iov.iov_base = made;
        iov.iov_len = (size_t)n;
        if ((st = write_iov(w, &iov, 1)) != JF_OK) {
            free(w);
            return st;
        }
    }
    *out = w;
    return JF_OK;
}

jf_status jf_video_write(jf_video_writer *w, const jf_image *planes, const char *frame_params)
{
    /* the FRAME line and every plane (or every row of a padded plane) in
     * one writev where they fit, so a pipe sees few system calls */
    struct iovec iov[64];
    char line[JF_VIDEO_MAX_LINE + 8];
    int n = 0, p, y;
    jf_status st;
    if (!w)
        return jf_fail(JF_ERR_ARG, "jf_video_write: writer is NULL");
    if ((st = check_planes("jf_video_write", &w->fmt, planes)) != JF_OK)
        return st;
    if (!w->fmt.raw) {
        int len = snprintf(line, sizeof line, frame_params && frame_params[0] ? "FRAME %s\n" : "FRAME\n",
                           frame_params);
        if (len < 0 || len >= (int)sizeof line)
            return jf_fail(JF_ERR_ARG, "jf_video_write: frame parameters longer than %d bytes",
                           JF_VIDEO_MAX_LINE);
        iov[n].iov_base = line;
        iov[n++].iov_len = (size_t)len;
    }
    for (p = 0; p < w->fmt.planes; p++) {
        const jf_image *im = &planes[p];
        size_t row = (size_t)im->width * (size_t)im->channels;
        for (y = 0; y < im->height; y++) {
            if (n == (int)(sizeof iov / sizeof iov[0])) {
                if ((st = write_iov(w, iov, n)) != JF_OK)
                    return st;
                n = 0;
            }
            if (im->stride == row) { /* packed: the whole plane */
                iov[n].iov_base = im->data;
                iov[n++].iov_len = row * (size_t)im->height;
                break;
            }
            iov[n].iov_base = im->data + (size_t)y * im->stride;
            iov[n++].iov_len = row;
        }
    }
    if ((st = write_iov(w, iov, n)) != JF_OK)
        return st;
    w->frame++;
    return JF_OK;
}

void jf_video_writer_close(jf_video_writer *w) { free(w); }
