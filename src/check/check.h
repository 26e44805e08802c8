/*
 * check.h - the checker: per-window digests of both sides, then the
 * key-level drilldown of the windows that differ.
 *
 * Layering: uses core/ (windows, canonical encoding, digests) and io/ (the
 * readers); knows nothing of argv or output formats (cli/ and report/).
 */
#ifndef RK_CHECK_H
#define RK_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/digest.h"
#include "core/error.h"
#include "core/keyspace.h"
#include "core/timeutil.h"
#include "core/types.h"
#include "io/reader.h"

/* --pushdown: where a PostgreSQL side's window digests are computed. */
typedef enum rk_pushdown {
	RK_PUSHDOWN_OFF = 0, /* stream the rows and digest them here */
	RK_PUSHDOWN_ON,      /* in the server (reckon extension); missing: error 2 */
	RK_PUSHDOWN_AUTO     /* in the server when it has the extension, else stream */
} rk_pushdown;

/*
 * Live counters of a running check, for a progress display: the threads
 * reading a side add to them every RK_METER_EVERY rows (never per row, and
 * without locks), and any thread may read them at any time.  Zeroed by the
 * caller; rk_check_run sets span and phase.
 */
#define RK_METER_EVERY 16384u /* a power of two */

enum { RK_PHASE_START,
       RK_PHASE_DIGEST,
       RK_PHASE_DRILL,
       RK_PHASE_DONE };

typedef struct rk_check_meter {
	_Atomic uint64_t rows[2]; /* rows read per side (0 source, 1 target) */
	_Atomic int64_t done[2];  /* per side: microseconds of the closed range its readers have passed */
	_Atomic int64_t span;     /* the closed range, in microseconds */
	_Atomic int phase;        /* RK_PHASE_* */
} rk_check_meter;

/* Default bound on the rows per side the drilldown holds at once: about
 * 100 bytes each (hashes, time, key text), so ~20 MB per side. */
#define RK_CHECK_LEAF_ROWS 200000

/* One side's digests of every window of a check, known from an earlier
 * check of the same windows in the same snapshot of that side
 * (rk_check_spec.source_known): computing them again would give the same. */
typedef struct rk_check_known {
	size_t nwindows;
	const uint64_t *rows; /* [nwindows] */
	const rk_u128 *hash;  /* [nwindows] */
	const rk_sum *sums;   /* [nwindows * nsum] */
	uint64_t null_time;
} rk_check_known;

