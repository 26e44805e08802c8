/*
 * hooks.h - the names the test hooks answer to (the files of tests/hooks/, linked
 * into the unit tests and $(BUILD)/tests/reckon-faults, never into the
 * product).
 */
#ifndef RK_TESTS_HOOKS_H
#define RK_TESTS_HOOKS_H

/* STEP:ACTION, the step of io/fault.h to break and how (fault.c). */
#define RK_FAULT_ENV "RECKON_TEST_FAULT"

struct rk_reader_driver;

/*
 * Makes rk_reader_open hand every conn that starts with d->prefix to d,
 * before the built-in drivers: a test's own readers behind rk_check_run
 * (reader_extra.c).  d stays the caller's and must outlive its use; at most
 * RK_READER_MAX_REGISTERED, registered once per process before any reader
 * is opened (not thread-safe).  Returns 0, or -1 when the table is full.
 */
#define RK_READER_MAX_REGISTERED 4
int rk_reader_register(const struct rk_reader_driver *d);

#endif
