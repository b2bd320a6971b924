#!/usr/bin/env python3
# yt-gst — the side-by-side benchmark: yt-gst against GStreamer's own `filesrc ! wavparse` (and gst-play-1.0).
#
# Run through scripts/bench.sh (which builds, starts a private PulseAudio and passes the binary). Each figure is
# measured in pairs run alternately, A B A B ..., after a warm-up pair that is not counted; every run is a child
# process whose wall time comes from a monotonic clock and whose CPU time and peak RSS come from wait4(2)'s rusage
# (getrusage of that child alone). For every figure it prints both medians, the median of the pair-by-pair ratios
# and PASS/FAIL against the target. Ratios of pairs run back to back are what to trust on a busy machine.
import argparse
import atexit
import math
import os
import platform
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

RATE, CHANNELS = 48_000, 2
FEED_DOWNSTREAM = "audioconvert ! audio/x-raw,format=S32LE ! fakesink sync=false"
WORK = tempfile.mkdtemp(prefix="yt-gst-bench.")
atexit.register(shutil.rmtree, WORK, True)


def write_wav(path, seconds):
    """A 48 kHz stereo 16-bit PCM WAV of a 440 Hz tone (an exact number of periods per second, repeated)."""
    frames = round(seconds * RATE)
    size = frames * 4
    if os.path.exists(path) and os.path.getsize(path) == 44 + size:
        return
    second = bytearray()
    for i in range(RATE):
        v = int(12_000 * math.sin(2 * math.pi * 440 * i / RATE))
        second += struct.pack("<hh", v, v)
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 36 + size) + b"WAVE")
        f.write(b"fmt " + struct.pack("<IHHIIHH", 16, 1, CHANNELS, RATE, RATE * 4, 4, 16))
        f.write(b"data" + struct.pack("<I", size))
        left = size
        while left:
            n = min(left, len(second))
            f.write(second[:n])
            left -= n
    os.replace(tmp, path)


class Run:
    def __init__(self, wall, cpu, rss_kb):
        self.wall, self.cpu, self.rss_kb = wall, cpu, rss_kb


def run(argv, label):
    """Runs argv to completion: wall seconds, user+sys CPU seconds and peak RSS (KB) of that process.

    The program is started by /usr/bin/time, a small C process, because a process forked from Python would count
    Python's own resident memory in its peak RSS (Linux keeps the pre-exec high-water mark); time's %M is the
    program's alone. CPU comes from wait4(2)'s rusage of the time process, which includes the program's.
    """
    rss_file = os.path.join(WORK, "rss")
    start = time.perf_counter()
    proc = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss_file] + argv, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if proc.returncode != 0:
        sys.stderr.write(f"bench: {label} failed (exit {proc.returncode}): {' '.join(argv)}\n{err}")
        sys.exit(1)
    with open(rss_file) as f:
        rss_kb = int(f.read().split()[-1])
    return Run(wall, usage.ru_utime + usage.ru_stime, rss_kb)


def pairs(a, b, count, warmup=None, label=""):
    """Warm-up (a, b once each, not counted), then `count` pairs run alternately: a b a b ..."""
    if warmup:
        run(warmup[0], label + " warm-up (yt-gst)")
        run(warmup[1], label + " warm-up (reference)")
    out = []
    for i in range(count):
        ra = run(a, f"{label} yt-gst #{i + 1}")
        rb = run(b, f"{label} reference #{i + 1}")
        out.append((ra, rb))
        print(f"  {label:<12} pair {i + 1}/{count}: yt-gst {fmt_run(ra)} | reference {fmt_run(rb)}", flush=True)
    return out


def fmt_run(r):
    return f"{r.wall * 1000:8.1f} ms wall {r.cpu * 1000:7.1f} ms cpu {r.rss_kb / 1024:5.1f} MB"


