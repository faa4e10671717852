/*
 * Power mode, clocks and energy.
 *
 * Jetson (L4T): the mode from `nvpmodel -q` where permitted, else
 * /var/lib/nvpmodel/status ("pmode:0001") with its name from
 * /etc/nvpmodel.conf ("< POWER_MODEL ID=1 NAME=5W >"); online CPUs from
 * /sys/devices/system/cpu/online ("0-3"); GPU clocks from
 * /sys/devices/gpu.0/devfreq/57000000.gpu/{cur,max}_freq (Hz).
 * Energy from the INA3221 power monitor: the iio driver of L4T 32 (Nano)
 *   /sys/bus/i2c/drivers/ina3221x/<dev>/iio:device<N>/in_power<i>_input (mW)
 *   with rail_name_<i> (POM_5V_IN, POM_5V_GPU, POM_5V_CPU),
 * or the hwmon driver of newer L4T
 *   /sys/bus/i2c/drivers/ina3221/<dev>/hwmon/hwmon<N>/in<i>_label,
 *   in<i>_input (mV), curr<i>_input (mA).
 * Channels are found by their labels, on every monitor: the module's input
 * (POM_5V_IN / VDD_IN, what a wall meter sees less the carrier board) is
 * the meter's energy; the compute rail (VDD_CPU_GPU_CV, VDD_GPU_SOC,
 * POM_5V_GPU) is measured beside it.
 * Discrete GPUs: NVML, loaded with dlopen so it is no build dependency; its
 * total-energy counter (mJ, Volta and later) where supported, else power
 * samples (mW).
 */
#define _DEFAULT_SOURCE
#include "calib/power.h"
#include "core/util.h"

#include <dirent.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

const char *jf_power_root(const char *root)
{
    const char *env;
    if (root)
        return root;
    env = getenv("JF_SYSFS_ROOT");
    return env ? env : "";
}

/* First line of root+path into buf; 1 on success. */
static int read_line(const char *root, const char *path, char *buf, size_t n)
{
    char full[4400];
    FILE *f;
    snprintf(full, sizeof full, "%s%s", root, path);
    f = fopen(full, "r");
    if (!f)
        return 0;
    if (!fgets(buf, (int)n, f)) {
        fclose(f);
        return 0;
    }
    fclose(f);
    buf[strcspn(buf, "\r\n")] = '\0';
    return 1;
}

static double read_number(const char *root, const char *path)
{
    char buf[64], *end;
    double v;
    if (!read_line(root, path, buf, sizeof buf))
        return NAN;
    v = strtod(buf, &end);
    return end == buf ? NAN : v;
}

/* A MAX_FREQ / MIN_FREQ value in `unit` Hz as MHz: -1 and 0 mean no limit (0). */
static double mode_mhz(const char *value, double unit)
{
    double v = strtod(value, NULL);
    return v <= 0 ? 0.0 : v * unit / 1e6;
}

static void mode_line(jf_power_mode_def *m, const char *line)
{
    char param[64], arg[64], value[64];
    if (sscanf(line, "%63s %63s %63s", param, arg, value) != 3)
        return;
    if (strcmp(param, "CPU_ONLINE") == 0) {
        m->cores++;
        m->cores_online += atoi(value) == 1;
    } else if (strncmp(param, "CPU_", 4) == 0 && strcmp(arg, "MAX_FREQ") == 0) {
        const double mhz = mode_mhz(value, 1e3); /* cpufreq: kHz */
        if (m->cpu_max_mhz < 0 || mhz == 0.0 || (m->cpu_max_mhz > 0 && mhz > m->cpu_max_mhz))
            m->cpu_max_mhz = mhz;
    } else if (strcmp(param, "GPU") == 0 && strcmp(arg, "MAX_FREQ") == 0) {
        m->gpu_max_mhz = mode_mhz(value, 1.0);
    } else if (strcmp(param, "GPU") == 0 && strcmp(arg, "MIN_FREQ") == 0) {
        m->gpu_min_mhz = mode_mhz(value, 1.0);
    } else if (strcmp(param, "EMC") == 0 && strcmp(arg, "MAX_FREQ") == 0) {
        m->emc_max_mhz = mode_mhz(value, 1.0);
    }
}

