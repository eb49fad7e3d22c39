/* Reading a spy profile: the file header first, then record after record, each checked by its CRC,
 * a compressed payload inflated piece by piece into the decoder's window, so that memory follows what
 * the records hold and never the file's size, and a FIFO or a device is refused before it is opened.
 * A part of gmon-io.c, after gmon-decode.c (the record decoders), compiled through it. */
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
	z_stream z;
	int z_ready;
	uint8_t *win; /* the window: raw bytes, when they are not the file's own memory */
	size_t wcap;
	uint32_t minor; /* the file's format revision */
};

/* n bytes of the file from off into dst; -1 with in->ioerr set when the read failed or came short. */
static int in_pread(struct in *in, uint64_t off, uint8_t *dst, size_t n)
{
	if (in->mem) {
		memcpy(dst, in->mem + off, n);
		return 0;
	}
	while (n) {
		ssize_t r = pread(in->fd, dst, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			in->ioerr = r < 0 ? errno : -1;
			return -1;
		}
		dst += r;
		off += (uint64_t)r;
		n -= (size_t)r;
	}
	return 0;
}

/* The next n stored bytes of the record into dst, added to its CRC (from memory: checked before). */
static int in_read(struct in *in, uint8_t *dst, size_t n)
{
	if (in_pread(in, in->pos, dst, n))
		return -1;
	if (!in->mem)
		in->crc = gmon_crc32(in->crc, dst, n);
	in->pos += n;
	in->left -= n;
	return 0;
}

static const char *in_error(const struct in *in)
{
	return in->ioerr > 0 ? strerror(in->ioerr) : "the file shrank while it was read";
}

/* More compressed input for inflate, when it has used all it had: -1 when a read failed. */
static int feed(struct cur *c)
{
	struct in *in = c->in;
	z_stream *z = &in->z;
	size_t k;

	if (z->avail_in || !in->left)
		return 0;
	if (in->mem) {
		k = in->left < (1u << 30) ? (size_t)in->left : 1u << 30;
		z->next_in = (Bytef *)(uintptr_t)(in->mem + in->pos);
		in->pos += k;
		in->left -= k;
	} else {
		k = in->left < in->zincap ? (size_t)in->left : in->zincap;
		if (in_read(in, in->zin, k)) {
			cur_fail(c, "%s", in_error(in));
			return -1;
		}
		z->next_in = in->zin;
	}
	z->avail_in = (uInt)k;
	return 0;
}

/* Inflate the next n raw bytes into dst: exactly n, or the stream is bad. */
static int inflate_into(struct cur *c, uint8_t *dst, size_t n)
{
	struct in *in = c->in;
	z_stream *z = &in->z;

	z->next_out = dst;
	z->avail_out = (uInt)n;
	while (z->avail_out) {
		int rc;

		if (feed(c))
			return -1;
		rc = z_inflate(z, Z_NO_FLUSH);
		/* the stream may end with the last byte asked for, not before */
		if (rc == Z_STREAM_END ? z->avail_out != 0 :
					 rc != Z_OK && (rc != Z_BUF_ERROR || (!z->avail_in && !in->left))) {
			cur_fail(c, "bad zlib data");
			return -1;
		}
	}
	return 0;
}

/* After the last raw byte: the stream must end there, with no stored byte after it. */
static void inflate_end_check(struct cur *c)
{
	struct in *in = c->in;
	z_stream *z = &in->z;
	uint8_t one;

	for (;;) {
		int rc;

		if (feed(c))
			return;
		z->next_out = &one;
		z->avail_out = 1;
		rc = z_inflate(z, Z_NO_FLUSH);
		if (rc == Z_STREAM_END && z->avail_out)
			break;
		if ((rc != Z_OK && rc != Z_BUF_ERROR) || !z->avail_out || (!z->avail_in && !in->left)) {
			cur_fail(c, "bad zlib data");
			return;
		}
	}
	if (z->avail_in || in->left)
		cur_fail(c, "bad zlib data (%" PRIu64 " bytes after its end)", z->avail_in + in->left);
}

