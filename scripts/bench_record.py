# yt-gst — the recording rows of the benchmark (scripts/bench.py --record, or scripts/bench.sh --record).
#
# 1. CPU per minute of recording 48 kHz stereo 16-bit from the private PulseAudio's null sink monitor: `yt-gst
#    record --duration T` against `gst-launch-1.0 -e pulsesrc num-buffers=… ! wavenc ! filesink` recording the same
#    length, in alternating rounds after a warm-up; CPU is user+sys from wait4(2). Target: ratio ≤ 1.0, with the
#    header rewritten after every write and an fdatasync every second.
# 2. Audio lost after kill -9: white noise plays into the null sink; yt-gst, wavenc, sox and arecord record its
#    monitor at the same time beside `parec`, the reference; after T seconds all recorders get SIGKILL at the same
#    instant and parec SIGINT (it then writes out everything). Every recorder receives the same bytes from the
#    monitor, so the last 10 ms on a recorder's disk are found by exact search in parec's capture: what is missing
#    after them is the audio that recorder lost. The header is judged too: does it state exactly the frames on disk?
import os
import random
import signal
import struct
import subprocess
import time
import wave

RATE, CHANNELS, WIDTH = 48_000, 2, 2
FRAME = CHANNELS * WIDTH


def timed(argv, seconds_limit, stop_after=None):
    """Runs argv; returns (cpu seconds, exit status). `stop_after`: SIGINT after that many seconds."""
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + seconds_limit
    stopped = False
    start = time.monotonic()
    while True:
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            return usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)
        if stop_after is not None and not stopped and time.monotonic() - start >= stop_after:
            p.send_signal(signal.SIGINT)
            stopped = True
        if time.monotonic() > deadline:
            os.killpg(p.pid, signal.SIGKILL)
        time.sleep(0.01)


def frames_in(path):
    """(frames the header states per python's wave or None, whole frames of audio on disk in the data chunk, those
    bytes). On disk: up to the declared size, or to the end of the file when the size runs past it (a placeholder)."""
    try:
        with wave.open(path) as w:
            declared = w.getnframes()
    except Exception:
        declared = None
    with open(path, "rb") as f:
        data = f.read()
    at = 12
    while at + 8 <= len(data):
        chunk, size = data[at:at + 4], struct.unpack_from("<I", data, at + 4)[0]
        if chunk == b"data":
            body = data[at + 8:at + 8 + size]
            frames = len(body) // FRAME
            return declared, frames, body[:frames * FRAME]
        at += 8 + size + size % 2
    return declared, 0, b""


def noise(path, seconds):
    rng = random.Random(1)
    with wave.open(path, "wb") as w:
        w.setnchannels(CHANNELS)
        w.setsampwidth(WIDTH)
        w.setframerate(RATE)
        w.writeframes(bytes(rng.getrandbits(8) for _ in range(seconds * RATE * FRAME)))


