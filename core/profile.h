/* Internal: tuning profiles, the measured choices of `auto` for one device in
 * one power mode (written by `jetfilter calibrate`, read by every CUDA
 * context when jf_profiles_use() named a folder).
 *
 * The file is text, one record a line, '#' starts a comment:
 *   jetfilter-profile 1
 *   device NVIDIA H100 80GB HBM3
 *   compute_capability 9.0
 *   multiprocessors 132
 *   device_limits full            (or nano: JETFILTER_DEVICE_LIMITS)
 *   power_mode MAXN               (or "none")
 *   driver 13000
 *   date 2026-11-23T10:00:00Z
 *   choice OP CHANNELS WIDTHxHEIGHT K VARIANT BLOCK_XxBLOCK_Y MS
 * OP is median, conv (arbitrary weights) or conv-rank1; block 0x0 is the
 * variant's own default.  Choices are for 8-bit samples. */
#ifndef JF_CORE_PROFILE_H
#define JF_CORE_PROFILE_H

#include "jetfilter.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JF_PROFILE_VERSION 1

typedef struct jf_profile_choice {
    char op[16];
    int channels, width, height, k;
    jf_variant variant;
    int block_x, block_y;
    double ms;
} jf_profile_choice;

typedef struct jf_profile {
    char path[512];
    int ignored;           /* choice lines refused (out of range, malformed) */
    char first_ignored[160]; /* the first of them: "line 12: ..." */
    char device[256];
    int cc_major, cc_minor, multiprocessors, limited, driver;
    char power_mode[64]; /* "none" when the system has none */
    char date[32];
    int count, cap;
    jf_profile_choice *choices;
} jf_profile;

/* Parse `text` (from `path`, named in errors with the line).  A profile is
 * a file anything can write, so every field is range-checked: a header
 * that cannot be read fails the whole file; a choice that cannot is left
 * out and counted (ignored, first_ignored).  Whether a choice's variant
 * runs its k on a device is the resolver's to judge when it is used. */
jf_status jf_profile_parse(const char *text, const char *path, jf_profile *p);
/* Read and parse a file. */
jf_status jf_profile_load(const char *path, jf_profile *p);
void jf_profile_free(jf_profile *p);

/* Append a choice (grows the table). */
jf_status jf_profile_add(jf_profile *p, const jf_profile_choice *c);

/* Write the header and every choice. */
jf_status jf_profile_write(FILE *f, const jf_profile *p);

/* Was `p` measured on this device (name, compute capability, multiprocessors,
 * limits) in this power mode?  If not, why, in `why`. */
int jf_profile_matches(const jf_profile *p, const jf_device_info *dev, const char *power_mode,
                       char *why, size_t n);

/* The choice for this operation, channel count and k measured at the size
 * nearest (in pixels, by ratio) to width x height, if that size is within
 * JF_PROFILE_REACH times the image's pixels either way; NULL when the
 * profile has none for that k or measured no size that near (a choice
 * measured on 640x480 says little about 1920x1080). */
#define JF_PROFILE_REACH 4.0
const jf_profile_choice *jf_profile_choose(const jf_profile *p, const char *op, int channels,
                                           int width, int height, int k);

/* A CUDA context's profile: the file jf_profiles_use() points at for its
 * device, if there is one and it matches; otherwise none, and the reason in
 * the context's note when a file was there but could not be used. */
void jf_profile_attach(jf_context *ctx, const jf_device_info *dev);

#ifdef __cplusplus
}
#endif
#endif
