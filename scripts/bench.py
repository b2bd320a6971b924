#!/usr/bin/env python3
# yt-gst — the side-by-side benchmark: yt-gst against GStreamer's own `filesrc ! wavparse` (and gst-play-1.0).
#
# Run through scripts/bench.sh (which builds, starts a private PulseAudio and passes the binary). Each figure is
# measured in rounds run alternately, A B A B ..., after a warm-up round that is not counted; every run is a child
# process whose wall time comes from a monotonic clock and whose CPU time and peak RSS come from wait4(2)'s rusage
# (getrusage of that child alone). For every figure it prints both medians, the median of the round-by-round ratios
# and PASS/FAIL against the target. Ratios of runs made back to back are what to trust on a busy machine.
#
# Every run has a timeout (then its process group is killed and the run is a FAIL) and its output is checked
# against the samples that must arrive, computed here from the generated tone (count and SHA-256), so that a run
# that fed nothing cannot look fast:
#   - start-up and tail end in `filesink` to a scratch file: every timed run's file is checked;
#   - real-time plays to PulseAudio: every timed run is recorded from the null sink's monitor (parec) and the
#     recording must hold exactly the file's samples, in order, between silence;
#   - feed ends in `fakesink sync=false`, because writing its 1.4 GB anywhere would add a copy that dwarfs the
#     figure: before the timed runs, each program runs once untimed with the same argv except the sink, which is a
#     `filesink` into a pipe whose bytes are counted and hashed. The timed runs are then checked for exit status.
import argparse
import atexit
import functools
import hashlib
import json
import math
import os
import platform
import shutil
import shlex
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

import bench_table  # scripts/bench_table.py, beside this file

RATE, CHANNELS = 48_000, 2
WAVPARSE_CHUNK_MS = 40  # wavparse pushes 1/25 s per buffer (7680 bytes at 48 kHz stereo 16-bit)
FEED_DOWNSTREAM = "audioconvert ! audio/x-raw,format=S32LE ! {sink}"
WORK = tempfile.mkdtemp(prefix="yt-gst-bench.", dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
atexit.register(shutil.rmtree, WORK, True)
# Stopped (kill, timeout): exit as Python does, so that the scratch directory goes and a running lab is stopped.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))


@functools.cache
def tone_second(width):
    """One second of the benchmark's tone (440 Hz, an exact number of periods), as `width`-byte stereo samples.

    16-bit is what the WAV files hold; 32-bit is what `audioconvert ! audio/x-raw,format=S32LE` makes of it (the
    16-bit value shifted up by 16: widening is exact, no dither).
    """
    second = bytearray()
    for i in range(RATE):
        v = int(12_000 * math.sin(2 * math.pi * 440 * i / RATE))
        second += struct.pack("<hh", v, v) if width == 2 else struct.pack("<ii", v << 16, v << 16)
    return bytes(second)


def tone(seconds, width):
    """The tone's samples for `seconds`, in pieces of at most one second."""
    left = round(seconds * RATE) * CHANNELS * width
    second = tone_second(width)
    while left:
        n = min(left, len(second))
        yield second[:n]
        left -= n


@functools.cache
def expected(seconds, width):
    """(byte count, SHA-256) of the samples a sink must receive for a file of `seconds` at `width` bytes a sample."""
    h, n = hashlib.sha256(), 0
    for piece in tone(seconds, width):
        h.update(piece)
        n += len(piece)
    return n, h.hexdigest()


def write_wav(path, seconds):
    """A 48 kHz stereo 16-bit PCM WAV of the tone (reused when a file of the right size is there)."""
    size = round(seconds * RATE) * 4
    if os.path.exists(path) and os.path.getsize(path) == 44 + size:
        return
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 36 + size) + b"WAVE")
        f.write(b"fmt " + struct.pack("<IHHIIHH", 16, 1, CHANNELS, RATE, RATE * 4, 4, 16))
        f.write(b"data" + struct.pack("<I", size))
        for piece in tone(seconds, 2):
            f.write(piece)
    os.replace(tmp, path)


class RunFailed(Exception):
    """A run that timed out, exited non-zero or delivered the wrong samples; the message says which."""


class Run:
    def __init__(self, wall, cpu, rss_kb):
        self.wall, self.cpu, self.rss_kb = wall, cpu, rss_kb


class Program:
    """One side of a comparison: its name in the output, its argv for a given sink, and how a run is checked.

    `argv(sink)` builds the command with `sink` as the pipeline's last element (None: the program has no
    replaceable sink). `sink` is the sink of the timed runs. `check` is a check object (or None, then `verify`
    must be set: (seconds, width) of the output an untimed run into a pipe must deliver).
    """

    def __init__(self, name, argv, sink=None, check=None, verify=None):
        self.name, self.argv, self.sink, self.check, self.verify = name, argv, sink, check, verify

    def command(self):
        return self.argv(self.sink)


class SinkFile:
    """Checks the file a `filesink` wrote during the run: exactly the expected bytes. Removed after each run."""

    def __init__(self, path, seconds, width):
        self.path, self.seconds, self.width = path, seconds, width

    def before(self):
        self.stop()

    def stop(self):
        if os.path.exists(self.path):
            os.remove(self.path)

    def after(self):
        if not os.path.exists(self.path):
            raise RunFailed(f"the sink wrote no file ({self.path})")
        with open(self.path, "rb") as f:
            check_stream(f, self.seconds, self.width)


