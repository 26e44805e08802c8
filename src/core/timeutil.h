/*
 * timeutil.h - instants, durations and their text forms.
 *
 * An instant is an int64 count of microseconds since 1970-01-01T00:00:00Z
 * (proleptic Gregorian, UTC), PostgreSQL's own resolution.  PostgreSQL's
 * 'infinity' and '-infinity' map to RK_USEC_PINF / RK_USEC_NINF.  A value
 * of PostgreSQL's last 30 years, past an int64's end, is a wide instant
 * (rk_wusec, below) where values are encoded and shown.
 */
#ifndef RK_TIMEUTIL_H
#define RK_TIMEUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/types.h"

typedef int64_t rk_usec;

#define RK_USEC_PINF INT64_MAX
#define RK_USEC_NINF INT64_MIN
/* The last finite instant (INT64_MAX is 'infinity'): 294247-01-10
 * 04:00:54.775806 UTC.  Windows, --from and --to end here at the latest. */
#define RK_USEC_LAST (INT64_MAX - 1)
#define RK_USEC_PER_SEC INT64_C(1000000)
#define RK_USEC_PER_DAY INT64_C(86400000000)

/*
 * PostgreSQL stores a timestamp as microseconds and a date as days since
 * 2000-01-01, with INT64_MAX / INT64_MIN (dates: INT32_MAX / INT32_MIN) for
 * infinity.  One conversion to reckon's instants (microseconds since 1970,
 * RK_USEC_PINF / RK_USEC_NINF for the infinities) for the binary COPY
 * reader and the extension alike.
 */
#define RK_PG_EPOCH_DAYS INT64_C(10957)
#define RK_PG_EPOCH_USEC (RK_PG_EPOCH_DAYS * RK_USEC_PER_DAY)

/*
 * A wide instant: microseconds since 1970 in 128 bits.  PostgreSQL counts
 * from 2000, so its timestamps reach about 30 years past an rk_usec's end:
 * its range is [4714-11-24 00:00 BC, 294277-01-01 00:00) UTC, and its
 * values from 294247-01-10 04:00:54.775807 on hold no rk_usec.  Values are
 * encoded (digest.md: a longer decimal), parsed and printed as wide
 * instants, exactly; windows and everything computed from a row's time take
 * rk_usec, where such a value is later than every window (rk_usec_place).
 * The infinities are RK_WUSEC_PINF / RK_WUSEC_NINF, outside that range.
 */
typedef rk_i128 rk_wusec;

#define RK_WUSEC_PINF ((rk_wusec)1 << 100)
#define RK_WUSEC_NINF (-RK_WUSEC_PINF)
/* PostgreSQL's END_TIMESTAMP (294277-01-01 00:00 UTC, exclusive) and
 * MIN_TIMESTAMP (4714-11-24 00:00 BC), since 1970. */
#define RK_WUSEC_END ((rk_wusec)INT64_C(106762940) * RK_USEC_PER_DAY)
#define RK_WUSEC_MIN ((rk_wusec)INT64_C(-2440588) * RK_USEC_PER_DAY)

/* t as a wide instant (the infinities to the wide ones). */
static inline rk_wusec rk_wusec_of(rk_usec t)
{
	return t == RK_USEC_PINF ? RK_WUSEC_PINF : t == RK_USEC_NINF ? RK_WUSEC_NINF
	                                                             : (rk_wusec)t;
}

/* Where a row whose time is w is placed: at w when an rk_usec holds it,
 * otherwise at RK_USEC_PINF, as 'infinity' is: after every window reckon
 * can form (RK_USEC_NINF for -infinity). */
static inline rk_usec rk_usec_place(rk_wusec w)
{
	if (w > (rk_wusec)RK_USEC_LAST)
		return RK_USEC_PINF;
	if (w <= (rk_wusec)RK_USEC_NINF)
		return RK_USEC_NINF;
	return (rk_usec)w;
}

