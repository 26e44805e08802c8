/* strtod_l: fractions beyond microseconds are rounded the way PostgreSQL
 * does it (through a double), and that must not depend on LC_NUMERIC. */
#define _GNU_SOURCE

#include "core/timeutil.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * All calendar arithmetic is proleptic Gregorian on astronomical years
 * (1 BC is year 0), done with Howard Hinnant's days-from-civil algorithms:
 * no mktime/timegm, no TZ, no locale, exact for every year we accept.
 *
 * Accepted ranges follow PostgreSQL: nothing before 4714-11-24 BC (Julian
 * day 0); dates up to 5874897-12-31; timestamps up to 294276-12-31
 * 23:59:59.999999 as wide instants (rk_time_parse_wide), up to what an int64
 * count of microseconds since 1970 holds as rk_usec (PostgreSQL counts from
 * 2000 and so reaches about 30 years further: timeutil.h).
 */

#define RK_MIN_DAYS INT64_C(-2440588)        /* 4714-11-24 BC = Julian day 0 */
#define RK_DATE_END_DAYS INT64_C(2145042906) /* 5874898-01-01, exclusive */
#define RK_MAX_YEAR_DIGITS 7
#define RK_MAX_FRAC_DIGITS 40

static bool rk_tu_digit(char c)
{
	return (unsigned)(c - '0') < 10u;
}

static char rk_tu_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static bool rk_tu_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Case-insensitive comparison of p[0..len) with a lowercase literal. */
static bool rk_tu_word(const char *p, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	if (len != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (rk_tu_lower(p[i]) != lit[i])
			return false;
	return true;
}

static bool rk_tu_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned rk_tu_month_days(int64_t y, unsigned m)
{
	static const unsigned char mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return m == 2 && rk_tu_leap(y) ? 29u : mdays[m - 1];
}

/* Days since 1970-01-01 of an astronomical-year civil date (Hinnant). */
static int64_t rk_tu_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153u * (m > 2 ? m - 3 : m + 9) + 2u) / 5u + d - 1u;
	doe = yoe * 365u + yoe / 4u - yoe / 100u + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static void rk_tu_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era;
	unsigned doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460u + doe / 36524u - doe / 146096u) / 365u;
	doy = doe - (365u * yoe + yoe / 4u - yoe / 100u);
	mp = (5u * doy + 2u) / 153u;
	*d = doy - (153u * mp + 2u) / 5u + 1u;
	*m = mp < 10u ? mp + 3u : mp - 9u;
	*y = (int64_t)yoe + era * 400 + (*m <= 2u);
}

/* ------------------------------------------------------------------ */
/* The C locale for strtod_l, created once for all threads. */

static locale_t rk_tu_c_locale;
static pthread_once_t rk_tu_c_locale_once = PTHREAD_ONCE_INIT;

