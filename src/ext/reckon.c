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

#include "catalog/pg_type.h"
#include "common/int.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "nodes/primnodes.h"
#include "nodes/pg_list.h"
#include "miscadmin.h"
#include "pgtime.h"
#include "port/pg_bswap.h"
#include "utils/array.h"
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

/* Microseconds since 1970 of a timestamp (taken as UTC) or timestamptz,
 * where the client places its row (rk_canon_instant): the infinities are
 * INT64_MAX / INT64_MIN, and so is PostgreSQL's last ~30 years, which no
 * int64 since 1970 holds: after every window (rk_usec_place). */
static int64 rkx_instant(Timestamp ts)
{
	rk_usec t;

	if (unlikely(rk_pg_timestamp_instant(ts, &t) < 0))
		return rk_usec_place(rk_pg_timestamp_wide(ts));
	return t;
}

/*
 * How a value argument becomes canonical text.  RKX_OUT is the general way
 * (the output function's text through the core encoder); the others are
 * shortcuts for built-in types whose canonical text follows from the stored
 * value in a few instructions, each giving exactly the bytes the core
 * encoder makes of the output function's text (rk_canon_text):
 *
 *  - int2/int4/int8: the output function prints the decimal digits with a
 *    '-' and no leading zeros, which is already canonical (rk_canon_int
 *    returns it unchanged), so it is printed straight into the encoding;
 *  - boolean: 't' or 'f', as boolout prints and rk_canon_bool keeps;
 *  - numeric: the digits are read from the stored value (its on-disk
 *    layout, below) and laid out as rk_canon_numeric lays out numeric_out's
 *    text: no leading or trailing zeros, no exponent, "0" for zero;
 *  - text, varchar, char(n): the stored bytes, read in place (their output
 *    functions only copy them), then the core encoder (char(n)'s trailing
 *    blanks, the conversion of a non-UTF-8 database);
 *  - timestamp, timestamptz: the instant (see the top of the file).
 */
typedef enum rkx_kind {
	RKX_OUT,
	RKX_RAW,
	RKX_TEXT,
	RKX_INSTANT,
	RKX_INT2,
	RKX_INT4,
	RKX_INT8,
	RKX_BOOL,
	RKX_NUMERIC,
} rkx_kind;

/*
 * What a call site needs per row, built at its first call and kept in
 * fn_extra for the rest of the query (a parallel worker builds its own).
 */
typedef struct rkx_cache {
	int nargs;         /* value arguments */
	int first;         /* index of the first value argument (1 or 2 in the aggregates) */
	char *role;        /* per value argument: RKX_HASH, RKX_SUM or RKX_BOTH */
	int nsum;          /* arguments summed (RKX_SUM, RKX_BOTH), in argument order */
	Oid *typid;        /* as passed */
	rk_type *type;     /* as the client maps it */
	FmgrInfo *out;     /* output functions */
	rkx_kind *kind;    /* how the canonical text is made */
	bool utf8;         /* the database encoding needs no conversion */
	rk_buf enc;        /* row encoding, malloc'd by core/buf.c: freed by
	                         * the reset callback of the cache's context */
	rk_buf scratch;    /* decimal digits of a long numeric, likewise */
	rk_buf sumval;     /* the encoding of a summed, not hashed, value */
	rk_sec_digits sec; /* the last instant's whole seconds (rk_canon_enc_instant) */
	char time_kind;    /* reckon_windows' time argument: 't' a timestamp or
	                         * timestamptz, 'd' a date, 0 not yet known */
	MemoryContextCallback cb;
} rkx_cache;

/* The roles of reckon_window's value arguments (its first argument spells
 * one letter per value argument). */
#define RKX_HASH 'h' /* hashed: part of the row encoding */
#define RKX_SUM 's'  /* summed only */
#define RKX_BOTH 'b' /* hashed and summed */

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
static bool rkx_agg_arg_const(FunctionCallInfo fcinfo, int n)
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
static rkx_cache *rkx_cache_build(FunctionCallInfo fcinfo, int first, int roles)
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
static void rkx_cache_time(FunctionCallInfo fcinfo, rkx_cache *c, int a)
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

/* Once per row: the call site's cache, built at its first call. */
static inline rkx_cache *rkx_cache_get(FunctionCallInfo fcinfo, int first, int roles)
{
	rkx_cache *c = fcinfo->flinfo->fn_extra;

	if (likely(c && c->nargs == PG_NARGS() - first && c->first == first))
		return c;
	return rkx_cache_build(fcinfo, first, roles);
}

/*
 * A value written straight into the row encoding (digest.md): the tag 0x01
 * and 4 length bytes, then the canonical text.  rkx_val_begin makes room for
 * at most max bytes of text and returns where it goes; rkx_val_end fills in
 * the length n of what was written there.
 */
