/*
 * docgen.c - reckon's manual pages and bash completion, written at build
 * time from the one option table (cli/options.c).
 *
 *   rk-docgen man TEMPLATES OUTDIR   OUTDIR/reckon.1 and reckon-COMMAND.1
 *   rk-docgen completion FILE        the bash completion script
 *
 * A program of its own rather than a hidden reckon subcommand: the installed
 * binary carries no roff or shell writer and no command a user could stumble
 * on, while this program links the very options.o that reckon links, so a
 * page cannot describe options the binary lacks or miss one it has.  Every
 * command comes from walking the RK_CMD_* bits (rk_opts_cmd_name), every
 * option from rk_opts_each: an option or a command added to the table needs
 * no change here.
 *
 * The prose that is not about options (exit statuses, files, environment,
 * examples) lives in roff templates in TEMPLATES (docs/man/ in the source tree):
 * reckon.1.in, reckon-command.1.in for every command, and COMMAND.roff with
 * a command's own sections when it has some.  A template names what is
 * generated with @WORD@ placeholders; an unknown one is an error.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/options.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/log.h"
#include "io/afile.h"
#include "io/slurp.h"

#define RK_DOCGEN_TEMPLATE_MAX (1u << 20)

/* Every command of the table, in the order of its bits. */
#define RK_EACH_CMD(c) for (unsigned c = RK_CMD_CHECK; c && rk_opts_cmd_name(c); c <<= 1)

/* The parser's own options (rk_opts_argv): every command takes them, and
 * --help prints them after the table's. */
typedef struct rk_builtin {
	const char *shortname, *name, *help;
	bool repeatable;
} rk_builtin;

static const rk_builtin rk_builtins[] = {
	{ "v", "verbose", "more diagnostics on stderr (repeat for debug)", true },
	{ "h", "help", "print the command's options and exit", false },
};
#define RK_NBUILTINS (sizeof rk_builtins / sizeof rk_builtins[0])

/* ------------------------------------------------------------------------
 * what the table says, gathered
 * ---------------------------------------------------------------------- */

/* The options of one command, or of all commands (deduplicated by name). */
typedef struct rk_optset {
	rk_optinfo *v;
	size_t n;
	unsigned *cmds; /* per option: the commands that take it */
	unsigned cmd;   /* the command being walked */
} rk_optset;

static void rk_optset_add(void *ctx, const rk_optinfo *info)
{
	rk_optset *s = ctx;

	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, info->name)) {
			s->cmds[i] |= s->cmd;
			return;
		}
	s->v = rk_xrealloc(s->v, (s->n + 1) * sizeof *s->v);
	s->cmds = rk_xrealloc(s->cmds, (s->n + 1) * sizeof *s->cmds);
	s->v[s->n] = *info;
	s->cmds[s->n] = s->cmd;
	s->n++;
}

static void rk_optset_free(rk_optset *s)
{
	free(s->v);
	free(s->cmds);
	memset(s, 0, sizeof *s);
}

/* Every command's bit, ORed: the commands the table knows. */
static unsigned rk_all_cmds(void)
{
	unsigned all = 0;

	RK_EACH_CMD(c)
	all |= c;
	return all;
}

/* The options of every command, each with the commands that take it. */
static void rk_optset_all(rk_optset *s)
{
	memset(s, 0, sizeof *s);
	RK_EACH_CMD(c)
	{
		s->cmd = c;
		rk_opts_each(c, rk_optset_add, s);
	}
}

/* A metavariable's alternatives ("postgres|split|all", "NAME|all"): the
 * lowercase ones are literal values, the others placeholders. */
static bool rk_is_literal(const char *s, size_t n)
{
	bool letter = false;

	for (size_t i = 0; i < n; i++) {
		if (islower((unsigned char)s[i]))
			letter = true;
		else if (!isdigit((unsigned char)s[i]) && s[i] != '-' && s[i] != '_')
			return false;
	}
	return letter;
}

/* The literal values an option's argument may take, space-separated, into
 * out (empty when it names none). */
