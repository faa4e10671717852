/* Tuning profiles: parse, write, match, choose (see profile.h). */
#include "core/profile.h"
#include "core/context.h"
#include "core/errors.h"
#include "core/names.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What jf_profiles_use() set: read by every CUDA context at creation. */
static char g_dir[512];
static char g_power[64];

jf_status jf_profiles_use(const char *dir, const char *power_mode)
{
    if (dir && strlen(dir) >= sizeof g_dir - 128)
        return jf_fail(JF_ERR_ARG, "jf_profiles_use: folder name too long");
    if (power_mode && strlen(power_mode) >= sizeof g_power)
        return jf_fail(JF_ERR_ARG, "jf_profiles_use: power mode name too long");
    snprintf(g_dir, sizeof g_dir, "%s", dir ? dir : "");
    snprintf(g_power, sizeof g_power, "%s", power_mode && power_mode[0] ? power_mode : "none");
    return JF_OK;
}

/* Lower-case letters and digits, every other run as one '-'. */
static void slug(const char *s, char *out, size_t n)
{
    size_t o = 0;
    int dash = 0;
    for (; *s && o + 2 < n; s++) {
        if (isalnum((unsigned char)*s)) {
            if (dash && o)
                out[o++] = '-';
            out[o++] = (char)tolower((unsigned char)*s);
            dash = 0;
        } else {
            dash = 1;
        }
    }
    out[o] = '\0';
}

void jf_profile_file_name(const jf_device_info *dev, const char *power_mode, char *out, size_t n)
{
    char name[128], power[64];
    slug(dev->name, name, sizeof name);
    slug(power_mode && power_mode[0] ? power_mode : "none", power, sizeof power);
    snprintf(out, n, "%s-sm%d%d-%s%s.profile", name, dev->cc_major, dev->cc_minor, power,
             dev->limited ? "-nano-limits" : "");
}

const char *jf_context_profile(const jf_context *ctx)
{
    return ctx && ctx->profile ? ctx->profile->path : NULL;
}

void jf_profile_free(jf_profile *p)
{
    if (!p)
        return;
    free(p->choices);
    memset(p, 0, sizeof *p);
}

jf_status jf_profile_add(jf_profile *p, const jf_profile_choice *c)
{
    if (p->count == p->cap) {
        const int cap = p->cap ? 2 * p->cap : 64;
        jf_profile_choice *grown = (jf_profile_choice *)realloc(p->choices, (size_t)cap * sizeof *grown);
        if (!grown)
            return jf_fail(JF_ERR_NOMEM, "profile: out of memory");
        p->choices = grown;
        p->cap = cap;
    }
    p->choices[p->count++] = *c;
    return JF_OK;
}

static int variant_by_name(const char *s, jf_variant *v)
{
    int i;
    for (i = 0; i < JF_VARIANT_COUNT; i++)
        if (jf_variant_names[i] && strcmp(jf_variant_names[i], s) == 0) {
            *v = (jf_variant)i;
            return 1;
        }
    return 0;
}

/* One `choice` line's fields after the keyword; 0 with the reason if
 * malformed or out of range. */
static int parse_choice(const char *rest, jf_profile_choice *c, char *why, size_t n)
{
    char op[16], variant[16];
    long long area;
    int used = 0, i;
    memset(c, 0, sizeof *c);
    if (sscanf(rest, " %15s %d %dx%d %d %15s %dx%d %lf %n", op, &c->channels, &c->width,
               &c->height, &c->k, variant, &c->block_x, &c->block_y, &c->ms, &used) != 9 ||
        rest[used] != '\0') {
        snprintf(why, n, "not OP CHANNELS WxH K VARIANT BXxBY MS");
        return 0;
    }
    for (i = 0; op[i]; i++)
        if (!(islower((unsigned char)op[i]) || isdigit((unsigned char)op[i]) || op[i] == '-')) {
            snprintf(why, n, "operation '%s' is not a name", op);
            return 0;
        }
    area = (long long)c->width * c->height;
    if (c->channels < 1 || c->channels > 4 || c->width < 1 || c->height < 1 || area > (1LL << 32)) {
        snprintf(why, n, "%d channels of %dx%d", c->channels, c->width, c->height);
        return 0;
    }
    if (c->k < 1 || c->k > JF_MEDIAN_MAX_KSIZE || c->k % 2 == 0) {
        snprintf(why, n, "k = %d is not an odd size from 1 to %d", c->k, JF_MEDIAN_MAX_KSIZE);
        return 0;
    }
    if (!variant_by_name(variant, &c->variant) || c->variant == JF_VARIANT_AUTO ||
        c->variant == JF_VARIANT_CPU) {
        snprintf(why, n, "'%s' is not a GPU variant", variant);
        return 0;
    }
    if (!(c->block_x == 0 && c->block_y == 0) &&
        (c->block_x < 4 || c->block_x % 4 || c->block_y < 1 || c->block_x > 1024 ||
         c->block_y > 1024 || (long long)c->block_x * c->block_y > 1024)) {
        snprintf(why, n, "block %dx%d (0x0, or W a multiple of 4 and W x H at most 1024)",
                 c->block_x, c->block_y);
        return 0;
    }
    if (!(c->ms >= 0 && c->ms < 1e9)) {
        snprintf(why, n, "time %g ms", c->ms);
        return 0;
    }
    snprintf(c->op, sizeof c->op, "%s", op);
    return 1;
}

