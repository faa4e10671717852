/* libFuzzer harness: any text through the kernel-file parser, and a parsed
 * kernel through a convolution of a small image. */
#include <jetfilter.h>

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    jf_kernel k = {0, NULL};
    if (jf_kernel_parse((const char *)data, size, "fuzz", &k) == JF_OK) {
        unsigned char px[13 * 9 * 3];
        jf_image src = jf_image_wrap(px, 13, 9, 3, 0), dst = {0};
        jf_conv_options o = jf_conv_defaults();
        size_t i;
        for (i = 0; i < sizeof px; i++)
            px[i] = (unsigned char)(i * 37);
        o.ksize = k.ksize;
        o.weights = k.weights;
        jf_convolve(NULL, &src, &dst, &o);
        jf_image_free(&dst);
    }
    jf_kernel_free(&k);
    return 0;
}
