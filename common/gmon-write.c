/* Writing a profile file where other users may be at work: the runtime writes gmon.out into whatever
 * directory the program runs in, sometimes as root, and spinprof writes gmon.sum. What is opened is
 * what was checked (every object is pinned by a descriptor first, decisions are made on fstat of that
 * descriptor), no name is followed or reused that another user could have put there, and a new file
 * appears whole or not at all. */
#include "gmon-private.h"

/* ---- atomic file write ----------------------------------------------------------------------------- */

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int is_stream(mode_t m)
{
	return S_ISCHR(m) || S_ISFIFO(m) || S_ISSOCK(m);
}

/* "BASE.tmp" and 64 random bits: a name no other user can take beforehand (the pid and a counter
 * could all be made in advance). Without getrandom (no entropy yet at boot, an old kernel) the clock
 * and the stack's address stand in: still not a name to be guessed a hundred times. */
static void tmp_name(char *out, size_t sz, const char *base)
{
	static uint64_t calls;
	uint64_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = ((uint64_t)ts.tv_sec << 32 ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 40 ^
		     (uint64_t)(uintptr_t)&r) *
		    (__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) | 1) * 0x9e3779b97f4a7c15u;
	}
	/* the base cut so that the whole stays a legal name (NAME_MAX) */
	snprintf(out, sz, "%.*s.tmp%016" PRIx64, (int)(NAME_MAX - 20), base, r);
}

/*
 * The new file, then rename() over base in dir: readers never see half a profile, and what was at
 * base (a file, a symlink, a FIFO) is replaced, never followed or written into.
 * O_TMPFILE first: the file has no name while it is written, so a kill leaves nothing behind and there
 * is no name to take; linkat() gives it one (through /proc/self/fd, which needs no privilege) just
 * before the rename, since linkat cannot replace. A file system without O_TMPFILE (NFS, an old kernel)
 * takes a named temporary (O_CREAT|O_EXCL|O_NOFOLLOW) under an unpredictable name instead.
 */
static int replace(int dir, const char *base, const void *buf, size_t len, char *err, size_t errsz)
{
	char name[NAME_MAX + 1], proc[40];
	int fd, saved, linked = 0;

	/* no O_TMPFILE: EOPNOTSUPP from the file system, EISDIR or ENOENT from a kernel before 3.11 */
	fd = openat(dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	if (fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != ENOENT && errno != EINVAL) {
		snprintf(err, errsz, "cannot create a file next to it: %s", strerror(errno));
		return -1;
	}
	if (fd >= 0) {
		if (write_all(fd, buf, len)) {
			saved = errno;
			close(fd);
			snprintf(err, errsz, "write error: %s", strerror(saved));
			return -1;
		}
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		for (int i = 0; i < 100 && !linked; i++) {
			tmp_name(name, sizeof(name), base);
			linked = !linkat(AT_FDCWD, proc, dir, name, AT_SYMLINK_FOLLOW);
			/* no /proc (a chroot): AT_EMPTY_PATH, which needs CAP_DAC_READ_SEARCH */
			if (!linked && errno == ENOENT)
				linked = !linkat(fd, "", dir, name, AT_EMPTY_PATH);
			if (!linked && errno != EEXIST)
				break;
		}
		if (!linked) {
			close(fd); /* unnamed: nothing to clean up; the named way below writes it again */
		} else if (close(fd)) {
			saved = errno;
			unlinkat(dir, name, 0);
			snprintf(err, errsz, "write error: %s", strerror(saved));
			return -1;
		}
	}
	if (!linked) {
		for (int i = 0; i < 100; i++) {
			tmp_name(name, sizeof(name), base);
			fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
			if (fd >= 0 || errno != EEXIST)
				break;
		}
		if (fd < 0) {
			snprintf(err, errsz, "cannot create a file next to it: %s", strerror(errno));
			return -1;
		}
		if (write_all(fd, buf, len)) {
			saved = errno;
			close(fd);
			unlinkat(dir, name, 0);
			snprintf(err, errsz, "write error: %s", strerror(saved));
			return -1;
		}
		if (close(fd)) {
			saved = errno;
			unlinkat(dir, name, 0);
			snprintf(err, errsz, "write error: %s", strerror(saved));
			return -1;
		}
	}
	/* no fsync: rename() already makes the file appear whole to readers; what fsync adds is the
	 * file's survival of a crash of the machine, at 1-8 ms a process on a busy disk, which every
	 * process of a test suite would pay (issue 11). glibc's gmon.out has no fsync either. */
	if (renameat(dir, name, dir, base)) {
		saved = errno;
		unlinkat(dir, name, 0);
		snprintf(err, errsz, "cannot rename the new file into place: %s", strerror(saved));
		return -1;
	}
	return 0;
}

/* What the symlink pinned by lfd (base in dir) leads to, pinned in turn (O_PATH), or -1. Its target
 * is read from that very link, so a link put in its place since is not what is followed. A link of
 * /proc (/dev/fd/1, /proc/self/fd/1) leads to a descriptor of the process, which its text does not
 * name: the kernel follows it (no other user can make or swap one). */
static int follow(int dir, const char *base, int lfd, char *buf, size_t sz)
{
	struct statfs fs;
	ssize_t n;

	if (!fstatfs(lfd, &fs) && fs.f_type == PROC_SUPER_MAGIC)
		return openat(dir, base, O_PATH | O_CLOEXEC);
	n = readlinkat(lfd, "", buf, sz);
	if (n <= 0 || (size_t)n >= sz)
		return -1;
	buf[n] = 0;
	return openat(dir, buf, O_PATH | O_CLOEXEC);
}

/* The device, FIFO or socket pinned by pfd (with stat *st), written into as a stream. It is opened
 * again through /proc/self/fd, which reaches that very object whatever its name leads to now. A FIFO
 * without a reader is an error, not a wait that would hang the program at exit. */
static int write_stream(int pfd, const struct stat *st, const void *buf, size_t len, char *err, size_t errsz)
{
	char proc[40];
	struct stat now;
	int fd, saved;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errsz, "cannot open it for writing: %s",
			 errno == ENXIO  ? "no reader (a FIFO or socket)" :
			 errno == ENOENT ? "no /proc to open it by its descriptor" :
					   strerror(errno));
		return -1;
	}
	if (fstat(fd, &now) || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
		close(fd);
		snprintf(err, errsz, "changed while it was opened: not written");
		return -1;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) || write_all(fd, buf, len)) {
		saved = errno;
		close(fd);
		snprintf(err, errsz, "write error: %s", strerror(saved));
		return -1;
	}
	close(fd);
	return 0;
}

