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

/*
 * Nodes (Mesa): points of the program's own choosing. SPY_NODE("name") counts a pass of this point;
 * SPY_NODE_VALUE("name", v) also records the value v (an unsigned integer) for the node's
 * statistics and histogram. A leg is the code between two nodes, timed: see SPYRT_LEGS in
 * libspyrt(3). name is a string literal without blanks, commas, colons or '>'; every place with the
 * same name is the same node. Without libspyrt linked in (the program built without spy) a node
 * costs a test of a null pointer and does nothing; with SPY_NO_NODES defined it is compiled out.
 */
struct spy_node_site {
	const char *name;
	const char *file;
	unsigned line;
	unsigned id; /* the runtime's */
};
void __spy_node(struct spy_node_site *site) __attribute__((weak));
void __spy_node_value(struct spy_node_site *site, unsigned long long value) __attribute__((weak));

#ifdef SPY_NO_NODES
#define SPY_NODE(name) ((void)0)
#define SPY_NODE_VALUE(name, value) ((void)(value))
#else
#define SPY_NODE(name)                                                                        \
	do {                                                                                  \
		static struct spy_node_site spy_node_site_ = { name, __FILE__, __LINE__, 0 }; \
		if (__spy_node)                                                               \
			__spy_node(&spy_node_site_);                                          \
	} while (0)
#define SPY_NODE_VALUE(name, value)                                                           \
	do {                                                                                  \
		static struct spy_node_site spy_node_site_ = { name, __FILE__, __LINE__, 0 }; \
		unsigned long long spy_node_value_ = (value);                                 \
		if (__spy_node_value)                                                         \
			__spy_node_value(&spy_node_site_, spy_node_value_);                   \
	} while (0)
#endif

#ifdef __cplusplus
}
#endif

#endif
