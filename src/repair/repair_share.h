/*
 * repair_share.h - what the three ways of repairing (time intervals of a
 * PostgreSQL target, repair_impl.h; key segments, repair_keys_impl.h; a
 * Delta target, repair_delta.c) do the same way, over the parts their runs
 * have in common: the spec, the target's connection and table, the columns
 * written.  Each took its own copy of these before; one place now.  The
 * interval and segment formatters serve `reckon repair`'s output too.
 */
#ifndef RK_REPAIR_SHARE_H
#define RK_REPAIR_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check/check.h"
#include "check/result.h"
#include "core/buf.h"
#include "core/error.h"
#include "io/pg.h"
#include "io/reader.h"
#include "io/spill.h"
#include "io/sqltpl.h"
#include "load/dest.h"
#include "repair/repair_types.h"

/* Frees v[0..n) and v. */
void rk_repair_strv_free(char **v, size_t n);

/* Clears what a run reports of each of iv[0..n) (before the run). */
void rk_repair_reset_intervals(rk_repair_interval *iv, size_t n);

/* "[2026-03-02T10:00:00Z, 2026-03-02T11:00:00Z)" into b. */
void rk_repair_put_interval(rk_buf *b, rk_usec s, rk_usec e);

/* "[cust-0100, cust-0200)" into b, the keys escaped; an open end is
 * "(first)" or "(last)". */
void rk_repair_put_segment(rk_buf *b, const rk_repair_interval *v);

/* "the key order_id" or "the key (order_id, line_no)" into b. */
void rk_repair_put_key(rk_buf *b, char *const *key, size_t nkey);

/* The logical key columns of check spec c: --key, or the target's primary
 * key; *key (n strings) is the caller's to free. */
int rk_repair_key_columns(const rk_check_spec *c, char ***key, size_t *nkey, rk_error *err);

/* The input of rk_wmap_build for repair of check spec c: target table
 * target (written column icol by repair itself, or -1), the source reader
 * src with its columns names[0..nnames), the key, and the column that
 * places a row (time, or the first key column of a key segment). */
void rk_repair_wmap_in(rk_wmap_in *in, const rk_check_spec *c, const rk_dest *target, long icol, rk_reader *src,
                       char *const *names, size_t nnames, char *const *key, size_t nkey, const char *place_col);

/* Source row fields[0..n) appended to b as a line of COPY text. */
void rk_repair_put_row(rk_buf *b, const rk_field *fields, size_t n);

/* COPY data is sent in chunks of about this size. */
#define RK_REPAIR_FLUSH (256 * 1024)

/* The source's rows as COPY text into the target's staging table: what is
 * not sent yet, and a failure of the target's side, kept apart from the
 * reader's errors (the reader would blame the source for it). */
typedef struct rk_copy_stream {
	rk_pg *tgt;
	rk_buf out;   /* sent once it holds RK_REPAIR_FLUSH bytes */
	bool failed;  /* the target side of the stream failed ... */
	rk_error err; /* ... with this error */
} rk_copy_stream;

/* Empties s for a COPY into tgt (its buffer kept for reuse). */
void rk_copy_stream_start(rk_copy_stream *s, rk_pg *tgt);

/* Sends what s holds: 0, or -1 with err (and s->failed, s->err). */
int rk_copy_stream_flush(rk_copy_stream *s, rk_error *err);

/* Ends a row: its newline, and a flush once a flush's worth is held. */
int rk_copy_stream_row_end(rk_copy_stream *s, rk_error *err);

/* Field col of a source row appended to s as COPY text; a value sent out
 * of band (f->large) is read back from src in chunks, each escaped on its
 * own (COPY text escapes byte by byte, so pieces escape as the whole does)
 * and sent on at RK_REPAIR_FLUSH bytes - never whole: the source's reader
 * and the target are two connections, so the COPY stays open meanwhile.
 * name is the column as an error names it. */
int rk_repair_put_field(rk_copy_stream *s, rk_reader *src, size_t col, const char *name, const rk_field *f,
                        rk_error *err);

/* Every written column of map (fields[0..map->n)), tab-separated, as
 * rk_repair_put_field puts each. */
int rk_repair_put_fields(rk_copy_stream *s, rk_reader *src, const rk_wmap *map, const rk_field *fields,
                         rk_error *err);

/* Per written column of map whose source types are types: whether a scan
 * may send its large values out of band - a text column, but the one that
 * places a row (map->time), which the row callback reads. */
