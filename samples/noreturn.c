/* noreturn: C built with -fexceptions, where bodies that end in a noreturn call once crashed GCC's EH
 * lowering under the plugin. usage() ends in fatal(), which longjmps back to main (as exit() would
 * not let the program report); die() is never called but must compile.
 * Expected at every -O level: main 1, usage 1, fatal 1, die 0; arcs main->usage 1, usage->fatal 1;
 * usage and fatal never return: 2 frames repaired. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include "sample.h"

static jmp_buf back;

NOINL __attribute__((noreturn)) void fatal(int code)
{
	longjmp(back, code);
}

NOINL __attribute__((noreturn)) void die(const char *why)
{
	fprintf(stderr, "%s\n", why);
	exit(1);
}

NOINL void usage(void)
{
	fatal(2);
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 5)
		die("too many arguments");
	if (!setjmp(back))
		usage();
	return 0;
}