static void rk_tu_c_locale_init(void)
{
	rk_tu_c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

/*
 * Microseconds of a fraction with more than 6 digits, computed exactly as
 * PostgreSQL's ParseFractionalSecond does: rint(strtod("0.ddd") * 1e6).
 * The result may be 1000000 (it then carries into the seconds, as there).
 */
static int64_t rk_tu_round_fraction(const char *digits, size_t n)
{
	char tmp[RK_MAX_FRAC_DIGITS + 3];
	double frac;

	tmp[0] = '0';
	tmp[1] = '.';
	memcpy(tmp + 2, digits, n);
	tmp[n + 2] = '\0';
	pthread_once(&rk_tu_c_locale_once, rk_tu_c_locale_init);
	if (rk_tu_c_locale != (locale_t)0)
		frac = strtod_l(tmp, NULL, rk_tu_c_locale);
	else
		frac = strtod(tmp, NULL); /* newlocale failed: only '.' is at stake */
	return (int64_t)rint(frac * 1000000.0);
}

/* ------------------------------------------------------------------ */
/* Parsing. */

typedef struct rk_tu_parts {
	int special;      /* 0 finite, +1 infinity, -1 -infinity */
	int64_t days;     /* date part, days since 1970-01-01 */
	int64_t tod_usec; /* time of day (may reach 24:00:00 plus a rounding carry) */
	bool has_time;
	bool has_zone;
	int32_t offset_sec; /* east of UTC */
} rk_tu_parts;

typedef struct rk_tu_cursor {
	const char *p;
	const char *end;
} rk_tu_cursor;

static void rk_tu_trim(const char **s, size_t *len)
{
	const char *p = *s;
	const char *e = p + *len;

	while (p < e && rk_tu_blank(*p))
		p++;
	while (e > p && rk_tu_blank(e[-1]))
		e--;
	*s = p;
	*len = (size_t)(e - p);
}

/* Reads between min and max digits; returns the count read (0 = none). */
static int rk_tu_digits(rk_tu_cursor *c, int min, int max, int64_t *v)
{
	int n = 0;
	int64_t acc = 0;

	while (c->p < c->end && n < max && rk_tu_digit(*c->p)) {
		acc = acc * 10 + (*c->p - '0');
		c->p++;
		n++;
	}
	if (n < min)
		return 0;
	*v = acc;
	return n;
}

static bool rk_tu_eat(rk_tu_cursor *c, char ch)
{
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

/* "infinity", "+infinity", "-infinity" (any case); 0 when s is not one. */
static int rk_tu_special(const char *s, size_t len)
{
	if (rk_tu_word(s, len, "infinity") || rk_tu_word(s, len, "+infinity"))
		return 1;
	if (rk_tu_word(s, len, "-infinity"))
		return -1;
	return 0;
}

/*
 * Parses YYYY-MM-DD (4 to 7 year digits, 1 or 2 month and day digits) into
 * the year/month/day, leaving the BC adjustment and day check to the caller
 * (BC comes at the very end of the text).
 */
static int rk_tu_parse_ymd(rk_tu_cursor *c, int64_t *y, unsigned *m, unsigned *d, const char **why)
{
	int64_t v;

	if (!rk_tu_digits(c, 4, RK_MAX_YEAR_DIGITS, y) || !rk_tu_eat(c, '-'))
		goto bad;
	if (!rk_tu_digits(c, 1, 2, &v) || !rk_tu_eat(c, '-'))
		goto bad;
	*m = (unsigned)v;
	if (!rk_tu_digits(c, 1, 2, &v))
		goto bad;
	*d = (unsigned)v;
	return 0;
bad:
	*why = "not a valid date (expected YYYY-MM-DD)";
	return -1;
}

/* Applies BC, checks the calendar fields and computes the day number. */
static int rk_tu_ymd_days(int64_t y, unsigned m, unsigned d, bool bc, int64_t *days, const char **why)
{
	if (y == 0) {
		*why = "year 0 does not exist";
		return -1;
	}
	if (bc)
		y = 1 - y;
	if (m < 1 || m > 12) {
		*why = "month out of range";
		return -1;
	}
	if (d < 1 || d > rk_tu_month_days(y, m)) {
		*why = "day out of range for month";
		return -1;
	}
	*days = rk_tu_days_from_civil(y, m, d);
	return 0;
}

/* Optional blanks then "BC" (any case) at the very end. */
static bool rk_tu_bc_suffix(rk_tu_cursor *c)
{
	const char *p = c->p;

	while (p < c->end && rk_tu_blank(*p))
		p++;
	if (p != c->p && c->end - p == 2 && rk_tu_lower(p[0]) == 'b' && rk_tu_lower(p[1]) == 'c') {
		c->p = c->end;
		return true;
	}
	return false;
}

/* A zone: Z, UTC, GMT, or +HH, +HH:MM, +HHMM, +HH:MM:SS, +HHMMSS (or -). */
static int rk_tu_parse_zone(rk_tu_cursor *c, int32_t *offset, const char **why)
{
	int64_t h = 0, mi = 0, se = 0;
	int sign;

	if (c->p < c->end && (*c->p == 'Z' || *c->p == 'z')) {
		c->p++;
		*offset = 0;
		return 0;
	}
	if (c->end - c->p >= 3 && (rk_tu_word(c->p, 3, "utc") || rk_tu_word(c->p, 3, "gmt"))) {
		c->p += 3;
		*offset = 0;
		return 0;
	}
	if (c->p >= c->end || (*c->p != '+' && *c->p != '-'))
		goto bad;
	sign = *c->p == '-' ? -1 : 1;
	c->p++;
	if (!rk_tu_digits(c, 1, 2, &h))
		goto bad;
	if (c->p < c->end && (*c->p == ':' || rk_tu_digit(*c->p))) {
		bool colon = rk_tu_eat(c, ':');

		if (rk_tu_digits(c, 2, 2, &mi) != 2)
			goto bad;
		if (c->p < c->end && (colon ? *c->p == ':' : rk_tu_digit(*c->p))) {
			if (colon)
				c->p++;
			if (rk_tu_digits(c, 2, 2, &se) != 2)
				goto bad;
		}
	}
	/* PostgreSQL's limit for a UTC offset is 15:59:59 */
	if (h > 15 || mi > 59 || se > 59) {
		*why = "time zone offset out of range";
		return -1;
	}
	*offset = (int32_t)(sign * (h * 3600 + mi * 60 + se));
	return 0;
bad:
	*why = "not a valid time zone offset";
	return -1;
}

/* HH:MM[:SS[.fraction]], strict ranges (no leap second 60; 24:00:00 only). */
static int rk_tu_parse_tod(rk_tu_cursor *c, int64_t *tod, const char **why)
{
	int64_t h, mi, se = 0, frac = 0;

	if (!rk_tu_digits(c, 1, 2, &h) || !rk_tu_eat(c, ':') || rk_tu_digits(c, 2, 2, &mi) != 2)
		goto bad;
	if (rk_tu_eat(c, ':')) {
		if (rk_tu_digits(c, 2, 2, &se) != 2)
			goto bad;
		if (rk_tu_eat(c, '.')) {
			const char *f = c->p;
			size_t n;

			while (c->p < c->end && rk_tu_digit(*c->p))
				c->p++;
			n = (size_t)(c->p - f);
			if (n == 0)
				goto bad;
			if (n <= 6) {
				for (size_t i = 0; i < n; i++)
					frac = frac * 10 + (f[i] - '0');
				for (size_t i = n; i < 6; i++)
					frac *= 10;
			} else if (n <= RK_MAX_FRAC_DIGITS) {
				frac = rk_tu_round_fraction(f, n);
			} else {
				*why = "too many fractional second digits";
				return -1;
			}
		}
	}
	if (mi > 59) {
		*why = "minute out of range";
		return -1;
	}
	if (se > 59) {
		*why = "second out of range (leap seconds are not accepted)";
		return -1;
	}
	if (h > 24 || (h == 24 && (mi > 0 || se > 0 || frac > 0))) {
		*why = "hour out of range";
		return -1;
	}
	*tod = ((h * 60 + mi) * 60 + se) * RK_USEC_PER_SEC + frac;
	return 0;
bad:
	*why = "not a valid time of day (expected HH:MM[:SS[.ffffff]])";
	return -1;
}

/*
 * The shape PostgreSQL prints under DateStyle=ISO, and most CSV exports use:
 * "YYYY-MM-DD HH:MM:SS" (or 'T'), up to 6 fraction digits, then nothing,
 * 'Z', "+HH" or "+HH:MM".  Fixed positions, no loops over the separators.
 * Returns false for anything else, including out-of-range fields, so the
 * general parser decides and explains.
 */
/* The last minute the fast path parsed, per thread (each reader has its
 * own): "YYYY-MM-DD HH:MM" (or 'T'), already checked, its day number and
 * its minute of the day.  Rows in time order share it, so for most rows
 * only the seconds, the fraction and the zone are left to read.  Starts as
 * no minute (NUL bytes never pass the digit checks). */
static _Thread_local struct {
	char ymdhm[16];
	int64_t days;
	unsigned minute;
} rk_tu_last;

static bool rk_tu_parse_fast(const char *s, size_t len, rk_tu_parts *o)
{
	unsigned y, m, d, h, mi, se;
	int64_t frac = 0;
	size_t i = 19;
	int32_t off = 0;
	bool zone = false;

#define RK_TU_D(k) ((unsigned)(unsigned char)s[k] - '0')
	if (len < 19 || s[16] != ':' || (RK_TU_D(17) > 9) | (RK_TU_D(18) > 9))
		return false;
	if (memcmp(s, rk_tu_last.ymdhm, 16) != 0) {
		/* a minute not seen just before: check and compute it */
		if (s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':')
			return false;
		/* one combined test of the 12 digit positions, no loop */
		if ((RK_TU_D(0) > 9) | (RK_TU_D(1) > 9) | (RK_TU_D(2) > 9) | (RK_TU_D(3) > 9) | (RK_TU_D(5) > 9) |
		    (RK_TU_D(6) > 9) | (RK_TU_D(8) > 9) | (RK_TU_D(9) > 9) | (RK_TU_D(11) > 9) | (RK_TU_D(12) > 9) |
		    (RK_TU_D(14) > 9) | (RK_TU_D(15) > 9))
			return false;
		y = RK_TU_D(0) * 1000u + RK_TU_D(1) * 100u + RK_TU_D(2) * 10u + RK_TU_D(3);
		m = RK_TU_D(5) * 10u + RK_TU_D(6);
		d = RK_TU_D(8) * 10u + RK_TU_D(9);
		h = RK_TU_D(11) * 10u + RK_TU_D(12);
		mi = RK_TU_D(14) * 10u + RK_TU_D(15);
		if (y == 0 || m < 1 || m > 12 || d < 1 || d > rk_tu_month_days(y, m) || h > 23 || mi > 59)
			return false;
		rk_tu_last.days = rk_tu_days_from_civil(y, m, d);
		rk_tu_last.minute = h * 60u + mi;
		memcpy(rk_tu_last.ymdhm, s, 16);
	}
	se = RK_TU_D(17) * 10u + RK_TU_D(18);
	if (se > 59)
		return false;
	if (i < len && s[i] == '.') {
		int n = 0;

		for (i++; i < len && rk_tu_digit(s[i]); i++, n++) {
			if (n == 6)
				return false; /* rounding: the general path */
			frac = frac * 10 + (s[i] - '0');
		}
		if (n == 0)
			return false;
		for (; n < 6; n++)
			frac *= 10;
	}
	if (i < len) {
		size_t rest = len - i;

		zone = true;
		if (rest == 1 && s[i] == 'Z') {
			off = 0;
		} else if ((rest == 3 || (rest == 6 && s[i + 3] == ':')) && (s[i] == '+' || s[i] == '-') &&
		           rk_tu_digit(s[i + 1]) && rk_tu_digit(s[i + 2])) {
			int32_t oh = (s[i + 1] - '0') * 10 + (s[i + 2] - '0'), om = 0;

			if (rest == 6) {
				if (!rk_tu_digit(s[i + 4]) || !rk_tu_digit(s[i + 5]))
					return false;
				om = (s[i + 4] - '0') * 10 + (s[i + 5] - '0');
			}
			if (oh > 15 || om > 59)
				return false;
			off = (oh * 3600 + om * 60) * (s[i] == '-' ? -1 : 1);
		} else {
			return false;
		}
	}
	o->special = 0;
	o->days = rk_tu_last.days;
	o->tod_usec = (int64_t)(rk_tu_last.minute * 60u + se) * RK_USEC_PER_SEC + frac;
	o->has_time = true;
	o->has_zone = zone;
	o->offset_sec = off;
	return true;
#undef RK_TU_D
}

/*
 * The whole grammar (after trimming blanks):
 *   infinity | +infinity | -infinity
 *   DATE [ (T | blanks) TIME [ blanks ] [ ZONE ] ] [ blanks BC ]
 */
static int rk_tu_parse(const char *s, size_t len, rk_tu_parts *o, const char **why)
{
	rk_tu_cursor c;
	int64_t y;
	unsigned m, d;
	bool bc;

	rk_tu_trim(&s, &len);
	if (rk_tu_parse_fast(s, len, o))
		return 0;
	o->special = 0;
	o->tod_usec = 0;
	o->has_time = false;
	o->has_zone = false;
	o->offset_sec = 0;
	if (len == 0) {
		*why = "empty value";
		return -1;
	}
	if (!rk_tu_digit(s[0])) {
		o->special = rk_tu_special(s, len);
		if (o->special)
			return 0;
		*why = "not a valid timestamp";
		return -1;
	}
	c.p = s;
	c.end = s + len;
	if (rk_tu_parse_ymd(&c, &y, &m, &d, why) < 0)
		return -1;
	if (c.p < c.end && (*c.p == 'T' || *c.p == 't' || rk_tu_blank(*c.p))) {
		const char *q = c.p + 1;

		while (q < c.end && rk_tu_blank(*q))
			q++;
		if (q < c.end && rk_tu_digit(*q)) {
			c.p = q;
			if (rk_tu_parse_tod(&c, &o->tod_usec, why) < 0)
				return -1;
			o->has_time = true;
			q = c.p;
			while (q < c.end && rk_tu_blank(*q))
				q++;
			if (q < c.end && !(c.end - q == 2 && rk_tu_word(q, 2, "bc"))) {
				c.p = q;
				if (rk_tu_parse_zone(&c, &o->offset_sec, why) < 0)
					return -1;
				o->has_zone = true;
			}
		}
	}
	bc = rk_tu_bc_suffix(&c);
	if (c.p != c.end) {
		*why = "not a valid timestamp";
		return -1;
	}
	return rk_tu_ymd_days(y, m, d, bc, &o->days, why);
}

/*
 * The instant of parsed parts; ignore_zone drops an explicit offset.  The
 * sum is taken in 128 bits and only the instant is range-checked: a local
 * time past an rk_usec's end whose offset brings it back inside is an
 * instant like any other (294247-01-10 04:00:55+15 is 13:00:55 on the 9th,
 * UTC), as it is for the wide parser and for PostgreSQL.
 */
static int rk_tu_instant(const rk_tu_parts *pt, bool ignore_zone, rk_usec *out, const char **why)
{
	rk_wusec t;

	if (pt->special) {
		*out = pt->special > 0 ? RK_USEC_PINF : RK_USEC_NINF;
		return 0;
	}
	/* a date past the last one's day bounds the product well within 128 bits */
	if (pt->days < RK_MIN_DAYS || pt->days >= RK_DATE_END_DAYS)
		goto range;
	t = (rk_wusec)pt->days * RK_USEC_PER_DAY + pt->tod_usec;
	if (!ignore_zone)
		t -= (rk_wusec)pt->offset_sec * RK_USEC_PER_SEC;
	/* The first day of Julian day 0 is the floor; INT64_MAX is 'infinity'. */
	if (t < RK_WUSEC_MIN || t > (rk_wusec)RK_USEC_LAST)
		goto range;
	*out = (rk_usec)t;
	return 0;
range:
	*why = "timestamp out of range";
	return -1;
}

/* The wide instant of parsed parts: PostgreSQL's tm2timestamp, which
 * checks the date before the offset applies and the instant after. */
static int rk_tu_instant_wide(const rk_tu_parts *pt, bool ignore_zone, rk_wusec *out, const char **why)
{
	rk_wusec t;

	if (pt->special) {
		*out = pt->special > 0 ? RK_WUSEC_PINF : RK_WUSEC_NINF;
		return 0;
	}
	/* a date past the last one's day bounds the product well within 128 bits */
	if (pt->days < RK_MIN_DAYS || pt->days >= RK_DATE_END_DAYS)
		goto range;
	t = (rk_wusec)pt->days * RK_USEC_PER_DAY + pt->tod_usec;
	if (!ignore_zone)
		t -= (rk_wusec)pt->offset_sec * RK_USEC_PER_SEC;
	if (t < RK_WUSEC_MIN || t >= RK_WUSEC_END)
		goto range;
	*out = t;
	return 0;
range:
	*why = "timestamp out of range";
	return -1;
}

int rk_time_parse_wide(const char *s, size_t len, bool local, rk_wusec *out, const char **why)
{
	rk_tu_parts pt;

	if (rk_tu_parse(s, len, &pt, why) < 0)
		return -1;
	return rk_tu_instant_wide(&pt, local, out, why);
}

int rk_time_parse_placed(const char *s, size_t len, bool local, rk_usec *out, const char **why)
{
	rk_tu_parts pt;
	rk_wusec w;

	if (rk_tu_parse(s, len, &pt, why) < 0)
		return -1;
	if (rk_tu_instant(&pt, local, out, why) == 0)
		return 0;
	if (rk_tu_instant_wide(&pt, local, &w, why) < 0)
		return -1;
	*out = rk_usec_place(w);
	return 0;
}

int rk_time_parse(const char *s, size_t len, rk_usec *out, const char **why)
{
	rk_tu_parts pt;

	if (rk_tu_parse(s, len, &pt, why) < 0)
		return -1;
	return rk_tu_instant(&pt, false, out, why);
}

int rk_time_parse_local(const char *s, size_t len, rk_usec *out, const char **why)
{
	rk_tu_parts pt;

	if (rk_tu_parse(s, len, &pt, why) < 0)
		return -1;
	return rk_tu_instant(&pt, true, out, why);
}

int rk_date_parse(const char *s, size_t len, int64_t *days, const char **why)
{
	rk_tu_cursor c;
	int64_t y;
	unsigned m, d;
	bool bc;
	int special;

	rk_tu_trim(&s, &len);
	if (len == 0) {
		*why = "empty value";
		return -1;
	}
	if (!rk_tu_digit(s[0])) {
		special = rk_tu_special(s, len);
		if (!special) {
			*why = "not a valid date (expected YYYY-MM-DD)";
			return -1;
		}
		*days = special > 0 ? INT64_MAX : INT64_MIN;
		return 0;
	}
	c.p = s;
	c.end = s + len;
	if (rk_tu_parse_ymd(&c, &y, &m, &d, why) < 0)
		return -1;
	bc = rk_tu_bc_suffix(&c);
	if (c.p != c.end) {
		*why = "not a valid date (expected YYYY-MM-DD)";
		return -1;
	}
	if (rk_tu_ymd_days(y, m, d, bc, days, why) < 0)
		return -1;
	if (*days < RK_MIN_DAYS || *days >= RK_DATE_END_DAYS) {
		*why = "date out of range";
		return -1;
	}
	return 0;
}

int rk_time_parse_arg(const char *option, const char *s, rk_usec *out, rk_error *err)
{
	rk_tu_parts pt;
	const char *why = NULL;

	if (!s || !*s)
		return rk_error_set(err, RK_EXIT_USAGE, "%s needs a value", option);
	if (rk_tu_parse(s, strlen(s), &pt, &why) < 0)
		goto bad;
	if (pt.special) {
		why = "not a finite instant";
		goto bad;
	}
	if (!pt.has_zone && pt.has_time) {
		rk_error_set(err, RK_EXIT_USAGE, "invalid %s '%s': no time zone given", option, s);
		return rk_error_hint(err, "add Z or an offset so the instant is unambiguous, e.g. 2026-03-02T10:00:00Z");
	}
	if (rk_tu_instant(&pt, false, out, &why) < 0) {
		rk_wusec w;
		char last[RK_TIME_STRLEN];

		if (rk_tu_instant_wide(&pt, false, &w, &why) < 0 || w < 0)
			goto bad;
		/* PostgreSQL's last years: a value, never a window's bound */
		rk_error_set(err, RK_EXIT_USAGE, "invalid %s '%s': later than the last instant reckon's windows reach, %s",
		             option, s, rk_time_format(RK_USEC_LAST, last));
		return rk_error_hint(err, "rows after it are outside every window reckon forms (docs/digest.md)");
	}
	return 0;
bad:
	rk_error_set(err, RK_EXIT_USAGE, "invalid %s '%s': %s", option, s, why);
	return rk_error_hint(err, "write an ISO-8601 instant with Z or an offset, e.g. 2026-03-02T10:00:00Z");
}

bool rk_time_arg_date(const char *s, int64_t *days)
{
	rk_tu_parts pt;
	const char *why;

	if (!s || rk_tu_parse(s, strlen(s), &pt, &why) < 0 || pt.special || pt.has_time)
		return false;
	*days = pt.days;
	return true;
}

int rk_duration_parse(const char *option, const char *s, bool allow_zero, rk_usec *out, rk_error *err)
{
	static const struct {
		const char *unit;
		int64_t usec;
	} units[] = {
		{ "us", 1 },
		{ "ms", 1000 },
		{ "s", RK_USEC_PER_SEC },
		{ "sec", RK_USEC_PER_SEC },
		{ "secs", RK_USEC_PER_SEC },
		{ "second", RK_USEC_PER_SEC },
		{ "seconds", RK_USEC_PER_SEC },
		{ "m", 60 * RK_USEC_PER_SEC },
		{ "min", 60 * RK_USEC_PER_SEC },
		{ "mins", 60 * RK_USEC_PER_SEC },
		{ "minute", 60 * RK_USEC_PER_SEC },
		{ "minutes", 60 * RK_USEC_PER_SEC },
		{ "h", 3600 * RK_USEC_PER_SEC },
		{ "hour", 3600 * RK_USEC_PER_SEC },
		{ "hours", 3600 * RK_USEC_PER_SEC },
		{ "d", RK_USEC_PER_DAY },
		{ "day", RK_USEC_PER_DAY },
		{ "days", RK_USEC_PER_DAY },
		{ "w", 7 * RK_USEC_PER_DAY },
		{ "week", 7 * RK_USEC_PER_DAY },
		{ "weeks", 7 * RK_USEC_PER_DAY },
	};
	const char *p = s;
	const char *why;
	int64_t total = 0;

	if (!s || !*s)
		return rk_error_set(err, RK_EXIT_USAGE, "%s needs a value", option);
	if (strcmp(s, "0") == 0) {
		if (!allow_zero) {
			why = "must be greater than zero";
			goto bad;
		}
		*out = 0;
		return 0;
	}
	while (*p) {
		int64_t n = 0, part;
		const char *u;
		size_t ulen, i;

		if (!rk_tu_digit(*p)) {
			why = "expected a number";
			goto bad;
		}
		while (rk_tu_digit(*p)) {
			if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, *p - '0', &n)) {
				why = "too large";
				goto bad;
			}
			p++;
		}
		u = p;
		while (*p && !rk_tu_digit(*p))
			p++;
		ulen = (size_t)(p - u);
		if (ulen == 0) {
			why = "missing unit";
			goto bad;
		}
		for (i = 0; i < sizeof units / sizeof units[0]; i++)
			if (strlen(units[i].unit) == ulen && memcmp(units[i].unit, u, ulen) == 0)
				break;
		if (i == sizeof units / sizeof units[0]) {
			why = "unknown unit";
			goto bad;
		}
		if (__builtin_mul_overflow(n, units[i].usec, &part) ||
		    __builtin_add_overflow(total, part, &total)) {
			why = "too large";
			goto bad;
		}
	}
	if (total == 0 && !allow_zero) {
		why = "must be greater than zero";
		goto bad;
	}
	*out = total;
	return 0;
bad:
	rk_error_set(err, RK_EXIT_USAGE, "invalid %s '%s': %s", option, s, why);
	return rk_error_hint(err, "write a duration as <number><unit>, units us, ms, s, m, h, d, w, e.g. 90s, 15m, 1h30m");
}

