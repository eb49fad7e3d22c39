/* For the harnesses that fuzz spinprof as a whole: its main() (spinprof/main.c, compiled in here under
 * the name spinprof_main), run in a directory of its own (-s writes gmon.sum into the current one),
 * its standard error sent to /dev/null (libFuzzer's and the sanitizers' reports still reach the
 * real one: they do not write through the stderr variable). Include once, in the harness. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int spinprof_main(int argc, char **argv);
#define main spinprof_main
#include "../../spinprof/main.c"
#undef main

static FILE *fz_quiet;
static char fz_dir[] = "/tmp/spy-fuzz.XXXXXX";

/* At exit: the work directory goes, with what the harnesses write there. */
static void fz_cleanup(void)
{
	static const char *const files[] = { "p0.out", "p1.out", "p2.out", "gmon.out", "gmon.sum" };

	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++)
		unlink(files[i]);
	if (chdir("/") == 0)
		rmdir(fz_dir);
}

/* Once: a work directory of its own, and /dev/null for spinprof's messages. */
static void fz_setup(void)
{
	if (fz_quiet)
		return;
	fz_quiet = fopen("/dev/null", "w");
	if (!fz_quiet || !mkdtemp(fz_dir) || chdir(fz_dir)) {
		perror("spy fuzz harness: setup");
		abort();
	}
	atexit(fz_cleanup);
}

/* Write n bytes to path, or abort. */
static void fz_write(const char *path, const uint8_t *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f)) {
		perror(path);
		abort();
	}
}

/* spinprof with argv (NULL-terminated): its status, which is 0 or 2 and nothing else. */
static int fz_spinprof(char **argv)
{
	FILE *err = stderr;
	int argc = 0, rc;

	while (argv[argc])
		argc++;
	optind = 0; /* getopt starts afresh */
	stderr = fz_quiet;
	rc = spinprof_main(argc, argv);
	stderr = err;
	if (rc != 0 && rc != 2) {
		fprintf(stderr, "spinprof exited %d\n", rc);
		abort();
	}
	return rc;
}
