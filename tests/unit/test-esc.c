/* unit: common/esc.c */
/* The escaping of strings for each output's syntax (common/esc.c): ordinary names come out unchanged;
 * controls, backslashes, C1 controls, U+FFFE/U+FFFF and every kind of broken UTF-8 (overlong, surrogate,
 * past U+10FFFF, cut short, a lone continuation byte) as \xNN; each syntax's own characters; esc_text's
 * copies; the columns' cuts (esc_text_fit, esc_cut); esc_msg on stderr, one line. Then random byte
 * strings: the text form is printable UTF-8, reads back to the string, and each syntax's output holds
 * none of what that syntax must not carry raw. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "esc.h"

static char *esc(const char *s, enum esc_syntax syn)
{
	char *t = esc_dup(s, syn);

	assert_non_null(t);
	return t;
}

static void expect(const char *s, enum esc_syntax syn, const char *want)
{
	char *got = esc(s, syn);

	if (strcmp(got, want))
		fail_msg("syntax %d: want \"%s\", got \"%s\"", (int)syn, want, got);
	free(got);
}

static void test_ordinary(void **state)
{
	(void)state;
	static const char *const names[] = {
		"main",
		"std::vector<int, std::allocator<int> >::push_back(int const&)",
		"operator&&",
		"calls.c",
		"/usr/lib/x86_64-linux-gnu/libc.so.6",
		"héllo wörld",
		"日本語",
		"😀 U+1F600",
		"foo.constprop.0",
		"a b\"c'd",
		"",
		"~ ! @ # $ % ^ * ( ) _ + { } | : ? `",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		expect(names[i], ESC_TEXT, names[i]);
		assert_int_equal(esc_clean(names[i]), strlen(names[i]));
		assert_ptr_equal(esc_text(names[i]), names[i]); /* no copy */
	}
	assert_null(esc_text(NULL));
}

static void test_text(void **state)
{
	(void)state;
	expect("\x1b]0;pwned\x07", ESC_TEXT, "\\x1b]0;pwned\\x07");
	expect("\x1b[2J\x1b[H", ESC_TEXT, "\\x1b[2J\\x1b[H");
	expect("a\nb\tc\rd\x7f", ESC_TEXT, "a\\x0ab\\x09c\\x0dd\\x7f");
	expect("C:\\x1b", ESC_TEXT, "C:\\x5cx1b"); /* a backslash of the string cannot pass for an escape */
	expect("\xff\xfe", ESC_TEXT, "\\xff\\xfe");
	expect("\xc0\x80", ESC_TEXT, "\\xc0\\x80");                   /* overlong NUL */
	expect("\xe0\x80\xaf", ESC_TEXT, "\\xe0\\x80\\xaf");          /* overlong / */
	expect("\xed\xa0\x80", ESC_TEXT, "\\xed\\xa0\\x80");          /* surrogate */
	expect("\xf4\x90\x80\x80", ESC_TEXT, "\\xf4\\x90\\x80\\x80"); /* past U+10FFFF */
	expect("\xf5\x80\x80\x80", ESC_TEXT, "\\xf5\\x80\\x80\\x80");
	expect("ab\xe2\x82", ESC_TEXT, "ab\\xe2\\x82"); /* cut short at the end */
	expect("\xe2\x82x", ESC_TEXT, "\\xe2\\x82x");
	expect("\x80z", ESC_TEXT, "\\x80z"); /* a lone continuation byte */
	expect("\xc2\x9b"
	       "31m",
	       ESC_TEXT,
	       "\\xc2\\x9b"
	       "31m"); /* C1 CSI */
	expect("\xc2\x80\xc2\x9f\xc2\xa0", ESC_TEXT,
	       "\\xc2\\x80\\xc2\\x9f\xc2\xa0"); /* U+00A0 is printable */
	expect("\xef\xbf\xbe\xef\xbf\xbf\xef\xbf\xbd", ESC_TEXT,
	       "\\xef\\xbf\\xbe\\xef\\xbf\\xbf\xef\xbf\xbd");
	expect("\xf0\x9f\x98\x80", ESC_TEXT, "\xf0\x9f\x98\x80");
	assert_int_equal(esc_clean("abc\x1b"
				   "def"),
			 3);
	assert_int_equal(esc_clean("é\xff"), 2);
}