/* Make the window hold at least n bytes (n <= rest(c)), as many more as fit. */
static int refill(struct cur *c, size_t n)
{
	struct in *in = c->in;
	size_t keep = c->len - c->off, fill = n > GMON_WINDOW ? n : GMON_WINDOW;

	if (fill - keep > c->more)
		fill = keep + (size_t)c->more;
	if (in->wcap < fill) {
		uint8_t *w = malloc(fill);

		if (!w) {
			cur_oom(c, fill, "reading");
			return 0;
		}
		if (keep)
			memcpy(w, c->p + c->off, keep);
		free(in->win);
		in->win = w;
		in->wcap = fill;
	} else if (keep) {
		memmove(in->win, c->p + c->off, keep);
	}
	c->p = in->win;
	c->off = 0;
	c->len = keep;
	if (c->zlib ? inflate_into(c, in->win + keep, fill - keep) :
		      in_read(in, in->win + keep, fill - keep)) {
		if (!c->bad)
			cur_fail(c, "%s", in_error(in));
		return 0;
	}
	c->len = fill;
	c->more -= fill - keep;
	return 1;
}

/* Decode the record whose header is at off: check, decode, and (read from a descriptor) check its CRC
 * after, whatever the decoding said: a damaged record is said to be damaged. 0 or -1 with err. */
