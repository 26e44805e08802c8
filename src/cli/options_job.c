/*
 * options_job.c - a job file (--job, docs/jobs.md): its sections checked
 * once, then one table's options from the command line, the table's
 * section, [defaults] and the --config layers.
 */
#include "cli/options.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options_impl.h"
#include "core/text.h"

int rk_opts_parse_table(rk_opts *opts, unsigned cmd, int argc, char **argv, const rk_ini *job, const char *label,
                        rk_error *err)
{
	rk_optstate st;
	char section[256];
	int rc = -1;

	snprintf(section, sizeof section, "table %s", label);
	rk_opts_begin(&st, opts, cmd);
	if (rk_opts_argv(&st, argc, argv, err) < 0 ||
	    rk_opts_section(&st, job, section, RK_LAYER_TABLE, true, false, err) < 0 ||
	    rk_opts_section(&st, job, "defaults", RK_LAYER_DEFAULTS, true, false, err) < 0)
		goto done;
	if (opts->config && rk_opts_config(&st, err) < 0)
		goto done;
	if (rk_opts_finish(&st, err) < 0) {
		rk_error_prefix(err, "table %s", label);
		goto done;
	}
	rc = 0;
done:
	rk_opts_end(&st);
	return rc;
}

/* [A-Za-z0-9_.-]+ */
static bool rk_opts_label_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != '-')
			return false;
	return true;
}

int rk_opts_job_read(const char *path, unsigned cmd, rk_ini **job, const char ***labels, size_t *nlabels,
                     rk_error *err)
{
	rk_ini *ini = rk_opts_ini_read(path, "job file", err);
	const char **l = NULL;
	size_t n = 0;

	*job = NULL;
	*labels = NULL;
	*nlabels = 0;
	if (!ini)
		return -1;
	for (size_t i = 0; i < ini->nsections; i++) {
		const char *s = ini->sections[i].name;

		if (ini->sections[i].again) {
			rk_error_set(err, RK_EXIT_USAGE, "%s:%d: [%s] again (first at line %d)", path, ini->sections[i].again, s,
			             ini->sections[i].line);
			rk_error_hint(err, "each table has one section with a label of its own");
			goto fail;
		}
		if (!strcmp(s, "defaults"))
			continue;
		if (strncmp(s, "table ", 6) != 0 || !rk_opts_label_ok(s + 6)) {
			rk_error_set(err, RK_EXIT_USAGE, "%s:%d: %s [%s]", path, ini->sections[i].line,
			             strncmp(s, "table ", 6) ? "unknown section" : "invalid table label in", s);
			rk_error_hint(err, "a job file holds [defaults] and [table LABEL] sections; a label is letters, "
			                   "digits, '_', '.' and '-'");
			goto fail;
		}
		l = rk_xrealloc(l, (n + 1) * sizeof *l);
		l[n++] = s + 6;
	}
	for (size_t i = 0; i < ini->nentries; i++)
		if (!ini->entries[i].section[0]) {
			rk_error_set(err, RK_EXIT_USAGE, "%s:%d: key '%s' outside any section", path, ini->entries[i].line,
			             ini->entries[i].key);
			rk_error_hint(err, "put options every table shares under [defaults]");
			goto fail;
		}
	if (n == 0) {
		rk_error_set(err, RK_EXIT_USAGE, "%s: no [table LABEL] section", path);
		rk_error_hint(err, "'reckon init --source ... --target ...' writes a job file to start from");
		goto fail;
	}
	/* every key of every section, checked once against the table (a
	 * table's own parse would only meet them one table at a time) */
	{
		rk_optstate st;
		rk_opts tmp;
		int rc;

		rk_opts_begin(&st, &tmp, cmd);
		rc = rk_opts_section(&st, ini, NULL, RK_LAYER_TABLE, true, false, err);
		rk_opts_end(&st);
		rk_opts_free(&tmp);
		if (rc < 0)
			goto fail;
	}
	*job = ini;
	*labels = l;
	*nlabels = n;
	return 0;
fail:
	free(l);
	rk_ini_free(ini);
	return -1;
}
