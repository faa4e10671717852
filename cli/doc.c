/*
 * The man page (roff) and the bash and zsh completions, written from the
 * same tables as --help: the commands (commands.c), the options
 * (options.c) and the operations (filters/ops.c).  They are generated at
 * build time (jetfilter-docs) and installed, so they cannot drift from the
 * tool.
 */
#include "cli/cli.h"
#include "filters/ops.h"

#include <stdio.h>
#include <string.h>

#define MAX_VIEWS 128

/* ---- roff ------------------------------------------------------------------ */

/* Text for roff: backslashes and hyphens escaped, a leading '.' or '\''
 * kept from being read as a request. */
static void roff(FILE *out, const char *text)
{
    const char *p;
    int line_start = 1;
    for (p = text; *p; p++) {
        if (line_start && (*p == '.' || *p == '\''))
            fputs("\\&", out);
        line_start = *p == '\n';
        if (*p == '\\')
            fputs("\\e", out);
        else if (*p == '-')
            fputs("\\-", out);
        else
            fputc(*p, out);
    }
}

/* A --help paragraph (lines indented by two spaces) as one roff paragraph. */
static void roff_paragraph(FILE *out, const char *text)
{
    const char *p = text;
    while (*p) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char line[512];
        while (n && *p == ' ')
            p++, n--;
        snprintf(line, sizeof line, "%.*s", (int)n, p);
        roff(out, line);
        fputc('\n', out);
        p += n + (end ? 1 : 0);
    }
}

static void man_option(FILE *out, const job_option_view *o)
{
    int i;
    fputs(".TP\n", out);
    if (o->letter)
        fprintf(out, "\\fB\\-%c\\fR, ", o->letter);
    fputs("\\fB\\-\\-", out);
    roff(out, o->name);
    fputs("\\fR", out);
    if (o->arg) {
        fputs(" \\fI", out);
        roff(out, o->arg);
        fputs("\\fR", out);
    }
    fputc('\n', out);
    roff(out, o->help);
    if (o->choices) {
        fputs(" [", out);
        for (i = 0; o->choices[i]; i++) {
            if (i)
                fputs(" | ", out); /* spaces: a long list breaks and adjusts */
            roff(out, o->choices[i]);
        }
        fputc(']', out);
    }
    if (o->def) {
        fputs(" (default ", out);
        roff(out, o->def);
        fputc(')', out);
    }
    if (o->env)
        fprintf(out, " (environment: \\fB%s\\fR)", o->env);
    fputc('\n', out);
}

static void man_ops(FILE *out, jf_op_kind kind)
{
    int i;
    for (i = 0; i < jf_op_total; i++) {
        const jf_op *op = &jf_ops[i];
        const jf_op_info *info;
        if (op->kind != kind)
            continue;
        info = jf_op_info_of(op);
        fputs(".TP\n\\fB", out);
        roff(out, op->name);
        fputs("\\fR\n", out);
        roff(out, op->summary);
        fputs(".\n", out);
        if (kind == JF_OP_FILTER) {
            fputs("GPU variants: auto = ", out);
            roff(out, info->auto_rule);
            fputs(".\nSamples: ", out);
            roff(out, info->samples_rule);
            fputs(".\n", out);
        }
    }
}