static int dec_one(struct in *in, uint64_t off, uint32_t nrec, int *seen_end, struct gmon_profile *p,
		   char *err, size_t errsz)
{
	uint8_t h[GMON_RECORD_HEADER_SIZE];
	uint16_t tag, flags;
	uint64_t plen;
	uint32_t crc;
	char where[96];
	struct cur c = { .in = in, .err = err, .errsz = errsz, .where = where, .minor = in->minor };

	if (in->size - off < GMON_RECORD_HEADER_SIZE) {
		snprintf(err, errsz, "record %" PRIu32 " at offset %" PRIu64 ": truncated record header",
			 nrec, off);
		return -1;
	}
	if (in_pread(in, off, h, sizeof(h))) {
		snprintf(err, errsz, "record %" PRIu32 " at offset %" PRIu64 ": %s", nrec, off, in_error(in));
		return -1;
	}
	tag = (uint16_t)get_le(h, 2);
	flags = (uint16_t)get_le(h + 2, 2);
	crc = ld32(h + 4);
	plen = ld64(h + 8);
	snprintf(where, sizeof(where), "record %" PRIu32 " (%s) at offset %" PRIu64, nrec, gmon_tag_name(tag),
		 off);
	if (plen > in->size - off - GMON_RECORD_HEADER_SIZE) {
		snprintf(err, errsz, "%s: truncated payload (%" PRIu64 " bytes, %" PRIu64 " left)", where,
			 plen, in->size - off - GMON_RECORD_HEADER_SIZE);
		return -1;
	}
	put_le(h + 4, 0, 4);
	in->crc = gmon_crc32(0, h, sizeof(h));
	in->pos = off + GMON_RECORD_HEADER_SIZE;
	in->left = plen;
	if (in->mem) {
		/* all there: checked before anything is decoded */
		in->crc = gmon_crc32(in->crc, in->mem + in->pos, (size_t)plen);
		if (in->crc != crc) {
			snprintf(err, errsz, "%s: checksum mismatch (damaged file)", where);
			return -1;
		}
		c.p = in->mem + in->pos;
		c.len = (size_t)plen;
	} else {
		c.more = plen;
	}
	if (flags & ~(uint16_t)GMON_REC_ZLIB) {
		cur_fail(&c, "unknown flags 0x%x", flags);
	} else if (nrec == 0 && tag != GMON_TAG_HEADER) {
		cur_fail(&c, "the first record must be HEADER");
	} else if (flags & GMON_REC_ZLIB) {
		uint8_t rl[8];
		uint64_t rawlen = 0;

		if (plen < 8)
			cur_fail(&c, "compressed payload without its length");
		else if (in_read(in, rl, 8))
			cur_fail(&c, "%s", in_error(in));
		else
			rawlen = ld64(rl);
		/* deflate cannot do better than about 1032:1; anything beyond is a lie */
		if (!c.bad && (rawlen > GMON_RAW_MAX || rawlen / 1100 > plen))
			cur_fail(&c, "implausible uncompressed length %" PRIu64, rawlen);
		if (!c.bad && !z_load())
			cur_fail(&c, "compressed, and no zlib to read it");
		if (!c.bad && !in->mem && !in->zin) {
			in->zin = malloc(GMON_WINDOW);
			in->zincap = GMON_WINDOW;
			if (!in->zin)
				cur_oom(&c, GMON_WINDOW, "reading");
		}
		if (!c.bad && !in->z_ready) {
			if (z_inflate_init(&in->z) != Z_OK)
				cur_oom(&c, sizeof(in->z), "zlib");
			else
				in->z_ready = 1;
		} else if (!c.bad && z_inflate_reset(&in->z) != Z_OK) {
			cur_fail(&c, "zlib cannot start");
		}
		/* the record's CRC covers the stored bytes: zlib's own check of the raw ones is not needed */
		if (!c.bad)
			z_no_check(&in->z);
		in->z.avail_in = 0;
		c.zlib = 1;
		c.p = NULL;
		c.len = 0;
		c.more = rawlen;
	} else if (in->mem) {
		in->pos += plen;
		in->left = 0;
	}
	if (!c.bad) {
		switch (tag) {
		case GMON_TAG_HEADER:
			if (nrec != 0)
				cur_fail(&c, "a second HEADER record");
			else
				dec_header(&c, &p->hdr);
			break;
		case GMON_TAG_MODULE:
		case GMON_TAG_FUNCS:
		case GMON_TAG_THREAD:
		case GMON_TAG_COUNTERS:
		case GMON_TAG_SAMPLING:
		case GMON_TAG_SAMPLES:
		case GMON_TAG_NODES:
		case GMON_TAG_TRACE:
			dec_record(&c, tag, p);
			break;
		case GMON_TAG_END: {
			uint32_t n = get_u32(&c, "record count");
			uint64_t flen = get_u64(&c, "file length");

			if (!c.bad && n != nrec)
				cur_fail(&c, "%" PRIu32 " records announced, %" PRIu32 " read", n, nrec);
			if (!c.bad && flen != in->size)
				cur_fail(&c, "file length %" PRIu64 ", %" PRIu64 " announced", in->size,
					 flen);
			*seen_end = 1;
			break;
		}
		default:
			cur_fail(&c, "unknown record tag %u", tag);
		}
	}
	if (!c.bad && rest(&c))
		cur_fail(&c, "%" PRIu64 " bytes left over at the end of the record", rest(&c));
	if (!c.bad && c.zlib)
		inflate_end_check(&c);
	if (!in->mem) {
		/* the rest of the stored bytes through the CRC, which has the last word */
		while (in->left && !in->ioerr) {
			if (!in->zin) {
				in->zin = malloc(GMON_WINDOW);
				in->zincap = GMON_WINDOW;
				if (!in->zin) {
					cur_oom(&c, GMON_WINDOW, "reading");
					return -1;
				}
			}
			in_read(in, in->zin, in->left < in->zincap ? (size_t)in->left : in->zincap);
		}
		if (in->ioerr) {
			snprintf(err, errsz, "%s: %s", where, in_error(in));
			return -1;
		}
		if (in->crc != crc) {
			snprintf(err, errsz, "%s: checksum mismatch (damaged file)", where);
			return -1;
		}
	}
	return c.bad ? -1 : 0;
}

