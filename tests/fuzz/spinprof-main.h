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
	static const char *const files[] = { "p0.out", "p1.out", "p2.out", "gmon.out", "gmon.sum", "out" };

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

/* Where the spy profile at d[0, n) ends: after its END record, or where the records stop making sense
 * (then n). */
__attribute__((unused)) static size_t fz_profile_end(const uint8_t *d, size_t n)
{
	size_t pos = GMON_FILE_HEADER_SIZE;

	if (n < pos || memcmp(d, GMON_MAGIC, 4))
		return n;
	while (pos + GMON_RECORD_HEADER_SIZE <= n) {
		unsigned tag = d[pos] | d[pos + 1] << 8;
		uint64_t plen = 0;

		for (int i = 7; i >= 0; i--)
			plen = plen << 8 | d[pos + 8 + i];
		if (plen > n - pos - GMON_RECORD_HEADER_SIZE)
			return n;
		pos += GMON_RECORD_HEADER_SIZE + (size_t)plen;
		if (tag == GMON_TAG_END)
			return pos;
	}
	return n;
}

/* The spy profiles back to back in d[0, n) written to p0.out, p1.out, ... (at most max, the last one
 * taking the rest; at least one, maybe empty). Returns how many. */
__attribute__((unused)) static int fz_split(const uint8_t *d, size_t n, int max)
{
	static const char *const names[] = { "p0.out", "p1.out", "p2.out" };
	int k = 0;

	if (max > 3)
		max = 3;
	while (k < max && (n || !k)) {
		size_t len = k == max - 1 ? n : fz_profile_end(d, n);

		fz_write(names[k++], d, len);
		d += len;
		n -= len;
	}
	return k;
}
