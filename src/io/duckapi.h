/*
 * duckapi.h - DuckDB's C API, loaded when first needed.
 *
 * reckon is not linked with libduckdb: a check of two PostgreSQL tables
 * would otherwise pay for it at every start (the dynamic loader resolving
 * some 32,000 relocations, 13 MB more resident; docs/performance.md).
 * rk_duckapi_load() dlopen()s it the first time a Delta side needs it (from
 * rk_duck_open, the only way reckon opens a database) and resolves the
 * functions of RK_DUCKAPI_FUNCS into a table; the names below make
 * duckdb_query(...) and the rest call through that table, so code reads as
 * if linked directly.  Each pointer has the type of duckdb.h's own
 * declaration (__typeof__), so the compiler checks every call against it.
 *
 * Where it looks: $RECKON_DUCKDB_LIB when set (a path to the library, for
 * packagers and tests), else "libduckdb.so" through the binary's rpath
 * (the fetched copy in .cache/ for a build tree, $(LIBDIR) once installed)
 * and the loader's usual places.
 *
 * A function used anywhere in src/ must be listed here: one missing from
 * the list is an undefined symbol at link time, one listed but missing from
 * the library is an error at load.
 */
#ifndef RK_IO_DUCKAPI_H
#define RK_IO_DUCKAPI_H

#include <duckdb.h>

#include "core/error.h"

#define RK_DUCKAPI_FUNCS(X)                  \
	X(duckdb_append_int64)               \
	X(duckdb_append_null)                \
	X(duckdb_append_uint64)              \
	X(duckdb_append_varchar)             \
	X(duckdb_append_varchar_length)      \
	X(duckdb_appender_close)             \
	X(duckdb_appender_create)            \
	X(duckdb_appender_create_ext)        \
	X(duckdb_appender_destroy)           \
	X(duckdb_appender_end_row)           \
	X(duckdb_appender_error)             \
	X(duckdb_appender_flush)             \
	X(duckdb_bind_varchar)               \
	X(duckdb_close)                      \
	X(duckdb_column_count)               \
	X(duckdb_column_logical_type)        \
	X(duckdb_column_type)                \
	X(duckdb_connect)                    \
	X(duckdb_create_config)              \
	X(duckdb_data_chunk_get_size)        \
	X(duckdb_data_chunk_get_vector)      \
	X(duckdb_decimal_internal_type)      \
	X(duckdb_decimal_scale)              \
	X(duckdb_destroy_config)             \
	X(duckdb_destroy_data_chunk)         \
	X(duckdb_destroy_logical_type)       \
	X(duckdb_destroy_prepare)            \
	X(duckdb_destroy_result)             \
	X(duckdb_disconnect)                 \
	X(duckdb_execute_prepared)           \
	X(duckdb_execute_prepared_streaming) \
	X(duckdb_fetch_chunk)                \
	X(duckdb_free)                       \
	X(duckdb_get_type_id)                \
	X(duckdb_list_vector_get_child)      \
	X(duckdb_open_ext)                   \
	X(duckdb_prepare)                    \
	X(duckdb_prepare_error)              \
	X(duckdb_query)                      \
	X(duckdb_result_error)               \
	X(duckdb_row_count)                  \
	X(duckdb_set_config)                 \
	X(duckdb_string_t_data)              \
	X(duckdb_string_t_length)            \
	X(duckdb_struct_vector_get_child)    \
	X(duckdb_validity_row_is_valid)      \
	X(duckdb_value_int64)                \
	X(duckdb_value_is_null)              \
	X(duckdb_value_varchar)              \
	X(duckdb_vector_get_data)            \
	X(duckdb_vector_get_validity)

/* The table: one pointer per function, typed as duckdb.h declares it. */
#define RK_DUCKAPI_PTR(f) __typeof__(f) *p_##f;
struct rk_duckapi {
	RK_DUCKAPI_FUNCS(RK_DUCKAPI_PTR)
};
#undef RK_DUCKAPI_PTR

/* Filled by rk_duckapi_load; all NULL before. */
extern struct rk_duckapi rk_duckapi;

/*
 * Loads libduckdb and fills rk_duckapi, once per process (thread-safe; a
 * later call returns the first one's outcome).  Failure is RK_EXIT_RUNTIME:
 * what could not be loaded, where the loader looked, and the hint.
 * Returns 0 or -1.
 */
int rk_duckapi_load(rk_error *err);

