/*
 * reckon.c - the reckon PostgreSQL extension: window digests computed inside
 * the server (reckon check --pushdown), bit-identical to the client's.
 *
 * Nothing here re-implements the canonical encoding: every value is turned
 * into text by its type's output function, exactly the text the client gets
 * from COPY (COPY's escaping is undone by the client's reader), and then goes
 * through the very same src/core code the client runs (rk_canon_enc_value,
 * rk_row_hash), compiled into this module.  Only three things are the
 * server's own:
 *
 *  - the type of each argument (get_fn_expr_argtype, domains resolved to
 *    their base type, named by format_type as the client's catalog query
 *    does, then rk_type_from_name);
 *  - the conversion of the output text to UTF-8 when the database encoding
 *    is another one (COPY converts to the client's UTF-8 the same way);
 *  - the session settings that change output text: the client pins them on
 *    its own session; here they are checked, and a value whose text would
 *    differ is an error, never a silently different digest.
 *
 * Exceptions, for speed, where the canonical text follows from the stored
 * value without the output function's text (rkx_kind below): integers,
 * booleans and numerics, each giving exactly the bytes the core encoder
 * makes of the output text (test_pushdown.sh checks their edges), and
 * timestamps.  A timestamp's canonical text is its instant in
 * decimal microseconds since 1970 (digest.md), and formatting the value as
 * text only for the client code to parse it back is most of the cost of a
 * row.  The instant is read straight from the stored value instead (what
 * rk_canon_instant recovers from the text, placed as it places them) and
 * its decimal is written as the core encoding writes an integer; the client
 * derives the time column's canonical text from its instant the same way
 * (src/check/check.c).  reckon_instant() is that instant.
 */
#include "postgres.h"

#include "reckon_impl.h"

PG_MODULE_MAGIC;

/*
 * The version of the digest format this module computes; the client refuses
 * to push down to a module of another version (docs/pushdown.md).  It goes
 * up with every change to digest.md's bytes or to this module's contract:
 * 2 added reckon_window (extension version 1.1), which reckon check's
 * pushdown statement uses.
 */
#define RKX_FORMAT_VERSION 2

/* reckon's epoch shift is PostgreSQL's own (core/timeutil.h) */
StaticAssertDecl(RK_PG_EPOCH_DAYS == POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE, "PostgreSQL's epoch moved");

/* Settings a type's output text depends on (see rkx_check_settings). */
#define RKX_NEED_DATESTYLE 0x01
#define RKX_NEED_FLOAT_DIGITS 0x02
#define RKX_NEED_ALL_OUTPUT 0x04 /* "other" types: every setting reckon pins */
#define RKX_NEED_MONETARY 0x08

static void rkx_cache_release(void *arg)
{
	rkx_cache *c = arg;

	rk_buf_free(&c->enc);
	rk_buf_free(&c->scratch);
	rk_buf_free(&c->sumval);
}

/*
 * The rk_type the client gives a column of this type: the client reads
 * format_type() of the column's base type from the catalog and maps it with
 * rk_type_from_name, arrays ("...[]") being "other" (src/io/pgreader.c).
 */
static rk_type rkx_type_of(Oid typid)
{
	Oid base = getBaseType(typid);
	char *name = format_type_be(base);
	size_t n = strlen(name);
	rk_type t = RK_T_OTHER;

	if (n >= 2 && strcmp(name + n - 2, "[]") == 0)
		t = RK_T_OTHER;
	else if (rk_type_from_name(name, true, &t) < 0)
		t = RK_T_OTHER;
	pfree(name);
	return t;
}

static int rkx_needs(rk_type t, Oid typid)
{
	switch (t) {
	case RK_T_DATE:
	case RK_T_TIMESTAMP:
	case RK_T_TIMESTAMPTZ:
		/* as text (built-in timestamps are encoded from their instant);
		 * any time zone is fine: the offset is part of the ISO text */
		return RKX_NEED_DATESTYLE;
	case RK_T_FLOAT4:
	case RK_T_FLOAT8:
		return RKX_NEED_FLOAT_DIGITS;
	case RK_T_OTHER: {
		Oid base = getBaseType(typid);
		Oid elem = get_element_type(base);

		if (base == MONEYOID || elem == MONEYOID)
			return RKX_NEED_ALL_OUTPUT | RKX_NEED_MONETARY;
		return RKX_NEED_ALL_OUTPUT;
	}
	default:
		/* integers, numeric, boolean, text, char(n), uuid: one spelling */
		return 0;
	}
}

