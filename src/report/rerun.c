/*
 * rerun.c - reading, validating, merging and printing rerun lists.
 *
 * The reader is strict on purpose: a rerun list drives `reckon repair`,
 * which deletes and re-inserts target rows, so a list that is out of order,
 * overlapping or half-edited is refused with the exact place to fix rather
 * than guessed at.  Fields may be quoted (a spreadsheet may have saved the
 * file) but a field never spans lines: no value of the format needs to.
 */
#include "report/rerun.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "core/buf.h"
#include "core/text.h"

#define RK_RR_NFIELDS 8
#define RK_RR_KEY_NFIELDS 9 /* a key list's lines add kind */
#define RK_RR_SHOW 64       /* bytes of a bad value quoted in a message */
#define RK_RR_COUNT_MAX ((uint64_t)INT64_MAX)

static const char *const rk_rr_names[RK_RR_KEY_NFIELDS] = {
	"interval_start",
	"interval_end",
	"source_rows",
	"target_rows",
	"missing",
	"extra",
	"duplicated",
	"changed",
	"kind",
};

#define RK_RR_HINT_FORMAT                                                                           \
	"a rerun list is what 'reckon check --rerun-list FILE' writes: the header " RK_RERUN_HEADER \
	", then one line per interval, e.g. 2026-03-02T10:00:00Z,2026-03-02T11:00:00Z,5,4,1,0,0,0"

/* One field of a line: its text (unquoted) and the column it starts at. */
typedef struct rk_rr_field {
	const char *s;
	size_t len;
	size_t col;
	bool quoted; /* "" is the empty text; an unquoted empty field is nothing */
} rk_rr_field;

/* Sets err to "NAME:LINE:COL: message" (RK_EXIT_USAGE); returns -1. */
static int rk_rr_fail(rk_error *err, const char *name, unsigned long line, size_t col, const char *fmt, ...)
        RK_PRINTF(5, 6);

static int rk_rr_fail(rk_error *err, const char *name, unsigned long line, size_t col, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	return rk_error_set(err, RK_EXIT_USAGE, "%s:%lu:%zu: %s", name, line, col, text);
}

/*
 * Splits one line (without its line end) into at most max fields.
 * Unquoted fields point into line; quoted ones are unescaped into scratch,
 * which has room for the whole line so the pointers stay valid.
 */
static int rk_rr_split(const char *name, unsigned long lineno, const char *line, size_t len, rk_buf *scratch,
                       rk_rr_field *f, size_t max, size_t *nf, rk_error *err)
{
	size_t pos = 0, n = 0;

	rk_buf_reset(scratch);
	rk_buf_grow(scratch, len + 1);
	for (;;) {
		size_t col = pos + 1;

		if (n == max) {
			rk_rr_fail(err, name, lineno, col, "too many fields: a rerun list line has %zu", max);
			return rk_error_hint(err, "%s", RK_RR_HINT_FORMAT);
		}
		f[n].quoted = pos < len && line[pos] == '"';
		if (pos < len && line[pos] == '"') {
			char *start = scratch->data + scratch->len;

			for (pos++;; pos++) {
				if (pos >= len) {
					rk_rr_fail(err, name, lineno, col, "unterminated quoted field");
					return rk_error_hint(err, "close the quote; a field of a rerun list never spans lines");
				}
				if (line[pos] == '"') {
					if (pos + 1 < len && line[pos + 1] == '"') {
						rk_buf_putc(scratch, '"');
						pos++;
						continue;
					}
					pos++;
					break;
				}
				rk_buf_putc(scratch, line[pos]);
			}
			if (pos < len && line[pos] != ',') {
				rk_rr_fail(err, name, lineno, pos + 1, "unexpected character after a closing quote");
				return rk_error_hint(err, "fields are separated by commas");
			}
			f[n].s = start;
			f[n].len = (size_t)(scratch->data + scratch->len - start);
		} else {
			size_t start = pos;

			for (; pos < len && line[pos] != ','; pos++) {
				if (line[pos] == '"') {
					rk_rr_fail(err, name, lineno, pos + 1, "quote inside an unquoted field");
					return rk_error_hint(err, "quote the whole field, doubling inner quotes");
				}
			}
			f[n].s = line + start;
			f[n].len = pos - start;
		}
		f[n].col = col;
		n++;
		if (pos >= len)
			break;
		pos++; /* the comma */
	}
	*nf = n;
	return 0;
}

