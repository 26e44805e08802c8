#include "lab/lab.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "io/afile.h"
#include "io/pg.h"
#include "lab/lab_delta.h"
#include "load/child.h"
#include "load/strategy.h"
#include "rk_sql.h"

enum { RK_LAB_POSTGRES = 1,
       RK_LAB_SPLIT = 2,
       RK_LAB_DELTA = 4 };

/* docs/loader.md's data: "phase" is the run before which the row is committed. */
typedef struct rk_lab_row {
	const char *txn_id, *updated_at, *amount;
	int phase;
} rk_lab_row;

static const rk_lab_row rk_lab_rows[] = {
	{ "T-01", "2026-03-02 09:05:00+00", "120.00", 1 },
	{ "T-02", "2026-03-02 09:20:00+00", "35.50", 1 },
	{ "T-03", "2026-03-02 09:41:00+00", "18.25", 1 },
	{ "T-04", "2026-03-02 09:55:00+00", "240.00", 1 },
	{ "T-05", "2026-03-02 10:12:00+00", "64.10", 2 },
	{ "T-06", "2026-03-02 10:31:00+00", "12.00", 2 },
	{ "T-07", "2026-03-02 10:55:00+00", "99.99", 2 },
	{ "T-08", "2026-03-02 11:00:00+00", "7.50", 2 },
	{ "T-09", "2026-03-02 10:58:00+00", "310.00", 2 },
	{ "T-10", "2026-03-02 11:18:00+00", "45.00", 3 },
	{ "T-11", "2026-03-02 11:47:00+00", "150.75", 3 },
};
#define RK_LAB_NROWS (sizeof rk_lab_rows / sizeof rk_lab_rows[0])
/* in late-commit scenarios this row's transaction is still open during run 2 */
#define RK_LAB_LATE_ROW "T-09"

/* The runs are hourly on 2026-03-02: run N owns [08+N:00, 09+N:00). */
#define RK_LAB_DAY "2026-03-02"
#define RK_LAB_LOOKBACK "10m"
#define RK_LAB_CHECK_FROM RK_LAB_DAY "T09:00:00Z"
#define RK_LAB_CHECK_TO RK_LAB_DAY "T12:00:00Z"
#define RK_LAB_CHECK_NOW "2026-03-03T00:00:00Z"

#define RK_LAB_SOURCE_TABLE "reckon_lab.src_transactions"
#define RK_LAB_TARGET_TABLE "reckon_lab.fact_transactions"
#define RK_LAB_WATERMARK_TABLE "reckon_lab.etl_watermark"

typedef struct rk_lab_step {
	const char *name;
	int run; /* 1..3: the run (and data interval) this step performs */
	rk_load_crash crash;
} rk_lab_step;

typedef struct rk_lab_scenario {
	const char *name;
	unsigned engines;
	rk_load_strategy strategy;
	bool lookback;
	bool late;                  /* T-09 commits only after the first run-2 step */
	rk_lab_step steps[6];       /* ends at name NULL */
	const char *diagnose_after; /* a check (not a step) right after this step, when a later
	                             * step hides the damage: its likely causes are the story */
} rk_lab_scenario;

static const rk_lab_scenario rk_lab_scenarios[] = {
	{ "watermark-first", RK_LAB_POSTGRES | RK_LAB_SPLIT | RK_LAB_DELTA, RK_LOAD_WATERMARK_FIRST, false, false, { { "run1", 1, RK_CRASH_NONE }, { "run2-killed", 2, RK_CRASH_AFTER_WATERMARK_COMMIT }, { "run2-retry", 2, RK_CRASH_NONE }, { "run3", 3, RK_CRASH_NONE } }, NULL },
	{ "write-first-append", RK_LAB_POSTGRES | RK_LAB_SPLIT | RK_LAB_DELTA, RK_LOAD_WRITE_FIRST_APPEND, false, false, { { "run1", 1, RK_CRASH_NONE }, { "run2-killed", 2, RK_CRASH_AFTER_WRITE_COMMIT }, { "run2-retry", 2, RK_CRASH_NONE }, { "run3", 3, RK_CRASH_NONE } }, NULL },
	{ "write-first-keyed", RK_LAB_POSTGRES | RK_LAB_SPLIT | RK_LAB_DELTA, RK_LOAD_WRITE_FIRST_KEYED, false, false, { { "run1", 1, RK_CRASH_NONE }, { "run2-killed", 2, RK_CRASH_AFTER_WRITE_COMMIT }, { "run2-retry", 2, RK_CRASH_NONE }, { "run3", 3, RK_CRASH_NONE } }, NULL },
	{ "one-transaction", RK_LAB_POSTGRES, RK_LOAD_ONE_TRANSACTION, false, false, { { "run1", 1, RK_CRASH_NONE }, { "run2-killed", 2, RK_CRASH_INSIDE_TRANSACTION }, { "run2-retry", 2, RK_CRASH_NONE }, { "run3", 3, RK_CRASH_NONE } }, NULL },
	{ "late-commit", RK_LAB_POSTGRES, RK_LOAD_ONE_TRANSACTION, false, true, { { "run1", 1, RK_CRASH_NONE }, { "run2", 2, RK_CRASH_NONE }, { "run3", 3, RK_CRASH_NONE } }, NULL },
	{ "lookback", RK_LAB_POSTGRES, RK_LOAD_ONE_TRANSACTION, true, true, { { "run1", 1, RK_CRASH_NONE }, { "run2", 2, RK_CRASH_NONE }, { "run3", 3, RK_CRASH_NONE } }, NULL },
	{ "interval", RK_LAB_POSTGRES | RK_LAB_DELTA, RK_LOAD_INTERVAL, false, true, { { "run1", 1, RK_CRASH_NONE }, { "run2", 2, RK_CRASH_NONE }, { "run3", 3, RK_CRASH_NONE }, { "rerun-run2", 2, RK_CRASH_NONE }, { "rerun-run2-again", 2, RK_CRASH_NONE } }, "run3" },
	{ "interval-closed", RK_LAB_POSTGRES, RK_LOAD_INTERVAL_CLOSED, false, false, { { "run1", 1, RK_CRASH_NONE }, { "run2", 2, RK_CRASH_NONE }, { "run3", 3, RK_CRASH_NONE } }, NULL },
	{ "target-watermark", RK_LAB_SPLIT | RK_LAB_DELTA, RK_LOAD_TARGET_WATERMARK, true, true, { { "run1", 1, RK_CRASH_NONE }, { "run2", 2, RK_CRASH_NONE }, { "run3-killed", 3, RK_CRASH_BEFORE_WRITE }, { "run3-retry", 3, RK_CRASH_NONE } }, NULL },
};
#define RK_LAB_NSCENARIOS (sizeof rk_lab_scenarios / sizeof rk_lab_scenarios[0])

