#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print the netlink tables of a kernel C file in one canonical form.

    ynl_tables.py UAPI_HEADER C_FILE

kmod/netlink.c keeps its policies and op table by hand (6.1 has no split
ops; the generator's tables are split ops), so uapi_ynl.sh compares them
with what the kernel's generator (ynl-gen-c.py --mode kernel --source) makes
of the spec: both files go through this, and the outputs must be equal.

What is read: the netlink_range_validation structs, the nla_policy arrays,
the genl_ops / genl_split_ops array and the genl_multicast_group array.
What is normalised, and nothing else:
  - spacing, line breaks and trailing commas;
  - a policy's &range is replaced by that range's fields (the generator
    makes one range struct per attribute, the module shares them);
  - the kernel spellings of numbers the spec can only give as numbers:
    IFNAMSIZ - 1 is 15;
  - maxattr = ARRAY_SIZE(policy) - 1 is the policy's size less one;
  - a legacy genl_ops entry is split into its do and dump halves the way
    the kernel does (genl_op_from_full()), GENL_CMD_CAP_DO / _DUMP added;
    the dump half is printed without the policy a legacy op shares with
    its do (the spec's dump takes no attributes: the dump handler refuses
    any, a check of its own);
  - a multicast group's name given as a define of the uapi header is
    replaced by the define's value.
"""
import re
import sys

SPELLINGS = {'IFNAMSIZ-1': '15'}


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def squash(text):
    return re.sub(r'\s+', '', text)


def fields(body):
    """'.a = x, .b = y,' -> {'a': 'x', 'b': 'y'} (spacing removed)."""
    out = {}
    for m in re.finditer(r'\.(\w+)\s*=\s*([^,]+?)\s*(?:,|$)', body.strip()):
        out[m.group(1)] = squash(m.group(2))
    return out


def uapi_strings(header):
    text = open(header).read()
    return dict(re.findall(r'#define\s+(\w+)\s+("[^"]*")', text))


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: ynl_tables.py UAPI_HEADER C_FILE')
    strings = uapi_strings(sys.argv[1])
    text = strip_comments(open(sys.argv[2]).read())
    out = []

    ranges = {}
    for m in re.finditer(r'struct\s+netlink_range_validation(?:_signed)?\s+(\w+)\s*=\s*\{(.*?)\};',
                         text, re.S):
        f = fields(m.group(2))
        ranges[m.group(1)] = '{' + ','.join(f'{k}={f[k]}' for k in sorted(f)) + '}'

    sizes = {}
    for m in re.finditer(r'struct\s+nla_policy\s+(\w+)\s*\[([^\]]*)\]\s*=\s*\{(.*?)\n\};', text, re.S):
        name, size, body = m.group(1), squash(m.group(2)), m.group(3)
        sizes[name] = size
        out.append(f'policy {name}[{size}]')
        for e in re.finditer(r'\[(\w+)\]\s*=\s*(.*?)(?=\n\s*\[|\Z)', body, re.S):
            val = squash(e.group(2)).rstrip(',').replace(',}', '}')
            val = re.sub(r'&(\w+)', lambda r: ranges.get(r.group(1), r.group(0)), val)
            for k, v in SPELLINGS.items():
                val = val.replace(k, v)
            out.append(f'  {e.group(1)} = {val}')

    def maxattr(v):
        m = re.fullmatch(r'ARRAY_SIZE\((\w+)\)-1', v)
        if m and sizes.get(m.group(1), '').endswith('+1'):
            return sizes[m.group(1)][:-2]
        return v

    m = re.search(r'struct\s+genl_(split_)?ops\s+\w+\s*\[[^\]]*\]\s*=\s*\{(.*?)\n\};', text, re.S)
    if not m:
        sys.exit(f'{sys.argv[2]}: no genl_ops or genl_split_ops array')
    split, ops = bool(m.group(1)), []
    for e in re.finditer(r'\{([^{}]*)\}', m.group(2)):
        f = fields(e.group(1))
        flags = set(f.pop('flags', '0').split('|')) - {'0'}
        if 'maxattr' in f:
            f['maxattr'] = maxattr(f['maxattr'])
        if split:
            ops.append((f, flags))
            continue
        do = {k: f[k] for k in ('cmd', 'doit', 'pre_doit', 'post_doit', 'policy', 'maxattr') if k in f}
        dump = {k: f[k] for k in ('cmd', 'dumpit', 'start', 'done') if k in f}
        if 'doit' in f:
            ops.append((do, flags | {'GENL_CMD_CAP_DO'}))
        if 'dumpit' in f:
            ops.append((dump, flags | {'GENL_CMD_CAP_DUMP'}))
    for f, flags in ops:
        desc = ' '.join(f'{k}={f[k]}' for k in sorted(f))
        out.append(f'op {desc} flags={"|".join(sorted(flags))}')

    m = re.search(r'struct\s+genl_multicast_group\s+\w+\s*\[[^\]]*\]\s*=\s*\{(.*?)\n\};', text, re.S)
    for g in re.finditer(r'\{\s*(?:\.name\s*=\s*)?([\w"]+)\s*,?\s*\}', m.group(1) if m else ''):
        out.append(f'mcgrp {strings.get(g.group(1), g.group(1))}')

    print('\n'.join(out))


if __name__ == '__main__':
    main()