static void rk_literals(const rk_optinfo *in, rk_buf *out)
{
	rk_buf_reset(out);
	if (in->suggest) {
		for (size_t j = 0; in->suggest[j]; j++)
			rk_buf_printf(out, "%s%s", j ? " " : "", in->suggest[j]);
	} else if (in->choices) {
		for (size_t j = 0; in->choices[j]; j++)
			rk_buf_printf(out, "%s%s", j ? " " : "", in->choices[j]);
	} else if (in->arg) {
		const char *p = in->arg;

		while (*p) {
			size_t n = strcspn(p, "|");

			if (rk_is_literal(p, n)) {
				if (out->len)
					rk_buf_putc(out, ' ');
				rk_buf_append(out, p, n);
			}
			p += n;
			if (*p == '|')
				p++;
		}
	}
	rk_buf_cstr(out);
}

/* ------------------------------------------------------------------------
 * roff
 * ---------------------------------------------------------------------- */

static bool rk_at_line_start(const rk_buf *b)
{
	return b->len == 0 || b->data[b->len - 1] == '\n';
}

/* Text for roff: backslashes and hyphens escaped (\- is the ASCII minus, so
 * --source copies out of a terminal as typed), and \& before a '.' or '\''
 * that would start a line and read as a request. */
static void rk_roff_text_n(rk_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (rk_at_line_start(b) && (s[i] == '.' || s[i] == '\''))
			rk_buf_puts(b, "\\&");
		if (s[i] == '\\')
			rk_buf_puts(b, "\\e");
		else if (s[i] == '-')
			rk_buf_puts(b, "\\-");
		else
			rk_buf_putc(b, s[i]);
	}
}

static void rk_roff_text(rk_buf *b, const char *s)
{
	rk_roff_text_n(b, s, strlen(s));
}

static void rk_roff_font(rk_buf *b, char font, const char *s, size_t n)
{
	rk_buf_printf(b, "\\f%c", font);
	rk_roff_text_n(b, s, n);
	rk_buf_puts(b, "\\fR");
}

/* An option's tag: the name bold; literal values bold, placeholders italic;
 * "[=a|b]" for a value that may be left out. */
static void rk_roff_tag(rk_buf *b, const rk_optinfo *in)
{
	const char *p;

	rk_buf_puts(b, "\\fB\\-\\-");
	rk_roff_text(b, in->name);
	rk_buf_puts(b, "\\fR");
	if (in->choices) {
		rk_buf_puts(b, in->optional_value ? "[=" : " ");
		for (size_t j = 0; in->choices[j]; j++) {
			if (j)
				rk_buf_putc(b, '|');
			rk_roff_font(b, 'B', in->choices[j], strlen(in->choices[j]));
		}
		if (in->optional_value)
			rk_buf_putc(b, ']');
		return;
	}
	if (!in->arg)
		return;
	rk_buf_putc(b, ' ');
	for (p = in->arg; *p;) {
		size_t n = strcspn(p, "|");

		rk_roff_font(b, rk_is_literal(p, n) ? 'B' : 'I', p, n);
		p += n;
		if (*p == '|') {
			rk_buf_putc(b, '|');
			p++;
		}
	}
}

static void rk_roff_option(rk_buf *b, const rk_optinfo *in)
{
	rk_buf_puts(b, ".TP\n");
	rk_roff_tag(b, in);
	rk_buf_putc(b, '\n');
	rk_roff_text(b, in->help);
	if (in->def) {
		rk_buf_puts(b, " (default ");
		rk_roff_font(b, 'B', in->def, strlen(in->def));
		rk_buf_putc(b, ')');
	}
	for (size_t i = 0; in->suggest && in->suggest[i]; i++) {
		rk_buf_puts(b, i ? ", " : ": ");
		rk_roff_font(b, 'B', in->suggest[i], strlen(in->suggest[i]));
	}
	rk_buf_putc(b, '\n');
}

static void rk_roff_builtins(rk_buf *b)
{
	for (size_t i = 0; i < RK_NBUILTINS; i++) {
		rk_buf_printf(b, ".TP\n\\fB\\-%s\\fR, \\fB\\-\\-%s\\fR\n", rk_builtins[i].shortname, rk_builtins[i].name);
		rk_roff_text(b, rk_builtins[i].help);
		rk_buf_putc(b, '\n');
	}
}

