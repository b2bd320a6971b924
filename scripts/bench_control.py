# yt-gst — the control rows of the benchmark (scripts/bench.py --control, or scripts/bench.sh --control, which runs
# it under dbus-run-session inside the private PulseAudio): yt-gst against mpv 0.35 (with mpv-mpris), the same
# position-coded WAV file, the same IPC client (this script, on the `--input-ipc-server` socket) and the same
# measurements, in alternating rounds (one player instance each, yt-gst then mpv).
#
# The file: 48 kHz stereo 16-bit where every frame says where it is (left = frame index mod 65536 − 32768,
# right = 256 × (1 + frame index div 65536), never zero), so each frame that reaches the null sink is identified;
# silence (0, 0) is no frame of the file. `parec` records the sink's monitor with a 5 ms latency (the null sink then
# renders in blocks of at most 5 ms, each as its time comes, and the monitor hands it on at once) and this script
# notes when each read returned, on the monotonic clock that also stamps the commands. Frame k reached the sink when
# the read holding it returned, less the lateness of this script's reading: min over that read and the reads of the
# next 0.5 s of (read time − frames read since that read's end / 48000). So a figure includes up to one block (the
# sink takes in the data when it renders a block).
#   - pause: `{"command":["set_property","pause",true]}` sent while the file plays → the first frame of silence
#     after the last frame of the file (checked: silence for 0.3 s after it, and `pause` reads true);
#   - seek: `{"command":["seek",N,"absolute"]}` → the first frame within −10…+300 ms of N (checked: the next 0.1 s
#     of frames follow it in order; where it landed is reported);
#   - idle: paused, this script's client observing time-pos, MPRIS on: voluntary context switches of the main
#     thread (/proc/PID/task/PID/status) and of all threads over 10 s (quick: 2 s), per second (checked: the sink
#     stayed silent and the player still answers);
#   - MPRIS: `playerctl -p NAME play-pause` spawned → the PropertiesChanged carrying the new PlaybackStatus, as
#     dbus-monitor stamps it (realtime clock on both sides); twice a round (pause, then play; checked: the status
#     is the expected one and the sink went silent, then sounded again). Also the player's own share: the
#     PlayPause call seen on the bus → the signal.
# Every process runs in a session of its own and is killed at the end; every wait is bounded; SIGTERM (the
# `timeout` bench.sh puts around this) ends the run through the same clean-up.
import atexit
import bisect
import json
import os
import re
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time

import numpy as np

import bench_table  # scripts/bench_table.py, beside this file

RATE, FRAME = 48_000, 4
FILE_SECONDS = 200
MPV_MPRIS = "/usr/lib/mpv-mpris/mpris.so"
CHILDREN = []


class RunFailed(Exception):
    """A round whose effect did not happen (or could not be seen); the message says which."""


def spawn(argv, **kw):
    """A child in a session of its own, killed (with its group) when the benchmark ends however it ends."""
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, start_new_session=True, **kw)
    CHILDREN.append(p)
    return p


