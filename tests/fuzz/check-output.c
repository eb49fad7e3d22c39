/* The fuzzers' oracle for spinprof's outputs (check-output.h): whatever names a profile holds, a text
 * output is UTF-8 with no control byte (no terminal escape sequence, no line a name split), JSON is
 * one well-formed value, SVG and HTML carry no markup but spinprof's own (balanced tags, quoted
 * attributes, only the entities it writes, its own number of scripts), and pprof's strings are UTF-8.
 * Small parsers of our own: the harnesses link nothing but spinprof, zlib and protobuf-c. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check-output.h"
#include "profile.pb-c.h"

/* The well-formed UTF-8 sequence at s[0, n): its length and code point, 0 when none. */
static size_t u8(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len = s[0] < 0x80                 ? 1 :
		     s[0] >= 0xc2 && s[0] < 0xe0 ? 2 :
		     s[0] >= 0xe0 && s[0] < 0xf0 ? 3 :
		     s[0] >= 0xf0 && s[0] < 0xf5 ? 4 :
						   0;
	uint32_t v = len == 1 ? s[0] : len == 2 ? s[0] & 0x1fu : len == 3 ? s[0] & 0x0fu : s[0] & 0x07u;

	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3fu);
	}
	if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10ffff)) ||
	    (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return len;
}

/* UTF-8 throughout, and no control but those in allowed (nor, with c1, C1 controls, U+FFFE, U+FFFF). */
static int clean(const unsigned char *s, size_t n, const char *allowed, int c1, const char **why)
{
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = u8(s + i, n - i, &cp);

		if (!k) {
			*why = "not UTF-8";
			return -1;
		}
		if ((cp < 0x20 && !(cp && strchr(allowed, (int)cp))) || cp == 0x7f) {
			*why = "a control byte";
			return -1;
		}
		if (c1 && ((cp >= 0x80 && cp < 0xa0) || cp == 0xfffe || cp == 0xffff)) {
			*why = "a C1 control or a non-character";
			return -1;
		}
		i += k;
	}
	return 0;
}

/* ---- JSON ---------------------------------------------------------------------------------------- */

struct js {
	const unsigned char *s, *end;
	const char *why;
};

static void js_ws(struct js *j)
{
	while (j->s < j->end && (*j->s == ' ' || *j->s == '\n' || *j->s == '\t' || *j->s == '\r'))
		j->s++;
}

static int js_fail(struct js *j, const char *why)
{
	j->why = why;
	return -1;
}

static int js_string(struct js *j)
{
	j->s++;
	while (j->s < j->end && *j->s != '"') {
		if (*j->s < 0x20)
			return js_fail(j, "JSON: a control character in a string");
		if (*j->s == '\\') {
			j->s++;
			if (j->s >= j->end)
				break;
			if (*j->s == 'u') {
				for (int i = 1; i <= 4; i++)
					if (j->s + i >= j->end ||
					    !strchr("0123456789abcdefABCDEF", j->s[i]) || !j->s[i])
						return js_fail(j, "JSON: a bad \\u escape");
				j->s += 4;
			} else if (!*j->s || !strchr("\"\\/bfnrt", *j->s)) {
				return js_fail(j, "JSON: a bad escape");
			}
		}
		j->s++;
	}
	if (j->s >= j->end)
		return js_fail(j, "JSON: a string not closed");
	j->s++;
	return 0;
}

