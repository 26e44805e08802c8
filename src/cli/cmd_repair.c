/*
 * cmd_repair.c - reckon repair: a rerun list and the table options to a
 * repair spec, run, the per-interval table (or JSON) on stdout, and with
 * --audit the run recorded in the audit trail, also when it stopped part way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/tableopts.h"
#include "core/buf.h"
#include "core/log.h"
#include "load/repair.h"
#include "report/audit.h"
#include "report/rerun.h"
#include "report/audit.h"

typedef struct rk_repair_totals {
	size_t done, match, differ;
	uint64_t deleted_by_time, deleted_by_key, inserted;
} rk_repair_totals;

static void rk_repair_sum(const rk_repair_interval *iv, size_t n, rk_repair_totals *t)
{
	memset(t, 0, sizeof *t);
	for (size_t i = 0; i < n; i++) {
		if (rk_repair_state_done(iv[i].state))
			t->done++;
		if (iv[i].state == RK_REPAIR_MATCH)
			t->match++;
		if (iv[i].state == RK_REPAIR_DIFFER)
			t->differ++;
		if (iv[i].state == RK_REPAIR_PLANNED || rk_repair_state_done(iv[i].state)) {
			t->deleted_by_time += iv[i].deleted_by_time;
			t->deleted_by_key += iv[i].deleted_by_key;
			t->inserted += iv[i].inserted;
		}
	}
}

/* The rerun list's damage counts of one interval: "missing 1, extra 2" or "-". */
static void rk_repair_damage(rk_buf *b, const rk_rerun_interval *li)
{
	static const char *const names[] = {"missing", "extra", "duplicated", "changed"};
	static const int idx[] = {RK_RERUN_MISSING, RK_RERUN_EXTRA, RK_RERUN_DUPLICATED, RK_RERUN_CHANGED};
	size_t mark = b->len;

	for (size_t k = 0; k < 4; k++)
		if (li->count[idx[k]])
			rk_buf_printf(b, "%s%s %llu", b->len > mark ? ", " : "", names[k],
			              (unsigned long long)li->count[idx[k]]);
	if (b->len == mark)
		rk_buf_putc(b, '-');
}

