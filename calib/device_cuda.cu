/* Device facts read from the CUDA runtime.
 *
 * Theoretical bandwidth = memory clock x bus width x 2 (DDR) / 8.  CUDA 13
 * dropped cudaDeviceProp::memoryClockRate and memoryBusWidth, so the values
 * come from cudaDeviceGetAttribute.  Tegra parts (the Jetson Nano reports a
 * memory clock of about 13 MHz) come from a table instead. */
#include <cuda_runtime.h>

#include <stdio.h>
#include <string.h>

#include "pipeline/errors.h"

extern "C" int jf_built_with_cuda(void) { return 1; }

extern "C" int jf_device_count(void)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        jf_fail(JF_ERR_NO_DEVICE, "no usable CUDA device (cudaGetDeviceCount: %s)",
                cudaGetErrorString(err));
        cudaGetLastError(); /* clear the sticky-free error so later calls start clean */
        return 0;
    }
    if (n == 0)
        jf_fail(JF_ERR_NO_DEVICE, "no CUDA device found");
    return n;
}

/* Known integrated parts whose attributes do not give the DRAM bandwidth. */
static int tegra_table(const char *name, int major, int minor, double *gbps)
{
    (void)name;
    if (major == 5 && minor == 3) { *gbps = 25.6; return 1; }   /* Nano: LPDDR4 1600 MHz x 64 bit x 2 */
    if (major == 6 && minor == 2) { *gbps = 59.7; return 1; }   /* TX2: LPDDR4 1866 MHz x 128 bit x 2 */
    if (major == 7 && minor == 2) { *gbps = 136.5; return 1; }  /* Xavier: LPDDR4x 2133 MHz x 256 bit x 2 */
    return 0;
}

extern "C" jf_status jf_device_query(int index, jf_device_info *info)
{
    cudaDeviceProp prop;
    int clock_khz = 0, bus_bits = 0;
    cudaError_t err;

    if (!info)
        return jf_fail(JF_ERR_ARG, "jf_device_query: info is NULL");
    memset(info, 0, sizeof *info);
    if ((err = cudaGetDeviceProperties(&prop, index)) != cudaSuccess)
        return jf_fail(JF_ERR_CUDA, "cudaGetDeviceProperties(%d): %s", index,
                       cudaGetErrorString(err));
    info->index = index;
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->multiprocessors = prop.multiProcessorCount;
    info->total_memory = prop.totalGlobalMem;
    info->integrated = prop.integrated;
    cudaRuntimeGetVersion(&info->runtime_version);
    cudaDriverGetVersion(&info->driver_version);
    info->l2_bytes = (uint64_t)prop.l2CacheSize;

    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, index);
    info->memory_clock_mhz = clock_khz / 1000;
    if (prop.integrated && tegra_table(prop.name, prop.major, prop.minor,
                                       &info->theoretical_gbps)) {
        snprintf(info->theoretical_source, sizeof info->theoretical_source, "Tegra table");
        return JF_OK;
    }
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, index);
    info->theoretical_gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    snprintf(info->theoretical_source, sizeof info->theoretical_source,
             "device attributes (%d MHz x %d bit x 2)", clock_khz / 1000, bus_bits);
    return JF_OK;
}
