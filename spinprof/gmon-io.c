/* The spy file format's one encoder and decoder, common/gmon-io.c, compiled into spinprof (the
 * Makefile builds spinprof from only the C files of spinprof/; this file's own name keeps the include apart).
 * spinprof inflates with Intel ISA-L, about twice as fast as zlib on big profiles. */
#define GMON_ISAL 1
#include "../common/gmon-io.c"
