/* Time: the cycle counter the hooks read (TSC, or aarch64's virtual counter) and its frequency. The
 * frequency is taken from where the hardware or the kernel states it (CPUID, the hypervisor, sysfs, a
 * perf_event page, CNTFRQ), else measured against CLOCK_MONOTONIC between start-up and the write:
 * never by waiting, so a short run costs nothing (issue 11). The file says which (enum gmon_tsc_source). */
#include "spyrt.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__linux__)
#include <linux/perf_event.h>
#endif

uint64_t spy_now_ns(int clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int spy_tsc_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;

	/* CPUID 0x80000007 EDX bit 8: invariant TSC */
	if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000007u &&
	    __get_cpuid(0x80000007u, &a, &b, &c, &d))
		return (d >> 8) & 1;
	return 0;
#else
	return 1; /* the generic timer runs at a fixed frequency */
#endif
}

/* A time stamp and CLOCK_MONOTONIC read together: each try brackets the clock between two time
 * stamps and the tightest bracket wins, so a preemption between the two reads cannot skew them. */
void spy_tsc_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 8; i++) {
		uint64_t a = spy_cycles(), n = spy_now_ns(CLOCK_MONOTONIC), b = spy_cycles();

		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = n;
		}
	}
}

static uint64_t ratio_hz(uint64_t cyc, uint64_t ns)
{
	return ns ? (uint64_t)((double)cyc * 1e9 / (double)ns + 0.5) : 0;
}

uint64_t spy_tsc_hz_cpuid15(uint32_t den, uint32_t num, uint32_t crystal_hz, uint32_t base_mhz)
{
	if (!den || !num)
		return 0;
	/* no crystal stated: the base frequency is crystal * num / den (the kernel does the same) */
	if (!crystal_hz)
		crystal_hz = (uint32_t)((uint64_t)base_mhz * 1000000u * den / num);
	return (uint64_t)crystal_hz * num / den;
}

uint64_t spy_tsc_hz_perf(uint32_t mult, uint16_t shift)
{
	/* the kernel's cycles to ns: ns = cyc * mult >> shift */
	if (!mult || shift > 63)
		return 0;
	return (uint64_t)(1e9 * (double)((uint64_t)1 << shift) / (double)mult + 0.5);
}

#if defined(__x86_64__) || defined(__i386__)
/* Each CPUID is a trap to the hypervisor in a virtual machine (some 4 µs here): no more than needed. */
static uint64_t from_cpuid(void)
{
	unsigned max, a, b, c, d, base = 0;

	if (!__get_cpuid(0, &max, &b, &c, &d) || max < 0x15)
		return 0;
	__cpuid_count(0x15, 0, a, b, c, d);
	if (a && b && !c && max >= 0x16) {
		unsigned a16, b16, c16, d16;

		__cpuid_count(0x16, 0, a16, b16, c16, d16);
		base = a16 & 0xffff;
	}
	return spy_tsc_hz_cpuid15(a, b, c, base);
}

static uint64_t from_hypervisor(void)
{
	unsigned a, b, c, d;

	/* CPUID.1:ECX bit 31: running under a hypervisor, whose leaves start at 0x40000000 */
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c >> 31))
		return 0;
	__cpuid(0x40000000u, a, b, c, d);
	if (a < 0x40000010u || a > 0x400000ffu)
		return 0;
	__cpuid(0x40000010u, a, b, c, d);
	return (uint64_t)a * 1000u; /* EAX: the TSC's kHz */
}
#endif

