#!/usr/bin/env bash
# Runs a command with a private PulseAudio server whose only output is a null sink named "spk".
# The command sees PULSE_SERVER (and YT_GST_PULSE_SINK=spk); the server is stopped by PID afterwards, and dies
# with this script however it ends (setpriv --pdeathsig KILL: even a SIGKILL of the script, which no trap sees).
# memfd is off (clients share POSIX shm instead): a single stream reaches the monitor by reference, PulseAudio 16 then
# cannot pass a client's memfd block on to the recording client ("non-registered memfd ID", its issue 824), and its
# fallback aborts the server now and then ('n_imported > 0' in stat_remove: at the 39th and the 6th one-second play
# recorded by parec in two loops here; none in 250 with memfd off).
# Usage: scripts/with-pulseaudio.sh COMMAND [ARGS...]
set -euo pipefail
work=$(mktemp -d "${TMPDIR:-/tmp}/yt-gst-pulse.XXXXXX")
mkdir -p "$work/run" "$work/home"
chmod 700 "$work/run"
export HOME="$work/home" XDG_RUNTIME_DIR="$work/run" XDG_CONFIG_HOME="$work/home/.config"
export PULSE_SERVER="unix:$work/native" YT_GST_PULSE_SINK=spk
setpriv --pdeathsig KILL pulseaudio --daemonize=no --exit-idle-time=-1 --disallow-exit -n --use-pid-file=no \
  --enable-memfd=no \
  --load="module-null-sink sink_name=spk rate=48000 channels=2 norewinds=1" \
  --load="module-native-protocol-unix socket=$work/native auth-anonymous=1" \
  --log-target="file:$work/pulseaudio.log" &
pa=$!
# A server that died before the command ended says why (its log goes with the directory).
cleanup() {
  if kill "$pa" 2>/dev/null; then wait "$pa" 2>/dev/null || true
  else
    status=0; wait "$pa" 2>/dev/null || status=$?
    echo "with-pulseaudio.sh: PulseAudio ended before the command did (status $status); its log ends:" >&2
    tail -n 20 "$work/pulseaudio.log" >&2 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 100); do pactl info >/dev/null 2>&1 && break; sleep 0.1; done
pactl info >/dev/null 2>&1 || { echo "PulseAudio did not start; log:" >&2; cat "$work/pulseaudio.log" >&2; exit 1; }
"$@"
