#!/usr/bin/env python3
# yt-gst — the rooms lab: a control service with its rooms, Snapcast's or ours, in a private network namespace of
# its own (loopback only, multicast on lo), so Snapcast's fixed ports (1704, 1705, 1780) and ours are free whatever
# else runs on the machine. Used by Tests/CLITests/SnapcastInteropTests.swift and scripts/bench_rooms.py.
#
#   - snapcast: Debian's snapserver 0.26 (private datadir; a pipe source `tone` fed with a 440 Hz tone) and N
#     snapclients (--hostID roomI, --player pulse: the private PulseAudio of scripts/with-pulseaudio.sh, whose unix
#     socket any namespace reaches).
#   - yt-gst: `yt-gst stream TONE... --to rtp://239.255.79.1:5004 --iface lo --control PORT` and N
#     `yt-gst receive rtp://@239.255.79.1:5004 --iface lo --name roomI --control-port PORT`, each with its own
#     XDG_STATE_HOME (where the room keeps its id), playing to the same PulseAudio.
#
# Commands:
#   check      runs Tests/interop/snapcast_client_check.py's checks against the peer (in this process, so that
#              --restart can restart the lab's last receiver between them); its lines, and its exit status.
#   two-hubs   (yt-gst) two senders, each a hub with its own rooms: each hub lists its rooms and no other; a room's
#              name, volume and delay set through its hub survive a restart of the receiver, then of the sender: at
#              the hub (Server.GetStatus) and at the room (its --input-ipc-server: volume, delay).
#
# Every process runs under `setpriv --pdeathsig KILL` in a session of its own, is killed by its PID at the end and
# dies with the lab however the lab ends; the namespace (`ytn<PID>i`, so that the tests' stale-lab clean-up knows
# it) is deleted at the end. SIGTERM ends the lab through the same clean-up.
#
# Usage: rooms_lab.py check --peer snapcast|yt-gst [--binary PATH] [--receivers N] [--restart] [--stream-control]
#                           [--timeout S]
#        rooms_lab.py two-hubs --binary PATH [--timeout S]
import argparse
import asyncio
import ctypes
import json
import math
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import snapcast_client_check as check  # noqa: E402

RATE = 48_000
TONE_HZ, TONE_AMPLITUDE, TONE_SECONDS = 440, 0.5, 10
GROUPS = ["239.255.79.1", "239.255.79.2"]
RTP_PORT = 5004
CLONE_NEWNET = 0x40000000


class LabFailed(Exception):
    """The lab could not be set up (a process died, a port never answered); the message says which."""


def tool(name):
    for d in ("/usr/sbin", "/sbin", "/usr/bin", "/bin"):
        if os.access(os.path.join(d, name), os.X_OK):
            return os.path.join(d, name)
    return name


IP, SETPRIV = tool("ip"), tool("setpriv")