static int rk_rr_time(const char *name, unsigned long lineno, const rk_rr_field *f, int idx, rk_usec *out,
                      bool *zoneless, rk_error *err)
{
	const char *why = NULL;
	char *text;
	rk_error scratch;
	rk_usec again;

	if (f->len == 0) {
		rk_rr_fail(err, name, lineno, f->col, "%s is empty", rk_rr_names[idx]);
		return rk_error_hint(err, "write an instant such as 2026-03-02T10:00:00Z");
	}
	if (memchr(f->s, '\0', f->len) || rk_time_parse(f->s, f->len, out, &why) < 0) {
		rk_rr_fail(err, name, lineno, f->col, "%s '%.*s' is not a timestamp%s%s", rk_rr_names[idx],
		           (int)(f->len > RK_RR_SHOW ? RK_RR_SHOW : f->len), f->s, why ? ": " : "", why ? why : "");
		return rk_error_hint(err, "write an instant such as 2026-03-02T10:00:00Z (UTC) or with an offset");
	}
	if (*out == RK_USEC_PINF || *out == RK_USEC_NINF) {
		rk_rr_fail(err, name, lineno, f->col, "%s must be a finite instant, not '%.*s'", rk_rr_names[idx],
		           (int)f->len, f->s);
		return rk_error_hint(err, "an interval of a rerun list has finite bounds");
	}
	/* a command-line instant needs a zone; remember whether this one had
	 * one, for the commands that read instants as --from does (whatever
	 * its length: a value padded past a fixed buffer was not looked at) */
	text = rk_xstrndup(f->s, f->len);
	rk_error_clear(&scratch);
	if (rk_time_parse_arg(rk_rr_names[idx], text, &again, &scratch) < 0)
		*zoneless = true;
	free(text);
	return 0;
}

