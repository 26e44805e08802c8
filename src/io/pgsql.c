/*
 * pgsql.c - the SQL text of a PostgreSQL reader's scans and pushdown
 * statements (pgreader_impl.h), built from the relation and its bound
 * columns alone: nothing here talks to the server, so tests/unit/test_pgsql.c
 * holds each statement's exact text.
 *
 * COPY takes no parameters, so the bounds of a scan are formatted by reckon
 * and quoted as literals; identifiers come quoted from the reader (bind).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/digest.h"
#include "core/log.h"
#include "core/timeutil.h"
#include "io/pgreader_impl.h"

void rk_pgsql_literal(rk_buf *sql, const char *v)
{
	/* with standard_conforming_strings either way (PQescapeLiteral), and
	 * a blank before E so that it cannot run into a preceding word */
	if (strchr(v, '\\'))
		rk_buf_puts(sql, " E");
	rk_buf_putc(sql, '\'');
	for (; *v; v++) {
		if (*v == '\'' || *v == '\\')
			rk_buf_putc(sql, *v);
		rk_buf_putc(sql, *v);
	}
	rk_buf_putc(sql, '\'');
}

static bool rk_pgsql_has_time_type(rk_type t)
{
	return t == RK_T_TIMESTAMPTZ || t == RK_T_TIMESTAMP || t == RK_T_DATE;
}

/* Appends "<col> <op> '<instant>'::<cast>". */
static void rk_pgsql_bound(rk_buf *sql, const char *col, const char *op, rk_usec t, bool with_zone)
{
	char text[RK_TIME_STRLEN];

	rk_buf_printf(sql, "%s %s ", col, op);
	rk_pgsql_literal(sql, rk_time_format_sql(t, with_zone, text));
	rk_buf_printf(sql, "::%s", with_zone ? "timestamptz" : "timestamp");
}

/* Appends the condition "point of <col> <op> m" of key segments as one on
 * the key column itself (core/keyspace.h): integers by value, uuids as
 * uuids, texts as their UTF-8 bytes (as COLLATE "C" orders them, whatever
 * the column's collation). */
static void rk_pgsql_key_bound(const rk_pgreader *r, rk_buf *sql, const char *col, const char *op, rk_usec m)
{
	rk_buf v = RK_BUF_INIT, hex = RK_BUF_INIT;
	rk_ks_bound b = rk_keyspace_bound(r->ks, m, &v);

	if (b != RK_KSB_VALUE) {
		rk_buf_puts(sql, (b == RK_KSB_ALL) == (op[0] == '>') ? "true" : "false");
		rk_buf_free(&v);
		return;
	}
	if (r->ks->kind == RK_KS_TEXT) {
		rk_buf_puts(&hex, "\\x");
		for (size_t i = 0; i < v.len; i++)
			rk_buf_printf(&hex, "%02x", (unsigned char)v.data[i]);
		rk_buf_printf(sql, "convert_to(%s, 'UTF8') %s ", col, op);
		rk_pgsql_literal(sql, rk_buf_cstr(&hex));
		rk_buf_puts(sql, "::bytea");
	} else {
		rk_buf_printf(sql, "%s %s ", col, op);
		rk_pgsql_literal(sql, rk_buf_cstr(&v));
		rk_buf_printf(sql, "::%s", r->ks->kind == RK_KS_UUID ? "uuid" : "bigint");
	}
	rk_buf_free(&v);
	rk_buf_free(&hex);
}

/* Appends "(<key hash> & mask) = hval" for keybits kb (reckon extension 1.3). */
static void rk_pgsql_keybits(const rk_pgreader *r, rk_buf *sql, const rk_scan *scan, const rk_keybits *kb)
{
	uint64_t mask = kb->bits >= 64 ? UINT64_MAX : (UINT64_C(1) << kb->bits) - 1;

	rk_buf_printf(sql, "(%s.reckon_key_hash(", r->digest_schema);
	for (size_t i = 0; i < scan->nkey; i++)
		rk_buf_printf(sql, "%s%s", i ? ", " : "", r->quoted[scan->key_index[i]]);
	rk_buf_printf(sql, ") & (%lld)::pg_catalog.int8) = (%lld)::pg_catalog.int8", (long long)(int64_t)mask,
	              (long long)(int64_t)kb->hval);
}

