/*
 * hooks.h - the names the test hooks answer to (the files of tests/hooks/, linked
 * into the unit tests and $(BUILD)/tests/reckon-faults, never into the
 * product).
 */
#ifndef RK_TESTS_HOOKS_H
#define RK_TESTS_HOOKS_H

/* STEP:ACTION, the step of io/fault.h to break and how (fault.c). */
#define RK_FAULT_ENV "RECKON_TEST_FAULT"

#endif
