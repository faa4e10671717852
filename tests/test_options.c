/*
 * The option table's numbers, in process: for every command and every
 * option that takes a number, both ends of its range are taken and the
 * values just outside are refused as usage errors; the default lies in the
 * range; and every range and default is the one pinned in
 * tests/data/option_ranges.txt (a change to the table is a change to that
 * file, made on purpose: `test_options --write FILE` writes it).
 */
#define _POSIX_C_SOURCE 200809L /* unsetenv, open_memstream */
#include "common.h"
#include "cli_util.h"
#include "cli/cli.h"
#include "filters/ops.h"
#include "jobs/settings.h"

#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_VIEWS 128

/* cli_parse on one option and its value (and a placeholder input). */
static int parse_one(const cli_command *c, const char *name, const char *value)
{
    char opt[96];
    char *argv[3];
    job_settings s;
    int rc;
    snprintf(opt, sizeof opt, "--%s", name);
    argv[0] = opt;
    argv[1] = (char *)value;
    argv[2] = (char *)"in";
    rc = cli_parse(c->bit, c->name, 3, argv, &s);
    free(s.inputs);
    return rc;
}

static void number_text(char *out, size_t n, int integer, double v)
{
    if (integer)
        snprintf(out, n, "%.0f", v);
    else
        snprintf(out, n, "%.17g", v);
}

/* For an integer with `odd` rules the ends themselves are odd; one beyond is
 * refused either way. */
static void test_ranges_are_kept(void **state)
{
    static const char *const env[] = {"JETFILTER_THREADS", "JETFILTER_DEVICE", "JETFILTER_BACKEND", NULL};
    job_option_view v[MAX_VIEWS];
    int c, i, n, numbers = 0;
    (void)state;
    for (i = 0; env[i]; i++)
        unsetenv(env[i]);
    for (c = 0; c < cli_command_count; c++) {
        const cli_command *cmd = &cli_commands[c];
        n = job_option_views(cmd->bit, v, MAX_VIEWS);
        assert_true(n < MAX_VIEWS);
        for (i = 0; i < n; i++) {
            const int integer = v[i].number == 1;
            char text[64];
            double below, above;
            if (!v[i].number)
                continue;
            numbers++;
            assert_true(v[i].min <= v[i].max);
            /* the next number a double holds past each end (an integer's
             * neighbour while doubles still hold every integer) */
            below = integer && fabs(v[i].min) < 0x1p53 ? v[i].min - 1 : nextafter(v[i].min, -INFINITY);
            above = integer && fabs(v[i].max) < 0x1p53 ? v[i].max + 1 : nextafter(v[i].max, INFINITY);
            number_text(text, sizeof text, integer, v[i].min);
            if (parse_one(cmd, v[i].name, text) != 0)
                fail_msg("%s --%s %s (its least value) refused", cmd->name, v[i].name, text);
            number_text(text, sizeof text, integer, v[i].max);
            if (parse_one(cmd, v[i].name, text) != 0)
                fail_msg("%s --%s %s (its largest value) refused", cmd->name, v[i].name, text);
            number_text(text, sizeof text, integer, below);
            if (parse_one(cmd, v[i].name, text) != JF_EXIT_USAGE)
                fail_msg("%s --%s %s (below its range) taken", cmd->name, v[i].name, text);
            number_text(text, sizeof text, integer, above);
            if (parse_one(cmd, v[i].name, text) != JF_EXIT_USAGE)
                fail_msg("%s --%s %s (above its range) taken", cmd->name, v[i].name, text);
            if (v[i].def) {
                const double d = strtod(v[i].def, NULL);
                if (d < v[i].min || d > v[i].max)
                    fail_msg("%s --%s: default %s outside %g..%g", cmd->name, v[i].name, v[i].def,
                             v[i].min, v[i].max);
            }
        }
    }
    print_message("options: %d numbers checked at both ends and beyond\n", numbers);
    assert_true(numbers >= 40);
}

/* One line per command and numeric option: "command option min max default". */
static void range_lines(FILE *out)
{
    job_option_view v[MAX_VIEWS];
    int c, i, n;
    for (c = 0; c < cli_command_count; c++) {
        n = job_option_views(cli_commands[c].bit, v, MAX_VIEWS);
        for (i = 0; i < n; i++)
            if (v[i].number)
                fprintf(out, "%s %s %.17g %.17g %s\n", cli_commands[c].name, v[i].name, v[i].min,
                        v[i].max, v[i].def ? v[i].def : "-");
    }
}