static inline char *rkx_val_begin(rk_buf *b, size_t max)
{
	if (b->cap - b->len < RK_CANON_HDR + max)
		rk_buf_grow(b, RK_CANON_HDR + max);
	b->data[b->len] = '\x01';
	return b->data + b->len + RK_CANON_HDR;
}

static inline void rkx_val_end(rk_buf *b, size_t n)
{
	rk_canon_put_len(b->data + b->len + 1, (uint32)n);
	b->len += RK_CANON_HDR + n;
}

static void rkx_val_word(rk_buf *b, const char *w)
{
	size_t n = strlen(w);

	memcpy(rkx_val_begin(b, n), w, n);
	rkx_val_end(b, n);
}

/*
 * numeric's on-disk layout (src/backend/utils/adt/numeric.c, kept stable
 * for pg_upgrade): a uint16 header, in the long form an int16 weight, then
 * int16 digits in base 10000, the first one worth 10000^weight.  The two
 * top bits of the header: 00 positive, 01 negative (long form: dscale in the
 * low 14 bits), 10 short form (sign 0x2000, dscale in 0x1F80, weight a
 * 7-bit two's complement number in 0x007F), 11 special (0xC000 NaN, 0xD000
 * Infinity, 0xF000 -Infinity).
 */
#define RKX_NUM_SIGN_MASK 0xC000
#define RKX_NUM_NEG 0x4000
#define RKX_NUM_SHORT 0x8000
#define RKX_NUM_SPECIAL 0xC000
#define RKX_NUM_EXT_MASK 0xF000
#define RKX_NUM_NAN 0xC000
#define RKX_NUM_PINF 0xD000
#define RKX_NUM_NINF 0xF000
#define RKX_NUM_SHORT_NEG 0x2000
#define RKX_NUM_SHORT_DSCALE_MASK 0x1F80
#define RKX_NUM_SHORT_DSCALE_SHIFT 7
#define RKX_NUM_SHORT_WEIGHT_SIGN 0x0040
#define RKX_NUM_SHORT_WEIGHT_MASK 0x003F
#define RKX_NUM_DSCALE_MASK 0x3FFF

/* A value's digits as rk_sum_add would read them from its canonical text,
 * when the encoder had them at hand (core/canon.h), so that a summed value
 * is added without parsing its text again (rk_sum_add_decimal). */
typedef rk_canon_dec rkx_dec;

/*
 * The bytes of a varlena argument: what PG_DETOAST_DATUM_PACKED gives, with
 * the call only for a value stored compressed or out of line.
 */
static inline struct varlena *rkx_packed(Datum d)
{
	struct varlena *v = (struct varlena *)DatumGetPointer(d);

	if (unlikely(VARATT_IS_COMPRESSED(v) || VARATT_IS_EXTERNAL(v)))
		v = pg_detoast_datum_packed(v);
	return v;
}

/*
 * Appends the encoding of a numeric from its stored form: the bytes
 * rk_canon_numeric makes of numeric_out's text.  numeric_out prints every
 * integer digit and exactly dscale fraction digits (truncating any stored
 * beyond them, as get_str_from_var does); the canonical text drops the
 * leading and trailing zeros of that digit string, is "0" for zero (with
 * either sign) and puts "0." before a fraction.  False, with nothing
 * appended, for a layout this does not know: the caller then takes the
 * output function's way.  The header here, the digits in core/canon.h
 * (shared with the client, which reads binary COPY's numerics the same way).
 */
static pg_attribute_always_inline bool rkx_enc_numeric(rkx_cache *c, Datum d, rk_buf *b, rkx_dec *dec)
{
	struct varlena *v = rkx_packed(d);
	const char *p = VARDATA_ANY(v);
	size_t n = VARSIZE_ANY_EXHDR(v);
	uint16 hdr;
	int weight, dscale;
	bool neg;
	size_t ndigits;

	if (n < 2)
		return false;
	memcpy(&hdr, p, 2);
	switch (hdr & RKX_NUM_SIGN_MASK) {
	case RKX_NUM_SPECIAL:
		switch (hdr & RKX_NUM_EXT_MASK) {
		case RKX_NUM_NAN:
			rkx_val_word(b, "NaN");
			return true;
		case RKX_NUM_PINF:
			rkx_val_word(b, "Infinity");
			return true;
		case RKX_NUM_NINF:
			rkx_val_word(b, "-Infinity");
			return true;
		default:
			return false;
		}
	case RKX_NUM_SHORT:
		neg = (hdr & RKX_NUM_SHORT_NEG) != 0;
		dscale = (hdr & RKX_NUM_SHORT_DSCALE_MASK) >> RKX_NUM_SHORT_DSCALE_SHIFT;
		weight = (int)(hdr & RKX_NUM_SHORT_WEIGHT_MASK) - ((hdr & RKX_NUM_SHORT_WEIGHT_SIGN) ? 64 : 0);
		p += 2;
		n -= 2;
		break;
	default: {
		int16 w16;

		if (n < 4)
			return false;
		neg = (hdr & RKX_NUM_SIGN_MASK) == RKX_NUM_NEG;
		dscale = hdr & RKX_NUM_DSCALE_MASK;
		memcpy(&w16, p + 2, 2);
		weight = w16;
		p += 4;
		n -= 4;
		break;
	}
	}
	if (n % 2 != 0)
		return false;
	ndigits = n / 2;
	return rk_canon_enc_numeric_nbase(b, &c->scratch, (const unsigned char *)p, ndigits, weight, dscale, neg,
	                                  false, dec);
}

