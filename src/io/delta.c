/*
 * delta.c - a Delta table's snapshot: the log listed, the newest complete
 * checkpoint read through DuckDB, the JSON commits after it replayed, add
 * and remove actions reconciled, the protocol checked, the schema, the
 * partition values, the stats and the deletion vectors read (see delta.h;
 * section names are PROTOCOL.md's).  What the protocol, the schema and an
 * add action's values mean is delta_schema.c's.
 */
#include "io/delta_impl.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"
#include "io/slurp.h"

/* A commit or checkpoint file bigger than this is not a log file. */
#define LOG_FILE_MAX ((size_t)1 << 30)

/* ---- ownership ---- */

void *rk_delta_own(rk_delta *d, void *p)
{
	if (d->nowned == d->capowned) {
		d->capowned = d->capowned ? d->capowned * 2 : 64;
		d->owned = rk_xrealloc(d->owned, d->capowned * sizeof *d->owned);
	}
	d->owned[d->nowned++] = p;
	return p;
}

char *rk_delta_strdup(rk_delta *d, const char *s)
{
	return s ? rk_delta_own(d, rk_xstrdup(s)) : NULL;
}

/* ---- delta:PATH[@VERSION|@TIMESTAMP] ---- */

bool rk_delta_is_spec(const char *conn)
{
	return conn && strncmp(conn, RK_DELTA_PREFIX, strlen(RK_DELTA_PREFIX)) == 0;
}

int rk_delta_spec_parse(const char *conn, const char *what, rk_delta_spec *out, rk_error *err)
{
	const char *body, *at;
	size_t plen;

	memset(out, 0, sizeof *out);
	out->version = -1;
	if (!rk_delta_is_spec(conn))
		return rk_error_set(err, RK_EXIT_USAGE, "%s: '%s' does not start with %s", what, conn ? conn : "",
		                    RK_DELTA_PREFIX);
	body = conn + strlen(RK_DELTA_PREFIX);
	plen = strlen(body);
	at = strrchr(body, '@');
	if (at && at[1]) {
		const char *s = at + 1, *why = NULL;
		size_t n = strspn(s, "0123456789");
		rk_usec t;

		if (n <= 18 && s[n] == '\0') {
			out->version = strtoll(s, NULL, 10);
			plen = (size_t)(at - body);
		} else if (n == 4 && s[4] == '-' && rk_time_parse(s, strlen(s), &t, &why) == 0) {
			/* an instant must say its zone, as --from must */
			size_t len = strlen(s);
			const char *tail = s + (len > 6 ? len - 6 : 0);

			if (s[len - 1] != 'Z' && !strchr(tail, '+') && !strchr(tail, '-')) {
				rk_error_set(err, RK_EXIT_USAGE, "%s: time travel instant '%s' has no zone", what,
				             s);
				return rk_error_hint(err, "write it with Z or an offset, e.g. %.10sT00:00:00Z", s);
			}
			out->has_time = true;
			out->time = t;
			plen = (size_t)(at - body);
		}
	}
	if (plen == 0)
		return rk_error_set(err, RK_EXIT_USAGE, "%s: '%s' names no table directory", what, conn);
	out->path = rk_xstrndup(body, plen);
	return 0;
}

void rk_delta_spec_clear(rk_delta_spec *spec)
{
	if (!spec)
		return;
	free(spec->path);
	spec->path = NULL;
}

/* ---- the listing of _delta_log ("Delta Log Entries", "Checkpoints") ---- */

enum entry_kind { E_COMMIT,
	          E_CLASSIC,
	          E_PART,
	          E_V2 };

typedef struct log_entry {
	int64_t version;
	enum entry_kind kind;
	int part, parts; /* E_PART */
	char *name;      /* file name in _delta_log */
} log_entry;

typedef struct listing {
	log_entry *e;
	size_t n, cap;
} listing;

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

/* Classifies a name of _delta_log: NNNNNNNNNNNNNNNNNNNN.json, .checkpoint.parquet,
 * .checkpoint.OOOOOOOOOO.PPPPPPPPPP.parquet, .checkpoint.UUID.json|parquet
 * ("Checkpoint Naming Scheme").  Returns false for anything else (.crc,
 * compacted logs, temporary files, _last_checkpoint). */