static void rk_repair_text(FILE *out, const rk_rerun_list *l, const rk_repair_interval *iv, size_t n,
                           bool execute, bool complete)
{
	rk_repair_totals t;
	rk_buf cell = RK_BUF_INIT;

	rk_repair_sum(iv, n, &t);
	if (n == 0) {
		fprintf(out, "nothing to repair: the rerun list %s holds no interval\n", l->name);
		return;
	}
	fprintf(out, "%-46s  %-13s  %-13s  %-9s  %-13s  %-10s  %s\n", "interval", "before s/t",
	        execute ? "deleted t+k" : "delete t+k", execute ? "inserted" : "insert", "after s/t", "status",
	        "damage listed");
	for (size_t i = 0; i < n; i++) {
		char a[RK_TIME_STRLEN], z[RK_TIME_STRLEN];
		const rk_repair_interval *v = &iv[i];
		bool counted = v->state == RK_REPAIR_PLANNED || rk_repair_state_done(v->state);
		bool after = v->state == RK_REPAIR_MATCH || v->state == RK_REPAIR_DIFFER;

		rk_buf_reset(&cell);
		rk_buf_printf(&cell, "[%s, %s)", rk_time_format(v->start, a), rk_time_format(v->end, z));
		fprintf(out, "%-46s  ", rk_buf_cstr(&cell));
		rk_buf_reset(&cell);
		rk_buf_printf(&cell, "%llu/%llu", (unsigned long long)l->items[i].count[RK_RERUN_SOURCE_ROWS],
		              (unsigned long long)l->items[i].count[RK_RERUN_TARGET_ROWS]);
		fprintf(out, "%-13s  ", rk_buf_cstr(&cell));
		rk_buf_reset(&cell);
		if (counted)
			rk_buf_printf(&cell, "%llu+%llu", (unsigned long long)v->deleted_by_time,
			              (unsigned long long)v->deleted_by_key);
		else
			rk_buf_putc(&cell, '-');
		fprintf(out, "%-13s  ", rk_buf_cstr(&cell));
		rk_buf_reset(&cell);
		if (counted)
			rk_buf_printf(&cell, "%llu", (unsigned long long)v->inserted);
		else
			rk_buf_putc(&cell, '-');
		fprintf(out, "%-9s  ", rk_buf_cstr(&cell));
		rk_buf_reset(&cell);
		if (after)
			rk_buf_printf(&cell, "%llu/%llu", (unsigned long long)v->after_source_rows,
			              (unsigned long long)v->after_target_rows);
		else
			rk_buf_putc(&cell, '-');
		fprintf(out, "%-13s  %-10s  ", rk_buf_cstr(&cell), rk_repair_state_name(v->state));
		rk_buf_reset(&cell);
		rk_repair_damage(&cell, &l->items[i]);
		fprintf(out, "%s\n", rk_buf_cstr(&cell));
	}
	rk_buf_free(&cell);
	fprintf(out, "(s/t: source/target rows in the interval, before as the rerun list says; t+k: target rows "
	             "deleted by time + by key)\n");
	if (!execute) {
		fprintf(out, "dry run: %zu interval%s; would delete %llu target rows (%llu by time, %llu by key) and "
		             "insert %llu source rows; nothing was changed (add --execute to repair)\n",
		        n, n == 1 ? "" : "s", (unsigned long long)(t.deleted_by_time + t.deleted_by_key),
		        (unsigned long long)t.deleted_by_time, (unsigned long long)t.deleted_by_key,
		        (unsigned long long)t.inserted);
		return;
	}
	fprintf(out, "repaired %zu of %zu interval%s: deleted %llu target row%s (%llu by time, %llu by key), "
	             "inserted %llu; %zu match%s", t.done, n, n == 1 ? "" : "s",
	        (unsigned long long)(t.deleted_by_time + t.deleted_by_key),
	        t.deleted_by_time + t.deleted_by_key == 1 ? "" : "s", (unsigned long long)t.deleted_by_time,
	        (unsigned long long)t.deleted_by_key, (unsigned long long)t.inserted, t.match,
	        t.match == 1 ? "es" : "");
	if (t.differ)
		fprintf(out, ", %zu still differ%s", t.differ, t.differ == 1 ? "s" : "");
	fprintf(out, "%s\n", complete ? "" : " (stopped by an error)");
}

/* The run's verdict, as --format json and the audit trail say it. */
static const char *rk_repair_verdict(const rk_repair_interval *iv, size_t n, bool execute, bool complete)
{
	rk_repair_totals t;

	rk_repair_sum(iv, n, &t);
	if (!complete)
		return "failed";
	if (!execute)
		return "planned";
	return t.match == n ? "match" : "differ";
}

/* reckon.repair_interval.status of a state (docs/audit.md maps them to the
 * words of reckon repair's own output). */
static const char *rk_repair_audit_status(rk_repair_state s)
{
	switch (s) {
	case RK_REPAIR_PENDING: return "not_started";
	case RK_REPAIR_FAILED: return "not_changed";
	case RK_REPAIR_UNKNOWN: return "unknown";
	case RK_REPAIR_PLANNED: return "planned";
	case RK_REPAIR_COMMITTED: return "replaced";
	case RK_REPAIR_MATCH: return "verified";
	case RK_REPAIR_DIFFER: return "differ";
	}
	return "unknown";
}

/* One interval as the audit trail records it. */
static void rk_repair_audit_interval(const rk_rerun_interval *li, const rk_repair_interval *v, rk_audit_interval *a)
{
	static const int before[6] = {RK_RERUN_SOURCE_ROWS, RK_RERUN_TARGET_ROWS, RK_RERUN_MISSING, RK_RERUN_EXTRA,
	                              RK_RERUN_DUPLICATED, RK_RERUN_CHANGED};

	memset(a, 0, sizeof *a);
	a->start = v->start;
	a->end = v->end;
	a->status = rk_repair_audit_status(v->state);
	for (int k = 0; k < 6; k++)
		a->before[k] = li->count[before[k]];
	/* what the run did to it: a dry run's counts are what it would do; a
	 * COMMIT lost on the wire leaves what the transaction had done */
	a->counted = v->state == RK_REPAIR_PLANNED || v->state == RK_REPAIR_UNKNOWN || rk_repair_state_done(v->state);
	a->source_rows = v->source_rows;
	a->deleted_by_time = v->deleted_by_time;
	a->deleted_by_key = v->deleted_by_key;
	a->inserted = v->inserted;
	if (v->state == RK_REPAIR_MATCH || v->state == RK_REPAIR_DIFFER) {
		a->after = v->state == RK_REPAIR_MATCH ? "match" : "differ";
		a->after_source_rows = v->after_source_rows;
		a->after_target_rows = v->after_target_rows;
	}
}