/* ------------------------------------------------------------------ */
/* Formatting: digits by hand, no printf on paths that run per value. */

/* Writes v in decimal, zero-padded to at least width digits; returns the end. */
static char *rk_tu_put_uint(char *p, uint64_t v, int width)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < width)
		tmp[n++] = '0';
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *rk_tu_put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/* "YYYY-MM-DD" of a day number; *bc set when the year is before 1 AD. */
static char *rk_tu_put_date(char *p, int64_t days, bool *bc)
{
	int64_t y;
	unsigned m, d;

	rk_tu_civil_from_days(days, &y, &m, &d);
	*bc = y <= 0;
	if (*bc)
		y = 1 - y;
	p = rk_tu_put_uint(p, (uint64_t)y, 4);
	*p++ = '-';
	p = rk_tu_put_uint(p, m, 2);
	*p++ = '-';
	return rk_tu_put_uint(p, d, 2);
}

/* Splits a finite instant into days and microseconds of the day (floored). */
static void rk_tu_split(rk_wusec t, int64_t *days, int64_t *tod)
{
	*days = (int64_t)(t / RK_USEC_PER_DAY);
	*tod = (int64_t)(t % RK_USEC_PER_DAY);
	if (*tod < 0) {
		*tod += RK_USEC_PER_DAY;
		(*days)--;
	}
}