static bool classify(const char *name, log_entry *e)
{
	const char *s = name + 20;

	if (!all_digits(name, 20) || name[20] != '.')
		return false;
	e->version = strtoll(name, NULL, 10);
	e->part = e->parts = 0;
	if (strcmp(s, ".json") == 0) {
		e->kind = E_COMMIT;
		return true;
	}
	if (strncmp(s, ".checkpoint.", 12) != 0)
		return false;
	s += 12;
	if (strcmp(s, "parquet") == 0) {
		e->kind = E_CLASSIC;
		return true;
	}
	if (all_digits(s, 10) && s[10] == '.' && all_digits(s + 11, 10) && strcmp(s + 21, ".parquet") == 0) {
		e->kind = E_PART;
		e->part = atoi(s);
		e->parts = atoi(s + 11);
		return e->part >= 1 && e->part <= e->parts;
	}
	/* UUID: 36 characters of hex digits and dashes */
	if (strlen(s) > 37 && s[36] == '.' && (strcmp(s + 37, "json") == 0 || strcmp(s + 37, "parquet") == 0)) {
		for (int i = 0; i < 36; i++)
			if (!(isxdigit((unsigned char)s[i]) || (s[i] == '-' && (i == 8 || i == 13 || i == 18 || i == 23))))
				return false;
		e->kind = E_V2;
		return true;
	}
	return false;
}

static int entry_cmp(const void *a, const void *b)
{
	const log_entry *x = a, *y = b;

	if (x->version != y->version)
		return x->version < y->version ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->parts != y->parts)
		return x->parts < y->parts ? -1 : 1;
	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void listing_free(listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->e[i].name);
	free(l->e);
}

static int list_log(const char *logdir, listing *l, rk_error *err)
{
	DIR *dir = opendir(logdir);
	struct dirent *de;

	if (!dir) {
		if (errno == ENOENT || errno == ENOTDIR) {
			rk_error_set(err, RK_EXIT_USAGE, "not a Delta table: %s does not exist", logdir);
			return rk_error_hint(err, "delta:PATH names a table's root directory, the one holding _delta_log/");
		}
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot list %s: %s", logdir, strerror(errno));
	}
	while ((errno = 0, de = readdir(dir)) != NULL) {
		log_entry e;

		if (!classify(de->d_name, &e))
			continue;
		if (l->n == l->cap) {
			l->cap = l->cap ? l->cap * 2 : 64;
			l->e = rk_xrealloc(l->e, l->cap * sizeof *l->e);
		}
		e.name = rk_xstrdup(de->d_name);
		l->e[l->n++] = e;
	}
	if (errno) {
		int e = errno;

		closedir(dir);
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot list %s: %s", logdir, strerror(e));
	}
	closedir(dir);
	if (l->n)
		qsort(l->e, l->n, sizeof *l->e, entry_cmp);
	return 0;
}

/* ---- replay ("Action Reconciliation") ---- */

typedef rk_delta_action action;

typedef struct replay {
	rk_delta *d;
	action *a;
	size_t n, cap, seq;
	json_t *protocol, *metadata; /* newest, references */
	const char *source;          /* the file being read, for messages */
	int64_t version;             /* the commit being read, -1 for a checkpoint */
	int64_t sidecars;            /* v2: sidecar actions seen */
	char **sidecar;              /* their paths, resolved */
	size_t nsidecar;
	bool incomplete;     /* a checkpoint's part or sidecar is missing */
	json_t *commit_info; /* with the history: the commit's commitInfo, or NULL */
} replay;

static void replay_free(replay *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->a[i].key);
		json_decref(r->a[i].add);
	}
	free(r->a);
	json_decref(r->protocol);
	json_decref(r->metadata);
	json_decref(r->commit_info);
	for (size_t i = 0; i < r->nsidecar; i++)
		free(r->sidecar[i]);
	free(r->sidecar);
}

/* Whether s starts with a URI scheme (RFC 2396: a letter, then letters,
 * digits, '+', '-', '.', then ':'): s3://..., abfss://...  A relative
 * path's own ':' would be escaped as %3A. */
