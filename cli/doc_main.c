/* jetfilter-docs: writes the man page or a shell's completions from the
 * tool's own tables, at build time (cli/doc.c).
 *   jetfilter-docs man|bash|zsh > FILE */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "man") == 0)
        cli_doc_man(stdout);
    else if (argc == 2 && strcmp(argv[1], "bash") == 0)
        cli_doc_bash(stdout);
    else if (argc == 2 && strcmp(argv[1], "zsh") == 0)
        cli_doc_zsh(stdout);
    else {
        fprintf(stderr, "usage: jetfilter-docs man|bash|zsh > FILE\n");
        return 2;
    }
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
