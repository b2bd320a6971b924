#!/usr/bin/env python3
# yt-gst — does a Snapcast control server work with PyPI's `snapcast` (snapcast.control), the library Home
# Assistant's Snapcast integration drives it with? Written against the library's own source (2.3.8), not our
# service: run against Debian's real snapserver 0.26 it passes (Tests/interop/rooms_lab.py --peer snapcast), so a
# failure against yt-gst's `stream --control` is ours.
#
# Two connections of the library (A acts, B watches, as two Home Assistant instances would): A lists the groups,
# clients and streams and changes a client's volume, mute, name and latency, a group's mute and name (and with
# --stream-control pauses and resumes the stream); each change must come back in A's reply and Get*Status and reach
# B through the library's notification callbacks (Client.OnVolumeChanged, Group.OnMute, ...). Then (--restart, or
# `restart` from Python) one client is restarted: B sees it go and come back with its name, volume and latency kept.
# Everything changed is put back at the end. What the library itself needs is checked first: replies are lines
# ending in "\r\n" (it parses nothing else), a server version it can compare (>= 0.26.0, or it refuses
# Stream.Control), streams with a name (uri.query.name), group stream status "playing" or "idle", and metadata
# typed as Home Assistant reads it (artist a list).
#
# One line per check: "ok NAME: detail" or "FAIL NAME: detail"; exit 0 when every check passed, 1 otherwise, 2 when
# the server could not be reached. Every wait is bounded (--timeout, default 5 s).
#
# Usage: snapcast_client_check.py HOST PORT [--clients N] [--stream-control] [--restart SHELL-COMMAND] [--timeout S]
import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time

from packaging import version
import snapcast.control


class CheckFailed(Exception):
    """One check's failure; the message says what was expected and what came."""


class Watch:
    """Counts the library's callbacks on B's objects, so a check can wait for a notification, not just a state."""

    def __init__(self, server):
        self.server, self.calls, self.event = server, {}, asyncio.Event()
        self.lost = None
        server.set_on_disconnect_callback(self._lost)
        server.set_on_update_callback(self._updated)
        self.attach()

    def _updated(self):
        self.attach()
        self._called("server")

    def attach(self):
        """(Re)registers on every group and client B knows (after a Server.OnUpdate B has new objects)."""
        for obj in self.server.groups + self.server.clients:
            obj.set_callback(lambda o: self._called(o.identifier))

    def _called(self, key):
        self.calls[key] = self.calls.get(key, 0) + 1
        self.event.set()

    def _lost(self, exc):
        self.lost = f"the library's connection closed ({exc or 'by the server'})"
        self.event.set()

    def count(self, key):
        """Callbacks on `key` (an object's id, "server" for Server.OnUpdate, or a tuple of them) so far."""
        return sum(self.calls.get(k, 0) for k in (key if isinstance(key, tuple) else (key,)))

    async def until(self, key, since, predicate, what, timeout):
        """Waits for a callback on `key` after `since` callbacks with `predicate()` true; CheckFailed otherwise."""
        deadline = time.monotonic() + timeout
        while not (self.count(key) > since and predicate()):
            if self.lost:
                raise CheckFailed(f"{what}: {self.lost}")
            left = deadline - time.monotonic()
            if left <= 0:
                seen = "a callback came but the value is not there" if self.count(key) > since else "no callback"
                raise CheckFailed(f"B got no {what} within {timeout:g} s ({seen})")
            self.event.clear()
            try:
                await asyncio.wait_for(self.event.wait(), min(left, 0.2))
            except asyncio.TimeoutError:
                pass