jf_status jf_profile_parse(const char *text, const char *path, jf_profile *p)
{
    const char *line = text;
    int lineno = 0, have_version = 0;
    memset(p, 0, sizeof *p);
    snprintf(p->path, sizeof p->path, "%s", path);
    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char buf[512], key[32];
        int used = 0;
        lineno++;
        if (len >= sizeof buf) {
            jf_profile_free(p);
            return jf_fail(JF_ERR_DECODE, "%s: line %d is too long", path, lineno);
        }
        memcpy(buf, line, len);
        buf[len] = '\0';
        if (len && buf[len - 1] == '\r')
            buf[len - 1] = '\0';
        line = end ? end + 1 : NULL;
        if (buf[0] == '#' || sscanf(buf, "%31s %n", key, &used) != 1)
            continue;
        {
            const char *rest = buf + used;
            int ok = 1;
            if (!have_version) {
                int version = 0;
                if (strcmp(key, "jetfilter-profile") != 0 || sscanf(rest, "%d", &version) != 1) {
                    jf_profile_free(p);
                    return jf_fail(JF_ERR_DECODE, "%s: not a jetfilter profile (line %d)", path, lineno);
                }
                if (version != JF_PROFILE_VERSION) {
                    jf_profile_free(p);
                    return jf_fail(JF_ERR_DECODE, "%s: profile version %d, this jetfilter reads %d "
                                   "(run `jetfilter calibrate` again)", path, version, JF_PROFILE_VERSION);
                }
                have_version = 1;
            } else if (strcmp(key, "device") == 0) {
                snprintf(p->device, sizeof p->device, "%s", rest);
            } else if (strcmp(key, "compute_capability") == 0) {
                ok = sscanf(rest, "%d.%d", &p->cc_major, &p->cc_minor) == 2;
            } else if (strcmp(key, "multiprocessors") == 0) {
                ok = sscanf(rest, "%d", &p->multiprocessors) == 1;
            } else if (strcmp(key, "device_limits") == 0) {
                ok = strcmp(rest, "full") == 0 || strcmp(rest, "nano") == 0;
                p->limited = strcmp(rest, "nano") == 0;
            } else if (strcmp(key, "power_mode") == 0) {
                snprintf(p->power_mode, sizeof p->power_mode, "%s", rest);
            } else if (strcmp(key, "driver") == 0) {
                ok = sscanf(rest, "%d", &p->driver) == 1;
            } else if (strcmp(key, "date") == 0) {
                snprintf(p->date, sizeof p->date, "%s", rest);
            } else if (strcmp(key, "choice") == 0) {
                jf_profile_choice c;
                char why[128];
                if (!parse_choice(rest, &c, why, sizeof why)) {
                    if (!p->ignored++)
                        snprintf(p->first_ignored, sizeof p->first_ignored, "line %d: %s", lineno, why);
                } else if (jf_profile_add(p, &c) != JF_OK) {
                    jf_profile_free(p);
                    return JF_ERR_NOMEM;
                }
            } /* other keys: written by a newer calibrate, ignored */
            if (!ok) {
                jf_profile_free(p);
                return jf_fail(JF_ERR_DECODE, "%s: line %d: cannot read \"%s\"", path, lineno, buf);
            }
        }
    }
    if (!have_version || !p->device[0] || !p->cc_major) {
        jf_profile_free(p);
        return jf_fail(JF_ERR_DECODE, "%s: %s", path,
                       have_version ? "no device or compute capability line" : "empty, not a jetfilter profile");
    }
    return JF_OK;
}

jf_status jf_profile_load(const char *path, jf_profile *p)
{
    FILE *f = fopen(path, "rb");
    char *text;
    long n;
    jf_status st;
    memset(p, 0, sizeof *p);
    if (!f)
        return jf_fail(JF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        n > (1L << 22)) {
        fclose(f);
        return jf_fail(JF_ERR_DECODE, "%s: not a profile (unreadable, or over 4 MB)", path);
    }
    if (!(text = (char *)malloc((size_t)n + 1))) {
        fclose(f);
        return jf_fail(JF_ERR_NOMEM, "%s: out of memory", path);
    }
    if (fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        fclose(f);
        return jf_fail(JF_ERR_IO, "%s: read error", path);
    }
    fclose(f);
    text[n] = '\0';
    if (strlen(text) != (size_t)n)
        st = jf_fail(JF_ERR_DECODE, "%s: not a profile (binary data)", path);
    else
        st = jf_profile_parse(text, path, p);
    free(text);
    return st;
}

