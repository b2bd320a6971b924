#!/usr/bin/env python3
"""Captures Debian's snapserver (0.26) answering Snapcast's control API, for Tests/Fixtures/snapserver-0.26.jsonl.

Starts a private snapserver (its own config, state dir and ports on 127.0.0.1) and a snapclient ("kitchen"),
calls every method of the control API over TCP, and writes one JSON object per line: {"call", "reply", "other"}
(what the caller got, what a second control connection got) for each call, then {"event", "messages"} for what a
control connection sees when rooms come and go. HubServiceTests compare yt-gst's replies' field names with these.

usage: scripts/snapserver-capture.py OUT.jsonl [BASE_PORT]
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

OUT = sys.argv[1]
BASE = int(sys.argv[2]) if len(sys.argv) > 2 else 17700
TCP, HTTP, STREAM = BASE + 5, BASE + 80, BASE + 4
work = tempfile.mkdtemp(prefix="snapcap-")
open(f"{work}/empty.conf", "w").close()
os.mkfifo(f"{work}/fifo")
os.mkdir(f"{work}/data")
procs = []


def start(args):
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs.append(p)
    return p


def client(host_id):
    return start(["snapclient", "-h", "127.0.0.1", "-p", str(STREAM), "--hostID", host_id,
                  "--player", "file:filename=/dev/null"])


class Conn:
    def __init__(self):
        self.s = socket.create_connection(("127.0.0.1", TCP))
        self.s.settimeout(0.2)
        self.buf = b""

    def drain(self, seconds=0.4):
        end = time.time() + seconds
        while time.time() < end:
            try:
                data = self.s.recv(65536)
                if not data:
                    break
                self.buf += data
            except socket.timeout:
                pass
        *lines, self.buf = self.buf.split(b"\n")
        return [json.loads(line) for line in lines if line.strip()]


try:
    start(["snapserver", "-c", f"{work}/empty.conf", f"--server.datadir={work}/data", "--tcp.port", str(TCP),
           "--http.port", str(HTTP), "--stream.port", str(STREAM), "--tcp.bind_to_address", "127.0.0.1",
           "--http.bind_to_address", "127.0.0.1", "--stream.bind_to_address", "127.0.0.1",
           f"--stream.source=pipe://{work}/fifo?name=default", "--logging.sink=null"])
    time.sleep(1)
    kitchen = client("kitchen")
    time.sleep(1.5)
    a, b = Conn(), Conn()
    out = []
    next_id = [0]

    def call(method=None, params=None, raw=None):
        next_id[0] += 1
        msg = raw or json.dumps({"jsonrpc": "2.0", "id": next_id[0], "method": method,
                                 **({"params": params} if params is not None else {})})
        a.s.sendall((msg + "\n").encode())
        reply, other = a.drain(), b.drain(0.1)
        out.append({"call": msg, "reply": reply, "other": other})
        return reply

    status = call("Server.GetStatus")[0]["result"]
    group = status["server"]["groups"][0]
    gid, cid, sid = group["id"], group["clients"][0]["id"], group["stream_id"]
    call("Server.GetRPCVersion")
    call("Client.GetStatus", {"id": cid})
    call("Client.SetVolume", {"id": cid, "volume": {"percent": 40, "muted": False}})
    call("Client.SetVolume", {"id": cid, "volume": {"percent": 41}})
    call("Client.SetVolume", {"id": cid, "volume": {"muted": True}})
    call("Client.SetLatency", {"id": cid, "latency": 25})
    call("Client.SetName", {"id": cid, "name": "Kitchen"})
    call("Group.GetStatus", {"id": gid})
    call("Group.SetMute", {"id": gid, "mute": True})
    call("Group.SetName", {"id": gid, "name": "Downstairs"})
    call("Group.SetStream", {"id": gid, "stream_id": sid})
    call("Group.SetStream", {"id": gid, "stream_id": "nope"})
    call("Group.SetClients", {"id": gid, "clients": [cid]})
    call("Stream.Control", {"id": sid, "command": "pause"})
    call("Stream.SetProperty", {"id": sid, "property": "shuffle", "value": True})
    call("Client.SetVolume", {"id": "nobody", "volume": {"percent": 40}})
    call("No.Such")
    call(raw='{"jsonrpc":"2.0","id":99,"method":')
    call(raw='[{"jsonrpc":"2.0","id":100,"method":"Server.GetRPCVersion"},'
             '{"jsonrpc":"2.0","method":"Server.GetRPCVersion"},{"jsonrpc":"2.0","id":101,"method":"No.Such"}]')
    call(raw='{"jsonrpc":"2.0","method":"Server.GetRPCVersion"}')
    call("Server.DeleteClient", {"id": "nobody"})

    def event(name, action, seconds):
        action()
        out.append({"event": name, "messages": b.drain(seconds)})

    event("disconnect", lambda: (kitchen.kill(), kitchen.wait()), 2)
    event("reconnect", lambda: client("kitchen"), 2.5)
    event("new-client", lambda: client("bath"), 2.5)
    with open(OUT, "w") as f:
        for entry in out:
            f.write(json.dumps(entry, sort_keys=True) + "\n")
finally:
    for p in procs:
        p.kill()
        p.wait()
    subprocess.run(["rm", "-rf", work])
