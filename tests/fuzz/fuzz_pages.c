/* libFuzzer harness: any bytes as a TIFF or WebP (the first byte chooses
 * which header goes first, so the mutations reach the directories and
 * chunks), every page decoded, and what decodes encoded again as TIFF and
 * WebP.  Built with -DJETFILTER_FUZZ=ON and clang; scripts/fuzz.sh runs it. */
#include <jetfilter.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const unsigned char tiff_le[4] = {'I', 'I', 42, 0}, tiff_be[4] = {'M', 'M', 0, 42};
    static const unsigned char webp[4] = {'R', 'I', 'F', 'F'};
    jf_limits l = jf_limits_defaults();
    unsigned char *bytes;
    int page, pages = 1;
    if (size < 1)
        return 0;
    /* small enough that the fuzzer's own memory limit is never the one hit */
    l.max_pixels = (uint64_t)1 << 22;
    l.max_metadata_bytes = (uint64_t)4 << 20;
    l.max_chunk_bytes = (uint64_t)2 << 20;
    l.max_pages = 16;
    jf_set_limits(&l);
    /* the first byte says which signature goes first; the rest is the file after it */
    if (!(bytes = (unsigned char *)malloc(size + 3)))
        return 0;
    memcpy(bytes, data[0] & 1 ? webp : data[0] & 2 ? tiff_be : tiff_le, 4);
    memcpy(bytes + 4, data + 1, size - 1);
    for (page = 0; page < pages && page < 4; page++) {
        jf_picture pic = {0};
        if (jf_picture_decode_page(bytes, size + 3, "fuzz", page, &pic) == JF_OK) {
            jf_encode_options e = jf_encode_defaults();
            unsigned char *out = NULL;
            size_t n = 0;
            pages = pic.pages;
            e.format = JF_FORMAT_TIFF;
            if (jf_picture_encode(&pic, &e, &out, &n) == JF_OK)
                free(out);
            e.format = JF_FORMAT_WEBP;
            e.webp_mode = JF_WEBP_LOSSLESS;
            if (pic.color.width * pic.color.height <= 65536 && jf_picture_encode(&pic, &e, &out, &n) == JF_OK)
                free(out);
        }
        jf_picture_free(&pic);
    }
    free(bytes);
    return 0;
}