static const char *const rk_lab_summary_header = "engine,scenario,step,rows_read,missing,duplicated,matches\n";

typedef struct rk_lab {
	const rk_lab_spec *spec;
	rk_pg *src;                    /* the lab's own session on the source database */
	rk_pg *tgt;                    /* on the target database (== src for engine postgres) */
	rk_pg *late;                   /* the open late-commit session, or NULL */
	const char *engine;            /* "postgres" / "split" / "delta" */
	const char *target_conn;       /* what the steps get as --target */
	bool delta;                    /* engine delta: tgt is the source's session, holding the mirror */
	char table[PATH_MAX];          /* engine delta: the scenario's Delta table */
	char delta_conn[PATH_MAX + 8]; /* "delta:" table */
	char conf[PATH_MAX];           /* private INI with both conninfos, or "" */
	const rk_lab_scenario *scen;
	char dir[PATH_MAX]; /* OUT/<engine>/<scenario> */
	int nn;             /* number of the last snapshot */
	int committed_phase;
	rk_buf summary; /* summary.csv so far */
	rk_buf log;     /* the scenario's steps.log */
	rk_lab_child child;
	int status; /* worst outcome so far */
} rk_lab;

bool rk_lab_scenario_exists(const char *name)
{
	for (size_t i = 0; i < RK_LAB_NSCENARIOS; i++)
		if (strcmp(rk_lab_scenarios[i].name, name) == 0)
			return true;
	return false;
}

static void rk_lab_worse(rk_lab *lab, int status)
{
	if (status > lab->status)
		lab->status = status;
}

/* ------------------------------------------------------------- files */

static void rk_lab_csv_field(FILE *f, const char *v)
{
	if (!v)
		return;
	if (strpbrk(v, ",\"\r\n")) {
		fputc('"', f);
		for (; *v; v++) {
			if (*v == '"')
				fputc('"', f);
			fputc(*v, f);
		}
		fputc('"', f);
	} else {
		fputs(v, f);
	}
}

static int rk_lab_write_file(const char *path, const char *what, const char *data, size_t len, rk_error *err)
{
	rk_afile *af = rk_afile_open(path, what, err);

	if (!af)
		return -1;
	if (len && fwrite(data, 1, len, rk_afile_stream(af)) != len) {
		rk_afile_abort(af);
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot write %s %s: %s", what, path, strerror(errno));
	}
	return rk_afile_commit(af, err);
}

static int rk_lab_path(char *out, size_t outsz, const char *dir, const char *name, rk_error *err)
{
	if ((size_t)snprintf(out, outsz, "%s/%s", dir, name) >= outsz)
		return rk_error_set(err, RK_EXIT_USAGE, "output path too long: %s/%s", dir, name);
	return 0;
}

/* Removes what an earlier lab run left in a scenario directory, so the
 * numbered snapshots are this run's only. */
static void rk_lab_clean_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		char p[PATH_MAX];

		if (l < 5 || (strcmp(e->d_name + l - 4, ".csv") != 0 && strcmp(e->d_name + l - 4, ".log") != 0))
			continue;
		if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, e->d_name) < sizeof p)
			unlink(p);
	}
	closedir(d);
}

/* ----------------------------------------------------------- database */