void cli_doc_man(FILE *out)
{
    job_option_view v[MAX_VIEWS];
    const char *envs[MAX_VIEWS];
    int c, i, j, n, env_count = 0;
    fprintf(out, ".\\\" Generated from jetfilter's command, option and operation tables "
                 "(cli/doc.c); do not edit.\n");
    fprintf(out, ".TH JETFILTER 1 \"\" \"jetfilter %s\" \"User Commands\"\n", jf_version());
    fputs(".SH NAME\njetfilter \\- median filters, convolutions, PSNR and SSIM for JPEG and PNG "
          "images, on the GPU or the CPU\n", out);
    fputs(".SH SYNOPSIS\n", out);
    for (c = 0; c < cli_command_count; c++) {
        fprintf(out, ".B jetfilter %s\n", cli_commands[c].name);
        roff(out, cli_commands[c].usage);
        fputs("\n.br\n", out);
    }
    fputs(".B jetfilter\n\\-V | \\-\\-version | \\-\\-help\n", out);
    fputs(".SH DESCRIPTION\n"
          "jetfilter decodes JPEG and PNG images, filters them (median, adaptive and switching "
          "medians for impulse noise, box, Gaussian, sharpen, Laplace, any k x k correlation), "
          "and writes them back, one file or whole folder trees at a time, on a CUDA GPU "
          "(a Jetson Nano up to a data-centre GPU) or on the CPU with the same results: the "
          "medians and padding bit for bit, the convolutions within one level.\n"
          ".PP\nInputs are never written over; outputs appear only when whole (a temporary "
          "name, then a rename); a file that cannot be read is a failure named with its "
          "reason, and the batch goes on.\n", out);
    for (c = 0; c < cli_command_count; c++) {
        const cli_command *cmd = &cli_commands[c];
        fprintf(out, ".SH \"jetfilter %s\"\n", cmd->name);
        fputs(".B jetfilter ", out);
        roff(out, cmd->name);
        fputc(' ', out);
        roff(out, cmd->usage);
        fputs("\n.PP\n", out);
        if (cmd->details)
            roff_paragraph(out, cmd->details);
        else {
            roff(out, cmd->summary);
            fputs(".\n", out);
        }
        n = job_option_views(cmd->bit, v, MAX_VIEWS);
        for (i = 0; i < n; i++) {
            man_option(out, &v[i]);
            for (j = 0; v[i].env && j < env_count && strcmp(envs[j], v[i].env) != 0; j++)
                ;
            if (v[i].env && j == env_count)
                envs[env_count++] = v[i].env;
        }
        if (cmd->exit_status) {
            fputs(".PP\nExit status: ", out);
            roff(out, cmd->exit_status);
            fputs(".\n", out);
        }
    }
    fputs(".SH FILTERS\nThe operations of \\fB\\-\\-filter\\fR "
          "(denoise, stream, bench):\n", out);
    man_ops(out, JF_OP_FILTER);
    fputs(".SH NOISE\nThe noise of \\fBjetfilter noise\\fR:\n", out);
    man_ops(out, JF_OP_NOISE);
    fputs(".SH ENVIRONMENT\n", out);
    for (i = 0; i < env_count; i++) {
        n = 0;
        fprintf(out, ".TP\n.B %s\nThe default of ", envs[i]);
        for (c = 0; c < cli_command_count; c++) {
            int k, m = job_option_views(cli_commands[c].bit, v, MAX_VIEWS);
            for (k = 0; k < m; k++)
                if (v[k].env && strcmp(v[k].env, envs[i]) == 0 && n++ == 0) {
                    fputs("\\fB\\-\\-", out);
                    roff(out, v[k].name);
                    fputs("\\fR", out);
                }
        }
        fputs(" where no option gives it; an option on the command line wins.\n", out);
    }
    fputs(".TP\n.B XDG_CACHE_HOME\nWhere \\fBcalibrate\\fR writes and \\fBauto\\fR reads tuning "
          "profiles ($XDG_CACHE_HOME/jetfilter, else ~/.cache/jetfilter).\n"
          ".TP\n.B SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX\n"
          "With \\fB\\-\\-shard auto\\fR: this process's part of the inputs (Slurm job arrays, "
          "Kubernetes indexed jobs).\n", out);
    fputs(".SH FILES\n.TP\n.I ~/.cache/jetfilter/\nTuning profiles written by "
          "\\fBjetfilter calibrate\\fR, one per device and power mode.\n", out);
    fputs(".SH EXAMPLES\n.nf\n"
          "jetfilter denoise photo.jpg \\-o clean.png\n"
          "jetfilter denoise photos/ \\-o clean/ \\-k 5 \\-j 4\n"
          "cat photo.jpg | jetfilter denoise \\- \\-o \\- \\-f gauss \\-\\-sigma 2 > soft.jpg\n"
          "jetfilter noise photos/ \\-o noisy/ \\-\\-salt\\-pepper 0.1\n"
          "jetfilter denoise noisy/ \\-o fixed/ \\-f auto\\-impulse \\-\\-reference photos/\n"
          "jetfilter metrics photo.jpg clean.png\n"
          "ffmpeg \\-i in.mp4 \\-f yuv4mpegpipe \\- | jetfilter stream \\-k 5 | "
          "ffmpeg \\-y \\-i \\- out.mp4\n"
          ".fi\n", out);
    fputs(".SH SEE ALSO\nThe source tree's docs/: cli.md (every option), library.md, python.md, "
          "gstreamer.md, jetson.md, scale-out.md; benchmarks/RESULTS.md for the measured speed "
          "and quality.\n", out);
}

/* ---- bash -------------------------------------------------------------------- */

static void words_of(FILE *out, const char *const *list)
{
    int i;
    for (i = 0; list[i]; i++)
        fprintf(out, "%s%s", i ? " " : "", list[i]);
}

