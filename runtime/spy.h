/* spy.h: control of the spy runtime (libspyrt) from the profiled program itself. Link with -lspyrt.
 * Recording starts on unless SPYRT_OFF=1; the profile is written at exit to SPYRT_OUT (gmon.out).
 * See libspyrt(3). */
#ifndef SPY_H
#define SPY_H

#ifdef __cplusplus
extern "C" {
#endif

/* Start recording arcs and times (and counting calls), as SPIN's ProfileSupport.On. */
void spy_on(void);
/* Stop recording; calls made while off are not in the profile. Calls still active go on being
 * timed until they return. */
void spy_off(void);
/* Throw away everything recorded so far (counts, arcs, times) in every thread. */
void spy_flush(void);
/* 1 while recording, else 0 (SPYRT_START/SPYRT_STOP included). */
int spy_enabled(void);
/* Write the profile now, atomically, to path (NULL: SPYRT_OUT). Recording goes on. Returns 0, or -1
 * after one line on stderr saying why. */
int spy_dump(const char *path);

#ifdef __cplusplus
}
#endif

#endif