def check_stream(f, seconds, width):
    """Reads `f` to its end: it must hold exactly the tone's samples for `seconds` at `width` bytes a sample."""
    n, digest = expected(seconds, width)
    h, got = hashlib.sha256(), 0
    while piece := f.read(1 << 20):
        h.update(piece)
        got += len(piece)
    if got != n or h.hexdigest() != digest:
        raise RunFailed(f"the sink received {got} bytes (expected {n}"
                        + (")" if got != n else ", as many but different samples)"))


class PulseRecording:
    """Records the PulseAudio null sink's monitor during the run; exactly the file's samples must be heard.

    PulseAudio passes 16-bit stereo 48 kHz at 100 % volume through unchanged, so the recording is silence, then
    every sample of the file in order, then silence. The tone's first frame is zero, so the file starts one frame
    before the first non-zero byte.
    """

    def __init__(self, seconds):
        self.seconds = seconds
        self.path = os.path.join(WORK, "monitor.raw")
        self.proc = None

    def before(self):
        sink = os.environ.get("YT_GST_PULSE_SINK", "spk")
        self.out = open(self.path, "wb")
        self.err = open(self.path + ".err", "w+")
        self.proc = subprocess.Popen(["parec", "-d", f"{sink}.monitor", "--raw", "--format=s16le", f"--rate={RATE}",
                                      f"--channels={CHANNELS}", "--latency-msec=50"], stdout=self.out,
                                     stdin=subprocess.DEVNULL, stderr=self.err)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.proc.poll() is None:
            # Until the record stream exists, so that the run's first sample is caught.
            out = subprocess.run(["pactl", "list", "short", "source-outputs"], capture_output=True, text=True,
                                 timeout=5)
            if out.stdout.strip():
                return
            time.sleep(0.02)
        # Read before stop() closes it.
        self.err.seek(0)
        status = self.proc.poll()
        why = self.err.read().strip() or ("no record stream after 10 s" if status is None else f"parec exited {status}")
        self.stop()
        raise RunFailed(f"parec did not start recording the null sink's monitor: {why}")

    def stop(self):
        if self.proc:
            # The program drained its audio before it exited: once 0.1 s more of the monitor has arrived, the
            # recording holds everything the program played.
            self.out.flush()
            until, deadline = os.path.getsize(self.path) + RATE * 4 // 10, time.monotonic() + 5
            while os.path.getsize(self.path) < until and time.monotonic() < deadline:
                time.sleep(0.02)
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
            self.out.close()
            self.err.close()

    def after(self):
        self.stop()
        with open(self.path, "rb") as f:
            data = f.read()
        os.remove(self.path)
        want = b"".join(tone(self.seconds, 2))
        first = len(data) - len(data.lstrip(b"\0"))
        if first == len(data):
            raise RunFailed("PulseAudio heard only silence")
        if first < 4:
            raise RunFailed("the recording began after the sound had started")
        start = (first // 4 - 1) * 4
        got = data[start:start + len(want)]
        if got != want:
            same = next((i for i in range(0, min(len(got), len(want)), 4) if got[i:i + 4] != want[i:i + 4]),
                        min(len(got), len(want)))
            raise RunFailed(f"PulseAudio heard {same // 4} of the file's {len(want) // 4} frames in order, "
                            f"then {'silence' if not got[same:].strip(bytes(1)) else 'other samples'}")
        if data[start + len(want):].strip(b"\0"):
            raise RunFailed("PulseAudio heard more than the file's samples")


def timeout_for(seconds, realtime):
    """A run's time limit: generous on a loaded machine, but a hang costs at most a minute or two."""
    return (seconds + 30) if realtime else 60


def start_killer(pid, timeout):
    """Kills the run's process group (its PID: the run was started in a session of its own) after `timeout` s."""
    fired = threading.Event()

    def kill():
        fired.set()
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = threading.Timer(timeout, kill)
    timer.daemon = True
    timer.start()
    return timer, fired


def failure(argv, code, err_path, fired, timeout):
    if fired.is_set():
        return f"no exit after {timeout} s: killed"
    with open(err_path, errors="replace") as f:
        err = f.read().strip().splitlines()
    return f"exit {code}" + (f": {err[-1]}" if err else "") + f" ({' '.join(argv)})"


def run(program, timeout):
    """Runs a program once, timed: wall seconds, user+sys CPU seconds and peak RSS (KB) of that process.

    The program is started by /usr/bin/time, a small C process, because a process forked from Python would count
    Python's own resident memory in its peak RSS (Linux keeps the pre-exec high-water mark); time's %M is the
    program's alone. CPU comes from wait4(2)'s rusage of the time process, which includes the program's.
    Raises RunFailed when the run times out, fails or its output check fails.
    """
    rss_file, err_path = os.path.join(WORK, "rss"), os.path.join(WORK, "stderr")
    argv = program.command()
    if program.check:
        program.check.before()
    try:
        with open(err_path, "wb") as err:
            start = time.perf_counter()
            proc = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss_file] + argv, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
            timer, fired = start_killer(proc.pid, timeout)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0 or fired.is_set():
            raise RunFailed(failure(argv, proc.returncode, err_path, fired, timeout))
        with open(rss_file) as f:
            result = Run(wall, usage.ru_utime + usage.ru_stime, int(f.read().split()[-1]))
        if program.check:
            program.check.after()
        return result
    finally:
        if program.check:
            program.check.stop()