static void test_syntaxes(void **state)
{
	(void)state;
	expect("a b\tc", ESC_WORD, "a\\x20b\\x09c");
	expect("a;b c\n", ESC_FOLDED, "a:b c\\x0a");
	expect("<img src=x onerror=alert(1)>.c", ESC_XML, "&lt;img src=x onerror=alert(1)&gt;.c");
	expect("a&b\"c'd\x1b\xff", ESC_XML, "a&amp;b&quot;c&apos;d\\x1b\\xff");
	expect("std::vector<int>", ESC_XML, "std::vector&lt;int&gt;");
	expect("f(int&) operator&& a&b \"q\" \\", ESC_DOT, "f(int&) operator&& a&b \\\"q\\\" \\\\x5c");
	expect("&lt; &#60; &#x3c; &amp;", ESC_DOT, "&amp;lt; &amp;#60; &amp;#x3c; &amp;amp;");
	expect("a\x1b\nb", ESC_DOT, "a\\\\x1b\\\\x0ab");
	expect("\"\\\x01\x1f\x7f\xff é\xc2\x9b", ESC_JSON, "\\\"\\\\\\u0001\\u001f\\u007f\\u00ff é\xc2\x9b");
	expect("\xed\xa0\x80", ESC_JSON, "\\u00ed\\u00a0\\u0080");
	expect("</script>", ESC_JSON, "</script>");
}

static void test_text_copies(void **state)
{
	(void)state;
	char a[] = "x\x1by", b[] = "x\x1by";
	const char *ta = esc_text(a), *tb = esc_text(b);

	assert_string_equal(ta, "x\\x1by");
	assert_ptr_equal(ta, tb);        /* one copy for equal strings */
	for (int i = 0; i < 1000; i++) { /* the table grows; what it gave stays */
		char s[32];

		snprintf(s, sizeof(s), "\x1b%d", i);
		const char *t = esc_text(s);
		char want[32];

		snprintf(want, sizeof(want), "\\x1b%d", i);
		assert_string_equal(t, want);
	}
	assert_string_equal(ta, "x\\x1by");
	assert_ptr_equal(esc_text(a), ta);
	esc_release();
	assert_string_equal(esc_text(a), "x\\x1by");
	esc_release();
}

static void test_fit(void **state)
{
	(void)state;
	assert_int_equal(esc_text_fit("abcdef", 4), 4);
	assert_int_equal(esc_text_fit("abcdef", 10), 6);
	assert_int_equal(esc_text_fit("ab\x1b"
				      "cd",
				      5),
			 2); /* \x1b takes 4: not in 5 after ab */
	assert_int_equal(esc_text_fit("ab\x1b"
				      "cd",
				      6),
			 3);
	assert_int_equal(esc_text_fit("日本語", 2), 6); /* two characters, six bytes */
	assert_int_equal(esc_text_fit("", 3), 0);
	/* esc_cut: the text form cut whole, as a column cuts it */
	assert_int_equal(esc_cut("abcdef", 4), 4);
	assert_int_equal(esc_cut("ab\\x1bcd", 4), 2); /* not inside \x1b */
	assert_int_equal(esc_cut("ab\\x1bcd", 6), 6);
	assert_int_equal(esc_cut("a日本", 5), 4); /* not inside 本 */
	assert_int_equal(esc_cut("a日本", 7), 7);
	assert_int_equal(esc_cut("", 7), 0);
}

static void test_msg(void **state)
{
	(void)state;
	char path[] = "/tmp/test-esc.XXXXXX", buf[256];
	int fd = mkstemp(path), saved = dup(2);
	ssize_t n;

	assert_true(fd >= 0 && saved >= 0);
	unlink(path);
	fflush(stderr);
	dup2(fd, 2);
	esc_msg("spinprof: %s: %s\n", "evil\x1b]2;title\x07.out", "bad\nline");
	esc_msg("no newline %d", 7);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "spinprof: evil\\x1b]2;title\\x07.out: bad\\x0aline\nno newline 7\n");
}

/* ---- random strings -------------------------------------------------------------------------------- */

static uint64_t rng = 88172645463325252ull;

static unsigned next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)rng;
}

/* A string of bytes 1..255, biased to what is interesting: ASCII, controls, UTF-8 lead and
 * continuation bytes, and the syntaxes' own characters. */
