/*
 * result.h - what a check found (rk_check_result): both sides' window
 * digests, the verdict, the findings and their changed columns, the schema
 * drift and the diagnosis, with the helpers that read it.  Filled by the
 * checker (check.h) and its phases (drill.h, keys.h, diagnose.h,
 * history.h), read by the reports; it knows nothing of how it was filled.
 */
#ifndef RK_CHECK_RESULT_H
#define RK_CHECK_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/digest.h"
#include "core/error.h"
#include "core/keyspace.h"
#include "core/timeutil.h"
#include "check/finding.h"
#include "io/reader.h"

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

/* "missing", "extra", ... */
const char *rk_find_kind_name(rk_find_kind k);

/* Blocks a result's finding keys are carved from (rk_keypool_key). */
typedef struct rk_keypool {
	char **blocks;
	size_t nblocks;
	char *at;    /* the last block's free bytes */
	size_t left; /* ... how many */
} rk_keypool;

/*
 * Where a finding's copies lie (rk_finding_span).  Kept beside the findings
 * only when a field says more than source_time does: most findings have one
 * source copy, and the findings of one leaf share one span.
 */
typedef struct rk_fspan {
	/* The earliest and the latest time of its source copies in the window
	 * (RK_USEC_NINF when none): where the diagnosis finds them all. */
	rk_usec source_min, source_max;
	/* The span [leaf_lo, leaf_hi) of the drilldown's leaves that held its
	 * differing copies (empty when not known: its window): every copy
	 * outside it is alike on both sides, so its changed values are read
	 * there (keys.c) - a range of the time column, not a lookup by key. */
	rk_usec leaf_lo, leaf_hi;
} rk_fspan;

/* What looking an extra key up by key on both sides over all time found
 * (keys.c), when each side has an index that serves it (rk_finding_lookup). */
typedef struct rk_lookup {
	size_t finding;           /* its index into the findings */
	rk_usec source_elsewhere; /* the source's copy's time (its latest), or RK_USEC_NINF: none */
	bool target_has_it;       /* the target holds that copy, as the source has it */
} rk_lookup;

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
	rk_finding *findings;   /* sorted by window, kind, key; NULL when they went to the store */
	size_t nfindings;
	/* Past the findings' bound (RK_SPILL_BYTES): every finding, in the same
	 * order, in a findstore (check/findstore.h) instead of findings; read
	 * them with rk_fwalk, which reads either. */
	struct rk_findstore *store;
	const char *spill_dir; /* where the store writes (rk_check_spec.spill_dir; NULL: TMPDIR) */
	size_t findings_cap;   /* ... room for how many */
	rk_keypool key_pool;   /* the findings' keys */
	/* the findings' spans (rk_finding.span); one whose source_min is
	 * RK_USEC_PINF has the finding's source time as both ends */
	rk_fspan *spans;
	size_t nspans;
	uint32_t *span_cache; /* while the findings are made: recent spans by hash */
	rk_lookup *lookups;   /* the extra keys looked up, by finding index (made once the
	                       * findings are sorted; they are not moved after) */
	size_t nlookups;
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
	struct rk_diagnosis *diagnosis;    /* likely causes and warnings (rk_diagnosis), or NULL */
} rk_check_result;

void rk_check_result_free(rk_check_result *r);

/* A key: the n texts of v (NULL: SQL NULL; len[i] bytes each, or with len
 * NULL to their NUL) copied, with the array of them, into one allocation,
 * freed by one free(). */
char **rk_key_texts(const char *const *v, const size_t *len, size_t n);

/* A finding's key, as rk_key_texts lays it out, carved from kp's blocks
 * and freed with them (rk_keypool_free): a key costs its own bytes, where
 * a block of malloc's of its own took 32 or more (issue 25: a window whose
 * every row differs holds millions). */
char **rk_keypool_key(rk_keypool *kp, const char *const *v, const size_t *len, size_t n);

/* A key pool's blocks: larger than glibc's mmap threshold (main.c), so
 * that each is mapped and goes back to the system when freed; a key
 * larger than a quarter of one has a block of its own. */
#define RK_KEYPOOL_BLOCK ((size_t)1 << 20)

/* Forgets every key carved from kp, keeping one block for the next. */
void rk_keypool_reset(rk_keypool *kp);

/* Frees kp's blocks (every key carved from them) and empties it. */
void rk_keypool_free(rk_keypool *kp);

