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
 * One exception, for speed: a timestamp's canonical text is its instant in
 * decimal microseconds since 1970 (digest.md), and formatting the value as
 * text only for the client code to parse it back is most of the cost of a
 * row.  The instant is read straight from the stored value instead (what
 * rk_canon_instant recovers from the text, with the same range errors) and
 * its decimal goes through the core encoding as an integer; the client
 * derives the time column's canonical text from its instant the same way
 * (src/check/check.c).  reckon_instant() is that instant.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/int.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "pgtime.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/bytea.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "core/buf.h"
#include "core/canon.h"
#include "core/digest.h"
#include "core/types.h"

PG_MODULE_MAGIC;

/*
 * The version of the digest format this module computes; the client refuses
 * to push down to a module of another version (docs/pushdown.md).  It goes
 * up with every change to digest.md's bytes or to this module's contract.
 */
#define RKX_FORMAT_VERSION 1

/* Microseconds from 1970-01-01 to PostgreSQL's epoch 2000-01-01. */
#define RKX_EPOCH_SHIFT_DAYS ((int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE))
#define RKX_EPOCH_SHIFT_USEC (RKX_EPOCH_SHIFT_DAYS * USECS_PER_DAY)

/* Settings a type's output text depends on (see rkx_check_settings). */
#define RKX_NEED_DATESTYLE 0x01
#define RKX_NEED_FLOAT_DIGITS 0x02
#define RKX_NEED_ALL_OUTPUT 0x04   /* "other" types: every setting reckon pins */
#define RKX_NEED_MONETARY 0x08

static void rkx_time_range_error(const char *what) pg_attribute_noreturn();

static void rkx_time_range_error(const char *what)
{
	ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("reckon: %s", what)));
}

/* Microseconds since 1970 of a timestamp (taken as UTC) or timestamptz;
 * the infinities are INT64_MAX / INT64_MIN, as in the client. */
static int64 rkx_instant(Timestamp ts)
{
	int64 t;

	if (TIMESTAMP_IS_NOEND(ts))
		return PG_INT64_MAX;
	if (TIMESTAMP_IS_NOBEGIN(ts))
		return PG_INT64_MIN;
	/* the client holds instants since 1970 in an int64: its last ~30 years
	 * of PostgreSQL's range do not fit, and INT64_MAX means infinity */
	if (pg_add_s64_overflow(ts, RKX_EPOCH_SHIFT_USEC, &t) || t == PG_INT64_MAX)
		rkx_time_range_error("timestamp out of range");
	return t;
}

/*
 * What a call site needs per row, built at its first call and kept in
 * fn_extra for the rest of the query (a parallel worker builds its own).
 */
typedef struct rkx_cache {
	int nargs;              /* value arguments */
	int first;              /* index of the first value argument (1 in the aggregate) */
	Oid *typid;             /* as passed */
	rk_type *type;          /* as the client maps it */
	FmgrInfo *out;          /* output functions */
	bool *raw;              /* the output function is textout & co: the
	                         * text is the stored bytes, read in place */
	bool *instant;          /* a timestamp: encoded from its instant */
	bool utf8;              /* the database encoding needs no conversion */
	rk_buf enc;             /* row encoding, malloc'd by core/buf.c: freed by
	                         * the reset callback of the cache's context */
	MemoryContextCallback cb;
} rkx_cache;

static void rkx_cache_release(void *arg)
{
	rkx_cache *c = arg;

	rk_buf_free(&c->enc);
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
	                   "another %s would give other text, so other digests.", name),
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