def verify(program, timeout):
    """Runs a program once, untimed, with its sink replaced by a `filesink` into a pipe; checks every byte."""
    r, w = os.pipe()
    argv = program.argv(f"filesink location=/dev/fd/{w}")
    err_path = os.path.join(WORK, "stderr")
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                pass_fds=(w,), start_new_session=True)
        os.close(w)
        timer, fired = start_killer(proc.pid, timeout)
        wrong = None
        with os.fdopen(r, "rb", buffering=0) as f:
            try:
                check_stream(f, *program.verify)  # reads until the program closes the pipe (exits or is killed)
            except RunFailed as e:
                wrong = e
        proc.wait()
        timer.cancel()
    if proc.returncode != 0 or fired.is_set():
        raise RunFailed(failure(argv, proc.returncode, err_path, fired, timeout))
    if wrong:
        raise wrong


failures = []


def rounds(label, programs, count, seconds, realtime, warmup=None):
    """Checks, warms up and times a group: `count` rounds, each running every program once, in order.

    Returns a list of rounds (a tuple of Run per program), or None when a run failed; the failure is printed as
    one `FAIL:` line and the group stops there (its figures would mean nothing).
    """
    step, who = "output check", ""
    try:
        for p in programs:
            if p.verify:
                who = p.name
                verify(p, timeout_for(seconds, realtime))
                print(f"  {label:<12} output check: {p.name} delivered its {expected(*p.verify)[0]} bytes", flush=True)
        step = "warm-up"
        for p in warmup or []:
            who = p.name
            run(p, timeout_for(0.1, realtime))
        out = []
        for i in range(count):
            step, times = f"run {i + 1}/{count}", []
            for p in programs:
                who = p.name
                times.append(run(p, timeout_for(seconds, realtime)))
            out.append(tuple(times))
            print(f"  {label:<12} round {i + 1}/{count}: "
                  + " | ".join(f"{p.name} {fmt_run(t)}" for p, t in zip(programs, times)), flush=True)
        return out
    except RunFailed as e:
        message = f"{label}, {who}, {step}: {e}"
        print(f"FAIL: {message}", flush=True)
        failures.append(message)
        return None


def fmt_run(r):
    return f"{r.wall * 1000:8.1f} ms wall {r.cpu * 1000:7.1f} ms cpu {r.rss_kb / 1024:5.1f} MB"


