#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Send one hand-built usbeth request and print the kernel's answer.

For negative tests only: libusbeth (rightly) cannot build the malformed
requests these tests need to prove the kernel refuses.

  genl_raw.py CMD [--dump] [TYPE:u32:VALUE | TYPE:u16:VALUE | TYPE:str:VALUE]...
  genl_raw.py --dump-between SHELL_COMMAND

Prints "errno=NAME" (or "errno=0") and "extack=TEXT" when the kernel gave
one, "offset_attr=TYPE" when the extack points at one of our attributes.

--dump-between dumps GET reading one datagram at a time into a small
buffer (so the kernel builds the dump in several chunks), runs
SHELL_COMMAND after the first chunk, and checks every message's framing
as the kernel sent it: prints "datagrams=N messages=N intr=N
malformed=N errno=NAME".
"""
import errno
import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_CAP_ACK, NETLINK_EXT_ACK = 10, 11
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP, NLM_F_DUMP_INTR = 1, 4, 0x300, 0x10
NLMSG_ERROR, NLMSG_DONE = 2, 3
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 16, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
NLMSGERR_ATTR_MSG, NLMSGERR_ATTR_OFFS = 1, 2


def attr(atype, payload):
    hdr = struct.pack("=HH", 4 + len(payload), atype)
    return hdr + payload + b"\0" * ((4 - len(payload) % 4) % 4)


def message(family, cmd, flags, attrs, seq):
    body = struct.pack("=BBH", cmd, 1, 0) + b"".join(attrs)
    return struct.pack("=IHHII", 16 + len(body), family, flags, seq, 0) + body


def attrs_of(buf):
    out, off = {}, 0
    while off + 4 <= len(buf):
        alen, atype = struct.unpack_from("=HH", buf, off)
        if alen < 4:
            break
        out[atype & 0x3FFF] = buf[off + 4:off + alen]
        off += (alen + 3) & ~3
    return out


def transact(sock, msg):
    sock.send(msg)
    replies = []
    while True:
        data = sock.recv(65536)
        off = 0
        while off + 16 <= len(data):
            mlen, mtype, mflags, _, _ = struct.unpack_from("=IHHII", data, off)
            replies.append((mtype, mflags, data[off + 16:off + mlen]))
            if mtype in (NLMSG_ERROR, NLMSG_DONE):
                return replies
            off += (mlen + 3) & ~3


def dump_between(family, command):
    """One GET dump, SHELL_COMMAND run between its first two chunks."""
    import subprocess
    # A socket of its own: the kernel sizes a dump's datagrams by the
    # largest read the socket has seen (up to 32 KiB); this one reads 8 KiB.
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    sock.bind((0, 0))
    sock.send(message(family, 1, NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP, [], 3))
    datagrams = messages = intr = malformed = 0
    err = None
    while err is None:
        data, _, mflags, _ = sock.recvmsg(8192)
        datagrams += 1
        if mflags & socket.MSG_TRUNC:
            malformed += 1
            err = -1
            break
        off = 0
        while off < len(data):
            if off + 16 > len(data):
                malformed += 1
                break
            mlen, mtype, mflags, _, _ = struct.unpack_from("=IHHII", data, off)
            if mlen < 16 or off + mlen > len(data):
                malformed += 1
                break
            if mflags & NLM_F_DUMP_INTR:
                intr += 1
            if mtype in (NLMSG_ERROR, NLMSG_DONE):
                err = -struct.unpack_from("=i", data, off + 16)[0]
                break
            if mtype == family:
                messages += 1
            off += (mlen + 3) & ~3
        if malformed and err is None:
            err = -1
        if datagrams == 1 and err is None:
            subprocess.run(command, shell=True, check=True)
    name = "malformed" if err == -1 else (errno.errorcode.get(err, str(err)) if err else "0")
    print("datagrams=%d messages=%d intr=%d malformed=%d errno=%s"
          % (datagrams, messages, intr, malformed, name))
    return 0 if err == 0 and not malformed else 2


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    between = None
    if args[0] == "--dump-between" and len(args) == 2:
        between = args[1]
        args = ["1"]
    cmd = int(args.pop(0))
    dump = "--dump" in args
    args = [a for a in args if a != "--dump"]
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
    sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
    sock.bind((0, 0))

    req = message(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_REQUEST | NLM_F_ACK,
                  [attr(CTRL_ATTR_FAMILY_NAME, b"usbeth\0")], 1)
    family = None
    for mtype, _, payload in transact(sock, req):
        if mtype == GENL_ID_CTRL:
            family = struct.unpack("=H", attrs_of(payload[4:])[CTRL_ATTR_FAMILY_ID][:2])[0]
    if family is None:
        print("errno=ENOENT")
        sys.exit(2)
    if between is not None:
        return dump_between(family, between)

    attrs = []
    for a in args:
        atype, kind, value = a.split(":", 2)
        if kind == "u32":
            attrs.append(attr(int(atype), struct.pack("=I", int(value))))
        elif kind == "u16":
            attrs.append(attr(int(atype), struct.pack("=H", int(value))))
        else:
            attrs.append(attr(int(atype), value.encode() + b"\0"))
    flags = NLM_F_REQUEST | NLM_F_ACK | (NLM_F_DUMP if dump else 0)
    msg = message(family, cmd, flags, attrs, 2)
    for mtype, mflags, payload in transact(sock, msg):
        if mtype not in (NLMSG_ERROR, NLMSG_DONE):
            continue
        # NLMSG_ERROR: error, our (capped) header, TLVs; a dump ends with
        # NLMSG_DONE: error, TLVs
        err = -struct.unpack_from("=i", payload)[0]
        print("errno=%s" % (errno.errorcode.get(err, str(err)) if err else "0"))
        skip = 4 + 16 if mtype == NLMSG_ERROR else 4
        tlvs = attrs_of(payload[skip:]) if mflags & 0x200 else {}  # NLM_F_ACK_TLVS
        if NLMSGERR_ATTR_MSG in tlvs:
            print("extack=%s" % tlvs[NLMSGERR_ATTR_MSG].rstrip(b"\0").decode(errors="replace"))
        if NLMSGERR_ATTR_OFFS in tlvs:
            off = struct.unpack("=I", tlvs[NLMSGERR_ATTR_OFFS][:4])[0]
            pos = 20  # nlmsghdr + genlmsghdr
            for a in attrs:
                if pos == off:
                    print("offset_attr=%d" % struct.unpack_from("=H", a, 2)[0])
                pos += len(a)
        return 0 if err == 0 else 2
    print("errno=none")
    return 2


if __name__ == "__main__":
    sys.exit(main())
