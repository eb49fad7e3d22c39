/* The spy profile file's code is one library, common/, linked into the runtime (which writes) and
 * spinprof (which reads), so both sides agree by construction; each compiles it with its own flags
 * (gmon-private.h says which). This file holds what every part uses: zlib (found with dlopen when
 * the runtime first compresses, so profiled programs need no -lz), the CRC, the names of the
 * format's numbers, and a profile's freeing. The parts: gmon-encode.c (a profile into bytes),
 * gmon-write.c (the atomic file write, safe where other users may be at work), gmon-decode.c (bytes
 * into a profile, trusting nothing), gmon-read.c (the bytes from a file, memory or zlib), gmon-dump.c
 * (the text view), esc.c (escaping for each output's syntax). */
#include "gmon-private.h"

#ifdef GMON_ZLIB_DLOPEN
#include <dlfcn.h>

struct gmon_zlib gmon_zlib;

int gmon_z_load(void)
{
	if (!gmon_zlib.tried) {
		void *h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);

		gmon_zlib.tried = 1;
		if (h) {
			*(void **)&gmon_zlib.bound = dlsym(h, "compressBound");
			*(void **)&gmon_zlib.compress = dlsym(h, "compress2");
			*(void **)&gmon_zlib.crc = dlsym(h, "crc32");
			*(void **)&gmon_zlib.inflate_init = dlsym(h, "inflateInit2_");
			*(void **)&gmon_zlib.inflate = dlsym(h, "inflate");
			*(void **)&gmon_zlib.inflate_reset = dlsym(h, "inflateReset");
			*(void **)&gmon_zlib.inflate_end = dlsym(h, "inflateEnd");
			*(void **)&gmon_zlib.inflate_validate = dlsym(h, "inflateValidate");
		}
	}
	return gmon_zlib.bound && gmon_zlib.compress && gmon_zlib.crc && gmon_zlib.inflate_init &&
	       gmon_zlib.inflate && gmon_zlib.inflate_reset && gmon_zlib.inflate_end;
}
#endif

/* ---- the CRC, names, freeing -------------------------------------------------------------------------- */

/* CRC-32/ISO-HDLC (zlib's), reflected polynomial 0xedb88320: zlib's crc32(), several bytes a step
 * (the reader checks every byte it reads). The runtime, which finds zlib only when it first
 * compresses, has a table of its own for the files it writes before (or without) zlib. */
