/* libFuzzer harness: any parameter name and text through the plan API
 * (what Python, GStreamer and the command line set parameters with), the
 * plan prepared and, when it is, run on a small image. */
#include <jetfilter.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[512];
    const jf_op_info *info;
    jf_plan *plan = NULL;
    size_t n = size < sizeof text - 1 ? size : sizeof text - 1;
    char *p, *name, *value;
    int count = jf_op_count();
    if (size < 1 || count < 1)
        return 0;
    info = jf_op_get(data[0] % count);
    memcpy(text, data + 1, n ? n - 1 : 0);
    text[n ? n - 1 : 0] = '\0';
    if (jf_plan_create(info->name, &plan) != JF_OK)
        abort();
    /* "name=value;name=value..." */
    for (p = text; p && *p;) {
        char *next = strchr(p, ';');
        if (next)
            *next++ = '\0';
        name = p;
        value = strchr(p, '=');
        if (value)
            *value++ = '\0';
        if (strcmp(name, "kernel") == 0) { /* files are fuzz_kernel's (and /dev/stdin would wait) */
            p = next;
            continue;
        }
        if (jf_plan_set(plan, name, value ? value : "") != JF_OK && !jf_last_error()[0])
            abort(); /* refused without a reason */
        p = next;
    }
    if (jf_plan_prepare(plan) == JF_OK && info->kind != JF_OP_METRIC) {
        unsigned char px[11 * 7 * 3], noisy[sizeof px];
        jf_image src, dst = {0};
        size_t i;
        for (i = 0; i < sizeof px; i++)
            px[i] = noisy[i] = (unsigned char)(i * 37 + (i >> 3));
        src = jf_image_wrap(info->kind == JF_OP_NOISE ? noisy : px, 11, 7, 3, 0);
        jf_plan_run(NULL, plan, &src, info->kind == JF_OP_NOISE ? NULL : &dst, NULL);
        jf_image_free(&dst);
    }
    jf_plan_free(plan);
    return 0;
}