/* The word of an infinity, or false for a finite instant. */
static bool rk_tu_put_special(rk_wusec t, char out[RK_TIME_STRLEN])
{
	if (t != RK_WUSEC_PINF && t != RK_WUSEC_NINF)
		return false;
	strcpy(out, t == RK_WUSEC_PINF ? "infinity" : "-infinity");
	return true;
}

static char *rk_tu_put_tod(char *p, int64_t tod, bool always_frac)
{
	int64_t secs = tod / RK_USEC_PER_SEC;
	int64_t frac = tod % RK_USEC_PER_SEC;

	p = rk_tu_put_uint(p, (uint64_t)(secs / 3600), 2);
	*p++ = ':';
	p = rk_tu_put_uint(p, (uint64_t)(secs / 60 % 60), 2);
	*p++ = ':';
	p = rk_tu_put_uint(p, (uint64_t)(secs % 60), 2);
	if (frac || always_frac) {
		*p++ = '.';
		p = rk_tu_put_uint(p, (uint64_t)frac, 6);
	}
	return p;
}

char *rk_time_format(rk_usec t, char out[RK_TIME_STRLEN])
{
	return rk_time_format_wide(rk_wusec_of(t), out);
}

char *rk_time_format_wide(rk_wusec t, char out[RK_TIME_STRLEN])
{
	int64_t days, tod;
	bool bc;
	char *p = out;

	if (rk_tu_put_special(t, out))
		return out;
	rk_tu_split(t, &days, &tod);
	p = rk_tu_put_date(p, days, &bc);
	*p++ = 'T';
	p = rk_tu_put_tod(p, tod, false);
	*p++ = 'Z';
	if (bc)
		p = rk_tu_put_str(p, " BC");
	*p = '\0';
	return out;
}

