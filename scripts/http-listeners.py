#!/usr/bin/env python3
"""Many light HTTP listeners at once (tests and bench): each connects, reads for SECONDS, counts bytes.

Each listener stays SECONDS from its own start; they start 2 ms apart.

Usage: http-listeners.py SECONDS URL:COUNT [URL:COUNT...] [--save DIR:N]
Prints one JSON object: {"URL": [bytes of each listener, ...], ...} and, per URL, the seconds each listener was
connected. With --save DIR:N the first N listeners of each URL also write what they received to DIR/<i>-<k>.bin.
"""
import asyncio
import json
import resource
import sys
import time
from urllib.parse import urlsplit


async def listen(url, seconds, save_path, ready, delay=0.0):
    await asyncio.sleep(delay)
    parts = urlsplit(url)
    start = time.monotonic()
    received = 0
    out = open(save_path, "wb") if save_path else None
    try:
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port or 80)
        writer.write(f"GET {parts.path} HTTP/1.0\r\nHost: {parts.hostname}\r\nUser-Agent: yt-gst-test\r\n\r\n".encode())
        await writer.drain()
        header = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        if b" 200 " not in header.split(b"\r\n")[0]:
            return {"bytes": 0, "seconds": 0, "status": header.split(b"\r\n")[0].decode(errors="replace")}
        ready.append(1)
        deadline = start + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                chunk = await asyncio.wait_for(reader.read(65536), left)
            except asyncio.TimeoutError:
                break
            if not chunk:
                break
            received += len(chunk)
            if out:
                out.write(chunk)
        writer.close()
        return {"bytes": received, "seconds": time.monotonic() - start, "status": "200"}
    except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError) as error:
        return {"bytes": received, "seconds": time.monotonic() - start, "status": str(error)}
    finally:
        if out:
            out.close()


async def main():
    # One socket per listener: a few thousand need more descriptors than the usual 1024.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 16384)), hard))
    seconds = float(sys.argv[1])
    targets, save_dir, save_count = [], None, 0
    args = sys.argv[2:]
    while args:
        arg = args.pop(0)
        if arg == "--save":
            save_dir, n = args.pop(0).rsplit(":", 1)
            save_count = int(n)
        else:
            url, count = arg.rsplit(":", 1)
            targets.append((url, int(count)))
    ready = []
    tasks = {}
    # Listeners arrive over the first moments (2 ms apart), as they would, not as one SYN flood: Icecast listens
    # with a short backlog, and a flood would measure the kernel's SYN retries instead of the server.
    started = 0
    for t, (url, count) in enumerate(targets):
        tasks[url] = []
        for k in range(count):
            save = f"{save_dir}/{t}-{k}.bin" if save_dir and k < save_count else None
            tasks[url].append(asyncio.create_task(listen(url, seconds, save, ready, delay=started * 0.002)))
            started += 1
    result = {url: [await task for task in group] for url, group in tasks.items()}
    print(json.dumps(result))


asyncio.run(main())
