/* The table of output formats. A new format is one file, out-NAME.c, and one line here. */
#include <string.h>

#include "out.h"

const struct out_format out_formats[] = {
	{ "pprof", out_pprof, "pprof's profile.proto, gzipped (go tool pprof, Pyroscope, Parca)" },
	{ "chrome", out_chrome, "Chrome trace event JSON (Perfetto, chrome://tracing, speedscope)" },
	{ NULL, NULL, NULL },
};

const struct out_format *out_find(const char *name)
{
	for (const struct out_format *fm = out_formats; fm->name; fm++)
		if (!strcmp(fm->name, name))
			return fm;
	return NULL;
}