/* Whether s is valid UTF-8 (a key read from CSV data need not be, and the
 * database would refuse the statement). */
static bool rk_pgsql_utf8(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *e = p + n;

	while (p < e) {
		size_t k = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1
		                   : (*p & 0xF0) == 0xE0       ? 2
		                   : (*p & 0xF8) == 0xF0       ? 3
		                                               : 4;

		if (k == 4 || (k == 1 && *p < 0xC2) || (size_t)(e - p) <= k)
			return false;
		for (size_t i = 1; i <= k; i++)
			if ((p[i] & 0xC0) != 0x80)
				return false;
		p += k + 1;
	}
	return true;
}

/*
 * The literal text of key text v for column c, into out: a value the
 * column's input function reads back as the key's value, checked to be one
 * (a key from the other side may hold what this column cannot: then no
 * row here holds it, and false says to ask without keys).  Timestamps come
 * as findings show them (ISO-8601 in UTC) and go back as the bounds do.
 */
static bool rk_pgsql_key_literal(const rk_pgreader *r, size_t c, const char *v, rk_buf *out)
{
	size_t n = strlen(v);
	char tmp[RK_TIME_STRLEN], *end;
	const char *why;
	rk_wusec t;
	long long x;

	rk_buf_reset(out);
	switch (r->types[c]) {
	case RK_T_INT2:
	case RK_T_INT4:
	case RK_T_INT8:
		x = strtoll(v, &end, 10);
		if (!n || *end || (r->types[c] == RK_T_INT2 && (x < INT16_MIN || x > INT16_MAX)) ||
		    (r->types[c] == RK_T_INT4 && (x < INT32_MIN || x > INT32_MAX)))
			return false;
		break;
	case RK_T_NUMERIC:
		if (strcmp(v, "NaN") && strcmp(v, "Infinity") && strcmp(v, "-Infinity") &&
		    (!n || strspn(v, "-.0123456789") != n))
			return false;
		break;
	case RK_T_BOOL:
		if (strcmp(v, "t") && strcmp(v, "f"))
			return false;
		break;
	case RK_T_UUID:
		if (n != 36 || strspn(v, "0123456789abcdef-") != n)
			return false;
		break;
	case RK_T_DATE:
		if (strcmp(v, "infinity") && strcmp(v, "-infinity") && (n < 10 || strspn(v, "0123456789- BC") != n))
			return false;
		break;
	case RK_T_TIMESTAMP:
	case RK_T_TIMESTAMPTZ:
		if (rk_time_parse_wide(v, n, false, &t, &why) < 0)
			return false;
		v = rk_time_format_sql_wide(t, r->types[c] == RK_T_TIMESTAMPTZ, tmp);
		break;
	case RK_T_TEXT:
	case RK_T_BPCHAR:
		if (!rk_pgsql_utf8(v, n))
			return false;
		break;
	default:
		/* "=" of another type need not hold for equal text */
		return false;
	}
	rk_buf_puts(out, v);
	return true;
}

/*
 * Appends "(k1 = '...' AND k2 IS NULL) OR ..." selecting scan's keys to
 * out, or nothing (returns false) when they cannot be asked for by value.
 */
