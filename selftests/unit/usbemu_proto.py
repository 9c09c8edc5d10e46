#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""usbemu's device side over USB/IP, without a kernel: this script plays
vhci_hcd on one end of a socketpair (usbemu --usbip-fd) and the far side
on another (--far-fd, a frame per datagram), and checks what each
personality answers: descriptors, the CDC requests, the link notifications,
frames both ways (NCM's NTBs parsed and built), unlinks, the NAK and
bloat buffers, and hostile input (malformed NTBs, random control requests
and payloads), which must be refused or counted, never crash. Run with a
usbemu built with ASan and UBSan: usbemu_unit.sh. Prints KTAP.

    usbemu_proto.py USBEMU
"""
import os
import random
import select
import signal
import socket
import struct
import subprocess
import sys
import time

USBEMU = sys.argv[1]
N = 0
FAILED = 0


def ok(name, cond, why=""):
    global N, FAILED
    N += 1
    if cond:
        print(f"ok {N} {name}")
    else:
        FAILED += 1
        print(f"not ok {N} {name}" + (f" # {why}" if why else ""))


class Dev:
    """one usbemu, driven as vhci_hcd would drive it"""

    def __init__(self, pers, *opts):
        self.host, dev = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.far, far = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.ctl = f"/tmp/usbemu-unit-{os.getpid()}-{pers}.sock"
        self.p = subprocess.Popen(
            [USBEMU, "--usbip-fd", str(dev.fileno()), "--far-fd", str(far.fileno()),
             "-c", self.ctl, "-m", "02:00:00:00:00:01", *opts, pers],
            pass_fds=(dev.fileno(), far.fileno()), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        dev.close()
        far.close()
        self.seq = 0
        self.buf = b""
        line = self.p.stdout.readline()
        if not line.startswith("attached"):
            raise SystemExit(f"usbemu did not start: {line!r} {self.p.stderr.read()}")

    def submit(self, ep, direction, length, data=b"", setup=b"\0" * 8, flags=0):
        self.seq += 1
        h = struct.pack("!IIIIIIiiii", 1, self.seq, 0x10000, direction, ep, flags,
                        length, 0, 0, 0) + setup
        self.host.sendall(h + (data if direction == 0 else b""))
        return self.seq

    def unlink(self, victim):
        self.seq += 1
        self.host.sendall(struct.pack("!IIIIII", 2, self.seq, 0x10000, 0, 0, victim) + b"\0" * 24)
        return self.seq

    def _read(self, n, timeout):
        end = time.monotonic() + timeout
        while len(self.buf) < n:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.host], [], [], left)[0]:
                return None
            d = self.host.recv(1 << 20)
            if not d:
                return None
            self.buf += d
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def reply(self, timeout=5):
        """(command, seqnum, status, data) of the next reply, or None"""
        h = self._read(48, timeout)
        if h is None:
            return None
        cmd, seq = struct.unpack("!II", h[:8])
        status, alen = struct.unpack("!ii", h[20:28])
        data = b""
        if cmd == 3 and alen > 0 and self.last_in.get(seq):
            data = self._read(alen, timeout)
        return cmd, seq, status, data

    last_in = {}

    def control(self, rtype, req, value=0, index=0, length=0, data=b""):
        setup = struct.pack("<BBHHH", rtype, req, value, index, length if rtype & 0x80 else len(data))
        direction = 1 if rtype & 0x80 else 0
        seq = self.submit(0, direction, length if direction else len(data), data, setup)
        self.last_in[seq] = direction == 1
        r = self.reply()
        return (r[2], r[3]) if r else (None, b"")

    def bulk_in(self, length, ep=2):
        seq = self.submit(ep, 1, length)
        self.last_in[seq] = True
        return seq

    def bulk_out(self, data, flags=0):
        return self.submit(3, 0, len(data), data, flags=flags)

    def stats(self):
        r = subprocess.run([USBEMU, "ctl", self.ctl, "stats"], capture_output=True, text=True)
        return dict(kv.split("=", 1) for kv in r.stdout.split())

    def ctlcmd(self, *words):
        return subprocess.run([USBEMU, "ctl", self.ctl, *words], capture_output=True,
                              text=True).stdout.strip()

    def far_recv(self, timeout=5):
        if not select.select([self.far], [], [], timeout)[0]:
            return None
        return self.far.recv(1 << 17)

    def close(self):
        self.host.close()
        try:
            out, err = self.p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            out, err = self.p.communicate()
        return self.p.returncode, err


def descriptors(blob):
    """[(type, bytes)] of a configuration descriptor"""
    out, i = [], 0
    while i + 2 <= len(blob) and blob[i] >= 2:
        out.append((blob[i + 1], blob[i:i + blob[i]]))
        i += blob[i]
    return out


def enumerate_dev(d):
    st, dd = d.control(0x80, 6, 0x100, 0, 64)
    st2, head = d.control(0x80, 6, 0x200, 0, 9)
    total = struct.unpack("<H", head[2:4])[0] if st2 == 0 and len(head) >= 4 else 0
    st3, conf = d.control(0x80, 6, 0x200, 0, total)
    d.control(0x00, 9, 1)
    return dd, head, conf


def frame(n, seed):
    return bytes([0x02, 0, 0, 0, 0, 0x09, 0x02, 0, 0, 0, 0, 0x01, 0x88, 0xb5]) + \
        bytes(((seed + i) % 251) + 1 for i in range(n - 14))


def ntb16(frames, seq=0):
    """an NTB16 with FRAMES, as cdc_ncm builds one"""
    body, idx, off = b"", [], 12
    for f in frames:
        idx.append((off, len(f)))
        pad = (-len(f)) % 4
        body += f + b"\0" * pad
        off += len(f) + pad
    ndp = off
    ndp_len = 8 + 4 * (len(frames) + 1)
    blob = struct.pack("<IHHHH", 0x484D434E, 12, seq, ndp + ndp_len, ndp) + body
    blob += struct.pack("<IHH", 0x304D434E, ndp_len, 0)
    for o, n in idx:
        blob += struct.pack("<HH", o, n)
    return blob + b"\0\0\0\0"


def parse_ntb16(blob):
    sig, hl, seq, blk, ndp = struct.unpack("<IHHHH", blob[:12])
    if sig != 0x484D434E or blk > len(blob):
        return None
    out = []
    sig, nl, nxt = struct.unpack("<IHH", blob[ndp:ndp + 8])
    if sig != 0x304D434E:
        return None
    for i in range(ndp + 8, ndp + nl, 4):
        o, n = struct.unpack("<HH", blob[i:i + 4])
        if not o or not n:
            break
        out.append(blob[o:o + n])
    return out


def test_ecm():
    d = Dev("dongle")
    dd, head, conf = enumerate_dev(d)
    ok("ecm_device_descriptor", len(dd) == 18 and dd[4] == 2 and dd[8:12] == bytes.fromhex("6b1d0501"),
       dd.hex())
    desc = descriptors(conf)
    ifaces = [x for t, x in desc if t == 4]
    ok("ecm_interfaces", head[4] == 2 and [(i[2], i[3], i[5], i[6]) for i in ifaces] ==
       [(0, 0, 2, 6), (1, 0, 10, 0), (1, 1, 10, 0)], str([i.hex() for i in ifaces]))
    eth = [x for t, x in desc if t == 0x24 and x[2] == 0x0F]
    st, s = d.control(0x80, 6, 0x300 | eth[0][3], 0x409, 255) if eth else (None, b"")
    ok("ecm_mac_string", s[2:].decode("utf-16-le") == "020000000001", repr(s))
    ok("ecm_unknown_string_stalls", d.control(0x80, 6, 0x3ff, 0x409, 255)[0] == -32)
    d.control(0x01, 11, 1, 1)
    ok("ecm_packet_filter", d.control(0x21, 0x43, 0x0c, 0)[0] == 0)
    # the link: SPEED_CHANGE, then NETWORK_CONNECTION
    notes = []
    for _ in range(2):
        seq = d.bulk_in(16, ep=1)
        r = d.reply()
        notes.append(r[3][1] if r and r[3] else None)
    ok("ecm_link_notifications", notes == [0x2A, 0x00], str(notes))
    # a third interrupt URB waits, and an unlink answers it
    seq = d.bulk_in(16, ep=1)
    u = d.unlink(seq)
    r = d.reply()
    ok("ecm_unlink_pending", r and r[0] == 4 and r[1] == u and r[2] == -104, str(r))
    # uplink: a frame, and one usbnet padded by a zero byte (1024 + 1)
    f1, f2 = frame(100, 1), frame(1024, 2)
    d.bulk_out(f1)
    d.bulk_out(f2 + b"\0")
    rets = [d.reply() for _ in range(2)]
    got = [d.far_recv(), d.far_recv()]
    ok("ecm_uplink_frames", got == [f1, f2] and all(r and r[2] == 0 for r in rets),
       f"{[len(g or b'') for g in got]}")
    # downlink: a frame from the far side into a pending IN URB
    seq = d.bulk_in(1514)
    f3 = frame(1514, 3)
    d.far.send(f3)
    r = d.reply()
    ok("ecm_downlink_frame", r and r[1] == seq and r[3] == f3, str(r and len(r[3])))
    ok("ecm_vendor_request_stalls", d.control(0xC0, 0x55, 0, 0, 4)[0] == -32)
    rc, err = d.close()
    ok("ecm_exit_clean", rc == 0 and "ERROR" not in err and "runtime error" not in err, err[-500:])


def test_ncm(pers, ntb_max, vid_pid):
    d = Dev(pers)
    dd, head, conf = enumerate_dev(d)
    ok(f"{pers}_ids", dd[8:12] == bytes.fromhex(vid_pid), dd[8:12].hex())
    st, p = d.control(0xA1, 0x80, 0, 0, 28)
    fields = struct.unpack("<HHIHHHHIHHHH", p) if len(p) == 28 else ()
    ok(f"{pers}_ntb_parameters", st == 0 and fields[2] == ntb_max and fields[7] == ntb_max
       and fields[1] == 1, str(fields))
    ok(f"{pers}_ntb_input_size_bounds",
       d.control(0x21, 0x86, 0, 0, data=struct.pack("<I", ntb_max + 4))[0] == -32 and
       d.control(0x21, 0x86, 0, 0, data=struct.pack("<I", 8192))[0] == 0 and
       d.control(0xA1, 0x85, 0, 0, 4)[1] == struct.pack("<I", 8192))
    # ntb-input=refuse: a SET_NTB_INPUT_SIZE within bounds stalls, is
    # counted, and the size stays
    r0 = int(d.stats()["ntb-in-refused"])
    ok(f"{pers}_ntb_input_refused",
       d.ctlcmd("set", "ntb-input=refuse") == "ok" and
       d.control(0x21, 0x86, 0, 0, data=struct.pack("<I", 4096))[0] == -32 and
       d.control(0xA1, 0x85, 0, 0, 4)[1] == struct.pack("<I", 8192) and
       int(d.stats()["ntb-in-refused"]) == r0 + 1 and
       d.ctlcmd("set", "ntb-input=accept") == "ok" and
       d.stats()["ntb-input"] == "accept")
    d.control(0x01, 11, 0, 1)
    d.control(0x01, 11, 1, 1)
    # SET_INTERFACE resets the input size to the device's
    ok(f"{pers}_alt_resets_input_size", d.control(0xA1, 0x85, 0, 0, 4)[1] == struct.pack("<I", ntb_max))
    frames = [frame(60, 1), frame(1514, 2), frame(513, 3)]
    d.bulk_out(ntb16(frames))
    d.reply()
    got = [d.far_recv() for _ in frames]
    ok(f"{pers}_ntb_out_parsed", got == frames, str([len(g or b"") for g in got]))
    # three frames waiting, then one IN transfer takes them in one NTB
    for f in frames:
        d.far.send(f)
    deadline = time.monotonic() + 5
    while int(d.stats()["ready"]) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    seq = d.bulk_in(ntb_max)
    r = d.reply()
    ok(f"{pers}_ntb_in_built", r and parse_ntb16(r[3]) == frames, str(r and r[3][:16].hex()))
    # hostile NTBs: each refused and counted, nothing passed on
    bad = [b"", b"NCMH", ntb16(frames)[:20],
           struct.pack("<IHHHH", 0x484D434E, 12, 0, 40, 14) + b"\0" * 28,          # misaligned NDP
           struct.pack("<IHHHH", 0x484D434E, 12, 0, 40, 12) + struct.pack("<IHH", 0x304D434E, 16, 12)
           + struct.pack("<HHHH", 200, 60, 0, 0) + b"\0" * 12,                       # datagram past the end
           struct.pack("<IHHHH", 0x484D434E, 12, 0, 32, 12) + struct.pack("<IHH", 0x304D434E, 16, 12)
           + b"\0" * 12,                                                              # an NDP chain that loops
           struct.pack("<IHHHH", 0x484D434E, 12, 0, 0xffff, 12) + b"\0" * 20]         # block longer than sent
    before = int(d.stats()["bad-ntbs"])
    for b in bad:
        d.bulk_out(b)
        d.reply()
    st = d.stats()
    ok(f"{pers}_hostile_ntbs_counted", int(st["bad-ntbs"]) - before == len(bad) and d.far_recv(0.2) is None,
       f"bad-ntbs {st['bad-ntbs']} (was {before})")
    # random NTBs and control requests: answered, never a crash
    rnd = random.Random(7)
    for i in range(1500):
        good = bytearray(ntb16([frame(rnd.randint(20, 1514), i)]))
        for _ in range(rnd.randint(1, 6)):
            good[rnd.randrange(len(good))] = rnd.randrange(256)
        d.bulk_out(bytes(good[:rnd.randint(0, len(good))]))
        d.reply()
        rt = rnd.choice([0x80, 0x00, 0xA1, 0x21, 0xC0, 0x40])
        d.control(rt, rnd.randrange(256), rnd.randrange(65536), rnd.randrange(4),
                  rnd.randrange(300), bytes(rnd.randrange(256) for _ in range(rnd.randrange(12)))
                  if not rt & 0x80 else b"")
    while d.far_recv(0.05) is not None:
        pass
    ok(f"{pers}_random_input_survived", d.p.poll() is None, d.p.stderr.read() if d.p.poll() is not None else "")
    rc, err = d.close()
    ok(f"{pers}_exit_clean", rc == 0 and "ERROR" not in err and "runtime error" not in err, err[-500:])


def test_qmi():
    d = Dev("modem")
    dd, head, conf = enumerate_dev(d)
    ifaces = [x for t, x in descriptors(conf) if t == 4]
    eps = [x for t, x in descriptors(conf) if t == 5]
    ok("qmi_one_vendor_interface", dd[8:12] == bytes.fromhex("7c2c2501") and len(ifaces) == 1 and
       ifaces[0][4:8] == bytes([3, 0xFF, 0xFF, 0xFF]) and [e[3] for e in eps] == [3, 2, 2],
       f"{dd.hex()} {[i.hex() for i in ifaces]}")
    ok("qmi_dtr", d.control(0x21, 0x22, 1, 0)[0] == 0)
    # a zero-length-packet frame (URB_ZERO_PACKET) is not trimmed
    f = frame(1024, 5)
    d.bulk_out(f, flags=0x40)
    d.reply()
    ok("qmi_zlp_frame_whole", d.far_recv() == f)
    rc, err = d.close()
    ok("qmi_exit_clean", rc == 0 and "runtime error" not in err, err[-500:])


def test_buffers():
    # nak: a 3000-byte buffer drained at 8 kbit/s takes two 1500-byte
    # transfers and holds the rest on the host; bloat takes all and drops
    for mode in ("nak", "bloat"):
        d = Dev("dongle", f"mode={mode}", "rate-up=8k", "buf-up=3000", "burst=1")
        enumerate_dev(d)
        d.control(0x01, 11, 1, 1)
        seqs = [d.bulk_out(frame(1500, i)) for i in range(5)]
        want = 2 if mode == "nak" else 5
        rets = [d.reply(2) for _ in range(want)]
        extra = d.reply(0.3)
        st = d.stats()
        if mode == "nak":
            ok("nak_holds_transfers", all(rets) and extra is None and st["urbs-held"] == "3"
               and st["up-drops"] == "0", f"held {st['urbs-held']} drops {st['up-drops']}")
            # a backlogged egress is never idle
            ok("backlog_not_idle", st["up-idle-us"] == "0", f"up-idle-us {st['up-idle-us']}")
            # the host gives up on one: it is unlinked from the device
            u = d.unlink(seqs[4])
            r = d.reply()
            ok("nak_unlink_held", r and r[0] == 4 and r[1] == u and r[2] == -104 and
               d.stats()["urbs-held"] == "2", str(r))
        else:
            ok("bloat_takes_and_drops", all(rets) and st["urbs-held-max"] == "0"
               and st["up-drops"] == "3", f"held {st['urbs-held-max']} drops {st['up-drops']}")
        d.close()
    d = Dev("dongle")
    ok("ctl_refuses_bad_setting", d.ctlcmd("set", "rate-up=fast").startswith("error: rate-up: bad value")
       and d.ctlcmd("set", "burst=99999999999G").startswith("error: burst: bad value")
       and d.ctlcmd("set", "delay-us=-1").startswith("error: delay-us: bad value")
       and d.ctlcmd("set", "nosuch=1").startswith("error: unknown setting")
       and d.ctlcmd("set", "rate-up=5M", "delay-us=100") == "ok" and d.stats()["rate-up"] == "5000000")
    d.close()


def test_late():
    # a process stopped while frames are due wakes late, and says so: what
    # tells a starved emulator from a sender that left the link idle
    d = Dev("dongle", "mode=nak", "rate-up=80k", "buf-up=3000", "burst=1")
    enumerate_dev(d)
    d.control(0x01, 11, 1, 1)
    for i in range(5):
        d.bulk_out(frame(1500, i))
    ok("late_transfers_taken", all(d.reply(2) for _ in range(2)))
    before = int(d.stats()["late-us"])
    os.kill(d.p.pid, signal.SIGSTOP)
    time.sleep(0.6)
    os.kill(d.p.pid, signal.SIGCONT)
    after = int(d.stats()["late-us"])
    ok("late_counted", after - before >= 300000, f"late-us {before} -> {after}")
    d.close()


def test_garbage():
    # a stream that is not USB/IP ends the device with a message, not a crash
    d = Dev("ncm")
    d.host.sendall(struct.pack("!I", 9) + b"\0" * 44)
    rc, err = d.close()
    ok("garbage_stream_refused", rc == 1 and "unknown USB/IP command 9" in err, f"{rc} {err[-300:]}")


PLAN = 43


def main():
    print("KTAP version 1")
    print(f"1..{PLAN}")
    test_ecm()
    test_ncm("ncm", 16384, "6b1d0601")
    test_ncm("dock", 65536, "e9170060")
    test_qmi()
    test_buffers()
    test_late()
    test_garbage()
    print(f"# totals: pass:{N - FAILED} fail:{FAILED} skip:0")
    return 1 if FAILED or N != PLAN else 0


if __name__ == "__main__":
    sys.exit(main())
