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
#                          lowest priority while the suites before them run
#                          (those wait on daemons and timeouts far more than
#                          they compute). It ends with the line
#                          "N passed, M failed" and fails if M > 0 or nothing ran.
set -eu

top=$(cd "$(dirname "$0")" && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
# Tests at once: each test mostly waits (a plain suite run used about a
# third of two CPUs), and each has its own run and output directories.
test_jobs=${TEST_JOBS:-$((jobs * 2))}
# The command builds run under: `nice -n 19` for the background builds.
niced=""
packages="build-essential autoconf automake libtool pkg-config liburcu-dev libpopt-dev \
libxml2-dev libxml2-utils babeltrace2 python3-bt2 libbabeltrace2-dev chromium clang g++ \
systemtap-sdt-dev"

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

# build DIR [configure options...]
build() {
	dir=$1
	shift
	if [ ! -x "$top/configure" ] || [ "$top/configure.ac" -nt "$top/configure" ]; then
		(cd "$top" && autoreconf -fi >/dev/null 2>&1) || { say "autoreconf failed"; exit 1; }
	fi
	mkdir -p "$dir"
	if [ ! -f "$dir/Makefile" ]; then
		(cd "$dir" && $niced "$top/configure" -q "$@") || { say "configure failed in $dir"; exit 1; }
	fi
	$niced make -s -C "$dir" -j"$jobs" >/dev/null || { say "build failed in $dir"; exit 1; }
	$niced make -s -C "$dir" -j"$jobs" check TESTS= >/dev/null ||
		{ say "building the tests failed in $dir"; exit 1; }
}

# background WHAT COMMAND...: runs COMMAND (a function of this script) at
# the lowest priority in the background, its output in $top/build/WHAT.log;
# bg_pid is its process. finish PID WHAT waits for it, and counts a failure
# (with the end of its log) if it failed.
background() {
	what=$1
	shift
	(niced="nice -n 19" && "$@") >"$top/build/$what.log" 2>&1 &
	bg_pid=$!
}

finish() {
	if ! wait "$1"; then
		tail -40 "$top/build/$2.log" >&2
		say "$2 failed: see $top/build/$2.log"
		failed=$((failed + 1))
		return 1
	fi
}

# stage NAME: announces stage NAME and starts its clock.
stage() {
	stage_no=$((stage_no + 1))
	stage_name=$1
	stage_t0=$(date +%s)
	stage_p=$passed stage_f=$failed stage_s=$skipped
	say "[$stage_no/5] $stage_name ..."
}

# stage_end [WHAT]: the stage's counts (or WHAT) and time.
stage_end() {
	secs=$(($(date +%s) - stage_t0))
	if [ $# -gt 0 ]; then
		say "[$stage_no/5] $stage_name: $1 (${secs} s)"
	else
		say "[$stage_no/5] $stage_name: $((passed - stage_p)) passed, $((failed - stage_f)) failed, $((skipped - stage_s)) skipped (${secs} s)"
	fi
	echo "$stage_name ${secs}" >>"$top/build/quickstart-times"
}

# check DIR [TESTS]: `make check` there (every test, or TESTS), saying
# each failure as it comes and every 30 s how many tests are done; adds
# its counts to passed/failed/skipped.
check() {
	dir=$1
	shift
	mark="$dir/.quickstart-stage"
	touch "$mark"
	total=$#
	[ $total -gt 0 ] || total=$(make -s -C "$dir" list-tests | wc -l)
	ticker "$dir" "$mark" "$total" &
	tick=$!
	if [ $# -gt 0 ]; then
		make -C "$dir" -j"$test_jobs" check TESTS="$*" 2>&1
	else
		make -C "$dir" -j"$test_jobs" check 2>&1
	fi | tee "$dir/check.out" | grep -a -E '^(FAIL|ERROR|XPASS):' | sed 's/^/quickstart:   /' >&2 || true
	kill "$tick" 2>/dev/null || true
	wait "$tick" 2>/dev/null || true
	tally "$dir" "$dir/check.out"
}

# ticker DIR MARK TOTAL: every 30 s, how many of TOTAL tests have finished.
ticker() {
	while sleep 30; do
		n=$(find "$1" -name '*.trs' -newer "$2" 2>/dev/null | wc -l)
		say "  $stage_name: $n of $3 tests done ($(($(date +%s) - stage_t0)) s)"
	done
}

# The suite without the compile matrix, which is a stage of its own.
suite_tests() {
	make -s -C "$1" list-tests | grep -v '^tests/compile/test_matrix.py$' | tr '\n' ' '
}

# build_tsan: the ThreadSanitizer build of what tests/stress runs.
build_tsan() {
	$niced make -C "$top/build" -s -j"$jobs" build-stress STRESS_BUILDS=tsan:--enable-tsan
}

# check_stress SECONDS: tests/stress under ThreadSanitizer (`make
# check-stress`, its own build, made by build_tsan) and under ASan+UBSan (in
# build-sanitize, already built, rather than a third build of the same
# configuration).
check_stress() {
	rm -f "$top/build/stress-tsan/test-suite.log"
	make -C "$top/build" -s -j"$jobs" check-stress STRESS_SECONDS="$1" \
		STRESS_BUILDS=tsan:--enable-tsan >"$top/build/check-stress.out" 2>&1 || true
	tally "$top/build/stress-tsan" "$top/build/check-stress.out"
	make -C "$top/build-sanitize" -j"$jobs" check TESTS=tests/stress/test_stress.py \
		STRESS_SECONDS="$1" >"$top/build-sanitize/check-stress.out" 2>&1 || true
	tally "$top/build-sanitize" "$top/build-sanitize/check-stress.out"
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
	p=$(sed -n 's/^# PASS: *//p' "$log")
	f=$(sed -n 's/^# FAIL: *//p' "$log")
	x=$(sed -n 's/^# XPASS: *//p' "$log")
	e=$(sed -n 's/^# ERROR: *//p' "$log")
	s=$(sed -n 's/^# SKIP: *//p' "$log")
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0} + ${x:-0} + ${e:-0}))
	skipped=$((skipped + ${s:-0}))
	if [ "$((${f:-0} + ${x:-0} + ${e:-0}))" -gt 0 ]; then
		say "failures in $dir: see $log"
		grep -a -E -A30 '^(FAIL|ERROR|XPASS): ' "$log" | head -200 || true
	fi
}

