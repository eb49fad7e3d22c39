/* Sampling in the file: each thread's stacks (live tables copied as they fill, retired threads' kept
 * copies) and the SAMPLING record's parameters and totals, for write.c. */
#include "spyrt.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

int spy_samp_collect(struct spy_thread *t, struct gmon_stack **stacks, uint64_t *nstacks,
		     struct gmon_frame **frames, uint64_t *nframes)
{
	struct spy_samp *s = &t->samp;

	*stacks = NULL;
	*frames = NULL;
	*nstacks = *nframes = 0;
	if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == SPY_THREAD_EXITED) {
		if (!s->nkept)
			return 0;
		*stacks = malloc(s->nkept * sizeof(**stacks));
		*frames = malloc((s->nkept_frames ? s->nkept_frames : 1) * sizeof(**frames));
		if (!*stacks || !*frames) {
			free(*stacks);
			free(*frames);
			*stacks = NULL;
			*frames = NULL;
			return -1;
		}
		memcpy(*frames, s->kept_frames, s->nkept_frames * sizeof(**frames));
		for (uint64_t i = 0; i < s->nkept; i++) {
			(*stacks)[i] = s->kept[i];
			if (s->kept[i].frames)
				(*stacks)[i].frames = *frames + (s->kept[i].frames - s->kept_frames);
		}
		*nstacks = s->nkept;
		*nframes = s->nkept_frames;
		return 0;
	}
	/* its table is set up by its thread (sample.c), which may be now */
	if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != SPY_THREAD_LIVE ||
	    !__atomic_load_n(&s->active, __ATOMIC_ACQUIRE) || !spy_samp_epoch_current(s))
		return 0;
	spy_samp_loads(t);
	return spy_samp_table_copy(s, stacks, nstacks, frames, nframes);
}

struct gmon_sampling *spy_samp_totals(void)
{
	struct gmon_sampling *g;
	struct rusage ru;
	uint64_t now = spy_now_ns(CLOCK_MONOTONIC), time_ns = 0;

	if (spy_cfg.watch == GMON_WATCH_NONE)
		return NULL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->watch = spy_cfg.watch;
	g->flags = spy_samp_flags;
	g->hz = spy_cfg.hz;
	g->divisor = spy_cfg.divisor;
	g->target = strdup(spy_cfg.target ? spy_cfg.target : "");
	g->start = strdup(spy_cfg.start ? spy_cfg.start : "");
	g->stop = strdup(spy_cfg.stop ? spy_cfg.stop : "");
	for (struct spy_thread *t = __atomic_load_n(&spy_threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		struct spy_samp *s = &t->samp;
		uint64_t cpu = 0, wall = 0;
		int state = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE); /* gone: may be made new */

		if (state == SPY_THREAD_GONE)
			continue;
		if (state == SPY_THREAD_LIVE) {
			/* set up by its thread (sample.c), which may be now */
			if (!__atomic_load_n(&s->active, __ATOMIC_ACQUIRE) || !spy_samp_epoch_current(s))
				continue;
			cpu = spy_thread_cpu_ns(t->tid);
			cpu = cpu > s->cpu0_ns ? cpu - s->cpu0_ns : 0;
			wall = now > s->wall0_ns ? now - s->wall0_ns : 0;
		} else {
			cpu = s->cpu_ns;
			wall = s->wall_ns;
		}
		if (SPY_GET(s->sampled)) {
			uint64_t ticks = (spy_cfg.watch == GMON_WATCH_WALL ? wall : cpu) /
					 (spy_samp_period ? spy_samp_period : 1);

			time_ns += ticks;
			uint64_t skipped = SPY_GET(s->skipped);

			time_ns -= skipped < ticks ? skipped : ticks;
		}
		/* a thread may still be sampling (its handler, or the wall sampler for it) */
		g->taken += SPY_GET(s->taken);
		g->missed += SPY_GET(s->missed);
		g->in_runtime += SPY_GET(s->in_runtime);
		g->dropped += SPY_GET(s->dropped);
		g->allocs += SPY_GET(s->allocs);
		g->alloc_bytes += SPY_GET(s->alloc_bytes);
		g->handler_cycles += SPY_GET(s->handler_cycles);
	}
	{ /* the folded threads' (fold.c) */
		const struct spy_samp *s = &spy_folded.samp;

		time_ns += spy_folded_ticks;
		g->taken += s->taken;
		g->missed += s->missed;
		g->in_runtime += s->in_runtime;
		g->dropped += s->dropped;
		g->allocs += s->allocs;
		g->alloc_bytes += s->alloc_bytes;
		g->handler_cycles += s->handler_cycles;
	}
	if (spy_cfg.watch == GMON_WATCH_CPU || spy_cfg.watch == GMON_WATCH_WALL)
		g->expected = time_ns;
	if (!getrusage(RUSAGE_SELF, &ru)) {
		g->cpu_ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
			    ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
		g->cpu_ns -= g->cpu_ns > spy_calib_cpu_ns ? spy_calib_cpu_ns : g->cpu_ns; /* the profiler's */
		g->faults = (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt;
	}
	if (!g->target || !g->start || !g->stop) {
		free(g->target);
		free(g->start);
		free(g->stop);
		free(g);
		return NULL;
	}
	return g;
}