typedef struct rk_check_spec {
	rk_reader_opts source;  /* side = "source" */
	rk_reader_opts target;  /* side = "target" */
	const char *const *key; /* key columns, in --key order; none: the target's
	                                 * primary key, else the source's */
	size_t nkey;
	const char *time; /* the time column; NULL: key segments of the first key column
	                                 * (docs/key-segments.md), and from/to/width/bounds unused */
	/* Key segments with key_range: the one segment [key_from, key_to) of
	 * the first key column (key texts, NULL: an open end; reckon repair of
	 * a key list) instead of segments cut from a sample; bounds that are
	 * no exact segment bounds (rk_keyspace_fit) are an input error. */
	bool key_range;
	const char *key_from, *key_to;
	const char *const *sum; /* --sum columns */
	size_t nsum;
	const char *const *columns; /* hashed columns; none: the whole row (every column
	                                 * both sides have, in the target's order) */
	size_t ncolumns;
	const char *const *exclude; /* left out of the whole row (--exclude-columns) */
	size_t nexclude;
	const char *const *types; /* --types items "col:type" */
	size_t ntypes;
	rk_usec from, to, width; /* the check range and window width */
	/* Calendar windows (--timezone): nbounds >= 2 increasing instants,
	 * window w = [bounds[w], bounds[w + 1]); from and to are then bounds[0]
	 * and bounds[nbounds - 1], and width only names the window in reports.
	 * nbounds 0: windows of width from from. */
	rk_usec *bounds; /* owned by whoever filled it (rk_tableopts_free) */
	size_t nbounds;
	const struct rk_tz *tz; /* --timezone: reports show local times beside UTC; or NULL */
	/* --time-column-zone: a zoneless `timestamp` time column holds
	 * wall-clock times of this zone, placed at their instants by
	 * rk_tz_utc's rule (PostgreSQL's AT TIME ZONE); NULL: read as UTC.  It
	 * only places rows: a value's canonical encoding stays digest.md's. */
	const struct rk_tz *time_zone;
	const char *range_warning;   /* shown as a "time_column_zone" warning, or NULL */
	const char *window_text;     /* the window as given ("1mo"), or NULL: width */
	rk_usec settle, now;         /* closedness: end <= now - settle */
	size_t leaf_rows;            /* drilldown memory bound (rows per side) */
	size_t jobs;                 /* parallel readers per PostgreSQL side (0 or 1: one) */
	rk_pushdown pushdown;        /* window digests computed by the server */
	bool findings;               /* run the key-level drilldown */
	bool diagnose;               /* name the likely causes and warn (diagnose.h), find which
	                                 * columns of the changed keys differ (keys.h); needs findings */
	bool no_values;              /* --no-values: the changed columns' names, not their values */
	const char *watermark_query; /* optional, run on the source (PostgreSQL only) */
	rk_check_meter *meter;       /* optional: progress counters to keep up to date */
	/* Optional: the two sides' readers (source, target), open and the
	 * caller's: the check binds and scans them instead of opening its own,
	 * and leaves them open (checks one after another on the same
	 * connections: repair renews their snapshots between them,
	 * rk_reader_renew); each side is then read by one session. */
	rk_reader *const *readers;
	/* Optional, without findings: the source's digests of the windows,
	 * known: the check digests the target only (repair's check after a
	 * change, against the source snapshot the check before it read). */
	const rk_check_known *source_known;
} rk_check_spec;

/* A logical column whose two sides' types differ in kind (rk_type_kind). */
typedef struct rk_drift_kind {
	char *name;        /* the logical column, unquoted */
	char *source_type; /* type names (rk_type_name) */
	char *target_type;
	bool as_numbers; /* an exact number and a float: compared as numbers,
	                  * the exact side's values as the float type */
} rk_drift_kind;

/* Schema drift: what one side has that the other does not.  It never
 * changes the verdict. */
typedef struct rk_drift {
	char **only[2]; /* [0] columns only the source has, [1] only the target */
	size_t nonly[2];
	rk_drift_kind *kinds;
	size_t nkinds;
} rk_drift;

typedef enum rk_win_status { RK_WIN_MATCH,
	                     RK_WIN_DIFFER,
	                     RK_WIN_OPEN } rk_win_status;

typedef enum rk_find_kind {
	RK_FIND_MISSING,
	RK_FIND_EXTRA,
	RK_FIND_DUPLICATED,
	RK_FIND_CHANGED,
	RK_FIND_SOURCE_DUPLICATE,
	RK_FIND_NKINDS
} rk_find_kind;

/* "missing", "extra", ... */
const char *rk_find_kind_name(rk_find_kind k);

typedef struct rk_finding {
	size_t window; /* index into the windows */
	rk_find_kind kind;
	char **key;       /* nkey display texts; NULL entry = SQL NULL; owned */
	rk_u128 key_hash; /* the hash of its canonical key encoding */
	uint32_t source_copies;
	uint32_t target_copies;
	rk_usec source_time; /* time of the (first) source copy, or RK_USEC_NINF */
	rk_usec target_time; /* time of the (first) target copy, or RK_USEC_NINF */
	/* The earliest and the latest time of its source copies in the window
	 * (RK_USEC_NINF when none): where the diagnosis finds them all. */
	rk_usec source_min, source_max;
	bool same_copies; /* duplicated, one source copy: every target copy is that row */
	/* The span [leaf_lo, leaf_hi) of the drilldown's leaves that held its
	 * differing copies (empty when not known: its window): every copy
	 * outside it is alike on both sides, so its changed values are read
	 * there (keys.c) - a range of the time column, not a lookup by key. */
	rk_usec leaf_lo, leaf_hi;
	/* An extra key looked up by key on both sides over all time (keys.c),
	 * when each side has an index that serves it: */
	bool looked_up;
	rk_usec source_elsewhere; /* the source's copy's time (its latest), or RK_USEC_NINF: none */
	bool target_has_it;       /* the target holds that copy, as the source has it */
} rk_finding;

