/* What spinprof's outputs must be, whatever the profile (check-output.c): the fuzzers' oracle for the
 * escaping of names (common/esc.c) and for the writers' syntax. */
#ifndef SPY_CHECK_OUTPUT_H
#define SPY_CHECK_OUTPUT_H

#include <stddef.h>

enum fz_kind {
	FZ_TEXT, /* text (the report, --dump, callgrind, folded, dot): UTF-8, no control but \t \n \f */
	FZ_JSON, /* one JSON value, UTF-8, nothing after it */
	FZ_SVG,  /* XML: balanced tags, quoted attributes, entities only &amp; &lt; &gt; &quot; &apos; &#N; */
	FZ_HTML, /* spinprof's HTML: as XML, with void <meta>, <!DOCTYPE>, raw <script> and <style> */
	FZ_PPROF, /* gzipped profile.proto that unpacks, each string UTF-8 with no control */
};

/* The output file at path checked as kind; the XML kinds may hold at most scripts script elements
 * (spinprof's own; a name's markup would add one). On a breach: a line on stderr, abort(). */
void fz_check_file(const char *path, enum fz_kind kind, int scripts);

/* The same on a buffer: 0, or -1 and the reason in why. */
int fz_check(const char *buf, size_t n, enum fz_kind kind, int scripts, const char **why);

#endif
