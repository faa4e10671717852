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

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VIEWS 128

/* cli_parse on one option and its value (and a placeholder input). */
static int parse_one(const cli_command *c, const char *name, const char *value)
{
    char opt[96];
    char *argv[3];
    cli_settings s;
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
    cli_option_view v[MAX_VIEWS];
    int c, i, n, numbers = 0;
    (void)state;
    for (i = 0; env[i]; i++)
        unsetenv(env[i]);
    for (c = 0; c < cli_command_count; c++) {
        const cli_command *cmd = &cli_commands[c];
        n = cli_option_views(cmd->bit, v, MAX_VIEWS);
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
    cli_option_view v[MAX_VIEWS];
    int c, i, n;
    for (c = 0; c < cli_command_count; c++) {
        n = cli_option_views(cli_commands[c].bit, v, MAX_VIEWS);
        for (i = 0; i < n; i++)
            if (v[i].number)
                fprintf(out, "%s %s %.17g %.17g %s\n", cli_commands[c].name, v[i].name, v[i].min,
                        v[i].max, v[i].def ? v[i].def : "-");
    }
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
        cmocka_unit_test(test_ranges_are_pinned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