static int rk_lab_setup(rk_lab *lab, rk_error *err)
{
	rk_pg *tgt = lab->tgt;

	if (rk_pg_command(lab->src, "drop lab schema", rk_sql_lab_drop_schema, err) < 0 ||
	    rk_pg_command(lab->src, "create lab schema", rk_sql_lab_create_schema, err) < 0 ||
	    rk_pg_command(lab->src, "create source table", rk_sql_lab_create_source, err) < 0)
		return -1;
	if (tgt != lab->src && (rk_pg_command(tgt, "drop lab schema", rk_sql_lab_drop_schema, err) < 0 ||
	                        rk_pg_command(tgt, "create lab schema", rk_sql_lab_create_schema, err) < 0))
		return -1;
	if (rk_pg_command(tgt, "create target table", rk_sql_lab_create_target, err) < 0)
		return -1;
	/* engine delta: that table is the mirror; the target is a new Delta table */
	if (lab->delta && rk_lab_delta_reset(lab->table, err) < 0)
		return -1;
	lab->committed_phase = 0;
	return 0;
}

static int rk_lab_insert_row(rk_pg *pg, const rk_lab_row *r, rk_error *err)
{
	const char *p[3] = { r->txn_id, r->updated_at, r->amount };

	return rk_pg_exec(pg, "insert source row", rk_sql_lab_insert_source, 3, p, RK_PG_COMMAND, NULL, err);
}

/*
 * Commits the source rows due before run `run`.  In late-commit scenarios
 * T-09 goes through a second session whose transaction stays open until
 * rk_lab_late_commit: PostgreSQL hides it from the run meanwhile.
 */
static int rk_lab_commit_phases(rk_lab *lab, int run, rk_error *err)
{
	for (int phase = lab->committed_phase + 1; phase <= run; phase++) {
		if (rk_pg_command(lab->src, "begin", rk_sql_load_begin, err) < 0)
			return -1;
		for (size_t i = 0; i < RK_LAB_NROWS; i++) {
			const rk_lab_row *r = &rk_lab_rows[i];

			if (r->phase != phase)
				continue;
			if (lab->scen->late && strcmp(r->txn_id, RK_LAB_LATE_ROW) == 0) {
				if (!(lab->late = rk_pg_connect(lab->spec->source, "late-commit session", err)) ||
				    rk_pg_command(lab->late, "begin", rk_sql_load_begin, err) < 0 ||
				    rk_lab_insert_row(lab->late, r, err) < 0)
					return -1;
				rk_log_info("%s: %s inserted by session %d, transaction left open", lab->scen->name,
				            r->txn_id, rk_pg_backend_pid(lab->late));
				continue;
			}
			if (rk_lab_insert_row(lab->src, r, err) < 0)
				return -1;
		}
		if (rk_pg_command(lab->src, "commit", rk_sql_load_commit, err) < 0)
			return -1;
		lab->committed_phase = phase;
	}
	return 0;
}

static int rk_lab_late_commit(rk_lab *lab, rk_error *err)
{
	int rc;

	if (!lab->late)
		return 0;
	rc = rk_pg_command(lab->late, "commit late row", rk_sql_load_commit, err);
	rk_log_info("%s: late session committed %s", lab->scen->name, RK_LAB_LATE_ROW);
	rk_pg_close(lab->late);
	lab->late = NULL;
	return rc;
}

/* "2026-03-02 10:58:00+00" -> "2026-03-02T10:58:00Z"; NULL stays NULL. */
static const char *rk_lab_time(const char *v, char out[RK_TIME_STRLEN])
{
	rk_usec t;
	const char *why;

	if (!v)
		return NULL;
	if (rk_time_parse(v, strlen(v), &t, &why) < 0)
		return v;
	return rk_time_format(t, out);
}

/* Writes the whole target to OUT/<engine>/<scenario>/<NN>-<step>.csv. */
static int rk_lab_snapshot(rk_lab *lab, const char *step, rk_error *err)
{
	char name[128], path[PATH_MAX];
	rk_pg_result *res = NULL;
	rk_afile *af;
	FILE *f;

	snprintf(name, sizeof name, "%02d-%s.csv", ++lab->nn, step);
	if (rk_lab_path(path, sizeof path, lab->dir, name, err) < 0 ||
	    rk_pg_exec(lab->tgt, "snapshot target", rk_sql_lab_snapshot, 0, NULL, RK_PG_ANY_ROWS, &res, err) < 0)
		return -1;
	if (!(af = rk_afile_open(path, "snapshot", err))) {
		rk_pg_result_free(res);
		return -1;
	}
	f = rk_afile_stream(af);
	fputs("txn_id,updated_at,amount,interval_start,loaded_at\n", f);
	for (int r = 0; r < rk_pg_result_rows(res); r++) {
		char t[RK_TIME_STRLEN];

		for (int c = 0; c < 5; c++) {
			const char *v = rk_pg_result_value(res, r, c);

			if (c)
				fputc(',', f);
			rk_lab_csv_field(f, c == 1 || c >= 3 ? rk_lab_time(v, t) : v);
		}
		fputc('\n', f);
	}
	rk_pg_result_free(res);
	return rk_afile_commit(af, err);
}

typedef struct rk_lab_verdict {
	char missing[256];
	char duplicated[256];
	bool matches;
} rk_lab_verdict;