/* An integer: int8out's digits, which rk_canon_int keeps as they are. */
static pg_attribute_always_inline void rkx_val_int(rk_buf *b, int64 v, rkx_dec *dec)
{
	rk_canon_enc_int64(b, v);
	dec->ok = true;
	dec->m = v;
	dec->scale = 0;
}

/*
 * The general way for non-NULL value argument i (value d) of a kind that
 * has no shortcut, or whose shortcut declined it: the output function's
 * text (a text's stored bytes for RKX_RAW, the words for an infinite
 * timestamp) through the core encoder, as the client encodes what COPY
 * sent it.  Out of line: most rows never come here.
 */
static pg_noinline void rkx_enc_general(FunctionCallInfo fcinfo, rkx_cache *c, int i, Datum d, rk_buf *b)
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

/*
 * Appends the encoding of value argument i (digest.md: a NULL, or the tag,
 * length and canonical text of a value) to b.  The text of a value is what
 * COPY TO in UTF-8 would have sent the client, or (the shortcuts of
 * rkx_kind) its canonical text made from the stored value.
 */
static pg_attribute_always_inline void rkx_enc_value(FunctionCallInfo fcinfo, rkx_cache *c, int i, rk_buf *b,
                                                     rkx_dec *dec)
{
	int a = c->first + i;
	Datum d;
	char *w;

	if (PG_ARGISNULL(a)) {
		rk_canon_enc_null(b);
		return;
	}
	d = PG_GETARG_DATUM(a);
	switch (c->kind[i]) {
	case RKX_INSTANT: {
		Timestamp ts = DatumGetTimestamp(d);
		rk_usec t;

		if (unlikely(TIMESTAMP_NOT_FINITE(ts)))
			break;
		/* decimal microseconds: the canonical text of a timestamp is
		 * this integer's, printed as rk_canon_int leaves it; past an
		 * int64 since 1970, the longer decimal (digest.md) */
		if (unlikely(rk_pg_timestamp_instant(ts, &t) < 0)) {
			rk_canon_enc_instant_wide(b, rk_pg_timestamp_wide(ts));
			return;
		}
		rk_canon_enc_instant_inline(b, &c->sec, t);
		return;
	}
	case RKX_INT8:
		rkx_val_int(b, DatumGetInt64(d), dec);
		return;
	case RKX_INT4:
		rkx_val_int(b, DatumGetInt32(d), dec);
		return;
	case RKX_INT2:
		rkx_val_int(b, DatumGetInt16(d), dec);
		return;
	case RKX_BOOL:
		w = rkx_val_begin(b, 1);
		*w = DatumGetBool(d) ? 't' : 'f';
		rkx_val_end(b, 1);
		return;
	case RKX_NUMERIC:
		if (likely(rkx_enc_numeric(c, d, b, dec)))
			return;
		break;
	case RKX_TEXT: {
		/* a text in a UTF-8 database, copied as it is stored */
		text *t = (text *)rkx_packed(d);

		rk_canon_enc_raw(b, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
		return;
	}
	default:
		break;
	}
	rkx_enc_general(fcinfo, c, i, d, b);
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

/* A 128-bit sum kept as two halves: palloc only guarantees 8-byte
 * alignment, and a 16-byte integer may be accessed with aligned loads. */
typedef struct rkx_u128 {
	uint64 hi;
	uint64 lo;
} rkx_u128;

static rk_u128 rkx_get(const rkx_u128 *v)
{
	return ((rk_u128)v->hi << 64) | (rk_u128)v->lo;
}

static void rkx_set(rkx_u128 *v, rk_u128 h)
{
	v->hi = (uint64)(h >> 64);
	v->lo = (uint64)h;
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

/* A date's instant: midnight UTC of the day; the infinities, and a day
 * past an int64 since 1970, as for timestamps. */
static int64 rkx_date_instant(DateADT d)
{
	rk_usec t;

	if (rk_pg_date_instant(d, &t) < 0)
		return RK_USEC_PINF;
	return t;
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

/* ------------------------------------------------------------------------
 * The aggregate reckon_window(roles bytea, VARIADIC "any") -> text[]: all of
 * a window's digest in one pass over its rows - {row count, window hash,
 * exact sum of each summed column} - each row encoded once, its summed
 * values added from the canonical text the encoding holds, with the
 * client's own rk_sum_add.  roles spells one letter per column: h hashed,
 * s summed, b both; the sums come in the order of their columns.  This is
 * the statement of reckon check --pushdown (src/io/pgreader.c): one
 * aggregate instead of count(*), reckon_digest and a numeric sum() per
 * column, which cost a transition call each and, for sum(), numeric
 * arithmetic per row.
 * ---------------------------------------------------------------------- */

typedef struct rkx_window {
	int64 count;
	rkx_u128 hash;
	int32 nsum;
	bool *overflow; /* the sum would not fit 128 bits */
	rk_sum *sums;   /* 16-byte aligned inside the same chunk */
} rkx_window;

static rkx_window *rkx_window_new(MemoryContext ctx, int nsum)
{
	size_t sz = MAXALIGN(sizeof(rkx_window)) + MAXALIGN(nsum * sizeof(bool)) + 16 + nsum * sizeof(rk_sum);
	rkx_window *st = MemoryContextAllocZero(ctx, sz);
	char *p = (char *)st + MAXALIGN(sizeof(rkx_window));

	st->nsum = nsum;
	st->overflow = (bool *)p;
	p += MAXALIGN(nsum * sizeof(bool));
	st->sums = (rk_sum *)TYPEALIGN(16, p);
	return st;
}

/* Adds a summed value to sum j: its digits when the encoder had them,
 * else its canonical text. */
static inline void rkx_window_add(rkx_window *st, int j, const rkx_dec *dec, const char *txt, size_t len)
{
	const char *why;

	if (st->overflow[j])
		return;
	if (dec->ok ? rk_sum_add_decimal(&st->sums[j], dec->m, dec->scale, &why) < 0
	            : rk_sum_add(&st->sums[j], txt, len, &why) < 0)
		st->overflow[j] = true;
}

/*
 * A summed value argument i, the j-th sum: encoded into the row (role b) or
 * apart (role s), then added.  Out of line, so that the loop over the
 * hashed-only arguments stays small.
 */
static pg_noinline void rkx_window_summed(FunctionCallInfo fcinfo, rkx_cache *c, rkx_window *st, int i, int j)
{
	rk_buf *b = &c->enc;
	rkx_dec dec;
	size_t at;

	if (c->role[i] == RKX_SUM) {
		if (PG_ARGISNULL(c->first + i))
			return;
		b = &c->sumval;
		rk_buf_reset(b);
	}
	at = b->len;
	dec.ok = false;
	rkx_enc_value(fcinfo, c, i, b, &dec);
	if (!PG_ARGISNULL(c->first + i))
		rkx_window_add(st, j, &dec, b->data + at + RK_CANON_HDR, b->len - at - RK_CANON_HDR);
}

/* One row into a window's state: the hashed values encoded as one row,
 * counted and hashed, the summed ones added. */
static pg_attribute_always_inline void rkx_window_row(FunctionCallInfo fcinfo, rkx_cache *c, rkx_window *st)
{
	int j = 0;

	rk_buf_reset(&c->enc);
	for (int i = 0; i < c->nargs; i++) {
		if (likely(c->role[i] == RKX_HASH)) {
			rkx_dec dec;

			rkx_enc_value(fcinfo, c, i, &c->enc, &dec);
		} else {
			rkx_window_summed(fcinfo, c, st, i, j++);
		}
	}
	st->count++;
	rkx_set(&st->hash, rkx_get(&st->hash) + rk_row_hash(c->enc.data, c->enc.len));
}

PG_FUNCTION_INFO_V1(reckon_window_trans);
Datum reckon_window_trans(PG_FUNCTION_ARGS)
{
	rkx_cache *c = rkx_cache_get(fcinfo, 2, 1);
	rkx_window *st = PG_ARGISNULL(0) ? rkx_window_new(rkx_aggcontext(fcinfo, "reckon_window_trans"), c->nsum)
	                                 : (rkx_window *)PG_GETARG_POINTER(0);

	rkx_window_row(fcinfo, c, st);
	PG_RETURN_POINTER(st);
}

/* a += b, states of the same sums; an overflow of either stays one. */
static void rkx_window_merge(rkx_window *a, const rkx_window *b)
{
	const char *why;

	a->count += b->count;
	rkx_set(&a->hash, rkx_get(&a->hash) + rkx_get(&b->hash));
	for (int j = 0; j < a->nsum; j++) {
		a->overflow[j] = a->overflow[j] || b->overflow[j];
		if (!a->overflow[j] && rk_sum_merge(&a->sums[j], &b->sums[j], &why) < 0)
			a->overflow[j] = true;
	}
}

PG_FUNCTION_INFO_V1(reckon_window_combine);
Datum reckon_window_combine(PG_FUNCTION_ARGS)
{
	MemoryContext ctx = rkx_aggcontext(fcinfo, "reckon_window_combine");
	rkx_window *a = PG_ARGISNULL(0) ? NULL : (rkx_window *)PG_GETARG_POINTER(0);
	rkx_window *b = PG_ARGISNULL(1) ? NULL : (rkx_window *)PG_GETARG_POINTER(1);

	if (!b)
		PG_RETURN_POINTER(a ? a : rkx_window_new(ctx, 0));
	if (!a)
		a = rkx_window_new(ctx, b->nsum);
	if (a->count == 0 && a->nsum != b->nsum) {
		/* an empty state made without knowing the columns */
		a = rkx_window_new(ctx, b->nsum);
	}
	if (b->count == 0 && a->nsum != b->nsum)
		PG_RETURN_POINTER(a);
	if (a->nsum != b->nsum)
		elog(ERROR, "reckon_window_combine: states of %d and %d sums", a->nsum, b->nsum);
	rkx_window_merge(a, b);
	PG_RETURN_POINTER(a);
}

/*
 * Partial states travel between processes (leader and parallel workers of
 * one query, so of one module) as: the number of sums (4 bytes), count (8),
 * hash (16), then per sum its 128-bit value (16), scale and the counts of
 * NaN, Infinity and -Infinity (4 each) and the overflow flag (1); integers
 * in network byte order.  reckon_windows' states hold the same per window
 * from the count on (rkx_window_write).
 */
#define RKX_WINDOW_SUM_BYTES (16 + 4 * 4 + 1)
#define RKX_WINDOW_BYTES(nsum) (8 + 16 + (size_t)(nsum)*RKX_WINDOW_SUM_BYTES)

static void rkx_put64(char **p, uint64 v)
{
	v = pg_hton64(v);
	memcpy(*p, &v, 8);
	*p += 8;
}

static void rkx_put32(char **p, uint32 v)
{
	v = pg_hton32(v);
	memcpy(*p, &v, 4);
	*p += 4;
}

static uint64 rkx_get64(const char **p)
{
	uint64 v;

	memcpy(&v, *p, 8);
	*p += 8;
	return pg_ntoh64(v);
}

static uint32 rkx_get32(const char **p)
{
	uint32 v;

	memcpy(&v, *p, 4);
	*p += 4;
	return pg_ntoh32(v);
}

/* A window's count, hash and sums: RKX_WINDOW_BYTES(st->nsum) bytes. */
static void rkx_window_write(char **p, const rkx_window *st)
{
	rkx_put64(p, (uint64)st->count);
	rkx_put64(p, st->hash.hi);
	rkx_put64(p, st->hash.lo);
	for (int j = 0; j < st->nsum; j++) {
		const rk_sum *s = &st->sums[j];
		rk_u128 v = (rk_u128)s->v;

		rkx_put64(p, (uint64)(v >> 64));
		rkx_put64(p, (uint64)v);
		rkx_put32(p, (uint32)s->scale);
		rkx_put32(p, s->nan);
		rkx_put32(p, s->pinf);
		rkx_put32(p, s->ninf);
		*(*p)++ = st->overflow[j] ? 1 : 0;
	}
}

/* The reverse, into a new state of st->nsum sums. */
static void rkx_window_read(const char **p, rkx_window *st)
{
	st->count = (int64)rkx_get64(p);
	st->hash.hi = rkx_get64(p);
	st->hash.lo = rkx_get64(p);
	for (int j = 0; j < st->nsum; j++) {
		rk_sum *s = &st->sums[j];
		rk_u128 v = (rk_u128)rkx_get64(p) << 64;

		v |= rkx_get64(p);
		s->v = (rk_i128)v;
		s->scale = (int32)rkx_get32(p);
		s->nan = rkx_get32(p);
		s->pinf = rkx_get32(p);
		s->ninf = rkx_get32(p);
		st->overflow[j] = *(*p)++ != 0;
	}
}

PG_FUNCTION_INFO_V1(reckon_window_serial);
Datum reckon_window_serial(PG_FUNCTION_ARGS)
{
	rkx_window *st = (rkx_window *)PG_GETARG_POINTER(0);
	size_t n = 4 + RKX_WINDOW_BYTES(st->nsum);
	bytea *out = palloc(VARHDRSZ + n);
	char *p = VARDATA(out);

	SET_VARSIZE(out, VARHDRSZ + n);
	rkx_put32(&p, (uint32)st->nsum);
	rkx_window_write(&p, st);
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(reckon_window_deserial);
Datum reckon_window_deserial(PG_FUNCTION_ARGS)
{
	MemoryContext ctx = rkx_aggcontext(fcinfo, "reckon_window_deserial");
	bytea *in = PG_GETARG_BYTEA_PP(0);
	const char *p = VARDATA_ANY(in);
	size_t n = VARSIZE_ANY_EXHDR(in);
	rkx_window *st;
	uint32 nsum;

	if (n < 4)
		elog(ERROR, "reckon_window_deserial: a state of %zu bytes", n);
	nsum = rkx_get32(&p);
	if (nsum > FUNC_MAX_ARGS || n != 4 + RKX_WINDOW_BYTES(nsum))
		elog(ERROR, "reckon_window_deserial: a state of %zu bytes with %u sums", n, nsum);
	st = rkx_window_new(ctx, (int)nsum);
	rkx_window_read(&p, st);
	PG_RETURN_POINTER(st);
}

/*
 * A window's {count, hash, sum...} as text: the count in decimal, the hash
 * in 32 hex digits, each sum as rk_sum_format writes it (canonical numeric
 * text, NaN, Infinity, -Infinity), or the word "overflow" when its exact
 * value does not fit 128 bits - the client then fails as streaming would.
 * 2 + nsum elements (st NULL: an empty window of no sums).
 */
static void rkx_window_elems(const rkx_window *st, Datum *elems)
{
	char num[MAXINT8LEN + 1];
	char sum[RK_SUM_STRLEN];

	pg_lltoa(st ? st->count : 0, num);
	elems[0] = PointerGetDatum(cstring_to_text(num));
	elems[1] = PointerGetDatum(rkx_hex(st ? rkx_get(&st->hash) : 0));
	for (int j = 0; st && j < st->nsum; j++)
		elems[2 + j] = PointerGetDatum(cstring_to_text(st->overflow[j] ? "overflow" : rk_sum_format(&st->sums[j], sum)));
}

PG_FUNCTION_INFO_V1(reckon_window_final);
Datum reckon_window_final(PG_FUNCTION_ARGS)
{
	rkx_window *st = PG_ARGISNULL(0) ? NULL : (rkx_window *)PG_GETARG_POINTER(0);
	int nsum = st ? st->nsum : 0;
	Datum *elems = palloc((2 + nsum) * sizeof(Datum));

	rkx_window_elems(st, elems);
	PG_RETURN_ARRAYTYPE_P(construct_array(elems, 2 + nsum, TEXTOID, -1, false, TYPALIGN_INT));
}

/* ------------------------------------------------------------------------
 * The aggregate reckon_windows(from int8, width int8, roles bytea, t,
 * VARIADIC "any") -> text[][]: every window's digest in one pass without
 * GROUP BY.  t is the time column (timestamptz, timestamp or date); a row
 * goes to window (reckon_instant(t) - from) / width, a row whose t is NULL
 * to a window of its own; the values that follow are reckon_window's, with
 * its roles.  The result has one row per window that has rows: {window,
 * count, hash, sum...}, the window NULL for the NULL times.  This is the
 * statement of reckon check --pushdown from extension 1.2 on: the same
 * digests as reckon_window grouped by window, without the hash aggregate's
 * per-row lookup and the window expression the executor evaluates for it
 * (more than a quarter of the grouped statement's work per row), in any number
 * of parallel workers.
 * ---------------------------------------------------------------------- */

/* The most windows one state holds (RK_PUSHDOWN_MAX_WINDOWS; the client
 * groups beyond), so that a row outside the windows the statement asks for
 * cannot make a state grow without bound. */
#define RKX_WINDOWS_MAX RK_PUSHDOWN_MAX_WINDOWS

typedef struct rkx_windows {
	int64 from;  /* the first window's start, microseconds since 1970 */
	int64 width; /* every window's width */
	int32 nsum;
	int32 cap;         /* entries of win */
	rkx_window **win;  /* window k's state, or NULL while it has no rows */
	rkx_window *nulls; /* the rows whose time is NULL, or NULL */
	MemoryContext ctx; /* where the states live */
} rkx_windows;

static rkx_windows *rkx_windows_new(MemoryContext ctx, int64 from, int64 width, int nsum)
{
	rkx_windows *ws = MemoryContextAllocZero(ctx, sizeof *ws);

	ws->from = from;
	ws->width = width;
	ws->nsum = nsum;
	ws->ctx = ctx;
	return ws;
}

/* Window k's state, made (and the array grown) when it is the first row. */
static rkx_window *rkx_windows_at(rkx_windows *ws, int64 k)
{
	if (unlikely(k < 0 || k >= RKX_WINDOWS_MAX))
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
		                errmsg("reckon_windows: a row in window %lld, outside windows 0 to %d", (long long)k,
		                       RKX_WINDOWS_MAX - 1),
		                errhint("Select only the rows from the first window's start on, over at most %d windows.",
		                        RKX_WINDOWS_MAX)));
	if (unlikely(k >= ws->cap)) {
		int cap = ws->cap ? ws->cap : 64;

		while (cap <= k)
			cap *= 2;
		if (ws->win)
			ws->win = repalloc(ws->win, cap * sizeof *ws->win);
		else
			ws->win = MemoryContextAlloc(ws->ctx, cap * sizeof *ws->win);
		memset(ws->win + ws->cap, 0, (cap - ws->cap) * sizeof *ws->win);
		ws->cap = cap;
	}
	if (unlikely(!ws->win[k]))
		ws->win[k] = rkx_window_new(ws->ctx, ws->nsum);
	return ws->win[k];
}

/* The instant of time argument a (a timestamp, timestamptz or date). */
static inline int64 rkx_time_instant(FunctionCallInfo fcinfo, rkx_cache *c, int a)
{
	if (c->time_kind == 'd')
		return rkx_date_instant(DatumGetDateADT(PG_GETARG_DATUM(a)));
	return rkx_instant(DatumGetTimestamp(PG_GETARG_DATUM(a)));
}

PG_FUNCTION_INFO_V1(reckon_windows_trans);
Datum reckon_windows_trans(PG_FUNCTION_ARGS)
{
	rkx_cache *c = rkx_cache_get(fcinfo, 5, 3);
	rkx_windows *ws;
	rkx_window *st;

	if (unlikely(PG_ARGISNULL(0))) {
		int64 width;

		if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || !rkx_agg_arg_const(fcinfo, 0) || !rkx_agg_arg_const(fcinfo, 1))
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			                errmsg("reckon_windows: the first window's start and the width must be constants, "
			                       "not NULL")));
		width = PG_GETARG_INT64(2);
		if (width <= 0)
			ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			                errmsg("reckon_windows: a window width of %lld microseconds", (long long)width)));
		ws = rkx_windows_new(rkx_aggcontext(fcinfo, "reckon_windows_trans"), PG_GETARG_INT64(1), width, c->nsum);
	} else {
		ws = (rkx_windows *)PG_GETARG_POINTER(0);
	}
	if (unlikely(c->time_kind == 0))
		rkx_cache_time(fcinfo, c, 4);
	if (PG_ARGISNULL(4)) {
		if (!ws->nulls)
			ws->nulls = rkx_window_new(ws->ctx, ws->nsum);
		st = ws->nulls;
	} else {
		int64 t = rkx_time_instant(fcinfo, c, 4), dt;

		/* the WHERE clause asks for [from, from + n * width); an instant
		 * before from, or too far after it to subtract, is outside */
		if (t < ws->from || pg_sub_s64_overflow(t, ws->from, &dt))
			dt = -1;
		st = rkx_windows_at(ws, dt < 0 ? -1 : dt / ws->width);
	}
	rkx_window_row(fcinfo, c, st);
	PG_RETURN_POINTER(ws);
}