def write_tone(path, seconds=TONE_SECONDS, amplitude=TONE_AMPLITUDE):
    """A 48 kHz stereo 16-bit WAV of a sine; a whole number of periods, so that the file repeated has no seam."""
    frames = seconds * RATE
    one = bytearray()
    for i in range(RATE // 40):  # 1/40 s = 11 periods of 440 Hz exactly
        v = int(round(32767 * amplitude * math.sin(2 * math.pi * TONE_HZ * i / RATE)))
        one += struct.pack("<hh", v, v)
    body = bytes(one) * (frames // (RATE // 40))
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", 36 + len(body)) + b"WAVE")
        f.write(b"fmt " + struct.pack("<IHHIIHH", 16, 1, 2, RATE, RATE * 4, 4, 16))
        f.write(b"data" + struct.pack("<I", len(body)) + body)


class Lab:
    """The namespace (this process moves into it) and every process started in it."""

    def __init__(self, keep=None):
        self.work = keep or tempfile.mkdtemp(prefix="yt-gst-rooms-")
        os.makedirs(self.work, exist_ok=True)
        self.keep, self.children, self.namespace = keep, [], f"ytn{os.getpid()}i"
        subprocess.run([IP, "netns", "add", self.namespace], check=True, capture_output=True, timeout=10)
        fd = os.open(f"/var/run/netns/{self.namespace}", os.O_RDONLY)
        try:
            if ctypes.CDLL(None, use_errno=True).setns(fd, CLONE_NEWNET) != 0:
                raise LabFailed(f"setns: {os.strerror(ctypes.get_errno())}")
        finally:
            os.close(fd)
        for argv in (["link", "set", "lo", "up"], ["link", "set", "lo", "multicast", "on"],
                     ["route", "add", "224.0.0.0/4", "dev", "lo"]):
            subprocess.run([IP] + argv, check=True, capture_output=True, timeout=10)

    def spawn(self, argv, log, env=None):
        """A child in a session of its own that dies with the lab; its output in work/LOG."""
        with open(os.path.join(self.work, log), "ab") as out:
            p = subprocess.Popen([SETPRIV, "--pdeathsig", "KILL"] + argv, stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=out, start_new_session=True, env=dict(os.environ, **(env or {})))
        p.log = os.path.join(self.work, log)
        self.children.append(p)
        return p

    def kill(self, p):
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def close(self):
        for p in self.children:
            self.kill(p)
        subprocess.run([IP, "netns", "del", self.namespace], capture_output=True, timeout=10)
        if not self.keep:
            shutil.rmtree(self.work, ignore_errors=True)

    def tail(self, p, lines=8):
        try:
            with open(p.log, errors="replace") as f:
                return " | ".join(f.read().splitlines()[-lines:])
        except OSError:
            return ""


def rpc(port, method, params=None, timeout=2.0):
    """One JSON-RPC call on a fresh TCP connection to 127.0.0.1:PORT; the result (LabFailed on an error)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(json.dumps({"id": 1, "jsonrpc": "2.0", "method": method, "params": params or {}}).encode() + b"\r\n")
        data, deadline = b"", time.monotonic() + timeout
        while True:
            for line in data.split(b"\n")[:-1]:
                msg = json.loads(line)
                if msg.get("id") == 1:
                    if "error" in msg:
                        raise LabFailed(f"{method}: {msg['error']}")
                    return msg["result"]
            if time.monotonic() > deadline:
                raise LabFailed(f"{method}: no reply within {timeout:g} s")
            chunk = s.recv(1 << 16)
            if not chunk:
                raise LabFailed(f"{method}: connection closed")
            data += chunk


def clients_of(status):
    return [c for g in status["server"]["groups"] for c in g["clients"]]


def wait_connected(port, want, processes, lab, timeout=30):
    """Until Server.GetStatus lists `want` connected clients and every stream playing; LabFailed (with the logs) if a process died first."""
    deadline, last = time.monotonic() + timeout, "no answer"
    while time.monotonic() < deadline:
        for p in processes:
            if p.poll() is not None:
                raise LabFailed(f"{p.args[3]} exited {p.returncode}: {lab.tail(p)}")
        try:
            status = rpc(port, "Server.GetStatus")
            connected = [c for c in clients_of(status) if c["connected"]]
            playing = all(s["status"] == "playing" for s in status["server"]["streams"])
            if len(connected) >= want and playing:
                return connected
            last = f"{len(connected)} connected, streams {[s['status'] for s in status['server']['streams']]}"
        except (OSError, LabFailed, ValueError) as e:
            last = str(e)
        time.sleep(0.2)
    raise LabFailed(f"port {port}: not {want} connected client(s) within {timeout} s ({last}); logs: "
                    + " || ".join(f"{os.path.basename(p.log)}: {lab.tail(p, 4)}" for p in processes))


class SnapcastPeer:
    """snapserver 0.26 reading the tone from a pipe, and snapclients playing it to PulseAudio."""

    name = "snapcast"

    def __init__(self, lab, tone, receivers, port=1705, buffer_ms=1000):
        self.lab, self.port, self.receivers = lab, port, []
        data = tempfile.mkdtemp(prefix="snapserver-", dir=lab.work)
        fifo = os.path.join(data, "snapfifo")
        os.mkfifo(fifo)
        self.server = lab.spawn(["snapserver", "-c", "/dev/null", f"--server.datadir={data}",
                                 f"--tcp.port={port}", f"--http.port={port + 75}", f"--stream.buffer={buffer_ms}",
                                 f"--stream.source=pipe://{fifo}?name=tone&sampleformat=48000:16:2",
                                 "--logging.sink=stderr"], "snapserver.log")
        self.feed = lab.spawn(["sh", "-c", f'while :; do tail -c +45 "$0"; done > "{fifo}"', tone], "feed.log")
        self.receivers = [self.start_receiver(i) for i in range(1, receivers + 1)]
        wait_connected(port, receivers, [self.server] + self.receivers, lab)

    def start_receiver(self, index):
        return self.lab.spawn(["snapclient", "-h", "127.0.0.1", "--player", "pulse", "--hostID", f"room{index}",
                               "--logsink", "stderr"], f"receiver{index}.log")

    def restart(self, index):
        self.lab.kill(self.receivers[index - 1])
        time.sleep(0.5)
        self.receivers[index - 1] = self.start_receiver(index)

    def close(self):
        for p in [self.server, self.feed] + self.receivers:
            self.lab.kill(p)


class YtGstPeer:
    """`yt-gst stream --control` sending the tone (repeated) by multicast on lo, and `yt-gst receive` rooms."""

    name = "yt-gst"

    def __init__(self, lab, binary, tone, receivers, port=1705, group=GROUPS[0], names=None, wait=True, control=True):
        self.lab, self.binary, self.tone, self.port, self.group = lab, binary, tone, port, group
        self.control = ["--control", str(port)] if control else []
        self.names = names or [f"room{i}" for i in range(1, receivers + 1)]
        self.sender = self.start_sender()
        self.receivers = [self.start_receiver(i) for i in range(1, len(self.names) + 1)]
        if wait:
            self.wait()

    def wait(self):
        wait_connected(self.port, len(self.names), [self.sender] + self.receivers, self.lab)

    def start_sender(self):
        state = os.path.join(self.lab.work, f"hub-{self.port}-state")
        return self.lab.spawn([self.binary, "stream", *[self.tone] * 60, "--to", f"rtp://{self.group}:{RTP_PORT}",
                               "--iface", "lo", *self.control, "-q"], f"sender-{self.port}.log",
                              env={"XDG_STATE_HOME": state})

    def start_receiver(self, index):
        name = self.names[index - 1]
        return self.lab.spawn([self.binary, "receive", f"rtp://@{self.group}:{RTP_PORT}", "--iface", "lo",
                               "--name", name, "--control-port", str(self.port), "--input-ipc-server",
                               self.ipc_path(name), "-q"], f"receiver-{name}.log",
                              env={"XDG_STATE_HOME": os.path.join(self.lab.work, f"state-{name}")})

    def restart(self, index):
        self.lab.kill(self.receivers[index - 1])
        time.sleep(0.5)
        self.receivers[index - 1] = self.start_receiver(index)

    def ipc_path(self, name):
        return os.path.join(self.lab.work, f"ipc-{name}.sock")

    def room_property(self, name, prop, timeout=2.0):
        """A property of the room's own session, read over its mpv-style IPC socket (what it applied)."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(timeout)
            s.connect(self.ipc_path(name))
            s.sendall(json.dumps({"command": ["get_property", prop], "request_id": 1}).encode() + b"\n")
            data = b""
            while True:
                for line in data.split(b"\n")[:-1]:
                    msg = json.loads(line)
                    if msg.get("request_id") == 1:
                        return msg.get("data")
                chunk = s.recv(1 << 16)
                if not chunk:
                    raise LabFailed(f"{name}'s IPC socket closed")
                data += chunk

    def restart_sender(self):
        self.lab.kill(self.sender)
        time.sleep(0.5)
        self.sender = self.start_sender()

    def close(self):
        for p in [self.sender] + self.receivers:
            self.lab.kill(p)


def run_check(lab, a):
    tone = os.path.join(lab.work, "tone.wav")
    write_tone(tone)
    if a.peer == "snapcast":
        peer = SnapcastPeer(lab, tone, a.receivers)
    else:
        peer = YtGstPeer(lab, a.binary, tone, a.receivers)
    print(f"lab: {peer.name} on 127.0.0.1:{peer.port} with {a.receivers} receiver(s) in namespace {lab.namespace}",
          flush=True)
    restart = (lambda: peer.restart(a.receivers)) if a.restart else None
    failures = asyncio.run(check.main_checks("127.0.0.1", peer.port, a.receivers, a.stream_control, restart,
                                             a.timeout))
    print("every check passed" if not failures else f"{failures} check(s) failed", flush=True)
    return 1 if failures else 0


async def listed_names(port, timeout):
    """The connected clients' names as the library sees them (friendly_name), through a fresh connection."""
    server = await asyncio.wait_for(check.snapcast.control.create_server(asyncio.get_running_loop(), "127.0.0.1",
                                                                         port), timeout)
    try:
        return sorted(c.friendly_name for c in server.clients if c.connected)
    finally:
        server.stop()


def config_of(port, name):
    """(name, volume percent, latency, connected) of the room called `name` at the hub on PORT."""
    for c in clients_of(rpc(port, "Server.GetStatus")):
        if c["config"]["name"] == name or (not c["config"]["name"] and c["host"]["name"] == name):
            return c["id"], (c["config"]["name"], c["config"]["volume"]["percent"], c["config"]["latency"],
                             c["connected"])
    raise LabFailed(f"hub {port} lists no room {name}")


def run_two_hubs(lab, a):
    """Two hubs, each listing its own rooms; a room's config through a receiver restart and a sender restart."""
    tone = os.path.join(lab.work, "tone.wav")
    write_tone(tone)
    first = YtGstPeer(lab, a.binary, tone, 0, port=1705, group=GROUPS[0], names=["kitchen", "bath"], wait=False)
    second = YtGstPeer(lab, a.binary, tone, 0, port=1805, group=GROUPS[1], names=["garage"], wait=False)
    first.wait()
    second.wait()
    failures = 0

    def line(ok, name, detail):
        nonlocal failures
        failures += not ok
        print(f"{'ok' if ok else 'FAIL'} {name}: {detail}", flush=True)

    for peer, want in ((first, ["bath", "kitchen"]), (second, ["garage"])):
        names = asyncio.run(listed_names(peer.port, a.timeout))
        line(names == want, f"hub-{peer.port}-lists-its-rooms", f"{names} (expected {want})")
    ident, _ = config_of(first.port, "kitchen")
    rpc(first.port, "Client.SetName", {"id": ident, "name": "Küche"})
    rpc(first.port, "Client.SetVolume", {"id": ident, "volume": {"percent": 37, "muted": False}})
    rpc(first.port, "Client.SetLatency", {"id": ident, "latency": 23})
    # At the hub: (name, percent, latency, connected); at the room (its IPC, volume in whole percent of unity):
    # volume 100 × (37/100)³ = 5 and delay 23 ms.
    want, applied = ("Küche", 37, 23, True), (round(100 * 0.37 ** 3), 23)
    for what, restart in (("receiver", lambda: first.restart(1)), ("sender", first.restart_sender)):
        restart()
        deadline, got, room = time.monotonic() + a.timeout * 6, None, None
        while time.monotonic() < deadline and (got, room) != (want, applied):
            time.sleep(0.3)
            try:
                got = next((cfg for c, cfg in [config_of(first.port, "Küche")] if c == ident), None)
                room = (round(first.room_property("kitchen", "volume")), first.room_property("kitchen", "delay"))
            except (OSError, LabFailed, ValueError, TypeError):
                continue
        line((got, room) == (want, applied), f"{what}-restart-keeps-name-volume-delay",
             f"{ident}: (name, volume, latency, connected) {got} at the hub, (volume, delay) {room} at the room, "
             f"after restarting the {what} (expected {want}, {applied})")
    names = asyncio.run(listed_names(second.port, a.timeout))
    line(names == ["garage"], "other-hub-unchanged", f"{names}")
    print("every check passed" if not failures else f"{failures} check(s) failed", flush=True)
    return 1 if failures else 0


def stopped(*_):
    print("rooms_lab: stopped by SIGTERM; every process killed, the namespace deleted", file=sys.stderr)
    raise SystemExit(143)


def main():
    p = argparse.ArgumentParser(description="A control service and its rooms in a private namespace.")
    p.add_argument("command", choices=["check", "two-hubs"])
    p.add_argument("--peer", choices=["snapcast", "yt-gst"], default="yt-gst")
    p.add_argument("--binary", help="the yt-gst binary (peer yt-gst)")
    p.add_argument("--receivers", type=int, default=2)
    p.add_argument("--restart", action="store_true", help="check: restart the last receiver between the checks")
    p.add_argument("--stream-control", action="store_true", help="check: also Stream.Control pause and play")
    p.add_argument("--timeout", type=float, default=5.0)
    p.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (logs)")
    a = p.parse_args()
    if (a.peer == "yt-gst" or a.command == "two-hubs") and not a.binary:
        p.error("--binary is needed for yt-gst")
    signal.signal(signal.SIGTERM, stopped)
    lab = Lab(a.keep)
    try:
        return (run_check if a.command == "check" else run_two_hubs)(lab, a)
    except LabFailed as e:
        print(f"rooms_lab: {e}", file=sys.stderr)
        return 3
    finally:
        lab.close()


if __name__ == "__main__":
    sys.exit(main())
