/* spinprof --format=html: one self-contained page (no network): the flame graph (out-svg.c's), a
 * flat profile sortable by any column, the call graph with a link for every caller and callee, and
 * the Spy tree (the Spy report's dominator tree of procedures, print-spy.c's) and the tree of call
 * paths of the stacks, both as folding lists. The page's script has a self-test hook for browser
 * tests: page.html#click=NAME clicks NAME's link in the flat profile, #zoom=NAME zooms the flame
 * graph on NAME, #search=REGEX searches it, #sort=COLUMN sorts the flat profile; each writes what it
 * then shows into <pre id="selftest">. */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "dom.h"
#include "esc.h"
#include "print-header.h"
#include "print-nodes.h"
#include "print-spy.h"
#include "out-svg.h"

/* A function's self and total ticks as the model has them: measured (spy time mode), or sampled or
 * propagated (gprof's). */
static double self_of(const struct prof *p, const struct prof_func *f)
{
	return p->measured ? f->m_self : f->time;
}

static double total_of(const struct prof *p, const struct prof_func *f)
{
	return p->measured ? f->m_incl : f->time + f->child_time;
}

static int listed(const struct prof *p, const struct prof_func *f, unsigned flags)
{
	return f->name && (flags & PRINT_ZEROS || f->ncalls || f->self_calls || self_of(p, f) > 0 ||
			   total_of(p, f) > 0 || f->nchild || f->nparent);
}

static void fn_link(FILE *f, const struct prof *p, uint32_t k)
{
	const struct prof_func *fn = &p->items[k];
	fprintf(f, "<a class=\"fn\" href=\"#cg-%u\" data-k=\"%u\">", k, k);
	if (fn->name)
		esc_put(f, fn->name, ESC_XML);
	else
		fprintf(f, "&lt;cycle %d as a whole&gt;", fn->cyc);
	fputs("</a>", f);
}

/* by self time, heaviest first, then by name: gprof's order (arg: the profile) */
static int self_cmp(const void *a, const void *b, void *arg)
{
	const struct prof *p = arg;
	const struct prof_func *x = &p->items[*(const uint32_t *)a], *y = &p->items[*(const uint32_t *)b];
	double sx = self_of(p, x), sy = self_of(p, y);
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return strcmp(prof_key(x), prof_key(y));
}

