# spy.mk: give your own Makefile a profiled build with `make PROFILE=1`.
#
# Include it after your own CC, CXX, CFLAGS and LDFLAGS assignments, then build objects into $(OBJDIR):
#
#	CFLAGS = -O2 -g
#	# where spy's `make install` put it (/usr/local is the default)
#	SPY_PREFIX = /usr/local
#	# or the path of mk/spy.mk in a spy checkout
#	include $(SPY_PREFIX)/share/spy/spy.mk
#
#	prog: $(OBJDIR)/prog
#	$(OBJDIR)/prog: $(OBJDIR)/main.o $(OBJDIR)/util.o
#		$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
#	$(OBJDIR)/%.o: %.c
#		@mkdir -p $(@D)
#		$(CC) $(CFLAGS) -c -o $@ $<
#
# `make` builds into build/ as before; `make PROFILE=1` builds into build-prof/ (the two never share
# objects) with CC and CXX given -specs=$(SPY_SPECS): every compile loads spy's plugin and every link of a
# program or shared library adds libspyrt, and `make PROFILE=1 CFLAGS='-O2 -flto'` is instrumented too
# (the link's lto1 loads the plugin). Running the program writes gmon.out; read it with
# `spinprof gmon.out`.
#
# Variables you may set before including: SPY_PREFIX (/usr/local), SPY_SPECS ($(SPY_PREFIX)/lib/spy.specs,
# written by spy's `make install`; a spy build tree's build/spy.specs works too), SPY_PLUGIN_ARGS (e.g.
# -fplugin-arg-spyinstr-mode=count, given to compiles and links alike), OBJDIR (build, or build-prof when
# PROFILE=1).

SPY_PREFIX ?= /usr/local
# a value written as "SPY_PREFIX = /usr/local   # comment" keeps the blanks before the '#' (make's rule)
override SPY_PREFIX := $(strip $(SPY_PREFIX))
SPY_SPECS ?= $(SPY_PREFIX)/lib/spy.specs
override SPY_SPECS := $(strip $(SPY_SPECS))
SPY_PLUGIN_ARGS ?=

ifeq ($(PROFILE),1)
ifneq ($(SPY_PLUGIN),)
$(warning spy.mk: SPY_PLUGIN is no longer read: $(SPY_SPECS) names the plugin (set SPY_SPECS instead))
endif
ifeq ($(wildcard $(SPY_SPECS)),)
$(error spy.mk: PROFILE=1 but there is no '$(SPY_SPECS)'; set SPY_PREFIX or SPY_SPECS)
endif
OBJDIR ?= build-prof
override CC += -specs=$(SPY_SPECS) $(SPY_PLUGIN_ARGS)
override CXX += -specs=$(SPY_SPECS) $(SPY_PLUGIN_ARGS)
else
OBJDIR ?= build
endif
