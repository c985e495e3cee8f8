#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The two quick-start commands of the README, on a fresh Debian 12 machine:
#   ./quickstart.sh demo   install what is missing, build, trace the demo
#                          program with usttrace and print its events
#   ./quickstart.sh test   install what is missing, then five stages, each
#                          announced on stderr as it starts and ends with its
#                          counts and time: build; the test suite (plain);
#                          the sanitizer suite (the C unit tests and the
#                          end-to-end tests of distinct libust, ustd and
#                          libustctl code, `make list-sanitizer-tests`) with
#                          ASan+UBSan; tests/stress for STRESS_SECONDS
#                          (default 10) under TSan and under ASan+UBSan; the
#                          compile matrix (every compiler and language
#                          standard). The sanitizer builds compile at the
#                          lowest priority from the start (the suites wait
#                          on daemons and timeouts more than they compute);
#                          the two suites run at once, and so do the stress
#                          runs and the compile matrix. It ends with the line
#                          "N passed, M failed" and fails if M > 0 or nothing ran.
set -eu

top=$(cd "$(dirname "$0")" && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
# Tests at once in each suite (the two suites run at once; each test has
# its own run and output directories): two per CPU in the plain suite, whose
# tests mostly wait on daemons and timeouts, one per CPU in the sanitizer
# suite, whose tests compute more. More let the tests that must keep up
# with a program at full speed fall behind on a loaded machine.
test_jobs=${TEST_JOBS:-$((jobs * 2))}
san_jobs=${TEST_JOBS:-$jobs}
packages="build-essential autoconf automake libtool pkg-config liburcu-dev libpopt-dev \
libxml2-dev libxml2-utils babeltrace2 python3-bt2 libbabeltrace2-dev chromium clang g++ \
systemtap-sdt-dev nginx-light uftrace lttng-tools ltrace liburing-dev"

say() { printf 'quickstart: %s\n' "$*" >&2; }

install_missing() {
	missing=""
	for p in $packages; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	say "installing:$missing"
	if [ "$(id -u)" -eq 0 ]; then
		sudo=""
	elif command -v sudo >/dev/null 2>&1; then
		sudo="sudo"
	else
		say "these Debian packages are missing and you are not root: apt-get install$missing"
		exit 1
	fi
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
}

# bootstrap: the configure script, made once before any build starts (the
# plain and the sanitizer builds configure at once).
bootstrap() {
	if [ ! -x "$top/configure" ] || [ "$top/configure.ac" -nt "$top/configure" ]; then
		(cd "$top" && autoreconf -fi >/dev/null 2>&1) || { say "autoreconf failed"; exit 1; }
	fi
}

# build DIR [configure options...]
build() {
	dir=$1
	shift
	bootstrap
	mkdir -p "$dir"
	if [ ! -f "$dir/Makefile" ]; then
		(cd "$dir" && "$top/configure" -q "$@") || { say "configure failed in $dir"; exit 1; }
	fi
	make -s -C "$dir" -j"$jobs" >/dev/null || { say "build failed in $dir"; exit 1; }
	make -s -C "$dir" -j"$jobs" check TESTS= >/dev/null ||
		{ say "building the tests failed in $dir"; exit 1; }
}

# background WHAT COMMAND...: runs COMMAND (a function of this script) in
# the background, its output in $top/build/WHAT.log; bg_pid is its process.
# finish PID WHAT waits for it and, if it failed, says so with the end of
# its log and returns 1 (the caller counts it in its stage).
background() {
	what=$1
	shift
	"$@" >"$top/build/$what.log" 2>&1 &
	bg_pid=$!
}

finish() {
	if ! wait "$1"; then
		tail -40 "$top/build/$2.log" >&2
		say "$2 failed: see $top/build/$2.log"
		return 1
	fi
}

# stage N NAME: announces stage N and starts its clock. Stages 2 and 3 (the
# two suites) overlap, as do 4 and 5: each keeps its own name and clock.
stage() {
	eval "stage_t0_$1=\$(date +%s) stage_name_$1=\$2"
	say "[$1/5] $2 ..."
}

# counting: what tally adds from here on is the next stage_end's counts.
counting() {
	stage_p=$passed stage_f=$failed stage_s=$skipped
}

# stage_end N [WHAT]: stage N's counts since `counting` (or WHAT) and time,
# up to now or to the end its check wrote in $ended (then emptied).
stage_end() {
	eval "t0=\$stage_t0_$1 name=\$stage_name_$1"
	t1=$(date +%s)
	if [ -n "${ended:-}" ] && [ -f "$ended" ]; then
		t1=$(cat "$ended")
	fi
	ended=""
	secs=$((t1 - t0))
	if [ $# -gt 1 ]; then
		say "[$1/5] $name: $2 (${secs} s)"
	else
		say "[$1/5] $name: $((passed - stage_p)) passed, $((failed - stage_f)) failed, $((skipped - stage_s)) skipped (${secs} s)"
	fi
	echo "$name ${secs}" >>"$top/build/quickstart-times"
}

# check N JOBS DIR TESTS...: `make -jJOBS check TESTS=...` there for stage
# N, saying each failure as it comes and every 30 s how many tests are
# done; its output in DIR/check.out, counted by `tally DIR DIR/check.out`
# once it ends, and the time it ended in DIR/.quickstart-end. Two checks
# run at once in different build directories.
check() {
	n=$1 j=$2 dir=$3
	shift 3
	mark="$dir/.quickstart-stage"
	touch "$mark"
	rm -f "$dir/.quickstart-end"
	ticker "$n" "$dir" "$mark" $# &
	tick=$!
	make -C "$dir" -j"$j" check TESTS="$*" 2>&1 | tee "$dir/check.out" |
		grep -a -E '^(FAIL|ERROR|XPASS):' | sed 's/^/quickstart:   /' >&2 || true
	date +%s >"$dir/.quickstart-end"
	kill "$tick" 2>/dev/null || true
	wait "$tick" 2>/dev/null || true
}

# ticker N DIR MARK TOTAL: every 30 s, how many of TOTAL tests of stage N
# have finished.
ticker() {
	eval "t0=\$stage_t0_$1 name=\$stage_name_$1"
	while sleep 30; do
		done_=$(find "$2" -name '*.trs' -newer "$3" 2>/dev/null | wc -l)
		say "  $name: $done_ of $4 tests done ($(($(date +%s) - t0)) s)"
	done
}

# The suite without the compile matrix, which is a stage of its own.
suite_tests() {
	make -s -C "$1" list-tests | grep -v '^tests/compile/test_matrix.py$' | tr '\n' ' '
}

# build_tsan: the ThreadSanitizer build of what tests/stress runs, at the
# lowest priority: it compiles while the suites run, which wait on daemons
# and timeouts more than they compute.
build_tsan() {
	nice -n 19 make -C "$top/build" -s -j"$jobs" build-stress STRESS_BUILDS=tsan:--enable-tsan
}

# check_stress SECONDS: tests/stress under ThreadSanitizer (`make
# check-stress`, its own build, made by build_tsan) and, at the same time,
# under ASan+UBSan (in build-sanitize, already built, rather than a third
# build of the same configuration); tally_stress counts both once they end.
check_stress() {
	rm -f "$top/build/stress-tsan/test-suite.log"
	make -C "$top/build" -s -j"$jobs" check-stress STRESS_SECONDS="$1" \
		STRESS_BUILDS=tsan:--enable-tsan >"$top/build/check-stress.out" 2>&1 &
	make -C "$top/build-sanitize" -j"$jobs" check TESTS=tests/stress/test_stress.py \
		STRESS_SECONDS="$1" >"$top/build-sanitize/check-stress.out" 2>&1 || true
	wait $! || true
}

tally_stress() {
	tally "$top/build/stress-tsan" "$top/build/check-stress.out"
	tally "$top/build-sanitize" "$top/build-sanitize/check-stress.out"
}

# count KIND LOG: the number on LOG's first "# KIND: N" line.
count() {
	sed -n "s/^# $1: *\([0-9][0-9]*\)\$/\1/p" "$2" | head -n 1
}

# tally DIR OUTPUT: adds the counts of DIR/test-suite.log.
tally() {
	dir=$1
	log="$dir/test-suite.log"
	if [ ! -f "$log" ]; then
		cat "$2"
		say "no test ran in $dir"
		failed=$((failed + 1))
		return
	fi
	grep -a -E '^(PASS|FAIL|XPASS|ERROR|SKIP):' "$2" | grep -v '^PASS' || true
	# The summary's counts only: a test's diagnostics may hold a line
	# such as "# ERROR: [Babeltrace CLI] ..." too.
	p=$(count PASS "$log")
	f=$(count FAIL "$log")
	x=$(count XPASS "$log")
	e=$(count ERROR "$log")
	s=$(count SKIP "$log")
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0} + ${x:-0} + ${e:-0}))
	skipped=$((skipped + ${s:-0}))
	if [ "$((${f:-0} + ${x:-0} + ${e:-0}))" -gt 0 ]; then
		say "failures in $dir: see $log"
		# Each failed check with its diagnostics first: CI shows only a
		# part of a long output.
		awk '/^not ok /{n=12; print; next} n>0 && /^# /{n--; print; next} {n=0}' \
			"$log" | head -120
		grep -a -E -A30 '^(FAIL|ERROR|XPASS): ' "$log" | head -200 || true
	fi
}