static void rkx_setting_error(const char *name, const char *have, const char *want) pg_attribute_noreturn();

static void rkx_setting_error(const char *name, const char *have, const char *want)
{
	ereport(ERROR,
	        (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
	         errmsg("reckon digests need %s = %s, but it is %s", name, want, have),
	         errdetail("Values are hashed as their type's output text under reckon's pinned session settings; "
	                   "another %s would give other text, so other digests.",
	                   name),
	         errhint("SET %s = '%s' in this session (reckon check does it on its own sessions).", name, want)));
}

/*
 * The settings reckon check pins on its sessions (src/io/pg.c), checked
 * for what the hashed types need.  postgres_fdw pins TimeZone, DateStyle,
 * IntervalStyle and extra_float_digits on its remote sessions the same way.
 */
static void rkx_check_settings(int needs)
{
	if ((needs & (RKX_NEED_DATESTYLE | RKX_NEED_ALL_OUTPUT)) && DateStyle != USE_ISO_DATES)
		rkx_setting_error("DateStyle", GetConfigOption("DateStyle", false, false), "ISO, YMD");
	if ((needs & (RKX_NEED_FLOAT_DIGITS | RKX_NEED_ALL_OUTPUT)) && extra_float_digits <= 0)
		rkx_setting_error("extra_float_digits", GetConfigOption("extra_float_digits", false, false), "3");
	if (needs & RKX_NEED_ALL_OUTPUT) {
		const char *tz = pg_get_timezone_name(session_timezone);

		if (!tz || pg_strcasecmp(tz, "UTC") != 0)
			rkx_setting_error("TimeZone", tz ? tz : "unknown", "UTC");
		if (IntervalStyle != INTSTYLE_POSTGRES)
			rkx_setting_error("IntervalStyle", GetConfigOption("IntervalStyle", false, false), "postgres");
		if (bytea_output != BYTEA_OUTPUT_HEX)
			rkx_setting_error("bytea_output", GetConfigOption("bytea_output", false, false), "hex");
	}
	if (needs & RKX_NEED_MONETARY) {
		const char *m = GetConfigOption("lc_monetary", false, false);

		if (!m || strcmp(m, "C") != 0)
			rkx_setting_error("lc_monetary", m ? m : "unknown", "C");
	}
}

/*
 * True when argument n of the aggregate calling this transition function is
 * a constant (the transition function's own expression has placeholders
 * for the aggregate's arguments, so get_fn_expr_arg_stable cannot tell).
 */
bool rkx_agg_arg_const(FunctionCallInfo fcinfo, int n)
{
	Aggref *ag = AggGetAggref(fcinfo);
	TargetEntry *te;

	if (!ag || n < 0 || n >= list_length(ag->args))
		return false;
	te = list_nth_node(TargetEntry, ag->args, n);
	return IsA(te->expr, Const);
}

/*
 * The roles of the value arguments: all hashed, or (roles >= 0) as argument
 * 'roles' spells them, one letter per value argument.  It must be the same
 * for every row: a constant, as reckon check passes it.  It is a bytea (the
 * literal 'hhbh' is those four bytes), not a text: a text constant has a
 * collation, and postgres_fdw would not send an aggregate whose input
 * collation does not come from a column of the foreign table.
 */
