/* gprof's source outputs of GNU mode: -A, the annotated source (each line where a function starts
 * marked with its calls, then the file's ten busiest lines and its execution summary), and -C, the
 * execution counts (one line a function), as gprof 2.40 prints them from a gmon.out without
 * basic-block records. They read the model only: each function's source file and line (src). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "esc.h"
#include "print-source.h"
#include "symspec.h"

struct src_line {
	uint64_t ncalls;
	uint32_t line;
	unsigned present : 1, is_func : 1;
};

struct src_file {
	const char *name;
	uint32_t order;  /* the first of its symbols in the ELF symbol table */
	uint32_t nlines; /* the largest line of its functions */
	uint64_t ncalls; /* all of its functions' calls */
	struct src_line *lines;
};

static int file_cmp(const void *a, const void *b)
{
	const struct src_file *x = a, *y = b;
	/* gprof puts each new file first on its list: the latest found is printed first */
	return x->order < y->order ? 1 : x->order > y->order ? -1 : 0;
}

/* The files of p's functions (with their first symbol's order), unsorted. */
static struct src_file *files_of(const struct prof *p, size_t *n)
{
	struct src_file *v = NULL;
	size_t nr = 0, alloc = 0;
	for (size_t i = 0; i < p->nsyms; i++) {
		const struct prof_func *s = &p->items[i];
		if (!s->src)
			continue;
		size_t k = 0;
		while (k < nr && strcmp(v[k].name, s->src) != 0)
			k++;
		if (k == nr) {
			GROW(v, nr, alloc);
			memset(&v[nr], 0, sizeof(v[nr]));
			v[nr].name = s->src;
			v[nr].order = s->src_order;
			nr++;
		}
		if (s->src_order < v[k].order)
			v[k].order = s->src_order;
		/* as gprof: only the functions -A/-J's symspecs take count (a file none is of is left out) */
		if (s->src_line > v[k].nlines && symspecs_in(p, s, SYMSPEC_INCL_ANNO, SYMSPEC_EXCL_ANNO))
			v[k].nlines = s->src_line;
	}
	*n = nr;
	return v;
}

/* A regular file only: a source named by the debug information might be a FIFO or a device. */
static FILE *open_regular(const char *path)
{
	char err[128];
	int fd = gmon_open_regular(path, err, sizeof(err));
	FILE *in = fd >= 0 ? fdopen(fd, "rb") : NULL;
	if (fd >= 0 && !in)
		close(fd);
	return in;
}

static FILE *open_in(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *path = xmalloc(n);
	snprintf(path, n, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", name);
	FILE *in = open_regular(path);
	free(path);
	return in;
}

/* Open the source as gprof does: its name, else along -I's directories a relative name as it is, then
 * any name's base name (gprof does not look for an absolute name's base name in the current
 * directory: nor does this). */
static FILE *open_source(const char *name, const char *const *dirs, size_t ndirs)
{
	FILE *in = open_regular(name);
	const char *base = strrchr(name, '/');
	for (int pass = name[0] == '/'; !in && pass < 2; pass++) {
		const char *want = pass ? (base ? base + 1 : NULL) : name;
		for (size_t d = 0; want && !in && d < ndirs; d++)
			in = open_in(dirs[d], want);
	}
	return in;
}

/* gprof's annotate_with_count for one line: 16 columns, "COUNT -> " where a function starts,
 * "##### -> " for none; the line counts as executable and executed there. */
#define ANNO_SIZE 48
static void annotation(char *buf, const struct src_file *sf, uint32_t line, const struct source_opts *o,
		       uint64_t *last, uint64_t *nexec, uint64_t *nexecuted)
{
	const int width = 16;
	const struct src_line *b = line <= sf->nlines ? &sf->lines[line - 1] : NULL;
	if (!b || !b->present) {
		snprintf(buf, ANNO_SIZE, "%*s", width, "");
		return;
	}
	++*nexec;
	char tmp[32];
	uint64_t n;
	if (b->is_func) {
		n = b->ncalls;
		*last = n;
	} else if (o->all_lines) {
		n = *last; /* -x: the count of the block the line is in */
	} else {
		snprintf(buf, ANNO_SIZE, "%*s", width, "");
		return;
	}
	++*nexecuted;
	if (n < (uint64_t)o->min_count) /* 0, or below -m's */
		snprintf(tmp, sizeof(tmp), "#####");
	else
		snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)n);
	snprintf(buf, ANNO_SIZE, "%*s -> ", width - 4, tmp);
}