/* The file header, then record after record up to END. */
static int dec_file(struct in *in, struct gmon_profile *p, char *err, size_t errsz)
{
	uint8_t fh[GMON_FILE_HEADER_SIZE];
	size_t n = in->size < sizeof(fh) ? (size_t)in->size : sizeof(fh);
	uint32_t version, minor, nrec = 0;
	uint64_t off = GMON_FILE_HEADER_SIZE;
	int seen_end = 0;

	if (in_pread(in, 0, fh, n)) {
		snprintf(err, errsz, "%s", in_error(in));
		return -1;
	}
	if (n < 4 || memcmp(fh, GMON_MAGIC, 4)) {
		snprintf(err, errsz, "not a gmon file (bad magic)");
		return -1;
	}
	if (n < GMON_FILE_HEADER_SIZE) {
		snprintf(err, errsz, "truncated file header (%zu of %u bytes)", n, GMON_FILE_HEADER_SIZE);
		return -1;
	}
	version = ld32(fh + 4);
	minor = ld32(fh + 8);
	if (version == GMON_GNU_VERSION || version == 0) {
		snprintf(err, errsz, "a GNU gmon.out (version %" PRIu32 "), not a spy profile", version);
		return -1;
	}
	if (version != GMON_SPY_VERSION) {
		snprintf(err, errsz, "unsupported version 0x%08" PRIx32, version);
		return -1;
	}
	if (ld32(fh + 12) != gmon_crc32(0, fh, 12)) {
		snprintf(err, errsz, "file header checksum mismatch");
		return -1;
	}
	if (minor > GMON_SPY_MINOR) {
		snprintf(err, errsz, "format revision %" PRIu32 " is newer than this reader's (%u)", minor,
			 GMON_SPY_MINOR);
		return -1;
	}
	in->minor = minor;
	while (off < in->size) {
		if (seen_end) {
			snprintf(err, errsz, "%" PRIu64 " bytes after the END record", in->size - off);
			return -1;
		}
		if (dec_one(in, off, nrec, &seen_end, p, err, errsz))
			return -1;
		off = in->pos;
		nrec++;
	}
	if (!seen_end) {
		snprintf(err, errsz, "truncated: no END record after %" PRIu32 " records", nrec);
		return -1;
	}
	return 0;
}

static int dec_run(struct in *in, struct gmon_profile *p, char *err, size_t errsz)
{
	int rc;

	gmon_profile_init(p);
	rc = dec_file(in, p, err, errsz);
	if (in->z_ready)
		z_inflate_end(&in->z);
	free(in->zin);
	free(in->win);
	if (rc)
		gmon_profile_release(p);
	return rc;
}

int gmon_decode(const uint8_t *buf, size_t len, struct gmon_profile *p, char *err, size_t errsz)
{
	struct in in = { .mem = buf, .fd = -1, .size = len };

	return dec_run(&in, p, err, errsz);
}

int gmon_open_regular(const char *path, char *err, size_t errsz)
{
	struct stat st;
	int fd;

	/* a FIFO or a device is never opened: opening one may block for ever, or act (a tape rewinds) */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, errsz, "%s", S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
		return -1;
	}
	/* and should the name change hands in between, O_NONBLOCK keeps the open from waiting */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errsz, "%s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errsz, "%s", S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
		close(fd);
		return -1;
	}
	return fd;
}

int gmon_read_fd(int fd, struct gmon_profile *p, char *err, size_t errsz)
{
	struct stat st;
	struct in in = { .fd = fd };

	gmon_profile_init(p);
	if (fstat(fd, &st) < 0) {
		snprintf(err, errsz, "%s", strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errsz, "not a regular file");
		return -1;
	}
	if (st.st_size == 0) {
		snprintf(err, errsz, "empty file");
		return -1;
	}
	in.size = (uint64_t)st.st_size;
	return dec_run(&in, p, err, errsz);
}

int gmon_read_file(const char *path, struct gmon_profile *p, char *err, size_t errsz)
{
	int fd = gmon_open_regular(path, err, errsz), rc;

	gmon_profile_init(p);
	if (fd < 0)
		return -1;
	rc = gmon_read_fd(fd, p, err, errsz);
	close(fd);
	return rc;
}
