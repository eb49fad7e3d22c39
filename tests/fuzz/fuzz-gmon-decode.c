/* fuzz: common/*.c -DGMON_ISAL tests/fuzz/spy-mutate.c -lz -lisal */
/* libFuzzer harness for the spy profile decoder (common/gmon-decode.c and gmon-read.c, with spinprof's
 * inflate), which trusts nothing it reads:
 * any input is refused with a message or decoded, and what decodes re-encodes (plain and compressed)
 * into bytes that decode again to the same encoding. ASan/UBSan report any bad read on the way. The
 * mutator knows the records and seals what it changes (spy-mutate.c), so mutants pass the checksums. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gmon-format.h"
#include "spy-mutate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *out,
				 size_t max, unsigned int seed);

static void roundtrip(const struct gmon_profile *p, int level, const uint8_t *want, size_t wantlen)
{
	struct gmon_profile q;
	uint8_t *buf, *again;
	size_t len, againlen;
	char err[256];

	if (gmon_encode(p, level, &buf, &len))
		return; /* out of memory */
	if (gmon_decode(buf, len, &q, err, sizeof(err))) {
		fprintf(stderr, "re-encoded profile (zlib level %d) refused: %s\n", level, err);
		abort();
	}
	if (gmon_encode(&q, 0, &again, &againlen) == 0) {
		if (want && (againlen != wantlen || memcmp(again, want, wantlen))) {
			fprintf(stderr, "decode(encode(p)) encodes differently (zlib level %d)\n", level);
			abort();
		}
		free(again);
	}
	gmon_profile_release(&q);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gmon_profile p;
	uint8_t *plain;
	size_t plainlen;
	char err[256];

	err[0] = 0;
	if (gmon_decode(data, size, &p, err, sizeof(err))) {
		if (!err[0] || memchr(err, '\n', strlen(err))) {
			fprintf(stderr, "refused without a one-line message: '%s'\n", err);
			abort();
		}
		return 0;
	}
	if (gmon_encode(&p, 0, &plain, &plainlen) == 0) {
		roundtrip(&p, 0, plain, plainlen);
		roundtrip(&p, 6, plain, plainlen);
		free(plain);
	}
	gmon_profile_release(&p);
	return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed)
{
	return spy_mutate(data, size, max, seed, LLVMFuzzerMutate, 0);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *out,
				 size_t max, unsigned int seed)
{
	return spy_cross(d1, s1, d2, s2, out, max, seed, 0);
}
