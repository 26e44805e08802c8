/*
 * lab.h - the scenario lab (`reckon lab`, docs/loader.md): reproduces how each load
 * strategy loses or duplicates rows, on a real PostgreSQL, with real
 * process deaths and a real concurrent session, then checks and repairs
 * every scenario with reckon itself.
 */
#ifndef RK_LOAD_LAB_H
#define RK_LOAD_LAB_H

#include <stdbool.h>

#include "core/error.h"

typedef struct rk_lab_spec {
	const char *source;    /* conninfo: source table and watermark */
	const char *target;    /* conninfo of a second database (engine split), or NULL */
	const char *engine;    /* "postgres", "split", "delta" or "all" */
	const char *delta_dir; /* engine delta: the tables go to DIR/<scenario>; NULL: OUT/delta/<scenario>/table */
	const char *scenario;  /* a scenario name or "all" */
	const char *out;       /* output directory */
	const char *reckon;    /* the binary run for each step */
	int verbose;           /* passed on to the steps */
} rk_lab_spec;

/*
 * Runs the selected scenarios, writing snapshots, rerun lists, logs and
 * OUT/summary.csv, and printing the summary rows to stdout as they come.
 * Returns the exit status: 0 when every step ran as designed and every
 * scenario matches after repair, 1 when a scenario still differs after
 * repair, 2 for a bad selection, 3 when a step could not run (err filled for
 * 2 and 3; a failed step's details are logged where it happens).
 */
int rk_lab_run(const rk_lab_spec *spec, rk_error *err);

/* True when name is a lab scenario (for option checking). */
bool rk_lab_scenario_exists(const char *name);

#endif
