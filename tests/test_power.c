/* Power-mode and energy readers against a fake sysfs (both INA3221 driver
 * layouts, missing files), and scripts/power_sweep.sh with stub nvpmodel and
 * jetson_clocks on PATH. */
#define _DEFAULT_SOURCE
#include "common.h"
#include "io/io.h"
#include "core/util.h"
#include "calib/power.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void put(const char *root, const char *path, const char *text)
{
    char full[1024], cmd[1200];
    FILE *f;
    snprintf(full, sizeof full, "%s%s", root, path);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", full);
    assert_int_equal(system(cmd), 0);
    f = fopen(full, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* `jetfilter info` lists the board's modes with their limits in words,
 * the default and the current one each marked once, on its own line. */
static void test_info_lists_modes(void **state)
{
    const char *root = t_make_tmpdir();
    char cmd[2048], log[1024], out[8192], *maxn, *five;
    FILE *in;
    char conf[8192];
    size_t n;
    (void)state;
    in = fopen(t_source_path("tests/data/nvpmodel/t210_nano.conf"), "r");
    assert_non_null(in);
    n = fread(conf, 1, sizeof conf - 1, in);
    conf[n] = '\0';
    fclose(in);
    put(root, "/etc/nvpmodel.conf", conf);
    put(root, "/var/lib/nvpmodel/status", "pmode:0001\n");
    snprintf(log, sizeof log, "%s/info.txt", root);
    snprintf(cmd, sizeof cmd, "JF_SYSFS_ROOT='%s' %s info > '%s' 2>&1", root, JF_CLI_PATH, log);
    assert_int_equal(t_run_logged(cmd, log, out, sizeof out), 0);
    assert_non_null(strstr(out, "power mode:  5W (id 1, from /var/lib/nvpmodel/status)"));
    maxn = strstr(out, " 0 MAXN ");
    five = strstr(out, " 1 5W ");
    assert_true(maxn && five && maxn < five);
    *strchr(maxn, '\n') = '\0';
    *strchr(five, '\n') = '\0';
    assert_string_equal(maxn, " 0 MAXN         4 of 4 CPUs, CPU no cap, GPU no cap, EMC no cap (default)");
    assert_string_equal(five, " 1 5W           2 of 4 CPUs, CPU at most 918 MHz, GPU at most 640 MHz, "
                              "EMC at most 1600 MHz (current)");
    t_rmtree(root);
}

static void test_mode_from_status_file(void **state)
{
    const char *root = t_make_tmpdir();
    jf_power_mode m;
    (void)state;
    put(root, "/var/lib/nvpmodel/status", "pmode:0001\n");
    put(root, "/etc/nvpmodel.conf",
        "< POWER_MODEL ID=0 NAME=MAXN >\nCPU_ONLINE CORE_0 1\n< POWER_MODEL ID=1 NAME=5W >\n");
    put(root, "/sys/devices/system/cpu/online", "0-1\n");
    put(root, "/sys/devices/gpu.0/devfreq/57000000.gpu/cur_freq", "640000000\n");
    put(root, "/sys/devices/gpu.0/devfreq/57000000.gpu/max_freq", "921600000\n");
    assert_true(jf_power_read_mode(root, &m));
    assert_int_equal(m.mode_id, 1);
    assert_string_equal(m.mode_name, "5W");
    assert_string_equal(m.source, "/var/lib/nvpmodel/status");
    assert_int_equal(m.cpus_online, 2);
    assert_true(fabs(m.gpu_cur_mhz - 640.0) < 1e-9);
    assert_true(fabs(m.gpu_max_mhz - 921.6) < 1e-9);
    put(root, "/sys/devices/system/cpu/online", "0-3,6\n");
    assert_true(jf_power_read_mode(root, &m));
    assert_int_equal(m.cpus_online, 5);
    t_rmtree(root);
}

/* With no sysfs root, the mode comes from `nvpmodel -q` (a stand-in on
 * PATH prints what JetPack 4.6's prints); the list of online CPUs takes
 * ranges and single CPUs and refuses anything else. */
static void test_mode_from_nvpmodel(void **state)
{
    const char *dir = t_make_tmpdir();
    char path[1200], *old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    jf_power_mode m;
    (void)state;
    put(dir, "/nvpmodel", "#!/bin/sh\n[ \"$1\" = -q ] || exit 2\n"
                          "echo 'NV Fan Mode:quiet'\necho 'NV Power Mode: MAXN'\necho 0\n");
    snprintf(path, sizeof path, "%s/nvpmodel", dir);
    assert_int_equal(chmod(path, 0755), 0);
    snprintf(path, sizeof path, "%s:%s", dir, old_path ? old_path : "/usr/bin:/bin");
    setenv("PATH", path, 1);
    unsetenv("JF_SYSFS_ROOT");
    jf_power_read_mode("", &m);
    assert_int_equal(m.mode_id, 0);
    assert_string_equal(m.mode_name, "MAXN");
    assert_string_equal(m.source, "nvpmodel -q");
    /* a mode number before any "Power Mode:" line is not the mode's */
    put(dir, "/nvpmodel", "#!/bin/sh\necho 7\necho 'NV Power Mode: 5W'\necho 1\n");
    jf_power_read_mode("", &m);
    assert_int_equal(m.mode_id, 1);
    assert_string_equal(m.mode_name, "5W");
    if (old_path)
        setenv("PATH", old_path, 1);
    free(old_path);
    t_rmtree(dir);
}

/* A fixture's text, NUL-terminated (the caller frees it). */
static char *fixture(const char *name)
{
    char path[256], *text = NULL;
    size_t n = 0;
    snprintf(path, sizeof path, "tests/data/nvpmodel/%s", name);
    assert_int_equal(jf_read_file(t_source_path(path), 1 << 20, (unsigned char **)&text, &n), JF_OK);
    text = (char *)realloc(text, n + 1);
    assert_non_null(text);
    text[n] = '\0';
    return text;
}

/* The Orin NX's and the AGX Orin's files: two and three CPU clusters, the
 * cores each mode keeps online, the caps of the first cluster (the others
 * alike), the default. */
static void test_power_modes_of_larger_orins(void **state)
{
    static const struct {
        const char *file;
        int cores;
        const char *names[4];
        int online[4];
        double gpu_mhz[4], emc_mhz[4];
    } boards[] = {
        {"p3767_orin_nx.conf", 8, {"MAXN", "10W", "15W", "25W"}, {8, 4, 4, 8},
         {0, 612.0, 612.0, 918.0}, {0, 2133.0, 3199.0, 3199.0}},
        {"p3701_agx_orin.conf", 12, {"MAXN", "15W", "30W", "50W"}, {12, 4, 8, 12},
         {0, 420.75, 624.75, 828.75}, {0, 2133.0, 3199.0, 3199.0}},
    };
    jf_power_mode_def m[8];
    size_t b;
    int i, def;
    (void)state;
    for (b = 0; b < sizeof boards / sizeof boards[0]; b++) {
        char *text = fixture(boards[b].file);
        def = -2;
        assert_int_equal(jf_power_modes_parse(text, m, 8, &def), 4);
        assert_int_equal(def, 2);
        for (i = 0; i < 4; i++) {
            assert_int_equal(m[i].id, i);
            assert_string_equal(m[i].name, boards[b].names[i]);
            assert_int_equal(m[i].cores, boards[b].cores);
            assert_int_equal(m[i].cores_online, boards[b].online[i]);
            assert_true(fabs(m[i].gpu_max_mhz - boards[b].gpu_mhz[i]) < 1e-9);
            assert_true(fabs(m[i].emc_max_mhz - boards[b].emc_mhz[i]) < 1e-9);
        }
        assert_true(m[0].cpu_max_mhz == 0 && m[3].cpu_max_mhz > 1000.0);
        free(text);
    }
}

/* The modes a board declares, from the Nano's and the Orin Nano's layouts:
 * ids, names, cores, the clock caps in MHz (kHz for the CPU, Hz for the GPU
 * and memory in the file; -1 and an EMC of 0 are "no cap"), the default;
 * and the current mode named from the list. */
static void test_power_modes_of_both_boards(void **state)
{
    jf_power_mode_def m[8];
    jf_power_mode now;
    const char *root = t_make_tmpdir();
    char *text = fixture("t210_nano.conf");
    int def = -2;
    (void)state;
    assert_int_equal(jf_power_modes_parse(text, m, 8, &def), 2);
    assert_int_equal(def, 0);
    assert_int_equal(m[0].id, 0);
    assert_string_equal(m[0].name, "MAXN");
    assert_true(m[0].cores == 4 && m[0].cores_online == 4);
    assert_true(m[0].cpu_max_mhz == 0 && m[0].gpu_max_mhz == 0 && m[0].emc_max_mhz == 0);
    assert_string_equal(m[1].name, "5W");
    assert_true(m[1].cores == 4 && m[1].cores_online == 2);
    assert_true(fabs(m[1].cpu_max_mhz - 918.0) < 1e-9 && fabs(m[1].gpu_max_mhz - 640.0) < 1e-9);
    assert_true(fabs(m[1].emc_max_mhz - 1600.0) < 1e-9 && m[1].gpu_min_mhz == 0);
    assert_int_equal(jf_power_modes_parse(text, m, 1, NULL), 1); /* at most `max` */
    put(root, "/etc/nvpmodel.conf", text);
    free(text);
    put(root, "/var/lib/nvpmodel/status", "pmode:0001\n");
    assert_true(jf_power_read_mode(root, &now));
    assert_string_equal(now.mode_name, "5W");
    /* the Orin Nano: clusters, a cluster without a cap, the ga10b GPU */
    put(root, "/etc/nvpmodel.conf", "");
    text = fixture("p3767_orin_nano.conf");
    put(root, "/etc/nvpmodel.conf", text);
    free(text);
    assert_int_equal(jf_power_modes_read(root, m, 8, &def), 3);
    assert_string_equal(m[0].name, "15W");
    assert_true(fabs(m[0].gpu_max_mhz - 624.75) < 1e-9 && fabs(m[0].emc_max_mhz - 2133.0) < 1e-9);
    assert_true(fabs(m[0].cpu_max_mhz - 1497.6) < 1e-9 && m[0].cores_online == 6);
    assert_true(m[1].id == 1 && strcmp(m[1].name, "7W") == 0 && m[1].cores_online == 4);
    assert_true(fabs(m[1].gpu_max_mhz - 420.75) < 1e-9 && m[1].gpu_min_mhz == 0);
    assert_true(m[2].id == 2 && strcmp(m[2].name, "MAXN_SUPER") == 0);
    assert_true(m[2].cpu_max_mhz == 0 && fabs(m[2].gpu_max_mhz - 1020.0) < 1e-9 &&
                m[2].emc_max_mhz == 0);
    assert_true(jf_power_read_mode(root, &now));
    assert_string_equal(now.mode_name, "7W");
    /* what a mode does not say stays unknown, not zero */
    assert_int_equal(jf_power_modes_parse("< POWER_MODEL ID=4 NAME=X >\n# a comment\n", m, 8, &def), 1);
    assert_true(m[0].id == 4 && m[0].cores == 0 && m[0].cpu_max_mhz < 0 && m[0].gpu_max_mhz < 0 &&
                m[0].emc_max_mhz < 0 && def == -1);
    assert_int_equal(jf_power_modes_read("/nonexistent-root", m, 8, &def), -1);
    t_rmtree(root);
}

static void test_cpus_online(void **state)
{
    static const struct {
        const char *text;
        int count;
    } cases[] = {{"7\n", 1}, {"0-3,6\n", 5}, {"0,2,4-5\n", 4}, {"0-3x\n", -1}, {"x\n", -1},
                 {"0-3;4\n", -1}};
    const char *root = t_make_tmpdir();
    jf_power_mode m;
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        put(root, "/sys/devices/system/cpu/online", cases[i].text);
        jf_power_read_mode(root, &m);
        if (m.cpus_online != cases[i].count)
            fail_msg("online '%s': %d CPUs, wanted %d", cases[i].text, m.cpus_online, cases[i].count);
    }
    t_rmtree(root);
    {   /* the same parser marks the CPUs a GPU is near (pipeline/batch.c) */
        unsigned char cpus[16];
        memset(cpus, 0, sizeof cpus);
        assert_int_equal(jf_cpu_list_parse("0-3,8,10-11,20\n", cpus, 16), 8);
        for (i = 0; i < 16; i++)
            assert_int_equal(cpus[i], i <= 3 || i == 8 || i == 10 || i == 11);
        assert_int_equal(jf_cpu_list_parse("3-1", cpus, 16), -1);
        assert_int_equal(jf_cpu_list_parse("1,,2", cpus, 16), -1);
        assert_int_equal(jf_cpu_list_parse("1-", cpus, 16), -1);
        assert_int_equal(jf_cpu_list_parse("", cpus, 16), 0);
    }
}

static void test_nothing_readable(void **state)
{
    const char *root = t_make_tmpdir();
    jf_power_mode m;
    jf_power_meter *pm;
    double e, w;
    (void)state;
    assert_false(jf_power_read_mode(root, &m));
    assert_int_equal(m.mode_id, -1);
    assert_int_equal(m.cpus_online, -1);
    assert_true(isnan(m.gpu_cur_mhz)); /* unknown, never 0 */
    pm = jf_power_meter_open(root, -1);
    assert_non_null(pm);
    assert_string_equal(jf_power_meter_source(pm), "none");
    assert_true(isnan(jf_power_meter_read_mw(pm)));
    assert_false(jf_power_meter_start(pm, 5));
    assert_false(jf_power_meter_stop(pm, &e, &w));
    assert_true(isnan(e) && isnan(w));
    jf_power_meter_close(pm);
    t_rmtree(root);
}

static void test_ina3221_iio(void **state)
{
    const char *root = t_make_tmpdir();
    const char *dev = "/sys/bus/i2c/drivers/ina3221x/6-0040/iio:device0";
    char path[256];
    jf_power_meter *pm;
    double e, w;
    (void)state;
    /* rails in the Nano's order; the input rail is the one to use */
    snprintf(path, sizeof path, "%s/rail_name_0", dev); put(root, path, "POM_5V_IN\n");
    snprintf(path, sizeof path, "%s/rail_name_1", dev); put(root, path, "POM_5V_GPU\n");
    snprintf(path, sizeof path, "%s/rail_name_2", dev); put(root, path, "POM_5V_CPU\n");
    snprintf(path, sizeof path, "%s/in_power0_input", dev); put(root, path, "4000\n");
    snprintf(path, sizeof path, "%s/in_power1_input", dev); put(root, path, "1500\n");
    snprintf(path, sizeof path, "%s/in_power2_input", dev); put(root, path, "900\n");
    pm = jf_power_meter_open(root, -1);
    assert_string_equal(jf_power_meter_source(pm), "INA3221 (iio) POM_5V_IN");
    assert_string_equal(jf_power_meter_rail(pm, 1), "POM_5V_GPU");
    assert_true(fabs(jf_power_meter_read_mw(pm) - 4000.0) < 1e-9);
    /* constant 4 W for ~200 ms: ~800 mJ */
    assert_true(jf_power_meter_start(pm, 2));
    usleep(200000);
    assert_true(jf_power_meter_stop(pm, &e, &w));
    assert_true(fabs(w - 4.0) < 1e-6);
    assert_true(e > 600.0 && e < 1200.0);
    jf_power_meter_close(pm);
    t_rmtree(root);
}

static void test_ina3221_hwmon(void **state)
{
    const char *root = t_make_tmpdir();
    const char *mon = "/sys/bus/i2c/drivers/ina3221/1-0040/hwmon/hwmon3";
    char path[256];
    jf_power_meter *pm;
    (void)state;
    snprintf(path, sizeof path, "%s/in1_label", mon); put(root, path, "VDD_GPU_SOC\n");
    snprintf(path, sizeof path, "%s/in2_label", mon); put(root, path, "VDD_CPU_CV\n");
    snprintf(path, sizeof path, "%s/in3_label", mon); put(root, path, "VDD_IN\n");
    snprintf(path, sizeof path, "%s/in3_input", mon); put(root, path, "5000\n");  /* mV */
    snprintf(path, sizeof path, "%s/curr3_input", mon); put(root, path, "800\n"); /* mA */
    pm = jf_power_meter_open(root, -1);
    assert_string_equal(jf_power_meter_source(pm), "INA3221 (hwmon) VDD_IN");
    assert_true(fabs(jf_power_meter_read_mw(pm) - 4000.0) < 1e-9);
    /* a file vanishing mid-run reads as unknown, not zero */
    snprintf(path, sizeof path, "%s%s/curr3_input", root, mon);
    unlink(path);
    assert_true(isnan(jf_power_meter_read_mw(pm)));
    jf_power_meter_close(pm);
    t_rmtree(root);
}

/* One hwmon channel of an INA3221 under `root`: its label, mV and mA. */
static void hwmon_channel(const char *root, const char *dev, int ch, const char *label, int mv, int ma)
{
    char path[512], value[32];
    snprintf(path, sizeof path, "/sys/bus/i2c/drivers/ina3221/%s/hwmon/hwmon%c/in%d_label", dev,
             dev[strlen(dev) - 1], ch);
    snprintf(value, sizeof value, "%s\n", label);
    put(root, path, value);
    snprintf(path, sizeof path, "/sys/bus/i2c/drivers/ina3221/%s/hwmon/hwmon%c/in%d_input", dev,
             dev[strlen(dev) - 1], ch);
    snprintf(value, sizeof value, "%d\n", mv);
    put(root, path, value);
    snprintf(path, sizeof path, "/sys/bus/i2c/drivers/ina3221/%s/hwmon/hwmon%c/curr%d_input", dev,
             dev[strlen(dev) - 1], ch);
    snprintf(value, sizeof value, "%d\n", ma);
    put(root, path, value);
}

/* The rails by their labels on each board's layout: the module's input is
 * the meter's energy and the compute rail is measured beside it (the Nano
 * in the iio test above: POM_5V_IN and POM_5V_GPU); an Orin Nano or NX
 * (VDD_IN, VDD_CPU_GPU_CV, VDD_SOC); an AGX Orin, two monitors and no
 * module input rail (VDD_GPU_SOC, VDD_CPU_CV, VIN_SYS_5V0; NC,
 * VDDQ_VDD2_1V8AO, NC), whose energy is then its GPU and SoC rail's, not
 * the whole board's. */
static void test_rails_by_label(void **state)
{
    const char *root = t_make_tmpdir();
    jf_power_meter *pm;
    double e, w, c;
    (void)state;
    hwmon_channel(root, "1-0040", 1, "VDD_IN", 5000, 1000);
    hwmon_channel(root, "1-0040", 2, "VDD_CPU_GPU_CV", 5000, 400);
    hwmon_channel(root, "1-0040", 3, "VDD_SOC", 5000, 300);
    pm = jf_power_meter_open(root, -1);
    assert_string_equal(jf_power_meter_rail(pm, 0), "VDD_IN");
    assert_string_equal(jf_power_meter_rail(pm, 1), "VDD_CPU_GPU_CV");
    assert_true(jf_power_meter_whole_board(pm));
    assert_true(fabs(jf_power_meter_read_mw(pm) - 5000.0) < 1e-9);
    assert_true(isnan(jf_power_meter_compute_mj(pm))); /* nothing measured yet */
    assert_true(jf_power_meter_start(pm, 2));
    usleep(200000);
    assert_true(jf_power_meter_stop(pm, &e, &w));
    c = jf_power_meter_compute_mj(pm);
    assert_true(fabs(w - 5.0) < 1e-6);
    assert_true(fabs(c / e - 0.4) < 1e-6); /* 2 W of the 5 W, over the same samples */
    jf_power_meter_close(pm);
    t_rmtree(root);

    root = t_make_tmpdir();
    hwmon_channel(root, "1-0040", 1, "VDD_GPU_SOC", 5000, 600);
    hwmon_channel(root, "1-0040", 2, "VDD_CPU_CV", 5000, 200);
    hwmon_channel(root, "1-0040", 3, "VIN_SYS_5V0", 5000, 500);
    hwmon_channel(root, "1-0041", 1, "NC", 0, 0);
    hwmon_channel(root, "1-0041", 2, "VDDQ_VDD2_1V8AO", 1800, 200);
    hwmon_channel(root, "1-0041", 3, "NC", 0, 0);
    pm = jf_power_meter_open(root, -1);
    assert_string_equal(jf_power_meter_rail(pm, 0), "");
    assert_string_equal(jf_power_meter_rail(pm, 1), "VDD_GPU_SOC");
    assert_string_equal(jf_power_meter_source(pm), "INA3221 (hwmon) VDD_GPU_SOC");
    assert_false(jf_power_meter_whole_board(pm));
    assert_true(fabs(jf_power_meter_read_mw(pm) - 3000.0) < 1e-9);
    assert_true(jf_power_meter_start(pm, 2));
    usleep(50000);
    assert_true(jf_power_meter_stop(pm, &e, &w));
    assert_true(isnan(jf_power_meter_compute_mj(pm))); /* it is the meter's own */
    jf_power_meter_close(pm);
    t_rmtree(root);

    /* labels it does not know: nothing, and the message says what it wanted */
    root = t_make_tmpdir();
    hwmon_channel(root, "1-0040", 1, "VDD_SOMETHING", 5000, 100);
    pm = jf_power_meter_open(root, -1);
    assert_string_equal(jf_power_meter_source(pm), "none");
    jf_power_meter_close(pm);
    {
        char looked[256];
        jf_power_meter_looked_for(looked, sizeof looked);
        assert_non_null(strstr(looked, "VDD_IN"));
        assert_non_null(strstr(looked, "VDD_CPU_GPU_CV"));
    }
    t_rmtree(root);
}

/* ---- power_sweep.sh with stubs ---- */

static char g_stubs[256], g_log[512];

static void make_stubs(const char *dir)
{
    char path[512];
    FILE *f;
    snprintf(g_log, sizeof g_log, "%s/calls.log", dir);
    snprintf(path, sizeof path, "%s/nvpmodel", dir);
    f = fopen(path, "w");
    fprintf(f, "#!/bin/sh\nstate=%s/mode\n[ -f $state ] || echo 0 > $state\n"
               "if [ \"$1\" = -q ]; then echo \"NV Power Mode: MAXN\"; cat $state; exit 0; fi\n"
               "if [ \"$1\" = -m ]; then echo \"nvpmodel -m $2\" >> %s; echo $2 > $state; fi\n",
            dir, g_log);
    fclose(f);
    chmod(path, 0755);
    snprintf(path, sizeof path, "%s/jetson_clocks", dir);
    f = fopen(path, "w");
    fprintf(f, "#!/bin/sh\necho \"jetson_clocks $*\" >> %s\n", g_log);
    fclose(f);
    chmod(path, 0755);
    snprintf(path, sizeof path, "%s/jetfilter", dir);
    f = fopen(path, "w");
    fprintf(f, "#!/bin/sh\necho \"bench $*\" >> %s\n[ -n \"$STUB_SLEEP\" ] && sleep $STUB_SLEEP\nexit 0\n",
            g_log);
    fclose(f);
    chmod(path, 0755);
}

static char *slurp(const char *path)
{
    static char buf[8192];
    FILE *f = fopen(path, "r");
    size_t n = 0;
    buf[0] = '\0';
    if (f) {
        n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
    }
    buf[n] = '\0';
    return buf;
}

/* power_sweep.sh with the stubs of `dir` on PATH and `args`; its exit code. */
static int sweep(const char *dir, const char *conf, const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "PATH=%s:$PATH JETFILTER=%s/jetfilter SUDO= NVPMODEL_CONF=%s "
             "%s/scripts/power_sweep.sh --settle 0 --out %s/out %s > %s/out.txt 2>&1",
             dir, dir, conf, JF_SOURCE_DIR, dir, args, dir);
    return WEXITSTATUS(system(cmd));
}

