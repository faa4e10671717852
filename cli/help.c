/* The command line's side of the options: argv read through the option
 * table (jobs/options.c), and each command's --help made from it and from
 * the operation table. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

/* A bare --json (metrics, info: standard output) keeps its old meaning for
 * one release: the next word is taken as the file only when it is "-" or
 * ends in .json, so an image name after it is never overwritten. */
static int json_takes_next(int command, const char *next)
{
    size_t n;
    if (!(command & (CMD_METRICS | CMD_INFO)))
        return 1;
    if (!next)
        return 0;
    n = strlen(next);
    return strcmp(next, "-") == 0 || (n > 5 && strcmp(next + n - 5, ".json") == 0);
}

int cli_parse(int command, const char *cmd, int argc, char **argv, job_settings *s)
{
    int i, rc, only_positional = 0;
    if ((rc = job_settings_init(command, cmd, s, argc)) != 0)
        return rc;
    for (i = 0; i < argc; i++) {
        const char *a = argv[i], *value = NULL;
        const job_option *o = NULL;
        if (only_positional || a[0] != '-' || a[1] == '\0') {
            s->inputs[s->input_count++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_positional = 1;
            continue;
        }
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            o = job_option_long(command, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
            if (eq)
                value = eq + 1;
        } else if (a[2] == '\0') {
            o = job_option_short(command, a[1]);
        } else {
            o = job_option_short(command, a[1]); /* -k5 */
            if (o && o->type != OPT_FLAG)
                value = a + 2;
            else
                o = NULL;
        }
        if (!o) {
            job_error("jetfilter %s: unknown option '%s' (see jetfilter %s --help)", cmd,
                    a, cmd);
            return JF_EXIT_USAGE;
        }
        if (o->type == OPT_JSON && !value && !json_takes_next(command, i + 1 < argc ? argv[i + 1] : NULL)) {
            value = "-";
        } else if (o->type != OPT_FLAG && !value && i + 1 < argc) {
            value = argv[++i];
        }
        if ((rc = job_option_set(cmd, s, o, value)) != 0)
            return rc;
    }
    return job_settings_finish(command, cmd, s);
}

static void print_option(FILE *out, const job_option *o, int command)
{
    int count;
    const job_option *all = job_options(&count);
    char left[64];
    const char *arg = o->type == OPT_FLAG ? "" : o->arg;
    int i;
    if (o->alias_of)
        return;
    if (o->letter)
        snprintf(left, sizeof left, "-%c, --%s %s", o->letter, o->name, arg);
    else
        snprintf(left, sizeof left, "    --%s %s", o->name, arg);
    fprintf(out, "  %-26s %s", left, o->help);
    if (o->type == OPT_CHOICE || (o->type == OPT_PARAM && o->choices) ||
        (o->type == OPT_NAMES && o->choices)) {
        fprintf(out, " [");
        for (i = 0; o->choices[i]; i++)
            fprintf(out, "%s%s", i ? "|" : "", o->choices[i]);
        fprintf(out, "]");
    }
    if (o->def && strcmp(o->def, "0") != 0 && o->type != OPT_INT64)
        fprintf(out, " (default %s)", o->def);
    if (o->env)
        fprintf(out, " (environment: %s)", o->env);
    for (i = 0; i < count; i++)
        if (all[i].alias_of && strcmp(all[i].alias_of, o->name) == 0 &&
            (all[i].commands & command))
            fprintf(out, " (old spelling --%s)", all[i].name);
    fputc('\n', out);
}

static void print_ops(FILE *out, jf_op_kind kind, const char *title)
{
    int i, width = 0;
    fprintf(out, "\n%s\n", title);
    for (i = 0; i < jf_op_total; i++)
        if (jf_ops[i].kind == kind && (int)strlen(jf_ops[i].name) > width)
            width = (int)strlen(jf_ops[i].name);
    for (i = 0; i < jf_op_total; i++) {
        const jf_op *op = &jf_ops[i];
        if (op->kind != kind)
            continue;
        const jf_op_info *info = jf_op_info_of(op);
        const jf_param_info *k = jf_op_param(info, "ksize"), *mk = jf_op_param(info, "max-ksize");
        fprintf(out, "  %-*s %s", width, op->name, op->summary);
        if (k)
            fprintf(out, "; k %g..%g%s%s", k->min, k->max, k->default_text ? ", default " : "",
                    k->default_text ? k->default_text : "");
        if (mk)
            fprintf(out, "; window 3..%g%s%s", mk->max, mk->default_text ? ", default " : "",
                    mk->default_text ? mk->default_text : "");
        fputc('\n', out);
        if (op->kind == JF_OP_FILTER)
            fprintf(out, "  %-*s   GPU variants: auto = %s\n", width, "", info->auto_rule);
        if (op->kind == JF_OP_FILTER)
            fprintf(out, "  %-*s   samples: %s\n", width, "", info->samples_rule);
    }
}

void cli_help(FILE *out, int command, const char *cmd)
{
    const cli_command *c = cli_command_of(command);
    int i, count;
    const job_option *all = job_options(&count);
    if (c)
        fprintf(out, "usage: jetfilter %s %s\n%s%s\noptions:\n", cmd, c->usage,
                c->details ? c->details : "", c->details ? "\n" : "");
    for (i = 0; i < count; i++)
        if (all[i].commands & command)
            print_option(out, &all[i], command);
    if (command & (CMD_DENOISE | CMD_STREAM | CMD_BENCH))
        print_ops(out, JF_OP_FILTER, "filters (--filter NAME):");
    if (command & CMD_BENCH) {
        print_ops(out, JF_OP_PAD, "also measured by the bench (--filter NAME):");
        print_ops(out, JF_OP_METRIC, "metrics the bench can time (--filter NAME):");
    }
    if (c && c->exit_status)
        fprintf(out, "\nexit status: %s\n", c->exit_status);
}