static bool has_scheme(const char *s)
{
	size_t i = 0;

	if (!isalpha((unsigned char)s[0]))
		return false;
	while (isalnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.')
		i++;
	return s[i] == ':';
}

/* Resolves an action's path ("Add File and Remove File": a URI, relative to
 * the table root or absolute) to a local absolute path, appended to out. */
static int resolve_path(const char *root, const char *path, rk_buf *out, rk_error *err)
{
	const char *p = path;

	if (strncmp(p, "file:", 5) == 0) {
		p += 5;
		if (strncmp(p, "//", 2) == 0)
			p += 2;
		if (*p != '/')
			return rk_error_set(err, RK_EXIT_USAGE, "path %s: a file: URI with a host is not readable", path);
	} else if (has_scheme(p)) {
		return rk_error_set(err, RK_EXIT_USAGE, "path %s: only local files are readable", path);
	} else if (*p != '/') {
		rk_buf_printf(out, "%s/", root);
	}
	if (rk_delta_uri_decode(p, out) < 0)
		return rk_error_set(err, RK_EXIT_USAGE, "path %s: malformed %%-escape", path);
	return 0;
}

static int file_action(replay *r, json_t *act, bool add, rk_error *err)
{
	const char *path = json_string_value(json_object_get(act, "path"));
	json_t *dv = json_object_get(act, "deletionVector");
	rk_buf key = RK_BUF_INIT;

	if (!path)
		return rk_error_set(err, RK_EXIT_USAGE, "%s: %s action without a path", r->source,
		                    add ? "add" : "remove");
	if (resolve_path(r->d->root, path, &key, err) < 0) {
		rk_buf_free(&key);
		return rk_error_prefix(err, "%s", r->source);
	}
	rk_buf_putc(&key, '\n');
	if (json_is_object(dv) && rk_delta_dv_unique_id(dv, &key) < 0) {
		rk_buf_free(&key);
		return rk_error_set(err, RK_EXIT_USAGE, "%s: deletion vector of %s lacks storageType or pathOrInlineDv",
		                    r->source, path);
	}
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->a = rk_xrealloc(r->a, r->cap * sizeof *r->a);
	}
	r->a[r->n].key = rk_xstrdup(rk_buf_cstr(&key));
	r->a[r->n].add = add ? json_incref(act) : NULL;
	r->a[r->n].seq = r->seq++;
	r->a[r->n].version = r->version;
	r->n++;
	rk_buf_free(&key);
	return 0;
}

/* One action line (a JSON commit's line, a checkpoint's row as JSON): the
 * one non-null member says what it is. */
static int apply(replay *r, json_t *line, rk_error *err)
{
	const char *k;
	json_t *v;

	if (!json_is_object(line))
		return rk_error_set(err, RK_EXIT_USAGE, "%s: an action that is not a JSON object", r->source);
	json_object_foreach(line, k, v)
	{
		if (json_is_null(v))
			continue;
		if (strcmp(k, "add") == 0 || strcmp(k, "remove") == 0) {
			if (file_action(r, v, k[0] == 'a', err) < 0)
				return -1;
		} else if (strcmp(k, "protocol") == 0) {
			json_decref(r->protocol);
			r->protocol = json_incref(v);
		} else if (strcmp(k, "metaData") == 0) {
			json_decref(r->metadata);
			r->metadata = json_incref(v);
		} else if (strcmp(k, "sidecar") == 0) {
			const char *p = json_string_value(json_object_get(v, "path"));
			rk_buf b = RK_BUF_INIT;

			if (!p)
				return rk_error_set(err, RK_EXIT_USAGE, "%s: sidecar action without a path", r->source);
			/* "Sidecar File Information": relative to _delta_log/_sidecars */
			if (p[0] == '/' || strncmp(p, "file:", 5) == 0) {
				if (resolve_path(r->d->root, p, &b, err) < 0) {
					rk_buf_free(&b);
					return -1;
				}
			} else {
				rk_buf_printf(&b, "%s/_delta_log/_sidecars/", r->d->root);
				if (rk_delta_uri_decode(p, &b) < 0) {
					rk_buf_free(&b);
					return rk_error_set(err, RK_EXIT_USAGE, "%s: sidecar %s: malformed %%-escape",
					                    r->source, p);
				}
			}
			r->sidecar = rk_xrealloc(r->sidecar, (r->nsidecar + 1) * sizeof *r->sidecar);
			r->sidecar[r->nsidecar++] = rk_xstrdup(rk_buf_cstr(&b));
			rk_buf_free(&b);
		} else if (strcmp(k, "commitInfo") == 0 && r->d->want_history) {
			json_decref(r->commit_info);
			r->commit_info = json_incref(v);
		}
		/* txn, cdc, domainMetadata, checkpointMetadata: nothing a
		 * reader of the table's rows needs */
	}
	return 0;
}

