/* jetfilter: the command-line tool.  One file per command (cli/denoise.c,
 * ...); the options in the table of cli/options.c; cli/dispatch.c dispatches. */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "io/io.h"

#include <signal.h>
#include <string.h>

/* Remove half-written outputs, then die of the signal as usual. */
static void on_signal(int sig)
{
    jf_atomic_cleanup();
    signal(sig, SIG_DFL);
    raise(sig);
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN); /* a reader that goes away is a write error, reported */
    return cli_dispatch(argc, argv);
}
