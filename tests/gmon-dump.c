/* gmon-dump FILE...: each spy profile as text (common/gmon-dump.c's gmon_dump_file), one after the
 * other; for the tests, which read what the runtime wrote through it, and for looking at a file by
 * hand. Built with the library common/ compiled plainly (zlib, no ISA-L): a reader apart from
 * spinprof's. */
#include <stdio.h>

#include "esc.h"
#include "gmon-format.h"

int main(int argc, char **argv)
{
	char err[512];
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: gmon-dump FILE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		if (gmon_dump_file(stdout, argv[i], err, sizeof(err))) {
			esc_msg("gmon-dump: %s: %s\n", argv[i], err);
			rc = 2;
		}
	}
	return rc;
}
