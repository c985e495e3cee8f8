#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tests/bounded.sh TEST [ARG...]: runs one test of the suite (make check's
# LOG_COMPILER) in a session of its own, bounded in time.
#
# Why: a test that hangs, or a daemon it started that never exits (it
# keeps the test's standard output open, so the TAP driver never sees the
# end), held CI until CI's own limit killed everything, with nothing said
# of which test or where. Here:
#  - after UST_TEST_TIMEOUT seconds (default 600) the test fails: its
#    processes are listed with what each waits in, then stopped (TERM, then
#    KILL 10 s later), with a Python test's stacks, which ustest.py writes
#    15 s before to UST_TEST_STACKS;
#  - once the test has ended, what it started and left running gets 10 s
#    to exit, then the test fails with those processes listed, and they are
#    killed: tests stop what they start.
# Processes are found by session, which setsid made the test's, and
# stopped by PID, never by name: a session holds every process group the
# test makes (usttrace puts its ustd in a group of its own, which a kill
# of the test's group would miss, leaving it to hold the test's output
# open).
set -u

limit=${UST_TEST_TIMEOUT:-600}
export UST_TEST_TIMEOUT="$limit"
UST_TEST_STACKS=$(mktemp "${TMPDIR:-/tmp}/ust-test-stacks.XXXXXX") || exit 99
export UST_TEST_STACKS
trap 'rm -f "$UST_TEST_STACKS"' EXIT
t0=$(date +%s)
# The test's own name: the last argument (the others are its interpreter).
for name; do :; done

# session_procs SID: the processes of that session, one line each, as "# "
# lines.
session_procs() {
	ps -e -o sid=,pid=,ppid=,stat=,wchan:24=,etime=,args= 2>/dev/null |
		awk -v s="$1" '$1 == s { $1 = ""; print "#  " $0 }'
}

# kill_session SIGNAL SID
kill_session() {
	ps -e -o sid=,pid= 2>/dev/null | awk -v s="$2" '$1 == s { print $2 }' |
		xargs -r kill -s "$1" 2>/dev/null
}

# Without job control a background job is not a group leader, so setsid
# makes the test the leader of a new session without forking: $! is the
# test itself, and its pid is its session's id.
setsid "$@" &
test_pid=$!

(
	sleep "$limit" >/dev/null 2>&1 &
	s=$!
	trap 'kill "$s" 2>/dev/null; exit 0' TERM
	wait "$s"
	kill -0 "$test_pid" 2>/dev/null || exit 0
	echo "# bounded.sh: $name still running after $limit s (UST_TEST_TIMEOUT); its processes:"
	session_procs "$test_pid"
	sed 's/^/#  /' "$UST_TEST_STACKS"
	kill_session TERM "$test_pid"
	i=0
	while [ "$i" -lt 10 ] && [ -n "$(session_procs "$test_pid")" ]; do
		sleep 1
		i=$((i + 1))
	done
	kill_session KILL "$test_pid"
) &
watchdog=$!

wait "$test_pid"
rc=$?
kill -TERM "$watchdog" 2>/dev/null
wait "$watchdog" 2>/dev/null
took=$(($(date +%s) - t0))

if [ "$took" -ge "$limit" ]; then
	echo "Bail out! $name did not end within $limit s (UST_TEST_TIMEOUT): see its processes above"
	exit 1
fi

left=""
i=0
while [ "$i" -lt 10 ]; do
	left=$(session_procs "$test_pid")
	[ -z "$left" ] && break
	sleep 1
	i=$((i + 1))
done
if [ -n "$left" ]; then
	echo "# bounded.sh: $name ended (status $rc) and left these running 10 s later:"
	echo "$left"
	kill_session KILL "$test_pid"
	echo "Bail out! $name left processes running (listed above): a test stops what it starts"
	exit 1
fi
echo "# bounded.sh: $name took $took s"
exit "$rc"
