/*
 * options_impl.h - the option table's row and the parser's state, shared by
 * the files of the options module and by no one else (options.h is the
 * interface):
 *   options.c         the table (rk_optdefs) and its look-ups
 *   options_parse.c   the command line, the INI layers (--config), defaults
 *                     and requirements: one rk_opts from its layers
 *   options_job.c     job files (--job): their sections, one table's options
 *   options_record.c  what a run records of its options: the audit record,
 *                     the repair command a check prints
 *   options_usage.c   --help, and the walk docgen writes the manual pages and
 *                     the completion from (rk_opts_each)
 */
#ifndef RK_OPTIONS_IMPL_H
#define RK_OPTIONS_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/options.h"
#include "core/error.h"
#include "core/ini.h"

typedef enum rk_optkind {
	RK_OPT_STR,  /* text */
	RK_OPT_LIST, /* comma-separated list */
	RK_OPT_FLAG, /* no value on the command line; true/false in a file */
	RK_OPT_UINT, /* an integer in [lo, hi] */
	RK_OPT_DUR,  /* a duration greater than zero */
	RK_OPT_DUR0, /* a duration, zero allowed */
	RK_OPT_CAL,  /* a duration, or N calendar months ("1mo", stored as -N) */
	RK_OPT_TIME, /* an instant, ISO-8601 with a zone */
	RK_OPT_ENUM, /* one of choices, stored as its index */
	RK_OPT_MAP   /* NAME=SQL, repeatable; in a file one key per NAME: option.NAME */
} rk_optkind;

/* Option flags. */
enum {
	RK_OPTF_TABLE = 1 << 0,  /* a job's [defaults] and [table LABEL] may set it */
	RK_OPTF_NOFILE = 1 << 1, /* the command line only (--config, --job) */
	RK_OPTF_CONN = 1 << 2,   /* a connection string: shown with passwords masked */
	RK_OPTF_JOBONLY = 1 << 3 /* only with --job */
};

/* One row of the table.  A field a row leaves out is zero: no requirement,
 * no flag, no default, and so on. */
typedef struct rk_optdef {
	const char *name;
	rk_optkind kind;
	size_t offset;     /* its field in rk_opts */
	unsigned cmds;     /* commands that take it */
	unsigned required; /* commands that need it (checked after every layer) */
	unsigned flags;
	const char *arg; /* metavariable shown in --help */
	const char *help;
	const char *def;                                /* default, applied when no layer sets it */
	unsigned def_cmds;                              /* ... for these commands (0: every command that takes it) */
	unsigned long lo, hi;                           /* RK_OPT_UINT */
	const char *const *choices;                     /* RK_OPT_ENUM, NULL-terminated */
	const char *bare;                               /* the value of --NAME given alone, or NULL when a value is needed */
	int (*check)(const char *value, rk_error *err); /* more checks of a STR value */
	const char *const *(*suggest)(void);            /* names the completion offers (rk_optinfo) */
} rk_optdef;

/* The one option table (options.c), indexed by rk_optid. */
extern const rk_optdef rk_optdefs[RK_O_COUNT];

/* The command's name ("check", "rerun-list"), "?" for no one command. */
const char *rk_opt_cmd_label(unsigned cmd);

/* The row named name[0..len), or NULL. */
const rk_optdef *rk_opt_find(const char *name, size_t len);

/* The index of a row of rk_optdefs. */
rk_optid rk_opt_id(const rk_optdef *d);

/* ------------------------------------------------------------------------
 * the parser's state (options_parse.c)
 * ---------------------------------------------------------------------- */

/* Layers, highest first (options.h). */
enum {
	RK_LAYER_ARGV = 1,
	RK_LAYER_TABLE,
	RK_LAYER_DEFAULTS,
	RK_LAYER_CMD_SECTION,
	RK_LAYER_RECKON_SECTION,
	RK_LAYER_TOP,
	RK_LAYER_BUILTIN
};

/* A layer being applied: where its values come from, for messages. */
typedef struct rk_layer {
	int rank;         /* RK_LAYER_* */
	const char *path; /* the file, or NULL for the command line */
} rk_layer;

typedef struct rk_optstate {
	rk_opts *opts;
	unsigned char rank[RK_O_COUNT];      /* the layer that set each option (0: none) */
	unsigned char *map_rank[RK_O_COUNT]; /* per mapping name, for RK_OPT_MAP */
	size_t map_cap[RK_O_COUNT];
	bool tables; /* parsing the base of a job: table options not required */
} rk_optstate;

/* Clears opts and st for parsing the options of command cmd into opts;
 * rk_opts_end frees st's own memory (not opts). */
void rk_opts_begin(rk_optstate *st, rk_opts *opts, unsigned cmd);
void rk_opts_end(rk_optstate *st);

/* The command line as the highest layer: -1 with err on a bad option. */
int rk_opts_argv(rk_optstate *st, int argc, char **argv, rk_error *err);

/* Applies the entries of one section of ini (NULL: of every section) as
 * layer rank.  table_only: only options a job's table may set (a job
 * file); own: the command's own section, where a key of another command is
 * an error rather than skipped. */
int rk_opts_section(rk_optstate *st, const rk_ini *ini, const char *section, int rank, bool table_only, bool own,
                    rk_error *err);

/* The --config file's layers ([COMMAND], [reckon], keys before any
 * section). */
int rk_opts_config(rk_optstate *st, rk_error *err);

/* The defaults of the options no layer set, then the requirements. */
int rk_opts_finish(rk_optstate *st, rk_error *err);

/* Reads and parses an INI file (what: "job file", for messages), capped in
 * size; NULL with err. */
rk_ini *rk_opts_ini_read(const char *path, const char *what, rk_error *err);

#endif