static bool rk_pgsql_keys(const rk_pgreader *r, const rk_scan *scan, rk_buf *out)
{
	rk_buf lit = RK_BUF_INIT;
	bool ok = true;

	if (!scan->key_text || !scan->nkeys || !scan->nkey || scan->nkeys > RK_PGREADER_MAX_KEYS)
		return false;
	for (size_t k = 0; k < scan->nkeys && ok; k++) {
		rk_buf_puts(out, k ? " OR (" : "(");
		for (size_t i = 0; i < scan->nkey && ok; i++) {
			size_t c = scan->key_index[i];
			const char *v = scan->key_text[k * scan->nkey + i];

			if (i)
				rk_buf_puts(out, " AND ");
			if (!v) {
				rk_buf_printf(out, "(%s) IS NULL", r->quoted[c]);
				continue;
			}
			if (!rk_pgsql_key_literal(r, c, v, &lit)) {
				ok = false;
				break;
			}
			rk_buf_printf(out, "(%s) = ", r->quoted[c]);
			rk_pgsql_literal(out, rk_buf_cstr(&lit));
		}
		rk_buf_putc(out, ')');
	}
	rk_buf_free(&lit);
	if (!ok)
		rk_buf_reset(out);
	return ok;
}

/* scan's time ranges as the statement asks for them: adjacent or
 * overlapping ranges become one (not those with key bits, each asked for
 * alone); too many become their hull (the caller filters what the hull
 * lets through).  kb[i]: range i's key bits, or NULL.  Returns how many. */
static size_t rk_pgsql_ranges(const rk_scan *scan, bool bits, rk_range *merged, const rk_keybits **kb)
{
	rk_range hull = { RK_USEC_PINF, RK_USEC_NINF };
	bool too_many = false;
	size_t nm = 0;

	for (size_t i = 0; i < scan->nranges; i++) {
		rk_range g = scan->ranges[i];

		if (g.from >= g.to)
			continue;
		if (g.from < hull.from)
			hull.from = g.from;
		if (g.to > hull.to)
			hull.to = g.to;
		if (too_many)
			continue;
		if (!bits && nm > 0 && g.from <= merged[nm - 1].to && g.to >= merged[nm - 1].from) {
			if (g.from < merged[nm - 1].from)
				merged[nm - 1].from = g.from;
			if (g.to > merged[nm - 1].to)
				merged[nm - 1].to = g.to;
		} else if (nm == RK_PGREADER_MAX_RANGES) {
			too_many = true;
		} else {
			kb[nm] = bits && scan->keybits[i].bits ? &scan->keybits[i] : NULL;
			merged[nm++] = g;
		}
	}
	if (too_many) {
		merged[0] = hull;
		kb[0] = NULL;
		nm = 1;
	}
	return nm;
}

void rk_pgsql_where(const rk_pgreader *r, const rk_scan *scan, rk_buf *sql, bool *empty)
{
	rk_type tt = r->types[scan->time_index];
	const char *tcol = r->quoted[scan->time_index];
	bool with_zone = tt == RK_T_TIMESTAMPTZ;
	bool keyed = r->ks && scan->time_index == r->ks_col;
	bool filter = keyed || rk_pgsql_has_time_type(tt);
	bool bits = scan->keybits && r->has_key_hash && scan->nranges <= RK_PGREADER_MAX_RANGES;
	rk_range merged[RK_PGREADER_MAX_RANGES];
	const rk_keybits *kb[RK_PGREADER_MAX_RANGES];
	size_t nm = filter ? rk_pgsql_ranges(scan, bits, merged, kb) : 0;
	rk_buf keys = RK_BUF_INIT;
	bool nk;

	*empty = false;
	if (filter && nm == 0 && !scan->include_null_time) {
		*empty = true;
		return;
	}
	nk = rk_pgsql_keys(r, scan, &keys);
	/* the side's row filter, the ranges, the keys: each one condition */
	if (r->filter || filter || nk)
		rk_buf_puts(sql, " WHERE ");
	if (r->filter)
		rk_buf_printf(sql, "%s%s", r->filter, filter || nk ? " AND " : "");
	if (filter) {
		rk_buf_putc(sql, '(');
		for (size_t i = 0; i < nm; i++) {
			bool lo = merged[i].from != RK_USEC_NINF;
			bool hi = merged[i].to != RK_USEC_PINF;

			if (i)
				rk_buf_puts(sql, " OR ");
			rk_buf_putc(sql, '(');
			if (lo && keyed)
				rk_pgsql_key_bound(r, sql, tcol, ">=", merged[i].from);
			else if (lo)
				rk_pgsql_bound(sql, tcol, ">=", merged[i].from, with_zone);
			if (lo && hi)
				rk_buf_puts(sql, " AND ");
			if (hi && keyed)
				rk_pgsql_key_bound(r, sql, tcol, "<", merged[i].to);
			else if (hi)
				rk_pgsql_bound(sql, tcol, "<", merged[i].to, with_zone);
			if (!lo && !hi)
				rk_buf_printf(sql, "%s IS NOT NULL", tcol);
			if (kb[i]) {
				rk_buf_puts(sql, " AND ");
				rk_pgsql_keybits(r, sql, scan, kb[i]);
			}
			rk_buf_putc(sql, ')');
		}
		if (scan->include_null_time)
			rk_buf_printf(sql, "%s%s IS NULL", nm ? " OR " : "", tcol);
		rk_buf_puts(sql, nk ? ") AND " : ")");
	}
	if (nk)
		rk_buf_printf(sql, "(%s)", rk_buf_cstr(&keys));
	rk_buf_free(&keys);
}

