/*
 * csvreader.c - the CSV side of a table pair, on top of libcsv.  The only
 * file that includes csv.h.
 *
 * "csv:PATH" is one file, or a directory whose *.csv files are read in
 * strcmp order.  Every file starts with a header line; the bound columns are
 * found by name in each file separately, so column order may differ between
 * files.  The dialect is PostgreSQL's CSV: spaces are data (libcsv would trim
 * them), an unquoted empty field is NULL and "" is the empty string; with a
 * NULL marker S, an unquoted S is NULL and a quoted field never is.
 *
 * Rows stream through fixed memory: one read block, one arena holding the
 * wanted fields of the current row, one rk_field array.  Nothing is
 * allocated per row once these have reached their working size.  A file may
 * be of any size, but one row (the header included) is at most
 * RK_CSV_ROW_MAX bytes: what is not a CSV file (csv:/dev/zero, a binary)
 * fails there instead of growing one field without end.
 */
#include "io/reader_impl.h"

#include <assert.h>
#include <csv.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"

#define RK_CSV_BLOCK ((size_t)256 * 1024)
/* libcsv grows its field buffer linearly by this much (its default is 128
 * bytes, which makes long fields cost many reallocs). */
#define RK_CSV_FIELD_STEP ((size_t)64 * 1024)
/* The longest row reckon reads, in bytes (docs/how-it-works.md). */
#define RK_CSV_ROW_MAX ((size_t)64 * 1024 * 1024)

typedef struct rk_csvfile {
	char *path;   /* as shown in messages: PATH, or PATH/NAME in a directory */
	char **names; /* the header's column names */
	size_t ncols;
	size_t *map;  /* after bind: bound column i is field map[i] of this file */
	bool *wanted; /* after bind: field j is used by some bound column */
} rk_csvfile;

/* What the current row holds for one wanted field. */
typedef struct rk_csvslot {
	size_t off; /* into the arena */
	size_t len;
	size_t line; /* physical line the field starts on */
	bool null;
} rk_csvslot;

typedef struct rk_csvreader {
	char *side;
	char *descr;
	unsigned char delim;
	unsigned char cls[256]; /* RK_CSV_SEP / RK_CSV_SPC / RK_CSV_QUO per byte */
	char *null_marker;      /* NULL: PostgreSQL's default convention */
	size_t null_len;
	rk_csvfile *files;
	size_t nfiles;
	size_t ncolumns; /* bound columns */
	bool bound;
	char *block;       /* read buffer, RK_CSV_BLOCK bytes */
	rk_buf arena;      /* the wanted fields of the current row */
	rk_csvslot *slots; /* per field of the widest file */
	rk_field *fields;  /* per bound column */
} rk_csvreader;

enum rk_csvmode { RK_CSV_HEADER,
	          RK_CSV_DATA,
	          RK_CSV_SKIP };

/* One pass over one file: the state libcsv's callbacks work on. */
typedef struct rk_csvpass {
	rk_csvreader *r;
	rk_csvfile *f;
	struct csv_parser parser;
	rk_error *err;
	enum rk_csvmode mode;
	bool header_only;   /* stop once the header is read (open) */
	bool failed;        /* err is filled; ignore the rest of the block */
	bool cr_pending;    /* the last row ended on CR: a following LF is its CRLF */
	bool row_ended;     /* a row (or blank line) ended in the current block */
	size_t row_bytes;   /* bytes of blocks read since the last one that ended a
	                       * row: what the unfinished row holds, less < 1 block */
	size_t line;        /* physical line the parser stands on, 1-based */
	size_t row_line;    /* line the current row starts on */
	size_t nfields;     /* fields seen so far in the current row */
	size_t blank_line;  /* first blank line not yet followed by a row, or 0 */
	unsigned char prev; /* last byte of the previous block ('\n' at the start) */
	rk_buf hdr;         /* header names, each NUL-terminated */
	size_t *hdr_off;
	size_t nhdr;
	size_t hdr_cap;
	rk_row_fn fn;
	void *ctx;
} rk_csvpass;