/* Judges the target against the source rows committed right now. */
static int rk_lab_judge(rk_lab *lab, rk_lab_verdict *v, rk_error *err)
{
	rk_pg_result *s = NULL, *j = NULL;
	const char *p[3];

	if (rk_pg_exec(lab->src, "read source rows", rk_sql_lab_source_rows, 0, NULL, RK_PG_ONE_ROW, &s, err) < 0)
		return -1;
	for (int i = 0; i < 3; i++)
		p[i] = rk_pg_result_value(s, 0, i);
	if (rk_pg_exec(lab->tgt, "judge target", rk_sql_lab_judge, 3, p, RK_PG_ONE_ROW, &j, err) < 0) {
		rk_pg_result_free(s);
		return -1;
	}
	snprintf(v->missing, sizeof v->missing, "%s", rk_pg_result_value(j, 0, 0));
	snprintf(v->duplicated, sizeof v->duplicated, "%s", rk_pg_result_value(j, 0, 1));
	v->matches = strcmp(rk_pg_result_value(j, 0, 2), "t") == 0;
	rk_pg_result_free(j);
	rk_pg_result_free(s);
	return 0;
}

/* Snapshot, verdict, one summary row (printed, and summary.csv rewritten). */
static int rk_lab_record(rk_lab *lab, const char *step, const char *rows_read, rk_lab_verdict *v, rk_error *err)
{
	char path[PATH_MAX];
	size_t start = lab->summary.len;
	rk_lab_verdict local;

	if (!v)
		v = &local;
	if (lab->delta && rk_lab_delta_mirror(lab->tgt, lab->table, err) < 0)
		return -1;
	if (rk_lab_snapshot(lab, step, err) < 0 || rk_lab_judge(lab, v, err) < 0)
		return -1;
	rk_buf_printf(&lab->summary, "%s,%s,%s,%s,%s,%s,%s\n", lab->engine, lab->scen->name, step,
	              rows_read ? rows_read : "", v->missing, v->duplicated, v->matches ? "yes" : "no");
	fwrite(lab->summary.data + start, 1, lab->summary.len - start, stdout);
	fflush(stdout);
	if (rk_lab_path(path, sizeof path, lab->spec->out, "summary.csv", err) < 0)
		return -1;
	return rk_lab_write_file(path, "summary", lab->summary.data, lab->summary.len, err);
}

/* ------------------------------------------------------------- steps */

typedef struct rk_lab_argv {
	char **v;
	size_t n, cap;
} rk_lab_argv;

static void rk_lab_arg(rk_lab_argv *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 32;
		a->v = rk_xrealloc(a->v, a->cap * sizeof *a->v);
	}
	a->v[a->n++] = rk_xstrdup(s);
	a->v[a->n] = NULL;
}

static void rk_lab_argv_free(rk_lab_argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof *a);
}

/*
 * Writes the engine's two conninfos into a private (0600) INI file that the
 * steps read with --config, so a password never shows in a process list.
 * A conninfo the INI syntax cannot carry (a line break: a value is one
 * line) keeps the command line instead.
 */
static void rk_lab_write_conf(rk_lab *lab)
{
	const char *conns[2] = { lab->spec->source, lab->target_conn };
	char tmp[PATH_MAX + 16];
	FILE *f;
	int fd;

	lab->conf[0] = '\0';
	for (int i = 0; i < 2; i++)
		if (strpbrk(conns[i], "\r\n"))
			return;
	if (snprintf(lab->conf, sizeof lab->conf, "%s/.reckon-lab-%s.ini", lab->spec->out, lab->engine) >=
	            (int)sizeof lab->conf ||
	    snprintf(tmp, sizeof tmp, "%s.XXXXXX", lab->conf) >= (int)sizeof tmp)
		goto fallback;
	fd = mkstemp(tmp); /* 0600 */
	if (fd < 0)
		goto fallback;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		goto fallback;
	}
	fprintf(f, "; written by reckon lab for its steps; removed when the engine's run ends\n"
	           "[reckon]\nsource = %s\ntarget = %s\n",
	        conns[0], conns[1]);
	if (fclose(f) != 0 || rename(tmp, lab->conf) != 0) {
		unlink(tmp);
		goto fallback;
	}
	return;
fallback:
	rk_log_info("lab: passing the connection strings on the steps' command lines");
	lab->conf[0] = '\0';
}

/* The table options every step shares. */
static void rk_lab_table_args(rk_lab *lab, rk_lab_argv *a, const char *cmd, bool sums)
{
	rk_lab_arg(a, "reckon");
	rk_lab_arg(a, cmd);
	for (int i = 0; i < lab->spec->verbose; i++)
		rk_lab_arg(a, "-v");
	if (lab->conf[0]) {
		/* conninfos (and their passwords) stay out of the children's argv */
		rk_lab_arg(a, "--config");
		rk_lab_arg(a, lab->conf);
	} else {
		rk_lab_arg(a, "--source");
		rk_lab_arg(a, lab->spec->source);
		rk_lab_arg(a, "--target");
		rk_lab_arg(a, lab->target_conn);
	}
	rk_lab_arg(a, "--source-table");
	rk_lab_arg(a, RK_LAB_SOURCE_TABLE);
	if (!lab->delta) {
		rk_lab_arg(a, "--target-table");
		rk_lab_arg(a, RK_LAB_TARGET_TABLE);
	}
	rk_lab_arg(a, "--key");
	rk_lab_arg(a, "txn_id");
	rk_lab_arg(a, "--time");
	rk_lab_arg(a, "updated_at");
	if (sums) {
		rk_lab_arg(a, "--sum");
		rk_lab_arg(a, "amount");
	}
	rk_lab_arg(a, "--columns");
	rk_lab_arg(a, "txn_id,updated_at,amount");
}