static int apply_text(replay *r, const char *s, size_t len, rk_error *err)
{
	json_error_t je;
	json_t *line;
	int rc;

	line = json_loadb(s, len, JSON_ALLOW_NUL, &je);
	if (!line)
		return rk_error_set(err, RK_EXIT_USAGE, "%s: not JSON: %s", r->source, je.text);
	rc = apply(r, line, err);
	json_decref(line);
	return rc;
}

/* A newline-delimited JSON file: a commit or a v2 JSON checkpoint. */
static int replay_json(replay *r, const char *path, rk_error *err)
{
	rk_buf text = RK_BUF_INIT;
	const char *p, *end;
	int line = 0;

	r->source = path;
	if (rk_slurp(path, "Delta log file", LOG_FILE_MAX, &text, err) < 0) {
		rk_buf_free(&text);
		/* the listing had it: vanished or unreadable is not bad input */
		err->code = RK_EXIT_RUNTIME;
		return -1;
	}
	p = text.data;
	end = text.data + text.len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;

		line++;
		while (e > p && (e[-1] == '\r' || e[-1] == ' '))
			e--;
		if (e > p && apply_text(r, p, (size_t)(e - p), err) < 0) {
			rk_buf_free(&text);
			return rk_error_prefix(err, "line %d", line);
		}
		p = nl ? nl + 1 : end;
	}
	rk_buf_free(&text);
	return 0;
}

static int row_cb(void *ctx, const char *s, size_t len, rk_error *err)
{
	if (!s)
		return 0;
	return apply_text(ctx, s, len, err);
}

/* Parquet checkpoint files (parts, or sidecars), each row as JSON through
 * DuckDB: the same apply() as the JSON commits then reads it. */
static int replay_parquet(replay *r, rk_duck *duck, char *const *paths, size_t n, rk_error *err)
{
	rk_buf sql = RK_BUF_INIT;
	int rc;

	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (stat(paths[i], &st) < 0) {
			rk_error_set(err, RK_EXIT_RUNTIME, "checkpoint file %s: %s", paths[i], strerror(errno));
			if (errno == ENOENT)
				r->incomplete = true;
			return -1;
		}
	}
	rk_buf_puts(&sql, "SELECT to_json(t)::VARCHAR FROM read_parquet([");
	for (size_t i = 0; i < n; i++) {
		if (i)
			rk_buf_putc(&sql, ',');
		rk_duck_quote(&sql, paths[i]);
	}
	rk_buf_puts(&sql, "], hive_partitioning = false, union_by_name = true) AS t");
	r->source = paths[0];
	rc = rk_duck_each_string(rk_duck_conn(duck), rk_buf_cstr(&sql), RK_EXIT_RUNTIME, paths[0], row_cb, r, err);
	rk_buf_free(&sql);
	return rc;
}

/* ---- choosing the checkpoint and the commits ---- */

/* Reads the checkpoint entries e[0..n) (one checkpoint: a classic file,
 * the parts of a multi-part one, or a v2 file), sidecars included. */
static int read_checkpoint(replay *r, rk_duck *duck, const char *logdir, const log_entry *e, size_t n, rk_error *err)
{
	char **paths = rk_xcalloc(n, sizeof *paths);
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(logdir) + strlen(e[i].name) + 2;

		paths[i] = rk_xmalloc(len);
		snprintf(paths[i], len, "%s/%s", logdir, e[i].name);
	}
	if (e[0].kind == E_V2 && strstr(e[0].name, ".json"))
		rc = replay_json(r, paths[0], err);
	else
		rc = replay_parquet(r, duck, paths, n, err);
	/* "V2 Spec": the add and remove actions may be in sidecar files */
	if (rc == 0 && r->nsidecar)
		rc = replay_parquet(r, duck, r->sidecar, r->nsidecar, err);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	return rc;
}

/* The newest complete checkpoint at or before version among l->e[0..below):
 * *first and *count index its entries in l; false when there is none. */
