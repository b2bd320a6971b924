#!/usr/bin/env bash
# Measures yt-gst's RTP sender-to-receiver latency unsynchronised (--no-sync: L16, 50 ms jitter buffer) between two
# network namespaces, and prints one line `latency_ms=<median>` on stdout (details, and PASS/FAIL against the
# 60 ms goal, on stderr).
# Needs root (namespaces, a packet socket). Runs the LatencyTests test of the NetworkTests target.
# Usage: scripts/measure-latency.sh        (YT_GST_SCRATCH=DIR picks the build directory, default .build)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
scratch=${YT_GST_SCRATCH:-.build}
case "$scratch" in /*) ;; *) scratch="$PWD/$scratch" ;; esac
[ "$(id -u)" -eq 0 ] || { echo "measure-latency: needs root (network namespaces)" >&2; exit 1; }
swift build -c release --scratch-path "$scratch" --product yt-gst >&2
swift build --build-tests --scratch-path "$scratch" >&2
out=$(YT_GST_BINARY="$scratch/release/yt-gst" swift test --skip-build --scratch-path "$scratch" \
  --filter 'NetworkTests.LatencyTests' 2>&1) || { echo "$out" >&2; echo "measure-latency: the test failed" >&2; exit 1; }
echo "$out" | grep -E '^latency_samples_ms=' >&2 || true
line=$(echo "$out" | grep -E '^latency_ms=' | tail -1)
[ -n "$line" ] || { echo "$out" >&2; echo "measure-latency: no latency_ms line" >&2; exit 1; }
# The goal the test no longer holds (a loaded machine can miss a tight window): judged here, on the figure.
if awk -v v="${line#latency_ms=}" 'BEGIN { exit !(v <= 60) }'; then verdict=PASS; else verdict=FAIL; fi
echo "measure-latency: goal <= 60 ms (the 50 ms jitter buffer + 10 ms): $verdict" >&2
echo "$line"
