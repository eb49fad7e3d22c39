/* bench/mcload.c: a bounded memcached client for bench/realprog2.sh. NCONN threads, each on its own
 * TCP connection to 127.0.0.1:PORT, each doing NREQ/NCONN "set" requests and then as many "get"
 * requests of the keys it set, one request in flight at a time (each answer read before the next
 * request), and checking every answer. Retries the first connect for up to 60 s (the server may run
 * under valgrind). Prints "sets=N gets=N hits=N" and exits 0 when every answer was right, else one
 * line on stderr and exit 1.
 *
 * usage: mcload PORT NCONN NREQ
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum {
	VALUE_LEN = 100
};

static int port;
static long per_conn;

struct conn {
	int id;
	long hits;
	int failed;
	char buf[4096];
	size_t have;
};

static int dial(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (int tries = 0; tries < 600; tries++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			return -1;
		if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
			int one = 1;
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
			return fd;
		}
		close(fd);
		nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
	}
	return -1;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* read until the buffer holds END (a string ending in "\r\n"); returns its length, or -1 */
static long read_until(int fd, struct conn *c, const char *end)
{
	size_t elen = strlen(end);
	for (;;) {
		if (c->have >= elen) {
			char *hit = memmem(c->buf, c->have, end, elen);
			if (hit != NULL)
				return (long)(hit - c->buf + (long)elen);
		}
		if (c->have == sizeof c->buf)
			return -1;
		ssize_t r = read(fd, c->buf + c->have, sizeof c->buf - c->have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c->have += (size_t)r;
	}
}

static void consume(struct conn *c, long n)
{
	memmove(c->buf, c->buf + n, c->have - (size_t)n);
	c->have -= (size_t)n;
}

static void *worker(void *arg)
{
	struct conn *c = arg;
	char req[512], value[VALUE_LEN + 1];
	int fd = dial();
	if (fd < 0) {
		c->failed = 1;
		return NULL;
	}
	for (int i = 0; i < VALUE_LEN; i++)
		value[i] = (char)('a' + (i + c->id) % 26);
	value[VALUE_LEN] = 0;
	for (long i = 0; i < per_conn && !c->failed; i++) {
		int n = snprintf(req, sizeof req, "set key:%d:%ld 0 0 %d\r\n%s\r\n", c->id, i, VALUE_LEN,
				 value);
		long got;
		if (send_all(fd, req, (size_t)n) < 0 || (got = read_until(fd, c, "\r\n")) < 0 ||
		    strncmp(c->buf, "STORED\r\n", 8) != 0)
			c->failed = 1;
		else
			consume(c, got);
	}
	for (long i = 0; i < per_conn && !c->failed; i++) {
		int n = snprintf(req, sizeof req, "get key:%d:%ld\r\n", c->id, i);
		long got;
		if (send_all(fd, req, (size_t)n) < 0 || (got = read_until(fd, c, "END\r\n")) < 0) {
			c->failed = 1;
			break;
		}
		if (strncmp(c->buf, "VALUE ", 6) == 0 && memmem(c->buf, (size_t)got, value, VALUE_LEN))
			c->hits++;
		consume(c, got);
	}
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: mcload PORT NCONN NREQ\n");
		return 2;
	}
	port = atoi(argv[1]);
	int nconn = atoi(argv[2]);
	long nreq = atol(argv[3]);
	if (port <= 0 || nconn <= 0 || nconn > 64 || nreq < nconn) {
		fprintf(stderr, "mcload: bad arguments\n");
		return 2;
	}
	per_conn = nreq / nconn;
	struct conn *c = calloc((size_t)nconn, sizeof *c);
	pthread_t *t = calloc((size_t)nconn, sizeof *t);
	if (c == NULL || t == NULL)
		return 1;
	for (int i = 0; i < nconn; i++) {
		c[i].id = i;
		if (pthread_create(&t[i], NULL, worker, &c[i]) != 0)
			return 1;
	}
	long hits = 0;
	int failed = 0;
	for (int i = 0; i < nconn; i++) {
		pthread_join(t[i], NULL);
		hits += c[i].hits;
		failed |= c[i].failed;
	}
	printf("sets=%ld gets=%ld hits=%ld\n", per_conn * nconn, per_conn * nconn, hits);
	if (failed || hits != per_conn * nconn) {
		fprintf(stderr, "mcload: %s\n",
			failed ? "a request failed" : "a get missed a key it had set");
		return 1;
	}
	return 0;
}