PG_FUNCTION_INFO_V1(reckon_windows_combine);
Datum reckon_windows_combine(PG_FUNCTION_ARGS)
{
	MemoryContext ctx = rkx_aggcontext(fcinfo, "reckon_windows_combine");
	rkx_windows *a = PG_ARGISNULL(0) ? NULL : (rkx_windows *)PG_GETARG_POINTER(0);
	rkx_windows *b = PG_ARGISNULL(1) ? NULL : (rkx_windows *)PG_GETARG_POINTER(1);

	if (!b)
		PG_RETURN_POINTER(a);
	if (!a)
		a = rkx_windows_new(ctx, b->from, b->width, b->nsum);
	if (a->from != b->from || a->width != b->width || a->nsum != b->nsum)
		elog(ERROR, "reckon_windows_combine: states of other windows or sums");
	for (int k = 0; k < b->cap; k++)
		if (b->win[k])
			rkx_window_merge(rkx_windows_at(a, k), b->win[k]);
	if (b->nulls) {
		if (!a->nulls)
			a->nulls = rkx_window_new(a->ctx, a->nsum);
		rkx_window_merge(a->nulls, b->nulls);
	}
	PG_RETURN_POINTER(a);
}

/*
 * Partial states travel as: from, width (8 bytes each), the number of sums
 * (4) and of windows (4), then per window its number (4, -1 for the NULL
 * times) and its state (rkx_window_write); integers in network byte order.
 */