/* The calls, through the table (keep in step with RK_DUCKAPI_FUNCS). */
#ifndef RK_DUCKAPI_NO_NAMES
#define duckdb_append_int64 (*rk_duckapi.p_duckdb_append_int64)
#define duckdb_append_null (*rk_duckapi.p_duckdb_append_null)
#define duckdb_append_uint64 (*rk_duckapi.p_duckdb_append_uint64)
#define duckdb_append_varchar (*rk_duckapi.p_duckdb_append_varchar)
#define duckdb_append_varchar_length (*rk_duckapi.p_duckdb_append_varchar_length)
#define duckdb_appender_close (*rk_duckapi.p_duckdb_appender_close)
#define duckdb_appender_create (*rk_duckapi.p_duckdb_appender_create)
#define duckdb_appender_create_ext (*rk_duckapi.p_duckdb_appender_create_ext)
#define duckdb_appender_destroy (*rk_duckapi.p_duckdb_appender_destroy)
#define duckdb_appender_end_row (*rk_duckapi.p_duckdb_appender_end_row)
#define duckdb_appender_error (*rk_duckapi.p_duckdb_appender_error)
#define duckdb_appender_flush (*rk_duckapi.p_duckdb_appender_flush)
#define duckdb_bind_varchar (*rk_duckapi.p_duckdb_bind_varchar)
#define duckdb_close (*rk_duckapi.p_duckdb_close)
#define duckdb_column_count (*rk_duckapi.p_duckdb_column_count)
#define duckdb_column_logical_type (*rk_duckapi.p_duckdb_column_logical_type)
#define duckdb_column_type (*rk_duckapi.p_duckdb_column_type)
#define duckdb_connect (*rk_duckapi.p_duckdb_connect)
#define duckdb_create_config (*rk_duckapi.p_duckdb_create_config)
#define duckdb_data_chunk_get_size (*rk_duckapi.p_duckdb_data_chunk_get_size)
#define duckdb_data_chunk_get_vector (*rk_duckapi.p_duckdb_data_chunk_get_vector)
#define duckdb_decimal_internal_type (*rk_duckapi.p_duckdb_decimal_internal_type)
#define duckdb_decimal_scale (*rk_duckapi.p_duckdb_decimal_scale)
#define duckdb_destroy_config (*rk_duckapi.p_duckdb_destroy_config)
#define duckdb_destroy_data_chunk (*rk_duckapi.p_duckdb_destroy_data_chunk)
#define duckdb_destroy_logical_type (*rk_duckapi.p_duckdb_destroy_logical_type)
#define duckdb_destroy_prepare (*rk_duckapi.p_duckdb_destroy_prepare)
#define duckdb_destroy_result (*rk_duckapi.p_duckdb_destroy_result)
#define duckdb_disconnect (*rk_duckapi.p_duckdb_disconnect)
#define duckdb_execute_prepared (*rk_duckapi.p_duckdb_execute_prepared)
#define duckdb_execute_prepared_streaming (*rk_duckapi.p_duckdb_execute_prepared_streaming)
#define duckdb_fetch_chunk (*rk_duckapi.p_duckdb_fetch_chunk)
#define duckdb_free (*rk_duckapi.p_duckdb_free)
#define duckdb_get_type_id (*rk_duckapi.p_duckdb_get_type_id)
#define duckdb_list_vector_get_child (*rk_duckapi.p_duckdb_list_vector_get_child)
#define duckdb_open_ext (*rk_duckapi.p_duckdb_open_ext)
#define duckdb_prepare (*rk_duckapi.p_duckdb_prepare)
#define duckdb_prepare_error (*rk_duckapi.p_duckdb_prepare_error)
#define duckdb_query (*rk_duckapi.p_duckdb_query)
#define duckdb_result_error (*rk_duckapi.p_duckdb_result_error)
#define duckdb_row_count (*rk_duckapi.p_duckdb_row_count)
#define duckdb_set_config (*rk_duckapi.p_duckdb_set_config)
#define duckdb_string_t_data (*rk_duckapi.p_duckdb_string_t_data)
#define duckdb_string_t_length (*rk_duckapi.p_duckdb_string_t_length)
#define duckdb_struct_vector_get_child (*rk_duckapi.p_duckdb_struct_vector_get_child)
#define duckdb_validity_row_is_valid (*rk_duckapi.p_duckdb_validity_row_is_valid)
#define duckdb_value_int64 (*rk_duckapi.p_duckdb_value_int64)
#define duckdb_value_is_null (*rk_duckapi.p_duckdb_value_is_null)
#define duckdb_value_varchar (*rk_duckapi.p_duckdb_value_varchar)
#define duckdb_vector_get_data (*rk_duckapi.p_duckdb_vector_get_data)
#define duckdb_vector_get_validity (*rk_duckapi.p_duckdb_vector_get_validity)
#endif

#endif
