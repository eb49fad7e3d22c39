/* Reading a spy profile's bytes for the decoder (gmon-decode.c): from memory or a descriptor, each
 * record's stored bytes through its CRC, a compressed payload inflated piece by piece into the
 * decoder's window (by a second thread ahead of the decoding when it is big), so that memory follows
 * what the records hold and never the file's size; and gmon_read_file(), which refuses a FIFO or a
 * device before it is opened. */
#include "gmon-private.h"

/* n bytes of the file from off into dst; -1 with in->ioerr set when the read failed or came short. */
int gmon_in_pread(struct in *in, uint64_t off, uint8_t *dst, size_t n)
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
int gmon_in_read(struct in *in, uint8_t *dst, size_t n)
{
	if (gmon_in_pread(in, in->pos, dst, n))
		return -1;
	if (!in->mem)
		in->crc = gmon_crc32(in->crc, dst, n);
	in->pos += n;
	in->left -= n;
	return 0;
}

const char *gmon_in_error(const struct in *in)
{
	return in->ioerr > 0 ? strerror(in->ioerr) : "the file shrank while it was read";
}

/* More compressed input for inflate, when it has used all it had: -1 when a read failed. */
static int feed(struct cur *c)
{
	struct in *in = c->in;
	size_t k;

	if (ZIN(in)->avail_in || !in->left)
		return 0;
	if (in->mem) {
		k = in->left < (1u << 30) ? (size_t)in->left : 1u << 30;
		ZIN(in)->next_in = (uint8_t *)(uintptr_t)(in->mem + in->pos);
		in->pos += k;
		in->left -= k;
	} else {
		k = in->left < in->zincap ? (size_t)in->left : in->zincap;
		if (gmon_in_read(in, in->zin, k)) {
			gmon_cur_fail(c, "%s", gmon_in_error(in));
			return -1;
		}
		ZIN(in)->next_in = in->zin;
	}
	ZIN(in)->avail_in = (uint32_t)k;
	return 0;
}

#ifdef GMON_ISAL
/* Inflate the next n raw bytes into dst: exactly n, or the stream is bad (then *made says how many
 * came before it went wrong, when made is not NULL). ISA-L inflates raw deflate: the zlib header
 * (RFC 1950: deflate, a window of at most 32 KiB, no dictionary, and its check) is read here. */
static int inflate_made(struct cur *c, uint8_t *dst, size_t n, size_t *made)
{
	struct in *in = c->in;
	struct inflate_state *z = in->zs;

	z->next_out = dst;
	z->avail_out = (uint32_t)n;
	while (in->zhead < 2) {
		if (feed(c))
			goto out;
		if (!z->avail_in) {
			gmon_cur_fail(c, "bad zlib data");
			goto out;
		}
		if (in->zhead++ == 0) {
			in->zcmf = *z->next_in;
		} else if ((in->zcmf & 15) != 8 || in->zcmf >> 4 > 7 || (*z->next_in & 0x20) ||
			   (in->zcmf << 8 | *z->next_in) % 31) {
			gmon_cur_fail(c, "bad zlib data");
			goto out;
		}
		z->next_in++;
		z->avail_in--;
	}
	while (z->avail_out) {
		uint32_t ai, ao;

		if (feed(c))
			break;
		ai = z->avail_in;
		ao = z->avail_out;
		/* the stream may end with the last byte asked for, not before, and must move on */
		if (z->block_state == ISAL_BLOCK_FINISH || isal_inflate(z) != ISAL_DECOMP_OK ||
		    (z->avail_in == ai && z->avail_out == ao)) {
			gmon_cur_fail(c, "bad zlib data");
			break;
		}
	}
out:
	if (made)
		*made = n - z->avail_out;
	return z->avail_out ? -1 : 0;
}

/* After the last raw byte: the stream must end there, then its Adler-32 (not checked: the record's
 * CRC covers the stored bytes), with no stored byte after it. */