static uint64_t from_sysfs(void)
{
	char buf[32];
	int fd = open("/sys/devices/system/cpu/cpu0/tsc_freq_khz", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return strtoull(buf, NULL, 10) * 1000u;
}

/* The kernel's own conversion of time stamps to ns, as it gives it to user space on the mmap page of
 * a perf event (only when the TSC is its clock and user space may read it: cap_user_time). */
static uint64_t from_perf(void)
{
#if defined(__linux__) && defined(SYS_perf_event_open) && (defined(__x86_64__) || defined(__i386__))
	struct perf_event_attr attr = { 0 };
	struct perf_event_mmap_page *pg;
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t hz = 0;
	int fd;

	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	pg = mmap(NULL, (size_t)psz, PROT_READ, MAP_SHARED, fd, 0);
	if (pg != MAP_FAILED) {
		for (int tries = 0; tries < 100; tries++) {
			uint32_t seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE), mult;
			uint16_t shift;
			int cap;

			cap = pg->cap_user_time;
			mult = pg->time_mult;
			shift = pg->time_shift;
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (!(seq & 1) && __atomic_load_n(&pg->lock, __ATOMIC_RELAXED) == seq) {
				hz = cap ? spy_tsc_hz_perf(mult, shift) : 0;
				break;
			}
		}
		munmap(pg, (size_t)psz);
	}
	close(fd);
	return hz;
#else
	return 0;
#endif
}

/* A rate the hardware or the kernel states, looked up once (at the first write). The perf_event page
 * costs a system call and a mapping (some 40 µs), so it is read only for a run shorter than 1 ms
 * (short): a longer one measures the rate against the kernel's clock to better than 0.01 %. */
static uint64_t known_rate(uint32_t *source, int short_run)
{
	static uint64_t hz;
	static uint32_t src;
	static int done;

	if (__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		*source = src;
		return hz;
	}
#if defined(__aarch64__)
	{
		uint64_t f;

		__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
		if (f) {
			hz = f;
			src = GMON_TSC_ARCH;
		}
	}
#elif defined(__x86_64__) || defined(__i386__)
	if ((hz = from_cpuid()))
		src = GMON_TSC_CPUID;
	else if ((hz = from_hypervisor()))
		src = GMON_TSC_HYPERVISOR;
#endif
	if (!hz && (hz = from_sysfs()))
		src = GMON_TSC_SYSFS;
	if (!hz && short_run && (hz = from_perf()))
		src = GMON_TSC_PERF;
	if (hz || !short_run) /* else a later write of a longer run may look again */
		__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	*source = src;
	return hz;
}

uint64_t spy_tsc_stated_hz(void)
{
	uint64_t hz = 0;

#if defined(__aarch64__)
	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(hz));
#elif defined(__x86_64__) || defined(__i386__)
	if (!(hz = from_cpuid()))
		hz = from_hypervisor();
#endif
	return hz ? hz : from_sysfs();
}

/* A stated rate is checked against the run once the run is long enough to tell (a nominal crystal
 * that is wrong, a virtual machine moved to another host): 100 ms measure it to a few ppm. */
#define SPY_TSC_CHECK_NS 100000000u
#define SPY_TSC_CHECK_PPM 10000u /* 1 % */
#define SPY_TSC_SHORT_NS 1000000u

uint64_t spy_tsc_hz(uint32_t *hdr_flags)
{
	uint64_t c1, n1, measured = 0, hz;
	uint32_t src = 0;

	spy_tsc_pair(&c1, &n1);
	if (n1 > spy_start_mono_ns && c1 > spy_start_tsc)
		measured = ratio_hz(c1 - spy_start_tsc, n1 - spy_start_mono_ns);
	hz = known_rate(&src, n1 - spy_start_mono_ns < SPY_TSC_SHORT_NS);
	if (hz && measured && n1 - spy_start_mono_ns >= SPY_TSC_CHECK_NS &&
	    (hz > measured ? hz - measured : measured - hz) > measured / (1000000u / SPY_TSC_CHECK_PPM))
		hz = 0;
	if (!hz) {
		hz = measured;
		src = GMON_TSC_MEASURED;
	}
	*hdr_flags = (*hdr_flags & ~GMON_HDR_TSC_SOURCE_MASK) | (src << GMON_HDR_TSC_SOURCE_SHIFT);
	return hz;
}
