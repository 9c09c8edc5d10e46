#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every formatted extack of kmod/ fits the kernel's buffer at its longest:
# NETLINK_MAX_FMTMSG_LEN is 80 with the NUL, and a longer message is cut
# and logged as "truncated extack" per refusal. Each usbeth_extack_msg()
# format is expanded with the widest value each argument can take: a
# netdev name 15 characters (IFNAMSIZ - 1: udev's enx + 12 hex digits),
# a knob name the longest of kmod/'s, an errno 5 ("-4095"), a u32 10, an
# int 11; %.Ns at most N. An argument this check cannot bound fails it:
# bound it in the format (%.Ns) or teach it here.
here=$(cd "$(dirname "$0")" && pwd)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
source "$here/../lib.sh"

out=$(python3 - "$USBETH_TOP"/kmod/*.c <<'EOF'
import re, sys

LIMIT = 79          # NETLINK_MAX_FMTMSG_LEN - 1
IFNAME = 15         # IFNAMSIZ - 1
ERRNO = 5           # -MAX_ERRNO

def split_args(s):
    """The top-level comma-separated arguments of a call's text."""
    args, depth, cur, q = [], 0, '', None
    i = 0
    while i < len(s):
        c = s[i]
        if q:
            cur += c
            if c == '\\':
                cur += s[i + 1]
                i += 1
            elif c == q:
                q = None
        elif c in '"\'':
            q = c
            cur += c
        elif c in '([{':
            depth += 1
            cur += c
        elif c in ')]}':
            depth -= 1
            cur += c
        elif c == ',' and depth == 0:
            args.append(cur.strip())
            cur = ''
        else:
            cur += c
        i += 1
    if cur.strip():
        args.append(cur.strip())
    return args

def literal(expr):
    """The text of adjacent string literals, or None."""
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', expr)
    rest = re.sub(r'"((?:[^"\\]|\\.)*)"', '', expr).strip()
    return ''.join(parts) if parts and not rest else None

src = {p: open(p).read() for p in sys.argv[1:]}
knob_names = [n for s in src.values() for n in re.findall(r'\.name = "([a-z-]+)"', s)]
knob_names += [n for s in src.values() for n in re.findall(r'return "([a-z-]+)";', s)]
KNOB = max(map(len, knob_names))

def width_s(arg):
    lit = literal(arg)
    if lit is not None:
        return len(lit)
    m = re.fullmatch(r'.*\?\s*("[^"]*")\s*:\s*("[^"]*")', arg)
    if m:
        return max(len(literal(m.group(1))), len(literal(m.group(2))))
    if re.search(r'(->|\.)name$|nla_data\(name\)|^ifname$', arg) and 'knob' not in arg:
        return IFNAME
    if re.search(r'knob|coal_name|k->name', arg):
        return KNOB
    return None

def width(conv, arg):
    m = re.fullmatch(r'%(\.(\d+))?([a-z]+)', conv)
    prec, kind = m.group(2), m.group(3)
    if kind == 's':
        w = width_s(arg)
        if prec:
            w = int(prec) if w is None else min(w, int(prec))
        return w
    if kind == 'u':
        return 10
    if kind == 'd':
        return ERRNO if re.fullmatch(r'err', arg) else 11
    return None

bad = 0
for path, s in src.items():
    for m in re.finditer(r'usbeth_extack_msg\(', s):
        start = m.end()
        depth, i = 1, start
        while depth:
            depth += {'(': 1, ')': -1}.get(s[i], 0)
            i += 1
        args = split_args(s[start:i - 1])
        line = s[:m.start()].count('\n') + 1
        fmt = literal(args[3])
        where = f'{path.rsplit("/", 1)[-1]}:{line}'
        if fmt is None:
            print(f'{where}: format is not a literal'); bad += 1; continue
        convs = re.findall(r'%(?:\.\d+)?[a-z]', fmt)
        total = len(re.sub(r'%(?:\.\d+)?[a-z]', '', fmt))
        for conv, arg in zip(convs, args[4:]):
            w = width(conv, arg)
            if w is None:
                print(f'{where}: cannot bound {conv} of {arg}'); bad += 1; w = 0
            total += w
        status = 'ok' if total <= LIMIT else 'TOO LONG'
        if total > LIMIT:
            bad += 1
        print(f'{where}: {total} {status}: "{fmt}"')
sys.exit(1 if bad else 0)
EOF
)
rc=$?
ktap_plan 1
printf '%s\n' "$out" | sed 's/^/# /'
if [ $rc -eq 0 ] && [ -n "$out" ]; then
	ktap_ok extack_within_limit
else
	ktap_fail extack_within_limit "a formatted extack can exceed 79 characters"
fi
ktap_finish
