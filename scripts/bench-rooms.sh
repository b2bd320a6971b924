#!/usr/bin/env bash
# The rooms benchmark (issue 24): the control service on the sender against Snapcast 0.26, measured in the same run
# (scripts/bench_rooms.py, in Tests/interop/rooms_lab.py's private network namespace, inside a private PulseAudio):
# Client.SetVolume → the level change heard at the room, and the service's idle cost (CPU, wake-ups) with 10 rooms
# and 5 pages. Builds yt-gst in release mode unless --binary is given. Needs root (a network namespace).
#
# Usage: scripts/bench-rooms.sh [--binary PATH] [--rounds N] [--quick] [--peers yt-gst,snapcast]
#   --rounds N   timed rounds per peer after a warm-up round (default 5; about 20 s a round)
#   --quick      1 round, no warm-up, 3 s idle windows: proves the benchmark works (make test, under 60 s); fails
#                only when a run fails its check, whatever the figures.
# Exit: 0 every run checked and every judged row PASS (quick: every run checked), 2 some row FAIL or a run failed
# its check, 1 the benchmark itself failed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
binary="" rounds=5 quick="" peers=yt-gst,snapcast
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --quick) quick=--quick; shift ;;
    --peers) peers=$2; shift 2 ;;
    *) echo "usage: scripts/bench-rooms.sh [--binary PATH] [--rounds N] [--quick] [--peers yt-gst,snapcast]" >&2; exit 64 ;;
  esac
done
if [ -z "$binary" ]; then
  swift build -c release --product yt-gst >&2
  binary="$PWD/.build/release/yt-gst"
fi
[ -x "$binary" ] || { echo "bench: no executable at $binary" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "bench: the rooms benchmark needs root (a network namespace)" >&2; exit 1; }
for tool in python3 pulseaudio pactl parec snapserver snapclient ip setpriv; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing (make test-deps installs it)" >&2; exit 1; }
done
python3 -c 'import numpy, snapcast.control' 2>/dev/null \
  || { echo "bench: python3 lacks numpy or PyPI's snapcast (make test-deps installs them)" >&2; exit 1; }
# The whole run bounded (SIGTERM ends it through its clean-up, which kills every process and the namespace).
exec scripts/with-pulseaudio.sh timeout -k 10 $((90 + 45 * (rounds + 1))) \
  python3 scripts/bench_rooms.py --binary "$binary" --rounds "$rounds" --peers "$peers" $quick
