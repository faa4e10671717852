/* The power meter's NVML path (discrete GPUs) against a stand-in NVML
 * (tests/fake/nvml.c, found through LD_LIBRARY_PATH): the energy counter
 * where there is one, else power samples; clocks; every failing call
 * leaving no meter rather than a wrong one. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"
#include "calib/power.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static jf_power_meter *open_with(const char *failing)
{
    setenv("FAKE_NVML", failing, 1);
    return jf_power_meter_open("", 0); /* no sysfs root: a discrete GPU's NVML */
}

static void test_energy_counter(void **state)
{
    jf_power_meter *pm = open_with("");
    double e, w, sm, mem;
    const struct timespec pause = {0, 20 * 1000000L};
    (void)state;
    if (strcmp(jf_power_meter_source(pm), "none") == 0)
        fail_msg("the stand-in NVML was not loaded (LD_LIBRARY_PATH)");
    assert_non_null(strstr(jf_power_meter_source(pm), "NVML energy counter"));
    assert_true(jf_power_meter_read_mw(pm) == 123456.0);
    assert_false(jf_power_meter_whole_board(pm));
    jf_power_meter_clocks(pm, &sm, &mem);
    assert_true(sm == 1980.0 && mem == 3201.0);
    assert_true(jf_power_meter_start(pm, 5));
    nanosleep(&pause, NULL);
    assert_true(jf_power_meter_stop(pm, &e, &w));
    assert_true(e == 1000.0); /* the counter's difference, one call apart */
    assert_true(w > 0.0 && w < 1000.0 / 0.015);
    jf_power_meter_close(pm);
}

static void test_power_samples_without_a_counter(void **state)
{
    jf_power_meter *pm = open_with("energy");
    double e, w;
    const struct timespec pause = {0, 60 * 1000000L};
    (void)state;
    assert_non_null(strstr(jf_power_meter_source(pm), "NVML power samples"));
    assert_true(jf_power_meter_start(pm, 2));
    nanosleep(&pause, NULL);
    assert_true(jf_power_meter_stop(pm, &e, &w));
    assert_true(fabs(w - 123.456) < 1e-6); /* a constant 123456 mW */
    assert_true(e > 0.0);
    jf_power_meter_close(pm);
}

static void test_clocks_unreadable(void **state)
{
    jf_power_meter *pm = open_with("clock");
    double sm, mem;
    (void)state;
    assert_non_null(strstr(jf_power_meter_source(pm), "NVML"));
    jf_power_meter_clocks(pm, &sm, &mem);
    assert_true(isnan(sm) && isnan(mem));
    jf_power_meter_close(pm);
}

/* Any call the meter needs failing: no meter, never a wrong figure. */
static void test_failures_leave_no_meter(void **state)
{
    static const char *cases[] = {"init", "handle", "energy,power"};
    int i;
    (void)state;
    for (i = 0; i < 3; i++) {
        jf_power_meter *pm = open_with(cases[i]);
        double e, w;
        if (strcmp(jf_power_meter_source(pm), "none") != 0)
            fail_msg("NVML failing at %s: source '%s'", cases[i], jf_power_meter_source(pm));
        assert_true(isnan(jf_power_meter_read_mw(pm)));
        assert_false(jf_power_meter_start(pm, 5));
        assert_false(jf_power_meter_stop(pm, &e, &w));
        jf_power_meter_close(pm);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_energy_counter),
        cmocka_unit_test(test_power_samples_without_a_counter),
        cmocka_unit_test(test_clocks_unreadable),
        cmocka_unit_test(test_failures_leave_no_meter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
