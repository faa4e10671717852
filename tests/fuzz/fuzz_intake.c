/* libFuzzer harness: any array description through the Python extension's
 * intake (python/src/intake.c), as a hostile producer could hand it in.
 * The description points into a buffer of the size its own shape and
 * strides imply when that is small; whatever the intake accepts is then
 * filtered on the CPU, so an accepted lie reads out of bounds (ASan). */
#include "../../python/src/intake.h"

#include <jetfilter.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the next n bytes of the input as a signed number (0 past the end) */
static int64_t take(const uint8_t **p, const uint8_t *end, int n)
{
    int64_t v = 0;
    int i;
    for (i = 0; i < n; i++)
        v = (int64_t)((uint64_t)v << 8 | (*p < end ? *(*p)++ : 0));
    return n < 8 && (v >> (8 * n - 1) & 1) ? v - ((int64_t)1 << (8 * n)) : v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const dtypes[] = {"|u1", "<u2", ">u2", "=u2", "|u2", "<f4", "|b1",
                                         "<u8", "|i1", "u1", "<u", "|u01", "x", "<u99999999999"};
    const uint8_t *p = data, *end = data + size;
    int64_t shape[8], strides[8];
    jfpy_array a;
    jf_image img;
    char why[512];
    unsigned char *buf = NULL;
    uint64_t extent = 0, steps = 0, elements = 0;
    int i, flags, small = 1;
    memset(&a, 0, sizeof a);
    flags = (int)take(&p, end, 1);
    a.ndim = take(&p, end, 1) % 5;
    for (i = 0; i < 8; i++) {
        /* mostly small sizes and strides, sometimes anything */
        shape[i] = flags & 0x10 ? take(&p, end, 8) : take(&p, end, 1) & 15;
        strides[i] = flags & 0x20 ? take(&p, end, 8) : take(&p, end, 1) % 64;
    }
    a.shape = flags & 1 ? NULL : shape;
    a.strides = flags & 2 ? strides : NULL;
    a.dtype = flags & 4 ? NULL : dtypes[(size_t)take(&p, end, 1) % (sizeof dtypes / sizeof dtypes[0])];
    a.lanes = flags & 8 ? take(&p, end, 2) : 1;
    a.readonly = (flags >> 6) & 1;
    a.location = (int)(take(&p, end, 1) % 6) - 1;
    a.device = (int)take(&p, end, 1);
    /* the bytes the producer's own description spans (an element is at most
     * 4 bytes when the intake takes it: float32), when few: C order without
     * strides */
    if (a.shape && a.ndim >= 1 && a.ndim <= 4) {
        uint64_t count = 1;
        for (i = 0; i < a.ndim; i++) {
            const int64_t step = a.strides ? strides[i] : 0;
            if (shape[i] < 1 || shape[i] > 4096 || step > 65536 || (step < 0 && shape[i] > 1))
                small = 0;
            else if (a.strides) /* a size-1 dimension never steps, whatever its stride */
                extent += shape[i] > 1 ? (uint64_t)(shape[i] - 1) * (uint64_t)step : 0;
            else
                count *= (uint64_t)shape[i];
        }
        steps = extent;
        elements = count;
        extent = a.strides ? extent + 4 : count * 4;
    } else {
        small = 0;
    }
    if (small && extent < (1u << 22)) {
        buf = (unsigned char *)malloc((size_t)extent);
        if (!buf)
            return 0;
        memset(buf, 0x5a, (size_t)extent);
    }
    a.data = flags & 0x80 ? (uint64_t)take(&p, end, 8) : (uint64_t)(uintptr_t)buf;
    if (jfpy_intake(&a, flags & 0x40, "image", &img, why, sizeof why) == 0) {
        jf_image out = {0};
        jf_median_options o = jf_median_defaults();
        if (!img.data || img.width < 1 || img.height < 1 || img.channels < 1 || img.channels > 4 ||
            img.stride < (size_t)img.width * (size_t)img.channels * jf_sample_size(img.sample))
            abort(); /* accepted, but not an image */
        if (buf && (uintptr_t)img.data == (uintptr_t)buf && img.location == JF_LOC_HOST) {
            /* an accepted description must not reach past what the producer said */
            uint64_t last = (uint64_t)(img.height - 1) * img.stride +
                            (uint64_t)img.width * (uint64_t)img.channels * jf_sample_size(img.sample);
            const uint64_t isz = jf_sample_size(img.sample);
            if (last > (a.strides ? steps + isz : elements * isz))
                abort();
            jf_median(NULL, &img, &out, &o); /* reads every byte it was given */
            jf_image_free(&out);
        }
    } else if (!why[0]) {
        abort(); /* refused without a reason */
    }
    free(buf);
    return 0;
}