static int rk_rr_count(const char *name, unsigned long lineno, const rk_rr_field *f, int idx, uint64_t *out,
                       rk_error *err)
{
	uint64_t v = 0;

	if (f->len == 0) {
		rk_rr_fail(err, name, lineno, f->col, "%s is empty", rk_rr_names[idx]);
		return rk_error_hint(err, "write a count (0 when there is nothing to count)");
	}
	for (size_t i = 0; i < f->len; i++) {
		unsigned d = (unsigned char)f->s[i] - '0';

		if (d > 9) {
			rk_rr_fail(err, name, lineno, f->col, "%s must be a non-negative integer, not '%.*s'",
			           rk_rr_names[idx], (int)(f->len > RK_RR_SHOW ? RK_RR_SHOW : f->len), f->s);
			return rk_error_hint(err, "counts are written in decimal digits only");
		}
		if (v > (RK_RR_COUNT_MAX - d) / 10) {
			rk_rr_fail(err, name, lineno, f->col, "%s %.*s is too large", rk_rr_names[idx],
			           (int)(f->len > RK_RR_SHOW ? RK_RR_SHOW : f->len), f->s);
			return rk_error_hint(err, "counts fit a bigint (at most %" PRId64 ")", INT64_MAX);
		}
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* The header line: exactly RK_RERUN_HEADER, or RK_RERUN_KEY_HEADER (key
 * segments: *keyed set); the error points at the first byte that differs. */
static int rk_rr_header(const char *name, const char *line, size_t len, bool *keyed, rk_error *err)
{
	size_t hl = strlen(RK_RERUN_HEADER), i = 0;

	*keyed = len == strlen(RK_RERUN_KEY_HEADER) && memcmp(line, RK_RERUN_KEY_HEADER, len) == 0;
	if (*keyed || (len == hl && memcmp(line, RK_RERUN_HEADER, hl) == 0))
		return 0;
	while (i < len && i < hl && line[i] == RK_RERUN_HEADER[i])
		i++;
	rk_rr_fail(err, name, 1, i + 1, "not a rerun list: the header must be exactly '%s'", RK_RERUN_HEADER);
	return rk_error_hint(err, "%s", RK_RR_HINT_FORMAT);
}

/*
 * Reads one line, its '\n' included when there is one, into b.  Returns 1
 * for a line, 0 at the end of the input, -1 on a read error (ferror), and 2
 * when the line holds more than RK_RERUN_LINE_MAX bytes before its '\n' (b
 * holds the first of them).
 */
static int rk_rr_getline(FILE *fp, rk_buf *b)
{
	int c;

	rk_buf_reset(b);
	while ((c = getc(fp)) != EOF) {
		if (b->len == RK_RERUN_LINE_MAX && c != '\n')
			return 2;
		rk_buf_putc(b, (char)c);
		if (c == '\n')
			return 1;
	}
	if (ferror(fp))
		return -1;
	return b->len > 0;
}

static void rk_rr_push(rk_rerun_list *l, size_t *cap, const rk_rerun_interval *it)
{
	if (l->n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		l->items = rk_xrealloc(l->items, *cap * sizeof *l->items);
	}
	l->items[l->n++] = *it;
}

/* Parses one data line into it and checks it against the previous one. */
static int rk_rr_line(const rk_rerun_list *l, unsigned long lineno, const char *line, size_t len, rk_buf *scratch,
                      rk_rerun_interval *it, rk_error *err)
{
	rk_rr_field f[RK_RR_NFIELDS];
	size_t nf = 0;
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN], c[RK_TIME_STRLEN], d[RK_TIME_STRLEN];

	if (rk_rr_split(l->name, lineno, line, len, scratch, f, RK_RR_NFIELDS, &nf, err) < 0)
		return -1;
	if (nf < RK_RR_NFIELDS) {
		rk_rr_fail(err, l->name, lineno, len + 1, "%zu field%s where a rerun list line has %d (missing %s)", nf,
		           nf == 1 ? "" : "s", RK_RR_NFIELDS, rk_rr_names[nf]);
		return rk_error_hint(err, "%s", RK_RR_HINT_FORMAT);
	}
	memset(it, 0, sizeof *it);
	it->line = lineno;
	it->intervals = 1;
	if (rk_rr_time(l->name, lineno, &f[0], 0, &it->start, &it->zoneless, err) < 0 ||
	    rk_rr_time(l->name, lineno, &f[1], 1, &it->end, &it->zoneless, err) < 0)
		return -1;
	for (int i = 0; i < RK_RERUN_NCOUNTS; i++)
		if (rk_rr_count(l->name, lineno, &f[2 + i], 2 + i, &it->count[i], err) < 0)
			return -1;
	it->last_start = it->start;
	if (it->start >= it->end) {
		rk_rr_fail(err, l->name, lineno, f[1].col, "interval_end %s is not after interval_start %s",
		           rk_time_format(it->end, a), rk_time_format(it->start, b));
		return rk_error_hint(err, "an interval [interval_start, interval_end) is half-open and not empty");
	}
	if (l->n > 0) {
		const rk_rerun_interval *p = &l->items[l->n - 1];

		if (it->start < p->start) {
			rk_rr_fail(err, l->name, lineno, f[0].col,
			           "interval_start %s is before that of the previous interval (line %lu, %s): the list "
			           "must be in time order",
			           rk_time_format(it->start, a), p->line, rk_time_format(p->start, b));
			return rk_error_hint(err, "sort the intervals by interval_start, or write the list again with "
			                          "reckon check --rerun-list");
		}
		if (it->start < p->end) {
			rk_rr_fail(err, l->name, lineno, f[0].col,
			           "interval [%s, %s) overlaps the previous interval [%s, %s) (line %lu)",
			           rk_time_format(it->start, a), rk_time_format(it->end, b), rk_time_format(p->start, c),
			           rk_time_format(p->end, d), p->line);
			return rk_error_hint(err, "the intervals of a rerun list do not overlap: repair would replace "
			                          "the rows of the overlap twice; merge or remove one of them");
		}
	}
	return 0;
}

/* A key list's bound: NULL for an open end (an unquoted empty field). */
static char *rk_rr_key(const rk_rr_field *f)
{
	return f->len || f->quoted ? rk_xstrndup(f->s, f->len) : NULL;
}

/* Parses one data line of a key list into it (its bounds owned by it
 * until pushed) and checks it against the previous one: only the first
 * segment starts open and only the last ends open. */
static int rk_rr_key_line(const rk_rerun_list *l, unsigned long lineno, const char *line, size_t len,
                          rk_buf *scratch, rk_rerun_interval *it, rk_error *err)
{
	rk_rr_field f[RK_RR_KEY_NFIELDS];
	size_t nf = 0;

	memset(it, 0, sizeof *it);
	if (rk_rr_split(l->name, lineno, line, len, scratch, f, RK_RR_KEY_NFIELDS, &nf, err) < 0)
		return -1;
	if (nf < RK_RR_KEY_NFIELDS) {
		rk_rr_fail(err, l->name, lineno, len + 1, "%zu field%s where a key segment's line has %d (missing %s)",
		           nf, nf == 1 ? "" : "s", RK_RR_KEY_NFIELDS, rk_rr_names[nf]);
		return rk_error_hint(err, "a key list is what 'reckon check --rerun-list FILE' writes without --time: "
		                          "%s, then e.g. ,cust-0100,100,99,1,0,0,0,key",
		                     RK_RERUN_KEY_HEADER);
	}
	if (f[8].len != 3 || memcmp(f[8].s, "key", 3) != 0) {
		rk_rr_fail(err, l->name, lineno, f[8].col, "kind '%.*s' where a key list has 'key'",
		           (int)(f[8].len > RK_RR_SHOW ? RK_RR_SHOW : f[8].len), f[8].s);
		return rk_error_hint(err, "every line of a list of key segments is of kind key");
	}
	for (int i = 0; i < RK_RERUN_NCOUNTS; i++)
		if (rk_rr_count(l->name, lineno, &f[2 + i], 2 + i, &it->count[i], err) < 0)
			return -1;
	if (l->n > 0 && !f[0].len && !f[0].quoted) {
		rk_rr_fail(err, l->name, lineno, f[0].col, "interval_start is empty (an open start) on a segment "
		                                           "after the first");
		return rk_error_hint(err, "only the first segment starts below every key; write its first key");
	}
	if (l->n > 0 && !l->items[l->n - 1].key_end) {
		rk_rr_fail(err, l->name, lineno, 1, "a segment after the one of line %lu, which ends open (above every "
		                                    "key)",
		           l->items[l->n - 1].line);
		return rk_error_hint(err, "only the last segment ends open; write that segment's last bound");
	}
	if ((f[0].len || f[0].quoted) && (f[1].len || f[1].quoted) && f[0].len == f[1].len &&
	    memcmp(f[0].s, f[1].s, f[0].len) == 0) {
		rk_rr_fail(err, l->name, lineno, f[1].col, "interval_end is interval_start: the segment is empty");
		return rk_error_hint(err, "a segment [interval_start, interval_end) holds the keys from its start up "
		                          "to, not including, its end");
	}
	it->line = lineno;
	it->intervals = 1;
	it->key_start = rk_rr_key(&f[0]);
	it->key_end = rk_rr_key(&f[1]);
	return 0;
}

int rk_rerun_read_stream(FILE *fp, const char *name, rk_rerun_list **out, rk_error *err)
{
	rk_rerun_list *l = rk_xcalloc(1, sizeof *l);
	rk_buf scratch = RK_BUF_INIT, buf = RK_BUF_INIT;
	size_t cap = 0;
	int got;
	unsigned long lineno = 0, blank = 0;
	int rc = -1;

	*out = NULL;
	l->name = rk_xstrdup(name);
	errno = 0;
	while ((got = rk_rr_getline(fp, &buf)) > 0) {
		size_t len = buf.len;
		const char *p = buf.data;
		rk_rerun_interval it;

		lineno++;
		if (got == 2) {
			rk_rr_fail(err, l->name, lineno, (size_t)RK_RERUN_LINE_MAX + 1,
			           "line longer than %d bytes: not a rerun list", RK_RERUN_LINE_MAX);
			rk_error_hint(err, "a line of a rerun list is two instants and six counts; %s", RK_RR_HINT_FORMAT);
			goto done;
		}
		if (len && p[len - 1] == '\n')
			len--;
		if (len && p[len - 1] == '\r')
			len--;
		if (lineno == 1 && len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
			p += 3; /* a UTF-8 byte order mark, as some editors save */
			len -= 3;
		}
		if (memchr(p, '\0', len)) {
			rk_rr_fail(err, l->name, lineno, (size_t)((const char *)memchr(p, '\0', len) - p) + 1,
			           "NUL byte: not a text file");
			rk_error_hint(err, "%s", RK_RR_HINT_FORMAT);
			goto done;
		}
		if (lineno == 1) {
			if (rk_rr_header(l->name, p, len, &l->keyed, err) < 0)
				goto done;
			continue;
		}
		if (len == 0) {
			/* blank lines are tolerated at the end of the file only */
			if (!blank)
				blank = lineno;
			continue;
		}
		if (blank) {
			rk_rr_fail(err, l->name, blank, 1, "blank line inside the list");
			rk_error_hint(err, "remove the blank line: every line after the header is one interval");
			goto done;
		}
		if (l->n == RK_RERUN_MAX_INTERVALS) {
			rk_rr_fail(err, l->name, lineno, 1, "more than %d intervals", RK_RERUN_MAX_INTERVALS);
			rk_error_hint(err, "a rerun list holds at most as many intervals as one check has windows; "
			                   "split the list");
			goto done;
		}
		if ((l->keyed ? rk_rr_key_line(l, lineno, p, len, &scratch, &it, err)
		              : rk_rr_line(l, lineno, p, len, &scratch, &it, err)) < 0)
			goto done;
		rk_rr_push(l, &cap, &it);
	}
	if (got < 0) {
		rk_error_set(err, errno == EISDIR ? RK_EXIT_USAGE : RK_EXIT_RUNTIME, "cannot read rerun list '%s': %s",
		             l->name, strerror(errno ? errno : EIO));
		goto done;
	}
	if (lineno == 0) {
		rk_rr_fail(err, l->name, 1, 1, "empty file: no header");
		rk_error_hint(err, "%s", RK_RR_HINT_FORMAT);
		goto done;
	}
	*out = l;
	l = NULL;
	rc = 0;
done:
	rk_buf_free(&buf);
	rk_buf_free(&scratch);
	rk_rerun_free(l);
	return rc;
}

int rk_rerun_read(const char *path, rk_rerun_list **out, rk_error *err)
{
	FILE *fp;
	struct stat st;
	int rc;

	*out = NULL;
	if (!strcmp(path, "-"))
		return rk_rerun_read_stream(stdin, "stdin", out, err);
	fp = fopen(path, "r");
	if (!fp) {
		int e = errno;

		rk_error_set(err, e == ENOENT || e == EACCES || e == EISDIR || e == ENOTDIR ? RK_EXIT_USAGE : RK_EXIT_RUNTIME,
		             "cannot open rerun list '%s': %s", path, strerror(e));
		return rk_error_hint(err, "give the file 'reckon check --rerun-list FILE' wrote ('-' reads standard "
		                          "input)");
	}
	/* fopen opens a directory for reading on Linux; reading it then fails */
	if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(fp);
		rk_error_set(err, RK_EXIT_USAGE, "cannot open rerun list '%s': it is a directory", path);
		return rk_error_hint(err, "give the file 'reckon check --rerun-list FILE' wrote ('-' reads standard "
		                          "input)");
	}
	rc = rk_rerun_read_stream(fp, path, out, err);
	fclose(fp);
	return rc;
}

