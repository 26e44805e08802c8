/*
 * tz.c - time zones read through the C library into offset tables, and
 * calendar windows in them (tz.h).
 */
#include "core/tz.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/buf.h"

/* The span the table covers (seconds since 1970): 1900-01-01 to
 * 2200-01-01.  Before and after, the first and last offsets hold. */
#define RK_TZ_LO INT64_C(-2208988800)
#define RK_TZ_HI INT64_C(7258118400)
#define RK_TZ_PROBE (7 * 86400)
#define RK_TZ_NAME_MAX 200

struct rk_tz {
	char *name;
	size_t n;           /* offset changes; off[i] holds from at[i] on */
	int64_t *at;        /* seconds; at[0] is RK_TZ_LO (the offset before everything) */
	int32_t *off;       /* seconds east of UTC */
	struct rk_tz *next; /* the registry */
};

static pthread_mutex_t rk_tz_lock = PTHREAD_MUTEX_INITIALIZER;
static rk_tz *rk_tz_loaded;

static int32_t rk_tz_probe(time_t t)
{
	struct tm tm;

	if (!localtime_r(&t, &tm))
		return 0;
	return (int32_t)tm.tm_gmtoff;
}

static void rk_tz_push(rk_tz *z, size_t *cap, int64_t at, int32_t off)
{
	if (z->n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		z->at = rk_xrealloc(z->at, *cap * sizeof *z->at);
		z->off = rk_xrealloc(z->off, *cap * sizeof *z->off);
	}
	z->at[z->n] = at;
	z->off[z->n] = off;
	z->n++;
}

/* The table of the zone TZ now names: weekly probes, each change bisected
 * to the second at which the new offset starts. */
static void rk_tz_table(rk_tz *z)
{
	size_t cap = 0;
	int32_t prev = rk_tz_probe((time_t)RK_TZ_LO);

	rk_tz_push(z, &cap, RK_TZ_LO, prev);
	for (int64_t t = RK_TZ_LO + RK_TZ_PROBE; t < RK_TZ_HI + RK_TZ_PROBE; t += RK_TZ_PROBE) {
		int32_t o = rk_tz_probe((time_t)t);
		int64_t lo = t - RK_TZ_PROBE, hi = t;

		if (o == prev)
			continue;
		/* off(lo) == prev, off(hi) == o: the first second of o */
		while (hi - lo > 1) {
			int64_t mid = lo + (hi - lo) / 2;

			if (rk_tz_probe((time_t)mid) == prev)
				lo = mid;
			else
				hi = mid;
		}
		rk_tz_push(z, &cap, hi, rk_tz_probe((time_t)hi));
		prev = z->off[z->n - 1];
		if (prev != o) {
			/* two changes in one probe step: the later one from t */
			rk_tz_push(z, &cap, t, o);
			prev = o;
		}
	}
}

/* Whether name is a zone file of the system's zoneinfo: a plain relative
 * path of [A-Za-z0-9_+-] parts, naming a TZif file.  why says what is wrong. */
static bool rk_tz_exists(const char *name, char *path, size_t pathlen, const char **why)
{
	const char *dir = getenv("TZDIR");
	struct stat st;
	char magic[4];
	FILE *fp;

	if (!*name || strlen(name) > RK_TZ_NAME_MAX || name[0] == '/' || strstr(name, "..") ||
	    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/_+-") != strlen(name)) {
		*why = "not an IANA zone name";
		return false;
	}
	snprintf(path, pathlen, "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name);
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		*why = "no such zone in the system's zoneinfo";
		return false;
	}
	fp = fopen(path, "rb");
	if (!fp || fread(magic, 1, 4, fp) != 4 || memcmp(magic, "TZif", 4) != 0) {
		if (fp)
			fclose(fp);
		*why = "not a zone file";
		return false;
	}
	fclose(fp);
	return true;
}

static rk_tz *rk_tz_load(const char *name)
{
	rk_tz *z = rk_xcalloc(1, sizeof *z);
	const char *old = getenv("TZ");
	char *saved = old ? rk_xstrdup(old) : NULL;

	z->name = rk_xstrdup(name);
	setenv("TZ", name, 1);
	tzset();
	rk_tz_table(z);
	if (saved)
		setenv("TZ", saved, 1);
	else
		unsetenv("TZ");
	tzset();
	free(saved);
	return z;
}

