/* The table of output formats. A new format is one file, out-NAME.c, and one line here. */
#include <string.h>

#include "out.h"

const struct out_format out_formats[] = {
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