void rk_rerun_free(rk_rerun_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].key_start);
		free(l->items[i].key_end);
	}
	free(l->items);
	free(l->name);
	free(l);
}

/* Whether b starts where a ends: the same instant, or the same key text
 * (an open end touches nothing). */
static bool rk_rr_touch(const rk_rerun_list *l, const rk_rerun_interval *a, const rk_rerun_interval *b)
{
	if (!l->keyed)
		return a->end == b->start;
	return a->key_end && b->key_start && !strcmp(a->key_end, b->key_start);
}

int rk_rerun_merge(const rk_rerun_list *l, rk_rerun_list **out, rk_error *err)
{
	rk_rerun_list *m = rk_xcalloc(1, sizeof *m);
	size_t cap = 0;

	*out = NULL;
	m->name = rk_xstrdup(l->name);
	m->keyed = l->keyed;
	for (size_t i = 0; i < l->n; i++) {
		const rk_rerun_interval *it = &l->items[i];
		rk_rerun_interval *r;

		if (m->n == 0 || !rk_rr_touch(l, &m->items[m->n - 1], it)) {
			rk_rerun_interval copy = *it;

			copy.key_start = it->key_start ? rk_xstrdup(it->key_start) : NULL;
			copy.key_end = it->key_end ? rk_xstrdup(it->key_end) : NULL;
			rk_rr_push(m, &cap, &copy);
			continue;
		}
		r = &m->items[m->n - 1];
		for (int k = 0; k < RK_RERUN_NCOUNTS; k++) {
			if (r->count[k] > RK_RR_COUNT_MAX - it->count[k]) {
				char a[RK_TIME_STRLEN];

				rk_error_set(err, RK_EXIT_USAGE,
				             "%s:%lu: %s of the range from %s exceeds the bigint range when summed", l->name,
				             it->line, rk_rr_names[2 + k], l->keyed ? "its first segment" : rk_time_format(r->start, a));
				rk_error_hint(err, "check the counts of the list; they are row and key counts");
				rk_rerun_free(m);
				return -1;
			}
			r->count[k] += it->count[k];
		}
		r->end = it->end;
		r->last_start = it->start;
		r->intervals += it->intervals;
		free(r->key_end);
		r->key_end = it->key_end ? rk_xstrdup(it->key_end) : NULL;
	}
	*out = m;
	return 0;
}