/* "YYYY-MM-DD HH:MM:SS" with the fraction as a literal wants it (always, six
 * digits) or as PostgreSQL prints it (pg: only when not zero, without
 * trailing zeros), then "+00" (with_zone) and " BC". */
static char *rk_tu_format_spaced(rk_wusec t, bool with_zone, bool pg, char out[RK_TIME_STRLEN])
{
	int64_t days, tod;
	bool bc;
	char *p = out;

	if (rk_tu_put_special(t, out))
		return out;
	rk_tu_split(t, &days, &tod);
	p = rk_tu_put_date(p, days, &bc);
	*p++ = ' ';
	p = rk_tu_put_tod(p, tod, !pg);
	if (pg && tod % RK_USEC_PER_SEC)
		while (p[-1] == '0')
			p--;
	if (with_zone)
		p = rk_tu_put_str(p, "+00");
	if (bc)
		p = rk_tu_put_str(p, " BC");
	*p = '\0';
	return out;
}

char *rk_time_format_sql(rk_usec t, bool with_zone, char out[RK_TIME_STRLEN])
{
	return rk_tu_format_spaced(rk_wusec_of(t), with_zone, false, out);
}

char *rk_time_format_pg(rk_usec t, bool with_zone, char out[RK_TIME_STRLEN])
{
	return rk_tu_format_spaced(rk_wusec_of(t), with_zone, true, out);
}

