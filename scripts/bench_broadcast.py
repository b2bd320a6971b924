#!/usr/bin/env python3
# yt-gst — the broadcast rows of the benchmark (`scripts/bench.py --broadcast`): a real Icecast on loopback.
#
#   - sender CPU per minute, Ogg Opus 128 kbit/s to Icecast: `yt-gst stream` against `gst-launch-1.0 filesrc !
#     wavparse ! audioconvert ! audioresample ! opusenc ! oggmux ! shout2send` with the same settings, rounds run
#     alternately (A B A B), CPU from wait4(2)'s rusage of each process; the ratio of medians is judged ≤ 1.0;
#   - source-to-listener latency through Icecast (MP3, the default codec), with Icecast's default 64 KiB burst and
#     with the low-latency setting the README recommends (burst-size 0): the source has a click every second; a
#     listener decodes the mount (gst-launch souphttpsrc ! decodebin ! fdsink) into this process, which stamps each
#     click as it arrives, on the same monotonic clock as the sender's start. Latency = arrival − (sender start +
#     the click's place in the file), so it includes the sender's start-up (tens of ms);
#   - HLS live edge with 2 s segments: the time from a click to the playlist listing the segment that holds it;
#   - listeners one Icecast holds: 0, then rising numbers of light listeners (scripts/http-listeners.py) on one
#     mount; the sender's CPU must not grow (judged), and the largest step that delivered ≥ 90 % of the bitrate to
#     every listener is the count one Icecast holds here (reported).
import os
import resource
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time

RATE = 48_000
HERE = os.path.dirname(os.path.abspath(__file__))
PASSWORD = "bench-secret"


def write_clicks(path, seconds, first=3.0, every=1.0):
    """Silence with a click group every `every` s from `first`: group k is (k % 8) + 1 pulses of 2 ms, 20 ms
    apart, so a listener can tell which click it hears even seconds late. 48 kHz stereo 16-bit.
    Returns each group's (time in the file, pulse count)."""
    frames = int(seconds * RATE)
    data = bytearray(frames * 4)
    groups, t, k = [], first, 0
    while t < seconds - 0.5:
        for pulse in range(k % 8 + 1):
            start = int((t + pulse * 0.02) * RATE)
            for i in range(start, start + RATE // 500):
                struct.pack_into("<hh", data, i * 4, 30000, 30000)
        groups.append((t, k % 8 + 1))
        t += every
        k += 1
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 2, RATE,
                                                                                        RATE * 4, 4, 16))
        f.write(b"data" + struct.pack("<I", len(data)) + data)
    return groups


def write_tone(path, seconds):
    subprocess.run(["gst-launch-1.0", "-q", "audiotestsrc", f"num-buffers={int(seconds * RATE / 1024)}",
                    "samplesperbuffer=1024", "freq=440", "volume=0.5", "!",
                    "audio/x-raw,rate=48000,channels=2,format=S16LE", "!", "wavenc", "!", "filesink",
                    f"location={path}"], check=True)


def raise_fd_limit():
    resource.setrlimit(resource.RLIMIT_NOFILE, (8192, 8192))


