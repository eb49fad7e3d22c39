/* tokens: a tokenizer's shape, one return per case of a switch and one tail call among them, as in
 * expat's xmltok.c. The plugin gives the tail call a return of its own, so one exit hook serves all
 * the plain returns, and the tail call, after its tail hook, stays a jump.
 *   classify(c) for c = 0..4999: every value returned is checked against the source's switch;
 *   c % 10 == 9 goes on to escape() by a tail call (500 times), the rest return constants.
 * Expected at every -O level: main 1, classify 5000, escape 500; arcs main->classify 5000,
 * classify->escape 500 (from -O2 on a jump, counted from classify). */
#include "sample.h"

NOINL int escape(int c)
{
	return 1000 + c;
}

NOINL int classify(int c)
{
	switch (c % 10) {
	case 0:
		return 11;
	case 1:
		return 12;
	case 2:
		if (c & 4)
			return 13;
		return 14;
	case 3:
		return 15;
	case 4:
		return c > 100 ? 16 : 17;
	case 5:
		return 18;
	case 6:
		return 19;
	case 7:
		return 20;
	case 9:
		return escape(c);
	default:
		return 21;
	}
}

static int expected(int c)
{
	static const int plain[10] = { 11, 12, 0, 15, 0, 18, 19, 20, 21, 0 };

	switch (c % 10) {
	case 2:
		return c & 4 ? 13 : 14;
	case 4:
		return c > 100 ? 16 : 17;
	case 9:
		return 1000 + c;
	default:
		return plain[c % 10];
	}
}

int main(void)
{
	int bad = 0;

	for (int c = 0; c < 5000; c++)
		bad += classify(c) != expected(c);
	return bad != 0;
}