const rk_tz *rk_tz_get(const char *name, const char *option, rk_error *err)
{
	char path[RK_TZ_NAME_MAX + 512];
	const char *why = NULL;
	rk_tz *z;

	pthread_mutex_lock(&rk_tz_lock);
	for (z = rk_tz_loaded; z; z = z->next)
		if (strcmp(z->name, name) == 0)
			break;
	if (!z && rk_tz_exists(name, path, sizeof path, &why)) {
		z = rk_tz_load(name);
		z->next = rk_tz_loaded;
		rk_tz_loaded = z;
	}
	pthread_mutex_unlock(&rk_tz_lock);
	if (!z) {
		rk_error_set(err, RK_EXIT_USAGE, "invalid %s '%s': %s", option, name, why);
		return rk_error_hint(err, "give an IANA time zone such as Europe/Berlin or America/New_York (the files of "
		                          "/usr/share/zoneinfo, Debian package tzdata; timedatectl list-timezones lists "
		                          "them)"),
		       NULL;
	}
	return z;
}

const char *rk_tz_name(const rk_tz *z)
{
	return z->name;
}

/* Floor division of microseconds to seconds. */
static int64_t rk_tz_secs(rk_usec t)
{
	return t / RK_USEC_PER_SEC - (t % RK_USEC_PER_SEC < 0);
}

/* The index of the table entry in force at instant s (seconds): the last
 * i with at[i] <= s (at[0] holds before it too). */
