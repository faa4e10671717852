/* Device facts read from the CUDA runtime.
 *
 * Theoretical bandwidth = memory clock x bus width x 2 (DDR) / 8.  CUDA 13
 * dropped cudaDeviceProp::memoryClockRate and memoryBusWidth, so the values
 * come from cudaDeviceGetAttribute.  Tegra parts (the Jetson Nano reports a
 * memory clock of about 13 MHz) come from a table instead.
 *
 * JETFILTER_DEVICE_LIMITS=nano reports the Jetson Nano's limits on any
 * device, so that every choice the kernels make (variant, block, strip,
 * shared memory) is the one the Nano would get; tests run that way on a
 * large GPU. */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/util.h"

extern "C" int jf_built_with_cuda(void) { return 1; }

extern "C" jf_status jf_memory_locate(const void *ptr, jf_location *location, int *device)
{
    cudaPointerAttributes a;
    if (!location)
        return jf_fail(JF_ERR_ARG, "jf_memory_locate: location is NULL");
    *location = JF_LOC_HOST;
    if (device)
        *device = -1;
    if (!ptr)
        return jf_fail(JF_ERR_ARG, "jf_memory_locate: ptr is NULL");
    memset(&a, 0, sizeof a);
    if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
        cudaGetLastError(); /* no driver, or memory CUDA never saw: ordinary host memory */
        return JF_OK;
    }
    switch (a.type) {
    case cudaMemoryTypeDevice: *location = JF_LOC_DEVICE; break;
    case cudaMemoryTypeManaged: *location = JF_LOC_MANAGED; break;
    case cudaMemoryTypeHost: *location = a.devicePointer ? JF_LOC_MAPPED : JF_LOC_HOST; break;
    default: return JF_OK;
    }
    if (device)
        *device = a.device;
    return JF_OK;
}

extern "C" int jf_device_count(void)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        if (err == cudaErrorNoDevice)
            jf_fail(JF_ERR_NO_DEVICE, "no CUDA device found");
        else if (err == cudaErrorInsufficientDriver)
            jf_fail(JF_ERR_NO_DEVICE, "no usable GPU: the NVIDIA driver is missing or older than "
                    "this build's CUDA %d.%d", CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
        else
            jf_fail(JF_ERR_NO_DEVICE, "no usable GPU (cudaGetDeviceCount: %s)",
                    cudaGetErrorString(err));
        cudaGetLastError(); /* clear the sticky-free error so later calls start clean */
        return 0;
    }
    if (n == 0)
        jf_fail(JF_ERR_NO_DEVICE, "no CUDA device found");
    return n;
}

static int attr(cudaDeviceAttr a, int index, int fallback)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, a, index) != cudaSuccess) {
        cudaGetLastError();
        return fallback;
    }
    return v;
}

/* The Nano (Maxwell GM20B): 1 SM, 48 KiB shared per block, 64 KiB per SM,
 * 32K registers per block, 64K per SM. */
static void apply_limits(jf_device_info *info)
{
    const char *want = getenv("JETFILTER_DEVICE_LIMITS");
    if (!want || strcmp(want, "nano") != 0)
        return;
    info->multiprocessors = 1;
    info->shared_per_block = 48 * 1024;
    info->shared_per_block_optin = 48 * 1024;
    info->shared_per_sm = 64 * 1024;
    info->registers_per_block = 32 * 1024;
    info->registers_per_sm = 64 * 1024;
    info->max_threads_per_block = 1024;
    info->limited = 1;
}

/* Empty: its attributes say what the library's kernels were compiled for
 * (they are all built for the same architectures). */
__global__ void jf_code_probe_kernel() {}

/* The PTX version of the code that runs on the current device (90 for
 * sm_90 machine code; 53 where the driver compiles compute_53 PTX at load),
 * or 0 when it cannot be asked.  Asked when a context is made, with its
 * device current: asking another device would start a CUDA context there. */
int jf_device_code_cc(void)
{
    cudaFuncAttributes a;
    if (cudaFuncGetAttributes(&a, jf_code_probe_kernel) == cudaSuccess)
        return a.ptxVersion;
    cudaGetLastError();
    return 0;
}

extern "C" jf_status jf_device_query(int index, jf_device_info *info)
{
    cudaDeviceProp prop;
    int clock_khz, bus_bits;
    cudaError_t err;

    if (!info)
        return jf_fail(JF_ERR_ARG, "jf_device_query: info is NULL");
    memset(info, 0, sizeof *info);
    if ((err = cudaGetDeviceProperties(&prop, index)) != cudaSuccess) {
        cudaGetLastError();
        return jf_fail(index < 0 ? JF_ERR_ARG : JF_ERR_CUDA, "cudaGetDeviceProperties(%d): %s",
                       index, cudaGetErrorString(err));
    }
    info->index = index;
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->multiprocessors = prop.multiProcessorCount;
    info->total_memory = prop.totalGlobalMem;
    info->integrated = prop.integrated;
    if (cudaRuntimeGetVersion(&info->runtime_version) != cudaSuccess ||
        cudaDriverGetVersion(&info->driver_version) != cudaSuccess)
        cudaGetLastError(); /* versions stay 0: unknown */
    info->l2_bytes = (uint64_t)prop.l2CacheSize;
    info->shared_per_block = (int)prop.sharedMemPerBlock;
    info->shared_per_block_optin = attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, index, 0);
    if (info->shared_per_block_optin < info->shared_per_block)
        info->shared_per_block_optin = info->shared_per_block;
    info->shared_per_sm = (int)prop.sharedMemPerMultiprocessor;
    info->registers_per_block = prop.regsPerBlock;
    info->registers_per_sm = prop.regsPerMultiprocessor;
    info->max_threads_per_block = prop.maxThreadsPerBlock;
    snprintf(info->pci_bus_id, sizeof info->pci_bus_id, "%04x:%02x:%02x.0",
             (unsigned)prop.pciDomainID & 0xffffu, (unsigned)prop.pciBusID & 0xffu,
             (unsigned)prop.pciDeviceID & 0xffu);
    apply_limits(info);

    clock_khz = attr(cudaDevAttrMemoryClockRate, index, 0);
    info->memory_clock_mhz = clock_khz / 1000;
    if (prop.integrated &&
        (info->theoretical_gbps = jf_tegra_gbps(prop.major, prop.minor, prop.multiProcessorCount)) > 0) {
        snprintf(info->theoretical_source, sizeof info->theoretical_source, "Tegra table");
        return JF_OK;
    }
    bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth, index, 0);
    info->theoretical_gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    if (clock_khz > 0 && bus_bits > 0)
        snprintf(info->theoretical_source, sizeof info->theoretical_source,
                 "device attributes (%d MHz x %d bit x 2)", clock_khz / 1000, bus_bits);
    else
        snprintf(info->theoretical_source, sizeof info->theoretical_source, "unknown");
    return JF_OK;
}