PG_FUNCTION_INFO_V1(reckon_windows_serial);
Datum reckon_windows_serial(PG_FUNCTION_ARGS)
{
	rkx_windows *ws = (rkx_windows *)PG_GETARG_POINTER(0);
	uint32 nwin = ws->nulls ? 1 : 0;
	size_t n;
	bytea *out;
	char *p;

	for (int k = 0; k < ws->cap; k++)
		nwin += ws->win[k] != NULL;
	n = 8 + 8 + 4 + 4 + (size_t)nwin * (4 + RKX_WINDOW_BYTES(ws->nsum));
	out = palloc(VARHDRSZ + n);
	SET_VARSIZE(out, VARHDRSZ + n);
	p = VARDATA(out);
	rkx_put64(&p, (uint64)ws->from);
	rkx_put64(&p, (uint64)ws->width);
	rkx_put32(&p, (uint32)ws->nsum);
	rkx_put32(&p, nwin);
	for (int k = 0; k < ws->cap; k++)
		if (ws->win[k]) {
			rkx_put32(&p, (uint32)k);
			rkx_window_write(&p, ws->win[k]);
		}
	if (ws->nulls) {
		rkx_put32(&p, UINT32_MAX);
		rkx_window_write(&p, ws->nulls);
	}
	PG_RETURN_BYTEA_P(out);
}

