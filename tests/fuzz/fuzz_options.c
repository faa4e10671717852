/* libFuzzer harness: any command line through the option parser of every
 * command (jobs/options.c, through cli/help.c), then what a command does first with it: the
 * operation's arguments from the table and the files it reads.  Nothing
 * runs; a refusal must print a reason. */
#include "cli/cli.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy, *argv[64];
    const char *inputs[JOB_MAX_INPUTS_LISTED];
    const cli_command *c;
    job_settings s;
    size_t i;
    int argc = 0, rc;
    if (size < 1 || cli_command_count < 1)
        return 0;
    c = &cli_commands[data[0] % cli_command_count];
    if (!(copy = (char *)malloc(size)))
        return 0;
    memcpy(copy, data + 1, size - 1);
    copy[size - 1] = '\0';
    /* arguments separated by NUL bytes */
    for (i = 0; i < size - 1 && argc < 63; i++)
        if (i == 0 || copy[i - 1] == '\0')
            argv[argc++] = copy + i;
    argv[argc] = NULL;
    job_error_reset();
    rc = cli_parse(c->bit, c->name, argc, argv, &s);
    if (rc != 0 && !job_error_first()[0])
        abort(); /* refused without a reason */
    if (rc == 0) {
        const jf_op *op = jf_op_find(s.filter ? s.filter : "median");
        jf_op_args args;
        if (op && !strchr(s.filter ? s.filter : "", ','))
            (void)job_op_args(c->name, &s, op, &args);
        (void)job_inputs_of(&s, inputs, JOB_MAX_INPUTS_LISTED);
    }
    free(s.inputs);
    free(copy);
    return 0;
}