/* The two bounds of r and a comma after each: instants, or key fields. */
static void rk_rr_bounds(FILE *out, const rk_rerun_list *l, const rk_rerun_interval *r)
{
	char a[RK_TIME_STRLEN], b[RK_TIME_STRLEN];

	if (!l->keyed) {
		fprintf(out, "%s,%s,", rk_time_format(r->start, a), rk_time_format(r->end, b));
		return;
	}
	rk_text_csv_field(out, r->key_start);
	fputc(',', out);
	rk_text_csv_field(out, r->key_end);
	fputc(',', out);
}

/* The counts, the kind of a key list, the line end. */
static void rk_rr_tail(FILE *out, const rk_rerun_list *l, const uint64_t count[RK_RERUN_NCOUNTS])
{
	for (int k = 0; k < RK_RERUN_NCOUNTS; k++)
		fprintf(out, "%s%" PRIu64, k ? "," : "", count[k]);
	fputs(l->keyed ? ",key\n" : "\n", out);
}

int rk_rerun_write(FILE *out, const rk_rerun_list *l)
{
	fputs(l->keyed ? RK_RERUN_KEY_HEADER "\n" : RK_RERUN_HEADER "\n", out);
	for (size_t i = 0; i < l->n; i++) {
		rk_rr_bounds(out, l, &l->items[i]);
		rk_rr_tail(out, l, l->items[i].count);
	}
	return ferror(out) ? -1 : 0;
}