class Checker:
    def __init__(self, a, b, watch, timeout):
        self.a, self.b, self.watch, self.timeout = a, b, watch, timeout
        self.failures = 0

    async def run(self, name, body, waits=4):
        """Runs one check (bounded by `waits` × the timeout) and prints its line; a failed check does not stop the
        others."""
        try:
            detail = await asyncio.wait_for(body(), self.timeout * waits)
            print(f"ok {name}: {detail}", flush=True)
            return True
        except asyncio.TimeoutError:
            detail = f"no answer within {self.timeout * waits:g} s"
        except CheckFailed as e:
            detail = str(e)
        except Exception as e:  # the library raising is a finding too (KeyError on an unknown id, ...)
            detail = f"the library raised {type(e).__name__}: {e}"
        self.failures += 1
        print(f"FAIL {name}: {detail}", flush=True)
        return False

    async def call(self, coro, what):
        """A's call through the library: its reply, CheckFailed on a JSON-RPC error."""
        reply = await asyncio.wait_for(coro, self.timeout)
        if isinstance(reply, dict) and "code" in reply and "message" in reply:
            raise CheckFailed(f"{what} → error {reply}")
        return reply

    async def status_of(self, method, ident):
        result, error = await asyncio.wait_for(self.a._transact(method, {"id": ident}), self.timeout)
        if error or not isinstance(result, dict):
            raise CheckFailed(f"{method} {ident} → {error or result}")
        return result