def med(values):
    return statistics.median(values)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--binary", required=True)
    p.add_argument("--dir", required=True, help="where the generated WAV files are kept")
    p.add_argument("--pairs", type=int, default=5, help="timed rounds per group (default 5)")
    p.add_argument("--quick", action="store_true", help="small files, 1 round: proves the benchmark works")
    p.add_argument("--latency", default="", help="the figure from scripts/measure-latency.sh, or why there is none")
    p.add_argument("--only", default="feed,start-up,real-time,tail",
                   help="comma-separated groups to run: feed (speed, RSS, growth), start-up, real-time, tail; "
                   "pipes (play - from a pipe against play FILE and gst-launch fdsrc ! wavparse: not in the default)")
    p.add_argument("--multiroom", action="store_true",
                   help="only the multi-room rows: yt-gst and Snapcast in scripts/multiroom-lab.py (see multiroom())")
    p.add_argument("--multiroom-scenarios", default=",".join(DEFAULT_SCENARIOS),
                   help="comma-separated: " + ", ".join(MULTIROOM_SCENARIOS)
                   + " (all by default; ten-minutes then for yt-gst alone)")
    p.add_argument("--multiroom-peers", default="yt-gst,snapcast,snapcast-tuned",
                   help="comma-separated: yt-gst, snapcast (default 1000 ms buffer), snapcast-tuned (100 ms)")
    p.add_argument("--multiroom-seconds", type=float, default=60, help="length of each run (long: 200 s, ten-minutes: 600 s)")
    p.add_argument("--multiroom-receivers", type=int, choices=[2, 3], default=3,
                   help="receivers per run (default 3; faults are on receiver 2)")
    p.add_argument("--yt-sender", default=YT_SENDER, help="yt-gst's sender command in the lab ({binary} and "
                   "multiroom-lab.py's placeholders)")
    p.add_argument("--yt-receiver", default=YT_RECEIVER, help="yt-gst's receiver command; {extra} takes "
                   "--yt-delay in the delay scenario")
    p.add_argument("--yt-delay", default="--delay-ms 10", help="yt-gst receiver option that delays it by 10 ms")
    p.add_argument("--record", action="store_true",
                   help="only the recording rows: CPU against pulsesrc ! wavenc, audio lost after kill -9")
    p.add_argument("--broadcast", action="store_true",
                   help="only the broadcast rows (scripts/bench_broadcast.py): Icecast and HLS on loopback")
    p.add_argument("--control", action="store_true",
                   help="only the control rows (scripts/bench_control.py): IPC and MPRIS against mpv")
    a = p.parse_args()
    if a.control:
        import bench_control
        return bench_control.run(a, machine)
    if a.broadcast:
        import bench_broadcast
        return bench_broadcast.main(a.binary, a.dir, a.pairs, a.quick)
    if a.multiroom:
        return multiroom(a)
    if a.record:
        import bench_record  # scripts/bench_record.py, beside this file
        return bench_record.run(a, med, machine)
    only = set(a.only.split(","))

    yt = a.binary
    os.makedirs(a.dir, exist_ok=True)
    long_s, minute_s, short_s = (10, 1, 0.1) if a.quick else (3600, 60, 0.1)
    n = 1 if a.quick else max(1, a.pairs)
    warm = not a.quick
    longf, minf, shortf = (os.path.join(a.dir, f"tone-{s}s.wav") for s in (long_s, minute_s, short_s))
    for f, s in ((longf, long_s), (minf, minute_s), (shortf, short_s)):
        write_wav(f, s)
    # A registry that is up to date before the first timed run (a rebuild takes a second or more).
    subprocess.run(["gst-inspect-1.0", "coreelements"], stdout=subprocess.DEVNULL, check=True)

    def yt_play(f, downstream, *options):
        return lambda sink: [yt, "play", f, "-q", *options, "--pipeline",
                             f"appsrc name=src ! {downstream.format(sink=sink)}"]

    def ref_launch(f, downstream):
        return lambda sink: (["gst-launch-1.0", "-q", "filesrc", f"location={f}", "!", "wavparse", "!"]
                             + downstream.format(sink=sink).split())

    def feed_programs(f, seconds):
        """yt-gst (default chunks, then wavparse's 40 ms) and gst-launch into fakesink, checked by a pipe run."""
        sink, out = "fakesink sync=false", (seconds, 4)
        return [Program("yt-gst", yt_play(f, FEED_DOWNSTREAM), sink, verify=out),
                Program(f"yt-gst {WAVPARSE_CHUNK_MS} ms", yt_play(f, FEED_DOWNSTREAM, "--chunk-ms",
                                                                   str(WAVPARSE_CHUNK_MS)), sink, verify=out),
                Program("gst-launch", ref_launch(f, FEED_DOWNSTREAM), sink, verify=out)]

    def yt_pipe(f, downstream):
        """`cat FILE | yt-gst play -`: the feeder reads a pipe (the figures include cat, the price of a pipe)."""
        return lambda sink: ["/bin/sh", "-c", f"cat {shlex.quote(f)} | exec {shlex.quote(yt)} play - -q --pipeline "
                             + shlex.quote(f"appsrc name=src ! {downstream.format(sink=sink)}")]

    def pipe_programs(f, seconds):
        """yt-gst from a pipe, from the path, and gst-launch's fdsrc ! wavparse from the same kind of pipe."""
        sink, out = "fakesink sync=false", (seconds, 4)
        ref = lambda sink: ["/bin/sh", "-c", f"cat {shlex.quote(f)} | exec gst-launch-1.0 -q fdsrc fd=0 ! wavparse ! "
                            + FEED_DOWNSTREAM.format(sink=sink)]
        return [Program("yt-gst pipe", yt_pipe(f, FEED_DOWNSTREAM), sink, verify=out),
                Program("yt-gst path", yt_play(f, FEED_DOWNSTREAM), sink, verify=out),
                Program("gst-launch fdsrc", ref, sink, verify=out)]

    def file_programs(f, seconds, sync):
        """yt-gst and gst-launch into a filesink whose file is checked after every run."""
        sink = "filesink location={} sync=" + ("true" if sync else "false")
        yt_out, ref_out = os.path.join(WORK, "yt-gst.raw"), os.path.join(WORK, "gst-launch.raw")
        return [Program("yt-gst", yt_play(f, "{sink}"), sink.format(yt_out), SinkFile(yt_out, seconds, 2)),
                Program("gst-launch", ref_launch(f, "{sink}"), sink.format(ref_out), SinkFile(ref_out, seconds, 2))]

    def pulse_programs(f, seconds):
        """yt-gst's default pipeline, gst-play-1.0's playbin and gst-launch's same pipeline, into PulseAudio."""
        heard = PulseRecording(seconds)
        return [Program("yt-gst", lambda _: [yt, "play", f, "-q", "--no-interactive"], check=heard),
                Program("gst-play", lambda _: ["gst-play-1.0", "--no-interactive", "-q", f], check=heard),
                Program("gst-launch", lambda _: ["gst-launch-1.0", "-q", "filesrc", f"location={f}", "!", "wavparse",
                                                 "!", "audioconvert", "!", "audioresample", "!", "pulsesink"],
                        check=heard)]

    print(f"machine: {machine()}")
    print(f"yt-gst: {yt}  ({'quick mode: small files, 1 round' if a.quick else f'{n} rounds after a warm-up round'})")
    print(f"files: {long_s} s, {minute_s} s and {short_s} s of 48 kHz stereo 16-bit PCM in {a.dir}")
    print("output checks: every run is timed out and must exit 0; start-up and tail runs end in filesink and every "
          "run's file is checked (byte count and SHA-256 of the expected samples); real-time runs are recorded from "
          "the null sink's monitor and must hold exactly the file's samples; feed runs end in fakesink (a sink that "
          "writes would add a copy to the figure), so each feed program is first run untimed into a filesink pipe "
          "and its bytes are checked")
    print(flush=True)

    long_name = "1-hour" if long_s == 3600 else f"{long_s} s"
    minute_name = "1-minute" if minute_s == 60 else f"{minute_s} s"

    def group(name, key, programs, seconds, realtime, warmup):
        """Runs a group if `key` was asked for: (its rounds or None, whether a run failed)."""
        if key not in only:
            return None, False
        out = rounds(name, programs, n, seconds, realtime, warmup if warm else None)
        return out, out is None

    feed, feed_failed = group("feed", "feed", feed_programs(longf, long_s), long_s, False, feed_programs(longf, long_s))
    feed_min, feed_min_failed = group("feed-short", "feed", feed_programs(minf, minute_s), minute_s, False,
                                      feed_programs(minf, minute_s))
    startup, startup_failed = group("start-up", "start-up", file_programs(shortf, short_s, False), short_s, False,
                                    file_programs(shortf, short_s, False))
    realtime, realtime_failed = group("real-time", "real-time", pulse_programs(minf, minute_s), minute_s, True,
                                      pulse_programs(shortf, short_s))
    tail, tail_failed = group("tail", "tail", file_programs(minf, minute_s, True), minute_s, True,
                              file_programs(shortf, short_s, True))
    pipes, pipes_failed = group("pipes", "pipes", pipe_programs(longf, long_s), long_s, False,
                                pipe_programs(shortf, short_s))
    pipes_min, pipes_min_failed = group("pipes-short", "pipes", pipe_programs(minf, minute_s), minute_s, False,
                                        pipe_programs(shortf, short_s))
    print()

    rows = []

    def ratio_row(name, measured, data, failed, key, unit, scale, target, a=0, b=-1):
        """Medians of programs a and b and the median of their round-by-round ratios (target None: not judged)."""
        shown = f"≤ {target:.2f}" if target is not None else "-"
        if failed:
            rows.append((name, measured, "-", "-", "-", shown, "FAIL (a run failed, see above)"))
            return
        ya = [key(r[a]) for r in data]
        rb = [key(r[b]) for r in data]
        ratio = med([x / y for x, y in zip(ya, rb)])
        result = "-" if target is None else ("PASS" if ratio <= target else "FAIL")
        rows.append((name, measured, f"{med(ya) * scale:.1f} {unit}", f"{med(rb) * scale:.1f} {unit}",
                     f"{ratio:.2f}", shown, result))

    wall, cpu, rss = (lambda r: r.wall), (lambda r: r.cpu), (lambda r: r.rss_kb)
    if feed or feed_failed:
        ratio_row("feed speed", f"wall, {long_name} → audioconvert S32LE → fakesink", feed, feed_failed, wall, "ms",
                  1000, 0.40)
        ratio_row("feed speed, 40 ms buffers", f"as above, yt-gst `--chunk-ms {WAVPARSE_CHUNK_MS}` (wavparse's "
                  "buffer size)", feed, feed_failed, wall, "ms", 1000, None, a=1)
    if startup or startup_failed:
        ratio_row("start-up", f"wall, {short_s} s file → filesink", startup, startup_failed, wall, "ms", 1000, 1.0)
    if feed or feed_failed:
        ratio_row("peak RSS", f"{long_name} feed", feed, feed_failed, rss, "MB", 1 / 1024, 1.3)
        if feed_failed or feed_min_failed or not feed_min:
            rows.append(("RSS growth", f"peak RSS {long_name} − {minute_name} feed", "-", "-", "-", "≤ 1 MB",
                         "FAIL (a run failed, see above)"))
        else:
            # The long file's peak RSS against the short file's, per program (same pipeline, round by round).
            growth_yt = med([l[0].rss_kb - s[0].rss_kb for l, s in zip(feed, feed_min)]) / 1024
            growth_ref = med([l[-1].rss_kb - s[-1].rss_kb for l, s in zip(feed, feed_min)]) / 1024
            rows.append(("RSS growth", f"peak RSS {long_name} − {minute_name} feed", f"{growth_yt:+.2f} MB",
                         f"{growth_ref:+.2f} MB", "-", "≤ 1 MB", "PASS" if growth_yt <= 1.0 else "FAIL"))
    if realtime or realtime_failed:
        ratio_row("real-time CPU", f"user+sys, {minute_name} → PulseAudio null sink, vs gst-play-1.0 (playbin)",
                  realtime, realtime_failed, cpu, "ms", 1000, 1.0, b=1)
        ratio_row("real-time CPU", f"as above, vs gst-launch-1.0 filesrc ! wavparse ! audioconvert ! audioresample "
                  "! pulsesink", realtime, realtime_failed, cpu, "ms", 1000, 1.0, b=2)
    if tail or tail_failed:
        if tail_failed:
            rows.append(("tail", f"wall − {minute_s} s, {minute_name} → filesink sync=true", "-", "-", "-",
                         "≤ 50 ms", "FAIL (a run failed, see above)"))
        else:
            tail_yt = med([r[0].wall - minute_s for r in tail]) * 1000
            tail_ref = med([r[-1].wall - minute_s for r in tail]) * 1000
            rows.append(("tail", f"wall − {minute_s} s, {minute_name} → filesink sync=true", f"{tail_yt:.1f} ms",
                         f"{tail_ref:.1f} ms", "-", "≤ 50 ms", "PASS" if tail_yt <= 50 else "FAIL"))

    if pipes or pipes_failed:
        ratio_row("pipe feed speed", f"wall, cat {long_name} into play - against play FILE", pipes, pipes_failed, wall,
                  "ms", 1000, None, b=1)
        ratio_row("pipe CPU", "user+sys of the same runs (cat included)", pipes, pipes_failed, cpu, "ms", 1000, None,
                  b=1)
        ratio_row("pipe peak RSS", "the same runs", pipes, pipes_failed, rss, "MB", 1 / 1024, 1.1, b=1)
        ratio_row("pipe feed speed", "wall, against cat into gst-launch fdsrc ! wavparse", pipes, pipes_failed, wall,
                  "ms", 1000, None, b=2)
        if pipes_failed or pipes_min_failed or not pipes_min:
            rows.append(("pipe RSS growth", f"peak RSS {long_name} − {minute_name} from a pipe", "-", "-", "-",
                         "≤ 1 MB", "FAIL (a run failed, see above)"))
        else:
            growth = med([l[0].rss_kb - s[0].rss_kb for l, s in zip(pipes, pipes_min)]) / 1024
            growth_ref = med([l[-1].rss_kb - s[-1].rss_kb for l, s in zip(pipes, pipes_min)]) / 1024
            rows.append(("pipe RSS growth", f"peak RSS {long_name} − {minute_name} from a pipe", f"{growth:+.2f} MB",
                         f"{growth_ref:+.2f} MB", "-", "≤ 1 MB", "PASS" if growth <= 1.0 else "FAIL"))

    bench_table.print_table(rows, "reference")
    print()
    print(f"network latency (scripts/measure-latency.sh, RTP L16 sender → receiver, default 50 ms jitter buffer): "
          f"{a.latency or 'not measured'}")
    return bench_table.verdict(rows, failures, a.quick, "every run's output checked")