static void rkx_cache_roles(FunctionCallInfo fcinfo, rkx_cache *c, int roles)
{
	bytea *t;
	const char *r;

	c->role = palloc(c->nargs);
	memset(c->role, RKX_HASH, c->nargs);
	c->nsum = 0;
	if (roles < 0)
		return;
	if (PG_ARGISNULL(roles) || !rkx_agg_arg_const(fcinfo, roles - 1))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("reckon_window: the roles argument must be a constant, not NULL")));
	t = PG_GETARG_BYTEA_PP(roles);
	r = VARDATA_ANY(t);
	if ((int)VARSIZE_ANY_EXHDR(t) != c->nargs)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("reckon_window: the roles '%.*s' name %d columns, but %d follow",
		                       (int)VARSIZE_ANY_EXHDR(t), VARDATA_ANY(t), (int)VARSIZE_ANY_EXHDR(t), c->nargs),
		                errhint("One letter per column: h hashed, s summed, b both.")));
	for (int i = 0; i < c->nargs; i++) {
		if (r[i] != RKX_HASH && r[i] != RKX_SUM && r[i] != RKX_BOTH)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			                errmsg("reckon_window: role '%c' of column %d is none of h (hashed), s (summed), "
			                       "b (both)",
			                       r[i], i + 1)));
		c->role[i] = r[i];
		if (r[i] != RKX_HASH)
			c->nsum++;
	}
}

/*
 * The cache of a call site whose value arguments are [first, PG_NARGS()),
 * with their roles in argument 'roles' (-1: all hashed).
 */
rkx_cache *rkx_cache_build(FunctionCallInfo fcinfo, int first, int roles)
{
	FmgrInfo *fl = fcinfo->flinfo;
	rkx_cache *c;
	int nargs = PG_NARGS() - first;
	int needs = 0;
	int nhash = 0;
	MemoryContext old;

	if (get_fn_expr_variadic(fl))
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
		                errmsg("reckon digests take the columns as separate arguments, not as a VARIADIC array")));
	if (nargs <= 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("reckon digests need at least one column")));
	old = MemoryContextSwitchTo(fl->fn_mcxt);
	c = palloc0(sizeof *c);
	c->nargs = nargs;
	c->first = first;
	c->typid = palloc(nargs * sizeof *c->typid);
	c->type = palloc(nargs * sizeof *c->type);
	c->out = palloc(nargs * sizeof *c->out);
	c->kind = palloc(nargs * sizeof *c->kind);
	rkx_cache_roles(fcinfo, c, roles);
	c->utf8 = GetDatabaseEncoding() == PG_UTF8 || GetDatabaseEncoding() == PG_SQL_ASCII;
	for (int i = 0; i < nargs; i++) {
		Oid outfn, base;
		bool varlena;

		c->typid[i] = get_fn_expr_argtype(fl, first + i);
		if (!OidIsValid(c->typid[i]))
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			                errmsg("reckon digests: cannot determine the type of argument %d", first + i + 1)));
		if (c->typid[i] == UNKNOWNOID)
			ereport(ERROR, (errcode(ERRCODE_INDETERMINATE_DATATYPE),
			                errmsg("reckon digests: argument %d is an untyped literal", first + i + 1),
			                errhint("Cast it, e.g. 'abc'::text.")));
		c->type[i] = rkx_type_of(c->typid[i]);
		base = getBaseType(c->typid[i]);
		getTypeOutputInfo(c->typid[i], &outfn, &varlena);
		fmgr_info_cxt(outfn, &c->out[i], fl->fn_mcxt);
		/* shortcuts for the built-in types only, read as what they store */
		c->kind[i] = RKX_OUT;
		if ((c->type[i] == RK_T_TIMESTAMP && base == TIMESTAMPOID) ||
		    (c->type[i] == RK_T_TIMESTAMPTZ && base == TIMESTAMPTZOID))
			c->kind[i] = RKX_INSTANT;
		else if (c->type[i] == RK_T_INT2 && base == INT2OID && outfn == F_INT2OUT)
			c->kind[i] = RKX_INT2;
		else if (c->type[i] == RK_T_INT4 && base == INT4OID && outfn == F_INT4OUT)
			c->kind[i] = RKX_INT4;
		else if (c->type[i] == RK_T_INT8 && base == INT8OID && outfn == F_INT8OUT)
			c->kind[i] = RKX_INT8;
		else if (c->type[i] == RK_T_BOOL && base == BOOLOID && outfn == F_BOOLOUT)
			c->kind[i] = RKX_BOOL;
		else if (c->type[i] == RK_T_NUMERIC && base == NUMERICOID && outfn == F_NUMERIC_OUT)
			c->kind[i] = RKX_NUMERIC;
		else if (outfn == F_TEXTOUT || outfn == F_BPCHAROUT || outfn == F_VARCHAROUT)
			c->kind[i] = RKX_RAW;
		/* a text's canonical text is the text itself (rk_canon_text) */
		if (c->kind[i] == RKX_RAW && c->type[i] == RK_T_TEXT && c->utf8)
			c->kind[i] = RKX_TEXT;
		if (c->kind[i] != RKX_INSTANT)
			needs |= rkx_needs(c->type[i], c->typid[i]);
		if (c->role[i] != RKX_SUM)
			nhash++;
		if (c->role[i] != RKX_HASH && !rk_type_summable(c->type[i]))
			ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
			                errmsg("reckon_window: column %d has type %s; exact sums need an integer or numeric "
			                       "column",
			                       i + 1, format_type_be(c->typid[i]))));
	}
	if (nhash == 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("reckon digests need at least one hashed column")));
	c->cb.func = rkx_cache_release;
	c->cb.arg = c;
	MemoryContextRegisterResetCallback(fl->fn_mcxt, &c->cb);
	MemoryContextSwitchTo(old);
	rkx_check_settings(needs);
	fl->fn_extra = c;
	return c;
}