def raw_status(host, port, timeout):
    """Server.GetStatus over a plain socket: the reply's bytes up to the first line end (the library's framing)."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(b'{"id":1,"jsonrpc":"2.0","method":"Server.GetStatus"}\r\n')
        data, deadline = b"", time.monotonic() + timeout
        while b"\n" not in data and time.monotonic() < deadline:
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            data += chunk
        return data


def check_line_end(host, port, timeout):
    data = raw_status(host, port, timeout)
    if b"\n" not in data:
        raise CheckFailed(f"no complete line within {timeout:g} s ({len(data)} bytes)")
    line = data[:data.index(b"\n") + 1]
    if not line.endswith(b"\r\n"):
        raise CheckFailed("the reply ends in a bare \\n: the library waits for \\r\\n and never parses it")
    reply = json.loads(line)
    if reply.get("jsonrpc") != "2.0" or reply.get("id") != 1 or "result" not in reply:
        raise CheckFailed(f"not a JSON-RPC 2.0 result for id 1: {line[:200]!r}")
    return f"{len(line)} bytes, one JSON-RPC line ending in \\r\\n"


def listing(a, want_clients):
    """What Home Assistant reads from the synchronised model; a summary line."""
    parsed = version.parse(a.version)
    if parsed < version.parse("0.26.0"):
        raise CheckFailed(f"server version {a.version} < 0.26.0: the library refuses Stream.Control/SetProperty")
    connected = [c for c in a.clients if c.connected]
    if len(connected) < want_clients:
        raise CheckFailed(f"{len(connected)} connected client(s), expected {want_clients}: "
                          f"{[(c.identifier, c.connected) for c in a.clients]}")
    for c in a.clients:
        if c.group is None:
            raise CheckFailed(f"client {c.identifier} is in no group")
        if not c.friendly_name or not isinstance(c.volume, int) or not isinstance(c.muted, bool):
            raise CheckFailed(f"client {c.identifier}: name {c.friendly_name!r}, volume {c.volume!r}, "
                              f"muted {c.muted!r}")
        if not isinstance(c.latency, int) or not c.version:
            raise CheckFailed(f"client {c.identifier}: latency {c.latency!r}, version {c.version!r}")
    for g in a.groups:
        if g.stream not in [s.identifier for s in a.streams]:
            raise CheckFailed(f"group {g.identifier} plays {g.stream!r}, not a listed stream")
        if g.stream_status not in ("playing", "idle"):
            raise CheckFailed(f"group {g.identifier}: stream status {g.stream_status!r} (HA knows playing, idle)")
    for s in a.streams:
        if not isinstance(s.friendly_name, str) or not s.friendly_name:
            raise CheckFailed(f"stream {s.identifier}: no uri.query.name (the library's name: {s.friendly_name!r})")
        check_metadata(s)
    names = ", ".join(c.friendly_name for c in a.clients)
    streams = ", ".join(f"{s.friendly_name} {s.status}" for s in a.streams)
    return (f"server {a.version}; {len(a.groups)} group(s), {len(a.clients)} client(s) ({names}), "
            f"{len(a.streams)} stream(s) ({streams})")


def check_metadata(stream):
    """Home Assistant joins `artist` with ", " and reads title/album as text, duration as a number."""
    meta = stream.metadata or {}
    if "artist" in meta and not (isinstance(meta["artist"], list) and all(isinstance(x, str) for x in meta["artist"])):
        raise CheckFailed(f"stream {stream.identifier}: metadata artist {meta['artist']!r} is not a list of strings")
    for key in ("title", "album"):
        if key in meta and not isinstance(meta[key], str):
            raise CheckFailed(f"stream {stream.identifier}: metadata {key} {meta[key]!r} is not text")
    if "duration" in meta and not isinstance(meta["duration"], (int, float)):
        raise CheckFailed(f"stream {stream.identifier}: metadata duration {meta['duration']!r} is not a number")


async def change(ck, kind, ident, what, act, read, want, reply):
    """A changes a client or group with the request the library's own setter sends (act: A's Snapserver → the
    call); the reply must be `reply` (the library hands back the result's value), and B's callback and A's
    Client/Group.GetStatus must show `want` (read: the object's JSON → the value)."""
    since = ck.watch.count(ident)
    got = await ck.call(act(ck.a), what)
    if got != reply:
        raise CheckFailed(f"{what} replied {got!r}, expected {reply!r}")
    model = (lambda: ck.b.client(ident)._client) if kind == "client" else (lambda: ck.b.group(ident)._group)
    await ck.watch.until(ident, since, lambda: read(model()) == want, f"{what} notification", ck.timeout)
    method = f"{kind.capitalize()}.GetStatus"
    got = read((await ck.status_of(method, ident))[kind])
    if got != want:
        raise CheckFailed(f"{method} after {what}: {got!r}, expected {want!r}")
    return f"{ident}: {want!r} in the reply, at B (notification) and in {method}"


VOLUME = lambda c: c["config"]["volume"]["percent"]
MUTED = lambda c: c["config"]["volume"]["muted"]
NAME = lambda c: c["config"]["name"]
LATENCY = lambda c: c["config"]["latency"]
GROUP_MUTED = lambda g: g["muted"]
GROUP_NAME = lambda g: g["name"]
NEW_NAME = "Küche ♪ interop"  # not ASCII: the JSON text's encoding is checked too


async def check_unknown_method(ck):
    result, error = await asyncio.wait_for(ck.a._transact("Interop.NoSuchMethod"), ck.timeout)
    if not error or error.get("code") != -32601:
        raise CheckFailed(f"expected error -32601, got result {result!r}, error {error!r}")
    return f"error -32601 ({error.get('message')})"


async def check_stream_control(ck):
    """Stream.Control pause then play: Stream.OnProperties reaches B (the library calls the group's callback)."""
    stream = ck.a.streams[0].identifier
    group = next(g.identifier for g in ck.b.groups if g.stream == stream)
    for command, want in (("pause", "paused"), ("play", "playing")):
        since = ck.watch.count(group)
        await ck.call(ck.a.stream_control(stream, command, {}), f"Stream.Control {command}")
        await ck.watch.until(group, since, lambda: (ck.b.stream(stream).properties or {}).get("playbackStatus") == want,
                             f"Stream.OnProperties with playbackStatus {want}", ck.timeout)
    return f"{stream}: pause and play; Stream.OnProperties playbackStatus paused, then playing, at B"


async def check_restart(ck, restart):
    """Every client given a name, volume and latency of its own, then one restarted (by the caller): B sees it go
    and come back, and the server still has its name, volume and latency."""
    before = {}
    for i, c in enumerate(ck.a.clients):
        before[c.identifier] = (f"interop room {i + 1}", 41 + i, 11 + i)
        await ck.call(ck.a.client_name(c.identifier, before[c.identifier][0]), "Client.SetName")
        await ck.call(ck.a.client_volume(c.identifier, {"percent": 41 + i, "muted": False}), "Client.SetVolume")
        await ck.call(ck.a.client_latency(c.identifier, 11 + i), "Client.SetLatency")
    await asyncio.sleep(0.5)  # let the clients take the new values in before one goes
    since = {c: ck.watch.count(c) for c in before}
    await asyncio.get_running_loop().run_in_executor(None, restart)
    deadline = time.monotonic() + ck.timeout * 6
    gone = None
    while gone is None:
        gone = next((c for c in before if ck.watch.count(c) > since[c] and not ck.b.client(c).connected), None)
        if ck.watch.lost or time.monotonic() > deadline:
            raise CheckFailed(ck.watch.lost or "B saw no Client.OnDisconnect after the restart")
        await asyncio.sleep(0.05)
    # snapserver tells a client's return by Client.OnConnect, or by Server.OnUpdate (the library then calls the
    # server's update callback, not the client's): either will do, as it does for Home Assistant.
    keys = (gone, "server")
    mark = ck.watch.count(keys)
    await ck.watch.until(keys, mark, lambda: ck.b.client(gone).connected, "Client.OnConnect or Server.OnUpdate",
                         ck.timeout * 6)
    status = (await ck.status_of("Client.GetStatus", gone))["client"]
    after = (NAME(status), VOLUME(status), LATENCY(status))
    if after != before[gone] or not status["connected"]:
        raise CheckFailed(f"{gone} came back with (name, volume, latency) {after}, had {before[gone]}")
    return f"{gone} went and came back (Client.OnDisconnect, then Client.OnConnect or Server.OnUpdate) with {after}"


async def main_checks(host, port, clients=1, stream_control=False, restart=None, timeout=5.0):
    """All the checks; the number of failures (raises OSError when the server cannot be reached at all)."""
    ck = Checker(None, None, None, timeout)

    async def line_end():
        return await asyncio.get_running_loop().run_in_executor(None, check_line_end, host, port, timeout)
    if not await ck.run("framing", line_end):
        return ck.failures  # the library would wait forever: nothing else can be checked
    loop = asyncio.get_running_loop()
    ck.a = await asyncio.wait_for(snapcast.control.create_server(loop, host, port), timeout)
    ck.b = await asyncio.wait_for(snapcast.control.create_server(loop, host, port), timeout)
    ck.watch = Watch(ck.b)
    try:
        return await run_all(ck, clients, stream_control, restart)
    finally:
        ck.a.stop()
        ck.b.stop()


async def run_all(ck, clients, stream_control, restart):
    async def version_call():
        v, error = await asyncio.wait_for(ck.a.rpc_version(), ck.timeout)
        if error or not isinstance(v, dict) or v.get("major") != 2:
            raise CheckFailed(f"Server.GetRPCVersion → {error or v!r}, expected major 2")
        return f"{v['major']}.{v.get('minor')}.{v.get('patch')}"

    async def listed():
        return listing(ck.a, clients)
    await ck.run("rpc-version", version_call)
    if not await ck.run("list", listed):
        return ck.failures
    client = ck.a.clients[0]
    cid, gid = client.identifier, client.group.identifier
    saved = {c.identifier: dict(c._client["config"], volume=dict(c._client["config"]["volume"])) for c in ck.a.clients}
    saved_groups = {g.identifier: (g.name, g.muted) for g in ck.a.groups}

    async def status_calls():
        c = (await ck.status_of("Client.GetStatus", cid))["client"]
        g = (await ck.status_of("Group.GetStatus", gid))["group"]
        if c.get("id") != cid or g.get("id") != gid or cid not in [x["id"] for x in g["clients"]]:
            raise CheckFailed(f"Client.GetStatus/Group.GetStatus do not agree with Server.GetStatus: {c.get('id')}, "
                              f"{g.get('id')}")
        return f"client {cid} and its group {gid}"
    await ck.run("get-status", status_calls)
    await ck.run("unknown-method", lambda: check_unknown_method(ck))
    volume = dict(client._client["config"]["volume"])
    muted = dict(volume, percent=30, muted=True)

    def client_change(name, what, act, read, want, reply):
        return ck.run(name, lambda: change(ck, "client", cid, what, act, read, want, reply))

    def group_change(name, what, act, read, want):
        return ck.run(name, lambda: change(ck, "group", gid, what, act, read, want, want))
    await client_change("client-volume", "Client.SetVolume 30 %", lambda a: a.client_volume(cid, dict(volume, percent=30)),
                        VOLUME, 30, dict(volume, percent=30))
    await client_change("client-mute", "Client.SetVolume muted", lambda a: a.client_volume(cid, muted), MUTED, True,
                        muted)
    await client_change("client-unmute", "Client.SetVolume unmuted",
                        lambda a: a.client_volume(cid, dict(muted, muted=False)), MUTED, False, dict(muted, muted=False))
    await group_change("group-mute", "Group.SetMute true", lambda a: a.group_mute(gid, True), GROUP_MUTED, True)
    await group_change("group-unmute", "Group.SetMute false", lambda a: a.group_mute(gid, False), GROUP_MUTED, False)
    await client_change("client-name", "Client.SetName", lambda a: a.client_name(cid, NEW_NAME), NAME, NEW_NAME,
                        NEW_NAME)
    await client_change("client-latency", "Client.SetLatency 25", lambda a: a.client_latency(cid, 25), LATENCY, 25, 25)
    await group_change("group-name", "Group.SetName", lambda a: a.group_name(gid, NEW_NAME), GROUP_NAME, NEW_NAME)
    if stream_control:
        await ck.run("stream-control", lambda: check_stream_control(ck))
    if restart:
        await ck.run("restart-keeps-config", lambda: check_restart(ck, restart), waits=14)
    await ck.run("restore", lambda: restore(ck, saved, saved_groups))
    return ck.failures


async def restore(ck, saved, saved_groups):
    """Puts back what the checks changed, with the requests the library's setters send."""
    for ident, config in saved.items():
        await ck.call(ck.a.client_name(ident, config["name"]), "Client.SetName")
        await ck.call(ck.a.client_latency(ident, config["latency"]), "Client.SetLatency")
        await ck.call(ck.a.client_volume(ident, config["volume"]), "Client.SetVolume")
    for ident, (name, muted) in saved_groups.items():
        await ck.call(ck.a.group_name(ident, name), "Group.SetName")
        await ck.call(ck.a.group_mute(ident, muted), "Group.SetMute")
    status = (await asyncio.wait_for(ck.a.status(), ck.timeout))[0]
    for c in (c for g in status["server"]["groups"] for c in g["clients"] if c["id"] in saved):
        config = saved[c["id"]]
        if (NAME(c), VOLUME(c), MUTED(c), LATENCY(c)) != (config["name"], config["volume"]["percent"],
                                                          config["volume"]["muted"], config["latency"]):
            raise CheckFailed(f"{c['id']}: {c['config']} after restoring {config}")
    return f"{len(saved)} client(s) and {len(saved_groups)} group(s) as they were"


def main():
    p = argparse.ArgumentParser(description="Checks a Snapcast control server with PyPI's snapcast library.")
    p.add_argument("host")
    p.add_argument("port", type=int)
    p.add_argument("--clients", type=int, default=1, help="connected clients expected (default 1)")
    p.add_argument("--stream-control", action="store_true", help="also pause and resume the stream")
    p.add_argument("--restart", metavar="CMD", help="a shell command that restarts one client (it must return)")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds each wait may take (default 5)")
    a = p.parse_args()
    restart = (lambda: subprocess.run(a.restart, shell=True, check=True, timeout=a.timeout * 6)) if a.restart else None
    try:
        failures = asyncio.run(main_checks(a.host, a.port, a.clients, a.stream_control, restart, a.timeout))
    except (OSError, asyncio.TimeoutError) as e:
        print(f"snapcast_client_check: cannot reach {a.host}:{a.port}: {e or 'timed out'}", file=sys.stderr)
        return 2
    print(f"{'every check passed' if not failures else f'{failures} check(s) failed'}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
