#!/bin/bash
# t204: a short libFuzzer run of every harness in tests/fuzz/ (SPY_FUZZ_SECONDS each, default 10: a minute
# in all, after one build of spinprof's sources shared by the harnesses) over spinprof's readers, summing,
# -s, every output (every --format, the text report's layouts, --trace, --stopwatch, --dump, --diff; each
# output's syntax and escaping checked by tests/fuzz/check-output.c) of spy and GNU profiles, from the
# seeds and crash inputs kept in tests/fuzz/corpus/ (each replayed first); skipped when there is no
# spinprof yet or no libFuzzer toolchain. A long run is `make fuzz` (or FUZZ_SECONDS=3600), with AFL++
# `make fuzz-afl`.
. "$(dirname "$0")/lib.sh"
[ -x "${SPINPROF:-$SPY_BUILD/spinprof}" ] || tap_skip_all "no spinprof"
# within 240 s in all (tests/run.sh stops a test at 300): on a busy machine, where the build takes longer,
# each harness fuzzes less, and at worst only replays its corpus (its line says so)
exec bash "$SPY_SRC/tests/fuzz/run.sh" -t "${SPY_FUZZ_SECONDS:-10}" -T "${SPY_FUZZ_TOTAL:-240}"
