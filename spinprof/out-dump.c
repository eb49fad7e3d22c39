/* spinprof --dump: spy profiles as text, one fact a line (docs/FORMAT.md, "Text dump"), by the same
 * code as the tests' tool tests/gmon-dump.c: common/gmon-dump.c's gmon_dump_file(). */
#include "esc.h"
#include "gmon-format.h"

#include "out-dump.h"

int dump_spy(FILE *f, char **paths, int n)
{
	char err[512];

	for (int i = 0; i < n; i++)
		if (gmon_dump_file(f, paths[i], err, sizeof(err))) {
			esc_msg("spinprof: %s: %s\n", paths[i], err);
			return -1;
		}
	return 0;
}