/* The cache of a call site whose value arguments are [first, PG_NARGS()). */
static rkx_cache *rkx_cache_get(FunctionCallInfo fcinfo, int first)
{
	FmgrInfo *fl = fcinfo->flinfo;
	rkx_cache *c = fl->fn_extra;
	int nargs = PG_NARGS() - first;
	int needs = 0;
	MemoryContext old;

	if (c && c->nargs == nargs && c->first == first)
		return c;
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
	c->raw = palloc(nargs * sizeof *c->raw);
	c->instant = palloc(nargs * sizeof *c->instant);
	for (int i = 0; i < nargs; i++) {
		Oid outfn;
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
		/* the stored value is read as a Timestamp: the built-in types only */
		c->instant[i] = (c->type[i] == RK_T_TIMESTAMP || c->type[i] == RK_T_TIMESTAMPTZ) &&
		                (getBaseType(c->typid[i]) == TIMESTAMPOID || getBaseType(c->typid[i]) == TIMESTAMPTZOID);
		if (!c->instant[i])
			needs |= rkx_needs(c->type[i], c->typid[i]);
		getTypeOutputInfo(c->typid[i], &outfn, &varlena);
		fmgr_info_cxt(outfn, &c->out[i], fl->fn_mcxt);
		c->raw[i] = outfn == F_TEXTOUT || outfn == F_BPCHAROUT || outfn == F_VARCHAROUT;
	}
	c->utf8 = GetDatabaseEncoding() == PG_UTF8 || GetDatabaseEncoding() == PG_SQL_ASCII;
	c->cb.func = rkx_cache_release;
	c->cb.arg = c;
	MemoryContextRegisterResetCallback(fl->fn_mcxt, &c->cb);
	MemoryContextSwitchTo(old);
	rkx_check_settings(needs);
	fl->fn_extra = c;
	return c;
}

/*
 * Encodes the value arguments as one row (digest.md) into c->enc.  The text
 * of each value is what COPY TO in UTF-8 would have sent the client.
 */
static void rkx_encode(FunctionCallInfo fcinfo, rkx_cache *c)
{
	rk_buf_reset(&c->enc);
	for (int i = 0; i < c->nargs; i++) {
		int a = c->first + i;
		char *txt, *conv;
		size_t len;
		const char *why;

		if (PG_ARGISNULL(a)) {
			rk_canon_enc_null(&c->enc);
			continue;
		}
		if (c->instant[i]) {
			Timestamp ts = DatumGetTimestamp(PG_GETARG_DATUM(a));
			char digits[MAXINT8LEN + 1];

			if (TIMESTAMP_NOT_FINITE(ts)) {
				/* the words, as the output function spells them */
				txt = TIMESTAMP_IS_NOBEGIN(ts) ? "-infinity" : "infinity";
				len = strlen(txt);
			} else {
				/* decimal microseconds: the canonical text of a timestamp
				 * is the canonical text of this integer */
				len = (size_t) pg_lltoa(rkx_instant(ts), digits);
				if (rk_canon_enc_value(RK_T_INT8, digits, len, &c->enc, &why) < 0)
					elog(ERROR, "reckon: instant %s not encoded: %s", digits, why);
				continue;
			}
		} else if (c->raw[i]) {
			/* what text_to_cstring would copy, without the copy */
			text *t = DatumGetTextPP(PG_GETARG_DATUM(a));

			txt = VARDATA_ANY(t);
			len = VARSIZE_ANY_EXHDR(t);
		} else {
			txt = OutputFunctionCall(&c->out[i], PG_GETARG_DATUM(a));
			len = strlen(txt);
		}
		if (!c->utf8) {
			/* SQL_ASCII is passed through as COPY does; the rest converted */
			conv = pg_server_to_any(txt, (int) len, PG_UTF8);
			if (conv != txt)
				len = strlen(conv);
			txt = conv;
		}
		if (rk_canon_enc_value(c->type[i], txt, len, &c->enc, &why) < 0)
			ereport(ERROR, (errcode(ERRCODE_DATA_EXCEPTION),
			                errmsg("reckon digests: value '%.*s%s' of argument %d is not a valid %s: %s",
			                       len > 80 ? 80 : (int) len, txt, len > 80 ? "..." : "", a + 1,
			                       rk_type_name(c->type[i]), why)));
	}
}

/* A 128-bit sum kept as two halves: palloc only guarantees 8-byte
 * alignment, and a 16-byte integer may be accessed with aligned loads. */
typedef struct rkx_u128 {
	uint64 hi;
	uint64 lo;
} rkx_u128;

static rk_u128 rkx_get(const rkx_u128 *v)
{
	return ((rk_u128) v->hi << 64) | (rk_u128) v->lo;
}

