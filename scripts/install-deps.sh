#!/usr/bin/env bash
# Installs the Debian packages yt-gst needs to build, play and test, skipping what is already there.
# Usage: scripts/install-deps.sh [build|test]   (test adds the tools the test suite drives)
set -euo pipefail
packages=(
  pkg-config libstdc++-12-dev  # static libstdc++ for the release link (scripts/static-libstdc++)
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  libpipewire-0.3-dev  # PipeWire's headers: ytpipewiresink, the receivers' PipeWire output (the library is loaded at run time)
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  # decoders for compressed WAV: good = A-law, mu-law, MP3 (mpg123); bad = IMA/MS ADPCM, GSM, AAC, DTS, Siren;
  # ugly = AC-3 (a52dec), AMR-NB; libav = WMA, G.726, G.722, TrueSpeech, ATRAC3, IMA DK3/DK4, AMR-WB
  gstreamer1.0-plugins-ugly gstreamer1.0-libav
  gstreamer1.0-tools gstreamer1.0-pulseaudio gstreamer1.0-alsa
)
if [ "${1:-build}" = test ]; then
  packages+=(pulseaudio pulseaudio-utils sox python3 iproute2 procps tmux zsh man-db nftables iputils-ping)
  packages+=(libsox-fmt-mp3)  # sox reads MP3 through libmad: the MP3 tests' decoder independent of GStreamer's
  packages+=(gstreamer1.0-plugins-base-apps valgrind)  # gst-play-1.0 for scripts/bench.sh; callgrind for scripts/link-order.sh
  packages+=(icecast2 curl)  # the broadcast tests: a real Icecast master and relay; curl reads their stats
  packages+=(time)  # /usr/bin/time: scripts/bench.py reads each run's peak RSS from it (parec, pactl: pulseaudio-utils)
  # the multi-room lab: scripts/skew.py (numpy), a receiver's clock run fast (faketime), Snapcast as the bench's peer
  packages+=(python3-numpy faketime snapserver snapclient)
  packages+=(libasound2-plugins)  # ALSA's `pulse` device: the lab's receivers on alsasink
  packages+=(python3-soundfile alsa-utils)  # record tests read back with libsndfile; bench --record races arecord
  packages+=(socat python3-pip)  # the IPC tests: socat as a client, pip for python-mpv-jsonipc (below)
  packages+=(dbus playerctl)  # the MPRIS tests: dbus-run-session, dbus-send, dbus-monitor; playerctl as the desktop
  packages+=(stress-ng)  # a CPU hog beside the lab: the multi-room tests must pass, and never hang, on a busy machine
  packages+=(gdb)  # the lab logs where each thread of a process that ignored its SIGINT was (scripts/multiroom-lab.py)
  packages+=(pipewire pipewire-pulse pipewire-bin wireplumber gstreamer1.0-pipewire)  # the lab on PipeWire (--server pipewire)
  packages+=(mpv mpv-mpris)  # bench --control: mpv 0.35 and its MPRIS plugin, the peer of the IPC and MPRIS rows
  # the control page in a real browser: headless Chromium driven by scripts/web-page-check.py (Debian's python3)
  packages+=(chromium chromium-driver python3-selenium)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# PyPI packages the tests drive yt-gst with, as they drive the real thing (not packaged in Debian; Debian 12's pip
# needs --break-system-packages to install outside a virtual environment): python-mpv-jsonipc (the IPC tests, as
# it drives mpv) and snapcast (the interop tests: the library Home Assistant's Snapcast integration uses).
if [ "${1:-build}" = test ]; then
  for wanted in python_mpv_jsonipc:python-mpv-jsonipc snapcast.control:snapcast; do
    module=${wanted%%:*} package=${wanted#*:}
    python3 -c "import $module" 2>/dev/null && continue
    echo "Installing: $package (pip)"
    python3 -m pip install -q "$package" 2>/dev/null || python3 -m pip install -q --break-system-packages "$package"
  done
fi
