#!/usr/bin/env python3
# yt-gst — the multi-room lab: one sender and N receivers in network namespaces, each receiver playing into one
# channel of a PulseAudio null sink, recorded and analysed by scripts/skew.py. Used by the Swift test
# (Tests/TestSupport/MultiRoomLab.swift) and by the bench (scripts/bench.py --multiroom), so both measure the same way.
#
# The lab (needs root, iproute2, nftables, pulseaudio, parec; faketime for --fast; pipewire, pipewire-pulse and
# wireplumber for --server pipewire):
#   - a private PulseAudio with one null sink `mix` (48 kHz, norewinds=1, one channel per receiver) and mono remap
#     sinks `toL`, `toR` (and `toC`) onto its channels, reachable from every namespace through its unix socket; or
#     with --server pipewire the same sinks on a private PipeWire (null sinks, each room's monitor linked onto its
#     channel of `mix`), its pipewire-pulse on the same socket;
#   - namespaces `snd` (10.78.0.2) and `r1`, `r2`, ... (10.78.0.3, ...) on one bridge, with a multicast route;
#   - parec records mix.monitor from the start, sample for sample what the null sink plays (parec and pipewire-pulse,
#     which carries the recording in its main thread, run realtime: beside a CPU hog the recording lost 0.5-1 per
#     mille of its samples there, read as the device running -470 to -1100 ppm with 10 ms gaps in every channel);
#     where each sample was on CLOCK_MONOTONIC is bounded from the reads (sample n has been captured before the
#     read that returns it: t <= t_read), and the tightest read of each second (the least t_read - n/rate) pins that
#     second's position to an instant: scripts/skew.py's `Timeline` (the device need not play 48 000 samples a
#     second: see there);
#   - order: the --pre commands in `snd` (a server), then the receivers (late ones later), then after --ready-s the
#     --sender commands in `snd`; the instant the last sender command starts is "sending" for the latency.
#
# Every process the lab starts dies with it, however it ends (even SIGKILL, which no `finally` sees): each is started
# under `setpriv --pdeathsig KILL` (the kernel kills it when the lab's process dies). A killed lab leaves its
# namespaces (`ytn<PID>m...`), its scratch directory (`yt-gst-multiroom.<PID>.*` in TMPDIR), and any grandchild
# (faketime's child): its caller removes those (MultiRoomLab.swift finds the processes by a marker in their
# environment).
#
# Commands are shell strings (run as `sh -c 'exec ...'` in their own process group, which is killed by its PID at the
# end) with placeholders: {group} {port} (the multicast stream), {sender} (the sender's address as the receiver
# reaches it: a jitter proxy's for a jittered TCP receiver), {sink} (the receiver's remap sink, also in PULSE_SINK),
# {index} (1-based), {noise} (a 48 kHz stereo 16-bit WAV of white noise, identical channels, seconds + 10 long),
# {seconds}, {work} (the lab's scratch directory). A receiver on `alsasink device=pulse` (ALSA's pulse plugin,
# libasound2-plugins) reaches the lab's PulseAudio the same way: libpulse reads PULSE_SERVER and PULSE_SINK.
#
# The device: --device-ppm PPM runs the PulseAudio server under faketime as --fast does a receiver, so its null sink
# (every receiver's output, and what parec records) plays PPM more samples a second than the sender's clock (on top
# of the +80 to +190 ppm it runs fast by itself when pulsesink feeds it); "device" in the report: the PPM set and the
# rate measured from the recording's timeline from sending on, against CLOCK_MONOTONIC (the sender's clock). The
# sender and receivers are not faked (a GStreamer RTP sender under libfaketime sends in bursts).
#
# Faults per receiver I (1-based): --fast I:PPM (faketime -m -f "-OFF xRATE" with OFF = realtime - monotonic, so that
# CLOCK_MONOTONIC stays where it is and runs PPM fast), --loss I:PCT (nftables drops PCT % of incoming UDP and TCP
# packets at random), --jitter I:MAXMS (0..MAXMS ms of random delay, in order, on its path: for UDP a relay
# namespace re-sends the multicast (and answers the sender's clock exchanges on port + 2 for the receiver, which
# takes the relay for its sender), the receiver drops the sender's copies and the others the relay's; for TCP a
# proxy in the receiver's namespace; which one is --jitter-proto), --join I:SECONDS (started that long after sending).
# A busy machine: --hog N runs `stress-ng --cpu 1` N times (normal priority) from before the receivers start;
# --stall-server AT:MS stops the audio server (SIGSTOP, then SIGCONT) AT seconds after sending starts for MS ms, as a
# starved machine stalls it: every room's output and the recording stop together.
#
# Prints one JSON object: the skew report (scripts/skew.py's `analyse_receivers`: receiver 1 = left, receiver 2 =
# right, receiver 3 = center with every pair), "first_sample_ms" (where in {noise} each receiver's sound begins, by
# correlating its first 0.3 s with the file; 0 = nothing cut), "start_skip_ms" (the largest jump in {noise} within
# each receiver's first second of sound; 0 = played straight through), "resume_jumps_ms" (per receiver, how far in
# {noise} its sound went on after each silence of 0.3 s or more, a pause, from where it stopped), "steady_latency_ms" (sending → sound at the start of
# the steady stretch) and "steady_latency" (its track along the stretch: drift in µs per real second and range, see
# skew.py's `latency_track`), "first_packet_lead_ms" (how much earlier than the stream's first sample was due its
# first packet came), "device" plus "lab": the commands run, their exit statuses and log tails, and
# for a late receiver I "join_to_sound_ms_I" (its start → its first sound).
#
# Usage: scripts/multiroom-lab.py --sender CMD [--pre CMD] --receiver CMD --receiver CMD [--seconds S]
#            [--expect-us E] [--bound-us B] [--device-ppm PPM] [--fast I:PPM] [--loss I:PCT] [--jitter I:MAXMS]
#            [--join I:SECONDS] [--hog N] [--stall-server AT:MS] [--server pulseaudio|pipewire] [--keep DIR] [--lags]
import argparse
import json
import os
import random
import re
import select
import shlex
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skew  # noqa: E402