PG_FUNCTION_INFO_V1(reckon_windows_deserial);
Datum reckon_windows_deserial(PG_FUNCTION_ARGS)
{
	MemoryContext ctx = rkx_aggcontext(fcinfo, "reckon_windows_deserial");
	bytea *in = PG_GETARG_BYTEA_PP(0);
	const char *p = VARDATA_ANY(in);
	size_t n = VARSIZE_ANY_EXHDR(in);
	rkx_windows *ws;
	int64 from, width;
	uint32 nsum, nwin;

	if (n < 8 + 8 + 4 + 4)
		elog(ERROR, "reckon_windows_deserial: a state of %zu bytes", n);
	from = (int64)rkx_get64(&p);
	width = (int64)rkx_get64(&p);
	nsum = rkx_get32(&p);
	nwin = rkx_get32(&p);
	if (nsum > FUNC_MAX_ARGS || nwin > RKX_WINDOWS_MAX + 1 ||
	    n != 8 + 8 + 4 + 4 + (size_t)nwin * (4 + RKX_WINDOW_BYTES(nsum)))
		elog(ERROR, "reckon_windows_deserial: a state of %zu bytes with %u sums and %u windows", n, nsum, nwin);
	ws = rkx_windows_new(ctx, from, width, (int)nsum);
	for (uint32 i = 0; i < nwin; i++) {
		uint32 k = rkx_get32(&p);
		rkx_window *st;

		if (k == UINT32_MAX) {
			st = ws->nulls = rkx_window_new(ctx, ws->nsum);
		} else {
			st = rkx_windows_at(ws, (int64)k);
			if (st->count)
				elog(ERROR, "reckon_windows_deserial: window %u twice", k);
		}
		rkx_window_read(&p, st);
	}
	PG_RETURN_POINTER(ws);
}