bool *rk_repair_large_cols(const rk_wmap *map, const rk_type *types);

/* Takes the finding keys of one interval's check res: the keys a row-level
 * repair may write, *want (nkey strings each, *nwant of them; the caller
 * frees, also after a failure).  A key the source holds twice is refused
 * (which copy would the target hold?): "<key> is not unique at the
 * source<scope>: the source holds K N times in <place>"; a key with a NULL
 * part is left out (it matches no row by "="), with a warning naming
 * place and ending with tail. */
int rk_repair_take_keys(const rk_check_result *res, char *const *key, size_t nkey, const char *scope,
                        const char *place, const char *tail, char ***want, size_t *nwant, rk_error *err);

/* The most finding keys a row-level repair hands its source scan as texts
 * (rk_scan.key_text: a PostgreSQL source asks for them by value, at most
 * RK_PGREADER_MAX_KEYS); past them the scan reads the interval whole. */
#define RK_REPAIR_KEY_TEXTS 256

/*
 * One interval's finding keys for a row-level repair of a PostgreSQL
 * target: every key as a line of COPY text in a spill (io/spill.h, in
 * insertion order: in memory below RK_SPILL_BYTES, in files in TMPDIR past
 * it), so that millions of them cost no memory of their own (issue 25);
 * their texts too while there are at most RK_REPAIR_KEY_TEXTS.
 */
typedef struct rk_repair_keys {
	rk_spill *lines;
	size_t n;
	char **text; /* n * nkey texts, or NULL past RK_REPAIR_KEY_TEXTS keys */
} rk_repair_keys;

/* rk_repair_take_keys into *k (emptied first; rk_repair_keys_free frees
 * it, also after a failure). */
int rk_repair_take_key_lines(const rk_check_result *res, char *const *key, size_t nkey, const char *scope,
                             const char *place, const char *tail, rk_repair_keys *k, rk_error *err);

/* Frees k's keys (nkey texts each) and empties it. */
void rk_repair_keys_free(rk_repair_keys *k, size_t nkey);

/* What a delete does to the rows that reference a deleted row, by
 * pg_constraint.confdeltype. */
const char *rk_repair_fk_action(char a);

/* Refuses a target an enabled logical-replication subscription writes
 * (unless --force, with a warning). */
int rk_repair_refuse_subscribed(const rk_repair_spec *spec, const rk_dest *dest, rk_pg *tgt, rk_error *err);

/* Refuses, before any change, a target role that may not write what the
 * repair writes. */
int rk_repair_refuse_privileges(const rk_repair_spec *spec, const rk_dest *dest, rk_pg *tgt, rk_error *err);

/* Quoted target columns of the written entries idx[0..n) of map (idx
 * NULL: the first n), joined by ", ", each prefixed and suffixed; NULL with
 * err on a name that cannot be quoted. */
char *rk_repair_quote_cols(const rk_dest *dest, const rk_wmap *map, const size_t *idx, size_t n, const char *prefix,
                           const char *suffix, rk_error *err);

/* Template tpl rendered with vars (a new string), or NULL with err. */
char *rk_repair_render(const char *tpl, const rk_sqlvar *vars, size_t nvars, rk_error *err);

/* Names the target columns --target-where (where) mentions that repair
 * does not write (neither a column of map nor icol, the interval column,
 * or -1), ", "-joined into b; returns how many. */
size_t rk_repair_unfilled(const char *where, const rk_dest *dest, const rk_wmap *map, long icol, rk_buf *b);

/* Whether target column c is one of those. */
bool rk_repair_mentioned(const char *where, const rk_dest *dest, const rk_wmap *map, long icol, size_t c);

/* The row count in the first value of res (and its second value as a new
 * string into *out2, when out2 is given); frees res.  Another shape than a
 * count is an error naming label, not a zero. */
int rk_repair_count_of(rk_pg_result *res, const char *label, uint64_t *out, char **out2, rk_error *err);

/* Stages the finding keys want[0..nwant) (nkey parts each) on tgt through
 * sql/repair_row_want_copy.sql; a key the column type refuses (SQLSTATE
 * class 22) is a usage error. */
int rk_repair_copy_keys(rk_pg *tgt, char *const *want, size_t nwant, size_t nkey, rk_error *err);

/* The same for the keys of k, read from its spill a line at a time. */
int rk_repair_copy_key_lines(rk_pg *tgt, rk_repair_keys *k, rk_error *err);

#endif