int rk_rerun_write_merged(FILE *out, const rk_rerun_list *merged)
{
	fputs(merged->keyed ? RK_RERUN_MERGED_KEY_HEADER "\n" : RK_RERUN_MERGED_HEADER "\n", out);
	for (size_t i = 0; i < merged->n; i++) {
		const rk_rerun_interval *r = &merged->items[i];

		rk_rr_bounds(out, merged, r);
		fprintf(out, "%zu,", r->intervals);
		rk_rr_tail(out, merged, r->count);
	}
	return ferror(out) ? -1 : 0;
}

int rk_rerun_check_dag(const char *dag, rk_error *err)
{
	if (!dag || !*dag) {
		rk_error_set(err, RK_EXIT_USAGE, "option --dag must name the Airflow DAG id");
		return rk_error_hint(err, "e.g. --as airflow --dag load_orders");
	}
	if (dag[0] == '-') {
		rk_error_set(err, RK_EXIT_USAGE, "DAG id '%s' starts with '-': the airflow command would take it for "
		                                 "an option",
		             dag);
		return rk_error_hint(err, "Airflow DAG ids are made of letters, digits, '_', '.' and '-'");
	}
	for (const unsigned char *p = (const unsigned char *)dag; *p; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			rk_error_set(err, RK_EXIT_USAGE, "DAG id holds a control character (byte 0x%02x)", *p);
			return rk_error_hint(err, "Airflow DAG ids are made of letters, digits, '_', '.' and '-'");
		}
	}
	return 0;
}

char *rk_rerun_shell_quote(const char *s)
{
	rk_buf b = RK_BUF_INIT;

	rk_shell_word(&b, s);
	rk_buf_cstr(&b);
	return b.data;
}

/* The comment above each range's command: "# [start, end): N intervals".
 * A key list's bounds are escaped (a line end in a key would end the
 * comment and start a command); an open end is "(first)" or "(last)". */
static void rk_rr_range_comment(FILE *out, const rk_rerun_list *l, const rk_rerun_interval *r)
{
	char s[RK_TIME_STRLEN], e[RK_TIME_STRLEN];
	rk_buf a = RK_BUF_INIT, z = RK_BUF_INIT;

	if (!l->keyed) {
		fprintf(out, "# [%s, %s): %zu interval%s\n", rk_time_format(r->start, s), rk_time_format(r->end, e),
		        r->intervals, r->intervals == 1 ? "" : "s");
		return;
	}
	if (r->key_start)
		rk_text_escape(&a, r->key_start, strlen(r->key_start));
	else
		rk_buf_puts(&a, "(first)");
	if (r->key_end)
		rk_text_escape(&z, r->key_end, strlen(r->key_end));
	else
		rk_buf_puts(&z, "(last)");
	fprintf(out, "# [%s, %s): %zu key segment%s\n", rk_buf_cstr(&a), rk_buf_cstr(&z), r->intervals,
	        r->intervals == 1 ? "" : "s");
	rk_buf_free(&a);
	rk_buf_free(&z);
}

int rk_rerun_write_airflow(FILE *out, const rk_rerun_list *merged, const char *dag)
{
	char *q;
	char s[RK_TIME_STRLEN], last[RK_TIME_STRLEN];

	if (merged->n == 0)
		return 0;
	q = rk_rerun_shell_quote(dag);
	fprintf(out,
	        "# %zu range%s of DAG %s; logical date = data_interval_start, --end-date is inclusive\n"
	        "# run either the 'tasks clear' lines (the scheduler re-runs the cleared runs) or the\n"
	        "# 'dags backfill' lines (this shell runs them), not both\n",
	        merged->n, merged->n == 1 ? "" : "s", q);
	for (size_t i = 0; i < merged->n; i++) {
		const rk_rerun_interval *r = &merged->items[i];

		rk_time_format(r->start, s);
		rk_time_format(r->last_start, last);
		rk_rr_range_comment(out, merged, r);
		fprintf(out, "airflow tasks clear %s --start-date %s --end-date %s --yes\n", q, s, last);
		fprintf(out, "airflow dags backfill %s --start-date %s --end-date %s --reset-dagruns --yes\n", q, s,
		        last);
	}
	free(q);
	return ferror(out) ? -1 : 0;
}

int rk_rerun_write_airflow3(FILE *out, const rk_rerun_list *merged, const char *dag, const char *reprocess)
{
	char *q;
	char s[RK_TIME_STRLEN], last[RK_TIME_STRLEN];

	if (merged->n == 0)
		return 0;
	q = rk_rerun_shell_quote(dag);
	fprintf(out,
	        "# %zu range%s of DAG %s (Airflow 3); logical date = data_interval_start, --to-date is inclusive\n",
	        merged->n, merged->n == 1 ? "" : "s", q);
	for (size_t i = 0; i < merged->n; i++) {
		const rk_rerun_interval *r = &merged->items[i];

		rk_time_format(r->start, s);
		rk_time_format(r->last_start, last);
		rk_rr_range_comment(out, merged, r);
		fprintf(out, "airflow backfill create --dag-id %s --from-date %s --to-date %s --reprocess-behavior %s\n", q,
		        s, last, reprocess);
	}
	free(q);
	return ferror(out) ? -1 : 0;
}

