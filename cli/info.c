/* jetfilter info: version, backends, CUDA devices and their limits, and the
 * operations this build offers. */
#include "cli/cli.h"
#include "calib/power.h"
#include "jobs/json.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void override_peak(const job_settings *s, jf_device_info *d)
{
    if (s->peak_gbps > 0) {
        d->theoretical_gbps = s->peak_gbps;
        snprintf(d->theoretical_source, sizeof d->theoretical_source, "--peak-gbps");
    }
}

static void json_device(json_buf *j, const jf_device_info *d)
{
    char profile[1024];
    json_open(j, NULL, '{');
    json_int(j, "index", d->index);
    json_str(j, "name", d->name);
    json_int(j, "cc_major", d->cc_major);
    json_int(j, "cc_minor", d->cc_minor);
    json_int(j, "multiprocessors", d->multiprocessors);
    json_str(j, "pci_bus_id", d->pci_bus_id[0] ? d->pci_bus_id : NULL);
    json_int(j, "memory_bytes", (long long)d->total_memory);
    json_bool(j, "integrated", d->integrated);
    json_num(j, "theoretical_gbps", d->theoretical_gbps);
    json_str(j, "theoretical_source", d->theoretical_source);
    json_int(j, "shared_per_block", d->shared_per_block);
    json_int(j, "shared_per_block_optin", d->shared_per_block_optin);
    json_int(j, "registers_per_block", d->registers_per_block);
    json_bool(j, "limited", d->limited);
    json_int(j, "runtime_version", d->runtime_version);
    json_int(j, "driver_version", d->driver_version);
    json_str(j, "auto_profile", cli_profile_status(d->index, profile, sizeof profile));
    json_close(j, '}');
}

/* What decodes JPEGs here: nvJPEG on the first device, or why not. */
static int describe_jpeg_decoder(int n, char *text, size_t size)
{
    char detail[256];
    if (n && jf_codec_probe(JF_CODEC_NVJPEG, 0, detail, sizeof detail) == JF_OK) {
        snprintf(text, size, "%s", detail);
        return 1;
    }
    snprintf(text, size, "libjpeg-turbo on the CPU (nvJPEG: %s)", n ? jf_last_error()
             : "no CUDA device");
    return 0;
}

/* The board's power modes (nvpmodel.conf) and the current one. */
typedef struct power_info {
    jf_power_mode_def modes[32];
    int count, default_id;
    jf_power_mode now;
} power_info;

static void read_power(power_info *p)
{
    p->count = jf_power_modes_read(NULL, p->modes, 32, &p->default_id);
    jf_power_read_mode(NULL, &p->now);
}

/* A limit as the mode states it: no cap, a clock, or nothing said. */
static const char *limit_text(char *buf, size_t n, const char *what, double mhz)
{
    if (mhz < 0)
        snprintf(buf, n, "%s not set", what);
    else if (mhz == 0)
        snprintf(buf, n, "%s no cap", what);
    else
        snprintf(buf, n, "%s at most %.0f MHz", what, mhz);
    return buf;
}

static void print_power(const power_info *p)
{
    char cpu[48], gpu[48], emc[48];
    int i;
    if (p->count <= 0) {
        printf("power modes: none (no /etc/nvpmodel.conf: not a Jetson)\n");
        return;
    }
    if (p->now.mode_id >= 0)
        printf("power mode:  %s (id %d, from %s)\n", p->now.mode_name[0] ? p->now.mode_name : "?",
               p->now.mode_id, p->now.source);
    else
        printf("power mode:  unknown (nvpmodel -q not permitted, no /var/lib/nvpmodel/status)\n");
    for (i = 0; i < p->count; i++) {
        const jf_power_mode_def *m = &p->modes[i];
        printf("%s %2d %-12s %d of %d CPUs, %s, %s, %s%s%s\n", i ? "            " : "power modes:",
               m->id, m->name, m->cores_online, m->cores, limit_text(cpu, sizeof cpu, "CPU", m->cpu_max_mhz),
               limit_text(gpu, sizeof gpu, "GPU", m->gpu_max_mhz),
               limit_text(emc, sizeof emc, "EMC", m->emc_max_mhz),
               m->id == p->default_id ? " (default)" : "", m->id == p->now.mode_id ? " (current)" : "");
    }
}

static void json_mhz(json_buf *j, const char *key, double mhz)
{
    if (mhz < 0)
        json_str(j, key, NULL);
    else
        json_num(j, key, mhz);
}

static void json_power(json_buf *j, const power_info *p)
{
    int i;
    json_open(j, "power_modes", '[');
    for (i = 0; i < p->count; i++) {
        const jf_power_mode_def *m = &p->modes[i];
        json_open(j, NULL, '{');
        json_int(j, "id", m->id);
        json_str(j, "name", m->name);
        json_int(j, "cores", m->cores);
        json_int(j, "cores_online", m->cores_online);
        json_mhz(j, "cpu_max_mhz", m->cpu_max_mhz);
        json_mhz(j, "gpu_min_mhz", m->gpu_min_mhz);
        json_mhz(j, "gpu_max_mhz", m->gpu_max_mhz);
        json_mhz(j, "emc_max_mhz", m->emc_max_mhz);
        json_bool(j, "default", m->id == p->default_id);
        json_close(j, '}');
    }
    json_close(j, ']');
    if (p->now.mode_id >= 0) {
        json_open(j, "power_mode", '{');
        json_int(j, "id", p->now.mode_id);
        json_str(j, "name", p->now.mode_name);
        json_str(j, "source", p->now.source);
        json_close(j, '}');
    } else {
        json_str(j, "power_mode", NULL);
    }
}