jf_status jf_profile_write(FILE *f, const jf_profile *p)
{
    int i;
    fprintf(f, "jetfilter-profile %d\n", JF_PROFILE_VERSION);
    fprintf(f, "# written by `jetfilter calibrate`; `auto` uses these choices on this device\n");
    fprintf(f, "device %s\ncompute_capability %d.%d\nmultiprocessors %d\ndevice_limits %s\n",
            p->device, p->cc_major, p->cc_minor, p->multiprocessors, p->limited ? "nano" : "full");
    fprintf(f, "power_mode %s\ndriver %d\ndate %s\n", p->power_mode[0] ? p->power_mode : "none",
            p->driver, p->date);
    fprintf(f, "# choice OP CHANNELS WIDTHxHEIGHT K VARIANT BLOCK MS (block 0x0: the variant's default)\n");
    for (i = 0; i < p->count; i++) {
        const jf_profile_choice *c = &p->choices[i];
        fprintf(f, "choice %s %d %dx%d %d %s %dx%d %.5f\n", c->op, c->channels, c->width, c->height,
                c->k, jf_variant_names[c->variant], c->block_x, c->block_y, c->ms);
    }
    return ferror(f) ? jf_fail(JF_ERR_IO, "profile: write error") : JF_OK;
}

int jf_profile_matches(const jf_profile *p, const jf_device_info *dev, const char *power_mode,
                       char *why, size_t n)
{
    const char *power = power_mode && power_mode[0] ? power_mode : "none";
    if (strcmp(p->device, dev->name) != 0)
        snprintf(why, n, "measured on %s, not %s", p->device, dev->name);
    else if (p->cc_major != dev->cc_major || p->cc_minor != dev->cc_minor ||
             p->multiprocessors != dev->multiprocessors)
        snprintf(why, n, "measured on compute capability %d.%d with %d multiprocessors, this "
                 "device is %d.%d with %d", p->cc_major, p->cc_minor, p->multiprocessors,
                 dev->cc_major, dev->cc_minor, dev->multiprocessors);
    else if (p->limited != (dev->limited != 0))
        snprintf(why, n, "measured %s Nano-limits mode", p->limited ? "in" : "outside");
    else if (strcmp(p->power_mode, power) != 0)
        snprintf(why, n, "measured in power mode %s, the device is in %s", p->power_mode, power);
    else
        return 1;
    return 0;
}

const jf_profile_choice *jf_profile_choose(const jf_profile *p, const char *op, int channels,
                                           int width, int height, int k)
{
    const jf_profile_choice *best = NULL;
    const double pixels = (double)width * height;
    double best_dist = 0;
    int i;
    if (!p)
        return NULL;
    for (i = 0; i < p->count; i++) {
        const jf_profile_choice *c = &p->choices[i];
        double dist;
        if (c->k != k || (c->channels == 1) != (channels == 1) || strcmp(c->op, op) != 0)
            continue;
        dist = fabs(log(pixels / ((double)c->width * c->height)));
        if (dist <= log(JF_PROFILE_REACH) + 1e-9 && (!best || dist < best_dist)) {
            best = c;
            best_dist = dist;
        }
    }
    return best;
}

void jf_profile_attach(jf_context *ctx, const jf_device_info *dev)
{
    char name[256], path[sizeof g_dir + 256], why[384];
    jf_profile *p;
    if (!g_dir[0])
        return;
    jf_profile_file_name(dev, g_power, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    if (access(path, F_OK) != 0)
        return; /* not calibrated: the built-in tables */
    if (!(p = (jf_profile *)calloc(1, sizeof *p)))
        return;
    if (jf_profile_load(path, p) != JF_OK) {
        snprintf(ctx->note, sizeof ctx->note, "profile ignored: %.200s", jf_last_error());
        free(p);
        return;
    }
    if (!jf_profile_matches(p, dev, g_power, why, sizeof why)) {
        snprintf(ctx->note, sizeof ctx->note, "profile %.100s ignored: %.120s", path, why);
        jf_profile_free(p);
        free(p);
        return;
    }
    if (p->ignored)
        snprintf(ctx->note, sizeof ctx->note, "profile %.100s: %d entr%s ignored (%.100s)", path,
                 p->ignored, p->ignored == 1 ? "y" : "ies", p->first_ignored);
    ctx->profile = p;
}
