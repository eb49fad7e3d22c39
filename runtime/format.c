/* The file format's encoder and decoder, common/gmon-io.c, compiled into the runtime: one definition
 * shared with spinprof (this file has another name, so the include cannot find itself). zlib is
 * found with dlopen when a section is first compressed, so programs link without -lz. */
#define GMON_ZLIB_DLOPEN 1
#include "spyrt.h" /* the runtime's names for the format's functions */
#include "../common/gmon-io.c"