static void random_string(char *s, size_t max)
{
	static const char pick[] =
		"\\\"'&<>;# \x1b\n\t\x7f\xc2\x9b\xe2\x82\xac\xed\xa0\xef\xbf\xbe\xf0\x9f\x98\x80\xf4\x90";
	size_t n = next() % max;

	for (size_t i = 0; i < n; i++) {
		unsigned r = next();

		s[i] = (char)(r % 3 == 0 ? (unsigned char)pick[(r >> 8) % (sizeof(pick) - 1)] :
			      r % 3 == 1 ? 'a' + (r >> 8) % 26 :
					   1 + (r >> 8) % 255);
	}
	s[n] = '\0';
}

/* The well-formed UTF-8 at s, as the test sees it: the length of the sequence, 0 when none. */
static int u8(const unsigned char *s, uint32_t *cp)
{
	int n = s[0] < 0x80                 ? 1 :
		s[0] >= 0xc2 && s[0] < 0xe0 ? 2 :
		s[0] >= 0xe0 && s[0] < 0xf0 ? 3 :
		s[0] >= 0xf0 && s[0] < 0xf5 ? 4 :
					      0;
	uint32_t v = n == 1 ? s[0] : n == 2 ? s[0] & 0x1f : n == 3 ? s[0] & 0x0f : s[0] & 0x07;

	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (!n || (n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10ffff)) ||
	    (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/* The text form read back: \xNN to its byte. */
static char *unescape(const char *t)
{
	char *s = malloc(strlen(t) + 1), *q = s;

	assert_non_null(s);
	while (*t) {
		if (t[0] == '\\') {
			unsigned v;

			assert_true(t[1] == 'x' && sscanf(t + 2, "%2x", &v) == 1);
			*q++ = (char)v;
			t += 4;
		} else {
			*q++ = *t++;
		}
	}
	*q = '\0';
	return s;
}

static void test_random(void **state)
{
	(void)state;
	char s[64];

	for (int k = 0; k < 200000; k++) {
		random_string(s, sizeof(s));
		char *t = esc(s, ESC_TEXT), *x = esc(s, ESC_XML), *d = esc(s, ESC_DOT), *j = esc(s, ESC_JSON);
		char *back = unescape(t);

		assert_string_equal(back, s); /* nothing lost, nothing mistaken for an escape */
		/* the text form: printable ASCII and well-formed UTF-8 of no control or non-character */
		for (const unsigned char *c = (const unsigned char *)t; *c;) {
			uint32_t cp;
			int n = u8(c, &cp);

			if (!n || cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0xfffe || cp == 0xffff)
				fail_msg("text form of a random string holds 0x%02x at %zu: %s", *c,
					 (size_t)(c - (const unsigned char *)t), t);
			c += n;
		}
		/* XML: no markup character, and the text form's characters only */
		assert_null(strpbrk(x, "<>\"'"));
		for (const char *a = strchr(x, '&'); a; a = strchr(a + 1, '&'))
			assert_true(!strncmp(a, "&amp;", 5) || !strncmp(a, "&lt;", 4) ||
				    !strncmp(a, "&gt;", 4) || !strncmp(a, "&quot;", 6) ||
				    !strncmp(a, "&apos;", 6));
		/* dot: every quote escaped, every backslash one of a pair or of \" */
		for (const char *c = d; *c; c++) {
			if (*c == '\\') {
				assert_true(c[1] == '\\' || c[1] == '"');
				c++;
			} else {
				assert_true(*c != '"' && (unsigned char)*c >= 0x20);
			}
		}
		/* JSON: no raw control, quote or lone backslash; well-formed UTF-8 */
		for (const unsigned char *c = (const unsigned char *)j; *c;) {
			uint32_t cp;
			int n = u8(c, &cp);

			assert_true(n && cp >= 0x20 && cp != 0x7f && cp != '"');
			if (*c == '\\') {
				assert_true(c[1] && strchr("\"\\u", c[1]));
				n = c[1] == 'u' ? 6 : 2;
			}
			c += n;
		}
		free(t);
		free(x);
		free(d);
		free(j);
		free(back);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ordinary), cmocka_unit_test(test_text),
		cmocka_unit_test(test_syntaxes), cmocka_unit_test(test_text_copies),
		cmocka_unit_test(test_fit),      cmocka_unit_test(test_msg),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