static int info_json(const job_settings *s, int n, const char *why)
{
    json_buf j = {0};
    char jpeg[512];
    int i, ok, gpu_jpeg;
    json_report_open(&j, "info");
    json_str(&j, "version", jf_version());
    json_int(&j, "cpu_threads", jf_cpu_count());
    json_bool(&j, "cuda_built", jf_built_with_cuda());
    json_open(&j, "devices", '[');
    for (i = 0; i < n; i++) {
        jf_device_info d;
        if (jf_device_query(i, &d) != JF_OK)
            continue;
        override_peak(s, &d);
        json_device(&j, &d);
    }
    json_close(&j, ']');
    if (!n)
        json_str(&j, "cuda_note", why);
    gpu_jpeg = describe_jpeg_decoder(n, jpeg, sizeof jpeg);
    json_bool(&j, "nvjpeg", gpu_jpeg);
    json_str(&j, "jpeg_decoder", jpeg);
    json_open(&j, "formats", '[');
    for (i = JF_FORMAT_UNKNOWN + 1; i < JF_FORMAT_COUNT; i++)
        if (jf_format_supported((jf_format)i))
            json_str(&j, NULL, jf_format_name((jf_format)i));
    json_close(&j, ']');
    json_open(&j, "operations", '[');
    for (i = 0; i < jf_op_total; i++)
        json_str(&j, NULL, jf_ops[i].name);
    json_close(&j, ']');
    {
        power_info p;
        read_power(&p);
        json_power(&j, &p);
    }
    json_close(&j, '}');
    json_raw(&j, "\n");
    ok = !j.fail && job_json_write(s->json, j.data, j.len);
    free(j.data);
    return ok ? JF_EXIT_OK : JF_EXIT_FAILED;
}

static void print_device(const job_settings *s, int i)
{
    char profile[1024];
    jf_device_info d;
    if (jf_device_query(i, &d) != JF_OK) {
        printf("device %d:    %s\n", i, jf_last_error());
        return;
    }
    override_peak(s, &d);
    printf("device %d:    %s, compute capability %d.%d, %d SMs, %.1f GiB, %s\n", d.index, d.name,
           d.cc_major, d.cc_minor, d.multiprocessors,
           (double)d.total_memory / (1024.0 * 1024.0 * 1024.0),
           d.integrated ? "integrated (memory shared with the CPU)" : "discrete");
    printf("             theoretical bandwidth %.1f GB/s (%s)\n", d.theoretical_gbps,
           d.theoretical_source);
    printf("             per block: %d KiB shared memory (%d KiB opt-in), %d registers%s\n",
           d.shared_per_block / 1024, d.shared_per_block_optin / 1024, d.registers_per_block,
           d.limited ? "  [limited to a Jetson Nano's by JETFILTER_DEVICE_LIMITS]" : "");
    printf("             CUDA runtime %d.%d, driver %d.%d%s%s\n", d.runtime_version / 1000,
           d.runtime_version % 1000 / 10, d.driver_version / 1000, d.driver_version % 1000 / 10,
           d.pci_bus_id[0] ? ", PCI " : "", d.pci_bus_id);
    printf("             auto profile: %s\n", cli_profile_status(i, profile, sizeof profile));
}

int cli_info(job_settings *s)
{
    int n = jf_device_count(), i;
    char why[512], names[256], jpeg[512];
    snprintf(why, sizeof why, "%s", n ? "" : jf_last_error());
    if (s->json) {
        job_outputs o = {"info", NULL, 0, {{"--json", s->json, JOB_OUT_REPORT}}, 1, s->force};
        if (job_outputs_check(&o) != 0)
            return JF_EXIT_USAGE;
        return info_json(s, n, why);
    }
    printf("jetfilter %s\n", jf_version());
    printf("backends:    cpu (%d threads)%s\n", jf_cpu_count(), jf_built_with_cuda() ? ", cuda" : "");
    if (!n)
        printf("cuda:        %s\n", why);
    for (i = 0; i < n; i++)
        print_device(s, i);
    describe_jpeg_decoder(n, jpeg, sizeof jpeg);
    printf("jpeg decode: %s\n", jpeg);
    printf("formats:    ");
    for (i = JF_FORMAT_UNKNOWN + 1; i < JF_FORMAT_COUNT; i++)
        printf(" %s%s", jf_format_name((jf_format)i), jf_format_supported((jf_format)i) ? "" : " (not built)");
    printf("\n");
    printf("filters:     %s\n", jf_op_names(JF_OP_FILTER, names, sizeof names));
    printf("metrics:     %s\n", jf_op_names(JF_OP_METRIC, names, sizeof names));
    printf("noise:       %s\n", jf_op_names(JF_OP_NOISE, names, sizeof names));
    {
        power_info p;
        read_power(&p);
        print_power(&p);
    }
    return JF_EXIT_OK;
}