/*
 * Whether the field libcsv is about to hand over was quoted.  libcsv says so
 * only for empty fields (CSV_EMPTY_IS_NULL), but a NULL marker needs it for
 * every field ("\N" is a string, \N is NULL) and line counting wants it.
 * Wherever a quote can occur, libcsv runs with rk_csv_space (below), which it
 * asks about the first character of every field; in strict mode it can see a
 * quote there only when the field is quoted (a quote inside an unquoted field
 * is a parse error before the space function is asked), so that function
 * notes it.  It has no user pointer, hence thread-local: a reader is used by
 * one thread at a time and its callbacks run inside csv_parse on that thread.
 */
static _Thread_local bool rk_csv_quoted;

/*
 * Spaces are data in PostgreSQL's CSV, but libcsv trims spaces and tabs
 * around unquoted fields and after a closing quote unless given a space
 * function, and calling one costs an indirect call per byte (it halves
 * libcsv's speed).  So the input goes to libcsv in stretches: where it cannot
 * trim anything and no quote occurs, with its built-in space test; elsewhere,
 * up to the end of the line (and for as long as a quoted field is open), with
 * this function, which never calls a byte a space.
 */
static int rk_csv_space(unsigned char c)
{
	if (c == CSV_QUOTE)
		rk_csv_quoted = true;
	return 0;
}

#define RK_CSV_SEP 1 /* delimiter, CR, LF, quote, space or tab */
#define RK_CSV_SPC 2 /* space or tab that is not the delimiter */
#define RK_CSV_QUO 4 /* the quote */

static void rk_csv_classes(rk_csvreader *r)
{
	memset(r->cls, 0, sizeof r->cls);
	r->cls[' '] = r->cls['\t'] = RK_CSV_SEP | RK_CSV_SPC;
	r->cls['\r'] = r->cls['\n'] = RK_CSV_SEP;
	r->cls[CSV_QUOTE] = RK_CSV_SEP | RK_CSV_QUO;
	r->cls[r->delim] = RK_CSV_SEP;
}

/*
 * Returns the first position from i on where libcsv's built-in space test
 * could differ from rk_csv_space: a quote (quoted fields are parsed with
 * rk_csv_space, which also notes the quoting), or a space or tab with a
 * delimiter, line break, quote, space or tab (or the edge of the block, or the
 * start of the file) on either side - the only places libcsv trims.  Returns
 * n if there is none.  prev is the byte before s[0].
 */
static size_t rk_csv_next_hazard(const unsigned char *cls, const unsigned char *s, size_t n, size_t i,
                                 unsigned char prev)
{
	for (; i < n; i++) {
		unsigned char k = cls[s[i]];

		if (!k)
			continue;
		if (k & RK_CSV_QUO)
			return i;
		if (k & RK_CSV_SPC) {
			unsigned char before = i ? s[i - 1] : prev;

			if (i + 1 == n || (cls[before] & RK_CSV_SEP) || (cls[s[i + 1]] & RK_CSV_SEP))
				return i;
		}
	}
	return n;
}

/* Line breaks inside a quoted field: LF, CRLF or a lone CR each count one. */
static size_t rk_csv_breaks(const char *s, size_t n)
{
	size_t k = 0;

	if (n == 0 || (!memchr(s, '\n', n) && !memchr(s, '\r', n)))
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			k++;
		else if (s[i] == '\r' && (i + 1 == n || s[i + 1] != '\n'))
			k++;
	}
	return k;
}

static const char *rk_csv_side(const rk_csvreader *r)
{
	return r->side;
}

/* ---- files ---------------------------------------------------------- */

static int rk_csv_open_fd(const rk_csvreader *r, const char *path, rk_error *err)
{
	int fd;

	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd >= 0)
		return fd;
	if (errno == ENOENT) {
		rk_error_set(err, RK_EXIT_USAGE, "%s csv file '%s' does not exist", rk_csv_side(r), path);
		rk_error_hint(err, "csv:PATH takes a .csv file or a directory of .csv files");
	} else {
		rk_error_set(err, RK_EXIT_USAGE, "%s csv file '%s' cannot be read: %s", rk_csv_side(r), path,
		             strerror(errno));
	}
	return -1;
}

