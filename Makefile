# utrace - build, run the demo, run the tests.
#
#   make            build build/bin/utrace, build/bin/utracefs, build/lib/libutrace.so
#                   (and build/lib/libutrace-tracecmd.so, for `utrace trace-cmd`)
#   make run        install missing packages, build, mount, trace examples/, print the trace
#   make test       install missing packages, build (plain, ASan+UBSan, fuzzing, TSan),
#                   run every test
#   make fuzz       run each libFuzzer harness (tests/fuzz/) for FUZZ_SECONDS (default 60)
#   make fuzz-cov   line coverage that the fuzzing corpora reach (after make fuzz)
#   make bench      performance runs (bench/), writes docs/performance.md
#   make soak       endurance run for SOAK_MINUTES (default 30), tests/soak/ (docs/endurance.md)
#   make install    PREFIX (default /usr/local) and DESTDIR: programs, libutrace.so,
#                   headers, utrace.pc, manual pages, bash completion (pkg/install.sh)
#   make uninstall  removes what make install put there
#
# Source lists are found by wildcard: a new .c file in a directory is built
# without touching this file.  fs/main.c and cmd/main.c hold only main(), so the
# rest of fs/ and cmd/ can be linked into unit tests.

B ?= build
SAN ?=
CC ?= gcc
PREFIX ?= /usr/local
DESTDIR ?=
VERSION := $(shell sed -n 's/^\#define UT_VERSION "\(.*\)"/\1/p' common/ut_version.h)
# The runtime's soname: a program linked with -lutrace needs libutrace.so.0.
SONAME := libutrace.so.0

# libclang-rt-14-dev: clang's sanitizer and libFuzzer runtimes (make fuzz, make test);
# llvm-14: llvm-cov and llvm-profdata (make fuzz-cov); groff-base: 97_install.sh renders
# the manual pages; binutils: objdump, the reference of the instruction decoder's test
# (test_insn); systemtap-sdt-dev: <sys/sdt.h> for the SDT probes' test programs;
# libtracecmd-dev, libtraceevent-dev, libtracefs-dev: `utrace report` reads trace.dat
# files with them (libtraceevent's plugins print function and graph events), and the
# trace.dat writer (common/tracedat.c) is tested against their reader (test_tracedat);
# trace-cmd: the reference 98_tracedat.sh and 100_report.sh compare with, and what
# `utrace trace-cmd` runs on a mount (99_tracecmd.sh; libutrace-tracecmd.so needs none of
# them to build).
DEPS_BUILD := gcc g++ binutils clang libclang-rt-14-dev llvm-14 make pkg-config libfuse3-dev \
	fuse3 libelf-dev libcmocka-dev groff-base systemtap-sdt-dev \
	libtracecmd-dev libtraceevent-dev libtracefs-dev trace-cmd
# tcl8.6: SQLite's makefile generates sqlite3.c with tclsh (bench/real.sh).
# time, bc: the recorder's memory (GNU time) and its rates (bench/rec.sh).
DEPS_BENCH := uftrace lttng-tools liblttng-ust-dev gnuplot-nox tcl8.6 time bc

FUSE_CFLAGS := $(shell pkg-config --cflags fuse3 2>/dev/null)
FUSE_LIBS := $(shell pkg-config --libs fuse3 2>/dev/null)
# libtracecmd's reader: cmd/report*.c (so the CLI, and the unit tests, which link
# cmd/), and test_tracedat
TRACECMD_CFLAGS := $(shell pkg-config --cflags libtracecmd libtraceevent 2>/dev/null)
TRACECMD_LIBS := $(shell pkg-config --libs libtracecmd libtraceevent 2>/dev/null)
# libtraceevent's function plugin takes the time format of a repeated function from
# this variable of the program, as trace-cmd exports it (cmd/report_dat.c)
CLI_LDFLAGS := -Wl,--export-dynamic-symbol=tep_func_repeat_format