static void test_power_sweep_script(void **state)
{
    const char *dir = t_make_tmpdir();
    char cmd[2048];
    const char *log;
    (void)state;
    snprintf(g_stubs, sizeof g_stubs, "%s", dir);
    make_stubs(dir);
    assert_int_equal(sweep(dir, "/nonexistent", "--modes 1,2 --jetson-clocks -- --sizes 345x194"), 0);
    log = slurp(g_log);
    /* store clocks, set 1, pin clocks, bench tagged, set 2, ..., restore 0 and the clocks */
    assert_non_null(strstr(log, "jetson_clocks --store"));
    assert_non_null(strstr(log, "nvpmodel -m 1\njetson_clocks \nbench bench --energy --tag mode-1"));
    assert_non_null(strstr(log, "--sizes 345x194"));
    assert_non_null(strstr(log, "nvpmodel -m 2\njetson_clocks \nbench bench --energy --tag mode-2"));
    assert_non_null(strstr(log, "nvpmodel -m 0\njetson_clocks --restore"));
    assert_string_equal(slurp((snprintf(cmd, sizeof cmd, "%s/mode", dir), cmd)), "0\n");
    t_rmtree(dir);
}

/* Modes by name, as the board's nvpmodel.conf names them (the Orin Nano's
 * here); a name the board does not have is refused before any mode is set. */