int jf_power_modes_parse(const char *text, jf_power_mode_def *modes, int max, int *default_id)
{
    const char *line = text;
    jf_power_mode_def *cur = NULL;
    int n = 0;
    if (default_id)
        *default_id = -1;
    while (line && *line) {
        const char *end = strchr(line, '\n');
        char buf[512];
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len >= sizeof buf)
            len = sizeof buf - 1;
        memcpy(buf, line, len);
        buf[len] = '\0';
        line = end ? end + 1 : NULL;
        if (buf[0] == '<') { /* a section: a mode, the default, or the PARAM definitions */
            const char *id = strstr(buf, "ID="), *name = strstr(buf, "NAME="), *def;
            cur = NULL;
            if (strstr(buf, "POWER_MODEL") && id && n < max) {
                cur = &modes[n++];
                memset(cur, 0, sizeof *cur);
                cur->id = atoi(id + 3);
                cur->cpu_max_mhz = cur->gpu_min_mhz = cur->gpu_max_mhz = cur->emc_max_mhz = -1;
                if (name) {
                    size_t k = strcspn(name + 5, " \t>");
                    snprintf(cur->name, sizeof cur->name, "%.*s", (int)k, name + 5);
                }
            } else if (strstr(buf, "PM_CONFIG") && (def = strstr(buf, "DEFAULT=")) && default_id) {
                *default_id = atoi(def + 8);
            }
        } else if (cur && buf[0] != '#') {
            mode_line(cur, buf);
        }
    }
    return n;
}

int jf_power_modes_read(const char *root, jf_power_mode_def *modes, int max, int *default_id)
{
    char full[1024];
    char *text;
    long size;
    int n;
    FILE *f;
    snprintf(full, sizeof full, "%s/etc/nvpmodel.conf", jf_power_root(root));
    if (!(f = fopen(full, "r")))
        return -1;
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || size > (1 << 20) ||
        fseek(f, 0, SEEK_SET) != 0 || !(text = (char *)malloc((size_t)size + 1))) {
        fclose(f);
        return -1;
    }
    text[fread(text, 1, (size_t)size, f)] = '\0';
    fclose(f);
    n = jf_power_modes_parse(text, modes, max, default_id);
    free(text);
    return n;
}

/* The current mode's name from the board's list. */
static void mode_name_from_conf(const char *root, jf_power_mode *m)
{
    jf_power_mode_def modes[32];
    int n = jf_power_modes_read(root, modes, 32, NULL), i;
    for (i = 0; i < n; i++)
        if (modes[i].id == m->mode_id)
            snprintf(m->mode_name, sizeof m->mode_name, "%s", modes[i].name);
}

int jf_power_read_mode(const char *root_in, jf_power_mode *m)
{
    const char *root = jf_power_root(root_in);
    char buf[256];
    const char *p;
    memset(m, 0, sizeof *m);
    m->mode_id = -1;
    m->cpus_online = -1;
    m->gpu_cur_mhz = m->gpu_max_mhz = NAN;

    if (!root[0]) {
        /* "NV Power Mode: MAXN" then "0"; needs permission on some releases */
        FILE *f = popen("nvpmodel -q 2>/dev/null", "r");
        if (f) {
            char line[256];
            while (fgets(line, sizeof line, f)) {
                line[strcspn(line, "\r\n")] = '\0';
                if ((p = strstr(line, "Power Mode:")) != NULL) {
                    p += strlen("Power Mode:");
                    while (*p == ' ')
                        p++;
                    snprintf(m->mode_name, sizeof m->mode_name, "%s", p);
                } else if (m->mode_name[0] && m->mode_id < 0 && line[0] >= '0' && line[0] <= '9') {
                    m->mode_id = atoi(line);
                }
            }
            pclose(f);
            if (m->mode_id >= 0)
                snprintf(m->source, sizeof m->source, "nvpmodel -q");
        }
    }
    if (m->mode_id < 0 && read_line(root, "/var/lib/nvpmodel/status", buf, sizeof buf) &&
        (p = strstr(buf, "pmode:")) != NULL) {
        m->mode_id = atoi(p + 6);
        snprintf(m->source, sizeof m->source, "/var/lib/nvpmodel/status");
        mode_name_from_conf(root, m);
    }
    if (read_line(root, "/sys/devices/system/cpu/online", buf, sizeof buf))
        m->cpus_online = jf_cpu_list_parse(buf, NULL, 0);
    m->gpu_cur_mhz = read_number(root, "/sys/devices/gpu.0/devfreq/57000000.gpu/cur_freq") / 1e6;
    m->gpu_max_mhz = read_number(root, "/sys/devices/gpu.0/devfreq/57000000.gpu/max_freq") / 1e6;
    return m->mode_id >= 0 || m->cpus_online >= 0 || !isnan(m->gpu_cur_mhz);
}