static void inflate_end_check(struct cur *c)
{
	struct in *in = c->in;
	struct inflate_state *z = in->zs;
	uint8_t one;
	uint64_t after;

	while (z->block_state != ISAL_BLOCK_FINISH) {
		uint32_t ai;

		if (feed(c))
			return;
		z->next_out = &one;
		z->avail_out = 1;
		ai = z->avail_in;
		if (isal_inflate(z) != ISAL_DECOMP_OK || !z->avail_out ||
		    (z->avail_in == ai && z->block_state != ISAL_BLOCK_FINISH)) {
			gmon_cur_fail(c, "bad zlib data");
			return;
		}
	}
	/* whole bytes read ahead past the last block are the trailer's */
	after = (uint64_t)z->read_in_length / 8 + z->avail_in + in->left;
	if (after < 4)
		gmon_cur_fail(c, "bad zlib data");
	else if (after > 4)
		gmon_cur_fail(c, "bad zlib data (%" PRIu64 " bytes after its end)", after - 4);
}

#else
/* Inflate the next n raw bytes into dst: exactly n, or the stream is bad (then *made says how many
 * came before it went wrong, when made is not NULL). */
static int inflate_made(struct cur *c, uint8_t *dst, size_t n, size_t *made)
{
	struct in *in = c->in;
	z_stream *z = &in->z;

	z->next_out = dst;
	z->avail_out = (uInt)n;
	while (z->avail_out) {
		int rc;

		if (feed(c))
			break;
		rc = z_inflate(z, Z_NO_FLUSH);
		/* the stream may end with the last byte asked for, not before */
		if (rc == Z_STREAM_END ? z->avail_out != 0 :
					 rc != Z_OK && (rc != Z_BUF_ERROR || (!z->avail_in && !in->left))) {
			gmon_cur_fail(c, "bad zlib data");
			break;
		}
	}
	if (made)
		*made = n - z->avail_out;
	return z->avail_out ? -1 : 0;
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
			gmon_cur_fail(c, "bad zlib data");
			return;
		}
	}
	if (z->avail_in || in->left)
		gmon_cur_fail(c, "bad zlib data (%" PRIu64 " bytes after its end)", z->avail_in + in->left);
}

#endif

static int inflate_into(struct cur *c, uint8_t *dst, size_t n)
{
	return inflate_made(c, dst, n, NULL);
}

/*
 * A big compressed payload is inflated by a second thread into a ring of slots, a few MiB ahead of
 * the decoding, so that inflating overlaps decoding and the page faults of the arrays decoded into.
 * The thread owns c->in (its reads, CRC and zlib stream) from its start to its join. What it made
 * before the stream went wrong is handed over too, and its message given when the decoding needs a
 * byte it could not make, which is when decoding in one thread would have failed, with the same
 * message; the check that the stream ends with the payload is made there too, and said after the
 * record decoded well, as in one thread.
 */
#define GMON_PIPE_SLOT (1u << 20)
#define GMON_PIPE_SLOTS 4

uint64_t gmon_pipe_min = (uint64_t)16 << 20;

struct zpipe {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct cur pc; /* the thread's: reads and inflates through it, fails into err */
	uint64_t raw;  /* raw bytes to make */
	struct zslot {
		uint8_t *buf;
		size_t len;
		int full;
	} slot[GMON_PIPE_SLOTS];
	unsigned head; /* the decoder's slot, and what it took of it */
	size_t hoff;
	int stop;   /* the decoder needs no more */
	int ended;  /* the thread made all it will (then failed says whether it went wrong) */
	int failed; /* at a byte, or at the stream's end check */
	char err[512];
};

