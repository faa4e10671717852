/* Versioned options structs: fields are only ever appended, after the last
 * byte of the previous version (explicit padding first), so a caller built
 * against an older header passes a shorter struct and gets defaults for the
 * rest, and a newer caller's extra fields are refused unless they are zero. */
#include "core/options.h"
#include "core/errors.h"

#include <string.h>

jf_status jf_options_read(const char *fn, const char *defaults_fn, void *out, size_t out_size,
                          const void *user)
{
    size_t size, i;
    if (!user)
        return JF_OK; /* NULL: the defaults already in `out` */
    memcpy(&size, user, sizeof size);
    if (size < sizeof(size_t) + sizeof(int) || size > ((size_t)1 << 16)) /* never set, or garbage */
        return jf_fail(JF_ERR_ARG, "%s: options have size %zu; initialise them with %s()", fn,
                       size, defaults_fn);
    if (size > out_size) {
        const unsigned char *tail = (const unsigned char *)user;
        for (i = out_size; i < size; i++)
            if (tail[i] != 0)
                return jf_fail(JF_ERR_UNSUPPORTED, "%s: options from a newer jetfilter set "
                               "fields this library (%s) does not know", fn, JF_VERSION_STRING);
        size = out_size;
    }
    memcpy((unsigned char *)out + sizeof(size_t), (const unsigned char *)user + sizeof(size_t),
           size - sizeof(size_t));
    return JF_OK;
}
