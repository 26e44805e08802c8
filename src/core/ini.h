/*
 * ini.h - the INI files reckon reads (--config, --job).
 *
 * Why reckon has its own reader: the rules below are part of the contract
 * (docs/reference.md), and the packaged libinih cannot keep them: it is built
 * with a 200-byte line limit (an SQL filter is longer), treats ';' inside
 * a value as a comment (a conninfo or SQL may hold one), joins indented
 * lines to the previous value, does not tell its handler the line number,
 * and lets a repeated key pass.  No other Debian-packaged INI parser
 * (iniparser, GKeyFile) keeps them either.
 *
 * The rules: a line is "[section]", "key = value", blank, or a comment
 * (';' or '#' as its first character that is not blank); a line may be of
 * any length; a value is the text after the first '=', blanks around it
 * removed, taken literally (quotes, ';' and '#' included); a key given
 * twice in one section is an error naming both lines; a UTF-8 byte order
 * mark at the start is skipped; a NUL byte is an error.  Sections may be
 * repeated (their keys add up, and a key repeated across them is still
 * given twice).  Section names are trimmed and their inner blanks folded
 * to one space ("[table  orders]" is "table orders").
 *
 * Pure: it parses a buffer; reading the file is the caller's (io/).
 */
#ifndef RK_INI_H
#define RK_INI_H

#include <stddef.h>

#include "core/error.h"

typedef struct rk_ini_entry {
	const char *section; /* "" before the first section header */
	const char *key;
	const char *value;
	int line; /* 1-based */
} rk_ini_entry;

typedef struct rk_ini_section {
	const char *name;
	int line;  /* where it first appears */
	int again; /* where its header appears a second time, or 0 */
} rk_ini_section;

typedef struct rk_ini {
	char *path;            /* for messages */
	rk_ini_entry *entries; /* in file order */
	size_t nentries;
	rk_ini_section *sections; /* distinct, in order of first appearance */
	size_t nsections;
	char *arena; /* the strings */
} rk_ini;

/*
 * Parses len bytes of data.  path names the file in messages
 * ("FILE:LINE: ...").  Returns a new rk_ini owned by the caller
 * (rk_ini_free), or NULL with err (RK_EXIT_USAGE).
 */
rk_ini *rk_ini_parse(const char *path, const char *data, size_t len, rk_error *err);

/* The entry of key in section, or NULL. */
const rk_ini_entry *rk_ini_get(const rk_ini *ini, const char *section, const char *key);

/* The section's record, or NULL when the file has no such section. */
const rk_ini_section *rk_ini_section_find(const rk_ini *ini, const char *name);

void rk_ini_free(rk_ini *ini);

#endif
