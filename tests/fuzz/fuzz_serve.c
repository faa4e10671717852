/* libFuzzer harness: any line through the request parser of `jetfilter
 * serve` (cli/serve.c): a request, or a reason; never a crash, and every
 * argument it hands over a string without NUL. */
#include "cli/serve.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cli_serve_request g_request; /* large: not on the stack */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
    const char *why;
    int i;
    if (!root)
        return 0;
    why = cli_serve_parse(root, &g_request);
    if (!why) {
        if (g_request.argc < 2 || strcmp(g_request.argv[0], "jetfilter") != 0)
            abort();
        for (i = 0; i < g_request.argc; i++)
            if (!g_request.argv[i] || strlen(g_request.argv[i]) > size + 16)
                abort();
        if (g_request.argv[g_request.argc])
            abort();
        cli_serve_request_free(&g_request);
    } else if (!why[0]) {
        abort();
    }
    json_decref(root);
    return 0;
}
