#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The usbeth family through the kernel's python YNL library and the spec.

    ynl_usbeth.py dump             every device of the netns, a JSON line each
    ynl_usbeth.py get IFNAME       one device, a JSON line
    ynl_usbeth.py set JSON         a set request, attributes by their spec
                                   names; prints {"ok": true}, or the error:
                                   {"errno": "ERANGE", "extack": {...}}
    ynl_usbeth.py monitor SECONDS  joins the monitor group, prints "ready",
                                   then "NAME JSON" per notification, until
                                   SECONDS pass

A front end for usbeth_ynl.sh, with no knowledge of the family of its own:
everything it sends and decodes is the kernel's YNL library (tools/net/ynl/lib
of the kernel source scripts/setup.sh unpacks: $USBETH_YNL, else
$USBETH_CACHE/ynl) reading uapi/usbeth.yaml, validated against the kernel's
schema of the protocol the spec declares. Flag sets (caps) print as sorted
lists of names.
"""
import errno
import json
import os
import select
import socket
import sys
import time

import yaml

# the family's spec: USBETH_SPEC (selftests/lib.sh: the tree's or the
# installed one), else the checkout this file is in
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC = os.environ.get('USBETH_SPEC') or os.path.join(TOP, 'uapi', 'usbeth.yaml')


def ynl_dir():
    d = os.environ.get('USBETH_YNL')
    if not d:
        cache = os.environ.get('USBETH_CACHE') or os.path.join(
            os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'), 'usbeth')
        d = os.path.join(cache, 'ynl')
    return d


YNL = ynl_dir()
sys.path.insert(0, os.path.join(YNL, 'tools', 'net', 'ynl'))
from lib import YnlFamily, NlError  # noqa: E402  (the path is set just above)


def family():
    with open(SPEC) as f:
        proto = yaml.safe_load(f).get('protocol', 'genetlink')
    schema = os.path.join(YNL, 'Documentation', 'netlink', proto + '.yaml')
    # USBETH_YNL_RECV: a receive buffer for replies larger than YNL's
    # default (128 KiB), e.g. a device with thousands of TX queues; the
    # socket's buffer is raised to match (the kernel caps it at rmem_max)
    recv = int(os.environ.get('USBETH_YNL_RECV', '0'))
    if not recv:
        return YnlFamily(SPEC, schema)
    ynl = YnlFamily(SPEC, schema, recv_size=recv)
    ynl.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, recv)
    return ynl


def dumps(obj):
    return json.dumps(obj, sort_keys=True,
                      default=lambda o: sorted(o) if isinstance(o, set) else str(o))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    ynl = family()
    if cmd == 'dump' and not args:
        for dev in ynl.dump('get', {}):
            print(dumps(dev))
    elif cmd == 'get' and len(args) == 1:
        print(dumps(ynl.do('get', {'ifname': args[0]})))
    elif cmd == 'set' and len(args) == 1:
        try:
            ynl.do('set', json.loads(args[0]))
        except NlError as e:
            print(dumps({'errno': errno.errorcode.get(e.error, str(e.error)),
                         'extack': e.nl_msg.extack or {}}))
            return 1
        print(dumps({'ok': True}))
    elif cmd == 'monitor' and len(args) == 1:
        # ntf_subscribe() binds the socket: before any request
        ynl.ntf_subscribe('monitor')
        print('ready', flush=True)
        end = time.monotonic() + float(args[0])
        while True:
            left = end - time.monotonic()
            if left <= 0 or not select.select([ynl.sock], [], [], left)[0]:
                break
            ynl.check_ntf()
            while ynl.async_msg_queue:
                ntf = ynl.async_msg_queue.pop(0)
                print(ntf['name'], dumps(ntf['msg']), flush=True)
    else:
        sys.exit(__doc__)
    return 0


if __name__ == '__main__':
    sys.exit(main())
