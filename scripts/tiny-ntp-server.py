#!/usr/bin/env python3
# yt-gst — the smallest NTPv4 server (RFC 5905 server mode, stratum 1, this machine's real-time clock), for the tests
# of `--clock ntp://HOST:PORT`: GStreamer's NTP client clock follows it like any NTP server.
# Usage: scripts/tiny-ntp-server.py PORT   (runs until killed)
import socket
import struct
import sys
import time

NTP_EPOCH = 2_208_988_800  # seconds from 1900 (NTP) to 1970 (Unix)


def timestamp(seconds):
    """NTP's 32.32 fixed-point timestamp of a Unix time."""
    whole = int(seconds) + NTP_EPOCH
    return struct.pack("!II", whole & 0xFFFFFFFF, int((seconds % 1) * 2**32) & 0xFFFFFFFF)


def main():
    port = int(sys.argv[1])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    while True:
        request, client = s.recvfrom(512)
        received = time.time()
        if len(request) < 48 or request[0] & 0x7 != 3:  # only client requests
            continue
        version = (request[0] >> 3) & 0x7
        header = struct.pack("!BBbbII4s", (version << 3) | 4, 1, request[2], -20, 0, 0, b"LOCL")
        reply = header + timestamp(received) + request[40:48] + timestamp(received) + timestamp(time.time())
        s.sendto(reply, client)


if __name__ == "__main__":
    main()
