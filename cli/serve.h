/* Internal to the command line: the request parser of `jetfilter serve`
 * (serve.c), apart so that a fuzzer can call it. */
#ifndef JF_CLI_SERVE_H
#define JF_CLI_SERVE_H

#include <jansson.h>

#define CLI_SERVE_MAX_ARGS 4096

typedef struct cli_serve_request {
    char *argv[CLI_SERVE_MAX_ARGS + 2]; /* "jetfilter", the command, its arguments */
    int argc;
    const char *out_path, *err_path;   /* NULL: serve's standard error */
    char *owned[CLI_SERVE_MAX_ARGS];   /* arguments decoded from base64 */
    int owned_count;
} cli_serve_request;

/* The request a parsed line holds, or the reason it is not one (a constant
 * string).  Its strings live as long as `root` and the request. */
const char *cli_serve_parse(json_t *root, cli_serve_request *r);
void cli_serve_request_free(cli_serve_request *r);

#endif