class Icecast:
    """An icecast2 on 127.0.0.1:`port`, its own config and logs, dropping to nobody (as the tests do)."""

    def __init__(self, port, burst=65536):
        self.port = port
        self.dir = tempfile.mkdtemp(prefix="yt-gst-bench-icecast.")
        os.chmod(self.dir, 0o755)
        logs = os.path.join(self.dir, "log")
        os.mkdir(logs)
        os.chmod(logs, 0o777)
        self.config = os.path.join(self.dir, "icecast.xml")
        with open(self.config, "w") as f:
            f.write(f"""<icecast><location>bench</location><admin>bench@localhost</admin><hostname>127.0.0.1</hostname>
<limits><clients>5000</clients><sources>4</sources><queue-size>524288</queue-size><source-timeout>5</source-timeout>
<burst-on-connect>{1 if burst else 0}</burst-on-connect><burst-size>{burst}</burst-size></limits>
<authentication><source-password>{PASSWORD}</source-password><admin-user>admin</admin-user>
<admin-password>{PASSWORD}</admin-password></authentication>
<listen-socket><port>{port}</port><bind-address>127.0.0.1</bind-address></listen-socket>
<paths><basedir>/usr/share/icecast2</basedir><logdir>{logs}</logdir><webroot>/usr/share/icecast2/web</webroot>
<adminroot>/usr/share/icecast2/admin</adminroot></paths>
<logging><accesslog>access.log</accesslog><errorlog>error.log</errorlog><loglevel>2</loglevel></logging>
<security><chroot>0</chroot><changeowner><user>nobody</user><group>nogroup</group></changeowner></security>
</icecast>""")
        self.proc = subprocess.Popen(["icecast2", "-c", self.config], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=raise_fd_limit)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if subprocess.run(["curl", "-sf", "-o", "/dev/null", f"{self.base}/status-json.xsl"]).returncode == 0:
                return
            time.sleep(0.05)
        raise RuntimeError("icecast2 did not start")

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def source(self, mount):
        return f"icecast://{PASSWORD}@127.0.0.1:{self.port}{mount}"

    def has(self, mount):
        return subprocess.run(["curl", "-s", "-o", "/dev/null", "-m", "1", "-w", "%{http_code}", "-r", "0-0",
                               f"{self.base}{mount}"], capture_output=True, text=True).stdout == "200"

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, True)