RATE = 48_000
SINKS = ["toL", "toR", "toC"]
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux's value; Python 3.11 does not name it
POSITIONS = ["front-left", "front-right", "front-center"]
SUBNET = "10.78.0"
GROUP, PORT = "239.255.78.1", 5004


def tool(name):
    for d in ("/usr/sbin", "/sbin", "/usr/bin", "/bin"):
        if os.access(os.path.join(d, name), os.X_OK):
            return os.path.join(d, name)
    return name


IP, NFT = tool("ip"), tool("nft")
# Prefixed to every process the lab starts: it dies with the lab (see the header).
DIES_WITH_LAB = [tool("setpriv"), "--pdeathsig", "KILL"]
# Prefixed to the lab's own audio path (the recorder, pipewire-pulse): round-robin realtime, below the servers' I/O.
REALTIME = [tool("chrt"), "--rr", "10"]


def thread_stacks(pid):
    """Each thread of `pid` and its innermost frames (function and source line), from gdb: where a process that
    did not stop when asked was held up."""
    gdb = tool("gdb")
    if not os.path.exists(gdb):
        return "(gdb is not installed)\n"
    try:
        out = subprocess.run([tool("timeout"), "30", gdb, "-p", str(pid), "-batch", "-nx", "-ex",
                              "thread apply all bt 10"], capture_output=True, text=True, errors="replace").stdout
    except OSError as e:
        return f"(gdb: {e})\n"
    lines = []
    for line in out.splitlines():
        if line.startswith("Thread "):
            m = re.match(r'Thread (\d+) .*?(?:"(.*)")?\):$', line)
            lines.append(f"thread {m.group(1)} {m.group(2) or ''}:" if m else line)
        elif line.startswith("#"):
            # "#3  0x00007f... in func (args...) at file.c:12" -> "#3 func file.c:12"
            m = re.match(r"#(\d+)\s+(?:0x[0-9a-f]+ in )?(\S+) \(.*?\)(?: (?:at|from) (\S+))?", line)
            lines.append(f"  #{m.group(1)} {m.group(2)} {os.path.basename(m.group(3) or '')}" if m else "  " + line)
    return "\n".join(lines) + "\n" if lines else "(gdb showed no threads)\n"


def faketime(ppm):
    """The prefix that runs a command with its clocks `ppm` fast: libfaketime fakes CLOCK_MONOTONIC from the real
    time, so it is set back by OFF = realtime - monotonic to stay where it is, and runs faster from there."""
    remove_stale_faketime_files()
    offset = (time.clock_gettime_ns(time.CLOCK_REALTIME) - time.monotonic_ns()) / 1e9
    return ["faketime", "-m", "-f", f"-{offset:.6f} x{1 + ppm / 1e6:.6f}"]


def remove_stale_faketime_files(shm="/dev/shm"):
    """Removes what `faketime` processes that no longer run left in `shm`. faketime shares its start time through
    faketime_shm_<PID> and sem.faketime_sem_<PID>, and removes them when it ends by itself; killed (as the lab stops
    what it started), it left them (62 pairs after a day of lab runs), and a later faketime given the same PID
    refused to start: "sem_open: File exists"."""
    for name in os.listdir(shm):
        prefix, _, pid = name.rpartition("_")
        if prefix in ("faketime_shm", "sem.faketime_sem") and pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            try:
                os.remove(os.path.join(shm, name))
            except FileNotFoundError:
                pass


def run(argv, check=True, env=None):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=30, env=env)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {r.stderr.strip()}")
    return r


