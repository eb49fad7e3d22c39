/* The runtime's environment variables, read once at start-up. Every value is checked; a bad one costs
 * one line on stderr naming the variable, the value and the default used instead, never the run. */
#include "spyrt.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct spy_config spy_cfg;

/* A warning's longest line, and what a longer one keeps of its start and of its end (the reason). */
#define WARN_MAX 1000
#define WARN_HEAD 600
#define WARN_TAIL 300

/* The bytes c takes in a line: control characters as \n, \t or \ooo, so a value holds one line. */
static size_t esc_len(unsigned char c)
{
	return c == '\n' || c == '\t' || c == '\\' ? 2 : c < 32 || c == 127 ? 4 : 1;
}

static size_t esc_put(char *o, unsigned char c)
{
	if (esc_len(c) == 1) {
		*o = (char)c;
		return 1;
	}
	if (esc_len(c) == 2) {
		o[0] = '\\';
		o[1] = c == '\n' ? 'n' : c == '\t' ? 't' : '\\';
		return 2;
	}
	o[0] = '\\';
	o[1] = (char)('0' + (c >> 6));
	o[2] = (char)('0' + ((c >> 3) & 7));
	o[3] = (char)('0' + (c & 7));
	return 4;
}

/*
 * One write, so that the line stays whole among other threads' output; with SIGPIPE blocked: a
 * standard error whose reader is gone (prog 2>&1 | head) costs the line, not the program, which
 * SIGPIPE would end with another status. A SIGPIPE this write raised is taken off again; one the
 * program already had stays.
 */