/* Whether what is at a named path may be used as it is: made by this process's user, or by root. */
static int trusted(const struct stat *st)
{
	return st->st_uid == geteuid() || st->st_uid == 0;
}

/* gmon_write_file in dir (a descriptor, or AT_FDCWD); buf (PATH_MAX bytes) is scratch. */
static int write_at(int dir, const char *base, const void *data, size_t len, unsigned flags, char *buf,
		    char *err, size_t errsz)
{
	struct stat st;
	int pfd = openat(dir, base, O_PATH | O_NOFOLLOW | O_CLOEXEC), rc;

	/* nothing there (or no way to it: replace says why) */
	if (pfd < 0)
		return replace(dir, base, data, len, err, errsz);
	if (fstat(pfd, &st)) {
		close(pfd);
		return replace(dir, base, data, len, err, errsz);
	}
	if (S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode)) {
		close(pfd);
		snprintf(err, errsz, "%s: not replaced",
			 S_ISDIR(st.st_mode) ? "is a directory" : "is a block device");
		return -1;
	}
	/* only a path the user named, and only what that user or root put there, is followed or
	 * written into: a FIFO, a socket or a symlink under the default name, or made by another
	 * user, may be a trap (fs.protected_fifos and fs.protected_symlinks say the same, when on) */
	if (!(flags & GMON_WRITE_NAMED) || !trusted(&st) || !(S_ISLNK(st.st_mode) || is_stream(st.st_mode))) {
		close(pfd);
		return replace(dir, base, data, len, err, errsz);
	}
	if (S_ISLNK(st.st_mode)) {
		int tfd = follow(dir, base, pfd, buf, PATH_MAX);

		close(pfd);
		/* a link to anything but a stream is replaced, not followed (as a dangling one) */
		if (tfd < 0 || fstat(tfd, &st) || !is_stream(st.st_mode)) {
			if (tfd >= 0)
				close(tfd);
			return replace(dir, base, data, len, err, errsz);
		}
		pfd = tfd;
	}
	rc = write_stream(pfd, &st, data, len, err, errsz);
	close(pfd);
	return rc;
}

int gmon_write_file(const char *path, const void *buf, size_t len, unsigned flags, char *err, size_t errsz)
{
	char scratch[PATH_MAX];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	int dir = AT_FDCWD, rc;

	if (!*path) {
		snprintf(err, errsz, "empty path");
		return -1;
	}
	if (!*base) {
		snprintf(err, errsz, "is a directory: not replaced");
		return -1;
	}
	/* the directory pinned once: every step below happens in the same one */
	if (slash) {
		size_t n = slash == path ? 1 : (size_t)(slash - path);

		if (n >= sizeof(scratch)) {
			snprintf(err, errsz, "path too long");
			return -1;
		}
		memcpy(scratch, path, n);
		scratch[n] = 0;
		dir = open(scratch, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dir < 0) {
			snprintf(err, errsz, "cannot create a file next to it: %s", strerror(errno));
			return -1;
		}
	}
	rc = write_at(dir, base, buf, len, flags, scratch, err, errsz);
	if (dir >= 0)
		close(dir);
	return rc;
}