static int js_value(struct js *j, int depth)
{
	js_ws(j);
	if (depth > 64)
		return js_fail(j, "JSON: nested too deep");
	if (j->s >= j->end)
		return js_fail(j, "JSON: a value missing");
	if (*j->s == '"')
		return js_string(j);
	if (*j->s == '{' || *j->s == '[') {
		unsigned char close = *j->s == '{' ? '}' : ']';
		int obj = close == '}';

		j->s++;
		js_ws(j);
		if (j->s < j->end && *j->s == close) {
			j->s++;
			return 0;
		}
		for (;;) {
			if (obj) {
				js_ws(j);
				if (j->s >= j->end || *j->s != '"' || js_string(j))
					return js_fail(j, j->why ? j->why : "JSON: a key missing");
				js_ws(j);
				if (j->s >= j->end || *j->s++ != ':')
					return js_fail(j, "JSON: ':' missing");
			}
			if (js_value(j, depth + 1))
				return -1;
			js_ws(j);
			if (j->s < j->end && *j->s == ',') {
				j->s++;
				continue;
			}
			if (j->s < j->end && *j->s == close) {
				j->s++;
				return 0;
			}
			return js_fail(j, "JSON: ',' or a closing bracket missing");
		}
	}
	static const char *const words[] = { "true", "false", "null" };
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(words[i]);

		if ((size_t)(j->end - j->s) >= n && !memcmp(j->s, words[i], n)) {
			j->s += n;
			return 0;
		}
	}
	/* a number: -? int frac? exp? */
	const unsigned char *s = j->s;
	if (s < j->end && *s == '-')
		s++;
	if (s >= j->end || *s < '0' || *s > '9')
		return js_fail(j, "JSON: not a value");
	if (*s == '0')
		s++;
	else
		while (s < j->end && *s >= '0' && *s <= '9')
			s++;
	if (s < j->end && *s == '.') {
		s++;
		if (s >= j->end || *s < '0' || *s > '9')
			return js_fail(j, "JSON: a bad number");
		while (s < j->end && *s >= '0' && *s <= '9')
			s++;
	}
	if (s < j->end && (*s == 'e' || *s == 'E')) {
		s++;
		if (s < j->end && (*s == '+' || *s == '-'))
			s++;
		if (s >= j->end || *s < '0' || *s > '9')
			return js_fail(j, "JSON: a bad exponent");
		while (s < j->end && *s >= '0' && *s <= '9')
			s++;
	}
	j->s = s;
	return 0;
}

static int check_json(const unsigned char *s, size_t n, const char **why)
{
	struct js j = { s, s + n, NULL };

	if (clean(s, n, "\n", 0, why))
		return -1;
	if (js_value(&j, 0)) {
		*why = j.why;
		return -1;
	}
	js_ws(&j);
	if (j.s != j.end) {
		*why = "JSON: something after the value";
		return -1;
	}
	return 0;
}

/* ---- SVG and HTML ---------------------------------------------------------------------------------- */

static int name_char(unsigned char c, int first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
	       (!first && ((c >= '0' && c <= '9') || c == '-' || c == '.'));
}

/* An entity at s (after its '&'), one spinprof writes: its length, 0 when it is none. */
static size_t entity(const unsigned char *s, const unsigned char *end)
{
	static const char *const known[] = { "amp;", "lt;", "gt;", "quot;", "apos;" };
	size_t n = (size_t)(end - s);

	for (int i = 0; i < 5; i++)
		if (n >= strlen(known[i]) && !memcmp(s, known[i], strlen(known[i])))
			return strlen(known[i]);
	if (n > 1 && s[0] == '#') {
		size_t k = 1;
		int hex = s[1] == 'x';

		k += (size_t)hex;
		size_t d = k;
		while (k < n &&
		       (hex ? strchr("0123456789abcdefABCDEF", s[k]) && s[k] : s[k] >= '0' && s[k] <= '9'))
			k++;
		return k > d && k < n && s[k] == ';' ? k + 1 : 0;
	}
	return 0;
}

/* Character data from s up to the next '<' (or end): every '&' an entity. */
static const unsigned char *xml_text(const unsigned char *s, const unsigned char *end, const char **why)
{
	for (; s < end && *s != '<'; s++)
		if (*s == '&') {
			size_t k = entity(s + 1, end);

			if (!k) {
				*why = "an '&' that starts no entity";
				return NULL;
			}
			s += k;
		} else if (*s == '>') {
			*why = "a '>' in character data";
			return NULL;
		}
	return s;
}

