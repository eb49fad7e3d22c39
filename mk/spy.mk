# spy.mk: give your own Makefile a profiled build with `make PROFILE=1`.
#
# Include it after your own CFLAGS, CXXFLAGS, LDFLAGS and LDLIBS assignments (it appends to them, also to
# values given on the command line), then build objects into $(OBJDIR):
#
#	CFLAGS = -O2 -g
#	SPY_PREFIX = /usr/local                 # where `make install` put spy (this is the default)
#	include $(SPY_PREFIX)/share/spy/spy.mk  # or the path of mk/spy.mk in a spy checkout
#
#	prog: $(OBJDIR)/prog
#	$(OBJDIR)/prog: $(OBJDIR)/main.o $(OBJDIR)/util.o
#		$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
#	$(OBJDIR)/%.o: %.c
#		@mkdir -p $(@D)
#		$(CC) $(CFLAGS) -c -o $@ $<
#
# `make` builds into build/ as before; `make PROFILE=1` builds into build-prof/ with every object compiled
# with -fplugin=$(SPY_PLUGIN) and linked with -lspyrt, so the two never share objects. Running the program
# writes gmon.out; read it with `spinprof gmon.out`.
#
# Variables you may set before including: SPY_PREFIX (/usr/local), SPY_PLUGIN ($(SPY_PREFIX)/lib/spyinstr.so),
# SPY_PLUGIN_ARGS (e.g. -fplugin-arg-spyinstr-mode=count), OBJDIR (build, or build-prof when PROFILE=1).

SPY_PREFIX ?= /usr/local
SPY_PLUGIN ?= $(SPY_PREFIX)/lib/spyinstr.so
SPY_PLUGIN_ARGS ?=

ifeq ($(PROFILE),1)
ifeq ($(wildcard $(SPY_PLUGIN)),)
$(error spy.mk: PROFILE=1 but there is no plugin '$(SPY_PLUGIN)'; set SPY_PREFIX or SPY_PLUGIN)
endif
OBJDIR ?= build-prof
override CFLAGS += -fplugin=$(SPY_PLUGIN) $(SPY_PLUGIN_ARGS)
override CXXFLAGS += -fplugin=$(SPY_PLUGIN) $(SPY_PLUGIN_ARGS)
override LDFLAGS += -L$(SPY_PREFIX)/lib -Wl,-rpath,$(SPY_PREFIX)/lib
override LDLIBS += -lspyrt
else
OBJDIR ?= build
endif
