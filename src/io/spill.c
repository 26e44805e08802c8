/*
 * spill.c - an external sort of byte records (spill.h).  Memory holds the
 * records in one arena with an index of (offset, length); past the bound the
 * index is sorted (a stable merge sort) and the records written in that
 * order as a run: each record a 4-byte length and its bytes.  The reading
 * merges the runs and the memory with a binary heap, the run added first
 * winning a tie, which keeps the sort stable.
 */
#include "io/spill.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/env.h"

typedef struct rk_spill_ent {
	size_t off;
	uint32_t len;
} rk_spill_ent;

/* One source of the merge: a run's file, or (index nruns) the memory. */
typedef struct rk_spill_src {
	rk_buf rec;    /* a run's current record */
	const char *p; /* the current record */
	size_t n;
} rk_spill_src;

struct rk_spill {
	char *dir;
	size_t bound;
	rk_spill_cmp cmp;
	void *ctx;
	rk_buf arena;
	rk_spill_ent *ents;
	size_t nents, cap;
	FILE *runs[RK_SPILL_FANIN];
	/* each run's level: 0 as written from memory, one more than the
	 * highest of the runs a merge made it of (rk_spill_compact) */
	unsigned char level[RK_SPILL_FANIN];
	size_t nruns;
	uint64_t count, written;
	uint64_t merged; /* records written again by merges of runs */
	bool finished;
	/* the merge */
	rk_spill_src src[RK_SPILL_FANIN + 1];
	size_t heap[RK_SPILL_FANIN + 1];
	size_t nheap;
	size_t mem_pos; /* the memory's next record */
	bool with_mem;  /* the memory is one of the sources */
	long last;      /* the source of the record last returned, or -1 */
};

/* Bytes of memory one record costs beyond its own. */
#define RK_SPILL_ENT_COST (sizeof(rk_spill_ent) * 2)

size_t rk_spill_bound_env(void)
{
	return rk_env_bytes("RK_SPILL_BYTES", RK_SPILL_DEFAULT_BYTES, 1, SIZE_MAX);
}

size_t rk_spill_share_bound(void)
{
	return rk_spill_bound_env() / RK_SPILL_SHARE + 1;
}

rk_spill *rk_spill_new(const char *dir, size_t bound, rk_spill_cmp cmp, void *ctx)
{
	rk_spill *s = rk_xcalloc(1, sizeof *s);
	const char *tmp = getenv("TMPDIR");

	if (!dir || !*dir)
		dir = tmp && *tmp ? tmp : "/tmp";
	s->dir = rk_xstrdup(dir);
	s->bound = bound ? bound : 1;
	s->cmp = cmp;
	s->ctx = ctx;
	s->last = -1;
	return s;
}

static int rk_spill_ent_cmp(const rk_spill *s, const rk_spill_ent *a, const rk_spill_ent *b)
{
	return s->cmp(s->arena.data + a->off, a->len, s->arena.data + b->off, b->len, s->ctx);
}

/* Sorts the memory's index, stably (bottom-up merge sort). */
static void rk_spill_sort(rk_spill *s)
{
	size_t n = s->nents;
	rk_spill_ent *a = s->ents, *t;
	rk_spill_ent *b;

	if (n < 2)
		return;
	b = rk_xmalloc(n * sizeof *b);
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				b[k++] = rk_spill_ent_cmp(s, &a[j], &a[i]) < 0 ? a[j++] : a[i++];
			while (i < mid)
				b[k++] = a[i++];
			while (j < hi)
				b[k++] = a[j++];
		}
		t = a;
		a = b;
		b = t;
	}
	if (a != s->ents) {
		memcpy(s->ents, a, n * sizeof *a);
		b = a;
	}
	free(b);
}

/* A new run file in the directory, unlinked at once. */
static FILE *rk_spill_file(rk_spill *s, rk_error *err)
{
	rk_buf path = RK_BUF_INIT;
	FILE *f = NULL;
	int fd;

	rk_buf_printf(&path, "%s/.reckon-spill-%ld-XXXXXX", s->dir, (long)getpid());
	rk_buf_cstr(&path);
	fd = mkstemp(path.data);
	if (fd < 0) {
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot create a temporary file in %s: %s", s->dir, strerror(errno));
		rk_buf_free(&path);
		return NULL;
	}
	(void)unlink(path.data);
	f = fdopen(fd, "w+b");
	if (!f) {
		rk_error_set(err, RK_EXIT_RUNTIME, "cannot open a temporary file in %s: %s", s->dir, strerror(errno));
		close(fd);
	} else {
		(void)setvbuf(f, NULL, _IOFBF, (size_t)1 << 16);
	}
	rk_buf_free(&path);
	return f;
}