/* Every parameter of the operation table has a place in the settings (a
 * parameter past JOB_MAX_PARAMS would lose its option without a word). */
static void test_every_parameter_has_its_option(void **state)
{
    jf_param_def all[64];
    (void)state;
    assert_true(jf_op_all_params(all, 64) <= JOB_MAX_PARAMS);
}

static void test_ranges_are_pinned(void **state)
{
    char *now = NULL, *pinned;
    size_t now_size = 0, pinned_size = 0;
    FILE *f = open_memstream(&now, &now_size);
    (void)state;
    assert_non_null(f);
    range_lines(f);
    fclose(f);
    pinned = (char *)read_all(t_source_path("tests/data/option_ranges.txt"), &pinned_size);
    assert_non_null(pinned);
    if (pinned_size != now_size || memcmp(pinned, now, now_size) != 0)
        fail_msg("the option table's ranges or defaults differ from tests/data/option_ranges.txt:\n%s", now);
    free(pinned);
    free(now);
}

/* cli_parse of `argv` (a NULL-terminated list) for `cmd`, what it printed on
 * stderr into `err`; the exit code (the settings in *s, to be freed). */
static int parse_args(const char *cmd, const char *const *argv, job_settings *s, char *err,
                      size_t err_size)
{
    const cli_command *c = NULL;
    char path[] = "/tmp/jf-options-XXXXXX";
    int i, argc = 0, rc, saved, fd;
    ssize_t got;
    for (i = 0; i < cli_command_count; i++)
        if (strcmp(cli_commands[i].name, cmd) == 0)
            c = &cli_commands[i];
    assert_non_null(c);
    while (argv[argc])
        argc++;
    fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    saved = dup(2);
    dup2(fd, 2);
    rc = cli_parse(c->bit, c->name, argc, (char **)argv, s);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    got = pread(fd, err, err_size - 1, 0);
    err[got > 0 ? got : 0] = '\0';
    close(fd);
    unlink(path);
    return rc;
}

static const job_option_view *view_named(const job_option_view *v, int n, const char *name)
{
    int i;
    for (i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0)
            return &v[i];
    fail_msg("no option --%s", name);
    return NULL;
}

static int has_choice(const job_option_view *v, const char *name)
{
    int i;
    for (i = 0; v->choices && v->choices[i]; i++)
        if (strcmp(v->choices[i], name) == 0)
            return 1;
    return 0;
}

/* What the man page and the completions read (the views) and --help say
 * the same: every option line of --help is a view, with its letter, help
 * words, choices and default; letters are letters; commands that run a
 * filter list the filters, the others do not. */
