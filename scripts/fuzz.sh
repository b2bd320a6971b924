#!/usr/bin/env bash
# Builds the libFuzzer target for the pure-Swift WAV reader and runs it.
# Usage: scripts/fuzz.sh [SECONDS] [extra libFuzzer flags...]   (SECONDS=0: build only; default 60)
# The reader's sources are compiled straight into the fuzz executable (-sanitize=fuzzer,address); the corpus seeds it.
# A crash, an out-of-bounds access, a leak, a > 64 MB allocation or a > 10 s input is a finding: libFuzzer writes it to
# fuzz/findings/ and the script exits non-zero. Every finding becomes a test:
# keep the input in fuzz/regressions/, which FuzzRegressionTests replays (it also replays fuzz/findings/).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
export PATH=/opt/swift/usr/bin:$PATH
out="${FUZZ_BUILD:-/tmp/yt-gst-fuzz}"
mkdir -p "$out" fuzz/findings
# The WAV module, instrumented, as a module of its own (AppSrcFeeder's caps mapping imports it); then the mapping and the
# fuzz target on it. One package name for both, so that `package` declarations are seen as in SwiftPM.
wav_sources=(Sources/WAV/*.swift Sources/WAV/*/*.swift)
sources=(Sources/AppSrcFeeder/PacketPlan.swift Sources/AppSrcFeeder/WAVFormat+Caps.swift Sources/AppSrcFeeder/FeedLayout.swift
         Sources/AppSrcFeeder/CodecCapsRule.swift fuzz/ReaderFuzzTarget.swift)
flags=(-sanitize=fuzzer,address -parse-as-library -O -g -package-name yt_gst_fuzz)
# The caps mapping speaks GstPlayer's Caps: GstPlayer comes from the package's release build (not instrumented; the
# reader and the mapping are), linked with GStreamer as pkg-config gives it; PipeWire's headers for its CPipeWire module
# (libpipewire itself is loaded at run time).
gst_modules="gstreamer-1.0 gstreamer-app-1.0 gstreamer-audio-1.0 gstreamer-net-1.0 gstreamer-controller-1.0 gio-2.0"  # as Package.swift
if [ ! -x "$out/wav-reader-fuzz" ] \
  || [ -n "$(find "${wav_sources[@]}" "${sources[@]}" Sources/GstPlayer -newer "$out/wav-reader-fuzz" -print -quit)" ]; then
  echo "building $out/wav-reader-fuzz"
  swift build -c release --target GstPlayer > "$out/build.log" 2>&1 || { cat "$out/build.log" >&2; exit 1; }
  mkdir -p "$out/modules"
  swiftc "${flags[@]}" -module-name WAV -wmo -c "${wav_sources[@]}" -o "$out/WAV.o" \
    -emit-module -emit-module-path "$out/modules/WAV.swiftmodule" 2>> "$out/build.log" \
    || { cat "$out/build.log" >&2; exit 1; }
  gst_includes=$(pkg-config --cflags-only-I $gst_modules libpipewire-0.3 | sed 's/-I/-Xcc -I/g')
  # shellcheck disable=SC2046,SC2086  # word splitting of the flag lists is intended
  swiftc "${flags[@]}" -module-name WAVReaderFuzz "${sources[@]}" "$out/WAV.o" -I "$out/modules" \
    -I .build/release/Modules -Xcc -fmodule-map-file=Sources/CGStreamer/module.modulemap \
    -Xcc -fmodule-map-file=Sources/CPipeWire/module.modulemap $gst_includes \
    .build/release/GstPlayer.build/*.o $(pkg-config --libs $gst_modules) -lm \
    -o "$out/wav-reader-fuzz" 2>> "$out/build.log" || { cat "$out/build.log" >&2; exit 1; }
fi
[ "$seconds" = 0 ] && exit 0
# Seeds: the shared corpus (read-only) and the generated seeds; new inputs go to a scratch corpus.
corpus_dir="${YT_GST_WAV_CORPUS:-../shared/wav-corpus}"
work="$out/corpus"
mkdir -p "$work"
seeds=("$work")
[ -d "$corpus_dir" ] && seeds+=("$corpus_dir")
[ -d fuzz/regressions ] && seeds+=(fuzz/regressions)
"$out/wav-reader-fuzz" -max_total_time="$seconds" -max_len=16384 -malloc_limit_mb=64 -rss_limit_mb=512 -timeout=10 \
  -artifact_prefix=fuzz/findings/ -print_final_stats=1 "$@" "${seeds[@]}"
