#!/usr/bin/env python3
# yt-gst — the multi-room lab: one sender and N receivers in network namespaces, each receiver playing into one
# channel of a PulseAudio null sink, recorded and analysed by scripts/skew.py. Used by the Swift test
# (Tests/TestSupport/MultiRoomLab.swift) and by the bench (scripts/bench.py --multiroom), so both measure the same way.
#
# The lab (needs root, iproute2, nftables, pulseaudio, parec; faketime for --fast):
#   - a private PulseAudio with one null sink `mix` (48 kHz, norewinds=1, one channel per receiver) and mono remap
#     sinks `toL`, `toR` (and `toC`) onto its channels, reachable from every namespace through its unix socket;
#   - namespaces `snd` (10.78.0.2) and `r1`, `r2`, ... (10.78.0.3, ...) on one bridge, with a multicast route;
#   - parec records mix.monitor from the start; the instant of its first sample on CLOCK_MONOTONIC is bounded from
#     the reads (sample n has been captured before the read that returns it: t0 <= t_read - n/rate, the minimum over
#     all reads, tight to the monitor's 10 ms latency);
#   - order: the --pre commands in `snd` (a server), then the receivers (late ones later), then after --ready-s the
#     --sender commands in `snd`; the instant the last sender command starts is "sending" for the latency.
#
# Every process the lab starts dies with it, however it ends (even SIGKILL, which no `finally` sees): each is started
# under `setpriv --pdeathsig KILL` (the kernel kills it when the lab's process dies). A killed lab leaves its
# namespaces (`ytn<PID>m...`), and any grandchild (faketime's child): its caller removes those (MultiRoomLab.swift
# finds the processes by a marker in their environment).
#
# Commands are shell strings (run as `sh -c 'exec ...'` in their own process group, which is killed by its PID at the
# end) with placeholders: {group} {port} (the multicast stream), {sender} (the sender's address as the receiver
# reaches it: a jitter proxy's for a jittered TCP receiver), {sink} (the receiver's remap sink, also in PULSE_SINK),
# {index} (1-based), {noise} (a 48 kHz stereo 16-bit WAV of white noise, identical channels, seconds + 10 long),
# {seconds}, {work} (the lab's scratch directory).
#
# Faults per receiver I (1-based): --fast I:PPM (faketime -m -f "-OFF xRATE" with OFF = realtime - monotonic, so that
# CLOCK_MONOTONIC stays where it is and runs PPM fast), --loss I:PCT (nftables drops PCT % of incoming UDP and TCP
# packets at random), --jitter I:MAXMS (0..MAXMS ms of random delay, in order, on its path: for UDP a relay
# namespace re-sends the multicast, the receiver drops the sender's copies and the others the relay's; for TCP a
# proxy in the receiver's namespace; which one is --jitter-proto), --join I:SECONDS (started that long after sending).
#
# Prints one JSON object: the skew report (scripts/skew.py's `analyse_receivers`: receiver 1 = left, receiver 2 =
# right, receiver 3 = center with every pair) plus "lab": the commands run, their exit statuses and log tails, and
# for a late receiver I "join_to_sound_ms_I" (its start → its first sound).
#
# Usage: scripts/multiroom-lab.py --sender CMD [--pre CMD] --receiver CMD --receiver CMD [--seconds S]
#            [--expect-us E] [--bound-us B] [--fast I:PPM] [--loss I:PCT] [--jitter I:MAXMS] [--join I:SECONDS]
#            [--keep DIR] [--lags]
import argparse
import json
import os
import random
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


