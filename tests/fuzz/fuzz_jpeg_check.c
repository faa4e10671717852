/* libFuzzer harness: the damaged-data check's walk (io/jpeg_scan_check.c)
 * is never looser than libjpeg-turbo.  Any bytes; where the walk calls
 * them a clean JPEG, libjpeg-turbo must read them without damage, or this
 * aborts.  Built with -DJETFILTER_FUZZ=ON and clang; scripts/fuzz.sh runs
 * it from the corpus of small clean JPEGs (every sampling, restarts). */
#include "io/io.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (jf_jpeg_check_entropy_how(data, size, JF_JPEG_CHECK_WALK) == JF_OK &&
        jf_jpeg_check_entropy_how(data, size, JF_JPEG_CHECK_LIBJPEG) != JF_OK) {
        fprintf(stderr, "the walk calls clean what libjpeg-turbo refuses: %s\n", jf_last_error());
        abort();
    }
    return 0;
}