static void test_power_sweep_by_name(void **state)
{
    const char *dir = t_make_tmpdir();
    char cmd[2048], conf[1024];
    const char *log;
    (void)state;
    make_stubs(dir);
    snprintf(conf, sizeof conf, "%s/tests/data/nvpmodel/p3767_orin_nano.conf", JF_SOURCE_DIR);
    assert_int_equal(sweep(dir, conf, "--power-modes 7W,MAXN_SUPER"), 0);
    log = slurp(g_log);
    assert_non_null(strstr(log, "nvpmodel -m 1\nbench bench --energy --tag mode-1-7W"));
    assert_non_null(strstr(log, "nvpmodel -m 2\nbench bench --energy --tag mode-2-MAXN_SUPER"));
    assert_non_null(strstr(log, "nvpmodel -m 0")); /* restored */
    unlink(g_log);
    assert_int_equal(sweep(dir, conf, "--power-modes 15W,25W"), 2);
    assert_null(strstr(slurp(g_log), "nvpmodel -m")); /* nothing changed */
    snprintf(cmd, sizeof cmd, "%s/out.txt", dir);
    assert_non_null(strstr(slurp(cmd), "no power mode '25W' on this board"));
    assert_non_null(strstr(slurp(cmd), "0 15W,1 7W,2 MAXN_SUPER"));
    t_rmtree(dir);
}