static bool pick_checkpoint(const listing *l, int64_t version, size_t below, size_t *first, size_t *count)
{
	for (size_t i = below; i-- > 0;) {
		const log_entry *e = &l->e[i];

		if (e->version > version || e->kind == E_COMMIT)
			continue;
		if (e->kind == E_V2 || e->kind == E_CLASSIC) {
			*first = i;
			*count = 1;
			return true;
		}
		/* E_PART: the entries are sorted by (version, kind, parts, part):
		 * e is the last part of its group when complete */
		if (e->part == e->parts && i + 1 >= (size_t)e->parts) {
			size_t start = i + 1 - (size_t)e->parts;
			bool whole = true;

			for (int p = 0; p < e->parts; p++) {
				const log_entry *q = &l->e[start + (size_t)p];

				if (q->kind != E_PART || q->version != e->version || q->parts != e->parts ||
				    q->part != p + 1)
					whole = false;
			}
			if (whole) {
				*first = start;
				*count = (size_t)e->parts;
				return true;
			}
		}
	}
	return false;
}

static const log_entry *find_commit(const listing *l, int64_t v)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->e[i].kind == E_COMMIT && l->e[i].version == v)
			return &l->e[i];
	return NULL;
}

/* Whether the listing has every commit from 0 to version. */
static bool all_commits(const listing *l, int64_t version)
{
	int64_t n = 0;

	/* one commit file per version: as many as versions 0..version */
	for (size_t i = 0; i < l->n; i++)
		n += l->e[i].kind == E_COMMIT && l->e[i].version <= version;
	return n == version + 1;
}

/* Records commit v of the history (its file at path: its modification
 * time, where the commitInfo has none). */
static int history_commit(rk_delta *d, int64_t v, json_t *commit_info, const char *path, rk_error *err)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: %s", path, strerror(errno));
	rk_delta_history_commit(d, v, commit_info, (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000);
	return 0;
}

/* The commit's time for time travel ("In-Commit Timestamps": the
 * commitInfo's inCommitTimestamp when there is one, else the file's
 * modification time), in microseconds. */
static int commit_time(const char *path, rk_usec *out, rk_error *err)
{
	struct stat st;
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	if (stat(path, &st) < 0)
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: %s", path, strerror(errno));
	*out = (rk_usec)st.st_mtim.tv_sec * 1000000 + st.st_mtim.tv_nsec / 1000;
	f = fopen(path, "r");
	if (!f)
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: %s", path, strerror(errno));
	len = getline(&line, &cap, f);
	fclose(f);
	if (len > 0) {
		json_t *j = json_loadb(line, (size_t)len, 0, NULL);
		json_t *ict = json_object_get(json_object_get(j, "commitInfo"), "inCommitTimestamp");

		if (json_is_integer(ict))
			*out = (rk_usec)json_integer_value(ict) * 1000;
		json_decref(j);
	}
	free(line);
	return 0;
}

