#!/usr/bin/env bash
# The fast tests: the suites named in scripts/fast-tests.txt (logic with no pipeline, PulseAudio, network namespace
# or yt-gst binary), as `make check` runs them and as `make test-asan` selects them.
# Usage: scripts/fast-tests.sh filter   prints the `swift test --filter` pattern that selects them
#        scripts/fast-tests.sh run      runs them from the debug build (build it first): every listed suite must
#                                       exist, none finds a PulseAudio server or the binary, and the run must take
#                                       under 60 s, so a slow suite cannot join the list unnoticed
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
mapfile -t suites < <(grep -v -e '^#' -e '^$' scripts/fast-tests.txt)
filter="\\.($(IFS='|'; echo "${suites[*]}"))/"
case "${1:-}" in
  filter) echo "$filter"; exit 0 ;;
  run) ;;
  *) echo "usage: scripts/fast-tests.sh filter|run" >&2; exit 64 ;;
esac
listed=$(swift test list --skip-build 2>/dev/null)
for suite in "${suites[@]}"; do
  grep -q "\\.$suite/" <<< "$listed" || { echo "scripts/fast-tests.txt: no test target has a suite $suite" >&2; exit 1; }
done
start=$(date +%s%N)
YT_GST_BINARY=/nonexistent/yt-gst PULSE_SERVER=unix:/nonexistent/native \
  timeout 300 swift test --skip-build --no-parallel --filter "$filter"
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
echo "fast tests: ${#suites[@]} suites in $(( elapsed / 1000 )).$(( elapsed % 1000 / 100 )) s"
if (( elapsed > 60000 )); then
  echo "the fast tests took over 60 s: does a suite in scripts/fast-tests.txt need a pipeline, sound or the binary?" >&2
  exit 1
fi