/* ---- the meter ---- */

typedef enum { SRC_NONE, SRC_IIO, SRC_HWMON, SRC_NVML } source_kind;

typedef int (*nvml_fn_void)(void);
typedef int (*nvml_fn_handle)(unsigned int, void **);
typedef int (*nvml_fn_energy)(void *, unsigned long long *);
typedef int (*nvml_fn_uint)(void *, unsigned int *);
typedef int (*nvml_fn_clock)(void *, int, unsigned int *);

/* One INA3221 channel: its label and where its power is read. */
typedef struct rail {
    int rank;                /* place of its label in the list it was found for (-1: none) */
    char name[64];
    char power_path[2200];   /* iio: mW file */
    char volt_path[2200];    /* hwmon: mV and mA files */
    char curr_path[2200];
} rail;

struct jf_power_meter {
    source_kind kind;
    char source[160];
    rail module, compute;    /* the module's input; the CPU/GPU rail (rank -1: none) */
    void *nvml_lib, *nvml_dev;
    nvml_fn_void nvml_shutdown;
    nvml_fn_energy nvml_energy;
    nvml_fn_uint nvml_power;
    nvml_fn_clock nvml_clock;
    int has_counter;
    /* measurement */
    pthread_t thread;
    int running, period_ms;
    pthread_mutex_t lock;
    double start_ms, last_ms, last_mw, energy_mj;
    double last_compute_mw, compute_mj;
    int samples;
    unsigned long long counter0;
};

/* The labels, best first: the module's input (what a wall meter sees, less
 * the carrier board), and the compute rail (the Orin's CPU, GPU and
 * accelerators together, having no GPU-only rail; the AGX Orin's GPU and
 * SoC; the Nano's GPU). */
static const char *const MODULE_RAILS[] = {"VDD_IN", "POM_5V_IN"};
static const char *const COMPUTE_RAILS[] = {"VDD_CPU_GPU_CV", "VDD_GPU_SOC", "POM_5V_GPU"};
#define COUNT(a) ((int)(sizeof a / sizeof a[0]))

static int rank_of(const char *name, const char *const *list, int n)
{
    int i;
    for (i = 0; i < n; i++)
        if (strcasecmp(name, list[i]) == 0)
            return i;
    return -1;
}