static const unsigned char *find(const unsigned char *s, const unsigned char *end, const char *what)
{
	size_t n = strlen(what);

	for (; (size_t)(end - s) >= n; s++)
		if (!memcmp(s, what, n))
			return s;
	return NULL;
}

static int is_void(const unsigned char *name, size_t n)
{
	return n == 4 && !memcmp(name, "meta", 4);
}

static int check_markup(const unsigned char *s, size_t n, int html, int scripts, const char **why)
{
	const unsigned char *end = s + n;
	const unsigned char *stack[256];
	size_t len[256], depth = 0;
	int nscripts = 0;

	if (clean(s, n, "\t\n", 1, why))
		return -1;
	while (s < end) {
		if (!(s = xml_text(s, end, why)))
			return -1;
		if (s >= end)
			break;
		/* at '<' */
		if ((size_t)(end - s) >= 4 && !memcmp(s, "<!--", 4)) {
			if (!(s = find(s + 4, end, "-->"))) {
				*why = "a comment not closed";
				return -1;
			}
			s += 3;
		} else if ((size_t)(end - s) >= 9 && !memcmp(s, "<![CDATA[", 9)) {
			if (!(s = find(s + 9, end, "]]>"))) {
				*why = "a CDATA section not closed";
				return -1;
			}
			s += 3;
		} else if (s + 1 < end && (s[1] == '?' || s[1] == '!')) {
			if (!(s = find(s, end, ">"))) {
				*why = "a declaration not closed";
				return -1;
			}
			s++;
		} else if (s + 1 < end && s[1] == '/') {
			const unsigned char *nm = s + 2;

			for (s = nm; s < end && name_char(*s, s == nm); s++)
				;
			if (s >= end || *s != '>' || !depth || len[depth - 1] != (size_t)(s - nm) ||
			    memcmp(stack[depth - 1], nm, (size_t)(s - nm))) {
				*why = "an end tag that closes nothing open";
				return -1;
			}
			depth--;
			s++;
		} else {
			const unsigned char *nm = ++s;

			while (s < end && name_char(*s, s == nm))
				s++;
			size_t nl = (size_t)(s - nm);
			if (!nl) {
				*why = "a '<' that starts no tag";
				return -1;
			}
			/* attributes: NAME="VALUE" (in HTML also a bare NAME) */
			for (;;) {
				const unsigned char *ws = s;

				while (s < end && (*s == ' ' || *s == '\n' || *s == '\t'))
					s++;
				if (s < end && (*s == '>' || *s == '/'))
					break;
				if (s == ws || s >= end || !name_char(*s, 1)) {
					*why = "a tag's attributes broken";
					return -1;
				}
				while (s < end && name_char(*s, 0))
					s++;
				if (s < end && *s == '=') {
					s++;
					if (s >= end || *s != '"') {
						*why = "an attribute's value not quoted";
						return -1;
					}
					for (s++; s < end && *s != '"'; s++)
						if (*s == '<') {
							*why = "a '<' in an attribute";
							return -1;
						} else if (*s == '&') {
							size_t k = entity(s + 1, end);

							if (!k) {
								*why = "an '&' that starts no entity, in an attribute";
								return -1;
							}
							s += k;
						}
					if (s >= end) {
						*why = "an attribute's value not closed";
						return -1;
					}
					s++;
				} else if (!html) {
					*why = "an attribute without a value";
					return -1;
				}
			}
			int empty = *s == '/';
			if (empty && (s + 1 >= end || s[1] != '>')) {
				*why = "a '/' in a tag";
				return -1;
			}
			s += empty ? 2 : 1;
			if (nl == 6 && !memcmp(nm, "script", 6))
				nscripts++;
			if (empty || (html && is_void(nm, nl)))
				continue;
			if (html &&
			    ((nl == 6 && !memcmp(nm, "script", 6)) || (nl == 5 && !memcmp(nm, "style", 5)))) {
				/* raw text up to its end tag */
				const unsigned char *e = find(s, end, nl == 6 ? "</script>" : "</style>");

				if (!e) {
					*why = "a script or style not closed";
					return -1;
				}
				s = e + nl + 3;
				continue;
			}
			if (depth == sizeof(stack) / sizeof(*stack)) {
				*why = "tags nested too deep";
				return -1;
			}
			stack[depth] = nm;
			len[depth++] = nl;
		}
	}
	if (depth) {
		*why = "a tag not closed";
		return -1;
	}
	if (nscripts > scripts) {
		*why = "more scripts than spinprof writes";
		return -1;
	}
	return 0;
}

