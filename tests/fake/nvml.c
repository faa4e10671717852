/* A stand-in for NVML (libnvidia-ml.so.1) with the few calls the power
 * meter makes, so its NVML path runs on a machine with no NVIDIA driver.
 * FAKE_NVML lists the calls that fail ("init,energy"); the energy counter
 * goes up 1000 mJ a call, the power is 123456 mW, the clocks 1980 and 3201
 * MHz. */
#include <stdlib.h>
#include <string.h>

static int fails(const char *call)
{
    const char *list = getenv("FAKE_NVML");
    const char *at;
    size_t n = strlen(call);
    for (at = list; at && (at = strstr(at, call)) != NULL; at += n)
        if ((at == list || at[-1] == ',') && (at[n] == '\0' || at[n] == ','))
            return 1;
    return 0;
}

static int g_device;
static unsigned long long g_counter = 5000;

int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device);
int nvmlDeviceGetTotalEnergyConsumption(void *device, unsigned long long *mj);
int nvmlDeviceGetPowerUsage(void *device, unsigned int *mw);
int nvmlDeviceGetClockInfo(void *device, int type, unsigned int *mhz);

int nvmlInit_v2(void) { return fails("init") ? 1 : 0; }
int nvmlShutdown(void) { return 0; }

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device)
{
    if (fails("handle") || index != 0)
        return 2;
    *device = &g_device;
    return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(void *device, unsigned long long *mj)
{
    if (fails("energy") || device != &g_device)
        return 3;
    g_counter += 1000;
    *mj = g_counter;
    return 0;
}

int nvmlDeviceGetPowerUsage(void *device, unsigned int *mw)
{
    if (fails("power") || device != &g_device)
        return 3;
    *mw = 123456;
    return 0;
}

int nvmlDeviceGetClockInfo(void *device, int type, unsigned int *mhz)
{
    if (fails("clock") || device != &g_device)
        return 3;
    *mhz = type == 1 ? 1980 : type == 2 ? 3201 : 0;
    return 0;
}
