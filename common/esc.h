/* Escaping the strings a tool did not write itself (function, file, module and thread names, argv,
 * paths, error texts from a file) for the syntax they are written in: one function per syntax, every
 * output and message calls one of them. The text form, which the others start from:
 * - a byte that is a control (C0, DEL), a backslash, a byte of no well-formed UTF-8 sequence, or a
 *   byte of a C1 control (U+0080 to U+009F, which some terminals obey as ESC [) or of U+FFFE or
 *   U+FFFF (no XML character) is written as \xNN, two lower-case hex digits;
 * - every other byte as it is, so printable ASCII and well-formed UTF-8 come out unchanged.
 * No string can then end a line, move the cursor, retitle a terminal, or break UTF-8. */
#ifndef SPY_ESC_H
#define SPY_ESC_H

#include <stddef.h>
#include <stdio.h>

enum esc_syntax {
	ESC_TEXT,   /* the text form: text reports, messages, callgrind, pprof's strings */
	ESC_WORD,   /* a word of a line: the text form, and the blank as \x20 */
	ESC_FOLDED, /* a frame of a folded stack: the text form, and ';' (the frames' separator) as ':' */
	ESC_XML,    /* XML or HTML character data or attribute value: the text form, & < > " ' as entities */
	ESC_DOT,    /* inside a graphviz "string": the text form with its backslashes doubled, " as \",
		     * & as &amp; where it would start an entity (dot reads them in labels) */
	ESC_JSON,   /* inside a JSON "string": " and \ escaped, controls and bytes of no well-formed
		     * UTF-8 sequence as \u00XX (each byte as the Latin-1 character of its value) */
};

/* The length of the start of s that every syntax's text form writes as it is (no \xNN). */
size_t esc_clean(const char *s);

/* s (not NULL) written to f in syntax syn, without quotes. */
void esc_put(FILE *f, const char *s, enum esc_syntax syn);

/* s written in syntax syn into a new string (the caller frees it), or NULL when memory ran out. */
char *esc_dup(const char *s, enum esc_syntax syn);

/* s in the text form: s itself when it needs no escape (or is NULL), else a copy kept until
 * esc_release() (the same for equal strings; safe from several threads). When memory runs out,
 * "(out of memory)". */
const char *esc_text(const char *s);

/* The length of the longest start of s whose text form has at most cols characters (a UTF-8
 * character one, an escaped byte four), never cutting a character. */
size_t esc_text_fit(const char *s, size_t cols);

/* The length of the longest start of t, a string in the text form, of at most n bytes that cuts
 * neither a character nor a \xNN: for printf's "%.*s" of a column that cuts what is longer. */
size_t esc_cut(const char *t, size_t n);

/* Free what esc_text() kept: its strings are no longer used. */
void esc_release(void);

/* A message on stderr, one line: printf's fmt (%m too), the result in the text form but for a newline
 * at its end, which is written whether fmt ends with one or not. */
void esc_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
