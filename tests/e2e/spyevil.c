/* spyevil IN OUT: the spy profile IN, a real one, written to OUT with every string it holds made
 * hostile (t292): function, file, module and thread names, argv, the tool, the runtime's error, the
 * sampling's target and triggers, the counters' and the nodes' names. Each carries one of the strings
 * below (markup, quotes, terminal escape sequences, newlines, tabs, broken UTF-8, C1 controls, the
 * separators of folded stacks and dot labels) and stays unique (an index after it). The module paths
 * name no file, so spinprof uses the names the profile recorded and says so. Built with
 * common/gmon-io.c; prints nothing and exits 0, or one line and 1. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmon-format.h"

static const char *const evil[] = {
	"<script>alert(1)</script>",
	"\x1b]0;PWNED-TITLE\x07",
	"\x1b[2J\x1b[Hclear",
	"new\nline\tand\ttab\rcr",
	"bad\xff\xfeutf8\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80",
	"c1\xc2\x9b"
	"31mred\x9b"
	"0m\x85",
	"semi;colon \"quote' &lt; &bogus; &#60; \\N back\\slash",
	"<img src=x onerror=alert(2)>",
	"bell\x07\x08\x7f\x1b"
	"c",
	"\xef\xbf\xbe\xef\xbf\xbf<!-- -->]]>",
};
#define NEVIL (sizeof(evil) / sizeof(evil[0]))

/* A new string: evil[k % NEVIL], then "_" and k. */
static char *bad(unsigned k)
{
	size_t n = strlen(evil[k % NEVIL]) + 16;
	char *s = malloc(n);

	if (!s) {
		fputs("spyevil: out of memory\n", stderr);
		exit(1);
	}
	snprintf(s, n, "%s_%u", evil[k % NEVIL], k);
	return s;
}

static void swap(char **s, unsigned k)
{
	free(*s);
	*s = bad(k);
}

int main(int argc, char **argv)
{
	struct gmon_profile p;
	char err[256] = "out of memory";
	uint8_t *buf;
	size_t len;
	unsigned k = 0;

	if (argc != 3) {
		fputs("usage: spyevil IN OUT\n", stderr);
		return 1;
	}
	if (gmon_read_file(argv[1], &p, err, sizeof(err))) {
		fprintf(stderr, "spyevil: %s: %s\n", argv[1], err);
		return 1;
	}
	swap(&p.hdr.tool, k++);
	swap(&p.hdr.error, k++);
	for (uint32_t i = 0; i < p.hdr.argc; i++)
		swap(&p.hdr.argv[i], k++);
	/* the module paths: a directory that is not there, then a hostile base name */
	for (uint32_t i = 0; i < p.nmodules; i++) {
		char *b = bad(k++), *path = malloc(strlen(b) + 32);

		if (!path)
			return 1;
		sprintf(path, "/nonexistent/spyevil/%s", b);
		for (char *c = path + 21; *c; c++) /* no '/' in the base name */
			*c = *c == '/' ? '|' : *c;
		free(b);
		free(p.modules[i].path);
		p.modules[i].path = path;
		p.modules[i].build_id_len = 0;
	}
	for (uint32_t s = 0; s < p.nfuncsets; s++)
		for (uint32_t i = 0; i < p.funcsets[s].nr; i++) {
			swap(&p.funcsets[s].funcs[i].name, k++);
			swap(&p.funcsets[s].funcs[i].file, k++);
			if (!p.funcsets[s].funcs[i].line)
				p.funcsets[s].funcs[i].line = 7;
		}
	for (uint32_t t = 0; t < p.nthreads; t++) {
		swap(&p.threads[t].name, k++);
		for (uint32_t c = 0; c < p.threads[t].nctrs; c++)
			swap(&p.threads[t].ctr_names[c], k++);
	}
	if (p.sampling) {
		swap(&p.sampling->start, k++);
		swap(&p.sampling->stop, k++);
		if (p.sampling->watch == GMON_WATCH_CALLS)
			swap(&p.sampling->target, k++);
	}
	for (uint32_t n = 0; n < p.nnodesets; n++)
		for (uint32_t i = 0; i < p.nodesets[n].nnodes; i++) {
			/* the same node in every thread's record: its name by its index */
			swap(&p.nodesets[n].nodes[i].name, 1000 + i);
			swap(&p.nodesets[n].nodes[i].file, 2000 + i);
		}
	if (gmon_encode(&p, 0, &buf, &len) < 0 || gmon_write_file(argv[2], buf, len, err, sizeof(err)) < 0) {
		fprintf(stderr, "spyevil: %s: %s\n", argv[2], err);
		return 1;
	}
	free(buf);
	gmon_profile_release(&p);
	return 0;
}