WARN := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
BASE_CFLAGS := -std=gnu11 -O2 -g $(WARN) -Iinclude -Icommon -D_GNU_SOURCE
# The runtime runs inside traced programs: never instrumented, symbols hidden.
# Under SAN it gets UBSan only: an ASan library cannot be preloaded into a program
# that was not itself built with ASan.
RT_CFLAGS := $(BASE_CFLAGS) -fPIC -fvisibility=hidden -ftls-model=initial-exec
# What an SDT probe's fast path runs with only the general registers saved
# (runtime/arch/x86_64/xol.S): built to touch no vector or x87 register, and not to
# turn loops into calls of libc's memset/memcpy (which do).
RT_GPR_SRC := runtime/events.c runtime/sdt.c common/ut_sdt.c
RT_GPR_CFLAGS := -mgeneral-regs-only -fno-tree-loop-distribute-patterns
ifneq ($(SAN),)
BASE_CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SAN_LDFLAGS := -fsanitize=$(SAN)
RT_CFLAGS += -fsanitize=undefined -fno-sanitize-recover=undefined
RT_LDFLAGS := -fsanitize=undefined
endif
# FUZZ=1 (make fuzz-build): every host object gets libFuzzer's coverage instrumentation.
ifneq ($(FUZZ),)
BASE_CFLAGS += -fsanitize=fuzzer-no-link
endif
# FUZZ_COV=1 (make fuzz-cov): clang's source coverage instead of sanitizers.
ifneq ($(FUZZ_COV),)
BASE_CFLAGS += -fprofile-instr-generate -fcoverage-mapping
endif
HOST_CFLAGS := $(BASE_CFLAGS) -fPIC
# Programs that are traced (tests, examples).
TRACED_CFLAGS := -O2 -g -fpatchable-function-entry=5 -Iinclude