static void test_power_sweep_interrupted(void **state)
{
    const char *dir = t_make_tmpdir();
    char cmd[2048];
    int rc;
    (void)state;
    make_stubs(dir);
    /* the bench stub sleeps; stop the sweep while it runs.  SIGTERM, because a
     * background job of a non-interactive shell starts with SIGINT ignored,
     * which bash then cannot trap; Ctrl-C at a terminal takes the same path. */
    snprintf(cmd, sizeof cmd,
             "cd %s && (PATH=%s:$PATH STUB_SLEEP=5 JETFILTER=%s/jetfilter SUDO= setsid "
             "%s/scripts/power_sweep.sh --modes 1 --settle 0 --out %s/out > out.txt 2>&1 & "
             "echo $! > pid); sleep 1; kill -TERM $(cat pid); sleep 1",
             dir, dir, dir, JF_SOURCE_DIR, dir);
    rc = system(cmd);
    assert_int_equal(WEXITSTATUS(rc), 0);
    assert_non_null(strstr(slurp(g_log), "nvpmodel -m 1"));
    assert_non_null(strstr(slurp(g_log), "nvpmodel -m 0")); /* restored */
    assert_string_equal(slurp((snprintf(cmd, sizeof cmd, "%s/mode", dir), cmd)), "0\n");
    t_rmtree(dir);
}