static void rk_json_time(FILE *out, const char *name, rk_usec t)
{
	char a[RK_TIME_STRLEN];

	fprintf(out, "\"%s\":\"%s\"", name, rk_time_format(t, a));
}

/* Every value is a number, an instant or one of a few fixed words, so the
 * JSON needs no string escaping. */
static void rk_repair_json(FILE *out, const rk_rerun_list *l, const rk_repair_interval *iv, size_t n,
                           bool execute, bool complete)
{
	rk_repair_totals t;
	const char *verdict;

	rk_repair_sum(iv, n, &t);
	verdict = rk_repair_verdict(iv, n, execute, complete);
	fprintf(out, "{\"mode\":\"%s\",\"complete\":%s,\"verdict\":\"%s\",\"intervals\":[", execute ? "execute" : "dry-run",
	        complete ? "true" : "false", verdict);
	for (size_t i = 0; i < n; i++) {
		const rk_repair_interval *v = &iv[i];
		const uint64_t *c = l->items[i].count;

		fprintf(out, "%s{", i ? "," : "");
		rk_json_time(out, "interval_start", v->start);
		fputc(',', out);
		rk_json_time(out, "interval_end", v->end);
		fprintf(out, ",\"status\":\"%s\",\"before\":{\"source_rows\":%llu,\"target_rows\":%llu,\"missing\":%llu,"
		             "\"extra\":%llu,\"duplicated\":%llu,\"changed\":%llu}",
		        rk_repair_state_name(v->state), (unsigned long long)c[RK_RERUN_SOURCE_ROWS],
		        (unsigned long long)c[RK_RERUN_TARGET_ROWS], (unsigned long long)c[RK_RERUN_MISSING],
		        (unsigned long long)c[RK_RERUN_EXTRA], (unsigned long long)c[RK_RERUN_DUPLICATED],
		        (unsigned long long)c[RK_RERUN_CHANGED]);
		fprintf(out, ",\"source_rows\":%llu,\"deleted_by_time\":%llu,\"deleted_by_key\":%llu,\"inserted\":%llu",
		        (unsigned long long)v->source_rows, (unsigned long long)v->deleted_by_time,
		        (unsigned long long)v->deleted_by_key, (unsigned long long)v->inserted);
		if (v->state == RK_REPAIR_MATCH || v->state == RK_REPAIR_DIFFER)
			fprintf(out, ",\"after\":{\"source_rows\":%llu,\"target_rows\":%llu}}",
			        (unsigned long long)v->after_source_rows, (unsigned long long)v->after_target_rows);
		else
			fprintf(out, ",\"after\":null}");
	}
	fprintf(out, "],\"totals\":{\"intervals\":%zu,\"repaired\":%zu,\"match\":%zu,\"differ\":%zu,"
	             "\"deleted_by_time\":%llu,\"deleted_by_key\":%llu,\"inserted\":%llu}}\n",
	        n, t.done, t.match, t.differ, (unsigned long long)t.deleted_by_time,
	        (unsigned long long)t.deleted_by_key, (unsigned long long)t.inserted);
}

