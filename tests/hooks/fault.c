/*
 * fault.c - the test build's side of io/fault.h, linked into
 * the unit tests and $(BUILD)/tests/reckon-faults in place of
 * src/io/fault.c (never into the product).
 *
 * RECKON_TEST_FAULT=STEP:ACTION breaks one step: ACTION "fail" makes it
 * fail as an I/O error would, "kill" SIGKILLs the process there.  The steps:
 * "adir-written" (rk_adir_commit, every file written, before the swap) and
 * "adir-swapped" (right after the swap, before the old set is removed).
 */
#include "io/fault.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "hooks.h"

rk_fault_action rk_fault(const char *step)
{
	const char *v = getenv(RK_FAULT_ENV);
	size_t n = strlen(step);

	if (!v || strncmp(v, step, n) != 0 || v[n] != ':')
		return RK_FAULT_NONE;
	if (!strcmp(v + n + 1, "kill"))
		raise(SIGKILL);
	return !strcmp(v + n + 1, "fail") ? RK_FAULT_FAIL : RK_FAULT_NONE;
}
