/* One command line as `jetfilter ARGS...` runs it: the command's row of
 * commands.c, its options parsed, the process-wide settings (limits, sync,
 * the GPU JPEG check) set from them, then the command.  main() runs it
 * once; `jetfilter serve` once a request (cli/serve.c), in the same process. */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "io/io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_argc;
char **cli_argv;

static void usage(FILE *out)
{
    int i;
    fprintf(out, "usage: jetfilter COMMAND [options]   (jetfilter COMMAND --help for details)\n\n"
                 "commands:\n");
    for (i = 0; i < cli_command_count; i++)
        fprintf(out, "  %-9s %s\n", cli_commands[i].name, cli_commands[i].summary);
    fprintf(out, "\n  -V, --version  print the version\n"
                 "\nOne file:  jetfilter denoise in.jpg -o out.png     (- for standard input or output)\n"
                 "A folder:  jetfilter denoise photos/ -o clean/     (the tree is mirrored)\n");
}

/* What a command printed to standard output reached it, else the command
 * failed: a full disk or a closed pipe is an error, never a silent exit 0. */
static int stdout_flushed(const char *cmd, int rc)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    job_error("jetfilter %s: could not write to standard output: %s", cmd,
            errno ? strerror(errno) : "write error");
    clearerr(stdout);
    return rc == JF_EXIT_OK ? JF_EXIT_FAILED : rc;
}

int cli_dispatch(int argc, char **argv)
{
    job_settings s;
    int i, rc;

    cli_argc = argc;
    cli_argv = argv;
    cli_use_terminal();
    if (argc < 2) {
        usage(stderr);
        return JF_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0 ||
        strcmp(argv[1], "version") == 0) {
        printf("jetfilter %s (%s)\n", jf_version(), jf_built_with_cuda() ? "CPU and CUDA" : "CPU only");
        return stdout_flushed(argv[1], JF_EXIT_OK);
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        if (argc > 2)
            for (i = 0; i < cli_command_count; i++)
                if (strcmp(argv[2], cli_commands[i].name) == 0) {
                    cli_help(stdout, cli_commands[i].bit, cli_commands[i].name);
                    return JF_EXIT_OK;
                }
        usage(stdout);
        return JF_EXIT_OK;
    }
    for (i = 0; i < cli_command_count; i++)
        if (strcmp(argv[1], cli_commands[i].name) == 0)
            break;
    if (i == cli_command_count) {
        job_error("jetfilter: unknown command '%s'", argv[1]);
        usage(stderr);
        return JF_EXIT_USAGE;
    }
    rc = cli_parse(cli_commands[i].bit, cli_commands[i].name, argc - 2, argv + 2, &s);
    if (rc != 0) {
        free(s.inputs);
        return rc;
    }
    if (s.help) {
        cli_help(stdout, cli_commands[i].bit, cli_commands[i].name);
        free(s.inputs);
        return JF_EXIT_OK;
    }
    job_quiet = s.quiet;
    if (!(cli_commands[i].bit & (CMD_REPORT | CMD_CALIBRATE | CMD_SERVE)) &&
        (rc = job_apply_limits(&s, argv[1])) != 0) {
        free(s.inputs);
        return rc;
    }

    if (cli_commands[i].bit & (CMD_DENOISE | CMD_METRICS | CMD_INFO | CMD_BENCH | CMD_STREAM))
        job_use_profiles(); /* commands with CUDA contexts: `auto` follows a calibrated profile */
    rc = cli_commands[i].run(&s);
    free(s.inputs);
    return stdout_flushed(argv[1], rc);
}
