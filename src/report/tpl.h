/*
 * tpl.h - fills the HTML templates of src/report/ (NAME.html.in) (embedded at
 * build time as rk_tpl_<name>, tools/embed-tpl.sh) from a view: a
 * JSON object the report module builds.
 *
 * The template language is a small subset of Mustache:
 *   {{name}}             the value of name, HTML-escaped (always: there is no
 *                        unescaped form); a string, an integer or a real
 *   {{#name}}..{{/name}} an array: the body once per element, the element
 *                        the innermost context; an object: once, inside it;
 *                        true, a non-empty string, a non-zero number: once;
 *                        false, null, a missing name, "", 0, []: not at all
 *   {{^name}}..{{/name}} the body when {{#name}} would not show it
 *   {{.}}                the current context itself (an array of strings)
 *   {{! comment }}       nothing
 * A name is looked up in the innermost context first, then outwards;
 * "a.b" looks up a, then b inside it.
 */
#ifndef RK_REPORT_TPL_H
#define RK_REPORT_TPL_H

#include <jansson.h>

#include "core/buf.h"
#include "core/error.h"

/*
 * Appends tpl rendered with view to out.  A variable the view lacks, an
 * object or array used as a variable, or an unbalanced section is a
 * mistake of the template or of its view: -1 with err (RK_EXIT_RUNTIME)
 * naming it.
 */
int rk_tpl_render(rk_buf *out, const char *tpl, const json_t *view, rk_error *err);

/* Appends s to out with & < > " ' as character references. */
void rk_tpl_escape(rk_buf *out, const char *s, size_t len);

/*
 * A string for a view, from bytes that may be anything (a key value of a
 * CSV side): valid UTF-8 passes as it is; control characters and bytes
 * that are no UTF-8 are shown as \xNN, so that the page stays valid text
 * and a stray escape sequence shows as what it is.  A new reference.
 */
json_t *rk_tpl_text(const char *s);

#endif
