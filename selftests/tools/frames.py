#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Ethernet frames of known content through a link, checked byte for byte.

  frames.py send IFNAME DST_MAC SIZE[,SIZE...] COUNT
      COUNT frames of each SIZE (whole frame bytes, header included) out of
      IFNAME to DST_MAC, ethertype 0x88b5 (local experimental); each carries
      a sequence number and a pattern derived from it, never a zero byte
  frames.py recv IFNAME COUNT [TIMEOUT_S]
      prints "ready" once bound, then reads until COUNT such frames came
      (or the timeout), and prints "intact=N bad=N sizes=MIN-MAX"; a frame
      is intact when its length is the size it says and every byte is the
      pattern's. Exit 0 when COUNT intact frames came, 1 otherwise.
"""
import select
import socket
import struct
import sys
import time

ETHERTYPE = 0x88B5
MAGIC = b"UEMU"


def pattern(seq, n):
    return bytes(((seq * 7 + i) % 255) + 1 for i in range(n))


def send(ifname, dst, sizes, count):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifname, 0))
    src = s.getsockname()[4][:6]
    dst = bytes.fromhex(dst.replace(":", ""))
    seq = 0
    for size in sizes:
        if size < 24 or size > 1514:
            sys.exit(f"frames: size {size}: 24 to 1514")
        for _ in range(count):
            hdr = dst + src + struct.pack("!H", ETHERTYPE)
            body = MAGIC + struct.pack("!IH", seq, size)
            frame = hdr + body + pattern(seq, size - len(hdr) - len(body))
            s.send(frame)
            seq += 1
            # a paced stream: the link under test is not what is measured
            time.sleep(0.002)


def recv(ifname, count, timeout):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETHERTYPE))
    s.bind((ifname, ETHERTYPE))
    print("ready", flush=True)
    intact = bad = 0
    lo, hi = 1 << 30, 0
    end = time.monotonic() + timeout
    seen = set()
    while intact < count:
        left = end - time.monotonic()
        if left <= 0 or not select.select([s], [], [], left)[0]:
            break
        f = s.recv(65536)
        if len(f) < 20 or f[14:18] != MAGIC:
            continue
        seq, size = struct.unpack("!IH", f[18:24])
        ok = len(f) == size and f[24:] == pattern(seq, size - 24) and seq not in seen
        if ok:
            intact += 1
            seen.add(seq)
            lo, hi = min(lo, size), max(hi, size)
        else:
            bad += 1
            if bad <= 3:
                print(f"# bad frame: seq {seq} says {size} bytes, came with {len(f)}",
                      file=sys.stderr)
    print(f"intact={intact} bad={bad} sizes={lo if intact else 0}-{hi}", flush=True)
    return 0 if intact == count and bad == 0 else 1


def main():
    a = sys.argv[1:]
    if len(a) == 5 and a[0] == "send":
        send(a[1], a[2], [int(x) for x in a[3].split(",")], int(a[4]))
        return 0
    if len(a) in (3, 4) and a[0] == "recv":
        return recv(a[1], int(a[2]), float(a[3]) if len(a) == 4 else 30)
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
