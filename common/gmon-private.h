/* What the parts of the spy profile file's code share, and nothing outside common/ includes: the
 * system headers they use, zlib (linked, or found with dlopen by the runtime), little-endian bytes,
 * and the decoder's cursor and input, which gmon-decode.c (the records) and gmon-read.c (the bytes:
 * a file, memory, zlib, the inflating thread) share. Each side compiles common/ with its flags:
 * the runtime with GMON_ZLIB_DLOPEN and GMON_RUNTIME_NAMES (gmon-io.c, gmon-encode.c, gmon-write.c),
 * spinprof with GMON_ISAL (Intel ISA-L's inflate), and the tests' tools with neither. */
#ifndef GMON_PRIVATE_H
#define GMON_PRIVATE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_PATH, O_TMPFILE, AT_EMPTY_PATH (gmon-write.c) */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#ifdef GMON_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "gmon-format.h"

/* The runtime's names for what the parts share (see GMON_RUNTIME_NAMES in gmon-format.h). */
#ifdef GMON_RUNTIME_NAMES
#define gmon_zlib spyrt_gmon_zlib
#define gmon_z_load spyrt_gmon_z_load
#define gmon_cur_fail spyrt_gmon_cur_fail
#define gmon_cur_oom spyrt_gmon_cur_oom
#define gmon_dec_in spyrt_gmon_dec_in
#define gmon_in_pread spyrt_gmon_in_pread
#define gmon_in_read spyrt_gmon_in_read
#define gmon_in_error spyrt_gmon_in_error
#define gmon_refill spyrt_gmon_refill
#define gmon_in_zstart spyrt_gmon_in_zstart
#define gmon_in_zend spyrt_gmon_in_zend
#define gmon_in_release spyrt_gmon_in_release
#endif

/* ---- zlib -------------------------------------------------------------------------------------------- */

#ifdef GMON_ZLIB_DLOPEN
struct gmon_zlib {
	int tried;
	uLong (*bound)(uLong);
	int (*compress)(Bytef *, uLongf *, const Bytef *, uLong, int);
	uLong (*crc)(uLong, const Bytef *, uInt);
	int (*inflate_init)(z_streamp, int, const char *, int);
	int (*inflate)(z_streamp, int);
	int (*inflate_reset)(z_streamp);
	int (*inflate_end)(z_streamp);
	int (*inflate_validate)(z_streamp, int); /* zlib 1.2.9 on; without it the check is computed */
};
extern struct gmon_zlib gmon_zlib;

/* dlopen zlib once: 1 when it is there. Callers serialise (the runtime writes under its lock). */
int gmon_z_load(void);
#define z_load() gmon_z_load()
#define z_bound(n) gmon_zlib.bound(n)
#define z_compress(d, dl, s, sl, lv) gmon_zlib.compress(d, dl, s, sl, lv)
#define z_inflate_init(z) gmon_zlib.inflate_init(z, 15, ZLIB_VERSION, (int)sizeof(z_stream))
#define z_inflate(z, f) gmon_zlib.inflate(z, f)
#define z_inflate_reset(z) gmon_zlib.inflate_reset(z)
#define z_inflate_end(z) gmon_zlib.inflate_end(z)
#define z_no_check(z) (gmon_zlib.inflate_validate ? gmon_zlib.inflate_validate(z, 0) : 0)
#else
#define z_load() 1
#define z_bound(n) compressBound(n)
#define z_compress(d, dl, s, sl, lv) compress2(d, dl, s, sl, lv)
#define z_inflate_init(z) inflateInit2(z, 15)
#define z_inflate(z, f) inflate(z, f)
#define z_inflate_reset(z) inflateReset(z)
#define z_inflate_end(z) inflateEnd(z)
#if ZLIB_VERNUM >= 0x1290
#define z_no_check(z) inflateValidate(z, 0)
#else
#define z_no_check(z) 0
#endif
#endif

