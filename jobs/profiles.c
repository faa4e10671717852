/* Tuning profiles for the jobs' contexts: where `jetfilter calibrate`
 * writes them, and the power mode they are measured in. */
#include "jobs/jobs.h"
#include "calib/power.h"
#include "core/profile.h"

#include <stdio.h>
#include <stdlib.h>

/* The profile's folder: $XDG_CACHE_HOME/jetfilter, else ~/.cache/jetfilter. */
int job_profile_dir(char *out, size_t n)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        return snprintf(out, n, "%s/jetfilter", xdg) < (int)n;
    if (home && home[0])
        return snprintf(out, n, "%s/.cache/jetfilter", home) < (int)n;
    return 0;
}

const struct jf_power_mode *job_power_mode(void)
{
    static jf_power_mode pm;
    static int known;
    if (!known) {
        jf_power_read_mode(NULL, &pm);
        known = 1;
    }
    return &pm;
}

void job_use_profiles(void)
{
    char dir[1024];
    if (job_profile_dir(dir, sizeof dir))
        jf_profiles_use(dir, job_power_mode()->mode_name);
}

