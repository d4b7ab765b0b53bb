#!/bin/sh
# Runs "$@" (DynamoDB Local's java command line) so that it can never outlive Node, with a
# temporary folder of its own.
#
# Node starts this script with a pipe on stdin and never writes to it. When Node exits for
# any reason, SIGKILL included, the kernel closes Node's end and our read sees EOF: we then
# stop java (TERM, then KILL after 5 s). When java exits on its own, so does this script,
# with java's status, so Node notices (e.g. "address already in use").
#
# Node spawns it detached, as a process group leader; stop() signals the whole group.

# Keep Node's pipe on fd 3: a background job's stdin is replaced by /dev/null.
exec 3<&0

# java's temporary files (DynamoDB Local unpacks its SQLite library there at every start, and
# never removes it) in a folder of this run's own, removed when java is gone.
java_tmp=$(mktemp -d "${TMPDIR:-/tmp}/dynamodb-local-java.XXXXXX")
java_command=$1
shift

# java reads neither the pipe nor our stdin.
"$java_command" "-Djava.io.tmpdir=$java_tmp" "$@" </dev/null 3<&- &
java_pid=$!

# A TERM/INT/HUP for this shell is passed on to java; we still wait for java to exit.
trap 'kill -TERM "$java_pid" 2>/dev/null' TERM INT HUP

# Watcher: blocks until Node's end of the pipe is closed.
{
  cat <&3 >/dev/null
  kill -TERM "$java_pid" 2>/dev/null || exit 0
  sleep 5
  kill -KILL "$java_pid" 2>/dev/null
} &
watcher_pid=$!
exec 3<&-

# `wait` returns early when a trapped signal arrives: keep waiting until java is gone.
while :; do
  wait "$java_pid"
  status=$?
  kill -0 "$java_pid" 2>/dev/null || break
done
kill "$watcher_pid" 2>/dev/null
rm -rf "$java_tmp"
exit "$status"