/* Dirs under root+base whose name starts with prefix, first match copied. */
static int find_subdir(const char *dir, const char *prefix, char *out, size_t n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    if (!d)
        return 0;
    while (!found && (e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && e->d_name[0] != '.') {
            snprintf(out, n, "%.1700s/%.255s", dir, e->d_name);
            found = 1;
        }
    closedir(d);
    return found;
}

/* A channel labelled `name` at `dir`, kept where it ranks better. */
static void offer(rail *r, const char *const *list, int n, const char *name, const char *dir,
                  int channel, int hwmon)
{
    const int rank = rank_of(name, list, n);
    if (rank < 0 || (r->rank >= 0 && r->rank <= rank))
        return;
    r->rank = rank;
    snprintf(r->name, sizeof r->name, "%s", list[rank]); /* as the list spells it */
    if (hwmon) {
        snprintf(r->volt_path, sizeof r->volt_path, "%.2000s/in%d_input", dir, channel);
        snprintf(r->curr_path, sizeof r->curr_path, "%.2000s/curr%d_input", dir, channel);
    } else {
        snprintf(r->power_path, sizeof r->power_path, "%.2000s/in_power%d_input", dir, channel);
    }
}

/* Every INA3221 of one driver, every channel by its label: the iio driver
 * of L4T 32 (rail_name_0..2) or the hwmon driver (in1..3_label).  Several
 * monitors (the AGX boards have two) are all read. */
static int scan_ina3221(jf_power_meter *pm, const char *root, int hwmon)
{
    char drv[1024], dev[1536], sub[2048], name[128], path[64];
    DIR *d;
    struct dirent *e;
    snprintf(drv, sizeof drv, "%s/sys/bus/i2c/drivers/%s", root, hwmon ? "ina3221" : "ina3221x");
    if (!(d = opendir(drv)))
        return 0;
    while ((e = readdir(d)) != NULL) {
        int i;
        if (e->d_name[0] == '.' || !strchr(e->d_name, '-'))
            continue;
        snprintf(dev, sizeof dev, "%s/%.255s%s", drv, e->d_name, hwmon ? "/hwmon" : "");
        if (!find_subdir(dev, hwmon ? "hwmon" : "iio:device", sub, sizeof sub))
            continue;
        for (i = hwmon ? 1 : 0; i < (hwmon ? 4 : 3); i++) {
            if (hwmon)
                snprintf(path, sizeof path, "/in%d_label", i);
            else
                snprintf(path, sizeof path, "/rail_name_%d", i);
            if (!read_line(sub, path, name, sizeof name))
                continue;
            offer(&pm->module, MODULE_RAILS, COUNT(MODULE_RAILS), name, sub, i, hwmon);
            offer(&pm->compute, COMPUTE_RAILS, COUNT(COMPUTE_RAILS), name, sub, i, hwmon);
        }
    }
    closedir(d);
    if (pm->module.rank < 0 && pm->compute.rank < 0)
        return 0;
    pm->kind = hwmon ? SRC_HWMON : SRC_IIO;
    snprintf(pm->source, sizeof pm->source, "INA3221 (%s) %s", hwmon ? "hwmon" : "iio",
             pm->module.rank >= 0 ? pm->module.name : pm->compute.name);
    return 1;
}

static int open_nvml(jf_power_meter *pm, int device)
{
    nvml_fn_void init;
    nvml_fn_handle handle;
    unsigned long long mj;
    unsigned int mw;
    pm->nvml_lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!pm->nvml_lib)
        return 0;
    init = (nvml_fn_void)dlsym(pm->nvml_lib, "nvmlInit_v2");
    handle = (nvml_fn_handle)dlsym(pm->nvml_lib, "nvmlDeviceGetHandleByIndex_v2");
    pm->nvml_shutdown = (nvml_fn_void)dlsym(pm->nvml_lib, "nvmlShutdown");
    pm->nvml_energy = (nvml_fn_energy)dlsym(pm->nvml_lib, "nvmlDeviceGetTotalEnergyConsumption");
    pm->nvml_power = (nvml_fn_uint)dlsym(pm->nvml_lib, "nvmlDeviceGetPowerUsage");
    pm->nvml_clock = (nvml_fn_clock)dlsym(pm->nvml_lib, "nvmlDeviceGetClockInfo");
    if (!init || !handle || !pm->nvml_power || init() != 0 ||
        handle((unsigned)device, &pm->nvml_dev) != 0) {
        dlclose(pm->nvml_lib);
        pm->nvml_lib = NULL;
        return 0;
    }
    pm->has_counter = pm->nvml_energy && pm->nvml_energy(pm->nvml_dev, &mj) == 0;
    if (!pm->has_counter && pm->nvml_power(pm->nvml_dev, &mw) != 0) {
        if (pm->nvml_shutdown)
            pm->nvml_shutdown();
        dlclose(pm->nvml_lib);
        pm->nvml_lib = NULL;
        return 0;
    }
    pm->kind = SRC_NVML;
    snprintf(pm->source, sizeof pm->source, "NVML %s (GPU board)",
             pm->has_counter ? "energy counter" : "power samples");
    return 1;
}

