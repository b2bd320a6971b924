#!/usr/bin/env bash
# Runs a build command (e.g. `swift build -c release`) and fails when it prints a warning: a new user reads every
# warning as something wrong. (SwiftPM used to print "prohibited flag(s): -pthread" six times per build.)
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] || exit "$status"
if grep -i "warning:" "$log" >/dev/null; then
    echo "quiet-build: \`$*\` printed warnings (above); the build must be quiet" >&2
    exit 1
fi
