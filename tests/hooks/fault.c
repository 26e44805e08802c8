/*
 * fault.c - the test build's side of io/fault.h, linked into
 * the unit tests and $(BUILD)/tests/reckon-faults in place of
 * src/io/fault.c (never into the product).
 *
 * RECKON_TEST_FAULT=STEP:ACTION breaks one step: ACTION "fail" makes it
 * fail as an I/O error would, "fail@N" only the Nth time the process
 * reaches it (from 1), "kill" SIGKILLs the process there, "run:CMD"
 * runs the shell command CMD there and carries on (another writer's commit
 * between a Delta write's snapshot and its commit).  The steps:
 * "adir-written" (rk_adir_commit, every file written, before the swap),
 * "adir-swapped" (right after the swap, before the old set is removed),
 * "adir-plain-rename" and "adir-no-link" (with "fail": a file system
 * without renameat2's flags, or without hard links, as rk_adir meets it),
 * "delta-files-written" and "delta-commit-staged" (a Delta commit's data
 * files written; its log entry staged, before it is made the next
 * version), "pglarge-marker" (a large value's marker read as garbled) and
 * "pglarge-read-back" (a large value read back a byte longer than its
 * marker said), "findstore-pass" (a pass of the findings' store begun:
 * its read from the first finding).
 */
#include "io/fault.h"

#include <signal.h>
#include <stdatomic.h>
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
	if (!strncmp(v + n + 1, "run:", 4)) {
		/* what the command did is the test's to assert */
		int rc = system(v + n + 5);

		(void)rc;
		return RK_FAULT_NONE;
	}
	if (!strncmp(v + n + 1, "fail@", 5)) {
		static atomic_ulong reached;

		return ++reached == strtoul(v + n + 6, NULL, 10) ? RK_FAULT_FAIL : RK_FAULT_NONE;
	}
	return !strcmp(v + n + 1, "fail") ? RK_FAULT_FAIL : RK_FAULT_NONE;
}
