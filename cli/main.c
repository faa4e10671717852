/* jetfilter: the command-line tool.  One file per command (cli/denoise.c,
 * ...); the options in the table of cli/options.c; cli/dispatch.c dispatches. */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"
#include "io/io.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

/* Remove half-written outputs, say how far a batch got, then die of the
 * signal as usual. */
static void on_signal(int sig)
{
    char line[256];
    const size_t n = cli_interrupt_line(line); /* first: the jobs print nothing more */
    jf_atomic_cleanup();
    if (n > 0 && write(STDERR_FILENO, line, n) < 0) {
        /* nothing left to tell */
    }
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