COMMON_SRC := $(wildcard common/*.c)
COMMON_ASM := $(wildcard common/arch/x86_64/*.S)
RT_SRC := $(wildcard runtime/*.c runtime/arch/x86_64/*.c)
RT_ASM := $(wildcard runtime/arch/x86_64/*.S)
FS_SRC := $(filter-out fs/main.c,$(wildcard fs/*.c fs/control/*.c fs/tracers/*.c fs/output/*.c))
CMD_SRC := $(filter-out cmd/main.c,$(wildcard cmd/*.c))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
# The function_graph samples (graph_*) are built four ways instead (GRAPH_PROGS).
GRAPH_SRC := $(wildcard tests/progs/graph_*.c)
GRAPH_CXX_SRC := $(wildcard tests/progs/graph_*.cc)
# Shared objects for the test programs: tests/progs/lib_*.c -> lib_*.so.
PROG_LIB_SRC := $(wildcard tests/progs/lib_*.c)
PROG_SRC := $(filter-out $(GRAPH_SRC) $(PROG_LIB_SRC) tests/progs/xol_cfuncs.c tests/progs/xol_sdt.c,\
	$(wildcard tests/progs/*.c))
PROG_CXX_SRC := $(filter-out $(GRAPH_CXX_SRC),$(wildcard tests/progs/*.cc))
EXAMPLE_SRC := $(wildcard examples/*.c)

obj = $(patsubst %.S,$(B)/obj/$(1)/%.o,$(patsubst %.c,$(B)/obj/$(1)/%.o,$(2)))

COMMON_OBJ := $(call obj,host,$(COMMON_SRC) $(COMMON_ASM))
# The trace.dat writer is the CLI's: the runtime does not carry it.
RT_OBJ := $(call obj,rt,$(RT_SRC) $(RT_ASM) $(filter-out common/tracedat.c,$(COMMON_SRC)) $(COMMON_ASM))
FS_OBJ := $(call obj,host,$(FS_SRC))
CMD_OBJ := $(call obj,host,$(CMD_SRC))

LIB := $(B)/lib/libutrace.so
# Preloaded into trace-cmd by `utrace trace-cmd` (cmd/shim/tracecmd.c)
TRACECMD_SHIM := $(B)/lib/libutrace-tracecmd.so
FSBIN := $(B)/bin/utracefs
CLI := $(B)/bin/utrace
UNITS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
FUZZERS := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRC))
PROGS := $(patsubst tests/progs/%.c,$(B)/tests/progs/%,$(PROG_SRC)) \
	$(patsubst tests/progs/%.cc,$(B)/tests/progs/%,$(PROG_CXX_SRC)) \
	$(patsubst tests/progs/%.c,$(B)/tests/progs/%.so,$(PROG_LIB_SRC)) \
	$(B)/tests/progs/names_ver2 $(B)/tests/progs/unwind_storm_fp
EXAMPLES := $(patsubst examples/%.c,$(B)/examples/%,$(EXAMPLE_SRC))
# Each graph sample as $(B)/tests/progs/VARIANT/NAME, VARIANT = COMPILER-LEVEL: their
# expected call trees must not depend on the compiler or on inlining and tail calls.
GRAPH_VARIANTS := gcc-O0 gcc-O2 clang-O0 clang-O2
GRAPH_NAMES := $(patsubst tests/progs/%.c,%,$(GRAPH_SRC)) $(patsubst tests/progs/%.cc,%,$(GRAPH_CXX_SRC))
GRAPH_PROGS := $(foreach v,$(GRAPH_VARIANTS),$(addprefix $(B)/tests/progs/$(v)/,$(GRAPH_NAMES)))

FS_LIBS := $(FUSE_LIBS) -lelf -lpthread -lstdc++
.PHONY: all deps deps-bench run test test-build bench soak clean format fuzz fuzz-build fuzz-cov fuzzers \
	tsan-build tsan-units man install uninstall
all: $(LIB) $(FSBIN) $(CLI) $(TRACECMD_SHIM)

# fs/'s headers are found from its subfolders (control/, output/, tracers/) too
$(B)/obj/host/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(FUSE_CFLAGS) $(if $(filter fs/%,$<),-Ifs) \
		$(if $(filter cmd/report%,$<),$(TRACECMD_CFLAGS)) -MMD -MP -c $< -o $@
$(B)/obj/host/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@
$(B)/obj/rt/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) $(if $(filter $(RT_GPR_SRC),$<),$(RT_GPR_CFLAGS)) -MMD -MP -c $< -o $@
$(B)/obj/rt/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -MMD -MP -c $< -o $@

$(B)/common.a: $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIB): $(RT_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-z,defs -Wl,-soname,$(SONAME) $(RT_LDFLAGS) -o $@ $(RT_OBJ) -ldl -lpthread
	ln -sf libutrace.so $(dir $@)$(SONAME)

# Not sanitized, as the runtime: it goes into a trace-cmd that was not built so.
# Not linked with libtracefs either (looked up at run time): nothing of trace-cmd's to build it.
$(TRACECMD_SHIM): cmd/shim/tracecmd.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g $(WARN) -D_GNU_SOURCE -fPIC -fvisibility=hidden -shared \
		-Wl,-z,defs -o $@ $< -ldl

$(FSBIN): $(B)/obj/host/fs/main.o $(FS_OBJ) $(B)/common.a
	@mkdir -p $(dir $@)
	$(CC) $(SAN_LDFLAGS) -o $@ $^ $(FS_LIBS)

$(CLI): $(B)/obj/host/cmd/main.o $(CMD_OBJ) $(B)/common.a
	@mkdir -p $(dir $@)
	$(CC) $(SAN_LDFLAGS) $(CLI_LDFLAGS) -o $@ $^ $(TRACECMD_LIBS) -lelf -lpthread

# Unit tests link everything but the main() files; UNIT_EXTRA: a test's own flags.
$(B)/tests/test_%: tests/unit/test_%.c $(FS_OBJ) $(CMD_OBJ) $(B)/common.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(FUSE_CFLAGS) -Ifs -Icmd $(UNIT_EXTRA) -o $@ $< $(FS_OBJ) $(CMD_OBJ) \
		$(B)/common.a $(SAN_LDFLAGS) -lcmocka $(FS_LIBS) $(TRACECMD_LIBS)
# test_tracedat reads what common/tracedat.c wrote back with libtracecmd's reader
$(B)/tests/test_tracedat: UNIT_EXTRA = $(TRACECMD_CFLAGS)

# libFuzzer harnesses (tests/fuzz/): linked like unit tests; fuzz_sites includes
# runtime/sites.c itself, fuzz_insn runtime/arch/x86_64/insn.c.  Built with clang in $(FUZZ_B) by fuzz-build.
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h runtime/sites.c runtime/rt.h \
		runtime/arch/x86_64/insn.c runtime/arch/x86_64/insn.h \
		$(FS_OBJ) $(CMD_OBJ) $(B)/common.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(FUSE_CFLAGS) -Ifs -Icmd -o $@ $< $(FS_OBJ) $(CMD_OBJ) $(B)/common.a \
		-fsanitize=fuzzer $(SAN_LDFLAGS) $(FS_LIBS) $(TRACECMD_LIBS)
fuzzers: $(FUZZERS)

# Traced programs: instrumented, not sanitized (the runtime is what is tested).
# Test programs include the shared headers (fake daemons and clients speak the wire format).
PROG_HDRS := $(wildcard common/*.h include/utrace/*.h tests/progs/*.h)
$(B)/tests/progs/%: tests/progs/%.c $(PROG_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(TRACED_CFLAGS) -o $@ $< -lpthread -ldl
$(B)/tests/progs/%: tests/progs/%.cc $(PROG_HDRS)
	@mkdir -p $(dir $@)
	$(CXX) $(TRACED_CFLAGS) -o $@ $< -lpthread -ldl
$(B)/tests/progs/%.so: tests/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) $(TRACED_CFLAGS) -shared -fPIC -o $@ $<
# lib_names_s.so: stripped, as distributions install libraries (.dynsym only)
$(B)/tests/progs/lib_names_s.so: tests/progs/lib_names_s.c
	@mkdir -p $(dir $@)
	$(CC) $(TRACED_CFLAGS) -shared -fPIC -s -Wl,--build-id=none -o $@ $<
# lib_names_plain.so: without the flags (no patch site), as a library not rebuilt
$(B)/tests/progs/lib_names_plain.so: tests/progs/lib_names_plain.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -shared -fPIC -o $@ $<
# events_prog: linked with lib_events_a.so (a library with trace events, found next to it)
$(B)/tests/progs/events_prog: tests/progs/events_prog.c $(B)/tests/progs/lib_events_a.so $(PROG_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(TRACED_CFLAGS) -o $@ $< -L$(B)/tests/progs -l:lib_events_a.so -Wl,-rpath,'$$ORIGIN' \
		-lpthread -ldl
# sdt_prog: linked with lib_sdt_a.so (a library with an SDT probe and its semaphore)
$(B)/tests/progs/sdt_prog: tests/progs/sdt_prog.c $(B)/tests/progs/lib_sdt_a.so $(PROG_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(TRACED_CFLAGS) -o $@ $< -L$(B)/tests/progs -l:lib_sdt_a.so -Wl,-rpath,'$$ORIGIN' \
		-lpthread -ldl
# sdt_loop (95_sdt_window.sh) includes xol_sdt.c, the guarded probe xol_prog probes too
$(B)/tests/progs/sdt_loop: tests/progs/xol_sdt.c
# names_ver again, with other functions ahead: a program rebuilt in place (42_names.sh)
$(B)/tests/progs/names_ver2: tests/progs/names_ver.c
	@mkdir -p $(dir $@)
	$(CC) $(TRACED_CFLAGS) -DNAMES_V2 -o $@ $<
# unwind_storm with frame pointers (83_unwind.sh walks both kinds of stacks)
$(B)/tests/progs/unwind_storm_fp: tests/progs/unwind_storm.c
	@mkdir -p $(dir $@)
	$(CC) $(TRACED_CFLAGS) -fno-omit-frame-pointer -o $@ $<
# xol_prog (test_xol): the runtime linked in, so that it calls the hidden ut_xol_*
# API; functions in assembly, xol_cfuncs.c built with and without patchable entries,
# and xol_sdt.c's <sys/sdt.h> probe as the compiler shapes it at -O2.
$(B)/tests/progs/xol_prog: tests/progs/xol_prog.c tests/progs/xol_funcs.S tests/progs/xol_cfuncs.c \
		tests/progs/xol_sdt.c $(RT_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -DXC_VARIANT=pfe -fpatchable-function-entry=5 -c -o $@-pfe.o tests/progs/xol_cfuncs.c
	$(CC) -O2 -g -DXC_VARIANT=plain -c -o $@-plain.o tests/progs/xol_cfuncs.c
	$(CC) -O2 -g -c -o $@-sdt.o tests/progs/xol_sdt.c
	$(CC) $(TRACED_CFLAGS) -Icommon -Iruntime -D_GNU_SOURCE -rdynamic -o $@ tests/progs/xol_prog.c \
		tests/progs/xol_funcs.S $@-pfe.o $@-plain.o $@-sdt.o $(RT_OBJ) $(RT_LDFLAGS) -ldl -lpthread
# tdwrite (98_tracedat.sh): a host tool over common/tracedat.c, not a traced program
$(B)/tests/progs/tdwrite: tests/progs/tdwrite.c $(B)/common.a common/tracedat.h
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -o $@ $< $(B)/common.a $(SAN_LDFLAGS)
$(B)/examples/%: examples/%.c
	@mkdir -p $(dir $@)
	$(CC) $(TRACED_CFLAGS) -o $@ $< -lpthread

# graph samples: -rdynamic so that dladdr() names their functions (graph_bt checks
# its own backtraces).  $(1) variant, $(2) C compiler, $(3) C++ compiler, $(4) level.
GRAPH_CFLAGS := -g -fpatchable-function-entry=5 -Iinclude -D_GNU_SOURCE -rdynamic
define graph_rules
$(B)/tests/progs/$(1)/%: tests/progs/%.c tests/progs/graph_common.h
	@mkdir -p $$(dir $$@)
	$(2) -$(4) $(GRAPH_CFLAGS) -o $$@ $$< -lpthread -ldl
$(B)/tests/progs/$(1)/%: tests/progs/%.cc tests/progs/graph_common.h
	@mkdir -p $$(dir $$@)
	$(3) -$(4) $(GRAPH_CFLAGS) -o $$@ $$< -lpthread -ldl
endef
$(eval $(call graph_rules,gcc-O0,gcc,g++,O0))
$(eval $(call graph_rules,gcc-O2,gcc,g++,O2))
$(eval $(call graph_rules,clang-O0,clang,clang++,O0))
$(eval $(call graph_rules,clang-O2,clang,clang++,O2))

# The manual pages of utrace and its commands, from the CLI's own help.
man: $(B)/man/utrace.1
$(B)/man/utrace.1: $(CLI) pkg/man/gen.sh
	rm -rf $(B)/man && sh pkg/man/gen.sh $(CLI) $(B)/man

install: all man
	PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) sh pkg/install.sh install $(B) $(VERSION)
uninstall:
	PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) sh pkg/install.sh uninstall $(B) $(VERSION)

test-build: all man $(UNITS) $(PROGS) $(GRAPH_PROGS) $(EXAMPLES)

deps:
	@missing=""; for p in $(DEPS_BUILD); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; fi

# bench/real.sh builds Lua and SQLite from Debian's source packages (apt-get source):
# source lists are enabled once by copying the binary ones (shared/DESIGN.md).
deps-bench: deps
	@missing=""; for p in $(DEPS_BENCH); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; fi
	@if ! grep -qs '^Types:.*deb-src' /etc/apt/sources.list.d/*.sources && \
		! grep -qs '^deb-src' /etc/apt/sources.list; then \
		echo "enabling Debian source packages (/etc/apt/sources.list.d/debsrc.sources)"; \
		sed 's/^Types: deb$$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
			> /etc/apt/sources.list.d/debsrc.sources && apt-get update -qq; fi

run: deps
	$(MAKE) --no-print-directory test-build
	@sh examples/demo.sh $(B)

# The suite runs twice: plain, then with AddressSanitizer + UndefinedBehaviorSanitizer;
# then every fuzzing corpus is replayed once (tests/fuzz/corpus/, a regression test).
test: deps
	$(MAKE) --no-print-directory test-build
	$(MAKE) --no-print-directory test-build B=build-san SAN=address,undefined
	$(MAKE) --no-print-directory fuzz-build
	$(MAKE) --no-print-directory tsan-build
	@sh tests/run.sh build build-san $(FUZZ_B) $(TSAN_B)

# ThreadSanitizer: utracefs (FUSE workers, registry, applier, dump thread), the CLI and
# the unit tests built with -fsanitize=thread, run by tests/run.sh like the other builds
# (a report fails the test that made it: TSAN_OPTIONS there).  Not under TSan, with
# reason: libutrace.so (it is preloaded into programs that are not built with TSan, and
# TSan must be the first thing a program loads; it gets UBSan as under SAN=address) and
# the ring writers in assembly (common/arch, runtime/arch: no instrumentation exists
# for them, and their readers are in other processes, which TSan cannot see).
# Unit tests left out, with reason: test_runtime, test_graph_rt and test_ring_rseq test
# the runtime and the ring writers in assembly, in programs not built with TSan; what
# runs in their own process is a fake daemon of the tests, not utracefs.
TSAN_B := build-tsan
TSAN_UNITS := $(filter-out %/test_runtime %/test_graph_rt %/test_ring_rseq,$(UNITS))
tsan-build:
	$(MAKE) --no-print-directory all tsan-units B=$(TSAN_B) SAN=thread
tsan-units: $(TSAN_UNITS) $(PROGS) $(GRAPH_PROGS) $(EXAMPLES)

# Fuzzing: clang's libFuzzer with ASan + UBSan, every harness for FUZZ_SECONDS
# (tests/fuzz/run.sh: new inputs in $(FUZZ_B)/corpus/, crashes in $(FUZZ_B)/crashes/).
FUZZ_B := build-fuzz
FUZZ_SECONDS ?= 60
fuzz-build:
	$(MAKE) --no-print-directory fuzzers B=$(FUZZ_B) CC=clang SAN=address,undefined FUZZ=1
fuzz: deps fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_B) $(FUZZ_SECONDS)
# Line coverage of the files each harness is for, reached by its seed corpus and what
# make fuzz added to it ($(FUZZ_B)/corpus/), with llvm-cov (docs/fuzzing.md).
fuzz-cov: deps
	$(MAKE) --no-print-directory fuzzers B=build-fuzzcov CC=clang FUZZ=1 FUZZ_COV=1
	@sh tests/fuzz/coverage.sh build-fuzzcov $(FUZZ_B)/corpus

# Endurance (tests/soak/soak.sh, docs/endurance.md): not part of make test.
SOAK_MINUTES ?= 30
soak: deps
	$(MAKE) --no-print-directory test-build
	@UT_BUILD=$(CURDIR)/$(B) UT_TOP=$(CURDIR) sh tests/soak/soak.sh $(SOAK_MINUTES) $(SOAK_OUT)

bench: deps-bench
	$(MAKE) --no-print-directory test-build
	@sh bench/run.sh $(B)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build build-san build-fuzz build-fuzzcov build-tsan

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
