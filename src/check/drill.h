/*
 * drill.h - the key-level drilldown of the windows whose digests differ
 * (drill.c; its planner drill_plan.h, its judging of keys drill_judge.h).
 * Not for use outside src/check/ (and its unit tests, which drive the
 * planner without a server).
 */
#ifndef RK_CHECK_DRILL_H
#define RK_CHECK_DRILL_H

#include "check/drill_plan.h"
#include "check/side.h"

/* Finds the keys behind every window whose status is RK_WIN_DIFFER and
 * adds them to res as findings.  0, or -1 with err. */
int rk_drill_run(rk_side sides[2], const rk_check_spec *spec, rk_check_result *res, rk_error *err);

#endif