/* Runs one step's process and appends its command (passwords redacted),
 * outcome and output to the scenario log. */
static int rk_lab_spawn(rk_lab *lab, const char *label, rk_lab_argv *a, rk_error *err)
{
	char how[96];

	rk_buf_printf(&lab->log, "== %s: reckon", label);
	for (size_t i = 1; i < a->n; i++) {
		if (i > 1 && (strcmp(a->v[i - 1], "--source") == 0 || strcmp(a->v[i - 1], "--target") == 0)) {
			char red[1024];

			rk_pg_redact(a->v[i], red, sizeof red);
			rk_buf_printf(&lab->log, " '%s'", red);
		} else {
			rk_buf_printf(&lab->log, " %s", a->v[i]);
		}
	}
	rk_buf_putc(&lab->log, '\n');
	rk_log_info("%s %s/%s: %s", lab->engine, lab->scen->name, label, a->v[1]);
	if (rk_lab_child_run(lab->spec->reckon, a->v, &lab->child, err) < 0) {
		rk_buf_printf(&lab->log, "-> not started: %s\n", err->msg);
		return -1;
	}
	rk_lab_child_describe(&lab->child, how, sizeof how);
	rk_buf_printf(&lab->log, "-> %s\n", how);
	if (lab->child.out.len)
		rk_buf_printf(&lab->log, "stdout:\n%s%s", lab->child.out.data,
		              lab->child.out.data[lab->child.out.len - 1] == '\n' ? "" : "\n");
	if (lab->child.err.len)
		rk_buf_printf(&lab->log, "stderr:\n%s%s", lab->child.err.data,
		              lab->child.err.data[lab->child.err.len - 1] == '\n' ? "" : "\n");
	return 0;
}

/* Tells what a step said on stderr when it ended unexpectedly. */
static void rk_lab_step_failed(rk_lab *lab, const char *label, const char *expected)
{
	char how[96];

	rk_lab_child_describe(&lab->child, how, sizeof how);
	rk_log_warn("%s %s/%s: %s, expected %s%s%s", lab->engine, lab->scen->name, label, how, expected,
	            lab->child.err.len ? "; it said:\n" : "", lab->child.err.len ? lab->child.err.data : "");
}

/*
 * One load step; *rows_read receives what the process reported (owned).
 * Returns 0, 1 when the step's process did not behave as designed (logged
 * here), or -1 with err when the lab's own session failed.
 */
static int rk_lab_load_step(rk_lab *lab, const rk_lab_step *st, char **rows_read, rk_error *err)
{
	const rk_lab_scenario *sc = lab->scen;
	rk_lab_argv a = { NULL, 0, 0 };
	char label[64];
	bool ok;

	snprintf(label, sizeof label, "%02d-%s", lab->nn + 1, st->name);
	rk_lab_table_args(lab, &a, "load", false);
	rk_lab_arg(&a, "--strategy");
	rk_lab_arg(&a, rk_load_strategy_name(sc->strategy));
	if (rk_load_strategy_unsafe_reason(sc->strategy))
		rk_lab_arg(&a, "--unsafe");
	if (rk_load_strategy_has_watermark_table(sc->strategy)) {
		rk_lab_arg(&a, "--watermark-table");
		rk_lab_arg(&a, RK_LAB_WATERMARK_TABLE);
		rk_lab_arg(&a, "--load-name");
		rk_lab_arg(&a, sc->name);
	}
	if (sc->lookback) {
		rk_lab_arg(&a, "--lookback");
		rk_lab_arg(&a, RK_LAB_LOOKBACK);
	}
	if (rk_load_strategy_is_interval(sc->strategy)) {
		char ts[64];

		snprintf(ts, sizeof ts, RK_LAB_DAY "T%02d:00:00Z", 8 + st->run);
		rk_lab_arg(&a, "--interval-start");
		rk_lab_arg(&a, ts);
		snprintf(ts, sizeof ts, RK_LAB_DAY "T%02d:00:00Z", 9 + st->run);
		rk_lab_arg(&a, "--interval-end");
		rk_lab_arg(&a, ts);
		rk_lab_arg(&a, "--interval-column");
		rk_lab_arg(&a, "interval_start");
	}
	if (st->crash != RK_CRASH_NONE) {
		rk_lab_arg(&a, "--crash-at");
		rk_lab_arg(&a, rk_load_crash_name(st->crash));
	}

	if (rk_lab_commit_phases(lab, st->run, err) < 0 || rk_lab_spawn(lab, label, &a, err) < 0) {
		rk_lab_argv_free(&a);
		return -1;
	}
	rk_lab_argv_free(&a);
	/* the late session commits only once the run's process is gone */
	if (rk_lab_late_commit(lab, err) < 0)
		return -1;

	*rows_read = rk_lab_child_report_value(&lab->child, "rows_read");
	if (st->crash != RK_CRASH_NONE)
		ok = lab->child.signaled && lab->child.signo == SIGKILL;
	else
		ok = lab->child.exited && lab->child.code == 0;
	if (!ok) {
		rk_lab_step_failed(lab, label, st->crash != RK_CRASH_NONE ? "death by SIGKILL" : "exit status 0");
		return 1;
	}
	return 0;
}

