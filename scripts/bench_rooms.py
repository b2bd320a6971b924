#!/usr/bin/env python3
# yt-gst — the rooms rows of the benchmark (scripts/bench-rooms.sh runs this inside the private PulseAudio): the
# control service on the sender against Snapcast 0.26, both in Tests/interop/rooms_lab.py's private namespace.
#
#   - call → audible effect: one room plays a steady 440 Hz tone (the same WAV: yt-gst streams it, snapserver reads
#     it from its pipe); `Client.SetVolume` 100 → 30 % (then 30 → 100 %) is sent on an open control connection,
#     and the room's output is recorded from the null sink's monitor (bench_control.Monitor: parec with a 5 ms
#     latency, each frame's render time on the monotonic clock that also stamps the call). The level is the RMS of
#     the left channel over 2.5 ms windows (1 ms apart); the effect is the first window past the level halfway (in
#     dB) between the 0.5 s before the call and the second after it has settled (2-2.5 s after the call), staying
#     past it for 50 ms. Checked: the level moved by at least 10 dB.
#   - idle cost (yt-gst): the sender alone (no --control) against the sender with --control, 10 registered rooms
#     (fake rooms speaking the room protocol: a Hello, then a held TCP connection) and 5 WebSocket pages (what
#     the page does: the handshake on the web port, written out here, one Server.GetStatus, then held): CPU %
#     (utime+stime from /proc/PID/stat) and voluntary context switches of the main thread (the one that runs the
#     service) and of all threads, over 10 s (quick: 3 s) while nothing changes. Goal: the service
#     adds < 1 % CPU and 0 wake-ups of the main thread. Also shown, not judged: the same sender with 2 real rooms
#     (in step, so reporting their clock offset) and one control client: main-thread wake-ups and notifications.
#
# Every process runs in the lab (killed by PID at the end, dies with the lab); every wait is bounded; SIGTERM (the
# `timeout` bench-rooms.sh puts around this) ends the run through the same clean-up.
#
# Usage: bench_rooms.py --binary PATH [--rounds N] [--quick] [--peers yt-gst,snapcast]
import argparse
import atexit
import base64
import hashlib
import json
import os
import signal
import socket
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "Tests", "interop")]
import bench_control  # noqa: E402
import bench_table  # noqa: E402
import rooms_lab  # noqa: E402
from bench_control import RATE, Monitor, RunFailed  # noqa: E402

WINDOW, HOP = RATE * 25 // 10_000, RATE // 1000  # 2.5 ms windows, 1 ms apart
SETTLED_S = (2.0, 2.5)  # the "after" level: Snapcast's 1 s buffer and any ramp are over by then
STREAM_LATENCY_MS = {"yt-gst": 80, "snapcast": 1000}  # sending → sound by default (receive --latency-ms; buffer)