#ifdef GMON_ZLIB_DLOPEN
static const uint32_t crc_table[256] = {
	0x00000000u, 0x77073096u, 0xee0e612cu, 0x990951bau, 0x076dc419u, 0x706af48fu, 0xe963a535u,
	0x9e6495a3u, 0x0edb8832u, 0x79dcb8a4u, 0xe0d5e91eu, 0x97d2d988u, 0x09b64c2bu, 0x7eb17cbdu,
	0xe7b82d07u, 0x90bf1d91u, 0x1db71064u, 0x6ab020f2u, 0xf3b97148u, 0x84be41deu, 0x1adad47du,
	0x6ddde4ebu, 0xf4d4b551u, 0x83d385c7u, 0x136c9856u, 0x646ba8c0u, 0xfd62f97au, 0x8a65c9ecu,
	0x14015c4fu, 0x63066cd9u, 0xfa0f3d63u, 0x8d080df5u, 0x3b6e20c8u, 0x4c69105eu, 0xd56041e4u,
	0xa2677172u, 0x3c03e4d1u, 0x4b04d447u, 0xd20d85fdu, 0xa50ab56bu, 0x35b5a8fau, 0x42b2986cu,
	0xdbbbc9d6u, 0xacbcf940u, 0x32d86ce3u, 0x45df5c75u, 0xdcd60dcfu, 0xabd13d59u, 0x26d930acu,
	0x51de003au, 0xc8d75180u, 0xbfd06116u, 0x21b4f4b5u, 0x56b3c423u, 0xcfba9599u, 0xb8bda50fu,
	0x2802b89eu, 0x5f058808u, 0xc60cd9b2u, 0xb10be924u, 0x2f6f7c87u, 0x58684c11u, 0xc1611dabu,
	0xb6662d3du, 0x76dc4190u, 0x01db7106u, 0x98d220bcu, 0xefd5102au, 0x71b18589u, 0x06b6b51fu,
	0x9fbfe4a5u, 0xe8b8d433u, 0x7807c9a2u, 0x0f00f934u, 0x9609a88eu, 0xe10e9818u, 0x7f6a0dbbu,
	0x086d3d2du, 0x91646c97u, 0xe6635c01u, 0x6b6b51f4u, 0x1c6c6162u, 0x856530d8u, 0xf262004eu,
	0x6c0695edu, 0x1b01a57bu, 0x8208f4c1u, 0xf50fc457u, 0x65b0d9c6u, 0x12b7e950u, 0x8bbeb8eau,
	0xfcb9887cu, 0x62dd1ddfu, 0x15da2d49u, 0x8cd37cf3u, 0xfbd44c65u, 0x4db26158u, 0x3ab551ceu,
	0xa3bc0074u, 0xd4bb30e2u, 0x4adfa541u, 0x3dd895d7u, 0xa4d1c46du, 0xd3d6f4fbu, 0x4369e96au,
	0x346ed9fcu, 0xad678846u, 0xda60b8d0u, 0x44042d73u, 0x33031de5u, 0xaa0a4c5fu, 0xdd0d7cc9u,
	0x5005713cu, 0x270241aau, 0xbe0b1010u, 0xc90c2086u, 0x5768b525u, 0x206f85b3u, 0xb966d409u,
	0xce61e49fu, 0x5edef90eu, 0x29d9c998u, 0xb0d09822u, 0xc7d7a8b4u, 0x59b33d17u, 0x2eb40d81u,
	0xb7bd5c3bu, 0xc0ba6cadu, 0xedb88320u, 0x9abfb3b6u, 0x03b6e20cu, 0x74b1d29au, 0xead54739u,
	0x9dd277afu, 0x04db2615u, 0x73dc1683u, 0xe3630b12u, 0x94643b84u, 0x0d6d6a3eu, 0x7a6a5aa8u,
	0xe40ecf0bu, 0x9309ff9du, 0x0a00ae27u, 0x7d079eb1u, 0xf00f9344u, 0x8708a3d2u, 0x1e01f268u,
	0x6906c2feu, 0xf762575du, 0x806567cbu, 0x196c3671u, 0x6e6b06e7u, 0xfed41b76u, 0x89d32be0u,
	0x10da7a5au, 0x67dd4accu, 0xf9b9df6fu, 0x8ebeeff9u, 0x17b7be43u, 0x60b08ed5u, 0xd6d6a3e8u,
	0xa1d1937eu, 0x38d8c2c4u, 0x4fdff252u, 0xd1bb67f1u, 0xa6bc5767u, 0x3fb506ddu, 0x48b2364bu,
	0xd80d2bdau, 0xaf0a1b4cu, 0x36034af6u, 0x41047a60u, 0xdf60efc3u, 0xa867df55u, 0x316e8eefu,
	0x4669be79u, 0xcb61b38cu, 0xbc66831au, 0x256fd2a0u, 0x5268e236u, 0xcc0c7795u, 0xbb0b4703u,
	0x220216b9u, 0x5505262fu, 0xc5ba3bbeu, 0xb2bd0b28u, 0x2bb45a92u, 0x5cb36a04u, 0xc2d7ffa7u,
	0xb5d0cf31u, 0x2cd99e8bu, 0x5bdeae1du, 0x9b64c2b0u, 0xec63f226u, 0x756aa39cu, 0x026d930au,
	0x9c0906a9u, 0xeb0e363fu, 0x72076785u, 0x05005713u, 0x95bf4a82u, 0xe2b87a14u, 0x7bb12baeu,
	0x0cb61b38u, 0x92d28e9bu, 0xe5d5be0du, 0x7cdcefb7u, 0x0bdbdf21u, 0x86d3d2d4u, 0xf1d4e242u,
	0x68ddb3f8u, 0x1fda836eu, 0x81be16cdu, 0xf6b9265bu, 0x6fb077e1u, 0x18b74777u, 0x88085ae6u,
	0xff0f6a70u, 0x66063bcau, 0x11010b5cu, 0x8f659effu, 0xf862ae69u, 0x616bffd3u, 0x166ccf45u,
	0xa00ae278u, 0xd70dd2eeu, 0x4e048354u, 0x3903b3c2u, 0xa7672661u, 0xd06016f7u, 0x4969474du,
	0x3e6e77dbu, 0xaed16a4au, 0xd9d65adcu, 0x40df0b66u, 0x37d83bf0u, 0xa9bcae53u, 0xdebb9ec5u,
	0x47b2cf7fu, 0x30b5ffe9u, 0xbdbdf21cu, 0xcabac28au, 0x53b39330u, 0x24b4a3a6u, 0xbad03605u,
	0xcdd70693u, 0x54de5729u, 0x23d967bfu, 0xb3667a2eu, 0xc4614ab8u, 0x5d681b02u, 0x2a6f2b94u,
	0xb40bbe37u, 0xc30c8ea1u, 0x5a05df1bu, 0x2d02ef8du,
};

#endif

uint32_t gmon_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

#ifdef GMON_ZLIB_DLOPEN
	if (!gmon_zlib.crc) {
		crc = ~crc;
		while (len--)
			crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
		return ~crc;
	}
#define z_crc32(c, b, n) gmon_zlib.crc(c, b, n)
#else
#define z_crc32(c, b, n) crc32(c, b, n)
#endif
	while (len) {
		uInt n = len > (1u << 30) ? 1u << 30 : (uInt)len;

		crc = (uint32_t)z_crc32(crc, p, n);
		p += n;
		len -= n;
	}
	return crc;
