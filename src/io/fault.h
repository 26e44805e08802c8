/*
 * fault.h - the points where a test may make a step fail or the process
 * die, to show that a failed or killed run leaves no half-written output.
 *
 * The product links src/io/fault.c, which never injects anything: the
 * released binary has no test hook and reads no variable for one.  The unit
 * tests and $(BUILD)/tests/reckon-faults (the integration suite's binary
 * for the cases that break a run) link tests/hooks/fault.c instead, which
 * reads the steps to break from the environment (it says how).
 */
#ifndef RK_IO_FAULT_H
#define RK_IO_FAULT_H

/* What a test asked for at a step. */
typedef enum rk_fault_action {
	RK_FAULT_NONE = 0, /* carry on */
	RK_FAULT_FAIL,     /* fail the step as an I/O error would */
} rk_fault_action;

/* The action at step (e.g. "adir-written"); a hooked build may also kill
 * the process there, and then this does not return. */
rk_fault_action rk_fault(const char *step);

#endif