/* Longest value text a change keeps, in bytes (cut on a character). */
#define RK_CHANGE_VALUE_MAX 200

/* One differing column of a changed finding (changes.csv). */
typedef struct rk_change {
	size_t finding; /* index into the findings */
	size_t column;  /* index into column_names */
	char *value[2]; /* each side's text (as read), cut to RK_CHANGE_VALUE_MAX bytes;
	                         * NULL for SQL NULL, or for every value with --no-values */
	bool cut[2];    /* the text was cut */
} rk_change;

/* A span of source time, both ends included (rk_check_result.held). */
typedef struct rk_held {
	rk_usec lo, hi;
} rk_held;

/* Per-side digest of all windows. */
typedef struct rk_side_result {
	char *describe;       /* "source table x on host=..." (no password) */
	uint64_t *rows;       /* [nwindows] */
	rk_u128 *hash;        /* [nwindows] */
	rk_sum *sums;         /* [nwindows * nsum] */
	uint64_t null_time;   /* rows whose time is NULL */
	uint64_t total;       /* rows in closed windows */
	uint64_t rows_read;   /* rows delivered by the reader, all passes */
	uint64_t *slice_rows; /* [nwindows * slices]: each window's count and hash */
	rk_u128 *slice_hash;  /* per slice too, where the drilldown starts */
	bool slices_ok;       /* the digest pass filled them (a reader may group per window) */
	bool drill_server;    /* the drilldown narrowed this side in its database */
	bool reads_files;     /* a reader of files (a Delta table): files_read and
	                         * bytes_read count what its scans opened, all passes */
	uint64_t files_read;
	uint64_t bytes_read;
	/* A side that keeps a log of its commits (RK_CAP_HISTORY), when
	 * windows differ: the history of the damaged windows, in window
	 * order (check/history.h), or a note saying why there is none. */
	rk_history *history;
	char *history_note;
	bool time_zoneless; /* the time column is a `timestamp` without time zone */
	bool zoned;         /* ... placed in spec->time_zone (not UTC) */
	/* of the rows in closed windows, the wall-clock times the zone has
	 * twice (a fall-back hour) or not at all (a spring-forward hour) */
	uint64_t dst_ambiguous;
	uint64_t dst_nonexistent;
} rk_side_result;