/*
 * Reads a result's findings in their order, one pass at a time, from
 * memory or from its store.  A finding read stays valid until the next
 * call.  A read of the store that fails ends the pass; rk_fwalk_end says
 * so.  One pass of a result at a time.
 */
typedef struct rk_fwalk {
	const rk_check_result *res;
	size_t at;      /* the index of the finding the next call reads */
	bool have;      /* cur holds it already (peeked) */
	bool failed;    /* a read of the store failed: err says why */
	rk_finding cur; /* from the store */
	rk_error err;
} rk_fwalk;

/* Starts a pass at the first finding. */
void rk_fwalk_start(rk_fwalk *w, const rk_check_result *r);

/* The next finding, not taken (NULL at the end). */
const rk_finding *rk_fwalk_peek(rk_fwalk *w);

/* The next finding, taken, its index in *fi when fi is not NULL (NULL at
 * the end). */
const rk_finding *rk_fwalk_next(rk_fwalk *w, size_t *fi);

/* 0, or -1 with err when a read of the store failed during the pass. */
int rk_fwalk_end(const rk_fwalk *w, rk_error *err);

/* Where finding f's copies lie: its span, or the one its source_time and
 * copies imply (source_min = source_max = source_time with a source copy,
 * RK_USEC_NINF without; no leaves). */
rk_fspan rk_finding_span(const rk_check_result *r, const rk_finding *f);

/* Sets finding f's span to *s: kept beside the findings only when it says
 * more than f's fields do, and shared with a recent finding's alike. */
void rk_finding_set_span(rk_check_result *r, rk_finding *f, const rk_fspan *s);

/* Ends the setting of spans: the cache rk_finding_set_span keeps goes. */
void rk_finding_spans_done(rk_check_result *r);

/* What looking finding fi up found, or NULL when it was not looked up. */
const rk_lookup *rk_finding_lookup(const rk_check_result *r, size_t fi);

/* Finding fi's lookup, made (source_elsewhere RK_USEC_NINF, target_has_it
 * false) when it has none. */
rk_lookup *rk_finding_lookup_add(rk_check_result *r, size_t fi);

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

/* Schema drift's columns freed, *d emptied. */
void rk_drift_free(rk_drift *d);

/* The patterns, in the order a finding is fitted to them. */
typedef enum rk_pattern {
	RK_PAT_LATE_COMMIT,
	RK_PAT_BOUNDARY,
	RK_PAT_MOVED,
	RK_PAT_APPENDED_UPDATE,
	RK_PAT_DELETED_AT_SOURCE,
	RK_PAT_UNBUMPED_UPDATE,
	RK_PAT_GAP,
	RK_PAT_REPEAT,
	RK_PAT_PARTIAL_XACT, /* fitted after source_duplicate */
	RK_PAT_SOURCE_DUPLICATE,
	RK_PAT_NULL_TIME,
	RK_PAT_UNCLASSIFIED,
	RK_PAT_COUNT
} rk_pattern;

/* One pattern found: its findings' windows and keys, and what to say. */
typedef struct rk_cause {
	rk_pattern pattern;
	size_t *windows; /* window indexes, ascending (none for null_time) */
	size_t nwindows;
	size_t keys;     /* distinct keys (null_time: rows with a NULL time) */
	size_t findings; /* findings it holds (null_time: 0) */
	double max_lag;  /* late_commit, partial_transaction: the largest commit lag, seconds */
	char *cause, *evidence, *next_step;
} rk_cause;

/* A fact the verdict cannot see; it never changes the verdict. */
typedef struct rk_warning {
	const char *kind; /* "open_transaction", "sessions_hidden", "key_not_unique", "not_checked" */
	char *message;
} rk_warning;

typedef struct rk_diagnosis {
	rk_cause *causes; /* in rk_pattern order */
	size_t ncauses;
	rk_warning *warnings;
	size_t nwarnings;
	unsigned char *of;                         /* [nfindings]: each finding's rk_pattern (a byte) */
	bool key_unique;                           /* a primary key or unique index of the source backs the key */
	bool late_examined;                        /* commit times were read */
	char late_why[sizeof((rk_error *)0)->msg]; /* ... or why not */
} rk_diagnosis;

void rk_diagnosis_free(rk_diagnosis *d);

/* Frees d's causes, and leaves it with none (its warnings stay). */
void rk_diagnosis_causes_free(rk_diagnosis *d);

#endif
