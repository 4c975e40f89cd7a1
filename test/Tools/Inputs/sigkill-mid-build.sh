#!/bin/sh
# Starts autofuse-run (arguments: the tool, then its arguments) with the stand-in compiler
# fake-cxx-exec-sleep.sh, waits until the compiler runs, kills the tool with SIGKILL and
# prints the compiler processes still alive a moment later (none expected).
"$@" >/dev/null 2>&1 &
tool=$!
tries=0
until ps -eo args | grep -qx "sleep 319"; do
  tries=$((tries + 1))
  if [ "$tries" -gt 600 ]; then
    echo "the stand-in compiler never started"
    kill -9 "$tool"
    exit 1
  fi
  sleep 0.1
done
kill -9 "$tool"
wait "$tool" 2>/dev/null
sleep 0.5
ps -eo args | grep -x "sleep 319" || echo "no compiler left"
