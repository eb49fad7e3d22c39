/* waits: main blocks five ways, each for a time it sets (t148; no .expect), one function a way:
 *   napper()   sleeps 300 ms in nanosleep                                   (sleep)
 *   locker()   takes a mutex that helper holds 200 ms more                  (lock)
 *   waiter()   waits on a condition variable helper signals 200 ms later    (condition variable)
 *   reader()   reads a pipe helper writes 200 ms later                      (I/O)
 *   toucher()  touches a page that a userfaultfd handler fills 200 ms later (page fault)
 * helper runs each step when main says it is about to block (a flag, then 200 ms of nanosleep), so
 * main's waits are at least 200 ms each, and helper's own sleeps (5 of 200 ms) are in helper().
 * Without userfaultfd (refused, or no kernel support) toucher() touches an ordinary page, and the
 * program prints "uffd 0" instead of "uffd 1". */
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sample.h"

#define STEP_NS 200000000u

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int step, signalled, pipefd[2], uffd = -1;
static char *page;
static long page_size;

static void sleep_ns(uint64_t ns)
{
	struct timespec d = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	while (nanosleep(&d, &d))
		;
}

/* helper waits until main is at step s (main sets it just before it blocks) */
static void await_step(int s)
{
	while (__atomic_load_n(&step, __ATOMIC_ACQUIRE) < s)
		sleep_ns(1000000);
}

NOINL void *helper(void *p)
{
	struct uffdio_copy copy;
	struct uffd_msg msg;
	char *src;

	/* lock: hold m from before main tries until 200 ms after */
	pthread_mutex_lock(&m);
	__atomic_store_n(&step, 1, __ATOMIC_RELEASE);
	await_step(2);
	sleep_ns(STEP_NS);
	pthread_mutex_unlock(&m);
	/* condition variable */
	await_step(3);
	sleep_ns(STEP_NS);
	pthread_mutex_lock(&m);
	signalled = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&m);
	/* I/O */
	await_step(4);
	sleep_ns(STEP_NS);
	if (write(pipefd[1], "x", 1) != 1)
		abort();
	/* page fault: the fault's message arrives at once; fill the page 200 ms later */
	if (uffd < 0)
		return p;
	if (read(uffd, &msg, sizeof(msg)) != (ssize_t)sizeof(msg) || msg.event != UFFD_EVENT_PAGEFAULT)
		abort();
	sleep_ns(STEP_NS);
	src = malloc((size_t)page_size);
	if (!src)
		abort();
	memset(src, 7, (size_t)page_size);
	copy.dst = (uintptr_t)page;
	copy.src = (uintptr_t)src;
	copy.len = (uint64_t)page_size;
	copy.mode = 0;
	copy.copy = 0;
	if (ioctl(uffd, UFFDIO_COPY, &copy))
		abort();
	free(src);
	return p;
}

NOINL void napper(void)
{
	sleep_ns(300000000u);
	BARRIER();
}

NOINL void locker(void)
{
	__atomic_store_n(&step, 2, __ATOMIC_RELEASE);
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	BARRIER();
}

NOINL void waiter(void)
{
	pthread_mutex_lock(&m);
	__atomic_store_n(&step, 3, __ATOMIC_RELEASE);
	while (!signalled)
		pthread_cond_wait(&cv, &m);
	pthread_mutex_unlock(&m);
	BARRIER();
}

NOINL void reader(void)
{
	char c;

	__atomic_store_n(&step, 4, __ATOMIC_RELEASE);
	if (read(pipefd[0], &c, 1) != 1)
		abort();
	BARRIER();
}

NOINL int toucher(void)
{
	int v = *(volatile char *)page;

	BARRIER();
	return v;
}

/* a userfaultfd over one page (user-mode faults only: no privilege needed), or -1 */
static int uffd_open(void)
{
	struct uffdio_api api = { .api = UFFD_API, .features = 0 };
	struct uffdio_register reg;
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);

	if (fd < 0)
		fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (fd < 0)
		return -1;
	reg.range.start = (uintptr_t)page;
	reg.range.len = (uint64_t)page_size;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(fd, UFFDIO_API, &api) || ioctl(fd, UFFDIO_REGISTER, &reg)) {
		close(fd);
		return -1;
	}
	return fd;
}

int main(void)
{
	pthread_t h;

	page_size = sysconf(_SC_PAGESIZE);
	page = mmap(NULL, (size_t)page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || pipe(pipefd))
		return 1;
	uffd = uffd_open();
	napper();
	if (pthread_create(&h, NULL, helper, NULL))
		return 1;
	while (!__atomic_load_n(&step, __ATOMIC_ACQUIRE))
		sleep_ns(1000000);
	locker();
	waiter();
	reader();
	toucher();
	pthread_join(h, NULL);
	printf("uffd %d\n", uffd >= 0);
	return 0;
}
