/*
 * delta_history.c - a Delta table's history, read with its snapshot when
 * rk_delta_options.history asks: each commit's provenance ("Commit
 * Provenance Information": commitInfo's operation and time) and each data
 * file's life, from the add action that put it in the table to the action
 * that took it out (see delta.h).  What rows of a time range a commit wrote
 * or removed is then a question of the lives' statistics, which the caller
 * asks (io/deltareader.c).
 */
#include "io/delta_impl.h"

#include <string.h>

int64_t rk_delta_commit_ms(json_t *commit_info, int64_t file_ms, bool *of_file)
{
	json_t *ict = json_object_get(commit_info, "inCommitTimestamp");
	json_t *ts = json_object_get(commit_info, "timestamp");

	*of_file = false;
	/* "In-Commit Timestamps": the commit's own time when it has one */
	if (json_is_integer(ict))
		return json_integer_value(ict);
	if (json_is_integer(ts))
		return json_integer_value(ts);
	*of_file = true;
	return file_ms;
}

void rk_delta_history_commit(rk_delta *d, int64_t version, json_t *commit_info, int64_t file_ms)
{
	rk_delta_commit *c;
	const char *op = json_string_value(json_object_get(commit_info, "operation"));

	if (d->ncommits == d->capcommits) {
		d->capcommits = d->capcommits ? d->capcommits * 2 : 16;
		if (d->commits)
			d->commits = rk_xrealloc(d->commits, d->capcommits * sizeof *d->commits);
		else
			d->commits = rk_xmalloc(d->capcommits * sizeof *d->commits);
	}
	c = &d->commits[d->ncommits++];
	memset(c, 0, sizeof *c);
	c->version = version;
	c->operation = rk_delta_strdup(d, op ? op : "");
	c->time_ms = rk_delta_commit_ms(commit_info, file_ms, &c->time_of_file);
}

/* The commit of version v, or NULL (a checkpoint's action). */
static rk_delta_commit *commit_of(rk_delta *d, int64_t v)
{
	if (!d->ncommits || v < d->commits[0].version || v > d->commits[d->ncommits - 1].version)
		return NULL;
	return &d->commits[v - d->commits[0].version];
}

static bool same_key(const rk_delta_action *a, const rk_delta_action *b)
{
	return strcmp(a->key, b->key) == 0;
}

int rk_delta_history_build(rk_delta *d, const rk_delta_action *a, size_t n, struct rk_delta_zone *zone,
                           rk_error *err)
{
	size_t adds = 0;

	for (size_t i = 0; i < n; i++)
		adds += a[i].add != NULL;
	d->lives = rk_delta_own(d, rk_xcalloc(adds ? adds : 1, sizeof *d->lives));
	/* the actions come by (key, seq): one key's in the order of the log */
	for (size_t i = 0; i < n; i++) {
		rk_delta_commit *c = commit_of(d, a[i].version);
		bool open = i > 0 && same_key(&a[i - 1], &a[i]) && d->nlives &&
		            d->lives[d->nlives - 1].removed < 0 && a[i - 1].add;
		rk_delta_life *l;

		if (c && a[i].add)
			c->files_added++;
		else if (c)
			c->files_removed++;
		/* a remove, or another add of the same key, ends its life */
		if (open)
			d->lives[d->nlives - 1].removed = a[i].version;
		if (!a[i].add)
			continue;
		l = &d->lives[d->nlives++];
		if (rk_delta_file_fill(d, &l->file, a[i].key, a[i].add, zone, err) < 0)
			return -1;
		l->file.added_version = a[i].version;
		l->added = a[i].version;
		l->removed = -1;
		if (c && c->rows_added >= 0)
			c->rows_added = l->file.num_records >= 0 ? c->rows_added + l->file.num_records : -1;
	}
	return 0;
}

size_t rk_delta_ncommits(const rk_delta *d)
{
	return d->ncommits;
}

const rk_delta_commit *rk_delta_commit_at(const rk_delta *d, size_t i)
{
	return i < d->ncommits ? &d->commits[i] : NULL;
}

size_t rk_delta_nlives(const rk_delta *d)
{
	return d->nlives;
}

const rk_delta_life *rk_delta_life_at(const rk_delta *d, size_t i)
{
	return i < d->nlives ? &d->lives[i] : NULL;
}

int64_t rk_delta_history_base(const rk_delta *d)
{
	return d->history_base;
}