/* ---- pprof ------------------------------------------------------------------------------------------ */

static int check_pprof(const unsigned char *s, size_t n, const char **why)
{
	z_stream z;
	size_t cap = 4 * n + 1024, got = 0;
	unsigned char *out = malloc(cap);
	int rc = -1, zr;

	memset(&z, 0, sizeof(z));
	if (!out || inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		free(out);
		*why = "out of memory";
		return -1;
	}
	z.next_in = (unsigned char *)s;
	z.avail_in = (uInt)n;
	do {
		if (got == cap) {
			unsigned char *bigger = cap < (1u << 28) ? realloc(out, cap * 2) : NULL;

			if (!bigger) {
				*why = "pprof: inflates past 256 MiB";
				goto done;
			}
			out = bigger;
			cap *= 2;
		}
		z.next_out = out + got;
		z.avail_out = (uInt)(cap - got);
		zr = inflate(&z, Z_NO_FLUSH);
		got = cap - z.avail_out;
	} while (zr == Z_OK);
	if (zr != Z_STREAM_END || z.avail_in) {
		*why = "pprof: not one whole gzip stream";
		goto done;
	}
	Perftools__Profiles__Profile *pr = perftools__profiles__profile__unpack(NULL, got, out);
	if (!pr) {
		*why = "pprof: not a profile.proto message";
		goto done;
	}
	rc = 0;
	if (!pr->n_string_table || pr->string_table[0][0]) {
		*why = "pprof: the string table does not start with \"\"";
		rc = -1;
	}
	for (size_t i = 0; rc == 0 && i < pr->n_string_table; i++)
		rc = clean((const unsigned char *)pr->string_table[i], strlen(pr->string_table[i]), "", 1,
			   why);
	perftools__profiles__profile__free_unpacked(pr, NULL);
done:
	inflateEnd(&z);
	free(out);
	return rc;
}

int fz_check(const char *buf, size_t n, enum fz_kind kind, int scripts, const char **why)
{
	const unsigned char *s = (const unsigned char *)buf;

	switch (kind) {
	case FZ_TEXT:
		return clean(s, n, "\t\n\f", 1, why);
	case FZ_JSON:
		return check_json(s, n, why);
	case FZ_SVG:
		return check_markup(s, n, 0, scripts, why);
	case FZ_HTML:
		return check_markup(s, n, 1, scripts, why);
	case FZ_PPROF:
		return check_pprof(s, n, why);
	}
	*why = "no such kind";
	return -1;
}

void fz_check_file(const char *path, enum fz_kind kind, int scripts)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, k;
	const char *why = "cannot read it";
	int bad = !f;

	while (f) {
		if (n == cap) {
			char *b = realloc(buf, cap = cap ? 2 * cap : 65536);

			if (!b) {
				why = "out of memory";
				bad = 1;
				break;
			}
			buf = b;
		}
		if (!(k = fread(buf + n, 1, cap - n, f)))
			break;
		n += k;
	}
	if (f)
		fclose(f);
	if (bad || fz_check(buf ? buf : "", n, kind, scripts, &why)) {
		fprintf(stderr, "spinprof's output %s breaks its syntax: %s\n", path, why);
		abort();
	}
	free(buf);
}