typedef struct rk_check_result {
	size_t nwindows;     /* windows in [from, to) */
	size_t nclosed;      /* windows [0, nclosed) are closed */
	rk_usec from, width; /* width: every window's, or with calendar windows the
	                         * grid every boundary lies on (the server's groups) */
	rk_usec *bounds;     /* [nwindows + 1]: window w is [bounds[w], bounds[w + 1]) */
	bool calendar;       /* windows of different widths (rk_check_spec.bounds) */
	/* Key segments (rk_check_spec.time NULL): window w is the segment of
	 * first-key points [bounds[w], bounds[w + 1]) (core/keyspace.h), from
	 * RK_USEC_NINF to RK_USEC_PINF, all closed, calendar set; seg_text[i]
	 * is boundary i as a key value, NULL for the two open ends. */
	bool keyed;
	rk_keyspace keyspace;
	char **seg_text;               /* [nwindows + 1] */
	const struct rk_tz *time_zone; /* spec->time_zone (--time-column-zone), or NULL */
	size_t nsum;
	size_t slices;          /* window w's slice k is [start + k * width / slices, ...):
	                         * 1, or a power of two dividing width */
	rk_win_status *status;  /* [nwindows] */
	rk_side_result side[2]; /* 0 = source, 1 = target */
	rk_finding *findings;   /* sorted by window, kind, key */
	size_t nfindings;
	size_t nkey;            /* entries in each finding's key */
	char **key_names;       /* the key columns used, unquoted (header names) */
	const char *key_origin; /* "--key", "the target's primary key", "the source's primary key" */
	char **sum_names;       /* [nsum] the sum columns, unquoted */
	int *sum_scale;         /* [nsum] the scale sums are shown at: the larger of the two
	                         * sides' declared scales (catalog typmod, an expression's
	                         * described type, --types numeric(p,s)); -1: none declared */
	char **column_names;    /* the hashed columns, unquoted, in order */
	size_t ncolumns;
	bool whole_row; /* they are the default whole row */
	rk_drift drift; /* schema drift */
	size_t kind_count[RK_FIND_NKINDS];
	/* per window: keys of each kind */
	uint32_t (*win_kind)[RK_FIND_NKINDS];
	uint64_t drill_rows;        /* rows re-read by the drilldown (both sides) */
	uint64_t drill_server_rows; /* rows it digested inside the databases (both sides) */
	int drill_passes;
	/* With the diagnosis (rk_check_spec.diagnose), where the source rows of
	 * the damaged windows that belong to no finding lie, as the drilldown
	 * saw them: every such row lies in one of these spans, and each span
	 * holds at least one source row (the slices and pieces whose digests
	 * matched, the runs of matching rows of its leaves between damaged ones,
	 * the keys whose copies agreed all told).  In no order.  The diagnosis
	 * tells a contiguous loss from scattered ones with them. */
	rk_held *held;
	size_t nheld;
	/* The changed findings' differing columns, by finding (keys.c); with
	 * --no-values (values_omitted) without their values. */
	rk_change *changes;
	size_t nchanges;
	bool values_omitted;
	size_t changed_unread; /* changed findings whose columns were not read (past the bound) */
	bool has_watermark;
	rk_usec watermark;
	uint64_t behind_watermark_missing; /* missing keys at or before the watermark */
	bool differ;                       /* the verdict */
	struct rk_diagnosis *diagnosis;    /* likely causes and warnings (diagnose.h), or NULL */
} rk_check_result;

/*
 * Runs the check.  On success *out is a new result owned by the caller
 * (rk_check_result_free) and 0 is returned, whatever the verdict.  On
 * failure -1 with err filled (RK_EXIT_USAGE for bad tables/columns/data,
 * RK_EXIT_RUNTIME for connections and queries).
 */
int rk_check_run(const rk_check_spec *spec, rk_check_result **out, rk_error *err);

void rk_check_result_free(rk_check_result *r);

/*
 * The key a check of spec would use: spec's own, else the target's primary
 * key, else the source's (docs/reference.md), as written column names.  Opens
 * and closes both sides.  *key is a new array of new strings (free each,
 * then the array).  Returns 0, or -1 with err (RK_EXIT_USAGE when neither
 * side has a primary key).
 */
int rk_check_key(const rk_check_spec *spec, char ***key, size_t *nkey, rk_error *err);

/* The changes of finding fi: *n of them from the returned index. */
size_t rk_finding_changes(const rk_check_result *r, size_t fi, size_t *n);

/* Appends change ch's value on side s as the text and HTML reports show
 * it: NULL for SQL NULL, "..." after a cut text. */
void rk_change_value_text(rk_buf *b, const rk_change *ch, int s);

/* Appends finding f's key as the reports show it: "K", or "(K1, K2)" for a
 * composite key, SQL NULL as NULL. */
void rk_finding_key_text(rk_buf *b, const rk_check_result *r, const rk_finding *f);

static inline rk_usec rk_check_window_start(const rk_check_result *r, size_t w)
{
	return r->bounds[w];
}

static inline rk_usec rk_check_window_end(const rk_check_result *r, size_t w)
{
	return r->bounds[w + 1];
}

/* Boundary i (window i's start, window i - 1's end) as reports show it:
 * the instant formatted into buf (RK_TIME_STRLEN bytes), or with key
 * segments the key value ("" for an open end, owned by r). */
const char *rk_check_bound_text(const rk_check_result *r, size_t i, char *buf);

/* The window holding instant t, which lies in [from, bounds[nwindows]). */
size_t rk_check_window_of(const rk_check_result *r, rk_usec t);

#endif