static int busiest_cmp(const void *a, const void *b)
{
	const struct src_line *x = a, *y = b;
	if (x->present != y->present)
		return x->present ? -1 : 1;
	if (x->ncalls != y->ncalls)
		return x->ncalls > y->ncalls ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* One file: the source with its annotations, the busiest lines and the summary; 0, or -1 when the
 * source is not found (said on stderr, as gprof says it, and the other files still printed). */
static int annotate_file(FILE *f, struct src_file *sf, const struct source_opts *o, int *first,
			 int *first_file)
{
	FILE *in = open_source(sf->name, o->dirs, o->ndirs);
	if (!in) {
		esc_msg("spinprof: %s: could not locate the source\n", sf->name);
		return -1;
	}
	FILE *out = f;
	if (o->separate) {
		/* FILE-ann in the current directory, as gprof -y names it */
		const char *base = strrchr(sf->name, '/');
		base = base ? base + 1 : sf->name;
		size_t n = strlen(base) + 5;
		char *path = xmalloc(n);
		snprintf(path, n, "%s-ann", base);
		out = fopen(path, "w");
		if (!out) {
			esc_msg("spinprof: %s: cannot write: %s\n", path, strerror(errno));
			free(path);
			fclose(in);
			return -1;
		}
		free(path);
	} else {
		if (!*first_file)
			fputc('\n', out);
		*first_file = 0;
		if (!*first)
			fputs("\f\n", out);
		*first = 0;
		fprintf(out, "*** File %s:\n", esc_text(sf->name));
	}
	uint64_t last = 0, nexec = 0, nexecuted = 0;
	uint32_t line = 1;
	int new_line = 1, c;
	char buf[ANNO_SIZE];
	while ((c = getc(in)) != EOF) {
		if (new_line) {
			annotation(buf, sf, line++, o, &last, &nexec, &nexecuted);
			fputs(buf, out);
		}
		new_line = c == '\n';
		putc(c, out);
	}
	fclose(in);
	fprintf(out, "\n\nTop %d Lines:\n\n     Line      Count\n\n", o->table_len);
	qsort(sf->lines, sf->nlines, sizeof(*sf->lines), busiest_cmp);
	for (uint32_t i = 0; i < sf->nlines && i < (uint32_t)o->table_len; i++) {
		if (!sf->lines[i].present || sf->lines[i].ncalls == 0)
			break;
		fprintf(out, "%9u %10llu\n", sf->lines[i].line, (unsigned long long)sf->lines[i].ncalls);
	}
	fputs("\nExecution Summary:\n\n", out);
	fprintf(out, "%9llu   Executable lines in this file\n", (unsigned long long)nexec);
	fprintf(out, "%9llu   Lines executed\n", (unsigned long long)nexecuted);
	fprintf(out, "%9.2f   Percent of the file executed\n",
		nexec ? 100.0 * (double)nexecuted / (double)nexec : 100.0);
	fprintf(out, "\n%9llu   Total number of line executions\n", (unsigned long long)sf->ncalls);
	fprintf(out, "%9.2f   Average executions per line\n",
		nexec ? (double)sf->ncalls / (double)nexec : 0.0);
	if (out != f)
		fclose(out);
	return 0;
}

void print_source(FILE *f, const struct prof *p, const struct source_opts *o, int *first)
{
	size_t nf;
	struct src_file *files = files_of(p, &nf);
	for (size_t k = 0; k < nf; k++) {
		files[k].lines = xcalloc(files[k].nlines + 1, sizeof(struct src_line));
		for (uint32_t l = 0; l < files[k].nlines; l++)
			files[k].lines[l].line = l + 1;
	}
	/* each line's calls: its functions' (gprof's second and later "blocks" of a line add up) */
	for (size_t i = 0; i < p->nsyms; i++) {
		const struct prof_func *s = &p->items[i];
		if (!s->src || !s->src_line || !symspecs_in(p, s, SYMSPEC_INCL_ANNO, SYMSPEC_EXCL_ANNO))
			continue;
		size_t k = 0;
		while (strcmp(files[k].name, s->src) != 0)
			k++;
		struct src_line *b = &files[k].lines[s->src_line - 1];
		files[k].ncalls += s->ncalls;
		if (!b->present)
			b->is_func = s->is_func;
		b->present = 1;
		b->ncalls += s->ncalls;
	}
	if (nf) /* files is NULL when no function has a source (no -g) */
		qsort(files, nf, sizeof(*files), file_cmp);
	int first_file = 1;
	for (size_t k = 0; k < nf; k++) {
		if (files[k].nlines && (o->zeros || files[k].ncalls))
			annotate_file(f, &files[k], o, first, &first_file);
		free(files[k].lines);
	}
	free(files);
}

static int exec_cmp(const void *a, const void *b)
{
	const struct prof_func *x = *(const struct prof_func *const *)a,
			       *y = *(const struct prof_func *const *)b;
	if (x->src && y->src) {
		int c = strcmp(x->src, y->src);
		if (c)
			return c;
		if (x->src_line != y->src_line)
			return x->src_line < y->src_line ? -1 : 1;
	}
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void print_exec_counts(FILE *f, const struct prof *p, int zeros, int *first)
{
	if (!*first)
		fputs("\f\n", f);
	*first = 0;
	const struct prof_func **v = xmalloc((p->nsyms + 1) * sizeof(*v));
	for (size_t i = 0; i < p->nsyms; i++)
		v[i] = &p->items[i];
	qsort(v, p->nsyms, sizeof(*v), exec_cmp);
	for (size_t i = 0; i < p->nsyms; i++) {
		if ((v[i]->ncalls == 0 && !zeros) ||
		    !symspecs_in(p, v[i], SYMSPEC_INCL_EXEC, SYMSPEC_EXCL_EXEC))
			continue;
		/* a spy profile's addresses are the run's: the module's file address instead */
		uint64_t a = v[i]->addr;
		int mi = p->kind == PROF_SPY ? gmon_module_at(&p->spy, a) : -1;
		if (mi >= 0)
			a -= p->spy.modules[mi].base;
		fprintf(f, "%s:%u: (%s:0x%llx) %llu executions\n",
			v[i]->src ? esc_text(v[i]->src) : "<unknown>", v[i]->src_line,
			esc_text(prof_key(v[i])), (unsigned long long)a, (unsigned long long)v[i]->ncalls);
	}
	free(v);
}