char *rk_time_format_sql_wide(rk_wusec t, bool with_zone, char out[RK_TIME_STRLEN])
{
	return rk_tu_format_spaced(t, with_zone, false, out);
}

char *rk_time_format_pg_wide(rk_wusec t, bool with_zone, char out[RK_TIME_STRLEN])
{
	return rk_tu_format_spaced(t, with_zone, true, out);
}

char *rk_date_format(int64_t days, char out[RK_TIME_STRLEN])
{
	bool bc;
	char *p;

	if (days == INT64_MAX || days == INT64_MIN) {
		strcpy(out, days == INT64_MAX ? "infinity" : "-infinity");
		return out;
	}
	p = rk_tu_put_date(out, days, &bc);
	if (bc)
		p = rk_tu_put_str(p, " BC");
	*p = '\0';
	return out;
}

char *rk_duration_format(rk_usec d, char out[RK_TIME_STRLEN])
{
	static const struct {
		char unit[3];
		int64_t usec;
	} units[] = {
		{ "d", RK_USEC_PER_DAY },
		{ "h", 3600 * RK_USEC_PER_SEC },
		{ "m", 60 * RK_USEC_PER_SEC },
		{ "s", RK_USEC_PER_SEC },
		{ "ms", 1000 },
		{ "us", 1 },
	};
	char *p = out;
	uint64_t v;

	if (d == 0) {
		strcpy(out, "0s");
		return out;
	}
	if (d < 0) {
		*p++ = '-';
		v = (uint64_t)0 - (uint64_t)d;
	} else {
		v = (uint64_t)d;
	}
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		uint64_t n = v / (uint64_t)units[i].usec;

		if (n) {
			p = rk_tu_put_uint(p, n, 1);
			p = rk_tu_put_str(p, units[i].unit);
			v -= n * (uint64_t)units[i].usec;
		}
	}
	*p = '\0';
	return out;
}

int64_t rk_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	return rk_tu_days_from_civil(y, m, d);
}

void rk_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
	rk_tu_civil_from_days(days, y, m, d);
}

rk_usec rk_time_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (rk_usec)ts.tv_sec * RK_USEC_PER_SEC + ts.tv_nsec / 1000;
}