# MARK: multi-room

YT_SENDER = "{binary} stream {noise} --to rtp://{group}:{port} --iface eth0 -q"
YT_RECEIVER = "{binary} receive rtp://@{group}:{port} --iface eth0 --sink 'pulsesink device={sink}' -q {extra}"
# Snapcast 0.26 (Debian): the server reads a pipe the lab's noise is copied into; clients play to PulseAudio (the lab
# sets PULSE_SINK to each one's remap sink). Default: 1000 ms buffer; tuned: 100 ms and a 20 ms PulseAudio buffer
# (with only buffer=100 its clients underrun and most of the audio is silence).
SNAP_SERVER = ("snapserver -c /dev/null --server.datadir={work} --http.enabled=false --tcp.enabled=false "
               "--stream.source='pipe://{work}/snapfifo?name=x&sampleformat=48000:16:2' --stream.buffer=%d "
               "--logging.sink=stderr")
SNAP_FEED = "tail -c +45 {noise} > {work}/snapfifo"  # the WAV's samples (its 44-byte header skipped)
SNAP_CLIENT = "snapclient -h {sender} --player pulse%s --hostID room{index} --logsink stderr {extra}"
MULTIROOM_WARMUP_S = 10  # the "steady" figures start this long after sending (a peer's start-up left out)
# name: (lab options, what it shows); every fault is on receiver 2 (the right channel; receiver 3, if any, is normal).
MULTIROOM_SCENARIOS = {
    "normal": ([], "every receiver normal"),
    "fast": (["--fast", "2:200"], "receiver 2's clocks 200 ppm fast (faketime)"),
    "device-100": (["--device-ppm", "100"], "the rooms' device 100 ppm fast (+ its own ~80-190; faketime'd server)"),
    "device": (["--device-ppm", "200"], "the rooms' device 200 ppm fast (+ its own ~80-190; faketime'd server)"),
    "jitter-loss": (["--jitter", "2:5", "--loss", "2:1"], "0–5 ms jitter + 1 % loss on receiver 2's path"),
    "late-join": (["--join", "2:20"], "receiver 2 joins 20 s late"),
    "long": ([], "200 s run"),
    "delay": ([], "receiver 2 delayed 10 ms by its own option"),
    "alsa": ([], "every receiver on alsasink (ALSA's pulse plugin, 100 ms buffer, --latency-ms 160)"),
    "pipewire": (["--server", "pipewire"], "PipeWire: every receiver on pipewire-pulse (pulsesink)"),
    "pipewire-fast": (["--server", "pipewire", "--fast", "2:200"],
                      "PipeWire, pipewire-pulse (pulsesink): receiver 2's clocks 200 ppm fast (faketime)"),
    "pipewiresink": (["--server", "pipewire"], "PipeWire: every receiver on its own sink (pipewiresink)"),
    "pipewiresink-fast": (["--server", "pipewire", "--fast", "2:200"],
                          "PipeWire, its own sink (pipewiresink): receiver 2's clocks 200 ppm fast (faketime)"),
    "pipewire-output": (["--server", "pipewire"], "PipeWire: every receiver on yt-gst's output (ytpipewiresink)"),
    "pipewire-output-fast": (["--server", "pipewire", "--fast", "2:200"],
                             "PipeWire, yt-gst's output: receiver 2's clocks 200 ppm fast (faketime)"),
    "hog": (["--hog", "2"], "beside two CPU hogs (stress-ng --cpu 1 each)"),
    "ten-minutes": ([], "10-minute run"),
}
# The runs that are not --multiroom-seconds long.
SCENARIO_SECONDS = {"long": 200, "ten-minutes": 600}
DEFAULT_SCENARIOS = list(MULTIROOM_SCENARIOS)
# The goal counts five runs with normal clocks: yt-gst's row is run that often (Snapcast's once).
SCENARIO_RUNS = {"normal": 5}
# The 10-minute run is yt-gst's alone unless asked for: for the two Snapcast peers it would add half an hour to the
# bench, and the 200 s run already shows how they hold.
YT_ONLY_BY_DEFAULT = {"ten-minutes"}
# The yt-gst receivers of the scenarios that are not Snapcast's (its client has no such output): alsa (the lab's
# PULSE_SINK picks its channel), pipewiresink and ytpipewiresink (the lab's PipeWire node of its channel).
YT_ONLY_RECEIVERS = {
    "alsa": ("{binary} receive rtp://@{group}:{port} --iface eth0 --latency-ms 160 "
             "--sink 'alsasink device=pulse buffer-time=100000' -q {extra}"),
    "pipewiresink": ("{binary} receive rtp://@{group}:{port} --iface eth0 "
                     "--sink 'pipewiresink target-object={sink}' -q {extra}"),
    "pipewire-output": ("{binary} receive rtp://@{group}:{port} --iface eth0 "
                        "--sink 'ytpipewiresink target-object={sink}' -q {extra}"),
}
YT_ONLY_RECEIVERS["pipewire-output-fast"] = YT_ONLY_RECEIVERS["pipewire-output"]
YT_ONLY_RECEIVERS["pipewiresink-fast"] = YT_ONLY_RECEIVERS["pipewiresink"]