/* The kind of reckon_windows' time argument a, once per call site. */
void rkx_cache_time(FunctionCallInfo fcinfo, rkx_cache *c, int a)
{
	Oid t = getBaseType(get_fn_expr_argtype(fcinfo->flinfo, a));

	if (t == TIMESTAMPTZOID || t == TIMESTAMPOID)
		c->time_kind = 't';
	else if (t == DATEOID)
		c->time_kind = 'd';
	else
		ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
		                errmsg("reckon_windows: the time column has type %s, not timestamptz, timestamp or date",
		                       format_type_be(t))));
}

/*
 * The general way for non-NULL value argument i (value d) of a kind that
 * has no shortcut, or whose shortcut declined it: the output function's
 * text (a text's stored bytes for RKX_RAW, the words for an infinite
 * timestamp) through the core encoder, as the client encodes what COPY
 * sent it.  Out of line: most rows never come here.
 */
pg_noinline void rkx_enc_general(FunctionCallInfo fcinfo, rkx_cache *c, int i, Datum d, rk_buf *b)
{
	const char *txt;
	size_t len;
	const char *why;

	if (c->kind[i] == RKX_INSTANT) {
		/* the words, as the output function spells them (ASCII) */
		txt = TIMESTAMP_IS_NOBEGIN(DatumGetTimestamp(d)) ? "-infinity" : "infinity";
		len = strlen(txt);
	} else {
		if (c->kind[i] == RKX_RAW) {
			/* what text_to_cstring would copy, without the copy */
			text *t = (text *)rkx_packed(d);

			txt = VARDATA_ANY(t);
			len = VARSIZE_ANY_EXHDR(t);
		} else {
			txt = OutputFunctionCall(&c->out[i], d);
			len = strlen(txt);
		}
		if (!c->utf8) {
			/* SQL_ASCII is passed through as COPY does; the rest converted */
			char *conv = pg_server_to_any(txt, (int)len, PG_UTF8);

			if (conv != txt)
				len = strlen(conv);
			txt = conv;
		}
	}
	if (rk_canon_enc_value(c->type[i], txt, len, b, &why) < 0)
		ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
		                errmsg("reckon digests: value '%.*s%s' of argument %d is not a valid %s: %s",
		                       len > 80 ? 80 : (int)len, txt, len > 80 ? "..." : "", c->first + i + 1,
		                       rk_type_name(c->type[i]), why)));
}