static void test_views_are_the_help(void **state)
{
    job_option_view v[MAX_VIEWS];
    int c, i, n, lines;
    (void)state;
    for (c = 0; c < cli_command_count; c++) {
        const cli_command *cmd = &cli_commands[c];
        const int filters = strcmp(cmd->name, "denoise") == 0 || strcmp(cmd->name, "stream") == 0 ||
                            strcmp(cmd->name, "bench") == 0;
        char *help = NULL, *line;
        size_t size = 0;
        FILE *f = open_memstream(&help, &size);
        assert_non_null(f);
        cli_help(f, cmd->bit, cmd->name);
        fclose(f);
        n = job_option_views(cmd->bit, v, MAX_VIEWS);
        assert_true(n > 0 && n < MAX_VIEWS);
        for (i = 0; i < n; i++) {
            char flag[96];
            int k;
            snprintf(flag, sizeof flag, "--%s %s", v[i].name, v[i].arg ? v[i].arg : "");
            if (!strstr(help, flag))
                fail_msg("%s --help lacks %s", cmd->name, flag);
            assert_non_null(v[i].help);
            if (!strstr(help, v[i].help))
                fail_msg("%s --help lacks the words of --%s", cmd->name, v[i].name);
            if (v[i].letter) {
                snprintf(flag, sizeof flag, "-%c, --%s ", v[i].letter, v[i].name);
                assert_true(isalnum((unsigned char)v[i].letter));
                assert_non_null(strstr(help, flag));
            }
            for (k = 0; v[i].choices && v[i].choices[k]; k++)
                assert_non_null(strstr(help, v[i].choices[k]));
            if (v[i].def) {
                snprintf(flag, sizeof flag, "(default %s)", v[i].def);
                assert_non_null(strstr(help, flag));
            }
        }
        for (lines = 0, line = strchr(help, '\n'); line; line = strchr(line + 1, '\n'))
            if (strncmp(line + 1, "  -", 3) == 0 || strncmp(line + 1, "      --", 8) == 0)
                lines++;
        if (lines != n)
            fail_msg("%s --help: %d option lines, %d options", cmd->name, lines, n);
        assert_int_equal(strstr(help, "filters (--filter NAME):") != NULL, filters);
        assert_int_equal(strstr(help, "also measured by the bench") != NULL,
                         strcmp(cmd->name, "bench") == 0);
        free(help);
    }
    n = job_option_views(CMD_DENOISE, v, MAX_VIEWS);
    assert_string_equal(view_named(v, n, "border")->def, "replicate");
    assert_string_equal(view_named(v, n, "variant")->def, "auto");
    assert_true(has_choice(view_named(v, n, "filter"), "median") &&
                has_choice(view_named(v, n, "filter"), "gauss") &&
                !has_choice(view_named(v, n, "filter"), "pad"));
    assert_true(has_choice(view_named(v, n, "format"), "png") &&
                !has_choice(view_named(v, n, "format"), "median"));
    assert_true(view_named(v, n, "output")->path && view_named(v, n, "json")->path &&
                view_named(v, n, "reference")->path);
    assert_false(view_named(v, n, "quality")->path || view_named(v, n, "format")->path);
    n = job_option_views(CMD_BENCH, v, MAX_VIEWS);
    assert_true(has_choice(view_named(v, n, "filter"), "pad") &&
                has_choice(view_named(v, n, "filter"), "median"));
}

/* A number is the whole value; a 64-bit one keeps its 64 bits, an int its
 * field; --device says what each command takes. */
static void test_values_and_their_words(void **state)
{
    static const char *const seed[] = {"--seed", "5000000000", "in", NULL};
    static const char *const ints[] = {"-j", "7", "-q", "55", "--png-level", "3", "in", NULL};
    static const char *const trailing[] = {"-j", "4x", "in", NULL};
    static const char *const empty[] = {"-q", "", "in", NULL};
    static const char *const list[] = {"--device", "x", "in", NULL};
    static const char *const one[] = {"--device", "x", "in.y4m", NULL};
    static const char *const two[] = {"--device", "0,2", "in", NULL};
    job_settings s;
    char err[1024];
    (void)state;
    assert_int_equal(parse_args("noise", seed, &s, err, sizeof err), 0);
    assert_true(s.seed == 5000000000LL);
    free(s.inputs);
    assert_int_equal(parse_args("denoise", ints, &s, err, sizeof err), 0);
    assert_int_equal(s.jobs, 7);
    assert_int_equal(s.quality, 55);
    assert_int_equal(s.png_level, 3);
    free(s.inputs);
    assert_int_equal(parse_args("denoise", trailing, &s, err, sizeof err), JF_EXIT_USAGE);
    assert_non_null(strstr(err, "4x"));
    free(s.inputs);
    assert_int_equal(parse_args("denoise", empty, &s, err, sizeof err), JF_EXIT_USAGE);
    free(s.inputs);
    assert_int_equal(parse_args("denoise", list, &s, err, sizeof err), JF_EXIT_USAGE);
    assert_non_null(strstr(err, "a list such as 0,2, or all"));
    free(s.inputs);
    assert_int_equal(parse_args("stream", one, &s, err, sizeof err), JF_EXIT_USAGE);
    assert_non_null(strstr(err, "want one index"));
    free(s.inputs);
    assert_int_equal(parse_args("denoise", two, &s, err, sizeof err), 0);
    assert_int_equal(s.device_count, 2);
    assert_int_equal(s.devices[0], 0);
    assert_int_equal(s.devices[1], 2);
    assert_int_equal(s.device, 0);
    free(s.inputs);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0) {
        FILE *f = fopen(argv[2], "w");
        if (!f)
            return 1;
        range_lines(f);
        return fclose(f) != 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges_are_kept),
        cmocka_unit_test(test_every_parameter_has_its_option),
        cmocka_unit_test(test_ranges_are_pinned),
        cmocka_unit_test(test_views_are_the_help),
        cmocka_unit_test(test_values_and_their_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