bool rk_pgsql_large_col(const rk_pgreader *r, const rk_scan *scan, size_t i)
{
	/* an expression is not read again: it need not give the same bytes */
	return r->large_ok && scan->large_bound && scan->large_bound <= INT32_MAX && scan->large_cols &&
	       scan->large_cols[i] && r->types[i] == RK_T_TEXT && r->quoted[i][0] == '"' &&
	       (scan->large_bound < RK_PGREADER_LARGE_TOASTED || r->large_toast > 0);
}

/* Appends "pg_catalog.octet_length(<col>) >= <bound>". */
static void rk_pgsql_is_large(const rk_pgreader *r, const rk_scan *scan, size_t i, rk_buf *sql)
{
	rk_buf_printf(sql, "pg_catalog.octet_length(%s) >= %zu", r->quoted[i], scan->large_bound);
}

/*
 * The marker column of a scan with large values out of band, after the
 * bound ones: NULL on a row without a large value, else "tableoid ctid
 * len..." with, per column sent out of band (in order), its value's size
 * when large, else -1 (NULL or small: in the row).
 */
static void rk_pgsql_marker(const rk_pgreader *r, const rk_scan *scan, rk_buf *sql)
{
	bool first = true;

	rk_buf_puts(sql, ", CASE WHEN ");
	for (size_t i = 0; i < r->ncols; i++) {
		if (!rk_pgsql_large_col(r, scan, i))
			continue;
		if (!first)
			rk_buf_puts(sql, " OR ");
		rk_pgsql_is_large(r, scan, i, sql);
		first = false;
	}
	rk_buf_puts(sql, " THEN pg_catalog.concat_ws(' ', tableoid, ctid");
	for (size_t i = 0; i < r->ncols; i++) {
		if (!rk_pgsql_large_col(r, scan, i))
			continue;
		rk_buf_puts(sql, ", CASE WHEN ");
		rk_pgsql_is_large(r, scan, i, sql);
		rk_buf_printf(sql, " THEN pg_catalog.octet_length(%s) ELSE -1 END", r->quoted[i]);
	}
	rk_buf_puts(sql, ") END");
}