/* A Dagster partition key of the partition starting at t (UTC). */
static void rk_rr_partition_key(rk_usec t, bool hourly, char out[RK_TIME_STRLEN])
{
	char iso[RK_TIME_STRLEN];

	rk_time_format(t, iso); /* YYYY-MM-DDTHH:MM:SSZ */
	if (hourly)
		snprintf(out, RK_TIME_STRLEN, "%.10s-%.5s", iso, iso + 11);
	else
		snprintf(out, RK_TIME_STRLEN, "%.10s", iso);
}

int rk_rerun_write_dagster(FILE *out, const rk_rerun_list *merged, const char *select, bool hourly, rk_error *err)
{
	rk_usec unit = hourly ? 3600 * RK_USEC_PER_SEC : RK_USEC_PER_DAY;
	char *q;
	char s[RK_TIME_STRLEN], e[RK_TIME_STRLEN], first[RK_TIME_STRLEN], last[RK_TIME_STRLEN];

	for (size_t i = 0; i < merged->n; i++) {
		const rk_rerun_interval *r = &merged->items[i];

		/* reckon's instants are 1970-based and Dagster's keys are
		 * 1970-or-later calendar units: a floored remainder is enough */
		if (((r->start % unit) + unit) % unit != 0 || ((r->end % unit) + unit) % unit != 0) {
			rk_error_set(err, RK_EXIT_USAGE, "%s:%lu: the range [%s, %s) does not start and end on %s partition "
			                                 "boundaries (UTC)",
			             merged->name, r->line, rk_time_format(r->start, s),
			             rk_time_format(r->end, e), hourly ? "hourly" : "daily");
			return rk_error_hint(err, "%s", hourly ? "check with --window 1h (or a multiple) from a whole hour" : "check with --window 1d from a UTC midnight, or give "
			                                                                                                      "--partitions hourly");
		}
	}
	if (merged->n == 0)
		return 0;
	q = rk_rerun_shell_quote(select);
	fprintf(out, "# %zu range%s of %s partitions (UTC keys); --partition-range FIRST...LAST is inclusive\n",
	        merged->n, merged->n == 1 ? "" : "s", hourly ? "hourly" : "daily");
	for (size_t i = 0; i < merged->n; i++) {
		const rk_rerun_interval *r = &merged->items[i];

		rk_rr_partition_key(r->start, hourly, first);
		rk_rr_partition_key(r->end - unit, hourly, last);
		rk_rr_range_comment(out, merged, r);
		fprintf(out, "dagster asset materialize --select %s --partition-range %s...%s\n", q, first, last);
	}
	free(q);
	if (ferror(out)) {
		err->code = 0;
		return -1;
	}
	return 0;
}

/* Appends "name": (with a blank after it when spaced) and key as a JSON
 * string (null: an open end) to b.  A key that is not valid UTF-8 has no
 * JSON string: -1 with err. */
static int rk_rr_json_key(rk_buf *b, const rk_rerun_list *l, const rk_rerun_interval *r, const char *name,
                          const char *key, bool spaced, rk_error *err)
{
	json_t *j;
	char *d;

	rk_buf_printf(b, "\"%s\":%s", name, spaced ? " " : "");
	if (!key) {
		rk_buf_puts(b, "null");
		return 0;
	}
	if (!(j = json_string(key))) {
		rk_error_set(err, RK_EXIT_USAGE, "%s:%lu: %s is not valid UTF-8: it has no JSON string", l->name, r->line,
		             name);
		return rk_error_hint(err, "write the list with reckon check from a UTF-8 database");
	}
	d = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
	json_decref(j);
	if (!d)
		return rk_error_set(err, RK_EXIT_RUNTIME, "out of memory encoding %s", name);
	rk_buf_puts(b, d);
	free(d);
	return 0;
}

/* The JSON members of a range's bounds, named a and z: instants, or keys
 * (spaced: with blanks after ':' and ','). */
static int rk_rr_json_bounds(rk_buf *b, const rk_rerun_list *l, const rk_rerun_interval *r, const char *a,
                             const char *z, bool spaced, rk_error *err)
{
	char s[RK_TIME_STRLEN], e[RK_TIME_STRLEN];
	const char *sp = spaced ? " " : "";

	if (l->keyed) {
		if (rk_rr_json_key(b, l, r, a, r->key_start, spaced, err) < 0)
			return -1;
		rk_buf_printf(b, ",%s", sp);
		return rk_rr_json_key(b, l, r, z, r->key_end, spaced, err);
	}
	/* instants hold only digits, '-', ':', '.', 'T' and 'Z': nothing to
	 * escape in a JSON string */
	rk_buf_printf(b, "\"%s\":%s\"%s\",%s\"%s\":%s\"%s\"", a, sp, rk_time_format(r->start, s), sp, z, sp,
	              rk_time_format(r->end, e));
	return 0;
}