int rk_cmd_repair(int argc, char **argv)
{
	rk_opts o;
	rk_error err, aerr;
	rk_repair_spec spec;
	rk_rerun_list *list = NULL;
	rk_repair_interval *iv = NULL;
	bool json = false, ran = false, complete = false, failed = false;
	int status = RK_EXIT_OK;

	rk_error_clear(&err);
	rk_error_clear(&aerr);
	memset(&spec, 0, sizeof spec);
	if (rk_opts_parse(&o, RK_CMD_REPAIR, argc, argv, &err) < 0)
		goto fail;
	if (o.help) {
		rk_opts_usage(RK_CMD_REPAIR);
		rk_opts_free(&o);
		return RK_EXIT_OK;
	}
	rk_log_level = o.verbose;
	if (o.args.n) {
		rk_error_set(&err, RK_EXIT_USAGE, "unexpected argument '%s'", o.args.items[0]);
		rk_error_hint(&err, "the rerun list is given with --rerun-list FILE; see 'reckon repair --help'");
		goto fail;
	}
	if (rk_opts_require(&o, RK_O_RERUN_LIST, &err) < 0 || rk_tableopts_pair(&o, &spec.check, &err) < 0)
		goto fail;
	json = o.format == RK_OPT_FORMAT_JSON;
	spec.check.leaf_rows = RK_CHECK_LEAF_ROWS;
	spec.interval_column = o.interval_column;
	spec.execute = o.execute;

	if (rk_rerun_read(o.rerun_list, &list, &err) < 0)
		goto fail;
	iv = rk_xcalloc(list->n ? list->n : 1, sizeof *iv);
	for (size_t i = 0; i < list->n; i++) {
		iv[i].start = list->items[i].start;
		iv[i].end = list->items[i].end;
	}
	/* an audited repair is not done unrecorded: the audit database must be
	 * usable before the target is touched (it is written after the run) */
	if (o.audit && rk_audit_prepare(o.audit, &err) < 0) {
		char hint[sizeof err.hint];

		memcpy(hint, err.hint, sizeof hint);
		rk_error_prefix(&err, "repair not started");
		rk_error_hint(&err, "%s; or run without --audit to repair unrecorded",
		              hint[0] ? hint : "fix the --audit database");
		goto fail;
	}
	ran = true;
	if (rk_repair_run(&spec, iv, list->n, &err) < 0)
		goto fail;
	complete = true;
	for (size_t i = 0; i < list->n; i++)
		if (iv[i].state != RK_REPAIR_MATCH && iv[i].state != RK_REPAIR_PLANNED)
			status = RK_EXIT_DIFFER;
	goto output;
fail:
	failed = true;
	status = err.code ? err.code : RK_EXIT_RUNTIME;
output:
	/* what was done is a result even when the run stopped part way */
	if (ran && (complete || spec.execute)) {
		bool any = complete;

		for (size_t i = 0; i < list->n && !any; i++)
			any = iv[i].state != RK_REPAIR_PENDING;
		if (any) {
			if (json)
				rk_repair_json(stdout, list, iv, list->n, spec.execute, complete);
			else
				rk_repair_text(stdout, list, iv, list->n, spec.execute, complete);
			if (fflush(stdout) != 0 && !failed) {
				rk_error_set(&err, RK_EXIT_RUNTIME, "cannot write to standard output");
				failed = true;
				status = RK_EXIT_RUNTIME;
			}
		}
	}
	if (failed)
		rk_log_error(&err);
	/* the run is recorded whatever its outcome: the intervals done and not
	 * done are what whoever picks it up needs.  An audit failure does not
	 * hide the repair's own outcome (above); the exit status is the higher
	 * of the two (docs/audit.md). */
	if (ran && o.audit) {
		rk_audit_interval *ai = rk_xcalloc(list->n ? list->n : 1, sizeof *ai);
		rk_audit_repair ar;
		rk_opts_record rec;

		for (size_t i = 0; i < list->n; i++)
			rk_repair_audit_interval(&list->items[i], &iv[i], &ai[i]);
		memset(&ar, 0, sizeof ar);
		ar.source = &spec.check.source;
		ar.target = &spec.check.target;
		ar.key = spec.check.key;
		ar.nkey = spec.check.nkey;
		ar.sum = spec.check.sum;
		ar.nsum = spec.check.nsum;
		ar.iv = ai;
		ar.n = list->n;
		ar.verdict = rk_repair_verdict(iv, list->n, spec.execute, complete);
		ar.exit_status = status;
		ar.error = failed ? err.msg : NULL;
		rk_opts_audit(&o, &rec);
		if (rk_audit_record_repair(o.audit, &rec.options, &ar, &aerr) < 0) {
			rk_log_error(&aerr);
			if (aerr.code > status)
				status = aerr.code;
		}
		rk_opts_record_free(&rec);
		free(ai);
	}
	free(iv);
	rk_rerun_free(list);
	rk_opts_free(&o);
	return status;
}