def kill(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def kill_children():
    for p in CHILDREN:
        if p.poll() is None:
            kill(p)


def write_coded_wav(path, seconds):
    """The position-coded file (see the header), reused when one of the right size is there."""
    frames = seconds * RATE
    if os.path.exists(path) and os.path.getsize(path) == 44 + frames * FRAME:
        return
    i = np.arange(frames, dtype=np.int64)
    data = np.empty((frames, 2), np.int16)
    data[:, 0] = (i & 0xFFFF) - 32768
    data[:, 1] = 256 * (1 + (i >> 16))
    body = data.tobytes()
    with open(path + ".part", "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 36 + len(body)) + b"WAVE")
        f.write(b"fmt " + struct.pack("<IHHIIHH", 16, 1, 2, RATE, RATE * FRAME, FRAME, 16))
        f.write(b"data" + struct.pack("<I", len(body)) + body)
    os.replace(path + ".part", path)


class Monitor:
    """parec on the null sink's monitor, read in a thread: every frame, and when each read returned."""

    def __init__(self, sink):
        self.proc = spawn(["parec", "-d", f"{sink}.monitor", "--raw", "--format=s16le", f"--rate={RATE}",
                           "--channels=2", "--latency-msec=5"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.data, self.times, self.ends = bytearray(), [], []  # ends[j]: frames received by read j (at times[j])
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        fd = self.proc.stdout.fileno()
        while chunk := os.read(fd, 1 << 16):
            t = time.monotonic()
            with self.lock:
                self.data += chunk
                self.times.append(t)
                self.ends.append(len(self.data) // FRAME)

    def frames(self):
        with self.lock:
            return len(self.data) // FRAME

    def frames_by(self, t):
        """Frames that had arrived by monotonic time `t`."""
        with self.lock:
            j = bisect.bisect_right(self.times, t)
            return self.ends[j - 1] if j else 0

    def time_of(self, k):
        """When the sink rendered frame k (see the header)."""
        with self.lock:
            j = bisect.bisect_right(self.ends, k)
            if j == len(self.ends):
                raise RunFailed(f"the monitor has nothing after frame {k}")
            end, best = self.ends[j], self.times[j]
            while j < len(self.ends) and self.ends[j] <= end + RATE // 2:
                best = min(best, self.times[j] - (self.ends[j] - end) / RATE)
                j += 1
        return best

    def positions(self, a, b):
        """The file positions (frame indices) of monitor frames a..b−1; −1 for silence."""
        with self.lock:
            raw = np.frombuffer(bytes(self.data[a * FRAME:b * FRAME]), np.int16).reshape(-1, 2).astype(np.int64)
        pos = (raw[:, 0] + 32768) + ((np.round(raw[:, 1] / 256).astype(np.int64) - 1) << 16)
        return np.where((raw[:, 0] == 0) & (raw[:, 1] == 0), -1, pos)

    def wait_frames(self, n, timeout=5):
        deadline = time.monotonic() + timeout
        while self.frames() < n:
            if time.monotonic() > deadline:
                raise RunFailed("parec stopped delivering the monitor")
            time.sleep(0.01)

    def wait_sound(self, since, timeout=15):
        """The first frame of the file heard from monitor frame `since` on."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            heard = np.nonzero(self.positions(since, self.frames()) >= 0)[0]
            if len(heard):
                return since + int(heard[0])
            time.sleep(0.02)
        raise RunFailed(f"no sound reached the sink within {timeout} s")

    def stop(self):
        kill(self.proc)


class IPC:
    """One client of mpv's JSON IPC protocol: replies matched by request_id, events kept (a reader thread)."""

    def __init__(self, path, timeout=15):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise RunFailed(f"no IPC socket at {path} within {timeout} s")
                time.sleep(0.05)
        self.replies, self.events, self.next_id = {}, [], 1
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        pending = b""
        while chunk := self._recv():
            *lines, pending = (pending + chunk).split(b"\n")
            with self.cond:
                for line in filter(None, lines):
                    msg = json.loads(line)
                    if "event" in msg:
                        self.events.append(msg)
                    else:
                        self.replies[msg.get("request_id")] = msg
                self.cond.notify_all()

    def _recv(self):
        try:
            return self.sock.recv(1 << 16)
        except OSError:
            return b""

    def request(self, *command, timeout=5):
        """Sends the command; returns (monotonic time just before it was sent, reply). Fails unless "success"."""
        with self.cond:
            rid, self.next_id = self.next_id, self.next_id + 1
        line = json.dumps({"command": list(command), "request_id": rid}).encode() + b"\n"
        sent = time.monotonic()
        try:
            self.sock.sendall(line)
        except OSError as e:
            raise RunFailed(f"the IPC connection is gone ({e.strerror})")
        with self.cond:
            if not self.cond.wait_for(lambda: rid in self.replies, timeout):
                raise RunFailed(f"no reply to {command} within {timeout} s")
            reply = self.replies.pop(rid)
        if reply.get("error") != "success":
            raise RunFailed(f"{command} → {reply}")
        return sent, reply

    def close(self):
        self.sock.close()


class BusMonitor:
    """dbus-monitor on the MPRIS signals and Player calls: (kind, realtime, member, body text) per message."""

    HEADER = re.compile(r"^(signal|method call) time=([\d.]+) .*member=(\w+)")

    def __init__(self):
        rules = ["type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                 "path='/org/mpris/MediaPlayer2'", "type='method_call',interface='org.mpris.MediaPlayer2.Player'"]
        self.proc = spawn(["dbus-monitor", "--session", *rules], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True)
        self.messages, self.lock = [], threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            with self.lock:
                if m := self.HEADER.match(line):
                    self.messages.append([m.group(1), float(m.group(2)), m.group(3), ""])
                elif self.messages:
                    self.messages[-1][3] += line

    def first(self, kind, member, after, body=()):
        """The time of the first such message stamped at or after `after` (realtime) whose body holds all of `body`."""
        with self.lock:
            return next((m[1] for m in self.messages if m[0] == kind and m[2] == member and m[1] >= after
                         and all(b in m[3] for b in body)), None)

    def stop(self):
        kill(self.proc)


def switches(pid):
    """Voluntary context switches so far: (the main thread's, all threads' together)."""
    def voluntary(task):
        with open(f"/proc/{pid}/task/{task}/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("voluntary_ctxt_switches"))
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
        return voluntary(pid), sum(voluntary(t) for t in tasks if os.path.exists(f"/proc/{pid}/task/{t}"))
    except (OSError, StopIteration):
        raise RunFailed("the player exited")


def measure_pause(mon, ipc):
    """set_property pause true → the first frame of silence after the file's last frame (seconds)."""
    sent, _ = ipc.request("set_property", "pause", True)
    k = mon.frames_by(sent)
    mon.wait_frames(k + RATE)
    pos = mon.positions(k - 1, k + RATE)
    heard = np.nonzero(pos >= 0)[0]
    if not len(heard) or heard[0] != 0:
        raise RunFailed("the sink was silent when the pause was sent")
    if heard[-1] > len(pos) - 1 - RATE * 3 // 10:
        raise RunFailed("the sink did not stay silent for 0.3 s within 0.7 s of the pause")
    if ipc.request("get_property", "pause")[1].get("data") is not True:
        raise RunFailed("pause does not read true after the pause")
    return mon.time_of(k + int(heard[-1])) - sent


def measure_seek(mon, ipc, target):
    """seek target absolute → the first frame within −10…+300 ms of target (seconds), and where it landed (s)."""
    sent, _ = ipc.request("seek", target, "absolute")
    k = mon.frames_by(sent)
    mon.wait_frames(k + RATE)
    pos = mon.positions(k, k + RATE)
    goal = round(target * RATE)
    near = np.nonzero((pos >= goal - RATE // 100) & (pos <= goal + RATE * 3 // 10))[0]
    if not len(near):
        heard = pos[pos >= 0]
        what = (f"heard {len(heard)} frames, positions {heard.min() / RATE:.3f}-{heard.max() / RATE:.3f} s, first "
                f"{heard[0] / RATE:.3f} s at +{np.nonzero(pos >= 0)[0][0] / RATE:.3f} s") if len(heard) else "silence"
        raise RunFailed(f"position {target} s was not heard within 1 s of the seek ({what})")
    first = k + int(near[0])
    follow = mon.positions(first, first + RATE // 10)
    if not np.array_equal(follow, follow[0] + np.arange(len(follow))):
        raise RunFailed("the 0.1 s after the seek's first frame are not the file's frames in order")
    return mon.time_of(first) - sent, (int(follow[0]) - goal) / RATE


def measure_press(bus, mpris, want, mon):
    """playerctl play-pause spawned → PropertiesChanged with PlaybackStatus `want`; and PlayPause call → it (s)."""
    pressed = time.time()
    r = subprocess.run(["playerctl", "-p", mpris, "play-pause"], capture_output=True, text=True, timeout=10)
    if r.returncode:
        raise RunFailed(f"playerctl play-pause exited {r.returncode}: {r.stderr.strip()}")
    body = ['"PlaybackStatus"', f'"{want}"']
    deadline = time.monotonic() + 2
    while (signalled := bus.first("signal", "PropertiesChanged", pressed, body)) is None:
        if time.monotonic() > deadline:
            raise RunFailed(f"no PropertiesChanged with PlaybackStatus {want} within 2 s of play-pause")
        time.sleep(0.005)
    called = bus.first("method call", "PlayPause", pressed)
    time.sleep(0.5)
    if want == "Paused" and np.any(mon.positions(mon.frames() - RATE // 5, mon.frames()) >= 0):
        raise RunFailed("the sink still sounds 0.5 s after play-pause paused")
    if want == "Playing":
        mon.wait_sound(mon.frames() - RATE // 5, timeout=5)
    return signalled - pressed, None if called is None else signalled - called


def measure_idle(mon, ipc, pid, seconds):
    """Paused, observed, MPRIS on: voluntary context switches per second (main thread, all threads)."""
    ipc.request("set_property", "pause", True)
    time.sleep(1)
    k = mon.frames()
    main0, all0 = switches(pid)
    time.sleep(seconds)
    main1, all1 = switches(pid)
    if np.any(mon.positions(k, mon.frames()) >= 0):
        raise RunFailed("the sink sounded while the player was paused")
    if ipc.request("get_property", "pause")[1].get("data") is not True:
        raise RunFailed("pause does not read true after the idle window")
    return (main1 - main0) / seconds, (all1 - all0) / seconds


def wait_mpris(mpris, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = subprocess.run(["playerctl", "-l"], capture_output=True, text=True, timeout=10)
        if mpris in r.stdout.split():
            return
        time.sleep(0.05)
    raise RunFailed(f"{mpris} did not appear on the session bus within {timeout} s")


def one_round(argv, mpris, r, a, bus, work):
    """One player instance through every measurement; a dict of figures."""
    mon = Monitor(os.environ.get("YT_GST_PULSE_SINK", "spk"))
    mon.wait_frames(RATE // 10, timeout=10)
    start, sock = mon.frames(), os.path.join(work, f"{mpris}-{r}.sock")
    with open(os.path.join(work, f"{mpris}-{r}.log"), "w") as log:
        player = spawn(argv(sock), stdout=log, stderr=log)
    ipc = None
    try:
        ipc = IPC(sock)
        ipc.request("observe_property", 1, "time-pos")
        mon.wait_sound(start)
        wait_mpris(mpris)
        time.sleep(1)
        out = {"pause": measure_pause(mon, ipc)}
        ipc.request("set_property", "pause", False)
        mon.wait_sound(mon.frames(), timeout=5)
        time.sleep(0.8)
        out["seek"], out["landed"] = measure_seek(mon, ipc, 100 + 7 * r + 0.25)
        time.sleep(0.5)
        presses = [measure_press(bus, mpris, want, mon) for want in ("Paused", "Playing")]
        out["mpris"] = [p[0] for p in presses]
        out["mpris_player"] = [p[1] for p in presses if p[1] is not None]
        out["idle_main"], out["idle_all"] = measure_idle(mon, ipc, player.pid, 2 if a.quick else 10)
        ipc.request("quit")
        player.wait(timeout=10)
        return out
    except subprocess.TimeoutExpired as e:
        raise RunFailed(f"{e.cmd[0] if isinstance(e.cmd, list) else e.cmd} took over {e.timeout} s")
    finally:
        if ipc:
            ipc.close()
        kill(player)
        mon.stop()


def players(binary, wav):
    """name: (argv for an IPC socket path, MPRIS name): both play the file to the default sink, the null sink."""
    return {
        "yt-gst": (lambda sock: [binary, "play", wav, "--status", "none", "--input-ipc-server", sock], "yt_gst"),
        "mpv": (lambda sock: ["mpv", "--no-config", "--no-video", "--no-terminal", "--ao=pulse",
                              f"--input-ipc-server={sock}", f"--script={MPV_MPRIS}", wav], "mpv"),
    }


def row(figure, how, results, key, target, unit=1000, fmt="{:.1f} ms", judge=None):
    """A table row: both medians, the median of the round-by-round ratios, the target and the result."""
    yt, peer = (results[n].get(key, []) for n in ("yt-gst", "mpv"))
    pairs = [(x, y) for x, y in zip(yt, peer) if y]
    cell = lambda v: fmt.format(statistics.median(v) * unit) if v else "-"
    ratio = f"{statistics.median(x / y for x, y in pairs):.2f}" if pairs and isinstance(judge, float) else "-"
    if judge == "zero":
        cells = [f"{cell(yt)} (max {max(yt):.1f})" if yt else "-", f"{cell(peer)} (max {max(peer):.1f})" if peer else "-"]
        result = "-" if not yt else "PASS" if max(yt) == 0 else "FAIL"
    else:
        cells = [cell(yt), cell(peer)]
        result = "-" if judge is None or not yt else "PASS" if statistics.median(yt) <= judge else "FAIL"
    return (figure, how, *cells, ratio, target, result)


def table(results, idle_s):
    return [
        row("pause → silence", '`{"command":["set_property","pause",true]}` sent → the first silent frame after '
            "the file's last one at the null sink", results, "pause", "≤ 30 ms", judge=0.030),
        row("seek → new position heard", '`{"command":["seek",N,"absolute"]}` sent → the first frame within '
            "−10…+300 ms of N at the null sink", results, "seek", "≤ 30 ms", judge=0.030),
        row("seek landing", "the first frame heard after the seek − N", results, "landed", "-", fmt="{:+.2f} ms"),
        row("idle wake-ups, main thread", f"paused, one IPC client observing time-pos, MPRIS on: voluntary "
            f"context switches per second of the main thread over {idle_s} s", results, "idle_main", "0", unit=1,
            fmt="{:.1f}", judge="zero"),
        row("idle wake-ups, all threads", "as above, every thread of the process", results, "idle_all", "-",
            unit=1, fmt="{:.1f}"),
        row("MPRIS play-pause", "`playerctl -p NAME play-pause` spawned → PropertiesChanged with the new "
            "PlaybackStatus at dbus-monitor (pause and play)", results, "mpris", "≤ 100 ms", judge=0.100),
        row("MPRIS, the player's share", "the PlayPause call on the bus → that PropertiesChanged", results,
            "mpris_player", "-"),
    ]


def stopped(*_):
    """SIGTERM (bench.sh's time limit): out through the clean-up, which kills every child."""
    print("bench: stopped by SIGTERM (the time limit?); every player and recorder killed", file=sys.stderr)
    raise SystemExit(143)


def run(a, machine):
    """The control rows; exit 0 every round checked and every judged row PASS (quick: every round checked)."""
    signal.signal(signal.SIGTERM, stopped)
    atexit.register(kill_children)
    work = os.path.join(a.dir, "control")
    os.makedirs(work, exist_ok=True)
    wav = os.path.join(work, "position-coded.wav")
    write_coded_wav(wav, FILE_SECONDS)
    rounds, idle_s = (1, 2) if a.quick else (max(1, a.pairs), 10)
    print(f"machine: {machine()}")
    print(f"control rows: {rounds} round(s){'' if a.quick else ' after a warm-up round'} of yt-gst and mpv "
          f"(mpv-mpris), alternately, on a {FILE_SECONDS} s position-coded 48 kHz stereo 16-bit file", flush=True)
    bus = BusMonitor()
    results = {name: {} for name in ("yt-gst", "mpv")}
    failures = []
    for r in range(rounds + (0 if a.quick else 1)):
        for name, (argv, mpris) in players(a.binary, wav).items():
            try:
                out = one_round(argv, mpris, r, a, bus, work)
            except RunFailed as e:
                failures.append(f"{name} round {r + 1}: {e}")
                print(f"  FAIL {name} round {r + 1}: {e}", flush=True)
                continue
            print(f"  round {r + 1} {name}: pause {out['pause'] * 1000:.1f} ms, seek {out['seek'] * 1000:.1f} ms "
                  f"(landed {out['landed'] * 1000:+.2f} ms), MPRIS {', '.join(f'{v * 1000:.1f}' for v in out['mpris'])}"
                  f" ms, idle {out['idle_main']:.1f}/s main, {out['idle_all']:.1f}/s all"
                  + (" (warm-up, not counted)" if r == 0 and not a.quick else ""), flush=True)
            if r > 0 or a.quick:
                for key, value in out.items():
                    results[name].setdefault(key, []).extend(value if isinstance(value, list) else [value])
    bus.stop()
    rows = table(results, idle_s)
    print()
    bench_table.print_table(rows, "mpv")
    return bench_table.verdict(rows, failures, a.quick, "every round's effect checked")
