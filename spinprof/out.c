/* The table of output formats. A new format is one file, out-NAME.c, and one line here. */
#include <string.h>

#include "out.h"

const struct out_format out_formats[] = {
	{ "callgrind", out_callgrind, "valgrind's callgrind format (KCachegrind, callgrind_annotate)" },
	{ "dot", out_dot, "the call graph for graphviz' dot, pruned at --cutoff (default 0.5 %)" },
	{ "json", out_json, "the whole analysed model as JSON (docs/spinprof-json.md)" },
	{ "pprof", out_pprof, "pprof's profile.proto, gzipped (go tool pprof, Pyroscope, Parca)" },
	{ "chrome", out_chrome, "Chrome trace event JSON (Perfetto, chrome://tracing, speedscope)" },
	{ "folded", out_folded, "one line per distinct stack, root;...;leaf WEIGHT (flame graph tools)" },
	{ "svg", out_svg, "a flame graph, self-contained SVG: search, zoom on click, tooltips" },
	{ "icicle", out_icicle, "the flame graph upside down: roots at the top" },
	{ "html", out_html, "one self-contained page: flame graph, flat profile, call graph, tree" },
	{ NULL, NULL, NULL },
};

const struct out_format *out_find(const char *name)
{
	for (const struct out_format *fm = out_formats; fm->name; fm++)
		if (!strcmp(fm->name, name))
			return fm;
	return NULL;
}

int out_has_times(const struct prof *p)
{
	return p->measured || p->sampled || p->kind == PROF_GNU;
}

const char *out_unit(const struct prof *p)
{
	return p->measured ? "cycles" : out_has_times(p) ? "ticks" : "calls";
}
