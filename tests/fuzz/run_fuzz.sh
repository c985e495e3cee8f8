#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs the control-protocol fuzzer for a bounded time on a copy of its seed
# corpus (TAP). Skipped when configure found no clang with libFuzzer.
fuzzer="$top_builddir/tests/fuzz/fuzz_control"
seconds=${UST_FUZZ_SECONDS:-20}
if [ ! -x "$fuzzer" ]; then
	echo "1..0 # SKIP no clang with libFuzzer: the fuzz target is not built"
	exit 0
fi
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus" "$work/run" && chmod 700 "$work/run"
cp "$top_srcdir"/tests/fuzz/corpus/* "$work/corpus/"
# No control socket of its own, no ustd: allocation fails fast, as it would
# with ustd gone.
UST_CONTROL=none UST_RUNDIR="$work/run" UST_DAEMON_SOCKET="$work/run/no-ustd" \
	"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
	-artifact_prefix="$work/" "$work/corpus" >"$work/log" 2>&1
rc=$?
runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/log")
echo "1..2"
if [ $rc -eq 0 ]; then
	echo "ok 1 - the decoder and the commands survive ${seconds}s of fuzzing"
else
	echo "not ok 1 - the fuzzer found a failure (exit $rc)"
	tail -40 "$work/log" | sed 's/^/# /'
	for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
		[ -f "$f" ] && echo "# input: $(od -An -tx1 "$f" | tr -d '\n' | head -c 600)"
	done
fi
if [ "${runs:-0}" -gt 1000 ]; then
	echo "ok 2 - it ran $runs inputs"
else
	echo "not ok 2 - it ran only ${runs:-no} inputs"
fi
