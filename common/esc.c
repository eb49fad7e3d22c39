/* Escaping strings from profiles and the command line for each output's syntax (esc.h): one place,
 * so that no output can forget a case. The text form is --dump's (\xNN for what cannot be shown),
 * extended to broken UTF-8 and to the C1 controls, which a terminal may obey. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong form, no surrogate,
 * nothing past U+10FFFF), 0 when s does not start one. Reads no byte past a NUL. */
static int utf8_len(const unsigned char *s)
{
	unsigned c = s[0], lo = 0x80, hi = 0xbf;
	int n;

	if (c < 0x80)
		return 1;
	if (c < 0xc2)
		return 0;
	if (c < 0xe0) {
		n = 2;
	} else if (c < 0xf0) {
		n = 3;
		lo = c == 0xe0 ? 0xa0 : lo;
		hi = c == 0xed ? 0x9f : hi;
	} else if (c < 0xf5) {
		n = 4;
		lo = c == 0xf0 ? 0x90 : lo;
		hi = c == 0xf4 ? 0x8f : hi;
	} else {
		return 0;
	}
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* In the text form: how many bytes at s are written as they are (a character), or 0 when the byte
 * at s is written as \xNN. */
static int text_keep(const unsigned char *s, enum esc_syntax syn)
{
	unsigned c = s[0];
	int n;

	if (c < 0x80)
		return c < 0x20 || c == 0x7f || c == '\\' || (c == ' ' && syn == ESC_WORD) ? 0 : 1;
	n = utf8_len(s);
	if (n == 2 && c == 0xc2 && s[1] < 0xa0)
		return 0; /* U+0080..U+009F: C1 controls (0x9b is CSI) */
	if (n == 3 && c == 0xef && s[1] == 0xbf && s[2] >= 0xbe)
		return 0; /* U+FFFE, U+FFFF: not characters, not in XML */
	return n;
}

/* In a JSON string: how many bytes at s are written as they are, or 0 for \u00XX. */
static int json_keep(const unsigned char *s)
{
	return s[0] < 0x20 || s[0] == 0x7f ? 0 : utf8_len(s);
}

/* dot reads "&NAME;", "&#N;" and "&#xN;" in a label as entities, and writes such an "&" unchanged
 * into SVG (where an unknown one is not XML): is the "&" at s the start of one? */
static int dot_entity(const unsigned char *s)
{
	const unsigned char *c = s + 1;

	if (*c == '#') {
		c++;
		if (*c == 'x' || *c == 'X')
			c++;
	}
	const unsigned char *start = c;
	while ((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z'))
		c++;
	return c > start && *c == ';';
}

/* What syntax syn writes for the byte at s instead of it, or NULL. */
static const char *special(const unsigned char *s, enum esc_syntax syn)
{
	switch (syn) {
	case ESC_FOLDED:
		return *s == ';' ? ":" : NULL;
	case ESC_XML:
		return *s == '&'  ? "&amp;" :
		       *s == '<'  ? "&lt;" :
		       *s == '>'  ? "&gt;" :
		       *s == '"'  ? "&quot;" :
		       *s == '\'' ? "&apos;" :
				    NULL;
	case ESC_DOT:
		return *s == '"' ? "\\\"" : *s == '&' && dot_entity(s) ? "&amp;" : NULL;
	case ESC_JSON:
		return *s == '"' ? "\\\"" : *s == '\\' ? "\\\\" : NULL;
	default:
		return NULL;
	}
}

void esc_put(FILE *f, const char *str, enum esc_syntax syn)
{
	const unsigned char *s = (const unsigned char *)str, *run = s;

	while (*s) {
		const char *rep = special(s, syn);
		int n = rep ? 0 : syn == ESC_JSON ? json_keep(s) : text_keep(s, syn);

		if (n) {
			s += n;
			continue;
		}
		fwrite(run, 1, (size_t)(s - run), f);
		if (rep)
			fputs(rep, f);
		else
			fprintf(f,
				syn == ESC_JSON ? "\\u%04x" :
				syn == ESC_DOT  ? "\\\\x%02x" :
						  "\\x%02x",
				*s);
		run = ++s;
	}
	fwrite(run, 1, (size_t)(s - run), f);
}

size_t esc_clean(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	while (*s && (n = text_keep(s, ESC_TEXT)))
		s += n;
	return (size_t)(s - (const unsigned char *)str);
}

size_t esc_text_fit(const char *str, size_t cols)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t used = 0;

	while (*s) {
		int n = text_keep(s, ESC_TEXT);

		if (used + (n ? 1 : 4) > cols)
			break;
		used += n ? 1 : 4;
		s += n ? n : 1;
	}
	return (size_t)(s - (const unsigned char *)str);
}

size_t esc_cut(const char *t, size_t n)
{
	const unsigned char *s = (const unsigned char *)t;
	size_t at = 0;

	while (s[at]) {
		size_t k = s[at] == '\\' && s[at + 1] == 'x' && s[at + 2] && s[at + 3] ?
				   4 :
				   (size_t)utf8_len(s + at);

		k = k ? k : 1;
		if (at + k > n)
			break;
		at += k;
	}
	return at;
}

char *esc_dup(const char *s, enum esc_syntax syn)
{
	char *text = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&text, &size);

	if (!m)
		return NULL;
	esc_put(m, s, syn);
	if (fclose(m)) {
		free(text);
		return NULL;
	}
	return text;
}

/* ---- esc_text's strings: a hash table of the strings that needed an escape ------------------------- */

struct esc_entry {
	char *raw, *text;
	struct esc_entry *next;
};

static pthread_mutex_t esc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct esc_entry **esc_tab;
static size_t esc_size, esc_count;

static size_t esc_hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

/* Twice the buckets when the table is full; nothing when memory runs out (chains grow longer). */
static void esc_grow(void)
{
	size_t size = esc_size ? 2 * esc_size : 64;
	struct esc_entry **tab = calloc(size, sizeof(*tab));

	if (!tab)
		return;
	for (size_t i = 0; i < esc_size; i++)
		for (struct esc_entry *e = esc_tab[i], *next; e; e = next) {
			next = e->next;
			e->next = tab[esc_hash(e->raw) & (size - 1)];
			tab[esc_hash(e->raw) & (size - 1)] = e;
		}
	free(esc_tab);
	esc_tab = tab;
	esc_size = size;
}

const char *esc_text(const char *s)
{
	static const char oom[] = "(out of memory)";
	const char *text = oom;
	struct esc_entry *e;

	if (!s || !s[esc_clean(s)])
		return s;
	pthread_mutex_lock(&esc_lock);
	if (esc_count >= esc_size)
		esc_grow();
	if (esc_size) {
		size_t b = esc_hash(s) & (esc_size - 1);

		for (e = esc_tab[b]; e && strcmp(e->raw, s); e = e->next)
			;
		if (!e && (e = calloc(1, sizeof(*e)))) {
			e->raw = strdup(s);
			e->text = esc_dup(s, ESC_TEXT);
			if (e->raw && e->text) {
				e->next = esc_tab[b];
				esc_tab[b] = e;
				esc_count++;
			} else {
				free(e->raw);
				free(e->text);
				free(e);
				e = NULL;
			}
		}
		if (e)
			text = e->text;
	}
	pthread_mutex_unlock(&esc_lock);
	return text;
}

void esc_release(void)
{
	pthread_mutex_lock(&esc_lock);
	for (size_t i = 0; i < esc_size; i++)
		for (struct esc_entry *e = esc_tab[i], *next; e; e = next) {
			next = e->next;
			free(e->raw);
			free(e->text);
			free(e);
		}
	free(esc_tab);
	esc_tab = NULL;
	esc_size = esc_count = 0;
	pthread_mutex_unlock(&esc_lock);
}

void esc_msg(const char *fmt, ...)
{
	char small[512], *msg = small, *text;
	va_list ap;
	int n, saved = errno; /* for %m */
	size_t len;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(small) && (msg = malloc((size_t)n + 1))) {
		errno = saved;
		va_start(ap, fmt);
		vsnprintf(msg, (size_t)n + 1, fmt, ap);
		va_end(ap);
	} else if (!msg) {
		msg = small; /* out of memory: the message cut */
	}
	len = strlen(msg);
	if (len && msg[len - 1] == '\n')
		msg[--len] = '\0';
	text = esc_dup(msg, ESC_TEXT);
	if (text) {
		fprintf(stderr, "%s\n", text);
	} else { /* out of memory: the text form written as it is made */
		esc_put(stderr, msg, ESC_TEXT);
		fputc('\n', stderr);
	}
	free(text);
	if (msg != small)
		free(msg);
}
