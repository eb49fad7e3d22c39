/* Where a spy profile's threads blocked (format revision 5, the THREAD records' waits), as Cedar's
 * process states: each place named by the function holding the PC the kernel sampled at the switch
 * (glibc's system call wrappers), put in a state, under the instrumented function it was made in.
 * The header's "blocked" lines (print-header.c) and the JSON's threads (out-json.c) use it. */
#ifndef SPINPROF_WAITS_H
#define SPINPROF_WAITS_H

#include <stddef.h>
#include <stdint.h>

struct prof;
struct gmon_thread;

enum wait_state {
	WAIT_LOCK,
	WAIT_COND,
	WAIT_SLEEP,
	WAIT_IO,
	WAIT_FAULT,
	WAIT_OTHER,
	WAIT_NSTATES
};
extern const char *const wait_state_name[WAIT_NSTATES];

/* One place: the call (raw names, escaped by the output), and the function it was made under. */
struct wait_place {
	enum wait_state st;
	uint32_t kind;     /* enum gmon_wait_kind */
	uint64_t pc;       /* when name is empty */
	char name[128];    /* the function holding the PC, without glibc's decorations, or "" */
	char module[64];   /* its module's file name, or "" */
	const char *under; /* the instrumented function (owned by the prof), "-" none */
	uint64_t count, cycles;
};

/* The places of thread t (NULL: every thread's, the same place summed), most cycles first, in *out
 * (malloc'ed, NULL when none); their cycles by state in by. Returns how many. */
size_t wait_places(const struct prof *p, const struct gmon_thread *t, struct wait_place **out,
		   uint64_t by[WAIT_NSTATES]);
/* A place's call in the text form: "NAME [MODULE]", "at NAME [MODULE]" for a fault's instruction,
 * "(no sample said where)", "(the rest: ...)". */
void wait_call(const struct wait_place *w, char *buf, size_t size);
/* The state of a call into glibc, by its bare name ("lll_lock_wait": lock). */
enum wait_state wait_state_of(const char *name);
/* name without glibc's decorations, into out: "__GI___clock_nanosleep" is "clock_nanosleep",
 * "__libc_read" and "__read_nocancel" "read"; a version ("@GLIBC_2.2.5") goes too. */
void wait_bare_name(const char *name, char *out, size_t size);

#endif