static int action_cmp(const void *a, const void *b)
{
	const action *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The live files: the last action of each (path, dv id) key is an add. */
static int build_files(rk_delta *d, replay *r, struct rk_delta_zone *zone, rk_error *err)
{
	size_t live = 0;

	if (r->n)
		qsort(r->a, r->n, sizeof *r->a, action_cmp);
	for (size_t i = 0; i < r->n; i++)
		if (r->a[i].add && (i + 1 == r->n || strcmp(r->a[i].key, r->a[i + 1].key) != 0))
			live++;
	d->files = rk_delta_own(d, rk_xcalloc(live ? live : 1, sizeof *d->files));
	d->adds = rk_delta_own(d, rk_xcalloc(live ? live : 1, sizeof *d->adds));
	for (size_t i = 0; i < r->n; i++) {
		json_t *add = r->a[i].add, *dv;
		rk_delta_file *f;
		struct stat st;

		if (!add || (i + 1 < r->n && strcmp(r->a[i].key, r->a[i + 1].key) == 0))
			continue;
		d->adds[d->nfiles] = json_incref(add);
		f = &d->files[d->nfiles++];
		if (rk_delta_file_fill(d, f, r->a[i].key, add, zone, err) < 0)
			return -1;
		f->added_version = r->a[i].version;
		if (stat(f->path, &st) < 0) {
			rk_error_set(err, RK_EXIT_RUNTIME, "data file %s, which the log names, %s", f->path,
			             errno == ENOENT ? "does not exist" : strerror(errno));
			return rk_error_hint(err, "a file removed outside Delta (rm, a bad VACUUM) leaves the table "
			                          "unreadable at this version");
		}
		dv = json_object_get(add, "deletionVector");
		if (json_is_object(dv)) {
			uint64_t *rows;
			size_t n;
			rk_buf id = RK_BUF_INIT;

			if (rk_delta_dv_load(d->root, dv, &rows, &n, err) < 0)
				return rk_error_prefix(err, "%s", f->log_path);
			rk_delta_dv_unique_id(dv, &id);
			f->dv_id = rk_delta_strdup(d, rk_buf_cstr(&id));
			rk_buf_free(&id);
			f->dv_rows = rk_delta_own(d, rows);
			f->dv_count = n;
		}
	}
	return 0;
}

/* ---- open ---- */

static int absolute_root(const char *path, char **out, rk_error *err)
{
	char *real = realpath(path, NULL);

	if (!real) {
		if (errno == ENOENT || errno == ENOTDIR)
			return rk_error_set(err, RK_EXIT_USAGE, "Delta table %s: no such directory", path);
		return rk_error_set(err, RK_EXIT_RUNTIME, "Delta table %s: %s", path, strerror(errno));
	}
	*out = real;
	return 0;
}

/* The version to read: spec's, the newest committed at or before spec's
 * time, or the latest (of a commit, or of a checkpoint whose commits were
 * cleaned up: "Metadata Cleanup").  Returns 0 or -1. */
static int pick_version(const rk_delta *d, const rk_delta_spec *spec, const listing *l, const char *logdir,
                        int64_t *target, rk_error *err)
{
	int64_t latest = -1;
	char when[RK_TIME_STRLEN];

	for (size_t i = 0; i < l->n; i++)
		if (l->e[i].version > latest)
			latest = l->e[i].version;
	if (latest < 0)
		return rk_error_set(err, RK_EXIT_USAGE, "not a Delta table: %s holds no commit (NNNNNNNNNNNNNNNNNNNN.json)",
		                    logdir);
	*target = latest;
	if (spec->version >= 0) {
		if (spec->version > latest)
			return rk_error_set(err, RK_EXIT_USAGE, "Delta table %s has no version %lld (the latest is %lld)",
			                    d->root, (long long)spec->version, (long long)latest);
		*target = spec->version;
		return 0;
	}
	if (!spec->has_time)
		return 0;
	for (int64_t v = latest; v >= 0; v--) {
		const log_entry *e = find_commit(l, v);
		rk_usec t = 0;
		char path[PATH_MAX];

		if (!e)
			break; /* cleaned up: older versions cannot be read anyway */
		snprintf(path, sizeof path, "%s/%s", logdir, e->name);
		if (commit_time(path, &t, err) < 0)
			return -1;
		if (t <= spec->time) {
			*target = v;
			return 0;
		}
	}
	return rk_error_set(err, RK_EXIT_USAGE, "Delta table %s has no version committed at or before %s", d->root,
	                    rk_time_format(spec->time, when));
}

/* Replays the log up to version target into r: the newest checkpoint that
 * reads whole (one whose sidecar is gone is incomplete, and an older one,
 * or the commits from 0, is used), then the commits after it.  Returns 0
 * or -1. */
static int replay_log(rk_delta *d, rk_duck *duck, const listing *l, const char *logdir, int64_t target, replay *r,
                      rk_error *err)
{
	size_t cp_first = 0, cp_count = 0;
	int64_t from = 0;
	bool have_cp;
	int rc;

	r->version = -1;
	have_cp = pick_checkpoint(l, target, l->n, &cp_first, &cp_count);
	/* the history replays every commit when the log still has them all */
	if (have_cp && d->want_history && all_commits(l, target))
		have_cp = false;
	while (have_cp && read_checkpoint(r, duck, logdir, &l->e[cp_first], cp_count, err) < 0) {
		if (!r->incomplete)
			return -1;
		rk_log_warn("Delta table %s: %s; using an older checkpoint", d->root, err->msg);
		rk_error_clear(err);
		replay_free(r);
		memset(r, 0, sizeof *r);
		r->d = d;
		r->version = -1;
		have_cp = pick_checkpoint(l, target, cp_first, &cp_first, &cp_count);
	}
	if (have_cp)
		from = l->e[cp_first].version + 1;
	if (have_cp && d->want_history)
		d->history_base = l->e[cp_first].version;
	for (int64_t v = from; v <= target; v++) {
		const log_entry *e = find_commit(l, v);
		char path[PATH_MAX];

		if (!e) {
			rk_error_set(err, RK_EXIT_RUNTIME, "the log of %s misses version %lld (%020lld.json)%s", d->root,
			             (long long)v, (long long)v, have_cp ? "" : ", and no checkpoint precedes it");
			return rk_error_hint(err, "a log with a gap cannot be replayed: restore the commit file, or read a "
			                          "version after a checkpoint that covers the gap");
		}
		snprintf(path, sizeof path, "%s/%s", logdir, e->name);
		r->version = v;
		rc = replay_json(r, path, err);
		r->source = NULL; /* path is this loop's */
		if (rc < 0)
			return -1;
		if (d->want_history && history_commit(d, v, r->commit_info, path, err) < 0)
			return -1;
		json_decref(r->commit_info);
		r->commit_info = NULL;
	}
	return 0;
}

int rk_delta_open(rk_duck *duck, const rk_delta_spec *spec, const rk_delta_options *opt, rk_delta **out,
                  rk_error *err)
{
	rk_delta *d = rk_xcalloc(1, sizeof *d);
	listing l = { 0 };
	replay r = { 0 };
	struct rk_delta_zone *zone = NULL;
	char *logdir = NULL, *root = NULL;
	int64_t target;
	size_t len;

	*out = NULL;
	r.d = d;
	d->want_history = opt && opt->history;
	d->history_base = -1;
	if (absolute_root(spec->path, &root, err) < 0)
		goto fail;
	d->root = rk_delta_own(d, root);
	len = strlen(d->root) + sizeof "/_delta_log";
	logdir = rk_xmalloc(len);
	snprintf(logdir, len, "%s/_delta_log", d->root);
	if (list_log(logdir, &l, err) < 0 || pick_version(d, spec, &l, logdir, &target, err) < 0)
		goto fail;
	d->version = target;
	if (replay_log(d, duck, &l, logdir, target, &r, err) < 0)
		goto fail;
	if (!r.protocol || !r.metadata) {
		rk_error_set(err, RK_EXIT_USAGE, "Delta table %s at version %lld has no %s action", d->root,
		             (long long)target, r.protocol ? "metaData" : "protocol");
		goto fail;
	}
	if (rk_delta_check_protocol(d, r.protocol, err) < 0 || rk_delta_read_schema(d, r.metadata, err) < 0)
		goto fail_named;
	if (opt && opt->partition_zone && strcmp(opt->partition_zone, "UTC") != 0 &&
	    !(zone = rk_delta_zone_new(duck, opt->partition_zone, err)))
		goto fail;
	d->protocol = json_incref(r.protocol);
	d->metadata = json_incref(r.metadata);
	if (build_files(d, &r, zone, err) < 0)
		goto fail_named;
	if (d->want_history && rk_delta_history_build(d, r.a, r.n, zone, err) < 0)
		goto fail_named;
	rk_delta_zone_free(zone);
	replay_free(&r);
	listing_free(&l);
	free(logdir);
	*out = d;
	return 0;
fail_named:
	rk_error_prefix(err, "Delta table %s", d->root);
fail:
	rk_delta_zone_free(zone);
	replay_free(&r);
	listing_free(&l);
	free(logdir);
	rk_delta_free(d);
	return -1;
}

void rk_delta_free(rk_delta *d)
{
	if (!d)
		return;
	json_decref(d->schema);
	free(d->commits);
	json_decref(d->protocol);
	json_decref(d->metadata);
	for (size_t i = 0; d->adds && i < d->nfiles; i++)
		json_decref(d->adds[i]);
	for (size_t i = 0; i < d->nowned; i++)
		free(d->owned[i]);
	free(d->owned);
	free(d);
}

int64_t rk_delta_version(const rk_delta *d)
{
	return d->version;
}

size_t rk_delta_ncolumns(const rk_delta *d)
{
	return d->ncols;
}

const rk_delta_column *rk_delta_column_at(const rk_delta *d, size_t i)
{
	return i < d->ncols ? &d->cols[i] : NULL;
}

int rk_delta_column_index(const rk_delta *d, const char *name)
{
	for (size_t i = 0; i < d->ncols; i++)
		if (strcmp(d->cols[i].name, name) == 0)
			return (int)i;
	return -1;
}

size_t rk_delta_nfiles(const rk_delta *d)
{
	return d->nfiles;
}

const rk_delta_file *rk_delta_file_at(const rk_delta *d, size_t i)
{
	return i < d->nfiles ? &d->files[i] : NULL;
}

const char *rk_delta_column_mapping(const rk_delta *d)
{
	return d->mapping;
}