static void rkx_set(rkx_u128 *v, rk_u128 h)
{
	v->hi = (uint64) (h >> 64);
	v->lo = (uint64) h;
}

static text *rkx_hex(rk_u128 h)
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
	rkx_cache *c = rkx_cache_get(fcinfo, 0);

	rkx_encode(fcinfo, c);
	PG_RETURN_TEXT_P(rkx_hex(rk_row_hash(c->enc.data, c->enc.len)));
}

/* reckon_row_encoding(VARIADIC "any") -> bytea: the canonical encoding itself */
PG_FUNCTION_INFO_V1(reckon_row_encoding);
Datum reckon_row_encoding(PG_FUNCTION_ARGS)
{
	rkx_cache *c = rkx_cache_get(fcinfo, 0);
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
	DateADT d = PG_GETARG_DATEADT(0);
	int64 t;

	if (DATE_IS_NOEND(d))
		PG_RETURN_INT64(PG_INT64_MAX);
	if (DATE_IS_NOBEGIN(d))
		PG_RETURN_INT64(PG_INT64_MIN);
	/* midnight UTC of the day */
	if (pg_mul_s64_overflow((int64) d + RKX_EPOCH_SHIFT_DAYS, USECS_PER_DAY, &t) || t == PG_INT64_MAX)
		rkx_time_range_error("date out of range for a time column");
	PG_RETURN_INT64(t);
}

/* ------------------------------------------------------------------------
 * The aggregate reckon_digest(VARIADIC "any") -> text: the window hash, the
 * sum of the row hashes modulo 2^128.  Partial states combine by addition,
 * so it runs in parallel workers and in any order.
 * ---------------------------------------------------------------------- */

static MemoryContext rkx_aggcontext(FunctionCallInfo fcinfo, const char *fn)
{
	MemoryContext ctx;

	if (!AggCheckCallContext(fcinfo, &ctx))
		elog(ERROR, "%s called in non-aggregate context", fn);
	return ctx;
}

static rkx_u128 *rkx_state_new(MemoryContext ctx)
{
	return MemoryContextAllocZero(ctx, sizeof(rkx_u128));
}

PG_FUNCTION_INFO_V1(reckon_digest_trans);
Datum reckon_digest_trans(PG_FUNCTION_ARGS)
{
	MemoryContext ctx = rkx_aggcontext(fcinfo, "reckon_digest_trans");
	rkx_u128 *st = PG_ARGISNULL(0) ? rkx_state_new(ctx) : (rkx_u128 *) PG_GETARG_POINTER(0);
	rkx_cache *c = rkx_cache_get(fcinfo, 1);

	rkx_encode(fcinfo, c);
	rkx_set(st, rkx_get(st) + rk_row_hash(c->enc.data, c->enc.len));
	PG_RETURN_POINTER(st);
}

PG_FUNCTION_INFO_V1(reckon_digest_combine);
Datum reckon_digest_combine(PG_FUNCTION_ARGS)
{
	MemoryContext ctx = rkx_aggcontext(fcinfo, "reckon_digest_combine");
	rkx_u128 *a = PG_ARGISNULL(0) ? NULL : (rkx_u128 *) PG_GETARG_POINTER(0);
	rkx_u128 *b = PG_ARGISNULL(1) ? NULL : (rkx_u128 *) PG_GETARG_POINTER(1);

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
	rkx_u128 *st = (rkx_u128 *) PG_GETARG_POINTER(0);
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
		elog(ERROR, "reckon_digest_deserial: a state is 16 bytes, not %zu", (size_t) VARSIZE_ANY_EXHDR(in));
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
	rkx_u128 *st = PG_ARGISNULL(0) ? rkx_state_new(ctx) : (rkx_u128 *) PG_GETARG_POINTER(0);
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
	rkx_u128 *st = PG_ARGISNULL(0) ? NULL : (rkx_u128 *) PG_GETARG_POINTER(0);

	PG_RETURN_TEXT_P(rkx_hex(st ? rkx_get(st) : 0));
}