static size_t rk_tz_index(const rk_tz *z, int64_t s)
{
	size_t lo = 0, hi = z->n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (z->at[mid] <= s)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int32_t rk_tz_offset(const rk_tz *z, rk_usec t)
{
	return z->off[rk_tz_index(z, rk_tz_secs(t))];
}

rk_usec rk_tz_utc(const rk_tz *z, rk_usec local, rk_tz_fit *fit)
{
	/* the offsets a day either side: any change near local lies between */
	int32_t before = rk_tz_offset(z, local - RK_USEC_PER_DAY);
	int32_t after = rk_tz_offset(z, local + RK_USEC_PER_DAY);
	rk_usec c1 = local - (rk_usec)before * RK_USEC_PER_SEC;
	rk_usec c2 = local - (rk_usec)after * RK_USEC_PER_SEC;
	bool ok1 = rk_tz_local(z, c1) == local, ok2 = before != after && rk_tz_local(z, c2) == local;
	rk_tz_fit f;
	rk_usec t;

	if (ok1 && ok2) {
		f = RK_TZ_AMBIGUOUS;
		t = c2;
	} else if (ok1 || ok2) {
		f = RK_TZ_EXACT;
		t = ok1 ? c1 : c2;
	} else {
		f = RK_TZ_GAP;
		t = c1;
	}
	if (fit)
		*fit = f;
	return t;
}

char *rk_tz_format(const rk_tz *z, rk_usec t, char out[RK_TIME_STRLEN])
{
	int32_t off = rk_tz_offset(z, t);
	int32_t a = off < 0 ? -off : off;
	size_t n;

	rk_time_format(t + (rk_usec)off * RK_USEC_PER_SEC, out);
	n = strlen(out);
	if (n == 0 || out[n - 1] != 'Z')
		return out; /* an infinity, or BC: outside any table */
	if (a % 60)
		snprintf(out + n - 1, RK_TIME_STRLEN - (n - 1), "%c%02d:%02d:%02d", off < 0 ? '-' : '+', a / 3600,
		         a / 60 % 60, a % 60);
	else
		snprintf(out + n - 1, RK_TIME_STRLEN - (n - 1), "%c%02d:%02d", off < 0 ? '-' : '+', a / 3600, a / 60 % 60);
	return out;
}

/* The local day number of instant t. */
static int64_t rk_tz_day(const rk_tz *z, rk_usec t)
{
	rk_usec l = rk_tz_local(z, t);

	return l / RK_USEC_PER_DAY - (l % RK_USEC_PER_DAY < 0);
}

static int64_t rk_tz_floordiv(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* The instant local day number d begins. */
static rk_usec rk_tz_day_start(const rk_tz *z, int64_t d)
{
	return rk_tz_utc(z, d * RK_USEC_PER_DAY, NULL);
}

/* Month index since January 1970 of local day d, and back. */
static int64_t rk_tz_month_of(int64_t d)
{
	int64_t y;
	unsigned m, dd;

	rk_civil_from_days(d, &y, &m, &dd);
	return (y - 1970) * 12 + (int64_t)m - 1;
}

static int64_t rk_tz_month_day(int64_t mi)
{
	int64_t y = 1970 + rk_tz_floordiv(mi, 12);
	unsigned m = (unsigned)(mi - rk_tz_floordiv(mi, 12) * 12) + 1;

	return rk_days_from_civil(y, m, 1);
}

rk_usec rk_tz_midnight(const rk_tz *z, rk_usec t)
{
	return rk_tz_day_start(z, rk_tz_day(z, t));
}

rk_usec rk_tz_step(const rk_tz *z, rk_calunit unit, rk_usec b, int64_t k)
{
	int64_t d = rk_tz_day(z, b);

	if (unit.months)
		return rk_tz_day_start(z, rk_tz_month_day(rk_tz_month_of(d) + k * unit.months));
	return rk_tz_day_start(z, d + k * unit.days);
}

rk_usec rk_tz_floor(const rk_tz *z, rk_calunit unit, rk_usec t)
{
	int64_t d = rk_tz_day(z, t);
	rk_usec b;

	if (unit.months) {
		int64_t mi = rk_tz_month_of(d);

		b = rk_tz_day_start(z, rk_tz_month_day(rk_tz_floordiv(mi, unit.months) * unit.months));
	} else {
		/* runs of days counted from Monday 1970-01-05 (day 4) */
		b = rk_tz_day_start(z, rk_tz_floordiv(d - 4, unit.days) * unit.days + 4);
	}
	/* a midnight the gap rule placed after t: the unit before */
	return b > t ? rk_tz_step(z, unit, b, -1) : b;
}

int rk_tz_bounds(const rk_tz *z, rk_calunit unit, rk_usec from, rk_usec to, size_t max, rk_usec **bounds,
                 size_t *n, rk_error *err)
{
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN], c[RK_TIME_STRLEN];
	const char *what = unit.months ? "month" : "day";
	size_t cap = 0, k = 0;
	rk_usec *v = NULL, t = from;

	*bounds = NULL;
	*n = 0;
	if (rk_tz_midnight(z, from) != from ||
	    (unit.months && rk_tz_floor(z, (rk_calunit){ 1, 0 }, from) != from)) {
		rk_error_set(err, RK_EXIT_USAGE, "--from %s is not the start of a %s in %s", rk_tz_format(z, from, a),
		             unit.months ? "month" : "day", rk_tz_name(z));
		return rk_error_hint(err, "give --from as a date (e.g. %.*s%s), meaning that %s's first midnight in %s",
		                     unit.months ? 7 : 10, rk_tz_format(z, from, b), unit.months ? "-01" : "", what,
		                     rk_tz_name(z));
	}
	while (t < to) {
		if (k == max) {
			free(v);
			rk_error_set(err, RK_EXIT_USAGE, "the range holds more than %zu windows", max);
			return rk_error_hint(err, "use a wider --window or a shorter range");
		}
		if (k + 2 > cap) {
			cap = cap ? cap * 2 : 64;
			v = rk_xrealloc(v, cap * sizeof *v);
		}
		v[k++] = t;
		t = rk_tz_step(z, unit, from, (int64_t)k);
	}
	if (t != to || k == 0) {
		free(v);
		rk_error_set(err, RK_EXIT_USAGE, "the range [%s, %s) is not a whole number of %d-%s windows in %s",
		             rk_tz_format(z, from, a), rk_tz_format(z, to, b), unit.months ? unit.months : unit.days, what,
		             rk_tz_name(z));
		return rk_error_hint(err, "end the range on a window boundary, e.g. --to %s (dates mean midnight in %s)",
		                     k ? rk_tz_format(z, t, c) : rk_tz_format(z, rk_tz_step(z, unit, from, 1), c),
		                     rk_tz_name(z));
	}
	v[k] = to;
	*bounds = v;
	*n = k + 1;
	return 0;
}

void rk_tz_placer_init(rk_tz_placer *p, const rk_tz *z)
{
	p->z = z;
	p->lo = p->hi = 0;
	p->off = 0;
}

/* Seconds as microseconds, saturating at the instants reckon holds. */
static rk_usec rk_tz_us(int64_t s)
{
	if (s >= RK_USEC_PINF / RK_USEC_PER_SEC)
		return RK_USEC_PINF;
	if (s <= RK_USEC_NINF / RK_USEC_PER_SEC)
		return RK_USEC_NINF;
	return (rk_usec)s * RK_USEC_PER_SEC;
}

rk_usec rk_tz_place_slow(rk_tz_placer *p, rk_usec local, rk_tz_fit *fit)
{
	const rk_tz *z = p->z;
	rk_usec t = rk_tz_utc(z, local, fit), off, lo, hi;
	size_t i;

	p->lo = p->hi = 0;
	if (*fit != RK_TZ_EXACT || t == RK_USEC_PINF || t == RK_USEC_NINF)
		return t;
	off = local - t;
	i = rk_tz_index(z, rk_tz_secs(t));
	/* the offset's own wall-clock span, less where a neighbour's overlaps
	 * it (a fall-back hour: ambiguous) */
	lo = i == 0 ? RK_USEC_NINF : rk_tz_us(z->at[i]) + off;
	hi = i + 1 == z->n ? RK_USEC_PINF : rk_tz_us(z->at[i + 1]) + off;
	if (i > 0 && z->off[i - 1] > z->off[i])
		lo = rk_tz_us(z->at[i]) + (rk_usec)z->off[i - 1] * RK_USEC_PER_SEC;
	if (i + 1 < z->n && z->off[i + 1] < z->off[i])
		hi = rk_tz_us(z->at[i + 1]) + (rk_usec)z->off[i + 1] * RK_USEC_PER_SEC;
	/* rk_tz_utc looks a day either side: a span of a few days could hold
	 * times it places otherwise; those are not cached */
	if (i > 0 && i + 1 < z->n && z->at[i + 1] - z->at[i] < 4 * 86400)
		return t;
	if (lo <= local && local < hi) {
		p->lo = lo;
		p->hi = hi;
		p->off = off;
	}
	return t;
}

/* The smallest and the largest offset (microseconds) in force at some
 * instant of [t - 3 days, t + 3 days]. */
static void rk_tz_offsets_near(const rk_tz *z, rk_usec t, rk_usec *mn, rk_usec *mx)
{
	int64_t s = rk_tz_secs(t);
	size_t i = rk_tz_index(z, s - 3 * 86400);

	*mn = *mx = (rk_usec)z->off[i] * RK_USEC_PER_SEC;
	for (i++; i < z->n && z->at[i] <= s + 3 * 86400; i++) {
		rk_usec o = (rk_usec)z->off[i] * RK_USEC_PER_SEC;

		if (o < *mn)
			*mn = o;
		if (o > *mx)
			*mx = o;
	}
}

void rk_tz_wall_range(const rk_tz *z, rk_usec from, rk_usec to, rk_usec *lo, rk_usec *hi)
{
	rk_usec mn, mx;

	*lo = from;
	*hi = to;
	if (from != RK_USEC_NINF && from != RK_USEC_PINF) {
		rk_tz_offsets_near(z, from, &mn, &mx);
		*lo = from + mn;
	}
	if (to != RK_USEC_NINF && to != RK_USEC_PINF) {
		rk_tz_offsets_near(z, to, &mn, &mx);
		*hi = to + mx;
	}
}

bool rk_tz_is_utc(const rk_tz *z)
{
	for (size_t i = 0; i < z->n; i++)
		if (z->off[i] != 0)
			return false;
	return true;
}

bool rk_time_text_offset(const char *text, int32_t *off)
{
	size_t n = strlen(text), i;
	int h = 0, m = 0, digits = 0;

	while (n > 0 && (text[n - 1] == ' '))
		n--;
	if (n > 10 && (text[n - 1] == 'Z' || text[n - 1] == 'z')) {
		*off = 0;
		return true;
	}
	/* the sign after the time of day: past the date's own dashes */
	for (i = n; i > 10 && text[i - 1] != '+' && text[i - 1] != '-'; i--)
		;
	if (i <= 10)
		return false;
	for (size_t k = i; k < n; k++) {
		if (text[k] == ':')
			continue;
		if (text[k] < '0' || text[k] > '9')
			return false;
		if (digits < 2)
			h = h * 10 + (text[k] - '0');
		else if (digits < 4)
			m = m * 10 + (text[k] - '0');
		digits++;
	}
	if (digits != 2 && digits != 4)
		return false;
	*off = (text[i - 1] == '-' ? -1 : 1) * (h * 3600 + m * 60);
	return true;
}

bool rk_tz_unit_of(const rk_tz *z, rk_usec start, rk_usec end, rk_calunit *unit)
{
	int64_t d0, d1, m;

	if (start >= end || rk_tz_midnight(z, start) != start || rk_tz_midnight(z, end) != end)
		return false;
	d0 = rk_tz_day(z, start);
	d1 = rk_tz_day(z, end);
	m = rk_tz_month_of(d1) - rk_tz_month_of(d0);
	if (m > 0 && m <= INT32_MAX && rk_tz_month_day(rk_tz_month_of(d0)) == d0 &&
	    rk_tz_month_day(rk_tz_month_of(d1)) == d1) {
		*unit = (rk_calunit){ (int32_t)m, 0 };
		return true;
	}
	if (d1 - d0 > INT32_MAX)
		return false;
	*unit = (rk_calunit){ 0, (int32_t)(d1 - d0) };
	return true;
}

int64_t rk_tz_units_between(const rk_tz *z, rk_calunit unit, rk_usec anchor, rk_usec t)
{
	int64_t d0 = rk_tz_day(z, anchor), d = rk_tz_day(z, t), k;

	if (unit.months)
		k = rk_tz_floordiv(rk_tz_month_of(d) - rk_tz_month_of(d0), unit.months);
	else
		k = rk_tz_floordiv(d - d0, unit.days);
	/* a midnight the gap rule placed after t: the unit before */
	return rk_tz_step(z, unit, anchor, k) > t ? k - 1 : k;
}