class Lab:
    """Namespaces, PulseAudio and the processes of one run; `close` kills the processes by PID and deletes the
    namespaces."""

    def __init__(self, receivers, work):
        self.work = work
        self.prefix = f"ytn{os.getpid()}m"  # NetworkLab.removeStale() deletes them if this process dies
        self.namespaces, self.processes = [], []
        self.hosts = {}
        self.servers = []  # the audio server's processes
        self.env = dict(os.environ)
        try:
            self._add_hosts(receivers)
        except BaseException:  # SIGTERM or a failed `ip` while building: delete what was built
            self.close()
            raise

    def _add_hosts(self, receivers):
        """A bridge namespace and, on it, one host namespace per role (`self.hosts`: name → namespace, address)."""
        bridge = self.prefix + "br"
        self._add_namespace(bridge)
        run([IP, "-n", bridge, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0"])
        run([IP, "-n", bridge, "link", "set", "br0", "up"])
        for index, name in enumerate(["snd"] + [f"r{i + 1}" for i in range(receivers)] + ["relay"]):
            ns, address = self.prefix + name, f"{SUBNET}.{index + 2}"
            self._add_namespace(ns)
            run([IP, "-n", bridge, "link", "add", f"p{index}", "type", "veth", "peer", "name", "eth0", "netns", ns])
            run([IP, "-n", bridge, "link", "set", f"p{index}", "master", "br0", "up"])
            run([IP, "-n", ns, "addr", "add", f"{address}/24", "dev", "eth0"])
            run([IP, "-n", ns, "link", "set", "eth0", "up"])
            run([IP, "-n", ns, "link", "set", "lo", "up"])
            run([IP, "-n", ns, "route", "add", "224.0.0.0/4", "dev", "eth0"])
            self.hosts[name] = (ns, address)

    def _add_namespace(self, name):
        self.namespaces.append(name)  # first: a SIGTERM right after `ip` still finds it in `close`
        run([IP, "netns", "add", name])

    def start_pulse(self, channels, ppm=0.0):
        """A private PulseAudio whose null sink `mix` has one channel per receiver, each behind a mono remap sink;
        with `ppm`, under faketime (faketime forks: PulseAudio dies with it, and it with the lab)."""
        self._private_server_env()
        socket_path = self.env["PULSE_SERVER"].removeprefix("unix:")
        loads = [f"module-null-sink sink_name=mix rate={RATE} channels={channels} "
                 f"channel_map={','.join(POSITIONS[:channels])} norewinds=1",
                 f"module-native-protocol-unix socket={socket_path} auth-anonymous=1"]
        loads += [f"module-remap-sink sink_name={SINKS[i]} master=mix channels=1 channel_map=mono "
                  f"master_channel_map={POSITIONS[i]} remix=no" for i in range(channels)]
        argv = ["pulseaudio", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit", "-n", "--use-pid-file=no",
                f"--log-target=file:{self.work}/pulseaudio.log"] + [f"--load={m}" for m in loads]
        if ppm:
            argv = faketime(ppm) + DIES_WITH_LAB + argv
        # Under libfaketime a start now and then hangs before PulseAudio's first line (bench run, 2026-12-03: no
        # log after 10 s): such a start is killed and tried again.
        for attempt in range(3):
            with open(os.path.join(self.work, "pulseaudio.out"), "w") as out:
                server = subprocess.Popen(DIES_WITH_LAB + argv, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                          stdin=subprocess.DEVNULL)
            self.servers.append(server)
            try:
                return self._wait_for_server(SINKS[channels - 1], "pulseaudio", server)
            except RuntimeError as failure:
                if server.poll() is not None or attempt == 2:
                    raise
                print(f"lab: {failure}; starting it again", file=sys.stderr)
                server.kill()
                server.wait()
                self.servers.remove(server)

    def start_pipewire(self, channels):
        """The same devices on a private PipeWire (FIELD-NOTES.md: "PipeWire 0.3.65 headless"): a null sink `mix`
        with one channel per receiver, a mono null sink per receiver whose monitor port is linked onto its channel of
        `mix`, wireplumber without its device monitors (so no D-Bus), and pipewire-pulse on the lab's socket for
        pulsesink, pactl and parec. Links, not module-loopback: a loopback hands each cycle's buffer from its capture
        stream to its playback stream through a queue, and a backlog that forms while a room's stream starts stays
        for good (a room one or two 5.3 ms cycles late in the recording, not in what it played); a link between two
        nodes of one graph moves each cycle's samples in that cycle."""
        config = self._private_server_env()
        socket_path = self.env["PULSE_SERVER"].removeprefix("unix:")
        os.makedirs(os.path.join(config, "pipewire", "pipewire.conf.d"))
        os.makedirs(os.path.join(config, "pipewire", "pipewire-pulse.conf.d"))
        os.makedirs(os.path.join(config, "wireplumber", "main.lua.d"))
        os.makedirs(os.path.join(config, "wireplumber", "bluetooth.lua.d"))
        positions = ["FL", "FR", "FC"][:channels]

        def null_sink(name, positions):
            return f"""{{ factory = adapter args = {{ factory.name = support.null-audio-sink node.name = {name}
            media.class = Audio/Sink audio.rate = {RATE} audio.channels = {len(positions)}
            audio.position = [ {' '.join(positions)} ] monitor.channel-volumes = true }} }}"""

        objects = [null_sink("mix", positions)] + [null_sink(SINKS[i], ["MONO"]) for i in range(channels)]
        with open(os.path.join(config, "pipewire", "pipewire.conf.d", "lab.conf"), "w") as f:
            f.write("context.objects = [\n" + "\n".join(objects) + "\n]\n")
        with open(os.path.join(config, "pipewire", "pipewire-pulse.conf.d", "lab.conf"), "w") as f:
            f.write(f'pulse.properties = {{ server.address = [ "unix:{socket_path}" ] }}\n')
        with open(os.path.join(config, "wireplumber", "main.lua.d", "51-lab.lua"), "w") as f:
            f.write("alsa_monitor.enabled = false\nv4l2_monitor.enabled = false\nlibcamera_monitor.enabled = false\n"
                    'default_access.properties["enable-flatpak-portal"] = false\n')
        with open(os.path.join(config, "wireplumber", "bluetooth.lua.d", "51-lab.lua"), "w") as f:
            f.write("bluez_monitor.enabled = false\n")
        for name in ("pipewire", "wireplumber", "pipewire-pulse"):
            log = open(os.path.join(self.work, f"{name}.log"), "w")
            realtime = REALTIME if name == "pipewire-pulse" else []
            self.servers.append(subprocess.Popen(DIES_WITH_LAB + realtime + [name], env=self.env, stdout=log,
                                                 stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL))
            if name == "pipewire":
                time.sleep(0.3)
        self._wait_for_server(f"{SINKS[channels - 1]}", "pipewire-pulse")
        for i in range(channels):
            link = ["pw-link", f"{SINKS[i]}:monitor_MONO", f"mix:playback_{positions[i]}"]
            for _ in range(50):  # the ports come a moment after the node
                if run(link, check=False, env=self.env).returncode == 0:
                    break
                time.sleep(0.1)
            else:
                run(link, env=self.env)

    def _private_server_env(self):
        """Private HOME, runtime and config directories and the lab's socket in `env`; returns the config dir."""
        home, runtime = os.path.join(self.work, "home"), os.path.join(self.work, "run")
        os.makedirs(home, exist_ok=True)
        os.makedirs(runtime, mode=0o700, exist_ok=True)
        registry = os.environ.get("GST_REGISTRY") or os.path.expanduser(
            f"~/.cache/gstreamer-1.0/registry.{os.uname().machine}.bin")
        config = os.path.join(home, ".config")
        self.env.update(HOME=home, XDG_RUNTIME_DIR=runtime, PIPEWIRE_RUNTIME_DIR=runtime, XDG_CONFIG_HOME=config,
                        PULSE_SERVER=f"unix:{os.path.join(self.work, 'native')}", GST_REGISTRY=registry)
        return config

    def _wait_for_server(self, sink, log, process=None):
        """Until `pactl` lists `sink` (10 s), or `process` (the server) exits; the error quotes what the server
        printed: its log, and for PulseAudio what went to its standard output and error (`{log}.out`)."""
        for _ in range(100):
            r = subprocess.run(["pactl", "list", "short", "sinks"], env=self.env, capture_output=True, text=True)
            if r.returncode == 0 and any(line.split("\t")[1:2] == [sink] for line in r.stdout.splitlines()):
                return
            if process is not None and process.poll() is not None:
                break
            time.sleep(0.1)
        printed = "".join(open(path, errors="replace").read()[-1000:] for path in
                          (f"{self.work}/{log}.log", f"{self.work}/{log}.out") if os.path.exists(path))
        state = f"exited {process.returncode}" if process is not None and process.poll() is not None else \
            "not up after 10 s"
        raise RuntimeError(f"{log} did not start ({state}): " + (printed.strip() or "it printed nothing"))

    def launch(self, host, command, label, env=None, prefix=()):
        """Starts `command` (a shell string) in `host`'s namespace in a process group of its own."""
        ns = self.hosts[host][0]
        log = open(os.path.join(self.work, f"{label}.log"), "w")
        argv = [*DIES_WITH_LAB, IP, "netns", "exec", ns, *prefix, "sh", "-c", "exec " + command]
        p = subprocess.Popen(argv, env={**self.env, **(env or {})}, stdout=log, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        self.processes.append((label, command, p, log.name))
        return p

    def nft(self, host, rules):
        ns = self.hosts[host][0]
        for rule in rules:
            run([IP, "netns", "exec", ns, NFT] + rule)

    def stop(self, process, grace=3.0, log=None):
        """SIGINT to its group (gst-launch -e and yt-gst finish cleanly), then SIGKILL after `grace` seconds; before
        that, where each of its threads is goes to `log` (when given)."""
        if process.poll() is None:
            for sig, wait in ((signal.SIGINT, grace), (signal.SIGKILL, 5)):
                if sig == signal.SIGKILL and log:
                    with open(log, "a") as f:
                        f.write(f"\nstill running {grace:g} s after SIGINT; its threads:\n{thread_stacks(process.pid)}")
                try:
                    os.killpg(process.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    process.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        try:
            os.killpg(process.pid, signal.SIGKILL)  # whatever its children left running
        except (ProcessLookupError, PermissionError):
            pass

    def server_logs(self):
        """The audio servers that exited or logged more than what every lab's server logs (no D-Bus, no PulseAudio
        cookie, run as root), as processes' statuses labelled "server NAME": the exit status and the log's end."""
        logs = {}
        for name in ("pulseaudio", "pipewire", "wireplumber", "pipewire-pulse"):
            path = os.path.join(self.work, f"{name}.log")
            started = [server for server in self.servers if name in server.args]
            if not started or not os.path.exists(path):
                continue
            status = started[-1].poll()
            lines = [line for line in open(path, errors="replace") if not any(
                usual in line for usual in ("session bus", "D-Bus", "cookie", "authentication key", "run as root"))]
            if lines or status is not None:
                logs[f"server {name}"] = {"command": name, "status": status, "log_tail": "".join(lines)[-600:]}
        return logs

    def stall_server(self, ms):
        """Stops the audio server (its first process: PulseAudio, or PipeWire's graph) for `ms` ms."""
        server = self.servers[0]
        server.send_signal(signal.SIGSTOP)
        try:
            time.sleep(ms / 1000)
        finally:
            server.send_signal(signal.SIGCONT)

    def close(self):
        for _, _, p, _ in self.processes:
            self.stop(p, grace=0.5)
        for server in reversed(self.servers):
            server.kill()
            server.wait()
        remove_stale_faketime_files()
        for ns in reversed(self.namespaces):
            subprocess.run([IP, "netns", "del", ns], capture_output=True)


class Recorder:
    """parec of mix.monitor into a file, and where its samples were on CLOCK_MONOTONIC (see the header)."""

    def __init__(self, lab, path, channels):
        self.path, self.channels = path, channels
        self.reads = []  # (CLOCK_MONOTONIC ns of a read, frames recorded up to it)
        self.frames = 0
        argv = REALTIME + ["parec", "-d", "mix.monitor", "--raw", "--format=s16le", f"--rate={RATE}",
                           f"--channels={channels}", "--latency-msec=10"]
        self.process = subprocess.Popen(DIES_WITH_LAB + argv, env=lab.env, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        frame = 2 * self.channels
        pending = b""
        with open(self.path, "wb") as out:
            while True:
                chunk = os.read(self.process.stdout.fileno(), 65536)
                now = time.monotonic_ns()
                if not chunk:
                    break
                out.write(chunk)
                pending += chunk
                whole = len(pending) // frame
                pending = pending[whole * frame :]
                self.frames += whole
                self.reads.append((now, self.frames))

    def wait_for_audio_flow(self, seconds=10):
        deadline = time.monotonic() + seconds
        while self.frames < RATE // 10 and time.monotonic() < deadline:
            time.sleep(0.02)
        if self.frames < RATE // 10:
            raise RuntimeError("parec recorded nothing from mix.monitor")

    def stop(self):
        self.process.terminate()
        self.process.wait(5)
        self.thread.join(5)

    def timeline(self):
        """The recording's `skew.Timeline`: in each second of it, the read with the least t_read - frames / RATE
        (the one that came soonest after its samples) pins its last sample to its instant."""
        best = {}
        for now, frames in self.reads:
            slack = now - frames * 1e9 / RATE
            second = frames // RATE
            if second not in best or slack < best[second][0]:
                best[second] = (slack, frames - 1, now)
        anchors = sorted(anchor for _, *anchor in best.values())
        return skew.Timeline([position for position, _ in anchors], [instant for _, instant in anchors])


def white_noise_wav(path, seconds):
    """48 kHz stereo 16-bit WAV of white noise (-10 dBFS RMS, the same on both channels), deterministic."""
    import numpy as np

    frames = int(seconds * RATE)
    mono = np.clip(np.random.default_rng(78).normal(0, 0.316, frames), -1, 1)
    samples = (mono * 32767).astype("<i2")
    data = np.repeat(samples, 2).tobytes()
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 2, RATE,
                RATE * 4, 4, 16) + b"data" + struct.pack("<I", len(data)) + data)


# MARK: jitter


def delay_forever(receive, send, max_ms):
    """Forwards what `receive()` returns through `send(data)` after 0..max_ms ms each, keeping the order."""
    queue, ready = [], threading.Condition()
    last = [0.0]

    def sender():
        while True:
            with ready:
                while not queue:
                    ready.wait()
                due, data = queue.pop(0)
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            send(data)

    threading.Thread(target=sender, daemon=True).start()
    while True:
        data = receive()
        if not data:
            return
        due = max(time.monotonic() + random.uniform(0, max_ms) / 1000, last[0])  # never overtakes
        last[0] = due
        with ready:
            queue.append((due, data))
            ready.notify()


def relay_udp(group, ports, max_ms):
    """Joins `group` on each port, re-sends every datagram to it after 0..max_ms ms (from the relay namespace)."""
    out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    out.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
    out.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    threads = []
    for port in ports:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((group, port))
        s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(group) + socket.inet_aton("0.0.0.0"))
        t = threading.Thread(target=delay_forever, daemon=True,
                             args=(lambda s=s: s.recv(65536), lambda d, p=port: out.sendto(d, (group, p)), max_ms))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()


def relay_clock(port, sender, max_ms):
    """Answers the sender's clock exchanges (UDP `port`, a yt-gst sender's RTP port + 2) for whoever asks the relay,
    each way after 0..max_ms ms: the relayed stream's receiver takes the relay for its sender and asks it the time."""
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind(("0.0.0.0", port))
    upstreams = {}

    def forward(request):
        data, client = request
        if client not in upstreams:
            upstream = upstreams[client] = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            upstream.connect((sender, port))
            threading.Thread(target=delay_forever, daemon=True,
                             args=(lambda u=upstream: u.recv(65536), lambda d, c=client: server.sendto(d, c),
                                   max_ms)).start()
        upstreams[client].send(data)

    delay_forever(lambda: server.recvfrom(65536), forward, max_ms)


def proxy_tcp(listen_port, target, target_port, max_ms):
    """Accepts on 127.0.0.1:listen_port and pipes each connection to target:target_port, delaying each chunk in
    both directions by 0..max_ms ms (in order)."""
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", listen_port))
    server.listen()
    while True:
        client, _ = server.accept()
        upstream = socket.create_connection((target, target_port))
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=delay_forever, daemon=True,
                             args=(lambda a=a: a.recv(65536), lambda d, b=b: b.sendall(d), max_ms)).start()


# MARK: the run


# The RTP clock rates a stream may have (RFC 3551's and yt-gst's L16/L24 rates; Opus's is 48 kHz).
RTP_RATES = (8_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000, 88_200, 96_000, 192_000)
# How long the sniffer listens for the stream's rate (ns of arrivals after the second packet).
RATE_SPAN_NS = 200_000_000


def sniff(group, port, out):
    """In a receiver's namespace: writes the CLOCK_MONOTONIC ns at which the stream's first sample was sent (the
    receiver's own socket gets its copy too: multicast goes to every socket bound to the port). That is the second
    packet's arrival less the RTP time between the first two: a yt-gst sender's first packet goes out ahead of its
    time on purpose, the others at their time. Arrivals are the kernel's receive times (SO_TIMESTAMPNS, real time,
    moved onto CLOCK_MONOTONIC), not when this script woke up to read them: on a busy machine that came up to
    hundreds of ms later, and sending -> sound read as 17-27 ms, even negative. The RTP time is in the stream's own
    clock rate, the standard one nearest to what the packets after the first arrive at over 200 ms (taken as
    48 kHz, a 44.1 kHz stream's first packet of 694 frames read as 1.28 ms shorter than it is, and its rooms'
    sending -> sound as that much less)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.bind((group, int(port)))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(group) + socket.inet_aton("0.0.0.0"))
    packets = []
    while len(packets) < 3 or packets[-1][0] - packets[1][0] < RATE_SPAN_NS:
        packet, ancillary, _, _ = s.recvmsg(65536, socket.CMSG_SPACE(16))
        # Real time minus monotonic, read right after (both advance together; the difference is what matters).
        arrived = time.monotonic_ns()
        realtime_offset = time.clock_gettime_ns(time.CLOCK_REALTIME) - arrived
        for level, kind, data in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
                seconds, nanoseconds = struct.unpack("qq", data[:16])
                arrived = seconds * 1_000_000_000 + nanoseconds - realtime_offset
        packets.append((arrived, struct.unpack("!I", packet[4:8])[0]))
    (first_arrived, first_rtp), (second_arrived, second_rtp), (last_arrived, last_rtp) = packets[:2] + packets[-1:]
    seen = ((last_rtp - second_rtp) % (1 << 32)) * 1e9 / (last_arrived - second_arrived)
    rate = min(RTP_RATES, key=lambda r: abs(r - seen))
    sent = second_arrived - ((second_rtp - first_rtp) % (1 << 32)) * 1_000_000_000 // rate
    with open(out, "w") as f:
        f.write(f"{sent}\n{sent - first_arrived}\n")  # and how much earlier than that the first packet came


def pairs(values, kind):
    out = {}
    for v in values:
        index, _, amount = v.partition(":")
        out[int(index)] = kind(amount)
    return out


def main():
    p = argparse.ArgumentParser(description="One sender, N receivers, skew between them (see the header).")
    p.add_argument("--sender", action="append", default=[], help="command(s) that start sending, in `snd`")
    p.add_argument("--pre", action="append", default=[], help="command(s) started in `snd` before the receivers")
    p.add_argument("--receiver", action="append", default=[], help="one per receiver (2 or 3)")
    p.add_argument("--seconds", type=float, default=10, help="how long to record after sending starts")
    p.add_argument("--ready-s", type=float, default=1.0, help="from the receivers' start to the sender's")
    p.add_argument("--expect-us", type=float, default=0.0)
    p.add_argument("--bound-us", type=float, default=50.0)
    p.add_argument("--max-lag-ms", type=float, default=100.0)
    p.add_argument("--device-ppm", type=float, default=0.0, help="the audio server's clock this much fast (faketime)")
    p.add_argument("--fast", action="append", default=[], metavar="I:PPM")
    p.add_argument("--loss", action="append", default=[], metavar="I:PCT")
    p.add_argument("--jitter", action="append", default=[], metavar="I:MAXMS")
    p.add_argument("--jitter-proto", choices=["udp", "tcp"], default="udp")
    p.add_argument("--tcp-port", type=int, default=1704, help="the sender's TCP port a jitter proxy forwards")
    p.add_argument("--join", action="append", default=[], metavar="I:SECONDS")
    p.add_argument("--hog", type=int, default=0, metavar="N", help="N CPU hogs (stress-ng --cpu 1) beside the lab, from the start")
    p.add_argument("--stall-server", metavar="AT:MS", help="stop the audio server AT s after sending starts, for MS ms")
    p.add_argument("--server", choices=["pulseaudio", "pipewire"], default="pulseaudio",
                   help="the audio server (PipeWire: its pipewire-pulse answers on the same socket)")
    p.add_argument("--keep", help="copy the recording and logs into this directory")
    p.add_argument("--lags", action="store_true")
    p.add_argument("--warmup-s", type=float, default=5.0,
                   help="the steady statistics (and the steady latency) start this long after sending")
    p.add_argument("--sniff", nargs=3, metavar=("GROUP", "PORT", "OUT"), help=argparse.SUPPRESS)
    p.add_argument("--relay-udp", nargs=3, metavar=("GROUP", "PORTS", "MAXMS"), help=argparse.SUPPRESS)
    p.add_argument("--relay-clock", nargs=3, metavar=("PORT", "SENDER", "MAXMS"), help=argparse.SUPPRESS)
    p.add_argument("--proxy-tcp", nargs=4, metavar=("LISTEN", "HOST", "PORT", "MAXMS"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.sniff:
        sniff(*a.sniff)
        return 0
    if a.relay_udp:
        return relay_udp(a.relay_udp[0], [int(x) for x in a.relay_udp[1].split(",")], float(a.relay_udp[2]))
    if a.relay_clock:
        return relay_clock(int(a.relay_clock[0]), a.relay_clock[1], float(a.relay_clock[2]))
    if a.proxy_tcp:
        return proxy_tcp(int(a.proxy_tcp[0]), a.proxy_tcp[1], int(a.proxy_tcp[2]), float(a.proxy_tcp[3]))
    # SIGTERM ends the run like Ctrl-C: the finally below still kills the processes and deletes the namespaces. A
    # second one (`timeout` passes its own on, beside the sender's) is ignored from the first on: raised again while
    # the run unwinds, it cut the cleaning short and left the namespaces.
    def stopped(*_):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        sys.exit(143)

    signal.signal(signal.SIGTERM, stopped)
    if len(a.receiver) not in (2, 3) or not a.sender:
        p.error("needs --sender and two or three --receiver")
    fast, loss = pairs(a.fast, float), pairs(a.loss, float)
    jitter, join = pairs(a.jitter, float), pairs(a.join, float)

    # Named by the PID, as the namespaces are: whoever kills the lab (SIGKILL: no finally) removes it by that.
    work = tempfile.mkdtemp(prefix=f"yt-gst-multiroom.{os.getpid()}.")
    lab = None
    report = {}
    try:
        lab = Lab(len(a.receiver), work)
        if a.server == "pipewire":
            lab.start_pipewire(len(a.receiver))
        else:
            lab.start_pulse(len(a.receiver), a.device_ppm)
        sender_address = lab.hosts["snd"][1]
        noise = os.path.join(work, "noise.wav")
        if any("{noise}" in c for c in a.sender + a.pre + a.receiver):
            white_noise_wav(noise, a.seconds + 10)
        this = os.path.abspath(__file__)
        # Faults first, so that nothing passes before them.
        for i, pct in loss.items():
            lab.nft(f"r{i}", [["add", "table", "inet", "ytlab"],
                              ["add", "chain", "inet", "ytlab", "input", "{", "type", "filter", "hook", "input",
                               "priority", "0", ";", "}"],
                              ["add", "rule", "inet", "ytlab", "input", "iifname", "eth0", "meta", "l4proto",
                               "{", "udp", ",", "tcp", "}", "numgen", "random", "mod", "10000", "<",
                               str(int(pct * 100)), "drop"]])
        receiver_address = {}
        for i, max_ms in jitter.items():
            if a.jitter_proto == "udp":
                lab.launch("relay", f"python3 {this} --relay-udp {GROUP} {PORT},{PORT + 1} {max_ms}", "relay")
                lab.launch("relay", f"python3 {this} --relay-clock {PORT + 2} {sender_address} {max_ms}", "relay-clock")
                relay_ip = lab.hosts["relay"][1]
                for j in range(1, len(a.receiver) + 1):
                    source = sender_address if j == i else relay_ip
                    lab.nft(f"r{j}", [["add", "table", "inet", "ytjit"],
                                      ["add", "chain", "inet", "ytjit", "input", "{", "type", "filter", "hook",
                                       "input", "priority", "-1", ";", "}"],
                                      ["add", "rule", "inet", "ytjit", "input", "ip", "saddr", source, "ip", "daddr",
                                       GROUP, "drop"]])
            else:
                lab.launch(f"r{i}", f"python3 {this} --proxy-tcp {a.tcp_port} {sender_address} {a.tcp_port} {max_ms}",
                           f"proxy{i}")
                receiver_address[i] = "127.0.0.1"

        def fill(command, i=None):
            return command.format(group=GROUP, port=PORT, sender=receiver_address.get(i, sender_address),
                                  sink=SINKS[i - 1] if i else "", index=i or 0, noise=noise,
                                  seconds=a.seconds, work=work)

        recorder = Recorder(lab, os.path.join(work, "mix.raw"), len(a.receiver))
        recorder.wait_for_audio_flow()
        for n in range(a.hog):
            lab.launch("snd", "stress-ng --cpu 1 --quiet", f"hog{n + 1}")
        for n, command in enumerate(a.pre):
            lab.launch("snd", fill(command), f"pre{n + 1}")
        if a.pre:
            time.sleep(1.0)

        def start_receiver(i):
            prefix = ()
            if i in fast:
                prefix = faketime(fast[i])
            return lab.launch(f"r{i}", fill(a.receiver[i - 1], i), f"receiver{i}", env={"PULSE_SINK": SINKS[i - 1]},
                              prefix=prefix)

        first_packet = os.path.join(work, "first-packet")
        lab.launch("r1", f"python3 {this} --sniff {GROUP} {PORT} {first_packet}", "sniffer")
        for i in range(1, len(a.receiver) + 1):
            if i not in join:
                start_receiver(i)
        time.sleep(a.ready_s)
        for n, command in enumerate(a.sender):
            send_ns = time.monotonic_ns()
            lab.launch("snd", fill(command), f"sender{n + 1}")
        if a.stall_server:
            at, ms = (float(v) for v in a.stall_server.split(":"))
            stall = threading.Timer(max(0.0, send_ns / 1e9 + at - time.monotonic()), lab.stall_server, (ms,))
            stall.daemon = True
            stall.start()
        join_ns, joined = None, {}
        late = sorted(join.items(), key=lambda kv: kv[1])
        for i, seconds in late:
            time.sleep(max(0.0, send_ns / 1e9 + seconds - time.monotonic()))
            join_ns = joined[i] = time.monotonic_ns()
            start_receiver(i)
        time.sleep(max(0.0, send_ns / 1e9 + a.seconds - time.monotonic()))
        recorder.stop()
        statuses = {}
        for label, command, process, log in lab.processes:
            lab.stop(process, log=log)
            # A process killed after its SIGINT: the whole of where its threads were.
            tail = 600 if process.returncode != -signal.SIGKILL else 6000
            statuses[label] = {"command": command, "status": process.returncode,
                               "log_tail": open(log, errors="replace").read()[-tail:]}
        statuses.update(lab.server_logs())
        data = skew.read(recorder.path, "s16le", len(a.receiver))
        timeline = recorder.timeline()
        report = skew.analyse_receivers(data, RATE, a.expect_us, a.bound_us, a.max_lag_ms, timeline, send_ns,
                                        join_ns, a.lags, a.warmup_s)
        report["device"] = {"set_ppm": a.device_ppm, "measured_ppm": timeline.ppm(since_ns=send_ns)}
        # Sending to sound in the steady state: from the first packet on the wire (RTP senders) or, without one
        # (Snapcast's TCP), from the start of sending.
        start_ns, reference = send_ns, "start of sending"
        if os.path.exists(first_packet):
            sent_ns, lead_ns = (int(line) for line in open(first_packet).read().split())
            start_ns, reference = sent_ns, "first packet"
            report["first_packet_lead_ms"] = round(lead_ns / 1e6, 3)
        if os.path.exists(noise):
            source = skew.read(noise, "s16le", 2, header=44)[:, 0]
            track = skew.latency_track(data, source, timeline, start_ns, send_ns + a.warmup_s * 1e9)
            report["steady_latency_ms"] = {name: held and held["ms"] for name, held in track.items()}
            report["steady_latency"] = track
            report["steady_latency_from"] = reference
            report["first_sample_ms"] = skew.first_samples(data, source, RATE, report["first_sound_s"])
            report["start_skip_ms"] = skew.start_skips(data, source, RATE, report["first_sound_s"],
                                                       report["first_sample_ms"])
            report["resume_jumps_ms"] = skew.resume_jumps(data, source, RATE, report["first_sample_ms"])
        report["lab"] = {"seconds_recorded": round(len(data) / RATE, 3), "processes": statuses}
        # A late receiver's latency counts from its own start.
        for i, start_ns in joined.items():
            first = report["first_sound_s"].get(["left", "right", "center"][i - 1])
            report["lab"][f"join_to_sound_ms_{i}"] = (
                None if first is None else round((timeline.ns(first * RATE) - start_ns) / 1e6, 1))
        if a.keep:
            os.makedirs(a.keep, exist_ok=True)
            for name in os.listdir(work):
                if name.endswith((".log", ".raw")):
                    os.replace(os.path.join(work, name), os.path.join(a.keep, name))
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # nor does one that comes as a run ends by itself
        if lab:
            lab.close()
        subprocess.run(["rm", "-rf", work])
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
