/* libFuzzer harness: any text through the tuning-profile parser (a file in
 * the user's cache that anything can write), and what it parses through
 * the resolver on a made-up device: never a crash, never a choice that
 * cannot run. */
#include "core/profile.h"
#include "filters/ops.h"
#include "filters/resolve.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = (char *)malloc(size + 1);
    jf_profile p;
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if (jf_profile_parse(text, "fuzz.profile", &p) == JF_OK) {
        jf_device_info dev;
        int i;
        memset(&dev, 0, sizeof dev);
        dev.cc_major = 9;
        dev.multiprocessors = 132;
        dev.shared_per_block = 49152;
        dev.shared_per_block_optin = 232448;
        dev.max_threads_per_block = 1024;
        for (i = 0; i < p.count && i < 64; i++) {
            const jf_profile_choice *c = &p.choices[i];
            jf_resolve_in in;
            jf_choice out;
            memset(&in, 0, sizeof in);
            in.family = strncmp(c->op, "conv", 4) == 0 ? &jf_conv_family : &jf_median_family;
            in.fn = "fuzz";
            in.dev = &dev;
            in.shape.width = c->width;
            in.shape.height = c->height;
            in.shape.channels = c->channels;
            in.shape.rank1 = strcmp(c->op, "conv-rank1") == 0;
            in.k = c->k <= in.family->rows[0].kmax ? c->k : 3;
            in.profile = &p;
            if (jf_resolve(&in, &out) == JF_OK && out.row &&
                !jf_row_runs(out.row, &dev, &in.shape, in.k, NULL, 0))
                abort(); /* the resolver took a choice that cannot run */
        }
        jf_profile_free(&p);
    }
    free(text);
    return 0;
}