static void flat(FILE *f, const struct prof *p, unsigned flags)
{
	uint32_t *order = xmalloc((p->nsyms + 1) * sizeof(uint32_t));
	size_t n = 0;
	for (uint32_t k = 0; k < p->nsyms; k++)
		if (listed(p, &p->items[k], flags))
			order[n++] = k;
	qsort_r(order, n, sizeof(uint32_t), self_cmp, (void *)p);
	double hz = p->hz > 0 ? p->hz : 1, all = p->total_time > 0 ? p->total_time : 0;
	fputs("<h2 id=\"flat\">Flat profile</h2>\n"
	      "<p>Click a column's heading to sort by it (again: the other way); a name to see its "
	      "callers and callees.</p>\n"
	      "<table id=\"flat-table\" class=\"sortable\">\n<thead><tr>"
	      "<th data-col=\"pct\" data-num=\"1\">% time</th>"
	      "<th data-col=\"self\" data-num=\"1\">self s</th>"
	      "<th data-col=\"total\" data-num=\"1\">total s</th>"
	      "<th data-col=\"calls\" data-num=\"1\">calls</th>"
	      "<th data-col=\"name\">name</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		uint32_t k = order[i];
		const struct prof_func *fn = &p->items[k];
		double self = self_of(p, fn), total = total_of(p, fn);
		fprintf(f,
			"<tr><td data-v=\"%.17g\">%.2f</td><td data-v=\"%.17g\">%.6f</td>"
			"<td data-v=\"%.17g\">%.6f</td><td data-v=\"%llu\">%llu</td><td>",
			all > 0 ? 100 * self / all : 0, all > 0 ? 100 * self / all : 0, self / hz, self / hz,
			total / hz, total / hz, (unsigned long long)fn->ncalls,
			(unsigned long long)fn->ncalls);
		fn_link(f, p, k);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	free(order);
}

static void arcs_list(FILE *f, const struct prof *p, const struct prof_func *fn, int parents)
{
	uint32_t n = parents ? fn->nparent : fn->nchild;
	fprintf(f, "<div class=\"%s\"><b>%s</b>", parents ? "callers" : "callees",
		parents ? "called by" : "calls");
	if (!n)
		fputs(" <i>nothing</i>", f);
	fputs("<ul>\n", f);
	for (uint32_t j = 0; j < n; j++) {
		const struct prof_arc *a =
			&p->arcs[parents ? p->parent_arcs[fn->parent0 + j] : p->child_arcs[fn->child0 + j]];
		uint32_t other = parents ? a->parent : a->child;
		fputs("<li>", f);
		fn_link(f, p, other);
		fprintf(f, " <span class=\"n\">%llu</span> call%s</li>\n", (unsigned long long)a->count,
			a->count == 1 ? "" : "s");
	}
	fputs("</ul></div>\n", f);
}

static void graph(FILE *f, const struct prof *p, unsigned flags)
{
	fputs("<h2 id=\"graph\">Call graph</h2>\n<p>Each function with its callers and callees and "
	      "the calls between them; the links lead from one to the other.</p>\n<div id=\"shown\"></div>\n",
	      f);
	for (uint32_t k = 0; k < p->nsyms; k++) {
		const struct prof_func *fn = &p->items[k];
		if (!listed(p, fn, flags))
			continue;
		fprintf(f, "<div class=\"cg\" id=\"cg-%u\" data-name=\"", k);
		esc_put(f, fn->name, ESC_XML);
		fputs("\"><h3>", f);
		esc_put(f, fn->name, ESC_XML);
		fprintf(f, "</h3><p>%llu call%s", (unsigned long long)fn->ncalls, fn->ncalls == 1 ? "" : "s");
		if (fn->self_calls)
			fprintf(f, " and %llu from itself", (unsigned long long)fn->self_calls);
		if (fn->cyc)
			fprintf(f, "; on cycle %d", fn->cyc);
		if (fn->file) {
			fputs("; ", f);
			esc_put(f, fn->file, ESC_XML);
			fprintf(f, ":%u", fn->line);
		}
		fputs("</p>\n", f);
		arcs_list(f, p, fn, 1);
		arcs_list(f, p, fn, 0);
		fputs("</div>\n", f);
	}
}

/* Buttons that unfold or fold every list of the tree with that id. */
#define UNFOLD(id)                                                                           \
	"<button class=\"unfold\" data-tree=\"" id "\" data-open=\"1\">Unfold all</button> " \
	"<button class=\"unfold\" data-tree=\"" id "\" data-open=\"0\">Fold all</button>"

/* The Spy tree: print-spy.c's rows of the dominator tree, as nested folding lists. */
static void spy_tree(FILE *f, const struct fold *fo, const struct out_opts *o)
{
	const struct sp_model *m = &fo->m;
	struct dom_row *rows;
	size_t nrows = spy_tree_rows(m, o->cutoff, &rows);
	double grand = m->grand > 0 ? m->grand : 1;
	uint32_t open = 0;
	fprintf(f,
		"<h2 id=\"tree\">Spy tree</h2>\n<p>The Spy report's breakdown of procedures: each "
		"once, under its immediate dominator (the deepest procedure every call to it goes "
		"through); <i>Name (N refs) = SELF, CALLEES (SELF%%) (TOTAL%%)</i> in %s, * where SELF is "
		"1 %% or more, ~ where its parent does not call it directly; what weighs less than %g %% is left out. " UNFOLD(
			"spytree") "</p>\n<div id=\"spytree\">\n",
		m->unit, o->cutoff);
	for (size_t r = 0; r < nrows; r++) {
		const struct dom_row *row = &rows[r];
		const struct sp_proc *pr = &m->procs[row->node - 1];
		for (; open > row->depth; open--)
			fputs("</details>\n", f);
		int kids = r + 1 < nrows && rows[r + 1].depth > row->depth;
		double callees = pr->total > pr->self ? pr->total - pr->self : 0;
		fprintf(f, kids ? "<details%s" : "<div class=\"leaf\"",
			kids && row->depth < 2 ? " open" : "");
		fprintf(f, " data-depth=\"%u\" data-self=\"%.17g\" data-total=\"%.17g\" data-name=\"",
			row->depth, pr->self, pr->total);
		esc_put(f, pr->name, ESC_XML);
		fputs(kids ? "\"><summary>" : "\">", f);
		if (100 * pr->self / grand >= 1)
			fputs("*", f); /* heavy, as the report marks it */
		if (row->indirect)
			fputs("~", f);
		esc_put(f, pr->name, ESC_XML);
		fprintf(f, " (%u ref%s) = %.0f, %.0f", pr->refs, pr->refs == 1 ? "" : "s", pr->self, callees);
		if (100 * pr->self / grand >= 1)
			fprintf(f, " (%.1f%%)", 100 * pr->self / grand);
		fprintf(f, " (%.1f%%)", 100 * pr->total / grand);
		if (kids) {
			fputs("</summary>\n", f);
			open++;
		} else {
			fputs("</div>\n", f);
		}
	}
	for (; open > 0; open--)
		fputs("</details>\n", f);
	fputs("</div>\n", f);
	free(rows);
}

/* The call paths: the flame graph's boxes as nested folding lists, those under the cutoff left out. */
static void paths(FILE *f, const struct fold *fo, const struct out_opts *o)
{
	size_t nb;
	uint32_t maxd;
	struct box *bx = svg_layout(fo, &nb, &maxd);
	double cut = o->cutoff > 0 ? o->cutoff / 100 * fo->total : 0;
	size_t hidden = 0;
	uint32_t open = 0; /* open <details>, one per depth */
	fprintf(f,
		"<h2 id=\"paths\">Call paths</h2>\n<p>The stacks as a tree, in %s; what weighs less "
		"than %g %% of all is left out. " UNFOLD("pathtree") "</p>\n<div id=\"pathtree\">\n",
		fo->unit, o->cutoff);
	for (size_t k = 0; k < nb; k++) {
		const struct box *b = &bx[k];
		for (; open > b->depth; open--)
			fputs("</details>\n", f);
		if (b->depth > open || (k && b->w < cut)) {
			hidden++;
			continue;
		}
		fprintf(f, "<details%s data-name=\"", b->depth < 3 ? " open" : "");
		esc_put(f, b->name, ESC_XML);
		fputs("\"><summary>", f);
		esc_put(f, b->name, ESC_XML);
		fputs(" <span class=\"n\">", f);
		fold_print_w(f, b->w);
		fprintf(f, "</span> (%.2f%%)</summary>\n", fo->total > 0 ? 100 * b->w / fo->total : 0.0);
		open++;
	}
	for (; open > 0; open--)
		fputs("</details>\n", f);
	fprintf(f, "</div>\n<p>%zu frame%s under the cutoff not shown.</p>\n", hidden,
		hidden == 1 ? "" : "s");
	free(bx);
}

static const char page_script[] =
	"(function () {\n"
	"\tvar shown = document.getElementById('shown');\n"
	"\tfunction show(k) {\n"
	"\t\tvar e = document.getElementById('cg-' + k);\n"
	"\t\tif (!e) return null;\n"
	"\t\tvar old = document.querySelectorAll('.cg.selected');\n"
	"\t\tfor (var i = 0; i < old.length; i++) old[i].classList.remove('selected');\n"
	"\t\te.classList.add('selected');\n"
	"\t\tvar lines = ['shown ' + e.getAttribute('data-name')];\n"
	"\t\t['callers', 'callees'].forEach(function (c) {\n"
	"\t\t\tvar li = e.querySelectorAll('.' + c + ' li');\n"
	"\t\t\tfor (var i = 0; i < li.length; i++)\n"
	"\t\t\t\tlines.push(c.slice(0, -1) + ' ' + li[i].querySelector('a').textContent + ' ' +\n"
	"\t\t\t\t\t   li[i].querySelector('.n').textContent);\n"
	"\t\t});\n"
	"\t\tshown.textContent = 'Selected: ' + e.getAttribute('data-name');\n"
	"\t\treturn lines.join('\\n');\n"
	"\t}\n"
	"\tvar last = '';\n"
	"\tvar links = document.querySelectorAll('a.fn');\n"
	"\tfor (var i = 0; i < links.length; i++)\n"
	"\t\tlinks[i].addEventListener('click', function () { last = show(this.getAttribute('data-k')); });\n"
	"\t/* the flat profile sorts on a heading's click */\n"
	"\tvar table = document.getElementById('flat-table');\n"
	"\tvar heads = table.querySelectorAll('th');\n"
	"\tfunction sortBy(col) {\n"
	"\t\tvar h = table.querySelector('th[data-col=\"' + col + '\"]');\n"
	"\t\tif (!h) return null;\n"
	"\t\tvar idx = Array.prototype.indexOf.call(heads, h), isnum = h.hasAttribute('data-num');\n"
	"\t\tvar dir = h.getAttribute('data-dir') === 'down' ? 1 : -1;\n"
	"\t\tif (!isnum) dir = -dir;\n"
	"\t\tfor (var i = 0; i < heads.length; i++) heads[i].removeAttribute('data-dir');\n"
	"\t\th.setAttribute('data-dir', dir < 0 ? 'down' : 'up');\n"
	"\t\tvar body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);\n"
	"\t\trows.sort(function (a, b) {\n"
	"\t\t\tvar x = a.cells[idx], y = b.cells[idx];\n"
	"\t\t\tif (isnum) return dir * (parseFloat(x.getAttribute('data-v')) - parseFloat(y.getAttribute('data-v')));\n"
	"\t\t\treturn dir * (x.textContent < y.textContent ? -1 : x.textContent > y.textContent ? 1 : 0);\n"
	"\t\t});\n"
	"\t\trows.forEach(function (r) { body.appendChild(r); });\n"
	"\t\treturn rows.map(function (r) { return r.cells[heads.length - 1].textContent; });\n"
	"\t}\n"
	"\tfor (var j = 0; j < heads.length; j++)\n"
	"\t\theads[j].addEventListener('click', function () { sortBy(this.getAttribute('data-col')); });\n"
	"\t/* Unfold all, Fold all */\n"
	"\tvar ub = document.querySelectorAll('button.unfold');\n"
	"\tfor (var b = 0; b < ub.length; b++)\n"
	"\t\tub[b].addEventListener('click', function () {\n"
	"\t\t\tvar d = document.querySelectorAll('#' + this.getAttribute('data-tree') + ' details');\n"
	"\t\t\tfor (var i = 0; i < d.length; i++) d[i].open = this.getAttribute('data-open') === '1';\n"
	"\t\t});\n"
	"\t/* the self-test hook: #click=NAME, #zoom=NAME, #search=REGEX, #sort=COLUMN, joined by & */\n"
	"\tvar out = [];\n"
	"\tlocation.hash.replace(/^#/, '').split('&').forEach(function (kv) {\n"
	"\t\tvar at = kv.indexOf('='), k = kv.slice(0, at), v = decodeURIComponent(kv.slice(at + 1));\n"
	"\t\tif (at < 0) return;\n"
	"\t\tif (k === 'click') {\n"
	"\t\t\tvar a = null, fl = document.querySelectorAll('#flat-table a.fn');\n"
	"\t\t\tfor (var i = 0; i < fl.length; i++) if (fl[i].textContent === v) a = fl[i];\n"
	"\t\t\tif (!a) { out.push('no link ' + v); return; }\n"
	"\t\t\ta.click();\n"
	"\t\t\tout.push(last);\n"
	"\t\t} else if (k === 'zoom' && window.fg) {\n"
	"\t\t\tvar z = fg.zoomTo(v);\n"
	"\t\t\tif (!z) { out.push('no frame ' + v); return; }\n"
	"\t\t\tfor (var i = 0; i < fg.frames.length; i++) {\n"
	"\t\t\t\tvar e = fg.frames[i], r = e.getElementsByTagName('rect')[0];\n"
	"\t\t\t\tif (e.style.display !== 'none')\n"
	"\t\t\t\t\tout.push('frame ' + e.getAttribute('data-d') + ' ' + e.getAttribute('data-name') + ' ' +\n"
	"\t\t\t\t\t\t r.getAttribute('x') + ' ' + r.getAttribute('width'));\n"
	"\t\t\t}\n"
	"\t\t} else if (k === 'search' && window.fg) {\n"
	"\t\t\tfg.search(v);\n"
	"\t\t\tout.push(document.getElementById('fg-matched').textContent);\n"
	"\t\t} else if (k === 'sort') {\n"
	"\t\t\tvar names = sortBy(v);\n"
	"\t\t\tout.push(names ? 'sorted ' + v + ': ' + names.join(' ') : 'no column ' + v);\n"
	"\t\t}\n"
	"\t});\n"
	"\tif (out.length) {\n"
	"\t\tvar pre = document.createElement('pre');\n"
	"\t\tpre.id = 'selftest';\n"
	"\t\tpre.textContent = out.join('\\n');\n"
	"\t\tdocument.body.appendChild(pre);\n"
	"\t}\n"
	"})();\n";

/* Mesa's nodes and legs, as the text report prints them (print-nodes.c), when the profile has any. */
static void nodes(FILE *f, const struct prof *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	if (p->kind != PROF_SPY || !p->spy.nnodesets || !(m = open_memstream(&text, &len)))
		return;
	print_nodes(m, p, 1);
	fclose(m);
	fputs("<h2 id=\"nodes\">Nodes and legs</h2>\n<pre>", f);
	/* the text report's sections start with a form feed and a blank line; lines stay lines */
	for (const char *c = text + strspn(text, "\f\n"); *c; c++) {
		if (*c == '\n')
			fputc('\n', f);
		else if (*c != '\f')
			fputs(*c == '&' ? "&amp;" :
			      *c == '<' ? "&lt;" :
			      *c == '>' ? "&gt;" :
					  (char[]){ *c, 0 },
			      f);
	}
	fputs("</pre>\n", f);
	free(text);
}

int out_html(FILE *f, const struct prof *p, const struct out_opts *o)
{
	struct fold fo;
	const char *why = NULL;
	int stacks = fold_build(&fo, p, o, &why) == 0;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
	esc_put(f, o->what, ESC_XML);
	fputs(" — spinprof</title>\n<style>\n"
	      "body { font-family: sans-serif; margin: 1em 2em; }\n"
	      "nav a { margin-right: 1em; }\n"
	      "table.sortable th { cursor: pointer; background: #ddd; padding: 2px 8px; }\n"
	      "table.sortable td { padding: 1px 8px; text-align: right; }\n"
	      "table.sortable td:last-child { text-align: left; }\n"
	      "th[data-dir=down]::after { content: ' \\25BC'; } th[data-dir=up]::after { content: ' \\25B2'; }\n"
	      ".cg { border: 1px solid #ccc; margin: 4px 0; padding: 2px 8px; }\n"
	      ".cg h3 { margin: 2px 0; font-size: 1em; }\n"
	      ".cg.selected { border-color: #c00; background: #fee; }\n"
	      ".cg ul { margin: 0; }\n"
	      "#shown { position: sticky; top: 0; background: #ffd; }\n"
	      "#spytree details, #spytree .leaf, #pathtree details { margin-left: 1.2em; }\n"
	      "#spytree .leaf { margin-left: 2.4em; }\n"
	      "svg { max-width: 100%; height: auto; }\n"
	      "</style>\n</head>\n<body>\n<h1>",
	      f);
	esc_put(f, o->what, ESC_XML);
	fputs("</h1>\n", f);
	if (p->kind == PROF_SPY) { /* the header's statement of the profiler's share */
		char *line = NULL;
		size_t len = 0;
		FILE *mf = open_memstream(&line, &len);
		if (mf) {
			print_profiler(mf, p);
			fclose(mf);
			if (len && line[len - 1] == '\n')
				line[--len] = 0;
			fputs("<p id=\"profiler\">", f);
			esc_put(f, line, ESC_XML);
			fputs("</p>\n", f);
		}
		free(line);
	}
	fputs("<nav><a href=\"#flame\">Flame graph</a><a href=\"#flat\">Flat profile</a>"
	      "<a href=\"#graph\">Call graph</a><a href=\"#tree\">Spy tree</a><a href=\"#paths\">Call paths</a></nav>\n"
	      "<h2 id=\"flame\">Flame graph</h2>\n",
	      f);
	if (stacks) {
		fputs("<p>Click a frame to zoom on it, <i>Reset Zoom</i> to go back, <i>Search</i> to "
		      "highlight the frames that match.</p>\n",
		      f);
		svg_flame(f, &fo, "Flame graph", SVG_INLINE);
	} else {
		fputs("<p>No flame graph: ", f);
		esc_put(f, why, ESC_XML);
		fputs(".</p>\n", f);
	}
	flat(f, p, o->flags);
	graph(f, p, o->flags);
	if (stacks) {
		spy_tree(f, &fo, o);
		paths(f, &fo, o);
		fold_release(&fo);
	} else {
		fputs("<h2 id=\"tree\">Spy tree</h2>\n<p>No samples nor measured times.</p>\n"
		      "<h2 id=\"paths\">Call paths</h2>\n<p>No stacks.</p>\n",
		      f);
	}
	nodes(f, p);
	fputs("<script>\n", f);
	fputs(page_script, f);
	fputs("</script>\n</body>\n</html>\n", f);
	return 0;
}
