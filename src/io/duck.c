/*
 * duck.c - DuckDB opened the one way reckon uses it (see duck.h).
 */
#include "io/duck.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rk_duck {
	duckdb_database db;
	duckdb_connection con;
};

/* Settings given at open, before any SQL can run.  The names are DuckDB's
 * configuration options (SELECT * FROM duckdb_settings()). */
static const char *const settings[][2] = {
	{ "autoinstall_known_extensions", "false" },
	{ "autoload_known_extensions", "false" },
	{ "allow_community_extensions", "false" },
	{ "allow_unsigned_extensions", "false" },
};

int rk_duck_open(rk_duck **out, int threads, rk_error *err)
{
	duckdb_config config = NULL;
	char *open_err = NULL;
	char nthreads[16];
	rk_duck *d;

	*out = NULL;
	if (rk_duckapi_load(err) < 0)
		return -1;
	if (duckdb_create_config(&config) != DuckDBSuccess)
		return rk_error_set(err, RK_EXIT_RUNTIME, "duckdb: cannot create a configuration");
	for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
		if (duckdb_set_config(config, settings[i][0], settings[i][1]) != DuckDBSuccess) {
			duckdb_destroy_config(&config);
			return rk_error_set(err, RK_EXIT_RUNTIME, "duckdb: cannot set %s=%s", settings[i][0],
			                    settings[i][1]);
		}
	}
	/* An in-memory database spills to ".tmp" in the working directory by
	 * default: a cron job's cwd would get one.  Its own directory under
	 * TMPDIR instead, one per database (DuckDB creates it only to spill,
	 * and removes it at close). */
	{
		static atomic_uint seq;
		const char *base = getenv("TMPDIR");
		char tmp[PATH_MAX];

		snprintf(tmp, sizeof tmp, "%s/reckon-duckdb.%ld.%u", base && *base ? base : "/tmp", (long)getpid(),
		         atomic_fetch_add(&seq, 1));
		if (duckdb_set_config(config, "temp_directory", tmp) != DuckDBSuccess) {
			duckdb_destroy_config(&config);
			return rk_error_set(err, RK_EXIT_RUNTIME, "duckdb: cannot set temp_directory=%s", tmp);
		}
	}
	if (threads > 0) {
		snprintf(nthreads, sizeof nthreads, "%d", threads);
		if (duckdb_set_config(config, "threads", nthreads) != DuckDBSuccess) {
			duckdb_destroy_config(&config);
			return rk_error_set(err, RK_EXIT_RUNTIME, "duckdb: cannot set threads=%s", nthreads);
		}
	}
	d = rk_xcalloc(1, sizeof *d);
	if (duckdb_open_ext(NULL, &d->db, config, &open_err) != DuckDBSuccess) {
		rk_error_set(err, RK_EXIT_RUNTIME, "duckdb: cannot open an in-memory database: %s",
		             open_err ? open_err : "unknown error");
		duckdb_free(open_err);
		duckdb_destroy_config(&config);
		free(d);
		return -1;
	}
	duckdb_destroy_config(&config);
	if (duckdb_connect(d->db, &d->con) != DuckDBSuccess) {
		rk_duck_free(d);
		return rk_error_set(err, RK_EXIT_RUNTIME, "duckdb: cannot connect to the in-memory database");
	}
	/* TimeZone belongs to the icu extension, not known to the configuration
	 * at open; GLOBAL, so every connection has it.  Locked last: from here
	 * on no statement can change a setting. */
	if (rk_duck_query(d->con, "SET GLOBAL TimeZone = 'UTC'", NULL, RK_EXIT_RUNTIME, "duckdb", err) < 0 ||
	    rk_duck_query(d->con, "SET lock_configuration = true", NULL, RK_EXIT_RUNTIME, "duckdb", err) < 0) {
		rk_duck_free(d);
		return -1;
	}
	*out = d;
	return 0;
}

void rk_duck_free(rk_duck *d)
{
	if (!d)
		return;
	if (d->con)
		duckdb_disconnect(&d->con);
	if (d->db)
		duckdb_close(&d->db);
	free(d);
}

duckdb_connection rk_duck_conn(rk_duck *d)
{
	return d->con;
}

int rk_duck_query(duckdb_connection con, const char *sql, duckdb_result *res, int code,
                  const char *what, rk_error *err)
{
	duckdb_result local = { 0 };
	duckdb_result *r = res ? res : &local;

	if (duckdb_query(con, sql, r) != DuckDBSuccess) {
		const char *msg = duckdb_result_error(r);

		rk_error_set(err, code, "%s: %s", what, msg ? msg : "duckdb query failed");
		duckdb_destroy_result(r);
		memset(r, 0, sizeof *r);
		return -1;
	}
	if (!res)
		duckdb_destroy_result(r);
	return 0;
}

int rk_duck_each_string(duckdb_connection con, const char *sql, int code, const char *what,
                        int (*row)(void *ctx, const char *s, size_t len, rk_error *err), void *ctx, rk_error *err)
{
	duckdb_result res;
	duckdb_data_chunk chunk;
	int rc = 0;

	if (rk_duck_query(con, sql, &res, code, what, err) < 0)
		return -1;
	if (duckdb_column_count(&res) != 1 || duckdb_column_type(&res, 0) != DUCKDB_TYPE_VARCHAR) {
		duckdb_destroy_result(&res);
		return rk_error_set(err, RK_EXIT_RUNTIME, "%s: expected one text column", what);
	}
	while (rc == 0 && (chunk = duckdb_fetch_chunk(res)) != NULL) {
		idx_t n = duckdb_data_chunk_get_size(chunk);
		duckdb_vector vec = duckdb_data_chunk_get_vector(chunk, 0);
		duckdb_string_t *data = duckdb_vector_get_data(vec);
		uint64_t *valid = duckdb_vector_get_validity(vec);

		for (idx_t i = 0; rc == 0 && i < n; i++) {
			if (valid && !duckdb_validity_row_is_valid(valid, i))
				rc = row(ctx, NULL, 0, err);
			else
				rc = row(ctx, duckdb_string_t_data(&data[i]), duckdb_string_t_length(data[i]), err);
		}
		duckdb_destroy_data_chunk(&chunk);
	}
	duckdb_destroy_result(&res);
	return rc;
}

void rk_duck_quote(rk_buf *out, const char *s)
{
	rk_buf_putc(out, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			rk_buf_putc(out, '\'');
		rk_buf_putc(out, *s);
	}
	rk_buf_putc(out, '\'');
}

void rk_duck_quote_ident(rk_buf *out, const char *s)
{
	rk_buf_putc(out, '"');
	for (; *s; s++) {
		if (*s == '"')
			rk_buf_putc(out, '"');
		rk_buf_putc(out, *s);
	}
	rk_buf_putc(out, '"');
}