def run(a, med, machine):
    yt, sink = a.binary, os.environ.get("YT_GST_PULSE_SINK", "spk")
    work = os.path.join(a.dir, "record")
    os.makedirs(work, exist_ok=True)
    seconds = 5 if a.quick else 60
    rounds = 1 if a.quick else max(1, a.pairs)
    print(f"machine: {machine()}")
    print(f"recording rows: {rounds} round(s) of {seconds} s after a warm-up, 48 kHz stereo 16-bit from "
          f"{sink}.monitor", flush=True)

    # 1. CPU.
    out_yt, out_ref = os.path.join(work, "cpu-yt.wav"), os.path.join(work, "cpu-wavenc.wav")

    def yt_rec(s):
        return [yt, "record", out_yt, "--force", "--status", "none", "--source", "monitor", "--set", f"monitor={sink}.monitor",
                "--rate", str(RATE), "--channels", str(CHANNELS), "--duration", str(s)]

    def ref_rec(s, period_ms=10):
        """gst-launch with pulsesrc's default 10 ms period, or with the 50 ms period yt-gst asks for."""
        return ["gst-launch-1.0", "-q", "-e", "pulsesrc", f"device={sink}.monitor", f"latency-time={period_ms * 1000}",
                f"num-buffers={s * 1000 // period_ms}", "!", f"audio/x-raw,rate={RATE},channels={CHANNELS},format=S16LE",
                "!", "wavenc", "!", "filesink", f"location={out_ref}"]

    cpu = []
    for r in range(rounds + (0 if a.quick else 1)):
        row = []
        for argv, out in ((yt_rec, out_yt), (ref_rec, out_ref), (lambda s: ref_rec(s, 50), out_ref)):
            used, code = timed(argv(seconds), seconds + 30)
            declared, on_disk, _ = frames_in(out)
            ok = code == 0 and declared is not None and abs(declared - seconds * RATE) <= RATE // 50
            if not ok:
                print(f"  FAIL {argv[0]}: exit {code}, {declared} frames for {seconds} s")
                return 2
            row.append(used)
        if r > 0 or a.quick:
            cpu.append(row)
            print(f"  round {len(cpu)}: yt-gst {row[0] * 1000:.0f} ms cpu, wavenc {row[1] * 1000:.0f} ms cpu, "
                  f"wavenc with 50 ms periods {row[2] * 1000:.0f} ms cpu", flush=True)
    per_minute = 60 / seconds
    ratio = med([c[0] / c[1] for c in cpu])
    cpu_row = ("recording CPU", f"user+sys per minute of 48 kHz stereo from the null sink monitor (yt-gst asks for "
               "50 ms periods), vs gst-launch-1.0 -e pulsesrc ! wavenc ! filesink (pulsesrc's 10 ms default)",
               f"{med([c[0] for c in cpu]) * per_minute * 1000:.0f} ms",
               f"{med([c[1] for c in cpu]) * per_minute * 1000:.0f} ms", f"{ratio:.2f}", "≤ 1.00",
               "PASS" if ratio <= 1.0 else "FAIL")
    ratio50 = med([c[0] / c[2] for c in cpu])
    cpu50_row = ("recording CPU, same period", "as above, gst-launch with pulsesrc latency-time=50000 too",
                 f"{med([c[0] for c in cpu]) * per_minute * 1000:.0f} ms",
                 f"{med([c[2] for c in cpu]) * per_minute * 1000:.0f} ms", f"{ratio50:.2f}", "-", "-")

    # 2. Loss after kill -9.
    kill_after = 3 if a.quick else 10
    noise_path = os.path.join(work, "noise.wav")
    if not os.path.exists(noise_path):
        noise(noise_path, 30)
    player = subprocess.Popen(["paplay", "-d", sink, noise_path])
    time.sleep(0.5)
    files = {name: os.path.join(work, f"kill-{name}.wav") for name in ("yt-gst", "wavenc", "sox", "arecord")}
    for f in files.values():
        if os.path.exists(f):
            os.remove(f)
    reference = os.path.join(work, "kill-parec.raw")
    env = dict(os.environ, AUDIODEV="pulse")
    commands = {
        "yt-gst": [yt, "record", files["yt-gst"], "--status", "none", "--source", "monitor", "--set", f"monitor={sink}.monitor",
                   "--rate", str(RATE), "--channels", str(CHANNELS)],
        "wavenc": ["gst-launch-1.0", "-q", "pulsesrc", f"device={sink}.monitor", "!",
                   f"audio/x-raw,rate={RATE},channels={CHANNELS},format=S16LE", "!", "wavenc", "!", "filesink",
                   f"location={files['wavenc']}"],
        "sox": ["sox", "-q", "-t", "alsa", "pulse", "-r", str(RATE), "-c", str(CHANNELS), "-b", "16",
                files["sox"]],
        "arecord": ["arecord", "-q", "-D", "pulse", "-f", "S16_LE", "-r", str(RATE), "-c", str(CHANNELS),
                    files["arecord"]],
    }
    ref = subprocess.Popen(["parec", "-d", f"{sink}.monitor", f"--rate={RATE}", f"--channels={CHANNELS}",
                            "--format=s16le", "--raw", reference])
    time.sleep(0.3)
    procs = {name: subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for name, argv in commands.items()}
    time.sleep(kill_after)
    for p in procs.values():
        p.send_signal(signal.SIGKILL)
    ref.send_signal(signal.SIGINT)
    for p in list(procs.values()) + [ref]:
        p.wait()
    player.terminate()
    player.wait()
    with open(reference, "rb") as f:
        captured = f.read()
    print(f"\n  kill -9 after {kill_after} s of recording (reference: parec, {len(captured) / FRAME / RATE:.2f} s):")
    loss_rows = []
    for name, path in files.items():
        if not os.path.exists(path):
            loss_rows.append((name, "no file", "-", "-", "-"))
            continue
        declared, on_disk, data = frames_in(path)
        tail = data[-FRAME * 480:] if len(data) >= FRAME * 480 else b""
        at = captured.find(tail) if tail else -1
        lost = f"{(len(captured) - at - len(tail)) / FRAME / RATE:.2f} s" if at >= 0 else \
            f"all ({kill_after} s)" if not data else "not found"
        valid = "yes" if declared == on_disk else (f"no: says {declared / RATE / 3600:.1f} h" if declared else
                                                   "no: unreadable")
        size = os.path.getsize(path)
        loss_rows.append((name, f"{size} bytes", f"{on_disk / RATE:.2f} s", valid, lost))
    print("| recorder | file after kill -9 | audio on disk | header states the frames on disk | audio lost |")
    print("|---|---:|---:|---|---:|")
    for r in loss_rows:
        print("| " + " | ".join(r) + " |")
    print()
    print("| figure | measured as | yt-gst (median) | reference (median) | ratio (median of rounds) | target | result |")
    print("|---|---|---:|---:|---:|---|---|")
    print("| " + " | ".join(cpu_row) + " |")
    print("| " + " | ".join(cpu50_row) + " |")
    yt_lost = loss_rows[0][4]
    ok = cpu_row[6] == "PASS" or a.quick
    if not (yt_lost.endswith(" s") and float(yt_lost.split()[0]) <= 1.0 and loss_rows[0][3] == "yes"):
        print(f"FAIL: yt-gst lost {yt_lost} / header {loss_rows[0][3]}")
        ok = False
    return 0 if ok else 2