int rk_rerun_write_dbt(FILE *out, const rk_rerun_list *merged, const char *select, rk_error *err)
{
	char *q, *v;
	rk_buf vars = RK_BUF_INIT;
	int rc = -1;

	if (merged->n == 0)
		return 0;
	q = rk_rerun_shell_quote(select);
	if (merged->keyed)
		fprintf(out, "# %zu range%s of key segments; each run gets vars key_start (inclusive) and key_end "
		             "(exclusive), values of the first key column, null for an open end\n",
		        merged->n, merged->n == 1 ? "" : "s");
	else
		fprintf(out, "# %zu range%s; each run gets vars start (inclusive) and end (exclusive), UTC\n", merged->n,
		        merged->n == 1 ? "" : "s");
	for (size_t i = 0; i < merged->n; i++) {
		const rk_rerun_interval *r = &merged->items[i];

		rk_buf_reset(&vars);
		rk_buf_putc(&vars, '{');
		if (rk_rr_json_bounds(&vars, merged, r, merged->keyed ? "key_start" : "start",
		                      merged->keyed ? "key_end" : "end", true, err) < 0)
			goto done;
		rk_buf_putc(&vars, '}');
		v = rk_rerun_shell_quote(rk_buf_cstr(&vars));
		rk_rr_range_comment(out, merged, r);
		fprintf(out, "dbt run --select %s --vars %s\n", q, v);
		free(v);
	}
	rc = ferror(out) ? -1 : 0;
	err->code = 0;
done:
	rk_buf_free(&vars);
	free(q);
	return rc;
}

int rk_rerun_write_json(FILE *out, const rk_rerun_list *l, bool merged, rk_error *err)
{
	static const char *const counts[RK_RERUN_NCOUNTS] = { "source_rows", "target_rows", "missing",
		                                              "extra", "duplicated", "changed" };
	rk_buf b = RK_BUF_INIT;
	int rc = -1;

	for (size_t i = 0; i < l->n; i++) {
		const rk_rerun_interval *r = &l->items[i];

		rk_buf_reset(&b);
		rk_buf_puts(&b, l->keyed ? "{\"kind\":\"key\"," : "{");
		if (rk_rr_json_bounds(&b, l, r, merged ? "range_start" : "interval_start",
		                      merged ? "range_end" : "interval_end", false, err) < 0)
			goto done;
		if (merged)
			rk_buf_printf(&b, ",\"intervals\":%zu", r->intervals);
		for (int k = 0; k < RK_RERUN_NCOUNTS; k++)
			rk_buf_printf(&b, ",\"%s\":%" PRIu64, counts[k], r->count[k]);
		rk_buf_puts(&b, "}\n");
		fputs(rk_buf_cstr(&b), out);
	}
	rc = ferror(out) ? -1 : 0;
	err->code = 0;
done:
	rk_buf_free(&b);
	return rc;
}

int rk_rerun_check_format(const rk_rerun_list *l, const char *format, rk_error *err)
{
	if (!l->keyed)
		return 0;
	rk_error_set(err, RK_EXIT_USAGE, "--as %s prints commands that take dates, and rerun list %s holds key "
	                                 "segments (kind key): ranges of a key column, which %s cannot express",
	             format, l->name, !strcmp(format, "dagster") ? "a partition range" : "a backfill's dates");
	return rk_error_hint(err, "print the segments with --as json, or as dbt runs with --as dbt --select MODEL (vars "
	                          "key_start, key_end); or replay them with reckon repair --rerun-list %s",
	                     l->name);
}

int rk_rerun_check_select(const char *select, const char *option, rk_error *err)
{
	if (!select || !*select) {
		rk_error_set(err, RK_EXIT_USAGE, "option %s must not be empty", option);
		return rk_error_hint(err, "e.g. --select orders");
	}
	if (select[0] == '-') {
		rk_error_set(err, RK_EXIT_USAGE, "selection '%s' of %s starts with '-': the command would take it for an "
		                                 "option",
		             select, option);
		return rk_error_hint(err, "name the models or assets, e.g. --select orders");
	}
	for (const unsigned char *p = (const unsigned char *)select; *p; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			rk_error_set(err, RK_EXIT_USAGE, "selection of %s holds a control character (byte 0x%02x)", option,
			             *p);
			return rk_error_hint(err, "name the models or assets, e.g. --select orders");
		}
	}
	return 0;
}