def med(values):
    return statistics.median(values)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--binary", required=True)
    p.add_argument("--dir", required=True, help="where the generated WAV files are kept")
    p.add_argument("--pairs", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="small files, 1 pair: proves the benchmark works")
    p.add_argument("--latency", default="", help="the figure from scripts/measure-latency.sh, or why there is none")
    p.add_argument("--only", default="feed,start-up,real-time,tail",
                   help="comma-separated groups to run: feed (speed, RSS, growth), start-up, real-time, tail")
    a = p.parse_args()
    only = set(a.only.split(","))

    yt = a.binary
    os.makedirs(a.dir, exist_ok=True)
    long_s, minute_s, short_s = (10, 2, 0.1) if a.quick else (3600, 60, 0.1)
    n = 1 if a.quick else max(5, a.pairs)
    warm = not a.quick
    longf = os.path.join(a.dir, f"tone-{long_s}s.wav")
    minf = os.path.join(a.dir, f"tone-{minute_s}s.wav")
    shortf = os.path.join(a.dir, f"tone-{short_s}s.wav")
    for f, s in ((longf, long_s), (minf, minute_s), (shortf, short_s)):
        write_wav(f, s)
    # A registry that is up to date before the first timed run (a rebuild takes a second or more).
    subprocess.run(["gst-inspect-1.0", "coreelements"], stdout=subprocess.DEVNULL, check=True)

    def yt_play(f, downstream):
        return [yt, "play", f, "-q", "--pipeline", f"appsrc name=src ! {downstream}"]

    def ref_launch(f, downstream):
        return ["gst-launch-1.0", "-q", "filesrc", f"location={f}", "!", "wavparse", "!"] + downstream.split()

    print(f"machine: {machine()}")
    print(f"yt-gst: {yt}  ({'quick mode: small files, 1 pair' if a.quick else f'{n} pairs after a warm-up pair'})")
    print(f"files: {long_s} s, {minute_s} s and {short_s} s of 48 kHz stereo 16-bit PCM in {a.dir}")
    print(flush=True)

    long_name = "1-hour" if long_s == 3600 else f"{long_s} s"
    minute_name = "1-minute" if minute_s == 60 else f"{minute_s} s"

    feed = None if "feed" not in only else pairs(yt_play(longf, FEED_DOWNSTREAM), ref_launch(longf, FEED_DOWNSTREAM), n,
                 (yt_play(longf, FEED_DOWNSTREAM), ref_launch(longf, FEED_DOWNSTREAM)) if warm else None, "feed")
    feed_min = None if 'feed' not in only else pairs(yt_play(minf, FEED_DOWNSTREAM), ref_launch(minf, FEED_DOWNSTREAM), n,
                     (yt_play(minf, FEED_DOWNSTREAM), ref_launch(minf, FEED_DOWNSTREAM)) if warm else None, "feed-short")
    startup = None if 'start-up' not in only else pairs(yt_play(shortf, "fakesink"), ref_launch(shortf, "fakesink"), n,
                    (yt_play(shortf, "fakesink"), ref_launch(shortf, "fakesink")) if warm else None, "start-up")
    yt_pulse = lambda f: [yt, "play", f, "-q", "--no-interactive"]
    play_pulse = lambda f: ["gst-play-1.0", "--no-interactive", "-q", f]
    realtime = None if 'real-time' not in only else pairs(yt_pulse(minf), play_pulse(minf), n,
                     (yt_pulse(shortf), play_pulse(shortf)) if warm else None, "real-time")
    tail = None if 'tail' not in only else pairs(yt_play(minf, "fakesink sync=true"), ref_launch(minf, "fakesink sync=true"), n,
                 (yt_play(shortf, "fakesink sync=true"), ref_launch(shortf, "fakesink sync=true")) if warm else None,
                 "tail")
    print()

    rows = []

    def ratio_row(name, measured, data, key, unit, scale, target):
        ya = [key(x) for x, _ in data]
        rb = [key(y) for _, y in data]
        ratio = med([x / y for x, y in zip(ya, rb)])
        rows.append((name, measured, f"{med(ya) * scale:.1f} {unit}", f"{med(rb) * scale:.1f} {unit}",
                     f"{ratio:.2f}", f"≤ {target:.2f}", ratio <= target))

    if feed:
        ratio_row("feed speed", f"wall, {long_name} → audioconvert S32LE → fakesink", feed, lambda r: r.wall, "ms",
                  1000, 0.40)
    if startup:
        ratio_row("start-up", f"wall, {short_s} s file → fakesink", startup, lambda r: r.wall, "ms", 1000, 1.0)
    if feed:
        ratio_row("peak RSS", f"{long_name} feed", feed, lambda r: r.rss_kb, "MB", 1 / 1024, 1.3)
        # The long file's peak RSS against the short file's, per program (same pipeline, pair by pair).
        growth_yt = med([l[0].rss_kb - s[0].rss_kb for l, s in zip(feed, feed_min)]) / 1024
        growth_ref = med([l[1].rss_kb - s[1].rss_kb for l, s in zip(feed, feed_min)]) / 1024
        rows.append(("RSS growth", f"peak RSS {long_name} − {minute_name} feed", f"{growth_yt:+.2f} MB",
                     f"{growth_ref:+.2f} MB", "-", "≤ 1 MB", growth_yt <= 1.0))
    if realtime:
        ratio_row("real-time CPU", f"user+sys, {minute_name} → PulseAudio null sink (vs gst-play-1.0)", realtime,
                  lambda r: r.cpu, "ms", 1000, 1.0)
    if tail:
        tail_yt = med([x.wall - minute_s for x, _ in tail]) * 1000
        tail_ref = med([y.wall - minute_s for _, y in tail]) * 1000
        rows.append(("tail", f"wall − {minute_s} s, {minute_name} → fakesink sync=true", f"{tail_yt:.1f} ms",
                     f"{tail_ref:.1f} ms", "-", "≤ 50 ms", tail_yt <= 50))

    header = ("figure", "measured as", "yt-gst (median)", "reference (median)", "ratio (median of pairs)", "target",
              "result")
    table = [header] + [r[:6] + ("PASS" if r[6] else "FAIL",) for r in rows]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---", "---", "---:", "---:", "---:", "---", "---"]) + "|")
    for r in table[1:]:
        print("| " + " | ".join(r) + " |")
    print()
    print(f"network latency (scripts/measure-latency.sh, RTP L16 sender → receiver, default 50 ms jitter buffer): "
          f"{a.latency or 'not measured'}")
    print(f"load average at the end: {' '.join(open('/proc/loadavg').read().split()[:3])}")
    failed = [r[0] for r in rows if not r[6]]
    if failed:
        print(f"FAIL: {', '.join(failed)}" + (" (quick mode: ratios are not judged)" if a.quick else ""))
    else:
        print("every row PASS")
    return 0 if a.quick or not failed else 2


def machine():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f", {int(line.split()[1]) // 1024 // 1024 + 1} GB RAM"
                break
    except OSError:
        pass
    gst = subprocess.run(["gst-launch-1.0", "--version"], capture_output=True, text=True).stdout.splitlines()
    gst = gst[1] if len(gst) > 1 else "GStreamer ?"
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    return (f"{cpu}, {os.cpu_count()} cores{mem}, Linux {platform.release()}, {gst}; load average {load}")


if __name__ == "__main__":
    sys.exit(main())
