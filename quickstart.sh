#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The two quick-start commands of the README, on a fresh Debian 12 machine:
#   ./quickstart.sh demo   install what is missing, build, trace the demo
#                          program with usttrace and print its events
#   ./quickstart.sh test   install what is missing, build, run the whole test
#                          suite twice (plain, then with ASan+UBSan), then
#                          `make check-stress` for STRESS_SECONDS (default 10)
#                          under TSan and ASan, and end with the line
#                          "N passed, M failed"
set -eu

top=$(cd "$(dirname "$0")" && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
packages="build-essential autoconf automake libtool pkg-config liburcu-dev libpopt-dev \
libxml2-dev libxml2-utils babeltrace2 python3-bt2 libbabeltrace2-dev chromium clang"

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
		(cd "$dir" && "$top/configure" -q "$@") || { say "configure failed in $dir"; exit 1; }
	fi
	make -s -C "$dir" -j"$jobs" >/dev/null || { say "build failed in $dir"; exit 1; }
	make -s -C "$dir" -j"$jobs" check TESTS= >/dev/null || { say "building the tests failed in $dir"; exit 1; }
}

# check DIR: runs the suite there; adds its counts to passed/failed/skipped.
check() {
	dir=$1
	make -C "$dir" -j"$jobs" check >"$dir/check.out" 2>&1 || true
	tally "$dir" "$dir/check.out"
}

# check_stress DIR SECONDS: `make check-stress` there (it builds the tree
# twice more, with ThreadSanitizer and with ASan+UBSan) and adds its counts.
check_stress() {
	top_build=$1
	rm -f "$top_build/stress-tsan/test-suite.log" "$top_build/stress-asan/test-suite.log"
	make -C "$top_build" -s -j"$jobs" check-stress STRESS_SECONDS="$2" \
		>"$top_build/check-stress.out" 2>&1 || true
	tally "$top_build/stress-tsan" "$top_build/check-stress.out"
	tally "$top_build/stress-asan" /dev/null
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
	grep -E '^(PASS|FAIL|XPASS|ERROR|SKIP):' "$2" | grep -v '^PASS' || true
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
		grep -E -A30 '^(FAIL|ERROR|XPASS): ' "$log" | head -200 || true
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
	passed=0 failed=0 skipped=0
	build "$top/build"
	check "$top/build"
	build "$top/build-sanitize" --enable-sanitizers
	check "$top/build-sanitize"
	check_stress "$top/build" "${STRESS_SECONDS:-10}"
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
