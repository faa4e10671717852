/* libFuzzer harness: any bytes through the decoders (JPEG, PNG, TIFF, WebP,
 * PFM) and, when they decode, the encoders, under the default limits.  Built with
 * -DJETFILTER_FUZZ=ON and clang; scripts/fuzz.sh runs it. */
#include <jetfilter.h>

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    jf_picture pic = {0};
    jf_limits l = jf_limits_defaults();
    /* small enough that the fuzzer's own memory limit is never the one hit */
    l.max_pixels = (uint64_t)1 << 22;
    l.max_metadata_bytes = (uint64_t)4 << 20;
    l.max_chunk_bytes = (uint64_t)2 << 20;
    jf_set_limits(&l);
    if (jf_picture_decode(data, size, "fuzz", &pic) == JF_OK) {
        unsigned char *out = NULL;
        size_t n = 0;
        jf_encode_options e = jf_encode_defaults();
        if (jf_picture_encode(&pic, &e, &out, &n) == JF_OK)
            free(out);
        e.format = JF_FORMAT_JPEG;
        if (jf_picture_encode(&pic, &e, &out, &n) == JF_OK)
            free(out);
    }
    jf_picture_free(&pic);
    return 0;
}
