/* Structure-aware mutation of spy profiles for the fuzzers (spy-mutate.c). Each function works on an
 * input of prefix option bytes followed by one or more spy profiles back to back. */
#ifndef SPY_MUTATE_H
#define SPY_MUTATE_H
#include <stddef.h>
#include <stdint.h>

/* A byte-level mutator for what lies inside a record (libFuzzer's LLVMFuzzerMutate or the AFL++
 * shim's own): mutate data[0, size) in place, return the new size, at most max. */
typedef size_t (*spy_bytes_fn)(uint8_t *data, size_t size, size_t max);

/* Mutate data[0, size) in place (at most max bytes) and seal it again: every CRC right, each END
 * record's count and length, the file header's CRC; now and then left broken or cut on purpose.
 * Returns the new size. */
size_t spy_mutate(uint8_t *data, size_t size, size_t max, unsigned seed, spy_bytes_fn bytes, size_t prefix);

/* Splice records of b into a, into out (at most max bytes, a's prefix kept); 0 when a is no profile. */
size_t spy_cross(const uint8_t *a, size_t asize, const uint8_t *b, size_t bsize, uint8_t *out, size_t max,
		 unsigned seed, size_t prefix);

/* Seal data in place after a blind change (AFL++'s own mutations): CRCs and END made right again,
 * nothing else changed. Returns size. */
size_t spy_repair(uint8_t *data, size_t size, size_t prefix);

#endif