static void *zpipe_run(void *arg)
{
	struct zpipe *zp = arg;
	uint64_t left = zp->raw;
	unsigned i = 0;
	int stop = 0;

	while (left && !stop) {
		struct zslot *s = &zp->slot[i];
		size_t n = left < GMON_PIPE_SLOT ? (size_t)left : GMON_PIPE_SLOT, made;
		int rc;

		pthread_mutex_lock(&zp->mu);
		while (s->full && !zp->stop)
			pthread_cond_wait(&zp->cv, &zp->mu);
		stop = zp->stop;
		pthread_mutex_unlock(&zp->mu);
		if (stop)
			break;
		rc = inflate_made(&zp->pc, s->buf, n, &made);
		left -= made;
		pthread_mutex_lock(&zp->mu);
		s->len = made;
		s->full = made > 0;
		zp->failed = rc < 0;
		pthread_cond_broadcast(&zp->cv);
		pthread_mutex_unlock(&zp->mu);
		if (rc < 0)
			stop = 1;
		i = (i + 1) % GMON_PIPE_SLOTS;
	}
	if (!stop)
		inflate_end_check(&zp->pc);
	pthread_mutex_lock(&zp->mu);
	zp->failed = zp->pc.bad;
	zp->ended = 1;
	pthread_cond_broadcast(&zp->cv);
	pthread_mutex_unlock(&zp->mu);
	return NULL;
}

/* Start inflating c's payload (c->more raw bytes) in a second thread; 0 when it could not start, and
 * the payload is inflated in line. */
static int zpipe_start(struct cur *c)
{
	struct zpipe *zp = calloc(1, sizeof(*zp));
	unsigned i;

	if (!zp)
		return 0;
	for (i = 0; i < GMON_PIPE_SLOTS; i++)
		if (!(zp->slot[i].buf = malloc(GMON_PIPE_SLOT)))
			goto fail;
	zp->pc = (struct cur){ .in = c->in,
			       .zlib = 1,
			       .err = zp->err,
			       .errsz = sizeof(zp->err),
			       .where = c->where,
			       .minor = c->minor };
	zp->raw = c->more;
	pthread_mutex_init(&zp->mu, NULL);
	pthread_cond_init(&zp->cv, NULL);
	if (pthread_create(&zp->thread, NULL, zpipe_run, zp) != 0) {
		pthread_mutex_destroy(&zp->mu);
		pthread_cond_destroy(&zp->cv);
		goto fail;
	}
	c->in->pipe = zp;
	return 1;
fail:
	for (i = 0; i < GMON_PIPE_SLOTS; i++)
		free(zp->slot[i].buf);
	free(zp);
	return 0;
}

/* The thread's message (whole: it has its record's place) is the decoding's, unless that failed first. */
static void zpipe_said(struct cur *c, const struct zpipe *zp)
{
	if (!c->bad) {
		c->bad = 1;
		snprintf(c->err, c->errsz, "%s", zp->err);
	}
}

/* The next n raw bytes into dst, from the thread's slots: -1 (c failed) when it could not make them. */
static int zpipe_take(struct cur *c, uint8_t *dst, size_t n)
{
	struct zpipe *zp = c->in->pipe;

	while (n) {
		struct zslot *s = &zp->slot[zp->head];
		size_t k;

		pthread_mutex_lock(&zp->mu);
		while (!s->full && !zp->failed && !zp->ended)
			pthread_cond_wait(&zp->cv, &zp->mu);
		if (!s->full) {
			pthread_mutex_unlock(&zp->mu);
			zpipe_said(c, zp);
			return -1;
		}
		pthread_mutex_unlock(&zp->mu);
		k = s->len - zp->hoff < n ? s->len - zp->hoff : n;
		memcpy(dst, s->buf + zp->hoff, k);
		dst += k;
		n -= k;
		zp->hoff += k;
		if (zp->hoff == s->len) {
			pthread_mutex_lock(&zp->mu);
			s->full = 0;
			pthread_cond_broadcast(&zp->cv);
			pthread_mutex_unlock(&zp->mu);
			zp->head = (zp->head + 1) % GMON_PIPE_SLOTS;
			zp->hoff = 0;
		}
	}
	return 0;
}

/* The record is decoded (or failed): stop the thread and join it. When the decoding took the whole
 * payload and went well, the stream's end check is said, as in one thread. */