def cpu_of(argv, timeout):
    """Runs argv to its end: (wall s, user+sys CPU s, exit code)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
        time.sleep(0.02)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def sender_cpu(yt, tone, seconds, rounds):
    """yt-gst against gst-launch ... shout2send, Opus 128 kbit/s, alternately; CPU seconds per minute each."""
    ice = Icecast(18_300)
    try:
        yt_argv = [yt, "stream", "-q", tone, "--to", ice.source("/yt.ogg"), "--codec", "opus", "--bitrate", "128"]
        ref_argv = ["gst-launch-1.0", "-q", "filesrc", f"location={tone}", "!", "wavparse", "!", "audioconvert", "!",
                    "audioresample", "!", "opusenc", "bitrate=128000", "!", "oggmux", "!", "shout2send",
                    "ip=127.0.0.1", f"port={ice.port}", "mount=/ref.ogg", f"password={PASSWORD}"]
        yt_cpu, ref_cpu, walls = [], [], []
        for _ in range(rounds):
            for argv, out in ((yt_argv, yt_cpu), (ref_argv, ref_cpu)):
                wall, cpu, code = cpu_of(argv, seconds * 2 + 30)
                if code != 0:
                    raise RuntimeError(f"{argv[0]} exited {code}")
                out.append(cpu * 60 / seconds)
                walls.append((os.path.basename(argv[0]), wall))
        return yt_cpu, ref_cpu, walls
    finally:
        ice.stop()


def click_arrivals(url, expect, timeout):
    """Decodes `url` (gst-launch) into this process at a player's pace (a synchronised sink plays what comes, the
    burst first, in real time) and stamps each click group's first pulse as it is played:
    a list of (monotonic time, pulse count)."""
    proc = subprocess.Popen(["gst-launch-1.0", "-q", "souphttpsrc", f"location={url}", "!", "decodebin", "!",
                             "audioconvert", "!", "audioresample", "!", "audio/x-raw,format=S16LE,channels=1,rate=48000",
                             "!", "fdsink", "fd=1", "sync=true"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    arrivals, deadline = [], time.monotonic() + timeout
    quiet, group = RATE, None  # samples since the last loud one; the group being counted: [time, pulses]
    try:
        while len(arrivals) < expect and time.monotonic() < deadline:
            chunk = os.read(proc.stdout.fileno(), 4096)
            now = time.monotonic()
            if not chunk:
                break
            samples = struct.unpack(f"<{len(chunk) // 2}h", chunk[:len(chunk) // 2 * 2])
            for i, v in enumerate(samples):
                if abs(v) > 12000:
                    if quiet > RATE // 10:  # a new group: the chunk arrived now, the pulse (len - i) samples earlier
                        group = [now - (len(samples) - i) / RATE, 0]
                    if quiet > RATE // 200:
                        group[1] += 1
                    quiet = 0
                else:
                    quiet += 1
                    if group and quiet == RATE // 10:
                        arrivals.append(tuple(group))
                        group = None
    finally:
        proc.kill()
        proc.wait()
    return arrivals


def icecast_latency(yt, clicks_file, groups, burst):
    """Median latency (s) from each click group's time in the sender to its arrival at a listener that joined 7 s
    into the broadcast (later than Icecast's default burst reaches back)."""
    ice = Icecast(18_310 if burst else 18_311, burst=burst)
    try:
        started = time.monotonic()
        sender = subprocess.Popen([yt, "stream", "-q", clicks_file, "--to", ice.source("/lat.mp3")],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while not ice.has("/lat.mp3") and time.monotonic() - started < 10:
            time.sleep(0.05)
        time.sleep(max(0, 7 - (time.monotonic() - started)))
        arrivals = click_arrivals(f"{ice.base}/lat.mp3", len(groups), len(groups) + 20)
        sender.wait(60)
        # Each arrival is the latest group with its pulse count that had been sent before it arrived.
        latencies = []
        for t, count in arrivals:
            sent = [started + c for c, n in groups if n == count and started + c <= t]
            if sent:
                latencies.append(t - sent[-1])
        # The groups that came in the burst at the join are older; the steady state is what later ones show.
        steady = latencies[len(latencies) // 2:]
        return (statistics.median(steady) if steady else None), len(steady)
    finally:
        ice.stop()


def hls_live_edge(yt, clicks_file, clicks):
    """Median time from a click to the playlist listing the segment that holds it (2 s segments)."""
    out = tempfile.mkdtemp(prefix="yt-gst-bench-hls.")
    try:
        started = time.monotonic()
        sender = subprocess.Popen([yt, "stream", "-q", clicks_file, "--to", f"hls:{out}", "--segment", "2",
                                   "--playlist-length", "100"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        listed = {}  # segment name → monotonic time first seen in the playlist
        while sender.poll() is None:
            try:
                with open(os.path.join(out, "playlist.m3u8")) as f:
                    for line in f:
                        if line.strip().endswith(".ts") and line.strip() not in listed:
                            listed[line.strip()] = time.monotonic()
            except OSError:
                pass
            time.sleep(0.02)
        # Segments are 2 s each from stream start: the click at c s is in segment floor(c / 2).
        names = sorted(listed)
        latencies = [listed[names[int(c // 2)]] - (started + c) for c, _ in clicks if int(c // 2) < len(names) - 1]
        return statistics.median(latencies) if latencies else None
    finally:
        shutil.rmtree(out, True)


def listener_capacity(yt, tone, seconds, steps):
    """The sender's CPU per minute and what each listener got, at each listener count."""
    ice = Icecast(18_320)
    results = []
    try:
        for count in steps:
            sender = subprocess.Popen([yt, "stream", "-q", tone, "--to", ice.source("/cap.mp3")],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            t0 = time.monotonic()
            while not ice.has("/cap.mp3") and time.monotonic() - t0 < 10:
                time.sleep(0.05)
            listeners = None
            if count:
                listeners = subprocess.Popen([sys.executable, os.path.join(HERE, "http-listeners.py"),
                                              str(seconds - 4), f"{ice.base}/cap.mp3:{count}"],
                                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                             preexec_fn=raise_fd_limit)
            _, status, usage = os.wait4(sender.pid, 0)
            cpu = (usage.ru_utime + usage.ru_stime) * 60 / seconds
            worst = None
            if listeners:
                import json
                got = json.loads(listeners.communicate(timeout=60)[0])
                rates = [r["bytes"] / max(r["seconds"], 0.001) for r in got[f"{ice.base}/cap.mp3"]]
                worst = min(rates) * 8 / 1000 if rates else 0
            results.append((count, cpu, worst))
            time.sleep(1)
        return results
    finally:
        ice.stop()


def main(yt, directory, rounds, quick):
    os.makedirs(directory, exist_ok=True)
    minute = 10 if quick else 60
    tone = os.path.join(directory, f"broadcast-tone-{minute}s.wav")
    write_tone(tone, minute)
    clicks_file = os.path.join(directory, "broadcast-clicks.wav")
    clicks = write_clicks(clicks_file, 20 if quick else 30)
    rounds = 1 if quick else rounds
    print(f"broadcast rows: Icecast 2 on 127.0.0.1, {minute} s files, {rounds} round(s)", flush=True)

    yt_cpu, ref_cpu, walls = sender_cpu(yt, tone, minute, rounds)
    ratio = statistics.median(yt_cpu) / statistics.median(ref_cpu)
    print(f"walls: {', '.join(f'{n} {w:.1f} s' for n, w in walls)}")
    burst_latency, n_burst = icecast_latency(yt, clicks_file, clicks, 65536)
    low_latency, n_low = icecast_latency(yt, clicks_file, clicks, 0)
    hls = hls_live_edge(yt, clicks_file, clicks)
    steps = [0, 100, 500] if quick else [0, 250, 1000, 2000]
    capacity = listener_capacity(yt, tone, minute if not quick else 12, steps)

    rows = [("sender CPU", "user+sys per minute, Ogg Opus 128 kbit/s → Icecast, vs gst-launch-1.0 filesrc ! wavparse ! "
             "audioconvert ! audioresample ! opusenc ! oggmux ! shout2send", f"{statistics.median(yt_cpu) * 1000:.0f} ms",
             f"{statistics.median(ref_cpu) * 1000:.0f} ms", f"{ratio:.2f}", "≤ 1.00",
             "PASS" if ratio <= 1.0 else "FAIL")]
    fmt = (lambda v: f"{v * 1000:.0f} ms" if v is not None else "not measured")
    rows.append(("Icecast latency", f"click in the source → decoded at a listener, MP3, default burst (64 KiB), "
                 f"{n_burst} clicks", fmt(burst_latency), "-", "-", "-", "-"))
    rows.append(("Icecast latency", f"as above, burst-size 0 (the README's low-latency setting), {n_low} clicks",
                 fmt(low_latency), "-", "-", "-", "-"))
    rows.append(("HLS live edge", "click → its segment listed in the playlist, 2 s segments", fmt(hls), "-", "-", "-",
                 "-"))
    # The sender's CPU is judged at every step (it must not grow with listeners); how many one Icecast holds is
    # the largest step at which every listener got at least 90 % of the bitrate.
    base = capacity[0][1]
    held = 0
    for count, cpu, worst in capacity[1:]:
        delivered = worst is not None and worst >= 0.9 * 128
        if delivered:
            held = max(held, count)
        rows.append(("listeners", f"{count} listeners on one mount (MP3 128 kbit/s): sender CPU/min vs 0 listeners; "
                     f"slowest listener {worst:.0f} kbit/s" + ("" if delivered else " (not held)"),
                     f"{cpu * 1000:.0f} ms", f"{base * 1000:.0f} ms", f"{cpu / base:.2f}" if base else "-",
                     "≤ 1.25 (unchanged)", "PASS" if cpu <= base * 1.25 + 0.05 else "FAIL"))
    rows.append(("listeners held", "largest count at which every listener got ≥ 115 kbit/s (one Icecast, this "
                 "machine, listeners on it too)", str(held), "-", "-", "-", "-"))
    print("| figure | measured as | yt-gst (median) | reference (median) | ratio | target | result |")
    print("|---|---|---:|---:|---:|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    failed = [r[0] for r in rows if r[6] == "FAIL"]
    print(f"FAIL: {', '.join(failed)}" if failed else "every judged broadcast row PASS")
    return 0 if quick or not failed else 2