jf_power_meter *jf_power_meter_open(const char *root_in, int cuda_device)
{
    const char *root = jf_power_root(root_in);
    jf_power_meter *pm = (jf_power_meter *)calloc(1, sizeof *pm);
    if (!pm)
        return NULL;
    pthread_mutex_init(&pm->lock, NULL);
    pm->module.rank = pm->compute.rank = -1;
    snprintf(pm->source, sizeof pm->source, "none");
    if (!scan_ina3221(pm, root, 0) && !scan_ina3221(pm, root, 1) &&
        !(cuda_device >= 0 && !root[0] && open_nvml(pm, cuda_device)))
        pm->kind = SRC_NONE;
    return pm;
}

const char *jf_power_meter_source(const jf_power_meter *pm) { return pm ? pm->source : "none"; }

static double rail_mw(const jf_power_meter *pm, const rail *r)
{
    if (r->rank < 0)
        return NAN;
    return pm->kind == SRC_IIO ? read_number("", r->power_path)
                               : read_number("", r->volt_path) * read_number("", r->curr_path) / 1000.0;
}

/* The rail the meter's energy is: the module's input, else the compute rail. */
static const rail *main_rail(const jf_power_meter *pm)
{
    return pm->module.rank >= 0 ? &pm->module : &pm->compute;
}

double jf_power_meter_read_mw(jf_power_meter *pm)
{
    unsigned int mw;
    if (!pm)
        return NAN;
    switch (pm->kind) {
    case SRC_IIO:
    case SRC_HWMON:
        return rail_mw(pm, main_rail(pm));
    case SRC_NVML:
        return pm->nvml_power(pm->nvml_dev, &mw) == 0 ? (double)mw : NAN;
    default:
        return NAN;
    }
}

/* The compute rail's power where the board has one besides the meter's. */
static double compute_mw(const jf_power_meter *pm)
{
    if ((pm->kind != SRC_IIO && pm->kind != SRC_HWMON) || pm->module.rank < 0)
        return NAN;
    return rail_mw(pm, &pm->compute);
}

static void *sampler(void *arg)
{
    jf_power_meter *pm = (jf_power_meter *)arg;
    struct timespec ts;
    ts.tv_sec = pm->period_ms / 1000;
    ts.tv_nsec = (long)(pm->period_ms % 1000) * 1000000L;
    for (;;) {
        double now, mw, cmw;
        int running;
        nanosleep(&ts, NULL);
        mw = jf_power_meter_read_mw(pm);
        cmw = compute_mw(pm);
        now = jf_now_ms();
        pthread_mutex_lock(&pm->lock);
        running = pm->running;
        if (!isnan(mw) && !isnan(pm->last_mw)) {
            pm->energy_mj += 0.5 * (mw + pm->last_mw) * (now - pm->last_ms) / 1000.0;
            pm->samples++;
        }
        if (!isnan(cmw) && !isnan(pm->last_compute_mw))
            pm->compute_mj += 0.5 * (cmw + pm->last_compute_mw) * (now - pm->last_ms) / 1000.0;
        else
            pm->compute_mj = NAN; /* a gap: no figure rather than a low one */
        pm->last_mw = mw;
        pm->last_compute_mw = cmw;
        pm->last_ms = now;
        pthread_mutex_unlock(&pm->lock);
        if (!running)
            return NULL;
    }
}

