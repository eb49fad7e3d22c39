/* unit: isal:common/gmon-io.c isal:common/gmon-encode.c isal:common/gmon-write.c isal:common/gmon-decode.c isal:common/gmon-read.c renamed:common/gmon-io.c renamed:common/gmon-encode.c renamed:common/gmon-write.c renamed:common/gmon-decode.c renamed:common/gmon-read.c -lz */
/* spinprof's decoder (Intel ISA-L's inflate, and a second thread inflating a big payload ahead of
 * the decoding) against the same decoder compiled plainly (zlib, one thread), as the tests' tools have it: on a profile whose
 * THREAD record inflates to several of the thread's slots, valid and damaged (a byte of the stream, its
 * zlib header, its trailer, the raw length, bytes after the stream, a bad field early in the raw
 * bytes), from memory and from a file, every way of decoding gives the same result, or the same
 * message. Each damaged record gets a correct CRC, so the decoders see the damage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "../common/gmon-format.h"

/* the plain copy (zlib), under the runtime's names (GMON_RUNTIME_NAMES) so that both link */
int spyrt_gmon_decode(const uint8_t *buf, size_t len, struct gmon_profile *p, char *err, size_t errsz);
int spyrt_gmon_read_fd(int fd, struct gmon_profile *p, char *err, size_t errsz);
void spyrt_gmon_profile_release(struct gmon_profile *p);
extern uint64_t spyrt_gmon_pipe_min;

#define NF 1000
#define NA 120000 /* 48 bytes an arc: about 5.8 MB raw, more than the thread's four 1 MiB slots */

