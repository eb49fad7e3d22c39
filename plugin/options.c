/* Plugin options: the keys spyinstr accepts, their values, and the
 * include/exclude decision that follows from them. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "spy-abi.h"

static const char *const mode_names[] = {
	[SPY_MODE_COUNT] = "count",
	[SPY_MODE_ARCS] = "arcs",
	[SPY_MODE_TIME] = "time",
};

const char *spy_mode_name(int mode)
{
	if (mode < 0 || (size_t)mode >= sizeof(mode_names) / sizeof(mode_names[0]))
		return NULL;
	return mode_names[mode];
}

void spy_options_init(struct spy_options *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = SPY_MODE_TIME;
}

static void patterns_release(struct spy_patterns *p)
{
	for (size_t i = 0; i < p->nr; i++)
		free(p->items[i]);
	free(p->items);
	memset(p, 0, sizeof(*p));
}

void spy_options_release(struct spy_options *o)
{
	patterns_release(&o->exclude_function);
	patterns_release(&o->include_function);
	patterns_release(&o->exclude_file);
	for (size_t i = 0; i < o->nnodes; i++) {
		free(o->nodes[i].file);
		free(o->nodes[i].name);
	}
	free(o->nodes);
	o->nodes = NULL;
	o->nnodes = 0;
}

int spy_node_file_match(const char *want, const char *file)
{
	size_t w = strlen(want), f = strlen(file);

	return !strcmp(want, file) || (f > w && file[f - w - 1] == '/' && !strcmp(file + f - w, want));
}

/* A node's name, as the runtime takes it: no blank, comma, colon or '>'. */
static int node_name_ok(const char *s, size_t n)
{
	if (!n || n > 255)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == ',' || s[i] == ':' || s[i] == '>' || s[i] == 127)
			return 0;
	return 1;
}