void rk_pgsql_scan(const rk_pgreader *r, const rk_scan *scan, bool binary, rk_buf *sql, bool *empty)
{
	bool large = false;

	rk_buf_reset(sql);
	rk_buf_puts(sql, "COPY (SELECT ");
	for (size_t i = 0; i < r->ncols; i++) {
		if (i)
			rk_buf_puts(sql, ", ");
		if (rk_pgsql_large_col(r, scan, i)) {
			/* a large value is read after the COPY, not sent in it */
			rk_buf_puts(sql, "CASE WHEN ");
			rk_pgsql_is_large(r, scan, i, sql);
			rk_buf_printf(sql, " THEN NULL ELSE %s END", r->quoted[i]);
			large = true;
		} else {
			rk_buf_puts(sql, r->quoted[i]);
		}
	}
	if (large)
		rk_pgsql_marker(r, scan, sql);
	rk_buf_puts(sql, " FROM ");
	rk_buf_puts(sql, r->qualified);
	rk_pgsql_where(r, scan, sql, empty);
	rk_buf_puts(sql, binary ? ") TO STDOUT (FORMAT binary)" : ") TO STDOUT");
	rk_buf_cstr(sql);
}

void rk_pgsql_large_value(const rk_pgreader *r, size_t col, rk_buf *sql)
{
	/* the value converted once (OFFSET 0 keeps the subquery, whose row
	 * the chunks' rows share), then cut by bytes: substring of a text
	 * counts characters, and of a compressed value decompresses from its
	 * start each time */
	rk_buf_reset(sql);
	rk_buf_printf(sql,
	              "SELECT pg_catalog.substring(s.v, g * $3::pg_catalog.int4 + 1, $3::pg_catalog.int4) FROM "
	              "(SELECT pg_catalog.convert_to(%s, 'UTF8') AS v FROM %s WHERE tableoid = $1::pg_catalog.oid AND "
	              "ctid = $2::pg_catalog.tid OFFSET 0) AS s, LATERAL pg_catalog.generate_series(0, "
	              "(pg_catalog.octet_length(s.v) - 1) / $3::pg_catalog.int4) AS g",
	              r->quoted[col], r->qualified);
	rk_buf_cstr(sql);
}

/* ------------------------------------------------------------------------
 * window digests (reckon check --pushdown, docs/pushdown.md)
 *
 * The GROUP BY statement: one row per window, computed in the reader's
 * snapshot by the extension's reckon_window aggregate (qualified with its
 * schema), whose {count, hash, sums} array the outer query spreads over the
 * fields the caller reads.  The aggregate takes the arguments of
 * rk_pgsql_digest_args; its sums come in the order of those arguments, so
 * field 3 + j picks sum j's element.  The WHERE clause is the scan's, so an
 * index on the time column serves both.
 * ---------------------------------------------------------------------- */

void rk_pgsql_digest_args(const rk_digest_query *q, rk_pgsql_wargs *wa)
{
	wa->col = rk_xcalloc(q->nhash + q->nsum, sizeof *wa->col);
	wa->roles = rk_xcalloc(q->nhash + q->nsum + 1, 1);
	wa->n = q->nhash;
	for (size_t i = 0; i < q->nhash; i++) {
		wa->col[i] = q->hash_index[i];
		wa->roles[i] = 'h';
	}
	for (size_t j = 0; j < q->nsum; j++) {
		size_t a = 0;

		while (a < wa->n && wa->col[a] != q->sum_index[j])
			a++;
		if (a == wa->n) {
			wa->col[wa->n] = q->sum_index[j];
			wa->roles[wa->n++] = 's';
		} else if (wa->roles[a] == 'h') {
			wa->roles[a] = 'b';
		}
	}
}

/* Appends the reckon_window(...) call of these arguments. */
static void rk_pgsql_digest_agg(const rk_pgreader *r, const rk_pgsql_wargs *wa, rk_buf *sql)
{
	rk_buf_printf(sql, "%s.reckon_window('%s'::pg_catalog.bytea", r->digest_schema, wa->roles);
	for (size_t a = 0; a < wa->n; a++)
		rk_buf_printf(sql, ", %s", r->quoted[wa->col[a]]);
	rk_buf_putc(sql, ')');
}

/*
 * A foreign leaf partition: one aggregate without GROUP BY per window (and
 * one for the NULL times when asked), which postgres_fdw always sends to the
 * leaf's server, where a grouped one is sent only when the planner expects
 * the grouping to save rows (it estimates the windows from the time
 * column's distinct values, and with statistics of a foreign table that is
 * about one group per row).  Windows without rows come back with count 0.
 * Returns false, appending nothing, when there are too many windows for one
 * statement (the caller then groups) or the time column has no time type;
 * true when appended.
 */
