/* Internal: power mode, clocks and energy, for `jetfilter bench`.
 *
 * Every reader takes a root folder prepended to the system paths ("" or NULL
 * for the real system; tests point it at a fake sysfs), and reports what it
 * could not read as unknown (-1 / NAN), never as zero. */
#ifndef JF_CALIB_POWER_H
#define JF_CALIB_POWER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jf_power_mode {
    int mode_id;          /* nvpmodel mode, -1 unknown */
    char mode_name[64];   /* "MAXN", "5W", or "" */
    char source[96];      /* where the mode came from */
    int cpus_online;      /* -1 unknown */
    double gpu_cur_mhz;   /* NAN unknown */
    double gpu_max_mhz;   /* NAN unknown */
} jf_power_mode;

/* A power mode as nvpmodel.conf declares it (the Nano's and the Orin's
 * layout: "< POWER_MODEL ID=1 NAME=5W >" then lines "CPU_ONLINE CORE_2 0",
 * "CPU_A57 MAX_FREQ 918000" (kHz), "GPU MAX_FREQ 640000000" (Hz),
 * "EMC MAX_FREQ 1600000000" (Hz)).  -1 in the file means the clock's own
 * maximum, 0 for EMC no cap: both read as 0 here ("no limit"); -1 here is
 * "the mode does not say". */
typedef struct jf_power_mode_def {
    int id;
    char name[64];
    int cores, cores_online; /* CPU_ONLINE lines, and those set to 1 */
    double cpu_max_mhz;      /* the highest cluster's MAX_FREQ */
    double gpu_min_mhz, gpu_max_mhz;
    double emc_max_mhz;
} jf_power_mode_def;

/* The modes of `text` (an nvpmodel.conf) in file order, at most `max`; the
 * number found.  *default_id: PM_CONFIG DEFAULT (-1 when absent). */
int jf_power_modes_parse(const char *text, jf_power_mode_def *modes, int max, int *default_id);

/* The same from root/etc/nvpmodel.conf; -1 when it cannot be read. */
int jf_power_modes_read(const char *root, jf_power_mode_def *modes, int max, int *default_id);

/* Fill `m`; returns 1 if anything was known, else 0.  With a non-empty root
 * `nvpmodel -q` is not run (tests); $JF_SYSFS_ROOT is the default root. */
int jf_power_read_mode(const char *root, jf_power_mode *m);

/* The root to use: `root` if given, else $JF_SYSFS_ROOT, else "". */
const char *jf_power_root(const char *root);

typedef struct jf_power_meter jf_power_meter;

/* Find a power source: the Jetson INA3221 (iio driver `ina3221x`, then the
 * hwmon driver `ina3221`), else NVML for CUDA device `cuda_device`.  Never
 * NULL; jf_power_meter_source() says "none" when nothing was found. */
jf_power_meter *jf_power_meter_open(const char *root, int cuda_device);
const char *jf_power_meter_source(const jf_power_meter *pm);

/* One reading of the board input rail in mW (NAN when unknown). */
double jf_power_meter_read_mw(jf_power_meter *pm);

/* Measure from start to stop: an energy counter where the source has one,
 * else samples every `period_ms` integrated by the trapezoid rule in a
 * background thread.  stop returns 1 and fills energy (mJ) and mean power
 * (W) when measured, else 0 and NANs. */
int jf_power_meter_start(jf_power_meter *pm, int period_ms);
int jf_power_meter_stop(jf_power_meter *pm, double *energy_mj, double *mean_w);

void jf_power_meter_close(jf_power_meter *pm);

/* Does the source see the whole board (CPU work too)?  The INA3221 input rail
 * does; NVML sees only the GPU board, a Jetson's compute rail only its CPU
 * and GPU. */
int jf_power_meter_whole_board(const jf_power_meter *pm);

/* A Jetson's rails by their labels: the module's input (VDD_IN, or the
 * Nano's POM_5V_IN), which the meter's energy is, and the compute rail
 * (VDD_CPU_GPU_CV on an Orin Nano or NX, VDD_GPU_SOC on an AGX Orin, the
 * Nano's POM_5V_GPU), measured beside it; "" where the board has none
 * (without a module rail the meter's energy is the compute rail's). */
const char *jf_power_meter_rail(const jf_power_meter *pm, int compute);
/* After a stop: the compute rail's energy over the same time (mJ), NAN
 * when there is none beside the module's or a reading failed. */
double jf_power_meter_compute_mj(const jf_power_meter *pm);
/* What the meter looks for, for a message when it found nothing. */
void jf_power_meter_looked_for(char *out, size_t n);

/* SM and memory clocks in MHz from NVML (NAN when unknown). */
void jf_power_meter_clocks(jf_power_meter *pm, double *sm_mhz, double *mem_mhz);

#ifdef __cplusplus
}
#endif
#endif