int jf_power_meter_start(jf_power_meter *pm, int period_ms)
{
    if (!pm || pm->kind == SRC_NONE || pm->running)
        return 0;
    pm->energy_mj = 0.0;
    pm->samples = 0;
    pm->period_ms = period_ms < 1 ? 1 : period_ms;
    pm->start_ms = pm->last_ms = jf_now_ms();
    if (pm->kind == SRC_NVML && pm->has_counter) {
        pm->running = pm->nvml_energy(pm->nvml_dev, &pm->counter0) == 0;
        return pm->running;
    }
    pm->last_mw = jf_power_meter_read_mw(pm);
    pm->last_compute_mw = compute_mw(pm);
    pm->compute_mj = 0.0;
    pm->running = 1;
    if (pthread_create(&pm->thread, NULL, sampler, pm) != 0) {
        pm->running = 0;
        return 0;
    }
    return 1;
}

int jf_power_meter_stop(jf_power_meter *pm, double *energy_mj, double *mean_w)
{
    double secs;
    int measured = 0;
    *energy_mj = *mean_w = NAN;
    if (!pm || !pm->running)
        return 0;
    if (pm->kind == SRC_NVML && pm->has_counter) {
        unsigned long long c1;
        pm->running = 0;
        secs = (jf_now_ms() - pm->start_ms) / 1000.0;
        if (pm->nvml_energy(pm->nvml_dev, &c1) == 0 && c1 > pm->counter0 && secs > 0) {
            *energy_mj = (double)(c1 - pm->counter0);
            *mean_w = *energy_mj / 1000.0 / secs;
            measured = 1;
        }
        return measured;
    }
    pthread_mutex_lock(&pm->lock);
    pm->running = 0;
    pthread_mutex_unlock(&pm->lock);
    pthread_join(pm->thread, NULL);
    secs = (pm->last_ms - pm->start_ms) / 1000.0;
    if (pm->samples > 0 && secs > 0) {
        *energy_mj = pm->energy_mj;
        *mean_w = pm->energy_mj / 1000.0 / secs;
        measured = 1;
    }
    return measured;
}

int jf_power_meter_whole_board(const jf_power_meter *pm)
{
    return pm && (pm->kind == SRC_IIO || pm->kind == SRC_HWMON) && pm->module.rank >= 0;
}

const char *jf_power_meter_rail(const jf_power_meter *pm, int compute)
{
    const rail *r;
    if (!pm || (pm->kind != SRC_IIO && pm->kind != SRC_HWMON))
        return "";
    r = compute ? &pm->compute : &pm->module;
    return r->rank >= 0 ? r->name : "";
}

double jf_power_meter_compute_mj(const jf_power_meter *pm)
{
    if (!pm || pm->running || pm->module.rank < 0 || pm->compute.rank < 0 || pm->samples == 0)
        return NAN;
    return pm->compute_mj;
}

void jf_power_meter_looked_for(char *out, size_t n)
{
    snprintf(out, n, "an INA3221 (/sys/bus/i2c/drivers/ina3221x or ina3221) with a rail labelled "
             "%s or %s (the module's input) or %s, %s or %s (CPU and GPU), or NVML for a discrete GPU",
             MODULE_RAILS[0], MODULE_RAILS[1], COMPUTE_RAILS[0], COMPUTE_RAILS[1], COMPUTE_RAILS[2]);
}

void jf_power_meter_clocks(jf_power_meter *pm, double *sm_mhz, double *mem_mhz)
{
    unsigned int v;
    *sm_mhz = *mem_mhz = NAN;
    if (!pm || pm->kind != SRC_NVML || !pm->nvml_clock)
        return;
    if (pm->nvml_clock(pm->nvml_dev, 1 /* NVML_CLOCK_SM */, &v) == 0)
        *sm_mhz = v;
    if (pm->nvml_clock(pm->nvml_dev, 2 /* NVML_CLOCK_MEM */, &v) == 0)
        *mem_mhz = v;
}

void jf_power_meter_close(jf_power_meter *pm)
{
    if (!pm)
        return;
    if (pm->running) {
        double e, w;
        jf_power_meter_stop(pm, &e, &w);
    }
    if (pm->nvml_lib) {
        if (pm->nvml_shutdown)
            pm->nvml_shutdown();
        dlclose(pm->nvml_lib);
        pm->nvml_lib = NULL;
    }
    pthread_mutex_destroy(&pm->lock);
    free(pm);
}