/* The memory's bandwidth of each Jetson, which its GPU's attributes do not
 * give: the Orin's modules told apart by their SMs. */
static void test_tegra_bandwidth(void **state)
{
    (void)state;
    assert_float_equal(jf_tegra_gbps(5, 3, 1), 25.6, 1e-9);    /* Nano */
    assert_float_equal(jf_tegra_gbps(7, 2, 8), 136.5, 1e-9);   /* AGX Xavier */
    assert_float_equal(jf_tegra_gbps(8, 7, 16), 204.8, 1e-9);  /* AGX Orin 64 GB */
    assert_float_equal(jf_tegra_gbps(8, 7, 14), 204.8, 1e-9);  /* AGX Orin 32 GB */
    assert_float_equal(jf_tegra_gbps(8, 7, 8), 102.4, 1e-9);   /* Orin NX 16 GB, Orin Nano 8 GB */
    assert_float_equal(jf_tegra_gbps(8, 7, 6), 102.4, 1e-9);   /* Orin NX 8 GB */
    assert_float_equal(jf_tegra_gbps(8, 7, 4), 51.2, 1e-9);    /* Orin Nano 4 GB */
    assert_float_equal(jf_tegra_gbps(9, 0, 132), 0.0, 0.0);    /* not a Jetson: the attributes say */
    assert_float_equal(jf_tegra_gbps(8, 6, 8), 0.0, 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_info_lists_modes),
        cmocka_unit_test(test_mode_from_status_file),
        cmocka_unit_test(test_mode_from_nvpmodel),
        cmocka_unit_test(test_cpus_online),
        cmocka_unit_test(test_power_modes_of_both_boards),
        cmocka_unit_test(test_nothing_readable),
        cmocka_unit_test(test_ina3221_iio),
        cmocka_unit_test(test_power_modes_of_larger_orins),
        cmocka_unit_test(test_tegra_bandwidth),
        cmocka_unit_test(test_ina3221_hwmon),
        cmocka_unit_test(test_rails_by_label),
        cmocka_unit_test(test_power_sweep_script),
        cmocka_unit_test(test_power_sweep_by_name),
        cmocka_unit_test(test_power_sweep_interrupted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