def run(argv, check=True):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
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
        self.pulse = None
        self.env = dict(os.environ)
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
        run([IP, "netns", "add", name])
        self.namespaces.append(name)

    def start_pulse(self, channels):
        """A private PulseAudio whose null sink `mix` has one channel per receiver, each behind a mono remap sink."""
        home, runtime = os.path.join(self.work, "home"), os.path.join(self.work, "run")
        os.makedirs(home, exist_ok=True)
        os.makedirs(runtime, mode=0o700, exist_ok=True)
        socket_path = os.path.join(self.work, "native")
        registry = os.environ.get("GST_REGISTRY") or os.path.expanduser(
            f"~/.cache/gstreamer-1.0/registry.{os.uname().machine}.bin")
        self.env.update(HOME=home, XDG_RUNTIME_DIR=runtime, XDG_CONFIG_HOME=os.path.join(home, ".config"),
                        PULSE_SERVER=f"unix:{socket_path}", GST_REGISTRY=registry)
        loads = [f"module-null-sink sink_name=mix rate={RATE} channels={channels} "
                 f"channel_map={','.join(POSITIONS[:channels])} norewinds=1",
                 f"module-native-protocol-unix socket={socket_path} auth-anonymous=1"]
        loads += [f"module-remap-sink sink_name={SINKS[i]} master=mix channels=1 channel_map=mono "
                  f"master_channel_map={POSITIONS[i]} remix=no" for i in range(channels)]
        argv = ["pulseaudio", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit", "-n", "--use-pid-file=no",
                f"--log-target=file:{self.work}/pulseaudio.log"] + [f"--load={m}" for m in loads]
        self.pulse = subprocess.Popen(DIES_WITH_LAB + argv, env=self.env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
        for _ in range(100):
            if subprocess.run(["pactl", "info"], env=self.env, capture_output=True).returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError("PulseAudio did not start: " + open(f"{self.work}/pulseaudio.log").read()[-2000:])

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

    def stop(self, process, grace=3.0):
        """SIGINT to its group (gst-launch -e and yt-gst finish cleanly), then SIGKILL after `grace` seconds."""
        if process.poll() is None:
            for sig, wait in ((signal.SIGINT, grace), (signal.SIGKILL, 5)):
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

    def close(self):
        for _, _, p, _ in self.processes:
            self.stop(p, grace=0.5)
        if self.pulse:
            self.pulse.kill()
            self.pulse.wait()
        for ns in reversed(self.namespaces):
            subprocess.run([IP, "netns", "del", ns], capture_output=True)


class Recorder:
    """parec of mix.monitor into a file, with the CLOCK_MONOTONIC instant of its first sample (see the header)."""

    def __init__(self, lab, path, channels):
        self.path, self.channels = path, channels
        self.t0_ns = None
        self.frames = 0
        argv = ["parec", "-d", "mix.monitor", "--raw", "--format=s16le", f"--rate={RATE}", f"--channels={channels}",
                "--latency-msec=10"]
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
                bound = now - (self.frames - 1) * 1_000_000_000 // RATE
                self.t0_ns = bound if self.t0_ns is None else min(self.t0_ns, bound)

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


def sniff(group, port, out):
    """In a receiver's namespace: writes the CLOCK_MONOTONIC ns at which the first packet to GROUP:PORT arrived (the
    receiver's own socket gets its copy too: multicast goes to every socket bound to the port)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((group, int(port)))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(group) + socket.inet_aton("0.0.0.0"))
    s.recv(65536)
    arrived = time.monotonic_ns()
    with open(out, "w") as f:
        f.write(str(arrived))


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
    p.add_argument("--fast", action="append", default=[], metavar="I:PPM")
    p.add_argument("--loss", action="append", default=[], metavar="I:PCT")
    p.add_argument("--jitter", action="append", default=[], metavar="I:MAXMS")
    p.add_argument("--jitter-proto", choices=["udp", "tcp"], default="udp")
    p.add_argument("--tcp-port", type=int, default=1704, help="the sender's TCP port a jitter proxy forwards")
    p.add_argument("--join", action="append", default=[], metavar="I:SECONDS")
    p.add_argument("--keep", help="copy the recording and logs into this directory")
    p.add_argument("--lags", action="store_true")
    p.add_argument("--warmup-s", type=float, default=5.0,
                   help="the steady statistics (and the steady latency) start this long after sending")
    p.add_argument("--sniff", nargs=3, metavar=("GROUP", "PORT", "OUT"), help=argparse.SUPPRESS)
    p.add_argument("--relay-udp", nargs=3, metavar=("GROUP", "PORTS", "MAXMS"), help=argparse.SUPPRESS)
    p.add_argument("--proxy-tcp", nargs=4, metavar=("LISTEN", "HOST", "PORT", "MAXMS"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.sniff:
        sniff(*a.sniff)
        return 0
    if a.relay_udp:
        return relay_udp(a.relay_udp[0], [int(x) for x in a.relay_udp[1].split(",")], float(a.relay_udp[2]))
    if a.proxy_tcp:
        return proxy_tcp(int(a.proxy_tcp[0]), a.proxy_tcp[1], int(a.proxy_tcp[2]), float(a.proxy_tcp[3]))
    # SIGTERM ends the run like Ctrl-C: the finally below still kills the processes and deletes the namespaces.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if len(a.receiver) not in (2, 3) or not a.sender:
        p.error("needs --sender and two or three --receiver")
    fast, loss = pairs(a.fast, float), pairs(a.loss, float)
    jitter, join = pairs(a.jitter, float), pairs(a.join, float)

    work = tempfile.mkdtemp(prefix="yt-gst-multiroom.")
    lab = Lab(len(a.receiver), work)
    report = {}
    try:
        lab.start_pulse(len(a.receiver))
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
        for n, command in enumerate(a.pre):
            lab.launch("snd", fill(command), f"pre{n + 1}")
        if a.pre:
            time.sleep(1.0)

        def start_receiver(i):
            prefix = ()
            if i in fast:
                offset = (time.clock_gettime_ns(time.CLOCK_REALTIME) - time.monotonic_ns()) / 1e9
                prefix = ("faketime", "-m", "-f", f"-{offset:.6f} x{1 + fast[i] / 1e6:.6f}")
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
            lab.stop(process)
            statuses[label] = {"command": command, "status": process.returncode,
                               "log_tail": open(log, errors="replace").read()[-600:]}
        data = skew.read(recorder.path, "s16le", len(a.receiver))
        report = skew.analyse_receivers(data, RATE, a.expect_us, a.bound_us, a.max_lag_ms, recorder.t0_ns, send_ns,
                                        join_ns, a.lags, a.warmup_s)
        # Sending to sound in the steady state: from the first packet on the wire (RTP senders) or, without one
        # (Snapcast's TCP), from the start of sending.
        start_ns, reference = send_ns, "start of sending"
        if os.path.exists(first_packet):
            start_ns, reference = int(open(first_packet).read()), "first packet"
        if os.path.exists(noise):
            source = skew.read(noise, "s16le", 2, header=44)[:, 0]
            report["steady_latency_ms"] = skew.steady_latency(data, source, RATE, recorder.t0_ns, start_ns,
                                                              (send_ns - recorder.t0_ns) / 1e9 + a.warmup_s)
            report["steady_latency_from"] = reference
        report["lab"] = {"seconds_recorded": round(len(data) / RATE, 3), "processes": statuses}
        # A late receiver's latency counts from its own start.
        for i, start_ns in joined.items():
            first = report["first_sound_s"].get(["left", "right", "center"][i - 1])
            report["lab"][f"join_to_sound_ms_{i}"] = (
                None if first is None else round((recorder.t0_ns + first * 1e9 - start_ns) / 1e6, 1))
        if a.keep:
            os.makedirs(a.keep, exist_ok=True)
            for name in os.listdir(work):
                if name.endswith((".log", ".raw")):
                    os.replace(os.path.join(work, name), os.path.join(a.keep, name))
    finally:
        lab.close()
        subprocess.run(["rm", "-rf", work])
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