/* A stored timestamp's instant, exactly (the infinities to the wide ones). */
static inline rk_wusec rk_pg_timestamp_wide(int64_t pg)
{
	if (pg == INT64_MAX || pg == INT64_MIN)
		return pg == INT64_MAX ? RK_WUSEC_PINF : RK_WUSEC_NINF;
	return (rk_wusec)pg + RK_PG_EPOCH_USEC;
}

/* A stored timestamp's instant: 0, or -1 when no rk_usec holds it (the last
 * 30 years of PostgreSQL's range: rk_pg_timestamp_wide has them). */
static inline int rk_pg_timestamp_instant(int64_t pg, rk_usec *out)
{
	if (pg == INT64_MAX || pg == INT64_MIN) {
		*out = pg == INT64_MAX ? RK_USEC_PINF : RK_USEC_NINF;
		return 0;
	}
	if (__builtin_add_overflow(pg, RK_PG_EPOCH_USEC, out) || *out == RK_USEC_PINF)
		return -1;
	return 0;
}

/* A stored date's days since 1970, INT64_MAX / INT64_MIN for the
 * infinities (as rk_date_parse gives them). */
static inline int64_t rk_pg_date_days(int32_t pg)
{
	if (pg == INT32_MAX || pg == INT32_MIN)
		return pg == INT32_MAX ? INT64_MAX : INT64_MIN;
	return (int64_t)pg + RK_PG_EPOCH_DAYS;
}

/* A stored date's instant (midnight UTC): 0, or -1 when it does not fit. */
static inline int rk_pg_date_instant(int32_t pg, rk_usec *out)
{
	int64_t days = rk_pg_date_days(pg);

	if (days == INT64_MAX || days == INT64_MIN) {
		*out = days == INT64_MAX ? RK_USEC_PINF : RK_USEC_NINF;
		return 0;
	}
	if (__builtin_mul_overflow(days, RK_USEC_PER_DAY, out) || *out == RK_USEC_PINF)
		return -1;
	return 0;
}

/*
 * Parses a timestamp value as found in PostgreSQL's text output (any
 * DateStyle=ISO output, e.g. "2026-03-02 10:58:00.5+00", "...+05:30",
 * "... BC") or in a CSV export: "2026-03-02T10:58:00Z", "2026-03-02 10:58",
 * "2026-03-02T10:58:00.123+0100", a bare date "2026-03-02" (midnight), and
 * "infinity"/"-infinity".  A value without an offset is taken as UTC.
 * Fractional seconds beyond 6 digits are rounded as PostgreSQL does
 * (rint of the fraction parsed as a double, times 10^6).
 * Returns 0, or -1 with *why set to a static description (a value
 * PostgreSQL holds but an rk_usec does not, after 294247-01-10, is out of
 * range here: rk_time_parse_wide reads it).
 */
int rk_time_parse(const char *s, size_t len, rk_usec *out, const char **why);

/*
 * rk_time_parse (local false) or rk_time_parse_local (true) over
 * PostgreSQL's whole range, to a wide instant: up to 294276-12-31
 * 23:59:59.999999 UTC, from 4714-11-24 BC; the infinities as RK_WUSEC_PINF /
 * RK_WUSEC_NINF.  Returns 0 or -1 with *why.
 */
int rk_time_parse_wide(const char *s, size_t len, bool local, rk_wusec *out, const char **why);

/* rk_time_parse (local false) or rk_time_parse_local (true), a value of
 * PostgreSQL's last 30 years placed at RK_USEC_PINF (rk_usec_place): for a
 * row's time, or the newest time the data holds (a max(time)), which must
 * not fail on such a row. */
int rk_time_parse_placed(const char *s, size_t len, bool local, rk_usec *out, const char **why);

/*
 * Like rk_time_parse, for a `timestamp` (without time zone) value: an
 * explicit offset, when the text has one, is ignored, as PostgreSQL's
 * timestamp input ignores it ("2026-03-02 10:58+05" is 10:58 taken as UTC).
 */