/* check over [09:00, 12:00) in 1h windows; with_rerun writes rerun.csv;
 * report, when not NULL, names the directory under the scenario's that gets
 * windows.csv, findings.csv and summary.json (the likely causes).
 * Returns the child's exit status (0 match, 1 differ), or -1 when it could
 * not run at all. */
static int rk_lab_check(rk_lab *lab, const char *label, bool with_rerun, const char *report, rk_error *err)
{
	rk_lab_argv a = { NULL, 0, 0 };
	char path[PATH_MAX];
	int rc;

	rk_lab_table_args(lab, &a, "check", true);
	rk_lab_arg(&a, "--from");
	rk_lab_arg(&a, RK_LAB_CHECK_FROM);
	rk_lab_arg(&a, "--to");
	rk_lab_arg(&a, RK_LAB_CHECK_TO);
	rk_lab_arg(&a, "--window");
	rk_lab_arg(&a, "1h");
	rk_lab_arg(&a, "--now");
	rk_lab_arg(&a, RK_LAB_CHECK_NOW);
	if (with_rerun) {
		if (rk_lab_path(path, sizeof path, lab->dir, "rerun.csv", err) < 0) {
			rk_lab_argv_free(&a);
			return -1;
		}
		rk_lab_arg(&a, "--rerun-list");
		rk_lab_arg(&a, path);
	}
	if (report) {
		if (rk_lab_path(path, sizeof path, lab->dir, report, err) < 0) {
			rk_lab_argv_free(&a);
			return -1;
		}
		rk_lab_arg(&a, "--report");
		rk_lab_arg(&a, path);
	}
	rc = rk_lab_spawn(lab, label, &a, err);
	rk_lab_argv_free(&a);
	if (rc < 0)
		return -1;
	if (!lab->child.exited || lab->child.code > 1) {
		rk_lab_step_failed(lab, label, "exit status 0 or 1");
		return -1;
	}
	return lab->child.code;
}