static int rk_spill_put(rk_spill *s, FILE *f, const void *p, size_t n, rk_error *err)
{
	uint32_t len = (uint32_t)n;

	if (fwrite(&len, sizeof len, 1, f) != 1 || (n && fwrite(p, 1, n, f) != n))
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot write a temporary file in %s: %s", s->dir,
		                    strerror(errno ? errno : EIO));
	return 0;
}

/* Ends a written run: flushed, and its reading placed at its start. */
static int rk_spill_seal(rk_spill *s, FILE *f, rk_error *err)
{
	if (fflush(f) != 0 || fseek(f, 0, SEEK_SET) != 0)
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot write a temporary file in %s: %s", s->dir,
		                    strerror(errno ? errno : EIO));
	return 0;
}

/* Loads source i's next record: 1, 0 at its end, -1 on an error. */
static int rk_spill_load(rk_spill *s, size_t i, rk_error *err)
{
	rk_spill_src *src = &s->src[i];
	uint32_t len;
	FILE *f;

	if (i == s->nruns) {
		if (s->mem_pos >= s->nents)
			return 0;
		src->p = s->arena.data + s->ents[s->mem_pos].off;
		src->n = s->ents[s->mem_pos++].len;
		return 1;
	}
	f = s->runs[i];
	if (fread(&len, sizeof len, 1, f) != 1) {
		if (ferror(f))
			return rk_error_set(err, RK_EXIT_RUNTIME, "cannot read a temporary file in %s", s->dir);
		return 0;
	}
	rk_buf_reset(&src->rec);
	rk_buf_grow(&src->rec, (size_t)len + 1);
	if (len && fread(src->rec.data, 1, len, f) != len)
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot read a temporary file in %s: it is cut short",
		                    s->dir);
	src->rec.len = len;
	src->p = src->rec.data;
	src->n = len;
	return 1;
}

/* Heap order: the smaller record, on a tie the earlier source. */
static bool rk_spill_before(const rk_spill *s, size_t a, size_t b)
{
	int c = s->cmp(s->src[a].p, s->src[a].n, s->src[b].p, s->src[b].n, s->ctx);

	return c < 0 || (c == 0 && a < b);
}