/* node=FILE:LINE[=NAME],... */
static int nodes_parse(struct spy_options *o, const char *value, char *err, size_t errlen)
{
	if (!value || !*value) {
		snprintf(err, errlen, "option 'node' needs a value: node=FILE:LINE[=NAME][,...]");
		return -1;
	}
	for (const char *s = value;;) {
		size_t len = strcspn(s, ","), flen, nlen = 0;
		const char *eq = memchr(s, '=', len), *end = eq ? eq : s + len, *colon = NULL, *name = NULL;
		char *stop, namebuf[300], linebuf[16];
		unsigned long line;
		struct spy_node_opt *n;

		for (const char *c = s; c < end; c++)
			if (*c == ':')
				colon = c;
		if (!colon || colon == s || end - colon - 1 <= 0 ||
		    (size_t)(end - colon - 1) >= sizeof(linebuf))
			goto bad;
		memcpy(linebuf, colon + 1, (size_t)(end - colon - 1));
		linebuf[end - colon - 1] = 0;
		line = strtoul(linebuf, &stop, 10);
		if (*stop || !line || line > 0x7fffffff || linebuf[0] < '0' || linebuf[0] > '9')
			goto bad;
		flen = (size_t)(colon - s);
		if (eq) {
			name = eq + 1;
			nlen = len - (size_t)(eq + 1 - s);
			if (!node_name_ok(name, nlen)) {
				snprintf(
					err, errlen,
					"option 'node': the name in '%.*s' must be 1 to 255 characters without blanks, "
					"commas, colons or '>'",
					(int)len, s);
				return -1;
			}
		} else {
			const char *base = s;

			for (const char *c = s; c < colon; c++)
				if (*c == '/')
					base = c + 1;
			snprintf(namebuf, sizeof(namebuf), "%.*s@%lu", (int)(colon - base), base, line);
			if (!node_name_ok(namebuf, strlen(namebuf))) {
				snprintf(
					err, errlen,
					"option 'node': '%.*s' needs a name (FILE:LINE=NAME): '%s' is not one",
					(int)len, s, namebuf);
				return -1;
			}
			name = namebuf;
			nlen = strlen(namebuf);
		}
		n = realloc(o->nodes, (o->nnodes + 1) * sizeof(*o->nodes));
		if (!n) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		o->nodes = n;
		n = &o->nodes[o->nnodes];
		n->file = strndup(s, flen);
		n->name = strndup(name, nlen);
		n->line = (unsigned)line;
		n->placed = 0;
		if (!n->file || !n->name) {
			free(n->file);
			free(n->name);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		o->nnodes++;
		if (!s[len])
			return 0;
		s += len + 1;
		continue;
bad:
		snprintf(err, errlen,
			 "option 'node' has a bad item '%.*s' (want FILE:LINE or FILE:LINE=NAME)", (int)len,
			 s);
		return -1;
	}
}

static int patterns_add(struct spy_patterns *p, const char *s, size_t len)
{
	if (p->nr == p->alloc) {
		size_t alloc = p->alloc ? 2 * p->alloc : 8;
		char **items = realloc(p->items, alloc * sizeof(*items));
		if (!items)
			return -1;
		p->items = items;
		p->alloc = alloc;
	}
	p->items[p->nr] = strndup(s, len);
	if (!p->items[p->nr])
		return -1;
	p->nr++;
	return 0;
}

/* A comma-separated list; empty items are an error, since they are always a typo. */
static int patterns_parse(struct spy_patterns *p, const char *key, const char *value, char *err,
			  size_t errlen)
{
	if (!value || !*value) {
		snprintf(err, errlen, "option '%s' needs a value: %s=NAME[,NAME...]", key, key);
		return -1;
	}
	for (const char *s = value;;) {
		size_t len = strcspn(s, ",");
		if (len == 0) {
			snprintf(err, errlen, "option '%s' has an empty item in '%s'", key, value);
			return -1;
		}
		if (patterns_add(p, s, len) < 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

int spy_options_set(struct spy_options *o, const char *key, const char *value, char *err, size_t errlen)
{
	if (!strcmp(key, "mode")) {
		for (size_t m = 0; m < sizeof(mode_names) / sizeof(mode_names[0]); m++) {
			if (value && !strcmp(value, mode_names[m])) {
				o->mode = (int)m;
				return 0;
			}
		}
		snprintf(err, errlen, "option 'mode' has bad value '%s' (want count, arcs or time)",
			 value ? value : "");
		return -1;
	}
	if (!strcmp(key, "verbose")) {
		if (value && strcmp(value, "1") && strcmp(value, "0")) {
			snprintf(err, errlen, "option 'verbose' has bad value '%s' (want no value, 0 or 1)",
				 value);
			return -1;
		}
		o->verbose = !value || !strcmp(value, "1");
		return 0;
	}
	if (!strcmp(key, "exclude-function"))
		return patterns_parse(&o->exclude_function, key, value, err, errlen);
	if (!strcmp(key, "include-function"))
		return patterns_parse(&o->include_function, key, value, err, errlen);
	if (!strcmp(key, "exclude-file"))
		return patterns_parse(&o->exclude_file, key, value, err, errlen);
	if (!strcmp(key, "node"))
		return nodes_parse(o, value, err, errlen);
	snprintf(err, errlen,
		 "unknown option '%s' (known: mode, exclude-function, exclude-file, include-function, node, "
		 "verbose)",
		 key);
	return -1;
}

/* Match name, and name without a clone suffix, against shell patterns. */
static int patterns_match_name(const struct spy_patterns *p, const char *name)
{
	char base[512];
	const char *dot;

	if (!name)
		return 0;
	for (size_t i = 0; i < p->nr; i++)
		if (!fnmatch(p->items[i], name, 0))
			return 1;
	dot = strchr(name, '.');
	if (dot && dot != name && (size_t)(dot - name) < sizeof(base)) {
		memcpy(base, name, (size_t)(dot - name));
		base[dot - name] = '\0';
		for (size_t i = 0; i < p->nr; i++)
			if (!fnmatch(p->items[i], base, 0))
				return 1;
	}
	return 0;
}

int spy_options_want(const struct spy_options *o, const char *name, const char *asmname, const char *file)
{
	for (size_t i = 0; file && i < o->exclude_file.nr; i++)
		if (strstr(file, o->exclude_file.items[i]))
			return 0;
	if (patterns_match_name(&o->exclude_function, name) ||
	    patterns_match_name(&o->exclude_function, asmname))
		return 0;
	if (o->include_function.nr)
		return patterns_match_name(&o->include_function, name) ||
		       patterns_match_name(&o->include_function, asmname);
	return 1;
}
