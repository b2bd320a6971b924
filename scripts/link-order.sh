#!/usr/bin/env bash
# Regenerates scripts/link-order.txt: the functions of the yt-gst binary (its own, the Swift runtime's and the
# standard library's) that typical runs execute, in first-use order. Release builds hand it to lld
# (--symbol-ordering-file, see Package.swift), which lays those functions out together, so a run touches a few
# hundred KB of code instead of pages scattered over 6 MB (the kernel maps code 64 KB around each page fault).
# Functions that sit in one big unsplittable .text section (the standard library's Swift.o is compiled without
# function sections: 1.5 MB in one piece) are left out: naming them would drag that whole piece to the front, between
# the hot functions. A stale list costs nothing but that gain: names that no longer exist are ignored.
# Needs valgrind (callgrind) and PulseAudio (for the autoaudiosink run). Usage: scripts/link-order.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
binary=${1:-}
if [ -z "$binary" ]; then
  swift build -c release --product yt-gst >&2
  binary=.build/release/yt-gst
fi
work=$(mktemp -d /tmp/yt-gst-order.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 - "$work" <<'EOF'
import math, struct, sys
for name, seconds in (("short.wav", 0.1), ("long.wav", 2)):
    frames = int(48000 * seconds)
    data = b"".join(struct.pack("<hh", v, v) for v in (int(8000 * math.sin(i / 10)) for i in range(frames)))
    with open(f"{sys.argv[1]}/{name}", "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVE")
        f.write(b"fmt " + struct.pack("<IHHIIHH", 16, 1, 2, 48000, 192000, 4, 16) + b"data" + struct.pack("<I", len(data)))
        f.write(data)
EOF
cg() { valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.$1" "${@:2}" >/dev/null 2>&1; }
cg 1 "$binary" play "$work/short.wav" -q --pipeline 'appsrc name=src ! fakesink'
cg 2 "$binary" play "$work/long.wav" -q --pipeline 'appsrc name=src ! audioconvert ! audio/x-raw,format=S32LE ! fakesink sync=false'
cg 3 "$binary" play "$work/short.wav" -q --pipeline 'appsrc name=src ! fakesink sync=true'
cg 4 "$binary" info "$work/short.wav"
cg 5 "$binary" play "$work/short.wav" -q --sink 'wavenc ! filesink location=/dev/null'
scripts/with-pulseaudio.sh bash -c "valgrind --tool=callgrind --demangle=no --callgrind-out-file=$work/cg.6 \
  $binary play $work/short.wav -q --no-interactive >/dev/null 2>&1"
static=$(dirname "$(readlink -f "$(command -v swiftc)")")/../lib/swift_static/linux
libstdcxx=$(clang -print-file-name=libstdc++.a)
python3 - "$binary" "$work"/cg.* -- "$static"/*.a "$libstdcxx" > scripts/link-order.txt <<'EOF'
import re, subprocess, sys
binary = sys.argv[1].rsplit("/", 1)[-1]
split = sys.argv.index("--")
profiles, archives = sys.argv[2:split], sys.argv[split + 1:]


def unsplittable(archive, limit=64 * 1024):
    """Functions defined in a code section of more than `limit` bytes of one of the archive's objects."""
    sections, member = {}, None
    for line in subprocess.run(["readelf", "-SW", archive], capture_output=True, text=True, errors="replace").stdout.splitlines():
        if line.startswith("File: "):
            member = line[6:]
            continue
        m = re.match(r"^\s*\[\s*(\d+)\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m and m.group(2).startswith(".text") and int(m.group(3), 16) > limit:
            sections[(member, m.group(1))] = True
    names = set()
    for line in subprocess.run(["readelf", "-sW", archive], capture_output=True, text=True, errors="replace").stdout.splitlines():
        if line.startswith("File: "):
            member = line[6:]
            continue
        p = line.split()
        if len(p) >= 8 and p[3] == "FUNC" and (member, p[6]) in sections:
            names.add(p[7])
    return names


skip = set().union(*(unsplittable(a) for a in archives))
seen, order = set(skip), []
for path in profiles:
    objects, functions, current, called = {}, {}, None, None
    for line in open(path, errors="replace"):
        m = re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if m:
            kind, key, name = m.groups()
            if name: objects[key] = name
            if kind == "ob": current, called = objects.get(key), None
            else: called = objects.get(key)
            continue
        m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if m:
            kind, key, name = m.groups()
            if name: functions[key] = name
            fn, obj = functions.get(key), current if kind == "fn" else (called or current)
            if kind == "cfn": called = None
            fn = fn and re.sub(r"'\d+$", "", fn)
            if obj and obj.rsplit("/", 1)[-1] == binary and fn and not fn.startswith(("0x", "(")) and fn not in seen:
                seen.add(fn)
                order.append(fn)
print("\n".join(order))
EOF
echo "scripts/link-order.txt: $(wc -l < scripts/link-order.txt) functions" >&2