static void rk_spill_sift(rk_spill *s, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i, t;
		if (l < s->nheap && rk_spill_before(s, s->heap[l], s->heap[m]))
			m = l;
		if (l + 1 < s->nheap && rk_spill_before(s, s->heap[l + 1], s->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = t;
		i = m;
	}
}

/* Starts a merge at the first record of each run from run `from` on (and
 * of the memory). */
static int rk_spill_start(rk_spill *s, size_t from, bool with_mem, rk_error *err)
{
	size_t n = s->nruns + (with_mem ? 1 : 0);

	s->with_mem = with_mem;
	s->mem_pos = 0;
	s->nheap = 0;
	s->last = -1;
	for (size_t i = from; i < s->nruns; i++)
		if (fseek(s->runs[i], 0, SEEK_SET) != 0)
			return rk_error_set(err, RK_EXIT_RUNTIME, "cannot read a temporary file in %s", s->dir);
	for (size_t i = from; i < n; i++) {
		int rc = rk_spill_load(s, i, err);
		if (rc < 0)
			return -1;
		if (rc)
			s->heap[s->nheap++] = i;
	}
	for (size_t i = s->nheap / 2; i-- > 0;)
		rk_spill_sift(s, i);
	return 0;
}

/* The merge's next record (see rk_spill_next). */
static int rk_spill_pop(rk_spill *s, const void **rec, size_t *len, rk_error *err)
{
	if (s->last >= 0) {
		int rc = rk_spill_load(s, (size_t)s->last, err);
		if (rc < 0)
			return -1;
		if (rc == 0)
			s->heap[0] = s->heap[--s->nheap];
		if (s->nheap)
			rk_spill_sift(s, 0);
		s->last = -1;
	}
	if (s->nheap == 0)
		return 0;
	s->last = (long)s->heap[0];
	*rec = s->src[s->heap[0]].p;
	*len = s->src[s->heap[0]].n;
	return 1;
}

/* Merges the runs from run `from` on (the newest ones) into one, in their
 * place: a contiguous suffix, so that a tie still goes to the record added
 * first. */
static int rk_spill_merge_runs(rk_spill *s, size_t from, rk_error *err)
{
	FILE *f = rk_spill_file(s, err);
	const void *rec;
	size_t len;
	unsigned char top = 0; /* the highest level merged */
	int rc;

	if (!f)
		return -1;
	if (rk_spill_start(s, from, false, err) < 0)
		goto fail;
	while ((rc = rk_spill_pop(s, &rec, &len, err)) > 0) {
		if (rk_spill_put(s, f, rec, len, err) < 0)
			goto fail;
		s->merged++;
	}
	if (rc < 0 || rk_spill_seal(s, f, err) < 0)
		goto fail;
	for (size_t i = from; i < s->nruns; i++) {
		fclose(s->runs[i]);
		if (s->level[i] > top)
			top = s->level[i];
	}
	s->runs[from] = f;
	/* (255 levels are 8^255 runs: the byte does not wrap) */
	s->level[from] = (unsigned char)(top + 1);
	s->nruns = from + 1;
	s->written++;
	return 0;
fail:
	fclose(f);
	return -1;
}

/*
 * After a run is written: RK_SPILL_GROUP runs of one level (the newest
 * ones) become one run of the next level, as often as that holds, and the
 * open runs stay fewer than RK_SPILL_FANIN, so that the next one has room
 * (the newest group merged, with the group before it when it is one run).
 * A record is so written again once a level, log base RK_SPILL_GROUP of the
 * runs: merging every open run into one whenever they were RK_SPILL_FANIN
 * wrote the first runs' records again at every merge, which grew as the
 * square of the runs (issue 25).
 */
static int rk_spill_compact(rk_spill *s, rk_error *err)
{
	while (s->nruns > 1) {
		size_t from = s->nruns - 1;

		while (from > 0 && s->level[from - 1] == s->level[s->nruns - 1])
			from--;
		if (s->nruns - from < RK_SPILL_GROUP) {
			if (s->nruns < RK_SPILL_FANIN)
				return 0;
			if (s->nruns - from < 2) {
				unsigned char below = s->level[from - 1];

				while (from > 0 && s->level[from - 1] == below)
					from--;
			}
		}
		if (rk_spill_merge_runs(s, from, err) < 0)
			return -1;
	}
	return 0;
}

/* Writes the memory as a sorted run and empties it. */
static int rk_spill_write_run(rk_spill *s, rk_error *err)
{
	FILE *f;

	f = rk_spill_file(s, err);
	if (!f)
		return -1;
	rk_spill_sort(s);
	for (size_t i = 0; i < s->nents; i++)
		if (rk_spill_put(s, f, s->arena.data + s->ents[i].off, s->ents[i].len, err) < 0) {
			fclose(f);
			return -1;
		}
	if (rk_spill_seal(s, f, err) < 0) {
		fclose(f);
		return -1;
	}
	s->level[s->nruns] = 0;
	s->runs[s->nruns++] = f;
	s->written++;
	s->nents = 0;
	rk_buf_reset(&s->arena);
	return rk_spill_compact(s, err);
}

int rk_spill_add(rk_spill *s, const void *rec, size_t len, rk_error *err)
{
	if (s->finished)
		return rk_error_set(err, RK_EXIT_RUNTIME, "internal: a record added to a finished sort");
	if (len > UINT32_MAX)
		return rk_error_set(err, RK_EXIT_RUNTIME, "internal: a record of %zu bytes is too long to sort", len);
	if (s->nents && s->arena.len + (s->nents + 1) * RK_SPILL_ENT_COST + len > s->bound &&
	    rk_spill_write_run(s, err) < 0)
		return -1;
	if (s->nents == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->ents = rk_xrealloc(s->ents, s->cap * sizeof *s->ents);
	}
	s->ents[s->nents].off = s->arena.len;
	s->ents[s->nents++].len = (uint32_t)len;
	rk_buf_append(&s->arena, rec, len);
	s->count++;
	return 0;
}

int rk_spill_finish(rk_spill *s, rk_error *err)
{
	if (!s->finished) {
		s->finished = true;
		rk_spill_sort(s);
	}
	return rk_spill_rewind(s, err);
}

int rk_spill_next(rk_spill *s, const void **rec, size_t *len, rk_error *err)
{
	if (!s->finished)
		return rk_error_set(err, RK_EXIT_RUNTIME, "internal: a sort read before it was finished");
	/* everything in memory: read the sorted index, no heap */
	if (s->nruns == 0) {
		if (s->mem_pos >= s->nents)
			return 0;
		*rec = s->arena.data + s->ents[s->mem_pos].off;
		*len = s->ents[s->mem_pos++].len;
		return 1;
	}
	return rk_spill_pop(s, rec, len, err);
}

int rk_spill_rewind(rk_spill *s, rk_error *err)
{
	if (!s->finished)
		return rk_error_set(err, RK_EXIT_RUNTIME, "internal: a sort read before it was finished");
	if (s->nruns == 0) {
		s->mem_pos = 0;
		return 0;
	}
	return rk_spill_start(s, 0, true, err);
}

uint64_t rk_spill_count(const rk_spill *s)
{
	return s->count;
}

uint64_t rk_spill_runs_written(const rk_spill *s)
{
	return s->written;
}

uint64_t rk_spill_records_merged(const rk_spill *s)
{
	return s->merged;
}

void rk_spill_free(rk_spill *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nruns; i++)
		fclose(s->runs[i]);
	for (size_t i = 0; i <= RK_SPILL_FANIN; i++)
		rk_buf_free(&s->src[i].rec);
	rk_buf_free(&s->arena);
	free(s->ents);
	free(s->dir);
	free(s);
}