case "${1:-}" in
demo)
	install_missing
	build "$top/build"
	out=$(mktemp -d "${TMPDIR:-/tmp}/ust-demo.XXXXXX")
	# From the build tree usttrace finds the ustd built beside it.
	"$top/build/usttrace/usttrace" -o "$out" "$top/build/tests/apps/hello" 3
	for trace in "$out"/*/; do
		babeltrace2 "$trace"
	done
	say "the trace is in $out; read it again with: babeltrace2 $out"
	;;
test)
	install_missing
	passed=0 failed=0 skipped=0
	# One lock for the tests that write at full speed for long or must keep
	# up with such a writer, in both suites (tests/e2e/ustest.py).
	UST_TEST_LOCK="$top/build/full-speed.lock"
	export UST_TEST_LOCK
	mkdir -p "$top/build"
	: >"$top/build/quickstart-times"
	stage 1 "build (plain and ASan+UBSan, at once)"
	counting
	bootstrap
	# Both builds at once, then both suites at once: the sanitizer build and
	# suite are the longer path, and no build competes with the suites'
	# programs (some of which must keep up with a writer at full speed).
	background sanitize-build build "$top/build-sanitize" --enable-sanitizers
	asan_pid=$bg_pid
	build "$top/build"
	san_built=0
	if finish "$asan_pid" sanitize-build; then
		san_built=1
		stage_end 1 "libust, ustd, ustctl, usttrace, the plugin and the test programs built, twice"
	else
		failed=$((failed + 1))
		stage_end 1
	fi
	stage 2 "plain suite"
	check 2 "$test_jobs" "$top/build" $(suite_tests "$top/build") &
	plain_pid=$!
	san_pid=""
	stage 3 "sanitizers (ASan+UBSan suite)"
	if [ "$san_built" -eq 0 ]; then
		stage_end 3 "not run: the ASan+UBSan build failed"
	else
		background tsan-build build_tsan
		tsan_pid=$bg_pid
		check 3 "$san_jobs" "$top/build-sanitize" $(make -s -C "$top/build-sanitize" list-sanitizer-tests) &
		san_pid=$!
	fi
	wait "$plain_pid" || true
	counting
	tally "$top/build" "$top/build/check.out"
	ended="$top/build/.quickstart-end"
	stage_end 2
	if [ -n "$san_pid" ]; then
		counting
		wait "$san_pid" || true
		tally "$top/build-sanitize" "$top/build-sanitize/check.out"
		ended="$top/build-sanitize/.quickstart-end"
		stage_end 3
	fi
	# The stress runs (both at once) and the compile matrix at the same time:
	# they share no directory, and none of them measures time.
	stage 4 "stress (${STRESS_SECONDS:-10} s under TSan and under ASan+UBSan)"
	stress_pid="" tsan_failed=0
	if [ -n "${tsan_pid:-}" ]; then
		if finish "$tsan_pid" tsan-build; then
			check_stress "${STRESS_SECONDS:-10}" &
			stress_pid=$!
		else
			tsan_failed=1
		fi
	fi
	stage 5 "compile matrix (gcc, clang: C99-C17; g++, clang++: C++11-C++23)"
	check 5 "$test_jobs" "$top/build" tests/compile/test_matrix.py
	counting
	failed=$((failed + tsan_failed))
	if [ -n "$stress_pid" ]; then
		wait "$stress_pid" || true
		tally_stress
	fi
	stage_end 4
	counting
	tally "$top/build" "$top/build/check.out"
	ended="$top/build/.quickstart-end"
	stage_end 5
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
	;;
*)
	echo "usage: $0 demo|test" >&2
	exit 2
	;;
esac