static bool rk_pgsql_digest_windows(const rk_pgreader *r, const rk_digest_query *q, const char *rel,
                                    const rk_pgsql_wargs *wa, rk_buf *sql)
{
	rk_type tt = r->types[q->scan->time_index];
	const char *tcol = r->quoted[q->scan->time_index];
	bool with_zone = tt == RK_T_TIMESTAMPTZ;
	const rk_range *g = &q->scan->ranges[0];
	int64_t k0 = (g->from - q->from) / q->width, k1 = (g->to - q->from) / q->width;
	bool first = true;

	if (!rk_pgsql_has_time_type(tt))
		return false;
	if (k1 - k0 > RK_PGREADER_MAX_WINDOW_BRANCHES) {
		rk_log_info("%s: %lld windows, more than %d: foreign partition %s is grouped by window, which its server "
		            "computes only when the planner expects that to save rows",
		            r->desc, (long long)(k1 - k0), RK_PGREADER_MAX_WINDOW_BRANCHES, rel);
		return false;
	}
	for (int64_t k = k0; k < k1; k++) {
		rk_buf_printf(sql, "%sSELECT (%lld)::pg_catalog.int8 AS w, ", first ? "" : " UNION ALL ", (long long)k);
		rk_pgsql_digest_agg(r, wa, sql);
		rk_buf_printf(sql, " AS d FROM %s WHERE %s%s", rel, r->filter ? r->filter : "", r->filter ? " AND " : "");
		rk_pgsql_bound(sql, tcol, ">=", q->from + k * q->width, with_zone);
		rk_buf_puts(sql, " AND ");
		rk_pgsql_bound(sql, tcol, "<", q->from + (k + 1) * q->width, with_zone);
		first = false;
	}
	if (q->scan->include_null_time) {
		rk_buf_printf(sql, "%sSELECT NULL::pg_catalog.int8 AS w, ", first ? "" : " UNION ALL ");
		rk_pgsql_digest_agg(r, wa, sql);
		rk_buf_printf(sql, " AS d FROM %s WHERE %s%s%s IS NULL", rel, r->filter ? r->filter : "",
		              r->filter ? " AND " : "", tcol);
		first = false;
	}
	if (first) {
		/* nothing asked of this leaf: a branch of no rows */
		rk_buf_puts(sql, "SELECT NULL::pg_catalog.int8 AS w, NULL::pg_catalog.text[] AS d WHERE false");
	}
	return true;
}

/*
 * Whether a local table (or leaf) is aggregated by reckon_windows: every
 * window in one aggregate without GROUP BY, each row put in its window by
 * the module itself (extension 1.2).  It saves the hash aggregate's lookup
 * of every row's group and the window expression the executor evaluates
 * for it, more than a quarter of the grouped statement's work per row
 * (docs/performance.md).  Not with extension 1.1, nor past the windows one
 * of its states holds, RK_PUSHDOWN_MAX_WINDOWS (then the statement groups
 * reckon_window by window).
 */
static bool rk_pgsql_digest_ungrouped(const rk_pgreader *r, const rk_digest_query *q, rk_usec unit)
{
	rk_type tt = r->types[q->scan->time_index];
	const rk_range *g = &q->scan->ranges[0];

	return r->has_windows && rk_pgsql_has_time_type(tt) && g->from >= q->from &&
	       (g->to - q->from) / unit <= RK_PUSHDOWN_MAX_WINDOWS;
}

/* reckon_windows: one aggregate over the rows of rel, its result's rows
 * spread as the grouped statement's.  Its elements are taken in one pass
 * (unnest), row r's column c at ordinality r * (3 + nsum) + c + 1: a
 * subscript d[i][k] walks the array from its start, which over a window's
 * slices grows with their square. */