/* {{window, count, hash, sum...}, ...}: the windows with rows in order, then
 * the NULL times' (window NULL); NULL when no row came. */
PG_FUNCTION_INFO_V1(reckon_windows_final);
Datum reckon_windows_final(PG_FUNCTION_ARGS)
{
	rkx_windows *ws = PG_ARGISNULL(0) ? NULL : (rkx_windows *)PG_GETARG_POINTER(0);
	int ncol, nrow = 0, r = 0;
	Datum *elems;
	bool *nulls;
	int dims[2], lbs[2] = { 1, 1 };
	char num[MAXINT8LEN + 1];

	if (!ws)
		PG_RETURN_NULL();
	ncol = 3 + ws->nsum;
	for (int k = 0; k < ws->cap; k++)
		nrow += ws->win[k] != NULL;
	nrow += ws->nulls != NULL;
	if (nrow == 0)
		PG_RETURN_NULL();
	elems = palloc(sizeof(Datum) * nrow * ncol);
	nulls = palloc0(sizeof(bool) * nrow * ncol);
	for (int k = 0; k <= ws->cap; k++) {
		rkx_window *st = k < ws->cap ? ws->win[k] : ws->nulls;

		if (!st)
			continue;
		if (k < ws->cap) {
			pg_lltoa(k, num);
			elems[r * ncol] = PointerGetDatum(cstring_to_text(num));
		} else {
			nulls[r * ncol] = true;
			elems[r * ncol] = (Datum)0;
		}
		rkx_window_elems(st, elems + r * ncol + 1);
		r++;
	}
	dims[0] = nrow;
	dims[1] = ncol;
	PG_RETURN_ARRAYTYPE_P(construct_md_array(elems, nulls, 2, dims, lbs, TEXTOID, -1, false, TYPALIGN_INT));
}
