#!/usr/bin/env bash
# The side-by-side benchmark: yt-gst against `gst-launch-1.0 filesrc ! wavparse ! ...` and gst-play-1.0.
# Builds yt-gst in release mode (unless --binary is given), generates its WAV files (1 hour, 1 minute, 0.1 s of
# 48 kHz stereo 16-bit), starts a private PulseAudio with a null sink, runs scripts/bench.py and adds the network
# latency from scripts/measure-latency.sh. Prints a table: both medians, the median of round-by-round ratios,
# PASS/FAIL. Every run has a timeout and its output is checked against the samples that must reach the sink (how,
# per group: scripts/bench.py's header); a run that hangs, fails or delivers the wrong samples is a FAIL line.
#
# Usage: scripts/bench.sh [--binary PATH] [--pairs N] [--quick] [--no-latency] [--only GROUPS] [--record] [--broadcast]
#                        [--control]
#   --pairs N     timed rounds per group after the warm-up round (default 5; 1 gives a reduced run of ~6 minutes)
#   --quick       small files (10 s, 1 s, 0.1 s), 1 round, no warm-up, no latency: proves the benchmark works
#                 (make test); fails only when a run fails or its output check fails, whatever the ratios.
#   --only GROUPS comma-separated: feed, start-up, real-time, tail (no latency)
#   --multiroom   only the multi-room rows instead (needs root; ~80 minutes): yt-gst and Snapcast in
#                 scripts/multiroom-lab.py, each scenario of issue 12's table; options passed on to bench.py:
#                 --multiroom-scenarios LIST, --multiroom-peers LIST, --multiroom-seconds S, --yt-sender CMD,
#                 --yt-receiver CMD, --yt-delay OPTION (see scripts/bench.py --help)
#   --broadcast   only the broadcast rows (scripts/bench_broadcast.py): sender CPU against gst-launch shout2send,
#                 latency through Icecast (default burst and burst-size 0), HLS live edge, listeners one Icecast holds
#   --control     only the control rows (scripts/bench_control.py), under dbus-run-session: IPC command → effect at
#                 the sink (pause, seek), idle wake-ups with an IPC observer and MPRIS, MPRIS play-pause → signal,
#                 against mpv 0.35 with mpv-mpris (quick: 1 round, about 20 s)
#   --record      only the recording rows (scripts/bench_record.py): CPU against pulsesrc ! wavenc, audio lost
#                 after kill -9 against wavenc, sox and arecord
#   YT_GST_SCRATCH=DIR   build directory (default .build); YT_GST_BENCH_DIR=DIR  where the files are kept
#                        (default /tmp/yt-gst-bench; the 1-hour file is 660 MB and is reused).
# Exit: 0 every run checked and every judged row PASS (quick mode: every run checked), 2 some row FAIL or a run
# failed its check, 1 the benchmark itself failed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
binary="" pairs=5 quick="" latency=1 only=feed,start-up,real-time,tail multiroom=() record="" broadcast="" control=""
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=$2; shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    --quick) quick=--quick; latency=""; shift ;;
    --no-latency) latency=""; shift ;;
    --only) only=$2; latency=""; shift 2 ;;
    --multiroom) multiroom+=(--multiroom); latency=""; shift ;;
    --multiroom-*|--yt-*) multiroom+=("$1" "$2"); shift 2 ;;
    --record) record=--record; latency=""; shift ;;
    --broadcast) broadcast=--broadcast; latency=""; shift ;;
    --control) control=--control; latency=""; shift ;;
    *) echo "usage: scripts/bench.sh [--binary PATH] [--pairs N] [--quick] [--no-latency] [--only GROUPS] [--record] [--broadcast] [--control]" \
         "[--multiroom [--multiroom-scenarios LIST] [--multiroom-peers LIST] [--yt-delay OPTION] ...]" >&2
       exit 64 ;;
  esac
done
scratch=${YT_GST_SCRATCH:-.build}
case "$scratch" in /*) ;; *) scratch="$PWD/$scratch" ;; esac
if [ -z "$binary" ]; then
  swift build -c release --scratch-path "$scratch" --product yt-gst >&2
  binary="$scratch/release/yt-gst"
fi
[ -x "$binary" ] || { echo "bench: no executable at $binary" >&2; exit 1; }
# Everything the benchmark runs (scripts/install-deps.sh test installs them all).
for tool in gst-launch-1.0 gst-inspect-1.0 gst-play-1.0 python3 pulseaudio pactl parec /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make test-deps installs it)" >&2; exit 1; }
done
if [ -n "$control" ]; then
  for tool in mpv playerctl dbus-run-session dbus-monitor; do
    command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make test-deps installs it)" >&2; exit 1; }
  done
  [ -f /usr/lib/mpv-mpris/mpris.so ] || { echo "bench: mpv-mpris is missing (make test-deps installs it)" >&2; exit 1; }
fi
dir=${YT_GST_BENCH_DIR:-/tmp/yt-gst-bench}
[ -n "$quick" ] && dir="$dir/quick"

# with-pulseaudio.sh gives the run a fresh HOME: keep GStreamer's usual registry so that it is not rebuilt.
export GST_REGISTRY=${GST_REGISTRY:-${XDG_CACHE_HOME:-$HOME/.cache}/gstreamer-1.0/registry.$(uname -m).bin}

figure=""
if [ -n "$latency" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    figure="not measured (needs root)"
  elif out=$(YT_GST_SCRATCH="$scratch" scripts/measure-latency.sh 2>/tmp/yt-gst-bench-latency.log); then
    figure="${out#latency_ms=} ms"
  else
    figure="not measured (scripts/measure-latency.sh failed; see /tmp/yt-gst-bench-latency.log)"
  fi
fi
if [ -n "$control" ]; then
  # A session bus of its own for MPRIS; the whole run bounded (SIGTERM ends it through its clean-up).
  # (The bus daemon's own notices on stderr are left out.)
  exec scripts/with-pulseaudio.sh dbus-run-session -- timeout -k 10 $((120 + 90 * pairs)) \
    python3 scripts/bench.py --control --binary "$binary" --dir "$dir" --pairs "$pairs" $quick \
    2> >(grep -v '^dbus-daemon\[' >&2)
fi
scripts/with-pulseaudio.sh python3 scripts/bench.py --binary "$binary" --dir "$dir" --pairs "$pairs" --only "$only" $quick $record $broadcast \
  --latency "$figure" "${multiroom[@]}"