class Control:
    """One held JSON-RPC connection to the service (Snapcast framing: lines ending in \\r\\n)."""

    def __init__(self, port, timeout=5.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.pending, self.next_id = b"", 1

    def call(self, method, params):
        """Sends the call; returns the monotonic time just before it went out (RunFailed on an error reply)."""
        ident, self.next_id = self.next_id, self.next_id + 1
        line = json.dumps({"id": ident, "jsonrpc": "2.0", "method": method, "params": params}).encode() + b"\r\n"
        sent = time.monotonic()
        self.sock.sendall(line)
        while True:
            *lines, self.pending = self.pending.split(b"\n")
            for raw in filter(None, lines):
                msg = json.loads(raw)
                if msg.get("id") == ident:
                    if "error" in msg:
                        raise RunFailed(f"{method} → {msg['error']}")
                    return sent
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise RunFailed(f"{method}: the connection closed")
            self.pending += chunk

    def close(self):
        self.sock.close()


def levels(mon, a, b):
    """RMS of the left channel over 2.5 ms windows 1 ms apart, for monitor frames a..b; (window starts, values)."""
    with mon.lock:
        raw = np.frombuffer(bytes(mon.data[a * 4:b * 4]), np.int16).reshape(-1, 2)[:, 0].astype(np.float64)
    power = np.convolve(raw * raw, np.ones(WINDOW) / WINDOW, mode="valid")[::HOP]
    return a + np.arange(len(power)) * HOP, np.sqrt(power)


def measure_step(mon, control, client, percent):
    """Client.SetVolume to `percent` → the halfway crossing of the level (seconds) and the step in dB."""
    sent = control.call("Client.SetVolume", {"id": client, "volume": {"percent": percent, "muted": False}})
    k = mon.frames_by(sent)
    mon.wait_frames(k + int(RATE * SETTLED_S[1]) + WINDOW, timeout=10)
    starts, rms = levels(mon, k - RATE // 2, k + int(RATE * SETTLED_S[1]))
    before = float(np.median(rms[starts < k]))
    after = float(np.median(rms[starts >= k + int(RATE * SETTLED_S[0])]))
    if before <= 0 or after <= 0 or abs(20 * np.log10(after / before)) < 10:
        raise RunFailed(f"the level moved from {before:.0f} to {after:.0f} RMS (under 10 dB) after SetVolume {percent}")
    half = np.sqrt(before * after)
    past = (rms < half) if after < before else (rms > half)
    hold = 50  # windows, 50 ms
    run = np.convolve(past.astype(int), np.ones(hold, int), mode="valid")
    found = np.nonzero((run == hold) & (starts[:len(run)] >= k - RATE // 10))[0]
    if not len(found):
        raise RunFailed(f"the level never stayed past halfway for 50 ms after SetVolume {percent}")
    return mon.time_of(int(starts[found[0]]) + WINDOW // 2) - sent, 20 * np.log10(after / before)


def effect_round(lab, name, binary, tone):
    """One peer with one room through the volume step down and back up; {key: seconds or dB}."""
    mon = Monitor(os.environ.get("YT_GST_PULSE_SINK", "spk"))
    peer = None
    try:
        mon.wait_frames(RATE // 10, timeout=10)
        peer = (rooms_lab.SnapcastPeer(lab, tone, 1) if name == "snapcast"
                else rooms_lab.YtGstPeer(lab, binary, tone, 1))
        client = rooms_lab.clients_of(rooms_lab.rpc(peer.port, "Server.GetStatus"))[0]["id"]
        control = Control(peer.port)
        try:
            control.call("Client.SetVolume", {"id": client, "volume": {"percent": 100, "muted": False}})
            mon.wait_sound(mon.frames(), timeout=15)
            time.sleep(2.5)  # the tone steady at the output (Snapcast: past its 1 s buffer)
            down, down_db = measure_step(mon, control, client, 30)
            time.sleep(0.5)
            up, _ = measure_step(mon, control, client, 100)
        finally:
            control.close()
        return {"down": down, "up": up, "step_db": down_db}
    except (OSError, ValueError, rooms_lab.LabFailed) as e:
        raise RunFailed(f"{type(e).__name__}: {e}")
    finally:
        if peer:
            peer.close()
        mon.stop()


def cpu_and_switches(pid):
    """(utime+stime in clock ticks, the main thread's voluntary switches, all threads' voluntary switches)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12]), *bench_control.switches(pid))


def idle_window(pid, seconds):
    a, t0 = cpu_and_switches(pid), time.monotonic()
    time.sleep(seconds)
    b, t1 = cpu_and_switches(pid), time.monotonic()
    ticks = os.sysconf("SC_CLK_TCK")
    return {"cpu": 100 * (b[0] - a[0]) / ticks / (t1 - t0), "main": b[1] - a[1], "all": b[2] - a[2]}


def fake_room(port, index):
    """A room as the design's room protocol has it: Hello, its reply, then a held connection (nothing changes)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    hello = {"id": f"bench-room-{index:02d}", "name": f"bench {index}",
             "host": {"name": f"bench{index}", "os": "Linux", "arch": "x86_64", "mac": "00:00:00:00:00:00"},
             "config": {"volume": {"percent": 100, "muted": False}, "latency": 0}, "version": "bench"}
    s.sendall(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "yt-gst.Room.Hello", "params": hello}).encode() + b"\n")
    reply = b""
    while b"\n" not in reply:
        chunk = s.recv(1 << 16)
        if not chunk:
            raise RunFailed(f"fake room {index}: the hub closed the connection after Hello")
        reply += chunk
    if "result" not in json.loads(reply.split(b"\n")[0]):
        raise RunFailed(f"fake room {index}: Hello → {reply[:200]!r}")
    return s


WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455's, for Sec-WebSocket-Accept


def ws_text(text):
    """One masked text frame (a client's frames are masked, RFC 6455 5.3)."""
    payload, mask = text.encode(), os.urandom(4)
    size = len(payload)
    head = bytes([0x81]) + (bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) + size.to_bytes(2, "big"))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def read_until(s, end, what):
    data = b""
    while end not in data:
        chunk = s.recv(1 << 16)
        if not chunk:
            raise RunFailed(f"{what}: the service closed the connection")
        data += chunk
    return data


def web_page(port, index):
    """A WebSocket as the page opens it: the handshake (GET /jsonrpc, Upgrade, the accept key checked), then the
    page's one Server.GetStatus and its reply (the page polls nothing afterwards), then held."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /jsonrpc HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head, _, rest = read_until(s, b"\r\n\r\n", f"page {index}'s handshake").partition(b"\r\n\r\n")
    accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest())
    if not head.startswith(b"HTTP/1.1 101") or b"Sec-WebSocket-Accept: " + accept not in head:
        raise RunFailed(f"page {index}: the web port answered {head[:200]!r}, not the WebSocket upgrade")
    s.sendall(ws_text(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "Server.GetStatus"})))
    reply = rest + read_until(s, b'"server"', f"page {index}'s Server.GetStatus")
    if reply[0] != 0x81:
        raise RunFailed(f"page {index}: Server.GetStatus came back as {reply[:40]!r}, not a text frame")
    return s


def idle_cost(lab, binary, tone, seconds):
    """The sender without --control, then with it, 10 fake rooms and 5 WebSocket pages: {config: window}."""
    out, held = {}, []
    for control in (False, True):
        sender = (rooms_lab.YtGstPeer(lab, binary, tone, 0, wait=control) if control
                  else rooms_lab.YtGstPeer(lab, binary, tone, 0, wait=False, control=False))
        try:
            if control:
                held = [fake_room(sender.port, i) for i in range(1, 11)]
                held += [web_page(sender.port + 75, i) for i in range(1, 6)]
                listed = len(rooms_lab.clients_of(rooms_lab.rpc(sender.port, "Server.GetStatus")))
                if listed < 10:
                    raise RunFailed(f"the hub lists {listed} of the 10 fake rooms")
            # Past the start: the first RTCP report (1-3 s in) makes the pipeline tell its latency, once, on the
            # main thread (1-2 wake-ups with or without --control when it fell in the window).
            time.sleep(4)
            out["control" if control else "alone"] = idle_window(sender.sender.pid, seconds)
        finally:
            for s in held:
                s.close()
            held = []
            sender.close()
    out["real"] = real_rooms(lab, binary, tone, seconds)
    return out


def real_rooms(lab, binary, tone, seconds):
    """The sender with --control and 2 real rooms (yt-gst receive) and one control client: the main thread's
    wake-ups and the notifications that client got over `seconds` (the rooms' reports)."""
    peer = rooms_lab.YtGstPeer(lab, binary, tone, 2)
    control = Control(peer.port)
    try:
        time.sleep(3)
        control.sock.settimeout(0.2)
        a, t0, notes = cpu_and_switches(peer.sender.pid), time.monotonic(), 0
        while time.monotonic() - t0 < seconds:
            try:
                notes += control.sock.recv(1 << 16).count(b"\n")
            except socket.timeout:
                pass
        b = cpu_and_switches(peer.sender.pid)
        return {"main": b[1] - a[1], "notes": notes}
    finally:
        control.close()
        peer.close()


def row(figure, how, yt, peer, target, judge):
    cell = lambda v: "-" if not v else f"{statistics.median(v) * 1000:.0f} ms (max {max(v) * 1000:.0f})"
    pairs = [(x, y) for x, y in zip(yt, peer)]
    ratio = f"{statistics.median(x / y for x, y in pairs):.2f}" if pairs else "-"
    result = "-" if not yt else "PASS" if statistics.median(yt) <= judge else "FAIL"
    return (figure, how, cell(yt), cell(peer), ratio, target, result)


def table(effects, idle, seconds):
    yt, snap = effects["yt-gst"], effects["snapcast"]
    goal = (100 + STREAM_LATENCY_MS["yt-gst"]) / 1000
    rows = [
        row("SetVolume 100 → 30 % → heard", "the call sent → the room's level halfway (in dB) to its new level at "
            "the null sink", yt.get("down", []), snap.get("down", []), f"≤ 100 ms + the stream latency "
            f"({STREAM_LATENCY_MS['yt-gst']} ms; Snapcast's {STREAM_LATENCY_MS['snapcast']} ms)", goal),
        row("SetVolume 30 → 100 % → heard", "as above, back up", yt.get("up", []), snap.get("up", []), "as above", goal),
    ]
    steps = [f"{statistics.median(v['step_db']):+.1f} dB" if v.get("step_db") else "-" for v in (yt, snap)]
    rows.append(("level step 100 → 30 %", "settled level after / before", *steps, "-", "-", "-"))
    if idle:
        alone, loaded = idle["alone"], idle["control"]
        added_cpu, added_main = loaded["cpu"] - alone["cpu"], loaded["main"] - alone["main"]
        rows.append(("service CPU, idle", f"sender with --control, 10 rooms and 5 WebSocket pages, nothing changing, "
                     f"{seconds} s: CPU % (without --control: {alone['cpu']:.2f} %)", f"{loaded['cpu']:.2f} % "
                     f"({added_cpu:+.2f})", "-", "-", "< 1 % added", "PASS" if added_cpu < 1 else "FAIL"))
        rows.append(("service wake-ups, idle", f"as above: voluntary context switches of the main thread over "
                     f"{seconds} s (without --control: {alone['main']}; all threads {alone['all']} → {loaded['all']})",
                     f"{loaded['main']} ({added_main:+d})", "-", "-", "0 added",
                     "PASS" if added_main <= 0 else "FAIL"))
        real = idle["real"]
        rows.append(("with 2 real rooms", f"sender with --control, 2 `yt-gst receive` rooms in step and one control "
                     f"client, {seconds} s: main-thread wake-ups; notifications the client got (the rooms' reports)",
                     f"{real['main']}; {real['notes']} notifications", "-", "-", "-", "-"))
    return rows


def stopped(*_):
    print("bench: stopped by SIGTERM (the time limit?); every process killed", file=sys.stderr)
    raise SystemExit(143)


def run(a):
    signal.signal(signal.SIGTERM, stopped)
    atexit.register(bench_control.kill_children)  # parec (the monitors)
    lab = rooms_lab.Lab()
    try:
        tone = os.path.join(lab.work, "tone.wav")
        rooms_lab.write_tone(tone, seconds=30)
        rounds, seconds = (1, 3) if a.quick else (a.rounds, 10)
        print(f"rooms rows: {rounds} round(s){'' if a.quick else ' after a warm-up round'} of yt-gst and Snapcast "
              f"0.26 alternately, one room each, a 440 Hz tone at -6 dBFS; idle cost over {seconds} s", flush=True)
        effects, failures = {"yt-gst": {}, "snapcast": {}}, []
        for r in range(rounds + (0 if a.quick else 1)):
            for name in a.peers:
                try:
                    out = effect_round(lab, name, a.binary, tone)
                except RunFailed as e:
                    failures.append(f"{name} round {r + 1}: {e}")
                    print(f"  FAIL {name} round {r + 1}: {e}", flush=True)
                    continue
                warm = r == 0 and not a.quick
                print(f"  round {r + 1} {name}: 100 → 30 % heard after {out['down'] * 1000:.1f} ms "
                      f"({out['step_db']:+.1f} dB), 30 → 100 % after {out['up'] * 1000:.1f} ms"
                      + (" (warm-up, not counted)" if warm else ""), flush=True)
                if not warm:
                    for key, value in out.items():
                        effects[name].setdefault(key, []).append(value)
        idle = None
        try:
            idle = idle_cost(lab, a.binary, tone, seconds) if "yt-gst" in a.peers else None
            if idle:
                print(f"  idle: alone {idle['alone']}, with --control {idle['control']}", flush=True)
        except (RunFailed, OSError, rooms_lab.LabFailed) as e:
            failures.append(f"idle cost: {e}")
            print(f"  FAIL idle cost: {e}", flush=True)
    finally:
        lab.close()
    rows = table(effects, idle, seconds)
    print()
    bench_table.print_table(rows, "Snapcast 0.26")
    return bench_table.verdict(rows, failures, a.quick, "every round's effect checked")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--binary", required=True)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--peers", type=lambda v: v.split(","), default=["yt-gst", "snapcast"],
                   help="comma-separated: yt-gst, snapcast (default both)")
    return run(p.parse_args())


if __name__ == "__main__":
    sys.exit(main())