def multiroom_run(peer, scenario, a):
    """One lab run of `peer` in `scenario`: multiroom-lab.py's report (or {"error": ...})."""
    options, _ = MULTIROOM_SCENARIOS[scenario]
    seconds = SCENARIO_SECONDS.get(scenario, a.multiroom_seconds)
    if scenario == "late-join":
        seconds += 20
    delay = scenario == "delay"
    lab = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "multiroom-lab.py"),
           "--seconds", str(seconds), "--max-lag-ms", "100", "--warmup-s", str(MULTIROOM_WARMUP_S)] + options
    if delay:
        lab += ["--expect-us", "10000"]
    if scenario in YT_ONLY_RECEIVERS and peer != "yt-gst":
        return {"error": "n/a (yt-gst only)"}
    if peer == "yt-gst":
        if delay and not a.yt_delay:
            return {"error": "no --yt-delay given"}
        receiver = YT_ONLY_RECEIVERS.get(scenario, a.yt_receiver).replace("{binary}", a.binary)
        extras = ["", a.yt_delay if delay else ""] + [""] * (a.multiroom_receivers - 2)
        lab += ["--sender", a.yt_sender.replace("{binary}", a.binary)]
    else:
        tuned = peer == "snapcast-tuned"
        receiver = SNAP_CLIENT % (":buffer_time=20" if tuned else "")
        # snapclient's --latency is the device's own latency: the client plays that much earlier, so the others
        # told 10 ms put receiver 2 10 ms behind them.
        extras = ["--latency 10" if delay else ""] * a.multiroom_receivers
        extras[1] = ""
        lab += ["--pre", SNAP_SERVER % (100 if tuned else 1000), "--sender", SNAP_FEED, "--ready-s", "2",
                "--jitter-proto", "tcp", "--tcp-port", "1704"]
    for extra in extras:
        lab += ["--receiver", receiver.replace("{extra}", extra)]
    # The analysis grows with the run: a 10-minute run of three rooms outlasted seconds + 120 (the whole run took
    # about 14 minutes), so the limit grows with it too.
    limit = 2 * seconds + 120
    process = subprocess.Popen(lab, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = process.communicate(timeout=limit)
    except BaseException as stopped:  # past the limit, or the bench itself stopped (SIGTERM, Ctrl-C)
        process.terminate()  # the lab kills its processes and deletes its namespaces on SIGTERM
        try:
            process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
        if not isinstance(stopped, subprocess.TimeoutExpired):
            raise
        return {"error": f"multiroom-lab.py did not finish within {limit:.0f} s"}
    if process.returncode != 0:
        return {"error": f"multiroom-lab.py exited {process.returncode}: {err.strip()[-300:]}"}
    return json.loads(out)


def multiroom_cells(report, scenario):
    """The row's cells (see the legend `multiroom` prints) and a note (late join: how long it took to settle)."""
    if "error" in report:
        return ["-"] * 9 + [report["error"]]

    def f(v, fmt="{:.0f}"):
        return "-" if v is None else fmt.format(v)

    stats = report
    worst = (report.get("worst_p99_abs_us"), report.get("worst_max_abs_us"))
    if scenario == "late-join" and report.get("after_settle"):
        stats = report["after_settle"]  # the figures after it settled, as the goal is stated (receivers 1-2)
        worst = (None, None)
    p99 = stats["p99_abs_us"] if worst[0] is None else worst[0]
    peak = stats["max_abs_us"] if worst[1] is None else worst[1]
    latency = [v for v in (report.get("latency_ms") or {}).values() if v is not None]
    if scenario == "late-join":  # the late receiver's from its own start, the others' from the start of sending
        latency = [v for k, v in (report.get("latency_ms") or {}).items() if v is not None and k != "right"]
        latency.append(report["lab"].get("join_to_sound_ms_2") or 0)
    settle = report.get("settle_s")
    note = f"settled in {settle:.2f} s" if scenario == "late-join" and settle is not None else (
        "never settled within 50 µs" if scenario == "late-join" else "")
    # The rooms share the device: what counts is each one's latency held in real time.
    if scenario.startswith("device"):
        drifts = [v["drift_us_per_s"] for v in (report.get("steady_latency") or {}).values() if v]
        note = (f"device {report['device']['measured_ppm']:+.0f} ppm; latency drift "
                + "/".join(f"{d:+.1f}" for d in drifts) + " µs/s")
    skips = [abs(v) for v in (report.get("start_skip_ms") or {}).values() if v is not None]
    if skips and max(skips) >= 1:
        note = "; ".join(filter(None, [note, f"skipped {max(skips):.0f} ms within its first second"]))
    dropouts = [(ms, at, name) for name, runs in (report.get("gaps_s") or {}).items() for at, ms in runs]
    if dropouts:  # the longest, placed: which receiver, how far into its sound
        ms, at, name = max(dropouts)
        receiver = {"left": 1, "right": 2, "center": 3}[name]
        note = "; ".join(filter(None, [note, f"longest dropout in receiver {receiver}, {at:.1f} s in"]))
    if report["windows"] == 0:
        note = "no window where both played"
    steady = report.get("steady") or {}
    steady_p99 = report.get("worst_steady_p99_abs_us", steady.get("p99_abs_us"))
    steady_max = report.get("worst_steady_max_abs_us", steady.get("max_abs_us"))
    steady_latency = [v for v in (report.get("steady_latency_ms") or {}).values() if v is not None]
    return [f"{f(p99)} / {f(peak)} µs", f"{f(steady_p99)} / {f(steady_max)} µs",
            f"{f(stats['median_us'])} µs",
            f"{f(stats['drift_us_per_s'], '{:+.1f}')} µs/s", f"{f(stats['range_us'])} µs",
            f"{max(latency):.0f} ms" if latency else "-",
            f"{max(steady_latency):.0f} ms" if steady_latency else "-", f"{report['longest_gap_ms']['max']:.1f} ms",
            f"{report['windows']}", note]


def multiroom(a):
    """The multi-room rows: each scenario of the issue's table for each peer, measured in the same lab
    (scripts/multiroom-lab.py: two receivers in namespaces into the left and right of one PulseAudio null sink,
    skew from cross-correlating them). Goals for yt-gst: p99 ≤ 50 µs, max ≤ 100 µs, sending → sound ≤ 100 ms, no
    dropout; late join settled within 2 s; the long run's max − min ≤ 50 µs; the delay 10 ms ± 50 µs."""
    scenarios = [s for s in a.multiroom_scenarios.split(",") if s]
    peers = [x for x in a.multiroom_peers.split(",") if x]
    defaulted = scenarios == DEFAULT_SCENARIOS
    for s in scenarios:
        if s not in MULTIROOM_SCENARIOS:
            print(f"bench: unknown scenario {s}", file=sys.stderr)
            return 1
    subprocess.run(["gst-inspect-1.0", "coreelements"], stdout=subprocess.DEVNULL, check=True)
    print(f"multi-room: {machine()}")
    print(f"{a.multiroom_receivers} receivers; skew = receiver 2 − receiver 1 (the faulty one − a normal one); p99 / "
          "max of |skew − expected| (expected 10 000 µs in the delay row), the worst pair of receivers (late join: "
          "receivers 1-2 after it settled); after N s: the same from N s after sending; median, drift and max − min "
          "of receiver 2 − receiver 1; first sound = start of sending → first sound (the latest receiver; a late "
          "one from its own start); steady latency = the first packet (RTP) or the start of sending (Snapcast) → "
          "sound, after the warm-up (the latest receiver)")
    header = ("scenario", "peer", "p99 / max skew", f"after {MULTIROOM_WARMUP_S} s", "median", "drift", "max − min",
              "first sound", "steady latency", "longest dropout", "windows", "note")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---"] * 2 + ["---:"] * 9 + ["---"]) + "|", flush=True)
    for scenario in scenarios:
        runs = SCENARIO_RUNS.get(scenario, 1)
        for run in range(1, runs + 1):
            label = MULTIROOM_SCENARIOS[scenario][1] + (f", run {run} of {runs}" if runs > 1 else "")
            for peer in peers if run == 1 else [p for p in peers if p == "yt-gst"]:
                if defaulted and scenario in YT_ONLY_BY_DEFAULT and peer != "yt-gst":
                    report = {"error": f"n/a (yt-gst only unless --multiroom-scenarios names {scenario})"}
                else:
                    report = multiroom_run(peer, scenario, a)
                print("| " + " | ".join([label, peer] + multiroom_cells(report, scenario)) + " |", flush=True)
    return 0


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