static void line_out(const char *line, size_t len)
{
	SPY_KEEP_ERRNO;
	sigset_t pipe, old, pending;
	int had = 0;

	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, &old);
	if (!sigpending(&pending))
		had = sigismember(&pending, SIGPIPE);
	if (write(STDERR_FILENO, line, len) < 0 && errno == EPIPE && !had) {
		struct timespec zero = { 0, 0 };

		sigtimedwait(&pipe, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void spy_warn(const char *fmt, ...)
{
	char small[1024], line[WARN_MAX + 64], *text = small;
	size_t n, e = 0, o = 0, i, tail;
	va_list ap, again;
	int r;

	va_start(ap, fmt);
	va_copy(again, ap);
	r = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (r < 0) {
		va_end(again);
		return;
	}
	n = (size_t)r;
	/* a long value: the whole text, so that its end (the reason) can be kept */
	if (n >= sizeof(small)) {
		text = malloc(n + 1);
		if (text)
			vsnprintf(text, n + 1, fmt, again);
		else
			text = small, n = sizeof(small) - 1;
	}
	va_end(again);
	for (i = 0; i < n; i++)
		e += esc_len((unsigned char)text[i]);
	if (e <= WARN_MAX) {
		for (i = 0; i < n; i++)
			o += esc_put(line + o, (unsigned char)text[i]);
	} else {
		for (i = 0; o < WARN_HEAD; i++)
			o += esc_put(line + o, (unsigned char)text[i]);
		for (tail = n, e = 0; e + esc_len((unsigned char)text[tail - 1]) <= WARN_TAIL; tail--)
			e += esc_len((unsigned char)text[tail - 1]);
		o += (size_t)snprintf(line + o, sizeof(line) - o, " [%zu bytes left out] ", tail - i);
		for (; tail < n; tail++)
			o += esc_put(line + o, (unsigned char)text[tail]);
	}
	if (text != small)
		free(text);
	line[o++] = '\n';
	line_out(line, o);
}

const char *spy_env_get(char **env, const char *name)
{
	size_t n = strlen(name);

	for (; env && *env; env++)
		if (!strncmp(*env, name, n) && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

static int bool_var(char **env, const char *name, int def)
{
	const char *v = spy_env_get(env, name);

	if (!v)
		return def;
	if (!strcmp(v, "0") || !strcmp(v, "1"))
		return *v == '1';
	spy_warn("spy: %s='%s' is not 0 or 1; using %d", name, v, def);
	return def;
}

static char *name_var(char **env, const char *name)
{
	const char *v = spy_env_get(env, name);

	if (!v)
		return NULL;
	if (!*v || strlen(v) > 1024 || strpbrk(v, " \t\n")) {
		spy_warn("spy: %s='%s' is not a function name; ignored", name, v);
		return NULL;
	}
	return strdup(v);
}

/* NULL when SPYRT_OUT is usable as a pattern, else why not. */
static const char *out_problem(const char *v, int *has_pid)
{
	size_t n = strlen(v);

	*has_pid = 0;
	if (!n)
		return "is empty";
	if (n > PATH_MAX - 64)
		return "is too long";
	if (v[n - 1] == '/')
		return "names a directory";
	for (const char *p = v; *p; p++)
		if (*p == '%') {
			if (p[1] == 'p')
				*has_pid = 1;
			else if (p[1] != '%')
				return "has a % not followed by p or %";
			p++;
		}
	return NULL;
}

static const char *const known[] = { "SPYRT_OUT", "SPYRT_MODE", "SPYRT_ARCS", "SPYRT_START", "SPYRT_STOP",
				     "SPYRT_OFF", "SPYRT_READY", "SPYRT_WATCH", "SPYRT_HZ", "SPYRT_DIVISOR",
				     "SPYRT_START_THREAD", "SPYRT_TRACE", "SPYRT_FAULT_TRACE",
				     "SPYRT_SIGNAL_TRACE", "SPYRT_COUNTERS",
				     /* nodes.c's */
				     "SPYRT_LEGS", "SPYRT_LEG_ADD", "SPYRT_LEG_TRACK", "SPYRT_LEG_THREAD",
				     "SPYRT_HIST", NULL };

/* SPYRT_WATCH's names, as gmon_watch_name() spells them (kept here: env.c is also linked alone). */
static const char *const watch_names[] = {
	[GMON_WATCH_NONE] = "none",
	[GMON_WATCH_CPU] = "cpu",
	[GMON_WATCH_WALL] = "wall",
	[GMON_WATCH_ALLOC] = "alloc",
	[GMON_WATCH_ALLOCBYTES] = "allocbytes",
	[GMON_WATCH_FAULTS] = "faults",
	[GMON_WATCH_CALLS] = "calls",
	[GMON_WATCH_CYCLES] = "cycles",
	[GMON_WATCH_INSTRUCTIONS] = "instructions",
	[GMON_WATCH_CACHE_MISSES] = "cache-misses",
};

static void watch_var(struct spy_config *cfg, const char *v)
{
	for (uint32_t i = 0; i <= GMON_WATCH_LAST; i++)
		if (i != GMON_WATCH_CALLS && !strcmp(v, watch_names[i])) {
			cfg->watch = i;
			return;
		}
	if (!strncmp(v, "calls:", 6)) {
		const char *f = v + 6;

		if (*f && strlen(f) <= 1024 && !strpbrk(f, " \t\n")) {
			char *c = strdup(f);

			if (c) {
				cfg->watch = GMON_WATCH_CALLS;
				cfg->target = c;
			}
			return;
		}
	}
	spy_warn("spy: SPYRT_WATCH='%s' is not none, cpu, wall, alloc, allocbytes, faults, calls:FUNC, "
		 "cycles, instructions or cache-misses; using cpu",
		 v);
}

/* SPYRT_TRACE=FUNC,...: at most SPY_TRACE_FUNCS names without blanks, none empty; else one line and
 * no trace. */
static void trace_var(struct spy_config *cfg, const char *v)
{
	uint32_t n = 0;
	const char *p = v;

	if (*v && strlen(v) <= 4096 && !strpbrk(v, " \t\n")) {
		for (n = 1; *p; p++)
			n += *p == ',';
		if (n <= SPY_TRACE_FUNCS && !strstr(v, ",,") && v[0] != ',' && p[-1] != ',') {
			char *c = strdup(v);

			if (c) {
				cfg->trace = c;
				cfg->ntrace = n;
			}
			return;
		}
	}
	spy_warn("spy: SPYRT_TRACE='%s' is not a list of at most %u function names (FUNC,...); no trace", v,
		 SPY_TRACE_FUNCS);
}

/* The first five count what the CPU does (hardware: counters.c opens them as such), the rest are the
 * kernel's software events. */
const char *const spy_ctr_names[SPY_CTR_EVENTS] = {
	"instructions",     "cycles",     "cache-misses", "branch-misses", "page-faults",
	"context-switches", "task-clock", "minor-faults", "major-faults",
};

/* SPYRT_COUNTERS=EVENT[,EVENT...]: at most GMON_CTR_MAX known names, none twice; else one line and no
 * counters. */
static void counters_var(struct spy_config *cfg, const char *v)
{
	const char *p = v;
	uint32_t n = 0;

	while (*v) {
		size_t len = strcspn(p, ",");
		uint32_t e = 0;

		while (e < SPY_CTR_EVENTS &&
		       (strlen(spy_ctr_names[e]) != len || strncmp(spy_ctr_names[e], p, len)))
			e++;
		if (e == SPY_CTR_EVENTS || n == GMON_CTR_MAX)
			goto bad;
		for (uint32_t k = 0; k < n; k++)
			if (cfg->ctr[k] == e)
				goto bad;
		cfg->ctr[n++] = e;
		if (!p[len])
			break;
		p += len + 1;
		if (!*p)
			goto bad;
	}
	cfg->nctr = n;
	return;
bad:
	spy_warn(
		"spy: SPYRT_COUNTERS='%s' is not a list of at most %d different events of instructions, "
		"cycles, cache-misses, branch-misses, page-faults, context-switches, task-clock, minor-faults, "
		"major-faults; no counters",
		v, GMON_CTR_MAX);
}

/* A whole decimal number in [lo, hi], or def after one line naming the variable. */
static uint32_t range_var(char **env, const char *name, uint32_t lo, uint32_t hi, uint32_t def,
			  const char *what)
{
	const char *v = spy_env_get(env, name);
	char *end;
	unsigned long n;

	if (!v)
		return def;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (*v < '0' || *v > '9' || *end || errno || n < lo || n > hi) {
		spy_warn("spy: %s='%s' is not %s from %u to %u; using %u", name, v, what, lo, hi, def);
		return def;
	}
	return (uint32_t)n;
}

static int in_list(const char *const *list, const char *name, size_t n)
{
	for (; *list; list++)
		if (strlen(*list) == n && !strncmp(*list, name, n))
			return 1;
	return 0;
}

void spy_env_load(struct spy_config *cfg, char **env)
{
	const char *v;

	memset(cfg, 0, sizeof(*cfg));
	cfg->out = strdup("gmon.out");
	cfg->mode = SPY_MODE_TIME;
	cfg->arcs = SPY_ARCS_DEFAULT;
	cfg->watch = GMON_WATCH_CPU;
	cfg->hz = SPY_HZ_DEFAULT;
	cfg->divisor = 1;

	v = spy_env_get(env, "SPYRT_OUT");
	if (v) {
		int has_pid;
		const char *why = out_problem(v, &has_pid);

		if (why) {
			spy_warn("spy: SPYRT_OUT='%s' %s; using gmon.out", v, why);
		} else {
			char *c = strdup(v);

			if (c) {
				free(cfg->out);
				cfg->out = c;
				cfg->out_has_pid = has_pid;
				cfg->out_named = 1;
			}
		}
	}
	v = spy_env_get(env, "SPYRT_MODE");
	if (v) {
		if (!strcmp(v, "count"))
			cfg->mode = SPY_MODE_COUNT;
		else if (!strcmp(v, "arcs"))
			cfg->mode = SPY_MODE_ARCS;
		else if (!strcmp(v, "time"))
			cfg->mode = SPY_MODE_TIME;
		else
			spy_warn("spy: SPYRT_MODE='%s' is not count, arcs or time; using time", v);
	}
	v = spy_env_get(env, "SPYRT_ARCS");
	if (v) {
		char *end;
		unsigned long n;

		errno = 0;
		n = strtoul(v, &end, 10);
		if (*v < '0' || *v > '9' || *end || errno || n < 64 || n > 64ul * SPY_ARCS_HARD)
			spy_warn("spy: SPYRT_ARCS='%s' is not a number of arcs from 64 to %lu; using %u", v,
				 64ul * SPY_ARCS_HARD, SPY_ARCS_DEFAULT);
		else
			cfg->arcs = (uint32_t)n;
	}
	cfg->start = name_var(env, "SPYRT_START");
	cfg->stop = name_var(env, "SPYRT_STOP");
	cfg->start_thread = bool_var(env, "SPYRT_START_THREAD", 0);
	if (cfg->start_thread && !cfg->start) {
		spy_warn("spy: SPYRT_START_THREAD='%s' without SPYRT_START has no thread to follow; using 0",
			 spy_env_get(env, "SPYRT_START_THREAD"));
		cfg->start_thread = 0;
	}
	cfg->off = bool_var(env, "SPYRT_OFF", 0);
	cfg->ready = bool_var(env, "SPYRT_READY", 0);
	v = spy_env_get(env, "SPYRT_WATCH");
	if (v)
		watch_var(cfg, v);
	cfg->hz = range_var(env, "SPYRT_HZ", 1, SPY_HZ_MAX, SPY_HZ_DEFAULT, "a rate in Hz");
	/* a hardware counter is sampled every divisor events: a million cycles or instructions, ten
	 * thousand cache misses, unless said */
	cfg->divisor = range_var(env, "SPYRT_DIVISOR", 1, SPY_DIVISOR_MAX,
				 !GMON_WATCH_HARDWARE(cfg->watch)      ? 1 :
				 cfg->watch == GMON_WATCH_CACHE_MISSES ? 10000 :
									 1000000,
				 "a divisor");
	v = spy_env_get(env, "SPYRT_TRACE");
	if (v)
		trace_var(cfg, v);
	v = spy_env_get(env, "SPYRT_COUNTERS");
	if (v)
		counters_var(cfg, v);
	cfg->signal_trace =
		range_var(env, "SPYRT_SIGNAL_TRACE", 0, SPY_FAULT_TRACE_MAX, 0, "a number of signals");
	cfg->fault_trace = range_var(env, "SPYRT_FAULT_TRACE", 0, SPY_FAULT_TRACE_MAX,
				     SPY_FAULT_TRACE_DEFAULT, "a number of page faults");

	/* a misspelt variable would otherwise be silently without effect */
	for (char **e = env; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t n = eq ? (size_t)(eq - *e) : strlen(*e);

		if (strncmp(*e, "SPYRT_", 6) || in_list(known, *e, n))
			continue;
		spy_warn("spy: unknown variable %.*s='%s'; ignored", (int)n, *e, eq ? eq + 1 : "");
	}
}

struct spy_caller spy_caller;

char **spy_env_trusted(char **env, int secure)
{
	static char *none[] = { NULL };

	if (!secure)
		return env;
	spy_caller = (struct spy_caller){ 1, getuid(), getgid() };
	for (char **e = env; e && *e; e++)
		if (!strncmp(*e, "SPYRT_", 6)) {
			spy_warn(
				"spy: setuid, setgid or with file capabilities: every SPYRT_ variable is "
				"ignored; the profile is gmon.out in the current directory, written with the "
				"rights of uid %u",
				(unsigned)spy_caller.uid);
			break;
		}
	return none;
}

void spy_out_anchor(struct spy_config *cfg)
{
	char cwd[PATH_MAX], *s, *o;
	size_t pct = 0, len;

	if (!cfg->out || cfg->out[0] == '/' || !getcwd(cwd, sizeof(cwd)) || cwd[0] != '/')
		return;
	for (const char *c = cwd; *c; c++)
		pct += *c == '%';
	/* room left for %p's pids and a forked child's suffix */
	len = strlen(cwd) + pct + 1 + strlen(cfg->out) + 1;
	if (len > PATH_MAX - 64 || !(s = malloc(len)))
		return;
	o = s;
	for (const char *c = cwd; *c; c++) {
		*o++ = *c;
		if (*c == '%')
			*o++ = '%'; /* the name is a pattern: the directory's own % stays one */
	}
	if (o[-1] != '/')
		*o++ = '/';
	strcpy(o, cfg->out);
	free(cfg->out);
	cfg->out = s;
}

int spy_out_path(const struct spy_config *cfg, char *buf, size_t sz, pid_t pid, int forked)
{
	size_t o = 0;
	int n;

	for (const char *p = cfg->out; *p; p++) {
		if (*p == '%' && p[1] == 'p') {
			n = snprintf(buf + o, sz - o, "%ld", (long)pid);
			if (n < 0 || (size_t)n >= sz - o)
				return -1;
			o += (size_t)n;
			p++;
			continue;
		}
		if (*p == '%' && p[1] == '%')
			p++;
		if (o + 1 >= sz)
			return -1;
		buf[o++] = *p;
	}
	buf[o] = 0;
	/* a forked child must not overwrite its parent's file */
	if (forked && !cfg->out_has_pid) {
		n = snprintf(buf + o, sz - o, ".%ld", (long)pid);
		if (n < 0 || (size_t)n >= sz - o)
			return -1;
	}
	return 0;
}
