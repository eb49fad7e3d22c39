/* Structure-aware mutation of glibc's gmon.out (gnu-mutate.c), for an input of prefix option bytes
 * followed by the file. */
#ifndef SPY_GNU_MUTATE_H
#define SPY_GNU_MUTATE_H
#include <stddef.h>
#include <stdint.h>

/* A byte-level mutator (libFuzzer's LLVMFuzzerMutate): mutate data[0, size) in place, return the new
 * size, at most max. */
typedef size_t (*gnu_bytes_fn)(uint8_t *data, size_t size, size_t max);

/* Mutate data[0, size) in place, at most max bytes: now and then a prefix byte's bit, then a record's
 * fields or the records themselves, else bytes' mutation of the whole. Returns the new size. */
size_t gnu_mutate(uint8_t *data, size_t size, size_t max, unsigned seed, gnu_bytes_fn bytes, size_t prefix);

#endif