static char *sdup(const char *s)
{
	char *c = strdup(s);

	assert_non_null(c);
	return c;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A time profile of NF functions and one thread of NA arcs, encoded at zlib level 1. */
static void make_file(uint8_t **buf, size_t *len)
{
	struct gmon_profile p;
	struct gmon_thread *t;
	uint64_t base = 0x400000;

	gmon_profile_init(&p);
	p.hdr.tool = sdup("spy test");
	p.hdr.abi = 2;
	p.hdr.pid = 1;
	p.hdr.mode = 2;
	p.hdr.flags = GMON_HDR_FINAL | GMON_HDR_TSC_INVARIANT;
	p.hdr.start_ns = 1;
	p.hdr.end_ns = 2;
	p.hdr.tsc_hz = 1000000000ull;
	p.hdr.error = sdup("");
	p.nmodules = 1;
	p.modules = calloc(1, sizeof(*p.modules));
	p.modules[0].flags = GMON_MOD_MAIN | GMON_MOD_INSTRUMENTED;
	p.modules[0].text_lo = base;
	p.modules[0].text_hi = base + 64 * NF;
	p.modules[0].path = sdup("/nonexistent/prog");
	p.nfuncsets = 1;
	p.funcsets = calloc(1, sizeof(*p.funcsets));
	p.funcsets[0].plugin_mode = 2;
	p.funcsets[0].nr = NF;
	p.funcsets[0].funcs = calloc(NF, sizeof(struct gmon_func));
	for (int i = 0; i < NF; i++) {
		char name[32];

		snprintf(name, sizeof(name), "f%d", i);
		p.funcsets[0].funcs[i].addr = base + 64 * (uint64_t)i;
		p.funcsets[0].funcs[i].name = sdup(name);
		p.funcsets[0].funcs[i].file = sdup("t.c");
	}
	p.nthreads = 1;
	t = p.threads = calloc(1, sizeof(*p.threads));
	t->tid = 1;
	t->flags = GMON_THREAD_MAIN;
	t->name = sdup("main");
	t->narcs = NA;
	t->arcs = calloc(NA, sizeof(*t->arcs));
	assert_non_null(t->arcs);
	for (uint64_t i = 0; i < NA; i++) {
		t->arcs[i].caller = base + 64 * (i % NF);
		t->arcs[i].callee = base + 64 * (next() % NF);
		t->arcs[i].call_site = t->arcs[i].caller + 1 + i / NF;
		t->arcs[i].count = 1 + next() % 1000;
		t->arcs[i].self = t->arcs[i].count * (next() % 100);
		t->arcs[i].incl = t->arcs[i].self + next() % 1000;
	}
	assert_int_equal(gmon_encode(&p, 1, buf, len), 0);
	gmon_profile_release(&p);
}

static uint64_t get64(const uint8_t *b)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static void put64(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static void put32(uint8_t *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

/* The offset of the first record with tag (its 16-byte header). */
static size_t find_record(const uint8_t *f, size_t len, unsigned tag)
{
	for (size_t off = GMON_FILE_HEADER_SIZE; off + 16 <= len; off += 16 + (size_t)get64(f + off + 8))
		if ((unsigned)(f[off] | f[off + 1] << 8) == tag)
			return off;
	fail_msg("no record with tag %u", tag);
	return 0;
}

/* The file with the record at off given a new payload (flags kept, CRC computed), and END's file
 * length made right. */
static uint8_t *with_payload(const uint8_t *f, size_t len, size_t off, const uint8_t *pl, size_t plen,
			     size_t *nlen)
{
	size_t old = 16 + (size_t)get64(f + off + 8), end;
	uint8_t *n;

	*nlen = len - old + 16 + plen;
	n = malloc(*nlen);
	assert_non_null(n);
	memcpy(n, f, off);
	memcpy(n + off, f + off, 4);
	put64(n + off + 8, plen);
	memcpy(n + off + 16, pl, plen);
	memcpy(n + off + 16 + plen, f + off + old, len - off - old);
	put32(n + off + 4, 0);
	put32(n + off + 4, gmon_crc32(gmon_crc32(0, n + off, 16), pl, plen));
	/* END (never compressed): record count u32, file length u64 */
	end = find_record(n, *nlen, GMON_TAG_END);
	put64(n + end + 16 + 4, *nlen);
	put32(n + end + 4, 0);
	put32(n + end + 4, gmon_crc32(gmon_crc32(0, n + end, 16), n + end + 16, 12));
	return n;
}

/* Every way to decode: 0 the plain copy's (zlib, one thread), 1 spinprof's in one thread, 2 spinprof's
 * with the second thread; each from memory (even k) and from a file (odd k). */
#define WAYS 6

static int decode(int way, const uint8_t *f, size_t len, struct gmon_profile *p, char *err, size_t errsz)
{
	int rc, fd = -1;

	gmon_pipe_min = way / 2 == 2 ? 1 : 0;
	spyrt_gmon_pipe_min = 0;
	if (way % 2) {
		char path[] = "/tmp/spy-pipe-XXXXXX";

		fd = mkstemp(path);
		assert_true(fd >= 0);
		unlink(path);
		assert_int_equal(write(fd, f, len), (ssize_t)len);
	}
	if (way / 2 == 0)
		rc = way % 2 ? spyrt_gmon_read_fd(fd, p, err, errsz) :
			       spyrt_gmon_decode(f, len, p, err, errsz);
	else
		rc = way % 2 ? gmon_read_fd(fd, p, err, errsz) : gmon_decode(f, len, p, err, errsz);
	if (fd >= 0)
		close(fd);
	gmon_pipe_min = (uint64_t)16 << 20;
	return rc;
}

/* Decode f every way: all succeed with the same profile (its plain encoding), or all fail with the
 * same message, which is returned (NULL: success). */
static char *all_ways(const uint8_t *f, size_t len, const char *what)
{
	static char msg[WAYS][512];
	uint8_t *enc[WAYS] = { 0 };
	size_t elen[WAYS] = { 0 };
	int rc[WAYS];

	for (int w = 0; w < WAYS; w++) {
		struct gmon_profile p;

		msg[w][0] = 0;
		rc[w] = decode(w, f, len, &p, msg[w], sizeof(msg[w]));
		if (rc[w] == 0) {
			assert_int_equal(gmon_encode(&p, 0, &enc[w], &elen[w]), 0);
			if (w / 2 == 0)
				spyrt_gmon_profile_release(&p);
			else
				gmon_profile_release(&p);
		}
	}
	for (int w = 1; w < WAYS; w++) {
		if (rc[w] != rc[0])
			fail_msg("%s: way %d %s (%s), way 0 %s (%s)", what, w, rc[w] ? "fails" : "reads",
				 msg[w], rc[0] ? "fails" : "reads", msg[0]);
		if (rc[0] == 0 && (elen[w] != elen[0] || memcmp(enc[w], enc[0], elen[0])))
			fail_msg("%s: way %d reads another profile than way 0", what, w);
		if (rc[0] != 0 && strcmp(msg[w], msg[0]))
			fail_msg("%s: way %d says \"%s\", way 0 \"%s\"", what, w, msg[w], msg[0]);
	}
	for (int w = 0; w < WAYS; w++)
		free(enc[w]);
	return rc[0] ? msg[0] : NULL;
}

static uint8_t *file;
static size_t flen, thr, zoff, zlen; /* THREAD record; its zlib stream's offset and length */
static uint64_t rawlen;

static int setup(void **state)
{
	(void)state;
	make_file(&file, &flen);
	thr = find_record(file, flen, GMON_TAG_THREAD);
	assert_true(file[thr + 2] & GMON_REC_ZLIB);
	rawlen = get64(file + thr + 16);
	zoff = thr + 16 + 8;
	zlen = (size_t)get64(file + thr + 8) - 8;
	assert_true(rawlen > 4 << 20); /* more than the four slots */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(file);
	return 0;
}

/* The payload (u64 raw length, then the stream) with changes, into the file. */
static uint8_t *payload_file(uint64_t raw, const uint8_t *z, size_t zl, size_t *nlen)
{
	uint8_t *pl = malloc(8 + zl), *n;

	assert_non_null(pl);
	put64(pl, raw);
	memcpy(pl + 8, z, zl);
	n = with_payload(file, flen, thr, pl, 8 + zl, nlen);
	free(pl);
	return n;
}

static void test_valid(void **state)
{
	(void)state;
	assert_null(all_ways(file, flen, "the valid file"));
}

/* A byte of the stream changed: at the header, all over the stream, in the trailer. */
static void test_damaged_stream(void **state)
{
	int failed = 0, n = 0;

	(void)state;
	for (size_t k = 0; k < 64; k++) {
		size_t at = k < 2 ? k : k >= 60 ? zlen - (64 - k) : 2 + (k - 2) * (zlen - 6) / 58, nlen;
		uint8_t *z = malloc(zlen), *f;
		char what[64];

		memcpy(z, file + zoff, zlen);
		z[at] ^= (uint8_t)(0x5a + k);
		f = payload_file(rawlen, z, zlen, &nlen);
		snprintf(what, sizeof(what), "stream byte %zu of %zu", at, zlen);
		if (all_ways(f, nlen, what))
			failed++;
		n++;
		free(f);
		free(z);
	}
	/* the header's damage is seen; the trailer's (Adler-32, not checked) is not */
	assert_true(failed >= 2);
	assert_true(failed < n);
}

/* The raw length said wrong: one byte short (the stream goes on past it), one byte more (it ends
 * before), a slot and a half short (the consumer stops the thread while it has more). */
static void test_raw_length(void **state)
{
	size_t nlen;
	uint8_t *f;
	const char *m;

	(void)state;
	f = payload_file(rawlen - 1, file + zoff, zlen, &nlen);
	m = all_ways(f, nlen, "raw length - 1");
	assert_non_null(m);
	free(f);
	f = payload_file(rawlen + 1, file + zoff, zlen, &nlen);
	m = all_ways(f, nlen, "raw length + 1");
	assert_non_null(strstr(m, "bad zlib data"));
	free(f);
	f = payload_file(rawlen - (3u << 19), file + zoff, zlen, &nlen);
	assert_non_null(all_ways(f, nlen, "raw length short by 1.5 MiB"));
	free(f);
}

/* Stored bytes after the stream's end, and a stream cut short. */
static void test_after_and_cut(void **state)
{
	size_t nlen;
	uint8_t *z = malloc(zlen + 3), *f;
	const char *m;

	(void)state;
	memcpy(z, file + zoff, zlen);
	memset(z + zlen, 0, 3);
	f = payload_file(rawlen, z, zlen + 3, &nlen);
	m = all_ways(f, nlen, "3 bytes after the stream");
	assert_non_null(strstr(m, "bad zlib data (3 bytes after its end)"));
	free(f);
	for (size_t cut = 1; cut <= 9; cut += 4) {
		f = payload_file(rawlen, z, zlen - cut, &nlen);
		assert_non_null(all_ways(f, nlen, "cut stream"));
		free(f);
	}
	f = payload_file(rawlen, z, zlen / 2, &nlen);
	m = all_ways(f, nlen, "half the stream");
	assert_non_null(strstr(m, "bad zlib data"));
	free(f);
	free(z);
}

/* A bad field at the start of the raw bytes (the thread's name 4 GiB long): the decoding fails at
 * once while the second thread has slots to fill; it stops, and the message is the decoding's. */
static void test_early_failure(void **state)
{
	uLongf rl = (uLongf)rawlen, zl = compressBound((uLong)rawlen);
	uint8_t *raw = malloc(rawlen), *z = malloc(zl), *f;
	size_t nlen;
	const char *m;

	(void)state;
	assert_int_equal(uncompress(raw, &rl, file + zoff, (uLong)zlen), Z_OK);
	assert_int_equal(rl, rawlen);
	/* tid u32, flags u32, start_ns u64, end_ns u64, then the name: u32 length */
	put32(raw + 24, 0xfffffff0u);
	assert_int_equal(compress2(z, &zl, raw, rl, 1), Z_OK);
	f = payload_file(rawlen, z, zl, &nlen);
	m = all_ways(f, nlen, "a 4 GiB thread name");
	assert_null(strstr(m, "zlib"));
	free(f);
	free(z);
	free(raw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),         cmocka_unit_test(test_damaged_stream),
		cmocka_unit_test(test_raw_length),    cmocka_unit_test(test_after_and_cut),
		cmocka_unit_test(test_early_failure),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
