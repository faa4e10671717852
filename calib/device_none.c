/* Device facts in a build without CUDA: there are no devices to report. */
#include "pipeline/errors.h"

#include <string.h>

int jf_built_with_cuda(void) { return 0; }

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

const char *jf_memory_name(jf_memory m)
{
    static const char *const names[JF_MEMORY_COUNT] = {"auto", "copy", "managed"};
    return (unsigned)m < JF_MEMORY_COUNT ? names[m] : "?";
}

jf_status jf_context_device(const jf_context *ctx, jf_device_info *info)
{
    (void)ctx;
    if (info)
        memset(info, 0, sizeof *info);
    return jf_fail(JF_ERR_NO_DEVICE, "jf_context_device: jetfilter was built without CUDA");
}
