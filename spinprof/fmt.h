/* Number formatting for the report's hot loops, byte for byte what printf's "%*lu", "%-*lu" and
 * "%*.*f" print: a call graph of a million arcs has millions of numbers, and printf's parsing of
 * the format and its general float conversion cost more than the rest of the report. Each helper
 * writes at q (no terminating NUL) and returns the end; the caller provides the room. */
#ifndef SPINPROF_FMT_H
#define SPINPROF_FMT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The room one number may take: enough for printf's "%.3f" of the largest double (309 digits) in
 * a width below 64. Values from FMT_F_MAX up are given to snprintf. */
#define FMT_NUM_MAX 400
#define FMT_F_MAX 1e13

static inline char *fmt_spaces(char *q, int n)
{
	if (n > 0) {
		memset(q, ' ', (size_t)n);
		q += n;
	}
	return q;
}

/* v's decimal digits, backwards from end; returns the first */
static inline char *fmt_digits_end(char *end, uint64_t v)
{
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

/* printf("%*" PRIu64, width, v) */
static inline char *fmt_u(char *q, uint64_t v, int width)
{
	char b[24], *s = fmt_digits_end(b + sizeof(b), v);
	int n = (int)(b + sizeof(b) - s);
	q = fmt_spaces(q, width - n);
	memcpy(q, s, (size_t)n);
	return q + n;
}

/* printf("%-*" PRIu64, width, v) */
static inline char *fmt_u_left(char *q, uint64_t v, int width)
{
	char b[24], *s = fmt_digits_end(b + sizeof(b), v);
	int n = (int)(b + sizeof(b) - s);
	memcpy(q, s, (size_t)n);
	return fmt_spaces(q + n, width - n);
}

/* printf("%*.*f", width, prec, v) for prec 0..3 and width < 64. The value times
 * 10^prec is exact in long double (64-bit significand: 53 bits and at most 10 more for 1000), so
 * its rounding to an integer is exact too, ties to even as glibc's printf rounds them. What this
 * does not cover (negative, -0, NaN, infinite, >= FMT_F_MAX) goes to snprintf. */
static inline char *fmt_f(char *q, double v, int width, int prec)
{
	static const unsigned scale[] = { 1, 10, 100, 1000 };
	if (!(v >= 0 && v < FMT_F_MAX) || signbit(v) || prec < 0 || prec > 3) {
		int n = snprintf(q, FMT_NUM_MAX, "%*.*f", width, prec, v);
		return q + (n < 0 ? 0 : n >= FMT_NUM_MAX ? FMT_NUM_MAX - 1 : n);
	}
	unsigned m = scale[prec];
	long double y = (long double)v * m;
	uint64_t n = (uint64_t)y; /* truncation: floor, y >= 0 */
	long double frac = y - (long double)n;
	if (frac > 0.5L || (frac == 0.5L && (n & 1)))
		n++;
	char b[40], *end = b + sizeof(b), *s = end;
	uint64_t ip = n / m, fp = n % m;
	for (int i = 0; i < prec; i++, fp /= 10)
		*--s = (char)('0' + fp % 10);
	if (prec > 0)
		*--s = '.';
	s = fmt_digits_end(s, ip);
	int len = (int)(end - s);
	q = fmt_spaces(q, width - len);
	memcpy(q, s, (size_t)len);
	return q + len;
}

#endif
