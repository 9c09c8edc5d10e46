#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Let the test guest drive its own QEMU monitor, so a test can plug and
unplug a USB device at run time as a user plugs a real one.

    monitor-relay.py QMP_SOCKET GUEST_SOCKET

QMP_SOCKET is QEMU's QMP monitor, GUEST_SOCKET the backend of the guest's
control serial port (ttyS2); QEMU listens on both. Each line the guest
writes is one HMP command ("device_add usb-net,..."), run through QMP's
human-monitor-command; the guest reads back one line: "ok" and the
command's output (newlines as " | "), or "error" and QMP's description.
Only the commands the test library uses are let through. The relay ends
when either socket closes (QEMU has exited).
"""
import json
import socket
import sys
import time

ALLOWED = ("device_add", "device_del", "netdev_add", "netdev_del", "info")


def connect(path, secs=30.0):
    end = time.monotonic() + secs
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.monotonic() > end:
                raise
            time.sleep(0.05)


class Qmp:
    def __init__(self, path):
        self.sock = connect(path)
        self.buf = b""
        self.recv()                          # the greeting
        self.call("qmp_capabilities", {})

    def recv(self):
        while b"\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("QMP closed")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def call(self, cmd, args):
        self.sock.sendall(json.dumps({"execute": cmd, "arguments": args}).encode() + b"\n")
        while True:
            msg = self.recv()
            if "return" in msg or "error" in msg:   # events are skipped
                return msg


def main():
    if len(sys.argv) != 3:
        print("usage: monitor-relay.py QMP_SOCKET GUEST_SOCKET", file=sys.stderr)
        return 2
    qmp = Qmp(sys.argv[1])
    guest = connect(sys.argv[2])
    buf = b""
    while True:
        data = guest.recv(4096)
        if not data:
            return 0
        buf += data.replace(b"\r", b"\n")
        while b"\n" in buf:
            raw, buf = buf.split(b"\n", 1)
            line = raw.decode("ascii", "replace").strip()
            if not line:
                continue
            if line.split()[0] not in ALLOWED:
                reply = "error command not allowed: " + line.split()[0]
            else:
                msg = qmp.call("human-monitor-command", {"command-line": line})
                if "error" in msg:
                    reply = "error " + msg["error"].get("desc", "?")
                else:
                    out = msg["return"].strip()
                    # HMP reports most failures as text, not as a QMP error
                    if out.lower().startswith("error") or "Error:" in out:
                        reply = "error " + " | ".join(out.splitlines())
                    else:
                        reply = "ok " + " | ".join(out.splitlines())
            guest.sendall(reply.encode() + b"\n")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (EOFError, ConnectionError, OSError):
        sys.exit(0)
