/* Internal to the jetfilter command-line tool: the command table, argv,
 * help, the man page and completions, the commands that are not batches. */
#ifndef JF_CLI_CLI_H
#define JF_CLI_CLI_H

#include "jetfilter.h"
#include "jobs/jobs.h"

#include <stdio.h>

/* The commands (commands.c): one row each, for main, --help, the man page
 * and the completions. */
typedef struct cli_command {
    const char *name;
    int bit;
    int (*run)(struct job_settings *s);
    const char *summary;     /* one line, for the list of commands */
    const char *usage;       /* after "jetfilter NAME " */
    const char *details;     /* more lines of --help (NULL: none) */
    const char *exit_status; /* what the exit codes mean (NULL: the usual 0, 1, 2) */
} cli_command;
extern const cli_command cli_commands[];
extern const int cli_command_count;
const cli_command *cli_command_of(int bit);

/* The man page and the bash and zsh completions, from the tables (doc.c). */
void cli_doc_man(FILE *out);
void cli_doc_bash(FILE *out);
void cli_doc_zsh(FILE *out);

/* Parse argv (after the subcommand) into s.  Returns 0, or prints one line
 * naming the problem and returns JF_EXIT_USAGE. */
int cli_parse(int command, const char *command_name, int argc, char **argv, job_settings *s);

/* Print the help of one subcommand, generated from the option table and
 * the operation table. */
void cli_help(FILE *out, int command, const char *command_name);

/* Subcommands (one file each) */
int cli_metrics(job_settings *s);
int cli_info(job_settings *s);
int cli_bench(job_settings *s);
int cli_stream(job_settings *s);
int cli_calibrate(job_settings *s);
int cli_serve(job_settings *s);

/* One command line as `jetfilter ARGS...` runs it (argv[0] the program),
 * its exit status returned: main() calls it once, serve once a request. */
int cli_dispatch(int argc, char **argv);
const char *cli_profile_status(int device, char *out, size_t n);

/* Messages to standard error, the progress line on a terminal (terminal.c):
 * the sink of every command run from the command line. */
void cli_use_terminal(void);

/* How far a batch is, for what an interrupt (Ctrl-C) says before the
 * process ends (cli/main.c). */
void cli_interrupt_progress(int done, int total);
/* That line, made without stdio (a signal handler calls it); 0 when no
 * batch runs or --quiet.  From the call on, job_error and job_log print
 * nothing (the process is ending). */
size_t cli_interrupt_line(char line[256]);
extern int cli_argc;     /* the command line, for the bench's metadata */
extern char **cli_argv;

#endif
