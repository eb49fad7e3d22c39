/* gprof's @FILE (libiberty's expandargv): an operand "@FILE" naming a readable file is replaced by
 * the arguments FILE holds, split at blanks, with '...' and "..." quoting and \ escaping the next
 * character; they may hold @FILEs in turn. "@FILE" naming nothing readable stays as it is. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "argfile.h"
#include "prof.h"

#define ARGFILE_MAX 2000 /* expansions in all: a file that names itself ends, as libiberty's */

/* Split s into arguments appended to *v (*n of them, room *cap). */
static void split_args(const char *s, char ***v, size_t *n, size_t *cap)
{
	size_t len = strlen(s);
	char *buf = xmalloc(len + 1);
	while (*s) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f' || *s == '\v')
			s++;
		if (!*s)
			break;
		size_t k = 0;
		char quote = 0;
		for (; *s; s++) {
			if (!quote &&
			    (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f' || *s == '\v'))
				break;
			if (*s == '\\' && s[1]) {
				buf[k++] = *++s;
			} else if (quote) {
				if (*s == quote)
					quote = 0;
				else
					buf[k++] = *s;
			} else if (*s == '\'' || *s == '"') {
				quote = *s;
			} else {
				buf[k++] = *s;
			}
		}
		buf[k] = '\0';
		GROW(*v, *n, *cap);
		(*v)[(*n)++] = xstrdup(buf);
	}
	free(buf);
}

/* FILE's contents as a string, or NULL when it cannot be read (or is a directory). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) < 0 || S_ISDIR(st.st_mode)) {
		fclose(f);
		return NULL;
	}
	size_t len = 0, cap = 4096;
	char *s = xmalloc(cap);
	size_t r;
	while ((r = fread(s + len, 1, cap - len - 1, f)) > 0) {
		len += r;
		if (cap - len < 2)
			s = xrealloc(s, cap *= 2);
	}
	s[len] = '\0';
	fclose(f);
	return s;
}

/* The expanded arguments: kept from a static pointer, so that they live until exit */
static char **expanded;

void argfile_expand(int *argc, char ***argv)
{
	int any = 0;
	for (int i = 1; i < *argc; i++)
		any |= (*argv)[i][0] == '@';
	if (!any)
		return;
	size_t n = 0, cap = 0;
	char **v = NULL;
	for (int i = 0; i < *argc; i++) {
		GROW(v, n, cap);
		v[n++] = xstrdup((*argv)[i]);
	}
	int expansions = 0;
	for (size_t i = 1; i < n && expansions < ARGFILE_MAX;) {
		char *text = v[i][0] == '@' ? slurp(v[i] + 1) : NULL;
		if (!text) {
			i++;
			continue;
		}
		expansions++;
		char **ins = NULL;
		size_t nins = 0, capins = 0;
		split_args(text, &ins, &nins, &capins);
		free(text);
		free(v[i]);
		/* v[i] becomes ins[0 .. nins), looked at again from i */
		if (n + nins + 1 > cap) {
			cap = n + nins + 1;
			v = xrealloc(v, cap * sizeof(*v));
		}
		memmove(v + i + nins, v + i + 1, (n - i - 1) * sizeof(*v));
		if (nins)
			memcpy(v + i, ins, nins * sizeof(*v));
		n = n - 1 + nins;
		free(ins);
	}
	GROW(v, n, cap);
	v[n] = NULL;
	free(expanded);
	expanded = v;
	*argc = (int)n;
	*argv = v;
}
