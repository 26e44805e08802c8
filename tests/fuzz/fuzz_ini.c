/*
 * fuzz_ini.c - libFuzzer harness for the INI reader of --config and --job
 * files (core/ini.c).
 *
 * Input: the file's bytes, in a buffer of exactly their size.  A file that
 * parses must keep the rules of ini.h: no key twice in a section, every
 * entry found again by rk_ini_get and every section by
 * rk_ini_section_find, lines in file order; and written back as plain
 * "[section]" and "key = value" lines it parses to the same entries.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/ini.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RK_FUZZ_CHECK(cond) \
	do {                    \
		if (!(cond))        \
			abort();        \
	} while (0)

static void rk_fz_rules(const rk_ini *ini)
{
	for (size_t i = 0; i < ini->nentries; i++) {
		const rk_ini_entry *e = &ini->entries[i];

		RK_FUZZ_CHECK(e->section && e->key && e->value && e->key[0] && e->line >= 1);
		RK_FUZZ_CHECK(i == 0 || ini->entries[i - 1].line < e->line);
		RK_FUZZ_CHECK(rk_ini_get(ini, e->section, e->key) == e);
		RK_FUZZ_CHECK(!e->section[0] || rk_ini_section_find(ini, e->section) != NULL);
	}
	for (size_t i = 0; i < ini->nsections; i++) {
		RK_FUZZ_CHECK(ini->sections[i].name[0] && rk_ini_section_find(ini, ini->sections[i].name) ==
		                                                   &ini->sections[i]);
		RK_FUZZ_CHECK(i == 0 || ini->sections[i - 1].line < ini->sections[i].line);
	}
}

static void rk_fz_round_trip(const rk_ini *ini)
{
	rk_buf text = RK_BUF_INIT;
	const char *current = "";
	rk_ini *back;
	rk_error err;

	/* a comment first: a key that starts with a byte order mark would lose
	 * it as the file's first bytes */
	rk_buf_puts(&text, "; written again\n");
	for (size_t i = 0; i < ini->nentries; i++) {
		const rk_ini_entry *e = &ini->entries[i];

		if (strcmp(e->section, current) != 0) {
			/* keys before any section come first in file order */
			RK_FUZZ_CHECK(e->section[0]);
			rk_buf_printf(&text, "[%s]\n", e->section);
			current = e->section;
		}
		rk_buf_printf(&text, "%s = %s\n", e->key, e->value);
	}
	rk_error_clear(&err);
	back = rk_ini_parse("again.ini", text.data ? text.data : "", text.len, &err);
	RK_FUZZ_CHECK(back != NULL);
	RK_FUZZ_CHECK(back->nentries == ini->nentries);
	for (size_t i = 0; i < ini->nentries; i++) {
		RK_FUZZ_CHECK(!strcmp(back->entries[i].section, ini->entries[i].section));
		RK_FUZZ_CHECK(!strcmp(back->entries[i].key, ini->entries[i].key));
		RK_FUZZ_CHECK(!strcmp(back->entries[i].value, ini->entries[i].value));
	}
	rk_ini_free(back);
	rk_buf_free(&text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	rk_error err;
	rk_ini *ini;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	rk_error_clear(&err);
	ini = rk_ini_parse("fuzz.ini", copy, size, &err);
	if (!ini) {
		RK_FUZZ_CHECK(err.code == RK_EXIT_USAGE && err.msg[0] && err.hint[0]);
	} else {
		rk_fz_rules(ini);
		rk_fz_round_trip(ini);
		rk_ini_free(ini);
	}
	free(copy);
	return 0;
}