/* Reads until buf is full or the file ends; -1 with errno on error. */
static ssize_t rk_csv_read_full(int fd, char *buf, size_t cap)
{
	size_t got = 0;

	while (got < cap) {
		ssize_t n = read(fd, buf + got, cap - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static int rk_csv_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *rk_csv_join(const char *dir, const char *name)
{
	rk_buf b = RK_BUF_INIT;
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	rk_buf_append(&b, dir, n);
	if (dir[n - 1] != '/')
		rk_buf_putc(&b, '/');
	rk_buf_puts(&b, name);
	rk_buf_cstr(&b);
	return b.data;
}

static bool rk_csv_is_csv_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 4 && strcmp(name + n - 4, ".csv") == 0;
}

/* Fills r->files from a directory's *.csv regular files, in strcmp order. */
static int rk_csv_list_dir(rk_csvreader *r, const char *path, rk_error *err)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (!d) {
		rk_error_set(err, RK_EXIT_USAGE, "%s csv directory '%s' cannot be read: %s", rk_csv_side(r), path,
		             strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (!rk_csv_is_csv_name(de->d_name))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			names = rk_xrealloc(names, cap * sizeof *names);
		}
		names[n++] = rk_xstrdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, rk_csv_cmp_names);

	r->files = rk_xcalloc(n ? n : 1, sizeof *r->files);
	for (size_t i = 0; i < n; i++) {
		char *full = rk_csv_join(path, names[i]);
		struct stat st;

		free(names[i]);
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
			r->files[r->nfiles++].path = full;
		else
			free(full);
	}
	free(names);
	if (r->nfiles == 0) {
		rk_error_set(err, RK_EXIT_USAGE, "%s csv directory '%s' holds no *.csv files", rk_csv_side(r), path);
		rk_error_hint(err, "csv:DIRECTORY reads the files named *.csv in it, in name order");
		return -1;
	}
	return 0;
}

/* ---- libcsv callbacks --------------------------------------------------- */

static void rk_csv_fail_at(rk_csvpass *ps, size_t line, size_t col, int code, const char *hint,
                           const char *fmt, ...) RK_PRINTF(6, 7);

static void rk_csv_fail_at(rk_csvpass *ps, size_t line, size_t col, int code, const char *hint,
                           const char *fmt, ...)
{
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	rk_error_set(ps->err, code, "%s:%zu:%zu: %s", ps->f->path, line, col, what);
	if (hint)
		rk_error_hint(ps->err, "%s", hint);
	ps->failed = true;
}

static bool rk_csv_is_null(const rk_csvreader *r, const char *s, size_t n, bool quoted)
{
	if (!r->null_marker)
		return s == NULL; /* CSV_EMPTY_IS_NULL: unquoted and empty */
	if (quoted || n != r->null_len)
		return false;
	return n == 0 || memcmp(s, r->null_marker, n) == 0;
}

static void rk_csv_take(rk_csvpass *ps, const char *s, size_t n, bool quoted)
{
	rk_csvreader *r = ps->r;
	size_t col = ps->nfields++;
	size_t line = ps->line;
	rk_csvslot *slot;

	if (col == 0)
		ps->row_line = line;
	ps->cr_pending = false;
	if (quoted && n)
		ps->line += rk_csv_breaks(s, n);

	if (ps->mode == RK_CSV_HEADER) {
		/* a name is a C string from here on: a NUL would cut it short */
		if (n && memchr(s, '\0', n)) {
			rk_csv_fail_at(ps, line, col + 1, RK_EXIT_USAGE,
			               "a csv file is read as UTF-8 (or another ASCII-compatible encoding); "
			               "a header with NUL bytes is likely UTF-16 or not text",
			               "NUL byte in the name of column %zu of the header", col + 1);
			return;
		}
		if (ps->nhdr == ps->hdr_cap) {
			ps->hdr_cap = ps->hdr_cap ? 2 * ps->hdr_cap : 16;
			ps->hdr_off = rk_xrealloc(ps->hdr_off, ps->hdr_cap * sizeof *ps->hdr_off);
		}
		ps->hdr_off[ps->nhdr++] = ps->hdr.len;
		rk_buf_append(&ps->hdr, s, n);
		rk_buf_putc(&ps->hdr, '\0');
		return;
	}
	if (col >= ps->f->ncols || !ps->f->wanted[col])
		return;
	slot = &r->slots[col];
	slot->null = rk_csv_is_null(r, s, n, quoted);
	slot->off = r->arena.len;
	slot->len = slot->null ? 0 : n;
	slot->line = line;
	if (!slot->null)
		rk_buf_append(&r->arena, s, n);
}

static void rk_csv_on_field(void *s, size_t n, void *data)
{
	rk_csvpass *ps = data;
	bool quoted = rk_csv_quoted;

	rk_csv_quoted = false;
	if (ps->failed || ps->mode == RK_CSV_SKIP)
		return;
	rk_csv_take(ps, s, n, quoted);
}

/* The header row is complete: keep it (open) or check it is unchanged (scan). */
static void rk_csv_header_done(rk_csvpass *ps)
{
	rk_csvfile *f = ps->f;
	const char *h = ps->hdr.data;

	if (!f->names) {
		f->ncols = ps->nhdr;
		f->names = rk_xcalloc(ps->nhdr, sizeof *f->names);
		for (size_t i = 0; i < ps->nhdr; i++)
			f->names[i] = rk_xstrdup(h + ps->hdr_off[i]);
	} else {
		bool same = f->ncols == ps->nhdr;

		for (size_t i = 0; same && i < ps->nhdr; i++)
			same = strcmp(f->names[i], h + ps->hdr_off[i]) == 0;
		if (!same) {
			rk_error_set(ps->err, RK_EXIT_RUNTIME,
			             "%s csv file '%s' changed while reckon was reading it: its header is different",
			             rk_csv_side(ps->r), f->path);
			ps->failed = true;
			return;
		}
	}
	ps->mode = ps->header_only ? RK_CSV_SKIP : RK_CSV_DATA;
}

static void rk_csv_deliver(rk_csvpass *ps, size_t nf)
{
	rk_csvreader *r = ps->r;
	rk_csvfile *f = ps->f;
	rk_error *err = ps->err;

	if (ps->blank_line) {
		rk_csv_fail_at(ps, ps->blank_line, 1, RK_EXIT_USAGE,
		               "only blank lines at the end of a file are ignored",
		               "blank line, header has %zu fields", f->ncols);
		return;
	}
	if (nf != f->ncols) {
		rk_csv_fail_at(ps, ps->row_line, (nf < f->ncols ? nf : f->ncols) + 1, RK_EXIT_USAGE,
		               "a field holding the delimiter, a quote or a line break must be enclosed in double quotes",
		               "row has %zu field%s, header has %zu", nf, nf == 1 ? "" : "s", f->ncols);
		return;
	}
	for (size_t i = 0; i < r->ncolumns; i++) {
		const rk_csvslot *slot = &r->slots[f->map[i]];

		r->fields[i].p = r->arena.data + slot->off;
		r->fields[i].len = slot->len;
		r->fields[i].null = slot->null;
	}
	err->field = -1;
	if (ps->fn(ps->ctx, r->fields, err) < 0) {
		if (err->code == 0)
			err->code = RK_EXIT_USAGE;
		if (err->field >= 0 && (size_t)err->field < r->ncolumns) {
			size_t col = f->map[err->field];

			rk_error_prefix(err, "%s:%zu:%zu", f->path, r->slots[col].line, col + 1);
		} else {
			rk_error_prefix(err, "%s:%zu", f->path, ps->row_line);
		}
		ps->failed = true;
	}
}

/* c is the CR or LF that ended the row, or -1 at the end of the file. */
static void rk_csv_on_row(int c, void *data)
{
	rk_csvpass *ps = data;
	size_t nf;

	ps->row_ended = true;
	if (ps->failed || ps->mode == RK_CSV_SKIP)
		return;
	if (ps->nfields == 0) {
		/* CSV_REPALL_NL reports every line break, so this is a blank line,
		 * or the LF of a CRLF whose CR ended the previous row. */
		if (c == '\n' && ps->cr_pending) {
			ps->cr_pending = false;
			return;
		}
		if (ps->mode == RK_CSV_HEADER) {
			rk_csv_fail_at(ps, ps->line, 1, RK_EXIT_USAGE,
			               "the first line of every csv file must name its columns",
			               "blank line where the header line should be");
			return;
		}
		if (ps->f->ncols != 1) {
			/* An error unless only blank lines follow. */
			if (!ps->blank_line)
				ps->blank_line = ps->line;
			ps->line++;
			ps->cr_pending = c == '\r';
			return;
		}
		/* One column: a blank line is one unquoted empty field, as in
		 * PostgreSQL's COPY (which writes a NULL that way). */
		rk_csv_take(ps, NULL, 0, false);
	}
	if (c == '\n' || c == '\r')
		ps->line++;
	ps->cr_pending = c == '\r';
	nf = ps->nfields;
	ps->nfields = 0;
	if (ps->mode == RK_CSV_HEADER) {
		rk_csv_header_done(ps);
		return;
	}
	rk_csv_deliver(ps, nf);
	rk_buf_reset(&ps->r->arena);
}

/* ---- one pass over one file --------------------------------------------- */

static int rk_csv_parse_error(rk_csvpass *ps)
{
	struct csv_parser *p = &ps->parser;
	int status = csv_error(p);

	if (status == CSV_EPARSE) {
		/* The offending character is in the field being read, which
		 * libcsv has not handed over yet: count its line breaks. */
		size_t line = ps->line + rk_csv_breaks((const char *)p->entry_buf, p->entry_pos);

		rk_csv_fail_at(ps, line, ps->nfields + 1, RK_EXIT_USAGE,
		               "enclose a field holding the delimiter, a quote or a line break in double quotes, "
		               "and double every quote inside it",
		               "bad quoting: a quote inside an unquoted field, or text after a closing quote");
	} else {
		rk_error_set(ps->err, RK_EXIT_RUNTIME, "cannot parse %s csv file '%s': %s", rk_csv_side(ps->r),
		             ps->f->path, csv_strerror(status));
		ps->failed = true;
	}
	return -1;
}

static int rk_csv_parse(rk_csvpass *ps, const char *s, size_t n, bool exact)
{
	size_t done;

	csv_set_space_func(&ps->parser, exact ? rk_csv_space : NULL);
	done = csv_parse(&ps->parser, s, n, rk_csv_on_field, rk_csv_on_row, ps);
	if (ps->failed)
		return -1;
	if (done < n || csv_error(&ps->parser) != CSV_SUCCESS)
		return rk_csv_parse_error(ps);
	return 0;
}

/* Hands one block to libcsv, in the stretches described at rk_csv_space. */
static int rk_csv_feed(rk_csvpass *ps, const char *block, size_t n)
{
	const unsigned char *s = (const unsigned char *)block;
	size_t i = 0;

	/* Reading only the header: feed line by line so no data row is parsed
	 * once the header is complete. */
	while (ps->header_only && i < n && ps->mode == RK_CSV_HEADER) {
		const char *nl = memchr(block + i, '\n', n - i);
		size_t end = nl ? (size_t)(nl - block) + 1 : n;

		if (rk_csv_parse(ps, block + i, end - i, true) < 0)
			return -1;
		i = end;
	}
	if (ps->header_only)
		return 0;

	while (i < n) {
		size_t end;
		const char *nl;

		/* libcsv keeps "inside a quoted field" in p->quoted between calls. */
		if (!ps->parser.quoted) {
			end = rk_csv_next_hazard(ps->r->cls, s, n, i, ps->prev);
			if (end > i) {
				if (rk_csv_parse(ps, block + i, end - i, false) < 0)
					return -1;
				i = end;
				continue;
			}
		}
		nl = memchr(block + i, '\n', n - i);
		end = nl ? (size_t)(nl - block) + 1 : n;
		if (rk_csv_parse(ps, block + i, end - i, true) < 0)
			return -1;
		i = end;
	}
	ps->prev = s[n - 1];
	return 0;
}

static int rk_csv_finish(rk_csvpass *ps)
{
	if (csv_fini(&ps->parser, rk_csv_on_field, rk_csv_on_row, ps) != 0) {
		if (ps->failed)
			return -1;
		rk_csv_fail_at(ps, ps->line, ps->nfields + 1, RK_EXIT_USAGE,
		               "close the quoted field with a double quote",
		               "unterminated quoted field: its closing quote is missing");
		return -1;
	}
	if (ps->failed)
		return -1;
	if (ps->mode == RK_CSV_HEADER) {
		rk_error_set(ps->err, RK_EXIT_USAGE, "%s csv file '%s' is empty: a header line is required",
		             rk_csv_side(ps->r), ps->f->path);
		rk_error_hint(ps->err, "the first line of every csv file must name its columns");
		return -1;
	}
	/* Blank lines left pending at the end of the file are ignored. */
	return 0;
}

/*
 * After a block of n bytes: fails when the unfinished row has grown past
 * RK_CSV_ROW_MAX.  Counted by whole blocks (a row that ends in a block
 * resets the count), so it costs nothing per row and never refuses a row of
 * RK_CSV_ROW_MAX bytes or less.  libcsv grows a long field by a fixed step;
 * the step follows the field's size so a long field takes a few reallocs,
 * not one per 64 KiB.
 */
static int rk_csv_row_bound(rk_csvpass *ps, size_t n)
{
	if (ps->row_ended) {
		ps->row_ended = false;
		ps->row_bytes = 0;
	} else {
		ps->row_bytes += n;
	}
	if (ps->parser.entry_size > RK_CSV_FIELD_STEP)
		csv_set_blk_size(&ps->parser, ps->parser.entry_size);
	if (ps->row_bytes <= RK_CSV_ROW_MAX)
		return 0;
	rk_csv_fail_at(ps, ps->line, ps->nfields + 1, RK_EXIT_USAGE,
	               "a csv file may be of any size, but each row (the header included) is read whole; "
	               "is this a csv file, with a line break after each row?",
	               "%s csv row longer than %zu MiB, the most reckon reads in one row", rk_csv_side(ps->r),
	               RK_CSV_ROW_MAX >> 20);
	return -1;
}

static int rk_csv_run(rk_csvpass *ps)
{
	rk_csvreader *r = ps->r;
	bool first = true;
	int fd, rc = 0;

	fd = rk_csv_open_fd(r, ps->f->path, ps->err);
	if (fd < 0)
		return -1;
	csv_init(&ps->parser, CSV_STRICT | CSV_STRICT_FINI | CSV_REPALL_NL | CSV_EMPTY_IS_NULL);
	csv_set_delim(&ps->parser, r->delim);
	csv_set_blk_size(&ps->parser, RK_CSV_FIELD_STEP);
	rk_csv_quoted = false;

	for (;;) {
		ssize_t got = rk_csv_read_full(fd, r->block, RK_CSV_BLOCK);
		const char *s = r->block;
		size_t n;

		if (got < 0) {
			rk_error_set(ps->err, RK_EXIT_RUNTIME, "cannot read %s csv file '%s': %s", rk_csv_side(r),
			             ps->f->path, strerror(errno));
			rc = -1;
			break;
		}
		n = (size_t)got;
		if (first && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
			s += 3;
			n -= 3;
		}
		first = false;
		if (n && rk_csv_feed(ps, s, n) < 0) {
			rc = -1;
			break;
		}
		if (rk_csv_row_bound(ps, n) < 0) {
			rc = -1;
			break;
		}
		if (ps->header_only && ps->mode != RK_CSV_HEADER)
			break;
		if ((size_t)got < RK_CSV_BLOCK) {
			rc = rk_csv_finish(ps);
			break;
		}
	}
	csv_free(&ps->parser);
	close(fd);
	return rc;
}

static void rk_csv_pass_init(rk_csvpass *ps, rk_csvreader *r, rk_csvfile *f, rk_error *err)
{
	memset(ps, 0, sizeof *ps);
	ps->r = r;
	ps->f = f;
	ps->err = err;
	ps->mode = RK_CSV_HEADER;
	ps->line = 1;
	ps->prev = '\n';
	ps->hdr = (rk_buf)RK_BUF_INIT;
}

static void rk_csv_pass_done(rk_csvpass *ps)
{
	rk_buf_free(&ps->hdr);
	free(ps->hdr_off);
}

/* ---- rk_reader_ops ------------------------------------------------------ */

static void rk_csv_free(void *impl)
{
	rk_csvreader *r = impl;

	if (!r)
		return;
	for (size_t i = 0; i < r->nfiles; i++) {
		rk_csvfile *f = &r->files[i];

		for (size_t j = 0; j < f->ncols; j++)
			free(f->names[j]);
		free(f->names);
		free(f->path);
		free(f->map);
		free(f->wanted);
	}
	free(r->files);
	free(r->side);
	free(r->descr);
	free(r->null_marker);
	free(r->block);
	rk_buf_free(&r->arena);
	free(r->slots);
	free(r->fields);
	free(r);
}

void *rk_csvreader_open(const rk_reader_opts *o, const char *path, rk_error *err)
{
	const char *delim = rk_reader_setting_of(o, "csv-delimiter");
	const char *null_marker = rk_reader_setting_of(o, "csv-null");
	rk_csvreader *r = rk_xcalloc(1, sizeof *r);
	rk_buf d = RK_BUF_INIT;
	struct stat st;

	r->side = rk_xstrdup(o->side ? o->side : "csv");
	rk_buf_printf(&d, "%s csv:%s", r->side, path);
	r->descr = d.data;
	r->delim = delim && *delim ? (unsigned char)*delim : ',';
	if (r->delim == '"' || r->delim == '\n' || r->delim == '\r') {
		rk_error_set(err, RK_EXIT_USAGE, "the csv delimiter cannot be a double quote or a line break");
		goto fail;
	}
	rk_csv_classes(r);
	if (null_marker) {
		r->null_marker = rk_xstrdup(null_marker);
		r->null_len = strlen(null_marker);
	}

	if (stat(path, &st) != 0) {
		if (errno == ENOENT || errno == ENOTDIR) {
			rk_error_set(err, RK_EXIT_USAGE, "%s csv file '%s' does not exist", r->side, path);
			rk_error_hint(err, "csv:PATH takes a .csv file or a directory of .csv files");
		} else {
			rk_error_set(err, RK_EXIT_USAGE, "%s csv file '%s' cannot be read: %s", r->side, path,
			             strerror(errno));
		}
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		if (rk_csv_list_dir(r, path, err) < 0)
			goto fail;
	} else {
		r->files = rk_xcalloc(1, sizeof *r->files);
		r->files[0].path = rk_xstrdup(path);
		r->nfiles = 1;
	}

	r->block = rk_xmalloc(RK_CSV_BLOCK);
	for (size_t i = 0; i < r->nfiles; i++) {
		rk_csvpass ps;
		int rc;

		rk_csv_pass_init(&ps, r, &r->files[i], err);
		ps.header_only = true;
		rc = rk_csv_run(&ps);
		rk_csv_pass_done(&ps);
		if (rc < 0)
			goto fail;
	}
	return r;

fail:
	rk_csv_free(r);
	return NULL;
}

/* Lists a file's columns for a message: 'a', 'b', 'c'. */
static void rk_csv_list_names(const rk_csvfile *f, rk_buf *b)
{
	for (size_t j = 0; j < f->ncols; j++)
		rk_buf_printf(b, "%s'%s'", j ? ", " : "", f->names[j]);
}

/* Finds column name in f: an exact match, else a unique case-insensitive one. */
static int rk_csv_find(const rk_csvreader *r, const rk_csvfile *f, const char *name, size_t *out, rk_error *err)
{
	size_t hits = 0, first = 0, second = 0;
	rk_buf b = RK_BUF_INIT;

	for (int pass = 0; pass < 2 && hits == 0; pass++) {
		for (size_t j = 0; j < f->ncols; j++) {
			bool eq = pass == 0 ? strcmp(f->names[j], name) == 0 : strcasecmp(f->names[j], name) == 0;

			if (!eq)
				continue;
			if (hits == 0)
				first = j;
			else if (hits == 1)
				second = j;
			hits++;
		}
		if (hits == 1) {
			*out = first;
			return 0;
		}
		if (hits > 1 && pass == 0) {
			rk_error_set(err, RK_EXIT_USAGE, "%s csv file '%s' has column '%s' more than once (fields %zu and %zu)",
			             rk_csv_side(r), f->path, name, first + 1, second + 1);
			rk_error_hint(err, "give each column of the header a distinct name");
			return -1;
		}
		if (hits > 1) {
			rk_error_set(err, RK_EXIT_USAGE,
			             "column '%s' is ambiguous in %s csv file '%s': it matches '%s' and '%s'", name,
			             rk_csv_side(r), f->path, f->names[first], f->names[second]);
			rk_error_hint(err, "spell the column exactly as the header does");
			return -1;
		}
	}
	rk_csv_list_names(f, &b);
	rk_error_set(err, RK_EXIT_USAGE, "%s csv file '%s' has no column '%s' (its columns: %s)", rk_csv_side(r),
	             f->path, name, b.len ? rk_buf_cstr(&b) : "none");
	rk_error_hint(err, "columns are matched by header name, exactly or else case-insensitively; "
	                   "every file of a csv directory must hold every column the check uses");
	rk_buf_free(&b);
	return -1;
}

/* Forgets the bound columns: a reader may be bound again (checks one after
 * another on one reader). */
static void rk_csv_unbind(rk_csvreader *r)
{
	for (size_t k = 0; k < r->nfiles; k++) {
		free(r->files[k].map);
		free(r->files[k].wanted);
		r->files[k].map = NULL;
		r->files[k].wanted = NULL;
	}
	free(r->slots);
	free(r->fields);
	r->slots = NULL;
	r->fields = NULL;
	r->ncolumns = 0;
	r->bound = false;
}

static int rk_csv_bind(void *impl, const char *const *columns, size_t ncolumns, rk_type *types, rk_error *err)
{
	rk_csvreader *r = impl;
	size_t maxcols = 1;

	rk_csv_unbind(r);
	for (size_t i = 0; i < ncolumns; i++)
		types[i] = RK_T_UNKNOWN;
	for (size_t k = 0; k < r->nfiles; k++) {
		rk_csvfile *f = &r->files[k];

		f->map = rk_xcalloc(ncolumns ? ncolumns : 1, sizeof *f->map);
		f->wanted = rk_xcalloc(f->ncols ? f->ncols : 1, sizeof *f->wanted);
		for (size_t i = 0; i < ncolumns; i++) {
			if (rk_csv_find(r, f, columns[i], &f->map[i], err) < 0)
				return -1;
			f->wanted[f->map[i]] = true;
		}
		if (f->ncols > maxcols)
			maxcols = f->ncols;
	}
	r->ncolumns = ncolumns;
	r->slots = rk_xcalloc(maxcols, sizeof *r->slots);
	r->fields = rk_xcalloc(ncolumns ? ncolumns : 1, sizeof *r->fields);
	/* Never NULL, so a field pointer is always arena.data + offset. */
	rk_buf_grow(&r->arena, 4096);
	r->bound = true;
	return 0;
}

static int rk_csv_scan(void *impl, const rk_scan *scan, rk_row_fn fn, void *ctx, rk_error *err)
{
	rk_csvreader *r = impl;

	assert(r->bound);
	for (size_t k = 0; k < r->nfiles; k++) {
		rk_csvpass ps;
		int rc;

		rk_csv_pass_init(&ps, r, &r->files[k], err);
		ps.fn = fn;
		ps.ctx = ctx;
		rk_buf_reset(&r->arena);
		rc = rk_csv_run(&ps);
		rk_csv_pass_done(&ps);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static const char *rk_csv_describe(const void *impl)
{
	const rk_csvreader *r = impl;

	return r->descr;
}

/* The header of the first file: a directory's files may order their
 * columns differently, but they name the same ones. */
static int rk_csv_columns(void *impl, char ***names, size_t *n, rk_error *err)
{
	const rk_csvreader *r = impl;
	const rk_csvfile *f = &r->files[0];

	(void)err;
	*names = rk_xcalloc(f->ncols ? f->ncols : 1, sizeof **names);
	for (size_t i = 0; i < f->ncols; i++)
		(*names)[i] = rk_xstrdup(f->names[i]);
	*n = f->ncols;
	return 0;
}

const rk_reader_ops rk_csvreader_ops = {
	.columns = rk_csv_columns,
	.bind = rk_csv_bind,
	.scan = rk_csv_scan,
	.describe = rk_csv_describe,
	.free = rk_csv_free,
};

/* "csv:PATH" */
static void *rk_csv_driver_open(const rk_reader_opts *o, const char *path, rk_error *err)
{
	if (!*path) {
		rk_error_set(err, RK_EXIT_USAGE, "--%s csv: needs a path", o->side);
		rk_error_hint(err, "write csv:FILE.csv or csv:DIRECTORY");
		return NULL;
	}
	return rk_csvreader_open(o, path, err);
}

/* Untyped text under header names, read whole by every scan. */
const rk_reader_driver rk_csvreader_driver = {
	.prefix = "csv:",
	.noun = "CSV data",
	.caps = RK_CAP_KEY_RANGES,
	.open = rk_csv_driver_open,
	.ops = &rk_csvreader_ops,
};