static void rk_pgsql_digest_one(const rk_pgreader *r, const rk_digest_query *q, const char *rel,
                                const rk_pgsql_wargs *wa, rk_usec unit, rk_buf *sql, bool *empty)
{
	size_t ncol = 3 + q->nsum;

	rk_buf_puts(sql, "SELECT (max(v) FILTER (WHERE c = 0))::pg_catalog.int8 AS w, "
	                 "ARRAY[max(v) FILTER (WHERE c = 1), max(v) FILTER (WHERE c = 2)");
	for (size_t k = 0; k < q->nsum; k++)
		rk_buf_printf(sql, ", max(v) FILTER (WHERE c = %zu)", 3 + k);
	rk_buf_printf(sql, "] AS d FROM (SELECT (u.o - 1) / %zu AS r, (u.o - 1) %% %zu AS c, u.v FROM "
	                   "(SELECT %s.reckon_windows((%lld)::pg_catalog.int8, ",
	              ncol, ncol, r->digest_schema, (long long)q->from);
	rk_buf_printf(sql, "(%lld)::pg_catalog.int8, '%s'::pg_catalog.bytea, %s", (long long)unit, wa->roles,
	              r->quoted[q->scan->time_index]);
	for (size_t a = 0; a < wa->n; a++)
		rk_buf_printf(sql, ", %s", r->quoted[wa->col[a]]);
	rk_buf_printf(sql, ") AS d FROM %s", rel);
	rk_pgsql_where(r, q->scan, sql, empty);
	rk_buf_puts(sql, ") AS x, pg_catalog.unnest(x.d) WITH ORDINALITY AS u(v, o)) AS y GROUP BY r");
}

/* reckon_window grouped by window: the rows of rel. */
static void rk_pgsql_digest_grouped(const rk_pgreader *r, const rk_digest_query *q, const char *rel,
                                    const rk_pgsql_wargs *wa, rk_usec unit, rk_buf *sql, bool *empty)
{
	rk_buf_printf(sql, "SELECT (%s.reckon_instant(%s) - (%lld)::pg_catalog.int8) / (%lld)::pg_catalog.int8 AS w, ",
	              r->digest_schema, r->quoted[q->scan->time_index], (long long)q->from, (long long)unit);
	rk_pgsql_digest_agg(r, wa, sql);
	rk_buf_printf(sql, " AS d FROM %s", rel);
	rk_pgsql_where(r, q->scan, sql, empty);
	rk_buf_puts(sql, " GROUP BY 1");
}

bool rk_pgsql_digest(const rk_pgreader *r, rk_digest_query *q, const rk_pgsql_wargs *wa, rk_buf *sql, bool *empty)
{
	bool grouped = false;

	rk_usec unit;

	/* per slice, as the caller asks, except over foreign leaves: their
	 * statement has a branch per group (rk_pgsql_digest_windows), which
	 * slices would multiply past what one statement takes */
	if (q->slices < 1 || r->nleaves)
		q->slices = 1;
	unit = q->width / (rk_usec)q->slices;
	*empty = false;
	rk_buf_reset(sql);
	rk_buf_puts(sql, "COPY (SELECT w, d[1], d[2]");
	/* sum j: the element of its argument among the summed ones */
	for (size_t j = 0; j < q->nsum; j++) {
		size_t k = 0;

		for (size_t a = 0; a < wa->n && wa->col[a] != q->sum_index[j]; a++)
			k += wa->roles[a] != 'h';
		rk_buf_printf(sql, ", d[%zu]", 3 + k);
	}
	rk_buf_puts(sql, " FROM (");
	/* the table, or each of its leaf partitions (pgdigest.c): the client
	 * adds up a window's rows from every leaf */
	for (size_t l = 0; l < (r->nleaves ? r->nleaves : 1); l++) {
		const char *rel = r->nleaves ? r->leaves[l] : r->qualified;

		if (l)
			rk_buf_puts(sql, " UNION ALL ");
		if (r->nleaves && r->leaf_foreign[l] && rk_pgsql_digest_windows(r, q, rel, wa, sql))
			continue;
		if (rk_pgsql_digest_ungrouped(r, q, unit)) {
			rk_pgsql_digest_one(r, q, rel, wa, unit, sql, empty);
		} else {
			rk_pgsql_digest_grouped(r, q, rel, wa, unit, sql, empty);
			grouped = true;
		}
	}
	rk_buf_puts(sql, ") AS s) TO STDOUT");
	rk_buf_cstr(sql);
	return grouped || r->nleaves;
}

