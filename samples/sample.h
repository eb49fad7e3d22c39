/* Shared by the samples: how to pin a function's out-of-line shape so the expected counts hold at
 * every optimisation level. */
#ifndef SAMPLE_H
#define SAMPLE_H

/* Keep the function out of line, unchanged and uncloned: its calls are exactly the source's. */
#define NOINL __attribute__((noinline, noipa))

/* An empty asm with a memory clobber: placed after a call it stops the call from becoming a tail
 * call (and tail recursion from becoming a loop); placed in a loop it keeps the loop's calls. */
#define BARRIER() __asm__ volatile("" ::: "memory")

#endif