static void rk_roff_option_cb(void *ctx, const rk_optinfo *in)
{
	rk_roff_option(ctx, in);
}

/* A page's name as its .TH title wants it: RECKON\-CHECK. */
static void rk_roff_title(rk_buf *b, const char *page)
{
	for (const char *p = page; *p; p++) {
		if (*p == '-')
			rk_buf_puts(b, "\\-");
		else
			rk_buf_putc(b, (char)toupper((unsigned char)*p));
	}
}

static void rk_roff_see_also(rk_buf *b, unsigned except)
{
	bool first = true;

	if (except) {
		rk_buf_puts(b, ".BR reckon (1)");
		first = false;
	}
	RK_EACH_CMD(c)
	{
		if (c == except)
			continue;
		if (!first)
			rk_buf_puts(b, ",\n");
		rk_buf_puts(b, ".BR reckon\\-");
		rk_roff_text(b, rk_opts_cmd_name(c));
		rk_buf_puts(b, " (1)");
		first = false;
	}
	rk_buf_putc(b, '\n');
}

/* rk_opts_synopsis splits into its usage lines (kept as laid out, the
 * command bold) and its description (filled). */
static void rk_roff_synopsis(rk_buf *syn, rk_buf *desc, unsigned cmd)
{
	const char *s = rk_opts_synopsis(cmd);
	const char *sep = strstr(s, "\n\n");
	size_t ulen = sep ? (size_t)(sep - s) : strlen(s);
	char lead[64];
	size_t llen;

	snprintf(lead, sizeof lead, "reckon %s", rk_opts_cmd_name(cmd));
	llen = strlen(lead);
	rk_buf_puts(syn, ".nf\n");
	for (const char *p = s; p < s + ulen;) {
		const char *nl = memchr(p, '\n', (size_t)(s + ulen - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(s + ulen - p);

		if (n >= llen && !memcmp(p, lead, llen)) {
			rk_roff_font(syn, 'B', p, llen);
			rk_roff_text_n(syn, p + llen, n - llen);
		} else {
			rk_roff_text_n(syn, p, n);
		}
		rk_buf_putc(syn, '\n');
		p += n + (nl != NULL);
	}
	rk_buf_puts(syn, ".fi\n");
	if (sep)
		rk_roff_text(desc, sep + 2);
	rk_buf_putc(desc, '\n');
}

/* ------------------------------------------------------------------------
 * templates
 * ---------------------------------------------------------------------- */

typedef struct rk_var {
	const char *name;
	const char *value;
} rk_var;

/* The value of placeholder @NAME@ (n bytes at name), or NULL. */
static const char *rk_var_find(const rk_var *vars, size_t nvars, const char *name, size_t n)
{
	for (size_t i = 0; i < nvars; i++)
		if (strlen(vars[i].name) == n && !memcmp(vars[i].name, name, n))
			return vars[i].value;
	return NULL;
}

/* Copies template tpl (read from path) to out, each @NAME@ replaced by its
 * value.  A line holding nothing but a placeholder takes a block: the value
 * ends its own line, and an empty value leaves no empty line behind. */
static int rk_template_fill(const char *path, const char *tpl, const rk_var *vars, size_t nvars, rk_buf *out,
                            rk_error *err)
{
	int line = 0;

	for (const char *p = tpl; *p;) {
		size_t len = strcspn(p, "\n");
		const char *eol = p + len;
		bool block = len > 2 && p[0] == '@' && p[len - 1] == '@';

		line++;
		for (const char *q = p; q < eol; q++) {
			const char *end = q + 1, *value;

			if (*q != '@') {
				rk_buf_putc(out, *q);
				continue;
			}
			while (isupper((unsigned char)*end) || *end == '_')
				end++;
			if (end >= eol || *end != '@' || end == q + 1) {
				rk_buf_putc(out, *q);
				block = false;
				continue;
			}
			value = rk_var_find(vars, nvars, q + 1, (size_t)(end - q - 1));
			if (!value)
				return rk_error_set(err, RK_EXIT_USAGE, "%s:%d: unknown placeholder %.*s", path, line,
				                    (int)(end - q + 1), q);
			block = block && end == eol - 1;
			rk_buf_puts(out, value);
			q = end;
		}
		if (!block || !rk_at_line_start(out))
			rk_buf_putc(out, '\n');
		p = *eol ? eol + 1 : eol;
	}
	return 0;
}

static int rk_read(const char *dir, const char *name, bool optional, rk_buf *out, rk_error *err)
{
	rk_buf path = RK_BUF_INIT;
	int rc = 0;

	rk_buf_reset(out);
	rk_buf_printf(&path, "%s/%s", dir, name);
	if (!optional || access(rk_buf_cstr(&path), F_OK) == 0)
		rc = rk_slurp(rk_buf_cstr(&path), "manual page template", RK_DOCGEN_TEMPLATE_MAX, out, err);
	rk_buf_cstr(out);
	rk_buf_free(&path);
	return rc;
}

static int rk_write(const char *path, const rk_buf *text, rk_error *err)
{
	rk_afile *af = rk_afile_open(path, "generated file", err);

	if (!af)
		return -1;
	if (fwrite(text->data, 1, text->len, rk_afile_stream(af)) != text->len) {
		rk_afile_abort(af);
		return rk_error_set(err, RK_EXIT_RUNTIME, "cannot write '%s'", path);
	}
	return rk_afile_commit(af, err);
}

/* ------------------------------------------------------------------------
 * the pages
 * ---------------------------------------------------------------------- */

static int rk_man_command(const char *tdir, const char *odir, unsigned cmd, const rk_buf *tpl, rk_error *err)
{
	const char *name = rk_opts_cmd_name(cmd);
	rk_buf title = RK_BUF_INIT, summary = RK_BUF_INIT, syn = RK_BUF_INIT, desc = RK_BUF_INIT, opts = RK_BUF_INIT,
	       sections = RK_BUF_INIT, env = RK_BUF_INIT, see = RK_BUF_INIT, out = RK_BUF_INIT, path = RK_BUF_INIT,
	       file = RK_BUF_INIT, ename = RK_BUF_INIT, status = RK_BUF_INIT;
	rk_optset mine;
	bool connects = false;
	int rc = -1;

	memset(&mine, 0, sizeof mine);
	mine.cmd = cmd;
	rk_opts_each(cmd, rk_optset_add, &mine);
	for (size_t i = 0; i < mine.n; i++)
		connects |= !strcmp(mine.v[i].name, "source");

	rk_buf_puts(&title, "RECKON\\-");
	rk_roff_title(&title, name);
	rk_roff_text(&summary, rk_opts_summary(cmd));
	rk_roff_synopsis(&syn, &desc, cmd);
	rk_opts_each(cmd, rk_roff_option_cb, &opts);
	rk_roff_builtins(&opts);
	rk_roff_see_also(&see, cmd);
	rk_buf_printf(&file, "%s.roff", name);
	/* libpq's environment matters to the commands that connect */
	if (rk_read(tdir, rk_buf_cstr(&file), true, &sections, err) < 0 ||
	    rk_read(tdir, "exit-status.roff", false, &status, err) < 0 ||
	    (connects && rk_read(tdir, "environment.roff", false, &env, err) < 0))
		goto done;
	rk_buf_cstr(&env);
	rk_roff_text(&ename, name);
	{
		const rk_var vars[] = {
			{ "VERSION", RK_VERSION },
			{ "TITLE", rk_buf_cstr(&title) },
			{ "COMMAND", rk_buf_cstr(&ename) },
			{ "SUMMARY", rk_buf_cstr(&summary) },
			{ "SYNOPSIS", rk_buf_cstr(&syn) },
			{ "DESCRIPTION", rk_buf_cstr(&desc) },
			{ "OPTIONS", rk_buf_cstr(&opts) },
			{ "SECTIONS", rk_buf_cstr(&sections) },
			{ "EXIT_STATUS", status.data },
			{ "ENVIRONMENT", env.data },
			{ "SEE_ALSO", rk_buf_cstr(&see) },
		};

		if (rk_template_fill("reckon-command.1.in", tpl->data, vars, sizeof vars / sizeof vars[0], &out, err) < 0)
			goto done;
	}
	rk_buf_printf(&path, "%s/reckon-%s.1", odir, name);
	rc = rk_write(rk_buf_cstr(&path), &out, err);
done:
	rk_optset_free(&mine);
	rk_buf_free(&title);
	rk_buf_free(&summary);
	rk_buf_free(&syn);
	rk_buf_free(&desc);
	rk_buf_free(&opts);
	rk_buf_free(&sections);
	rk_buf_free(&env);
	rk_buf_free(&see);
	rk_buf_free(&out);
	rk_buf_free(&path);
	rk_buf_free(&file);
	rk_buf_free(&ename);
	rk_buf_free(&status);
	return rc;
}

static int rk_man_reckon(const char *tdir, const char *odir, rk_error *err)
{
	rk_buf tpl = RK_BUF_INIT, cmds = RK_BUF_INIT, globals = RK_BUF_INIT, see = RK_BUF_INIT, out = RK_BUF_INIT,
	       path = RK_BUF_INIT, status = RK_BUF_INIT, env = RK_BUF_INIT;
	unsigned all = rk_all_cmds();
	rk_optset set;
	int rc = -1;

	RK_EACH_CMD(c)
	{
		rk_buf_puts(&cmds, ".TP\n\\fBreckon ");
		rk_roff_text(&cmds, rk_opts_cmd_name(c));
		rk_buf_puts(&cmds, "\\fR\n");
		rk_roff_text(&cmds, rk_opts_summary(c));
		rk_buf_puts(&cmds, "; see\n.BR reckon\\-");
		rk_roff_text(&cmds, rk_opts_cmd_name(c));
		rk_buf_puts(&cmds, " (1).\n");
	}
	/* the options every command takes, which may as well come before it */
	rk_optset_all(&set);
	for (size_t i = 0; i < set.n; i++)
		if (set.cmds[i] == all)
			rk_roff_option(&globals, &set.v[i]);
	rk_optset_free(&set);
	rk_roff_builtins(&globals);
	rk_buf_puts(&globals, ".TP\n\\fB\\-\\-version\\fR\nprint the version and exit\n");
	rk_roff_see_also(&see, 0);
	if (rk_read(tdir, "reckon.1.in", false, &tpl, err) < 0 ||
	    rk_read(tdir, "exit-status.roff", false, &status, err) < 0 ||
	    rk_read(tdir, "environment.roff", false, &env, err) < 0)
		goto done;
	{
		const rk_var vars[] = {
			{ "VERSION", RK_VERSION },
			{ "COMMANDS", rk_buf_cstr(&cmds) },
			{ "GLOBAL_OPTIONS", rk_buf_cstr(&globals) },
			{ "EXIT_STATUS", status.data },
			{ "ENVIRONMENT", env.data },
			{ "SEE_ALSO", rk_buf_cstr(&see) },
		};

		if (rk_template_fill("reckon.1.in", tpl.data, vars, sizeof vars / sizeof vars[0], &out, err) < 0)
			goto done;
	}
	rk_buf_printf(&path, "%s/reckon.1", odir);
	rc = rk_write(rk_buf_cstr(&path), &out, err);
done:
	rk_buf_free(&tpl);
	rk_buf_free(&cmds);
	rk_buf_free(&globals);
	rk_buf_free(&see);
	rk_buf_free(&out);
	rk_buf_free(&path);
	rk_buf_free(&status);
	rk_buf_free(&env);
	return rc;
}

static int rk_man(const char *tdir, const char *odir, rk_error *err)
{
	rk_buf tpl = RK_BUF_INIT;
	int rc = -1;

	if (rk_man_reckon(tdir, odir, err) < 0 || rk_read(tdir, "reckon-command.1.in", false, &tpl, err) < 0)
		goto done;
	RK_EACH_CMD(c)
	if (rk_man_command(tdir, odir, c, &tpl, err) < 0)
		goto done;
	rc = 0;
done:
	rk_buf_free(&tpl);
	return rc;
}

/* ------------------------------------------------------------------------
 * bash completion
 * ---------------------------------------------------------------------- */

/* The shell function's fixed part.  words[] is COMP_WORDS up to the cursor
 * with --name=value joined again (COMP_WORDBREAKS splits it at the '=');
 * the command is the first word that is neither an option nor an option's
 * value, as rk_opts_leading sees it. */
static const char rk_completion_main[] =
        "_reckon_value()\n"
        "{\n"
        "\tlocal -a r\n"
        "\tcase $_reckon_kind in\n"
        "\twords) mapfile -t r < <(compgen -W \"$_reckon_words\" -- \"$1\") ;;\n"
        "\tfile) mapfile -t r < <(compgen -f -- \"$1\"); compopt -o filenames 2>/dev/null ;;\n"
        "\tdir) mapfile -t r < <(compgen -d -- \"$1\"); compopt -o filenames 2>/dev/null ;;\n"
        "\tlabels)\n"
        "\t\t# the [table LABEL] sections of the --job file on the line, after the\n"
        "\t\t# labels typed already (comma-separated)\n"
        "\t\tlocal done= l\n"
        "\t\t[[ $1 == *,* ]] && done=${1%,*},\n"
        "\t\tif [[ -r $_reckon_job ]]; then\n"
        "\t\t\tfor l in $(sed -n 's/^[[:space:]]*\\[table[[:space:]]\\{1,\\}\\([A-Za-z0-9_.-]\\{1,\\}\\)[[:space:]]*\\].*/\\1/p' \"$_reckon_job\"); do\n"
        "\t\t\t\t[[ ,$done == *,$l,* ]] || r+=(\"$done$l\")\n"
        "\t\t\tdone\n"
        "\t\tfi\n"
        "\t\tmapfile -t r < <(compgen -W \"${r[*]}\" -- \"$1\")\n"
        "\t\tcompopt -o nospace 2>/dev/null ;;\n"
        "\tesac\n"
        "\tCOMPREPLY=(\"${r[@]}\")\n"
        "}\n"
        "\n"
        "_reckon()\n"
        "{\n"
        "\tlocal -a words=() offer=()\n"
        "\tlocal w i cur cmd= opts given o\n"
        "\tCOMPREPLY=()\n"
        "\tfor ((i = 0; i <= COMP_CWORD; i++)); do\n"
        "\t\tw=${COMP_WORDS[i]}\n"
        "\t\tif ((i > 1)) && [[ ($w == = && ${words[-1]} == --*) || ${words[-1]} == --*= ]]; then\n"
        "\t\t\twords[-1]+=$w\n"
        "\t\telse\n"
        "\t\t\twords+=(\"$w\")\n"
        "\t\tfi\n"
        "\tdone\n"
        "\tcur=${words[-1]}\n"
        "\tlocal _reckon_job=\n"
        "\tfor ((i = 1; i < ${#words[@]} - 1; i++)); do\n"
        "\t\tcase ${words[i]} in\n"
        "\t\t--job) _reckon_job=${words[i + 1]} ;;\n"
        "\t\t--job=*) _reckon_job=${words[i]#--job=} ;;\n"
        "\t\tesac\n"
        "\tdone\n"
        "\tfor ((i = 1; i < ${#words[@]} - 1; i++)); do\n"
        "\t\tw=${words[i]}\n"
        "\t\tif [[ $w != -* ]]; then\n"
        "\t\t\tcmd=$w\n"
        "\t\t\tbreak\n"
        "\t\tfi\n"
        "\t\tif [[ $w != *=* ]] && _reckon_arg \"$w\" && ((_reckon_next)); then\n"
        "\t\t\t((i++))\n"
        "\t\tfi\n"
        "\tdone\n"
        "\tif [[ $cur == --*=* ]]; then\n"
        "\t\t_reckon_arg \"${cur%%=*}\" && _reckon_value \"${cur#*=}\"\n"
        "\t\treturn 0\n"
        "\tfi\n"
        "\tw=${words[-2]}\n"
        "\tif ((${#words[@]} > 2)) && [[ $w == --* && $w != *=* ]] && _reckon_arg \"$w\" && ((_reckon_next)); then\n"
        "\t\t_reckon_value \"$cur\"\n"
        "\t\treturn 0\n"
        "\tfi\n"
        "\tif [[ -z $cmd ]]; then\n"
        "\t\tif [[ $cur == -* ]]; then\n"
        "\t\t\tmapfile -t COMPREPLY < <(compgen -W \"$_reckon_global_opts\" -- \"$cur\")\n"
        "\t\telse\n"
        "\t\t\tmapfile -t COMPREPLY < <(compgen -W \"$_reckon_commands help\" -- \"$cur\")\n"
        "\t\tfi\n"
        "\t\treturn 0\n"
        "\tfi\n"
        "\tif [[ $cmd == help ]]; then\n"
        "\t\t[[ ${words[-2]} == help ]] && mapfile -t COMPREPLY < <(compgen -W \"$_reckon_commands\" -- \"$cur\")\n"
        "\t\treturn 0\n"
        "\tfi\n"
        "\topts=$(_reckon_opts \"$cmd\") || return 0\n"
        "\tif [[ -n $cur && $cur != -* ]]; then\n"
        "\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
        "\t\tcompopt -o filenames 2>/dev/null\n"
        "\t\treturn 0\n"
        "\tfi\n"
        "\t# an option given already is not offered again, unless it may repeat\n"
        "\tgiven=\" ${words[*]:1:${#words[@]}-2} \"\n"
        "\tfor o in $opts; do\n"
        "\t\tif [[ \" $_reckon_repeatable \" == *\" $o \"* || ($given != *\" $o \"* && $given != *\" $o=\"*) ]]; then\n"
        "\t\t\toffer+=(\"$o\")\n"
        "\t\tfi\n"
        "\tdone\n"
        "\tmapfile -t COMPREPLY < <(compgen -W \"${offer[*]}\" -- \"$cur\")\n"
        "\treturn 0\n"
        "}\n"
        "\n"
        "complete -F _reckon reckon\n";

/* The script holds option names and allowed values unquoted or in single
 * quotes: a word that is not plainly made of these characters would break
 * it, and is refused rather than escaped (no option needs one). */
static int rk_shell_word(const char *what, const char *w, rk_error *err)
{
	if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-") == strlen(w))
		return 0;
	rk_error_set(err, RK_EXIT_USAGE, "%s '%s' cannot be written into the completion script", what, w);
	return rk_error_hint(err, "option names and allowed values are letters, digits and _.:-");
}

/* How an option's value completes: from its allowed values, as a file, as
 * a directory, or not at all (a connection string, SQL, a time). */
static const char *rk_value_kind(const rk_optinfo *in, const rk_buf *literals)
{
	if (literals->len)
		return "words";
	if (in->arg && !strcmp(in->arg, "FILE"))
		return "file";
	if (in->arg && !strcmp(in->arg, "DIR"))
		return "dir";
	if (in->arg && !strcmp(in->arg, "LABELS"))
		return "labels";
	return "text";
}

static int rk_completion(rk_buf *b, rk_error *err)
{
	unsigned all = rk_all_cmds();
	rk_buf lits = RK_BUF_INIT;
	rk_optset set;
	int rc = -1;

	rk_optset_all(&set);
	for (size_t i = 0; i < set.n; i++) {
		rk_literals(&set.v[i], &lits);
		if (rk_shell_word("option", set.v[i].name, err) < 0)
			goto done;
		for (const char *p = lits.data; *p;) {
			size_t n = strcspn(p, " ");
			char word[256];

			snprintf(word, sizeof word, "%.*s", (int)n, p);
			if (rk_shell_word("allowed value", word, err) < 0)
				goto done;
			p += n + (p[n] == ' ');
		}
	}
	RK_EACH_CMD(c)
	if (rk_shell_word("command", rk_opts_cmd_name(c), err) < 0)
		goto done;
	rk_buf_puts(b, "# bash completion for reckon(1) - generated by rk-docgen from the option table\n"
	               "# in src/cli/options.c: change the table, not this file.\n\n");

	rk_buf_puts(b, "_reckon_commands='");
	RK_EACH_CMD(c)
	rk_buf_printf(b, "%s%s", c == RK_CMD_CHECK ? "" : " ", rk_opts_cmd_name(c));
	rk_buf_puts(b, "'\n");

	/* before the command: what every command takes */
	rk_buf_puts(b, "_reckon_global_opts='--help --version");
	for (size_t i = 0; i < RK_NBUILTINS; i++)
		if (strcmp(rk_builtins[i].name, "help") != 0)
			rk_buf_printf(b, " --%s", rk_builtins[i].name);
	for (size_t i = 0; i < set.n; i++)
		if (set.cmds[i] == all)
			rk_buf_printf(b, " --%s", set.v[i].name);
	rk_buf_puts(b, "'\n");

	rk_buf_puts(b, "_reckon_repeatable='");
	{
		bool first = true;

		for (size_t i = 0; i < RK_NBUILTINS; i++)
			if (rk_builtins[i].repeatable) {
				rk_buf_printf(b, "%s--%s", first ? "" : " ", rk_builtins[i].name);
				first = false;
			}
		for (size_t i = 0; i < set.n; i++)
			if (set.v[i].repeatable) {
				rk_buf_printf(b, "%s--%s", first ? "" : " ", set.v[i].name);
				first = false;
			}
	}
	rk_buf_puts(b, "'\n\n");

	rk_buf_puts(b, "# _reckon_opts COMMAND: the options of COMMAND; fails for an unknown command\n"
	               "_reckon_opts()\n{\n\tcase $1 in\n");
	RK_EACH_CMD(c)
	{
		rk_buf_printf(b, "\t%s) echo '", rk_opts_cmd_name(c));
		for (size_t i = 0; i < set.n; i++)
			if (set.cmds[i] & c)
				rk_buf_printf(b, "--%s ", set.v[i].name);
		for (size_t i = 0; i < RK_NBUILTINS; i++)
			rk_buf_printf(b, "--%s%s", rk_builtins[i].name, i + 1 < RK_NBUILTINS ? " " : "");
		rk_buf_puts(b, "' ;;\n");
	}
	rk_buf_puts(b, "\t*) return 1 ;;\n\tesac\n}\n\n");

	rk_buf_puts(b, "# _reckon_arg OPTION: sets _reckon_kind (words, file, dir or text) and\n"
	               "# _reckon_words for the value of OPTION, and _reckon_next to 1 when the value\n"
	               "# may be the next word (0: only --OPTION=VALUE); fails for a flag\n"
	               "_reckon_arg()\n{\n\t_reckon_kind= _reckon_words= _reckon_next=1\n\tcase $1 in\n");
	for (size_t i = 0; i < set.n; i++) {
		const rk_optinfo *in = &set.v[i];

		if (!in->arg && !in->choices)
			continue;
		rk_literals(in, &lits);
		rk_buf_printf(b, "\t--%s) _reckon_kind=%s", in->name, rk_value_kind(in, &lits));
		if (lits.len)
			rk_buf_printf(b, " _reckon_words='%s'", lits.data);
		if (in->optional_value)
			rk_buf_puts(b, " _reckon_next=0");
		rk_buf_puts(b, " ;;\n");
	}
	rk_buf_puts(b, "\t*) return 1 ;;\n\tesac\n}\n\n");
	rk_buf_puts(b, rk_completion_main);
	rc = 0;
done:
	rk_buf_free(&lits);
	rk_optset_free(&set);
	return rc;
}

/* ------------------------------------------------------------------------ */

static void rk_docgen_usage(void)
{
	fprintf(stderr, "usage: rk-docgen man TEMPLATE_DIR OUT_DIR\n"
	                "       rk-docgen completion OUT_FILE\n");
}

int main(int argc, char **argv)
{
	rk_error err;
	int rc = -1;

	rk_error_clear(&err);
	if (argc == 4 && !strcmp(argv[1], "man")) {
		rc = rk_man(argv[2], argv[3], &err);
	} else if (argc == 3 && !strcmp(argv[1], "completion")) {
		rk_buf b = RK_BUF_INIT;

		rc = rk_completion(&b, &err);
		if (rc == 0)
			rc = rk_write(argv[2], &b, &err);
		rk_buf_free(&b);
	} else {
		rk_docgen_usage();
		return RK_EXIT_USAGE;
	}
	if (rc < 0) {
		rk_log_error(&err);
		return err.code ? err.code : RK_EXIT_RUNTIME;
	}
	return RK_EXIT_OK;
}