void cli_doc_bash(FILE *out)
{
    job_option_view v[MAX_VIEWS];
    int c, i, n;
    fputs("# bash completion for jetfilter: generated from its command and option tables\n"
          "# (cli/doc.c); do not edit.\n"
          "_jetfilter()\n{\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    local opts= cmd=${COMP_WORDS[1]}\n"
          "    COMPREPLY=()\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        COMPREPLY=($(compgen -W \"", out);
    for (c = 0; c < cli_command_count; c++)
        fprintf(out, "%s ", cli_commands[c].name);
    fputs("help -V --version --help\" -- \"$cur\"))\n"
          "        return 0\n"
          "    fi\n"
          "    case \"$cmd\" in\n", out);
    for (c = 0; c < cli_command_count; c++) {
        n = job_option_views(cli_commands[c].bit, v, MAX_VIEWS);
        fprintf(out, "    %s)\n        case \"$prev\" in\n", cli_commands[c].name);
        for (i = 0; i < n; i++) {
            if (!v[i].arg)
                continue;
            fprintf(out, "        --%s", v[i].name);
            if (v[i].letter)
                fprintf(out, "|-%c", v[i].letter);
            if (v[i].choices) {
                fputs(") COMPREPLY=($(compgen -W \"", out);
                words_of(out, v[i].choices);
                fputs("\" -- \"$cur\")); return 0 ;;\n", out);
            } else if (v[i].path) {
                fputs(") COMPREPLY=($(compgen -f -- \"$cur\")); compopt -o filenames 2> /dev/null; "
                      "return 0 ;;\n", out);
            } else {
                fputs(") return 0 ;;\n", out);
            }
        }
        fputs("        esac\n        opts=\"", out);
        for (i = 0; i < n; i++) {
            fprintf(out, "%s--%s", i ? " " : "", v[i].name);
            if (v[i].letter)
                fprintf(out, " -%c", v[i].letter);
        }
        fputs("\" ;;\n", out);
    }
    fputs("    *) return 0 ;;\n"
          "    esac\n"
          "    if [[ \"$cur\" == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "    else\n"
          "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "        compopt -o filenames 2> /dev/null\n"
          "    fi\n"
          "    return 0\n"
          "}\n"
          "complete -F _jetfilter jetfilter\n", out);
}

/* ---- zsh --------------------------------------------------------------------- */

/* Help text inside a zsh _arguments spec: its first clause, without the
 * characters that end or quote the spec. */
static void zsh_text(FILE *out, const char *text)
{
    const char *p;
    for (p = text; *p && *p != ';' && *p != '(' && *p != ':'; p++) {
        if (*p == '[' || *p == ']' || *p == '\'' || *p == '\\' || *p == '`' || *p == '$')
            continue;
        fputc(*p, out);
    }
}

void cli_doc_zsh(FILE *out)
{
    job_option_view v[MAX_VIEWS];
    int c, i, n;
    fputs("#compdef jetfilter\n"
          "# zsh completion for jetfilter: generated from its command and option tables\n"
          "# (cli/doc.c); do not edit.\n"
          "_jetfilter() {\n"
          "  local -a commands\n"
          "  commands=(\n", out);
    for (c = 0; c < cli_command_count; c++) {
        fprintf(out, "    '%s:", cli_commands[c].name);
        zsh_text(out, cli_commands[c].summary);
        fputs("'\n", out);
    }
    fputs("  )\n"
          "  if (( CURRENT == 2 )); then\n"
          "    _describe -t commands 'jetfilter command' commands\n"
          "    return\n"
          "  fi\n"
          "  local cmd=$words[2]\n"
          "  shift words\n"
          "  (( CURRENT-- ))\n"
          "  case $cmd in\n", out);
    for (c = 0; c < cli_command_count; c++) {
        n = job_option_views(cli_commands[c].bit, v, MAX_VIEWS);
        fprintf(out, "    %s)\n      _arguments -s \\\n", cli_commands[c].name);
        for (i = 0; i < n; i++) {
            const char *sep = v[i].arg ? "=" : "";
            fputs("        ", out);
            if (v[i].letter)
                fprintf(out, "'(-%c --%s)'{-%c%s,--%s%s}'[", v[i].letter, v[i].name, v[i].letter,
                        v[i].arg ? "+" : "", v[i].name, sep);
            else
                fprintf(out, "'--%s%s[", v[i].name, sep);
            zsh_text(out, v[i].help);
            fputc(']', out);
            if (v[i].arg) {
                fputc(':', out);
                zsh_text(out, v[i].arg);
                fputc(':', out);
                if (v[i].choices) {
                    int k;
                    fputc('(', out);
                    for (k = 0; v[i].choices[k]; k++)
                        fprintf(out, "%s%s", k ? " " : "", v[i].choices[k]);
                    fputc(')', out);
                } else if (v[i].path) {
                    fputs("_files", out);
                } else {
                    fputs(" ", out);
                }
            }
            fputs("' \\\n", out);
        }
        fputs("        '*:input:_files'\n      ;;\n", out);
    }
    fputs("  esac\n"
          "}\n"
          "_jetfilter \"$@\"\n", out);
}
