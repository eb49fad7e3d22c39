/* gprof's -R map (read_function_mappings): lines "FILE:ANYTHING NAME", as `nm -A` prints them for
 * the object files of a link; lines "No symbols in ..." are skipped. gprof gives each file's first
 * function of a run of its lines the file's name and drops the others (symtab.c). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linkmap.h"
#include "prof.h"
#include "sorted.h"

/* By function name, in a stable sort (sorted.h): glibc's qsort, which gprof uses, is one. */
static int ent_cmp(const void *a, const void *b, void *arg)
{
	(void)arg;
	return strcmp(((const struct linkmap_ent *)a)->func, ((const struct linkmap_ent *)b)->func);
}

int linkmap_read(struct linkmap *m, const char *path, char *err, size_t errsz)
{
	int fd = gmon_open_regular(path, err, errsz);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0) {
			close(fd);
			snprintf(err, errsz, "cannot read");
		}
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) >= 0) {
		/* fscanf's "\n" after each line skips the blanks and empty lines that follow */
		char *s = line;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			continue;
		s[strcspn(s, "\n")] = '\0';
		size_t flen = strcspn(s, ":");
		if (strncmp(s, "No symbols in ", 14) == 0)
			continue;
		if (!s[flen]) {
			snprintf(err, errsz, "not a map: a line without ':' (FILE:... NAME)");
			free(line);
			fclose(f);
			return -1;
		}
		char *rest = s + flen, *name = strrchr(rest, ' ');
		name = name ? name + 1 : rest + 1;
		GROW(m->items, m->nr, m->alloc);
		struct linkmap_ent *e = &m->items[m->nr++];
		e->file = xmalloc(flen + 1);
		memcpy(e->file, s, flen);
		e->file[flen] = '\0';
		e->func = xstrdup(name);
		e->first = m->nr == 1 || strcmp(e->file, m->items[m->nr - 2].file) != 0;
	}
	free(line);
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		snprintf(err, errsz, "read error");
		return -1;
	}
	sort_stable(m->items, m->nr, sizeof(*m->items), ent_cmp, NULL);
	return 0;
}

const struct linkmap_ent *linkmap_find(const struct linkmap *m, const char *name)
{
	/* glibc's bsearch: the same entry among equal names as gprof's */
	size_t lo = 0, hi = m->nr;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, m->items[mid].func);
		if (c < 0)
			hi = mid;
		else if (c > 0)
			lo = mid + 1;
		else
			return &m->items[mid];
	}
	return NULL;
}

void linkmap_release(struct linkmap *m)
{
	for (size_t i = 0; i < m->nr; i++) {
		free(m->items[i].file);
		free(m->items[i].func);
	}
	free(m->items);
	memset(m, 0, sizeof(*m));
}