case "${1:-}" in
demo)
	install_missing
	build "$top/build"
	out=$(mktemp -d "${TMPDIR:-/tmp}/ust-demo.XXXXXX")
	# From the build tree usttrace needs to be told where ustd is.
	UST_USTD="$top/build/ustd/ustd" "$top/build/usttrace/usttrace" -o "$out" \
		"$top/build/tests/apps/hello" 3
	for trace in "$out"/*/; do
		babeltrace2 "$trace"
	done
	say "the trace is in $out; read it again with: babeltrace2 $out"
	;;
test)
	install_missing
	passed=0 failed=0 skipped=0 stage_no=0
	mkdir -p "$top/build"
	: >"$top/build/quickstart-times"
	stage "build"
	build "$top/build"
	stage_end "libust, ustd, ustctl, usttrace, the plugin and the test programs built"
	background sanitize-build build "$top/build-sanitize" --enable-sanitizers
	asan_pid=$bg_pid
	stage "plain suite"
	check "$top/build" $(suite_tests "$top/build")
	stage_end
	stage "sanitizers (ASan+UBSan build and suite)"
	if finish "$asan_pid" sanitize-build; then
		background tsan-build build_tsan
		tsan_pid=$bg_pid
		check "$top/build-sanitize" $(make -s -C "$top/build-sanitize" list-sanitizer-tests)
	fi
	stage_end
	stage "stress (${STRESS_SECONDS:-10} s under TSan, then under ASan+UBSan)"
	if [ -n "${tsan_pid:-}" ] && finish "$tsan_pid" tsan-build; then
		check_stress "${STRESS_SECONDS:-10}"
	fi
	stage_end
	stage "compile matrix (gcc, clang: C99-C17; g++, clang++: C++11-C++23)"
	check "$top/build" tests/compile/test_matrix.py
	stage_end
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