#undef z_crc32
}

const char *gmon_mode_name(uint32_t mode)
{
	static const char *const names[] = { "count", "arcs", "time" };

	return mode < 3 ? names[mode] : "unknown";
}

static const char *const watch_names[] = { "none",   "cpu",   "wall",   "alloc",        "allocbytes",
					   "faults", "calls", "cycles", "instructions", "cache-misses" };

const char *gmon_watch_name(uint32_t watch)
{
	return watch <= GMON_WATCH_LAST ? watch_names[watch] : "unknown";
}

int gmon_watch_parse(const char *name)
{
	for (int i = 0; i <= GMON_WATCH_LAST; i++)
		if (!strcmp(name, watch_names[i]))
			return i;
	return -1;
}

const char *gmon_tag_name(uint32_t tag)
{
	switch (tag) {
	case GMON_TAG_HEADER:
		return "HEADER";
	case GMON_TAG_MODULE:
		return "MODULE";
	case GMON_TAG_FUNCS:
		return "FUNCS";
	case GMON_TAG_THREAD:
		return "THREAD";
	case GMON_TAG_COUNTERS:
		return "COUNTERS";
	case GMON_TAG_SAMPLING:
		return "SAMPLING";
	case GMON_TAG_SAMPLES:
		return "SAMPLES";
	case GMON_TAG_NODES:
		return "NODES";
	case GMON_TAG_TRACE:
		return "TRACE";
	case GMON_TAG_TAILS:
		return "TAILS";
	case GMON_TAG_END:
		return "END";
	}
	return "unknown";
}

const char *gmon_trace_kind_name(uint32_t kind)
{
	static const char *const names[] = { "calls", "faults", "signals" };

	return kind <= GMON_TRACE_KIND_LAST ? names[kind] : "unknown";
}

int gmon_module_at(const struct gmon_profile *p, uint64_t addr)
{
	for (uint32_t i = 0; i < p->nmodules; i++)
		if (addr >= p->modules[i].text_lo && addr < p->modules[i].text_hi)
			return (int)i;
	return -1;
}

void gmon_profile_init(struct gmon_profile *p)
{
	memset(p, 0, sizeof(*p));
}

void gmon_profile_release(struct gmon_profile *p)
{
	free(p->hdr.tool);
	free(p->hdr.error);
	for (uint32_t i = 0; p->hdr.argv && i < p->hdr.argc; i++)
		free(p->hdr.argv[i]);
	free(p->hdr.argv);
	for (uint32_t i = 0; i < p->nmodules; i++) {
		free(p->modules[i].path);
		free(p->modules[i].build_id);
	}
	free(p->modules);
	for (uint32_t i = 0; i < p->nfuncsets; i++) {
		struct gmon_funcs *fs = &p->funcsets[i];

		for (uint32_t j = 0; fs->funcs && j < fs->nr; j++) {
			free(fs->funcs[j].name);
			free(fs->funcs[j].file);
		}
		free(fs->funcs);
	}
	free(p->funcsets);
	for (uint32_t i = 0; i < p->nthreads; i++) {
		free(p->threads[i].name);
		free(p->threads[i].arcs);
		free(p->threads[i].arcoffs);
		free(p->threads[i].arcctrs);
		free(p->threads[i].waits);
		for (uint32_t k = 0; k < p->threads[i].nctrs && k < GMON_CTR_MAX; k++)
			free(p->threads[i].ctr_names[k]);
		free(p->threads[i].fstats);
		free(p->threads[i].hist_pool);
		free(p->threads[i].counts);
	}
	free(p->threads);
	if (p->sampling) {
		free(p->sampling->target);
		free(p->sampling->start);
		free(p->sampling->stop);
		free(p->sampling);
	}
	for (uint32_t i = 0; i < p->nsamples; i++) {
		free(p->samples[i].stacks);
		free(p->samples[i].frames);
	}
	free(p->samples);
	for (uint32_t i = 0; i < p->nnodesets; i++) {
		struct gmon_nodes *n = &p->nodesets[i];

		for (uint32_t j = 0; n->nodes && j < n->nnodes; j++) {
			free(n->nodes[j].name);
			free(n->nodes[j].file);
			free(n->nodes[j].hist.buckets);
		}
		for (uint32_t j = 0; n->legs && j < n->nlegs; j++)
			free(n->legs[j].hist.buckets);
		free(n->nodes);
		free(n->legs);
	}
	free(p->nodesets);
	free(p->tail_sites);
	for (uint32_t i = 0; i < p->ntraces; i++)
		free(p->traces[i].ev);
	free(p->traces);
	for (uint32_t i = 0; i < p->ncounters; i++)
		free(p->counters[i].name);
	free(p->counters);
	memset(p, 0, sizeof(*p));
}