static void zpipe_finish(struct cur *c)
{
	struct zpipe *zp = c->in->pipe;

	pthread_mutex_lock(&zp->mu);
	zp->stop = 1;
	pthread_cond_broadcast(&zp->cv);
	pthread_mutex_unlock(&zp->mu);
	pthread_join(zp->thread, NULL);
	if (!rest(c) && zp->failed)
		zpipe_said(c, zp);
	pthread_mutex_destroy(&zp->mu);
	pthread_cond_destroy(&zp->cv);
	for (unsigned i = 0; i < GMON_PIPE_SLOTS; i++)
		free(zp->slot[i].buf);
	free(zp);
	c->in->pipe = NULL;
}

/* Make the window hold at least n bytes (n <= rest(c)), as many more as fit. */
int gmon_refill(struct cur *c, size_t n)
{
	struct in *in = c->in;
	size_t keep = c->len - c->off, fill = n > GMON_WINDOW ? n : GMON_WINDOW;

	if (fill - keep > c->more)
		fill = keep + (size_t)c->more;
	if (in->wcap < fill) {
		uint8_t *w = malloc(fill);

		if (!w) {
			gmon_cur_oom(c, fill, "reading");
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
	if (c->zlib ? in->pipe ? zpipe_take(c, in->win + keep, fill - keep) :
				 inflate_into(c, in->win + keep, fill - keep) :
		      gmon_in_read(in, in->win + keep, fill - keep)) {
		if (!c->bad)
			gmon_cur_fail(c, "%s", gmon_in_error(in));
		return 0;
	}
	c->len = fill;
	c->more -= fill - keep;
	return 1;
}

/* The record being decoded is compressed, rawlen raw bytes: start inflating it (in a second thread
 * when it is big). */
void gmon_in_zstart(struct cur *c, uint64_t rawlen)
{
	struct in *in = c->in;

	if (!c->bad && !in->mem && !in->zin) {
		in->zin = malloc(GMON_WINDOW);
		in->zincap = GMON_WINDOW;
		if (!in->zin)
			gmon_cur_oom(c, GMON_WINDOW, "reading");
	}
#ifdef GMON_ISAL
	if (!c->bad && !in->zs && !(in->zs = malloc(sizeof(*in->zs))))
		gmon_cur_oom(c, sizeof(*in->zs), "inflating");
	if (!c->bad) {
		isal_inflate_init(in->zs); /* raw deflate, no check computed */
		in->zhead = 0;
		in->zs->avail_in = 0;
	}
#else
	if (!c->bad && !in->z_ready) {
		if (z_inflate_init(&in->z) != Z_OK)
			gmon_cur_oom(c, sizeof(in->z), "zlib");
		else
			in->z_ready = 1;
	} else if (!c->bad && z_inflate_reset(&in->z) != Z_OK) {
		gmon_cur_fail(c, "zlib cannot start");
	}
	/* the record's CRC covers the stored bytes: zlib's own check of the raw ones is not needed */
	if (!c->bad)
		z_no_check(&in->z);
	in->z.avail_in = 0;
#endif
	c->zlib = 1;
	c->p = NULL;
	c->len = 0;
	c->more = rawlen;
	if (!c->bad && gmon_pipe_min && rawlen >= gmon_pipe_min)
		zpipe_start(c);
}

/* The record's raw bytes are all decoded: the stream must end with them (said when it did not, after
 * the inflating thread, if any, is joined). */
void gmon_in_zend(struct cur *c)
{
	if (c->in->pipe)
		zpipe_finish(c);
	else if (!c->bad)
		inflate_end_check(c);
}

/* What decoding a file allocated for its input. */
void gmon_in_release(struct in *in)
{
#ifdef GMON_ISAL
	free(in->zs);
#else
	if (in->z_ready)
		z_inflate_end(&in->z);
#endif
	free(in->zin);
	free(in->win);
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
	return gmon_dec_in(&in, p, err, errsz);
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