/* Encodes the hashed value arguments as one row (digest.md) into c->enc. */
static void rkx_encode(FunctionCallInfo fcinfo, rkx_cache *c)
{
	rk_buf_reset(&c->enc);
	for (int i = 0; i < c->nargs; i++)
		if (c->role[i] != RKX_SUM) {
			rkx_dec dec;

			rkx_enc_value(fcinfo, c, i, &c->enc, &dec);
		}
}

text *rkx_hex(rk_u128 h)
{
	char hex[33];

	rk_hash_hex(h, hex);
	return cstring_to_text_with_len(hex, 32);
}

/* ------------------------------------------------------------------------
 * Row functions
 * ---------------------------------------------------------------------- */

PG_FUNCTION_INFO_V1(reckon_pushdown_version);
Datum reckon_pushdown_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(RKX_FORMAT_VERSION);
}

/* reckon_row_hash(VARIADIC "any") -> text: XXH3-128 of the row, 32 hex digits */
PG_FUNCTION_INFO_V1(reckon_row_hash);
Datum reckon_row_hash(PG_FUNCTION_ARGS)
{
	rkx_cache *c = rkx_cache_get(fcinfo, 0, -1);

	rkx_encode(fcinfo, c);
	PG_RETURN_TEXT_P(rkx_hex(rk_row_hash(c->enc.data, c->enc.len)));
}

/* reckon_key_hash(VARIADIC "any") -> bigint: the low 64 bits of the key's
 * hash, the bits the drilldown splits by (src/check/drill.c), as the two's
 * complement bigint of those bits (extension 1.3) */
PG_FUNCTION_INFO_V1(reckon_key_hash);
Datum reckon_key_hash(PG_FUNCTION_ARGS)
{
	rkx_cache *c = rkx_cache_get(fcinfo, 0, -1);

	rkx_encode(fcinfo, c);
	PG_RETURN_INT64((int64)(uint64)rk_row_hash(c->enc.data, c->enc.len));
}

/* reckon_row_encoding(VARIADIC "any") -> bytea: the canonical encoding itself */
PG_FUNCTION_INFO_V1(reckon_row_encoding);
Datum reckon_row_encoding(PG_FUNCTION_ARGS)
{
	rkx_cache *c = rkx_cache_get(fcinfo, 0, -1);
	bytea *out;

	rkx_encode(fcinfo, c);
	out = palloc(VARHDRSZ + c->enc.len);
	SET_VARSIZE(out, VARHDRSZ + c->enc.len);
	memcpy(VARDATA(out), c->enc.data, c->enc.len);
	PG_RETURN_BYTEA_P(out);
}

/* ------------------------------------------------------------------------
 * The instant of a time-column value (rk_canon_instant)
 * ---------------------------------------------------------------------- */

PG_FUNCTION_INFO_V1(reckon_instant_timestamptz);
Datum reckon_instant_timestamptz(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(rkx_instant(PG_GETARG_TIMESTAMPTZ(0)));
}

PG_FUNCTION_INFO_V1(reckon_instant_timestamp);
Datum reckon_instant_timestamp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(rkx_instant(PG_GETARG_TIMESTAMP(0)));
}

PG_FUNCTION_INFO_V1(reckon_instant_date);
Datum reckon_instant_date(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(rkx_date_instant(PG_GETARG_DATEADT(0)));
}

/* ------------------------------------------------------------------------
 * The aggregate reckon_digest(VARIADIC "any") -> text: the window hash, the
 * sum of the row hashes modulo 2^128.  Partial states combine by addition,
 * so it runs in parallel workers and in any order.
 * ---------------------------------------------------------------------- */

static rkx_u128 *rkx_state_new(MemoryContext ctx)
{
	return MemoryContextAllocZero(ctx, sizeof(rkx_u128));
}