static int rk_lab_repair(rk_lab *lab, const char *label, rk_error *err)
{
	rk_lab_argv a = { NULL, 0, 0 };
	char path[PATH_MAX];
	int rc;

	if (rk_lab_path(path, sizeof path, lab->dir, "rerun.csv", err) < 0)
		return -1;
	rk_lab_table_args(lab, &a, "repair", true);
	rk_lab_arg(&a, "--rerun-list");
	rk_lab_arg(&a, path);
	rk_lab_arg(&a, "--execute");
	if (rk_load_strategy_is_interval(lab->scen->strategy)) {
		/* the loads' intervals are the hours: repair records the one the
		 * load would have */
		rk_lab_arg(&a, "--interval-column");
		rk_lab_arg(&a, "interval_start");
		rk_lab_arg(&a, "--load-interval");
		rk_lab_arg(&a, "1h");
	}
	rc = rk_lab_spawn(lab, label, &a, err);
	rk_lab_argv_free(&a);
	if (rc < 0)
		return -1;
	if (!lab->child.exited || lab->child.code != 0) {
		rk_lab_step_failed(lab, label, "exit status 0");
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------- scenarios */

static int rk_lab_mkdirs(rk_lab *lab, rk_error *err)
{
	char p[PATH_MAX];

	if (rk_afile_mkdir(lab->spec->out, "lab output directory", err) < 0 ||
	    rk_lab_path(p, sizeof p, lab->spec->out, lab->engine, err) < 0 ||
	    rk_afile_mkdir(p, "lab output directory", err) < 0 ||
	    rk_lab_path(lab->dir, sizeof lab->dir, p, lab->scen->name, err) < 0 ||
	    rk_afile_mkdir(lab->dir, "lab output directory", err) < 0)
		return -1;
	rk_lab_clean_dir(lab->dir);
	if (!lab->delta)
		return 0;
	/* the Delta table: --delta-dir DIR/<scenario>, or OUT/delta/<scenario>/table */
	if (lab->spec->delta_dir && *lab->spec->delta_dir) {
		if (rk_afile_mkdir(lab->spec->delta_dir, "Delta directory", err) < 0 ||
		    rk_lab_path(lab->table, sizeof lab->table, lab->spec->delta_dir, lab->scen->name, err) < 0)
			return -1;
	} else if (rk_lab_path(lab->table, sizeof lab->table, lab->dir, "table", err) < 0) {
		return -1;
	}
	snprintf(lab->delta_conn, sizeof lab->delta_conn, "delta:%s", lab->table);
	lab->target_conn = lab->delta_conn;
	rk_lab_write_conf(lab);
	return 0;
}

/* Runs one scenario on the current engine.  Errors of the lab's own
 * sessions and files are returned; a step that misbehaves is logged and
 * recorded in lab->status, and the scenario goes on where that makes sense. */
static int rk_lab_run_scenario(rk_lab *lab, rk_error *err)
{
	const rk_lab_scenario *sc = lab->scen;
	rk_lab_verdict v;
	char path[PATH_MAX];
	int rc = 0, chk;
	rk_error step_err;

	lab->nn = 0;
	rk_buf_reset(&lab->log);
	if (rk_lab_mkdirs(lab, err) < 0 || rk_lab_setup(lab, err) < 0)
		return -1;

	for (const rk_lab_step *st = sc->steps; st->name; st++) {
		char *rows_read = NULL;

		rc = rk_lab_load_step(lab, st, &rows_read, err);
		if (rc != 0) {
			free(rows_read);
			if (rc > 0) {
				/* later steps would build on a broken one */
				rk_log_warn("%s %s: scenario abandoned at step %s", lab->engine, sc->name, st->name);
				rk_lab_worse(lab, RK_EXIT_RUNTIME);
				rc = 0;
			}
			goto out;
		}
		rc = rk_lab_record(lab, st->name, rows_read ? rows_read : "", NULL, err);
		free(rows_read);
		if (rc < 0)
			goto out;
		if (sc->diagnose_after && strcmp(sc->diagnose_after, st->name) == 0) {
			char label[64];

			snprintf(label, sizeof label, "check-after-%s", st->name);
			rk_error_clear(&step_err);
			if (rk_lab_check(lab, label, false, label, &step_err) < 0) {
				if (step_err.code)
					rk_log_error(&step_err);
				rk_lab_worse(lab, RK_EXIT_RUNTIME);
			}
		}
	}

	/* the checker sees what the steps left; repair fixes it; check again */
	rk_error_clear(&step_err);
	chk = rk_lab_check(lab, "check", true, "check", &step_err);
	if (chk < 0) {
		if (step_err.code)
			rk_log_error(&step_err);
		rk_lab_worse(lab, RK_EXIT_RUNTIME);
	}
	rk_error_clear(&step_err);
	if (rk_lab_repair(lab, "repair", &step_err) < 0) {
		if (step_err.code)
			rk_log_error(&step_err);
		rk_lab_worse(lab, RK_EXIT_RUNTIME);
	}
	if ((rc = rk_lab_record(lab, "repair", NULL, NULL, err)) < 0)
		goto out;
	rk_error_clear(&step_err);
	chk = rk_lab_check(lab, "recheck", false, NULL, &step_err);
	if (chk < 0) {
		if (step_err.code)
			rk_log_error(&step_err);
		rk_lab_worse(lab, RK_EXIT_RUNTIME);
	}
	if ((rc = rk_lab_record(lab, "recheck", NULL, &v, err)) < 0)
		goto out;
	if (!v.matches || chk == 1) {
		rk_log_warn("%s %s: the target still differs from the source after repair (check exit %d)", lab->engine,
		            sc->name, chk);
		rk_lab_worse(lab, RK_EXIT_DIFFER);
	}
	/* engine delta: the commits the steps made, from the table's log */
	if (lab->delta && (rk_lab_path(path, sizeof path, lab->dir, "history.csv", err) < 0 ||
	                   rk_lab_delta_history(lab->table, path, err) < 0))
		rc = -1;
out:
	if (lab->late) {
		rk_pg_close(lab->late); /* a scenario that failed midway */
		lab->late = NULL;
	}
	if (rk_lab_path(path, sizeof path, lab->dir, "steps.log", &step_err) == 0 &&
	    rk_lab_write_file(path, "step log", lab->log.data ? lab->log.data : "", lab->log.len, &step_err) < 0) {
		rk_log_error(&step_err);
		rk_lab_worse(lab, RK_EXIT_RUNTIME);
	}
	return rc;
}

/* Runs the selected scenarios of one engine. */
static int rk_lab_engine(rk_lab *lab, unsigned engine, rk_error *err)
{
	const rk_lab_spec *s = lab->spec;
	int rc = 0;

	lab->engine = engine == RK_LAB_SPLIT ? "split" : engine == RK_LAB_DELTA ? "delta"
	                                                                        : "postgres";
	lab->delta = engine == RK_LAB_DELTA;
	if (!(lab->src = rk_pg_connect(s->source, "source", err)))
		return -1;
	if (rk_pg_exec(lab->src, "quiet notices", rk_sql_lab_quiet, 0, NULL, RK_PG_ONE_ROW, NULL, err) < 0) {
		rk_pg_close(lab->src);
		lab->src = NULL;
		return -1;
	}
	if (engine == RK_LAB_SPLIT) {
		bool same = true;

		if (!(lab->tgt = rk_pg_connect(s->target, "target", err)) ||
		    rk_pg_exec(lab->tgt, "quiet notices", rk_sql_lab_quiet, 0, NULL, RK_PG_ONE_ROW, NULL, err) < 0 ||
		    rk_load_same_database(lab->src, lab->tgt, &same, err) < 0) {
			rc = -1;
			goto out;
		}
		if (same) {
			rk_error_set(err, RK_EXIT_USAGE, "engine split needs --target in another database than --source");
			rk_error_hint(err, "create a second database (createdb reckon_lab_target) and point --target at it");
			rc = -1;
			goto out;
		}
		lab->target_conn = s->target;
	} else {
		lab->tgt = lab->src;
		lab->target_conn = s->source;
	}
	if (!lab->delta)
		rk_lab_write_conf(lab); /* delta: per scenario, each has its table */
	for (size_t i = 0; i < RK_LAB_NSCENARIOS && rc == 0; i++) {
		lab->scen = &rk_lab_scenarios[i];
		if (!(lab->scen->engines & engine) || (strcmp(s->scenario, "all") != 0 && strcmp(s->scenario, lab->scen->name) != 0))
			continue;
		rc = rk_lab_run_scenario(lab, err);
	}
	/* leave the databases as the last scenario ended: the tables stay for a look */
out:
	if (lab->conf[0])
		unlink(lab->conf);
	lab->conf[0] = '\0';
	if (lab->tgt != lab->src)
		rk_pg_close(lab->tgt);
	rk_pg_close(lab->src);
	lab->src = lab->tgt = NULL;
	return rc;
}

int rk_lab_run(const rk_lab_spec *spec, rk_error *err)
{
	rk_lab lab;
	unsigned engines = 0, supported = RK_LAB_POSTGRES | RK_LAB_SPLIT | RK_LAB_DELTA;
	char path[PATH_MAX];
	int rc = 0;

	if (strcmp(spec->engine, "postgres") == 0)
		engines = RK_LAB_POSTGRES;
	else if (strcmp(spec->engine, "split") == 0)
		engines = RK_LAB_SPLIT;
	else if (strcmp(spec->engine, "delta") == 0)
		engines = RK_LAB_DELTA;
	else if (strcmp(spec->engine, "all") == 0)
		engines = RK_LAB_POSTGRES | RK_LAB_SPLIT | RK_LAB_DELTA;
	else {
		rk_error_set(err, RK_EXIT_USAGE, "unknown engine \"%s\" for --engine", spec->engine);
		rk_error_hint(err, "one of postgres, split, delta, all");
		return RK_EXIT_USAGE;
	}
	if (strcmp(spec->scenario, "all") != 0) {
		if (!rk_lab_scenario_exists(spec->scenario)) {
			rk_error_set(err, RK_EXIT_USAGE, "unknown scenario \"%s\" for --scenario", spec->scenario);
			rk_error_hint(err, "one of watermark-first, write-first-append, write-first-keyed, one-transaction, "
			                   "late-commit, lookback, interval, interval-closed, target-watermark, all");
			return RK_EXIT_USAGE;
		}
		for (size_t i = 0; i < RK_LAB_NSCENARIOS; i++)
			if (strcmp(rk_lab_scenarios[i].name, spec->scenario) == 0)
				supported = rk_lab_scenarios[i].engines;
		if (!(supported & engines)) {
			rk_error_set(err, RK_EXIT_USAGE, "scenario %s does not run on engine %s", spec->scenario,
			             spec->engine);
			rk_error_hint(err, "it runs on engine%s%s%s%s", (supported & (supported - 1)) ? "s" : "",
			              supported & RK_LAB_POSTGRES ? " postgres" : "", supported & RK_LAB_SPLIT ? " split" : "",
			              supported & RK_LAB_DELTA ? " delta" : "");
			return RK_EXIT_USAGE;
		}
		engines &= supported;
	}
	if ((engines & RK_LAB_SPLIT) && (!spec->target || !*spec->target)) {
		if (strcmp(spec->engine, "split") == 0 || engines == RK_LAB_SPLIT) {
			rk_error_set(err, RK_EXIT_USAGE, "engine split needs --target (a second database)");
			return RK_EXIT_USAGE;
		}
		rk_log_warn("no --target: skipping engine split (it needs a second database)");
		engines &= ~(unsigned)RK_LAB_SPLIT;
	}

	memset(&lab, 0, sizeof lab);
	lab.spec = spec;
	lab.child = (rk_lab_child)RK_LAB_CHILD_INIT;
	rk_buf_puts(&lab.summary, rk_lab_summary_header);
	fputs(rk_lab_summary_header, stdout);
	if (rk_afile_mkdir(spec->out, "lab output directory", err) < 0 ||
	    rk_lab_path(path, sizeof path, spec->out, "summary.csv", err) < 0 ||
	    rk_lab_write_file(path, "summary", lab.summary.data, lab.summary.len, err) < 0)
		rc = -1;
	if (rc == 0 && (engines & RK_LAB_POSTGRES))
		rc = rk_lab_engine(&lab, RK_LAB_POSTGRES, err);
	if (rc == 0 && (engines & RK_LAB_SPLIT))
		rc = rk_lab_engine(&lab, RK_LAB_SPLIT, err);
	if (rc == 0 && (engines & RK_LAB_DELTA))
		rc = rk_lab_engine(&lab, RK_LAB_DELTA, err);
	if (rc == 0)
		rk_log_info("lab summary written to %s", path);
	rk_buf_free(&lab.summary);
	rk_buf_free(&lab.log);
	rk_lab_child_free(&lab.child);
	if (rc < 0)
		return err->code ? err->code : RK_EXIT_RUNTIME;
	return lab.status;
}