/* ---- little-endian bytes ----------------------------------------------------------------------------- */

static inline void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Little-endian loads: whole words where the width allows (the reader's hot loops are made of them). */
static inline uint64_t ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

static inline uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	if (n == 8)
		return ld64(p);
	if (n == 4)
		return ld32(p);
	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* ---- the decoder: gmon-decode.c (the records) over gmon-read.c (the bytes) ---------------------------- */

#define GMON_WINDOW (256u << 10) /* raw payload bytes decoded at a time; more for a longer string */

/* A file being decoded: all in memory (gmon_decode), or read through a descriptor (gmon_read_fd).
 * pos and left follow the stored payload of the record being decoded; read from a descriptor, its
 * CRC is computed as it is read and checked when the record is done, whatever the decoding said. */
struct in {
	const uint8_t *mem; /* the whole file, or NULL */
	int fd;
	uint64_t size;      /* the file's length */
	uint64_t pos, left; /* the next stored byte's offset, and the stored bytes not yet read */
	uint32_t crc;       /* of the record header (CRC field zero) and the stored bytes read */
	int ioerr;          /* a read failed: its errno, or -1 when the file ended early */
	uint8_t *zin;       /* compressed bytes read from the descriptor */
	size_t zincap;
#ifdef GMON_ISAL
	struct inflate_state *zs; /* Intel ISA-L's inflate: raw deflate, the zlib wrapper read here */
	int zhead;                /* bytes of the zlib header read, up to 2 */
	uint8_t zcmf;
#define ZIN(in) (in)->zs
#else
	z_stream z;
	int z_ready;
#define ZIN(in) (&(in)->z)
#endif
	uint8_t *win; /* the window: raw bytes, when they are not the file's own memory */
	size_t wcap;
	uint32_t minor;     /* the file's format revision */
	struct zpipe *pipe; /* the inflating thread of the record being decoded, or NULL */
};

/* The cursor over a record's payload. */
struct cur {
	const uint8_t *p; /* the window: the payload's raw bytes p[off, len) */
	size_t len, off;
	uint64_t more; /* raw bytes after the window */
	struct in *in; /* where they come from */
	int zlib;      /* through in->z */
	int bad;
	char *err;
	size_t errsz;
	const char *where; /* "record 3 (THREAD) at offset 1234" */
	uint32_t minor;    /* the file's format revision */
};

/* The raw bytes left in the payload, the window's included. */
static inline uint64_t rest(const struct cur *c)
{
	return c->len - c->off + c->more;
}

/* gmon-decode.c: the first failure is the one said, as "where: what"; an allocation that failed is
 * "out of memory (N bytes for what, where)", as spinprof's own messages begin. */
void gmon_cur_fail(struct cur *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gmon_cur_oom(struct cur *c, uint64_t bytes, const char *what);
/* gmon-decode.c: the file in into p; 0, or -1 with the message in err (p released) */
int gmon_dec_in(struct in *in, struct gmon_profile *p, char *err, size_t errsz);

/* gmon-read.c: n stored bytes at off into dst, or the next n of the record's payload (through its
 * CRC); -1 with in->ioerr set when a read failed or came short, which gmon_in_error says */
int gmon_in_pread(struct in *in, uint64_t off, uint8_t *dst, size_t n);
int gmon_in_read(struct in *in, uint8_t *dst, size_t n);
const char *gmon_in_error(const struct in *in);
/* gmon-read.c: make the window hold at least n bytes (n <= rest(c)), as many more as fit; 0 on failure */
int gmon_refill(struct cur *c, size_t n);
/* gmon-read.c: inflating a compressed record: its start (rawlen raw bytes), its end (the stream must
 * end with the last raw byte), and what a file's decoding allocated for it, freed */
void gmon_in_zstart(struct cur *c, uint64_t rawlen);
void gmon_in_zend(struct cur *c);
void gmon_in_release(struct in *in);

#endif