/* ------------------------------------------------------------------------
 * the drilldown's sub-digests (rk_reader_drill_digest)
 * ---------------------------------------------------------------------- */

/*
 * One part: its pieces' {count, hash} by reckon_window over the hashed
 * columns, and the span of their instants, grouped by piece: the piece of
 * a time split is (instant - lo) / width, of a key-hash split the next
 * bits of reckon_key_hash.  The WHERE clause is the scan's for the part's
 * range (and key bits), so the time index serves it.
 */
static void rk_pgsql_drill_part(const rk_pgreader *r, const rk_drill_query *q, size_t i, rk_buf *sql)
{
	const rk_drill_part *pt = &q->parts[i];
	const char *sch = r->digest_schema, *tcol = r->quoted[q->time_index];
	rk_range range = { pt->lo, pt->hi };
	rk_scan scan;
	bool empty;

	memset(&scan, 0, sizeof scan);
	scan.time_index = q->time_index;
	scan.ranges = &range;
	scan.nranges = 1;
	scan.key_index = q->key_index;
	scan.nkey = q->nkey;
	scan.keybits = pt->keybits.bits ? &pt->keybits : NULL;
	rk_buf_printf(sql, "SELECT (%zu)::pg_catalog.int8 AS n, ", i);
	if (pt->width > 0) {
		rk_buf_printf(sql, "(%s.reckon_instant(%s) - (%lld)::pg_catalog.int8) / (%lld)::pg_catalog.int8", sch, tcol,
		              (long long)pt->lo, (long long)pt->width);
	} else {
		rk_buf_printf(sql, "(%s.reckon_key_hash(", sch);
		for (size_t k = 0; k < q->nkey; k++)
			rk_buf_printf(sql, "%s%s", k ? ", " : "", r->quoted[q->key_index[k]]);
		rk_buf_printf(sql, ") >> %u) & (%lld)::pg_catalog.int8", pt->keybits.bits,
		              (long long)((INT64_C(1) << pt->more) - 1));
	}
	rk_buf_printf(sql, " AS p, %s.reckon_window('", sch);
	for (size_t k = 0; k < q->nhash; k++)
		rk_buf_putc(sql, 'h');
	rk_buf_puts(sql, "'::pg_catalog.bytea");
	for (size_t k = 0; k < q->nhash; k++)
		rk_buf_printf(sql, ", %s", r->quoted[q->hash_index[k]]);
	rk_buf_printf(sql, ") AS d, min(%s.reckon_instant(%s)) AS a, max(%s.reckon_instant(%s)) AS b FROM %s", sch, tcol,
	              sch, tcol, r->qualified);
	rk_pgsql_where(r, &scan, sql, &empty);
	rk_buf_puts(sql, empty ? " WHERE false GROUP BY 2" : " GROUP BY 2");
}

void rk_pgsql_drill(const rk_pgreader *r, const rk_drill_query *q, size_t at, size_t end, rk_buf *sql)
{
	rk_buf_reset(sql);
	rk_buf_puts(sql, "COPY (SELECT n, p, d[1], d[2], a, b FROM (");
	for (size_t i = at; i < end; i++) {
		if (i > at)
			rk_buf_puts(sql, " UNION ALL ");
		rk_pgsql_drill_part(r, q, i, sql);
	}
	rk_buf_puts(sql, ") AS s) TO STDOUT");
	rk_buf_cstr(sql);
}