PG_FUNCTION_INFO_V1(reckon_digest_trans);
Datum reckon_digest_trans(PG_FUNCTION_ARGS)
{
	rkx_u128 *st = PG_ARGISNULL(0) ? rkx_state_new(rkx_aggcontext(fcinfo, "reckon_digest_trans"))
	                               : (rkx_u128 *)PG_GETARG_POINTER(0);
	rkx_cache *c = rkx_cache_get(fcinfo, 1, -1);

	rkx_encode(fcinfo, c);
	rkx_set(st, rkx_get(st) + rk_row_hash(c->enc.data, c->enc.len));
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(reckon_digest_combine);
Datum reckon_digest_combine(PG_FUNCTION_ARGS)
{
	MemoryContext ctx = rkx_aggcontext(fcinfo, "reckon_digest_combine");
	rkx_u128 *a = PG_ARGISNULL(0) ? NULL : (rkx_u128 *)PG_GETARG_POINTER(0);
	rkx_u128 *b = PG_ARGISNULL(1) ? NULL : (rkx_u128 *)PG_GETARG_POINTER(1);

	if (!b)
		PG_RETURN_POINTER(a ? a : rkx_state_new(ctx));
	if (!a)
		a = rkx_state_new(ctx);
	rkx_set(a, rkx_get(a) + rkx_get(b));
	PG_RETURN_POINTER(a);
}

/* Partial states travel between processes as 16 bytes, high half first. */
PG_FUNCTION_INFO_V1(reckon_digest_serial);
Datum reckon_digest_serial(PG_FUNCTION_ARGS)
{
	rkx_u128 *st = (rkx_u128 *)PG_GETARG_POINTER(0);
	bytea *out = palloc(VARHDRSZ + 16);
	uint64 hi = pg_hton64(st->hi), lo = pg_hton64(st->lo);

	SET_VARSIZE(out, VARHDRSZ + 16);
	memcpy(VARDATA(out), &hi, 8);
	memcpy(VARDATA(out) + 8, &lo, 8);
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(reckon_digest_deserial);
Datum reckon_digest_deserial(PG_FUNCTION_ARGS)
{
	MemoryContext ctx = rkx_aggcontext(fcinfo, "reckon_digest_deserial");
	bytea *in = PG_GETARG_BYTEA_PP(0);
	rkx_u128 *st;
	uint64 hi, lo;

	if (VARSIZE_ANY_EXHDR(in) != 16)
		elog(ERROR, "reckon_digest_deserial: a state is 16 bytes, not %zu", (size_t)VARSIZE_ANY_EXHDR(in));
	memcpy(&hi, VARDATA_ANY(in), 8);
	memcpy(&lo, VARDATA_ANY(in) + 8, 8);
	st = rkx_state_new(ctx);
	st->hi = pg_ntoh64(hi);
	st->lo = pg_ntoh64(lo);
	PG_RETURN_POINTER(st);
}

/*
 * reckon_hash_sum(text) -> text: adds window hashes (32 hex digits) modulo
 * 2^128, so digests computed per partition, per shard or per worker combine
 * into the window's: the hash of a union of rows is the sum of their hashes.
 * Shares the state functions of reckon_digest.
 */
PG_FUNCTION_INFO_V1(reckon_hash_sum_trans);
Datum reckon_hash_sum_trans(PG_FUNCTION_ARGS)
{
	MemoryContext ctx = rkx_aggcontext(fcinfo, "reckon_hash_sum_trans");
	rkx_u128 *st = PG_ARGISNULL(0) ? rkx_state_new(ctx) : (rkx_u128 *)PG_GETARG_POINTER(0);
	text *t;
	char hex[33];
	rk_u128 h;

	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(st);
	t = PG_GETARG_TEXT_PP(1);
	if (VARSIZE_ANY_EXHDR(t) == 32) {
		memcpy(hex, VARDATA_ANY(t), 32);
		hex[32] = '\0';
	} else {
		hex[0] = '\0';
	}
	if (rk_hash_parse(hex, &h) < 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
		                errmsg("reckon_hash_sum: \"%s\" is not a window hash (32 hex digits)", text_to_cstring(t))));
	rkx_set(st, rkx_get(st) + h);
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(reckon_digest_final);
Datum reckon_digest_final(PG_FUNCTION_ARGS)
{
	rkx_u128 *st = PG_ARGISNULL(0) ? NULL : (rkx_u128 *)PG_GETARG_POINTER(0);

	PG_RETURN_TEXT_P(rkx_hex(st ? rkx_get(st) : 0));
}
