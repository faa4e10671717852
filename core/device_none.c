/* The CUDA side of the runtime in a build without CUDA: there are no devices
 * to report, and no CUDA context can be made. */
#include "core/errors.h"
#include "core/gpu.h"

#include <string.h>

int jf_built_with_cuda(void) { return 0; }

jf_status jf_memory_locate(const void *ptr, jf_location *location, int *device)
{
    if (!location)
        return jf_fail(JF_ERR_ARG, "jf_memory_locate: location is NULL");
    *location = JF_LOC_HOST;
    if (device)
        *device = -1;
    return ptr ? JF_OK : jf_fail(JF_ERR_ARG, "jf_memory_locate: ptr is NULL");
}

int jf_device_count(void)
{
    jf_fail(JF_ERR_NO_DEVICE, "jetfilter was built without CUDA");
    return 0;
}

jf_status jf_device_query(int index, jf_device_info *info)
{
    if (info)
        memset(info, 0, sizeof *info);
    return jf_fail(JF_ERR_NO_DEVICE, "device %d: jetfilter was built without CUDA", index);
}

jf_status jf_context_device(const jf_context *ctx, jf_device_info *info)
{
    (void)ctx;
    if (info)
        memset(info, 0, sizeof *info);
    return jf_fail(JF_ERR_NO_DEVICE, "jf_context_device: jetfilter was built without CUDA");
}

void *jf_context_stream(const jf_context *ctx)
{
    (void)ctx;
    return NULL;
}

const jf_device_info *jf_gpu_info(const jf_context *ctx)
{
    (void)ctx;
    return NULL;
}