int rk_time_parse_local(const char *s, size_t len, rk_usec *out, const char **why);

/*
 * Parses a date ("YYYY-MM-DD", optionally " BC"; also "infinity").  *days is
 * days since 1970-01-01 ("infinity" gives INT64_MAX, "-infinity" INT64_MIN).
 * Returns 0 or -1 with *why.
 */
int rk_date_parse(const char *s, size_t len, int64_t *days, const char **why);

/*
 * Parses a command-line instant (--from, --to, --now): ISO-8601 with a 'Z'
 * or an explicit offset, e.g. "2026-03-02T10:00:00Z", "2026-03-02 10:00+01:00",
 * or a bare date "2026-03-02", which is its midnight UTC here (with
 * --timezone the caller re-reads it as that zone's midnight: rk_time_arg_date).
 * A time of day without zone is refused (ambiguous).  Errors name the option.
 */
int rk_time_parse_arg(const char *option, const char *s, rk_usec *out, rk_error *err);

/* Whether s is a bare finite date ("2026-03-29"), and its day number. */
bool rk_time_arg_date(const char *s, int64_t *days);

/*
 * Parses a duration: a positive sequence of <integer><unit> with units
 * us, ms, s (sec, second, plurals), m (min, minute), h (hour), d (day), w (week: 7 d)
 * (e.g. "90s", "15m", "60min", "1h", "1d", "1h30m").  Errors name
 * the option.  allow_zero permits "0" / "0s" (used by --settle).
 */
int rk_duration_parse(const char *option, const char *s, bool allow_zero, rk_usec *out, rk_error *err);

/* Formats an instant as "YYYY-MM-DDTHH:MM:SSZ" (".ffffff" only when the
 * fraction is not zero); "infinity"/"-infinity" for the sentinels.  Returns out. */
#define RK_TIME_STRLEN 40
char *rk_time_format(rk_usec t, char out[RK_TIME_STRLEN]);

/* Formats an instant as a PostgreSQL literal body "YYYY-MM-DD HH:MM:SS.ffffff+00"
 * (with_zone) or without the "+00" (for timestamp / date comparisons). */
char *rk_time_format_sql(rk_usec t, bool with_zone, char out[RK_TIME_STRLEN]);

/* Formats an instant as PostgreSQL's text output prints a timestamptz
 * (with_zone, session TimeZone UTC) or a timestamp: "YYYY-MM-DD HH:MM:SS",
 * the fraction only when not zero and without trailing zeros, "+00",
 * " BC".  For values a reader decoded to an instant (binary COPY, DuckDB)
 * shown beside the text of a side that printed them. */
char *rk_time_format_pg(rk_usec t, bool with_zone, char out[RK_TIME_STRLEN]);

/* rk_time_format, rk_time_format_sql and rk_time_format_pg of a wide
 * instant (RK_WUSEC_PINF / RK_WUSEC_NINF for the infinities). */
char *rk_time_format_wide(rk_wusec t, char out[RK_TIME_STRLEN]);
char *rk_time_format_sql_wide(rk_wusec t, bool with_zone, char out[RK_TIME_STRLEN]);
char *rk_time_format_pg_wide(rk_wusec t, bool with_zone, char out[RK_TIME_STRLEN]);

/* Formats days since the epoch as "YYYY-MM-DD" (" BC" suffix when needed). */
char *rk_date_format(int64_t days, char out[RK_TIME_STRLEN]);

/* Formats a duration compactly ("1h", "90s", "1h30m"). */
char *rk_duration_format(rk_usec d, char out[RK_TIME_STRLEN]);

/* Days since 1970-01-01 of a proleptic Gregorian date (astronomical years:
 * 1 BC is 0; m 1-12, d 1-31 unchecked), and back. */
int64_t rk_days_from_civil(int64_t y, unsigned m, unsigned d);
void rk_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);

/* The current time. */
rk_usec rk_time_now(void);

#endif
