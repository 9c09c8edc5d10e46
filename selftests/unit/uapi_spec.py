#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check uapi/linux/usbeth.h against its spec, uapi/usbeth.yaml.

    uapi_spec.py validate SPEC         the spec's structure and references
    uapi_spec.py docs SPEC             every definition, entry, attribute set,
                                       attribute and operation has a doc
    uapi_spec.py gen SPEC OUT.c        write a C file that includes
                                       <linux/usbeth.h> and nothing else, with a
                                       _Static_assert per name and value the
                                       spec defines, and a main() that checks
                                       the string defines at run time
    uapi_spec.py extra SPEC HEADER     the header defines nothing the spec does
                                       not, and each named enum holds exactly
                                       the spec's members, in order

Each prints what is wrong, one line per problem, and exits 1 if anything is.

C names follow the kernel's YNL rules (Documentation/userspace-api/netlink/
c-code-gen.rst), including the genetlink-c naming overrides: c-family-name,
c-version-name, max-by-define, cmd-cnt-name, cmd-max-name, name-prefix and
enum-name, attr-cnt-name and attr-max-name, c-define-name. Two conventions of
this family's hand-written header that YNL does not render are derived here:

  - an attribute or command enum whose first value is 1 starts with an
    UNSPEC member at 0, named after its count name: __USBETH_A_BQLQS_MAX
    gives USBETH_A_BQLQS_UNSPEC;
  - a flags definition with render-max ends with __<PREFIX>ALL, the mask of
    every bit (rather than YNL's <PREFIX>MASK).
"""

import re
import sys

try:
    import yaml
except ImportError:
    sys.exit("uapi_spec.py: the python3 yaml module is missing "
             "(Debian: python3-yaml, see scripts/setup.sh)")

NAME_RE = re.compile(r'^[0-9a-z-]+$')
LIMIT_RE = re.compile(r'^[su](8|16|32|64)-(min|max)$')

TOP_KEYS = {'name', 'doc', 'protocol', 'uapi-header', 'c-family-name',
            'c-version-name', 'max-by-define', 'cmd-max-name', 'cmd-cnt-name',
            'definitions', 'attribute-sets', 'operations', 'mcast-groups',
            'kernel-family'}
DEF_KEYS = {'name', 'header', 'type', 'doc', 'value', 'value-start', 'entries',
            'render-max', 'enum-name', 'name-prefix'}
ENTRY_KEYS = {'name', 'value', 'doc'}
SET_KEYS = {'name', 'name-prefix', 'enum-name', 'doc', 'subset-of',
            'attr-cnt-name', 'attr-max-name', 'attributes'}
ATTR_KEYS = {'name', 'type', 'doc', 'value', 'type-value', 'byte-order',
             'multi-attr', 'nested-attributes', 'enum', 'enum-as-flags',
             'checks', 'sub-type', 'display-hint', 'name-prefix'}
CHECK_KEYS = {'flags-mask', 'min', 'max', 'min-len', 'max-len', 'exact-len'}
OPS_KEYS = {'enum-model', 'name-prefix', 'enum-name', 'async-prefix',
            'async-enum', 'list'}
OP_KEYS = {'name', 'doc', 'value', 'attribute-set', 'flags', 'dont-validate',
           'config-cond', 'do', 'dump', 'notify', 'event', 'mcgrp'}
SUBOP_KEYS = {'request', 'reply', 'pre', 'post'}
MSG_KEYS = {'attributes'}
MCGRPS_KEYS = {'list'}
MCGRP_KEYS = {'name', 'c-define-name', 'flags'}

ATTR_TYPES = {'unused', 'pad', 'flag', 'binary', 'uint', 'sint', 'u8', 'u16',
              'u32', 'u64', 's8', 's16', 's32', 's64', 'string', 'nest',
              'indexed-array', 'nest-type-value'}
INT_TYPES = {'uint', 'sint', 'u8', 'u16', 'u32', 'u64', 's8', 's16', 's32',
             's64'}
OP_FLAGS = {'admin-perm', 'uns-admin-perm'}


def c_upper(name):
    return name.upper().replace('-', '_')


def c_lower(name):
    return name.lower().replace('-', '_')


def load(path):
    with open(path, encoding='utf-8') as f:
        return yaml.safe_load(f)


def entries_of(d):
    """(name, doc) of an enum's or flags' entries, string or object form."""
    out = []
    for e in d.get('entries') or []:
        if isinstance(e, dict):
            out.append((e.get('name'), e.get('doc'), e.get('value')))
        else:
            out.append((e, None, None))
    return out


# ------------------------------------------------------------ validate ---
def validate(spec):
    errs = []

    def err(where, msg):
        errs.append(f'{where}: {msg}')

    def keys(where, obj, allowed):
        if not isinstance(obj, dict):
            err(where, f'expected a mapping, got {type(obj).__name__}')
            return False
        for k in obj:
            if k not in allowed:
                err(where, f"unknown key '{k}'")
        return True

    def name_ok(where, name):
        if not isinstance(name, str) or not NAME_RE.match(name):
            err(where, f"bad name {name!r} (want [0-9a-z-]+)")
            return False
        return True

    def unique(where, names):
        seen = set()
        for n in names:
            if n in seen:
                err(where, f"duplicate name '{n}'")
            seen.add(n)

    def strictly_increasing(where, values):
        for a, b in zip(values, values[1:]):
            if b <= a:
                err(where, f'values not increasing ({a} then {b})')

    if not keys('top level', spec, TOP_KEYS):
        return errs
    for k in ('name', 'doc', 'protocol', 'attribute-sets', 'operations'):
        if k not in spec:
            err('top level', f"missing '{k}'")
    name_ok('top level', spec.get('name'))
    if spec.get('protocol') not in ('genetlink', 'genetlink-c'):
        err('top level', f"protocol {spec.get('protocol')!r} is not genetlink")

    defs = spec.get('definitions') or []
    consts, enums = {}, {}
    for i, d in enumerate(defs):
        where = f'definitions[{i}]'
        if not keys(where, d, DEF_KEYS):
            continue
        where = f"definition '{d.get('name')}'"
        name_ok(where, d.get('name'))
        t = d.get('type')
        if t == 'const':
            if not isinstance(d.get('value'), (int, str)) or \
               isinstance(d.get('value'), bool):
                err(where, 'const without an integer or string value')
            consts[d['name']] = d.get('value')
        elif t in ('enum', 'flags'):
            ents = d.get('entries')
            if not isinstance(ents, list) or not ents:
                err(where, 'no entries')
                continue
            for j, e in enumerate(ents):
                if isinstance(e, dict):
                    keys(f'{where} entry {j}', e, ENTRY_KEYS)
                    if e.get('value') is not None and \
                       (not isinstance(e['value'], int) or e['value'] < 0):
                        err(f'{where} entry {j}', 'bad value')
                name_ok(f'{where} entry {j}',
                        e.get('name') if isinstance(e, dict) else e)
            unique(where, [n for n, _, _ in entries_of(d)])
            enums[d['name']] = d
        else:
            err(where, f"type {t!r} is not const, enum or flags")
    unique('definitions', [d.get('name') for d in defs if isinstance(d, dict)])

    sets = {}
    for i, s in enumerate(spec.get('attribute-sets') or []):
        if not keys(f'attribute-sets[{i}]', s, SET_KEYS):
            continue
        name_ok(f'attribute-sets[{i}]', s.get('name'))
        sets[s.get('name')] = s
    unique('attribute-sets', [s.get('name') for s in
                              spec.get('attribute-sets') or []
                              if isinstance(s, dict)])
    if not sets:
        err('attribute-sets', 'none')

    def limit(where, v):
        if isinstance(v, bool):
            err(where, f'bad limit {v!r}')
            return None
        if isinstance(v, int):
            return v
        if isinstance(v, str) and LIMIT_RE.match(v):
            return None
        if isinstance(v, str) and v in consts and isinstance(consts[v], int):
            return consts[v]
        err(where, f'limit {v!r} is not an integer, an integer const or '
                   'a type limit')
        return None

    for sname, s in sets.items():
        where = f"attribute-set '{sname}'"
        if s.get('subset-of') is not None:
            if s['subset-of'] not in sets:
                err(where, f"subset-of unknown set '{s['subset-of']}'")
        attrs = s.get('attributes')
        if not isinstance(attrs, list) or not attrs:
            err(where, 'no attributes')
            continue
        values, val = [], 0
        for j, a in enumerate(attrs):
            if not keys(f'{where} attribute {j}', a, ATTR_KEYS):
                continue
            aw = f"{where} attribute '{a.get('name')}'"
            name_ok(aw, a.get('name'))
            val = a['value'] if a.get('value') is not None else val + 1
            if not isinstance(val, int) or val < 0:
                err(aw, 'bad value')
                val = 0
            values.append(val)
            t = a.get('type')
            if s.get('subset-of') is None and t not in ATTR_TYPES:
                err(aw, f'bad type {t!r}')
            if t in ('nest', 'indexed-array', 'nest-type-value'):
                if a.get('nested-attributes') not in sets:
                    err(aw, f"nested-attributes {a.get('nested-attributes')!r}"
                            ' is not an attribute set')
            elif 'nested-attributes' in a:
                err(aw, f'nested-attributes on a {t} attribute')
            if 'enum' in a:
                if a['enum'] not in enums:
                    err(aw, f"enum {a['enum']!r} is not an enum or flags "
                            'definition')
                if t not in INT_TYPES:
                    err(aw, f'enum on a {t} attribute')
            for b in ('multi-attr', 'enum-as-flags'):
                if b in a and not isinstance(a[b], bool):
                    err(aw, f'{b} is not a boolean')
            chk = a.get('checks')
            if chk is not None and keys(f'{aw} checks', chk, CHECK_KEYS):
                lo = limit(f'{aw} checks min', chk['min']) \
                    if 'min' in chk else None
                hi = limit(f'{aw} checks max', chk['max']) \
                    if 'max' in chk else None
                if ('min' in chk or 'max' in chk) and t not in INT_TYPES:
                    err(aw, f'min/max checks on a {t} attribute')
                if lo is not None and hi is not None and lo > hi:
                    err(aw, f'checks min {lo} > max {hi}')
        unique(where, [a.get('name') for a in attrs if isinstance(a, dict)])
        strictly_increasing(where, values)

    ops = spec.get('operations')
    mcgrps = set()
    mc = spec.get('mcast-groups')
    if mc is not None and keys('mcast-groups', mc, MCGRPS_KEYS):
        for i, g in enumerate(mc.get('list') or []):
            if keys(f'mcast-groups[{i}]', g, MCGRP_KEYS):
                name_ok(f'mcast-groups[{i}]', g.get('name'))
                mcgrps.add(g.get('name'))
        unique('mcast-groups', [g.get('name') for g in mc.get('list') or []
                                if isinstance(g, dict)])
    if not keys('operations', ops, OPS_KEYS):
        return errs
    oplist = ops.get('list')
    if not isinstance(oplist, list) or not oplist:
        err('operations', 'no list')
        return errs
    byname = {o.get('name'): o for o in oplist if isinstance(o, dict)}
    values, val = [], 0
    for i, o in enumerate(oplist):
        if not keys(f'operations[{i}]', o, OP_KEYS):
            continue
        ow = f"operation '{o.get('name')}'"
        name_ok(ow, o.get('name'))
        val = o['value'] if o.get('value') is not None else val + 1
        values.append(val)
        if 'doc' not in o:
            err(ow, "missing 'doc'")
        for f in o.get('flags') or []:
            if f not in OP_FLAGS:
                err(ow, f'unknown flag {f!r}')
        aset = o.get('attribute-set')
        if aset is not None and aset not in sets:
            err(ow, f"attribute-set '{aset}' does not exist")

        def msg_attrs(where, msg):
            if msg is None:
                return
            if not keys(where, msg, MSG_KEYS):
                return
            for an in msg.get('attributes') or []:
                if aset not in sets or an not in \
                   [a.get('name') for a in sets[aset]['attributes']]:
                    err(where, f"attribute '{an}' is not in set '{aset}'")

        for sub in ('do', 'dump'):
            if sub in o and keys(f'{ow} {sub}', o[sub], SUBOP_KEYS):
                if aset is None:
                    err(ow, f'{sub} without an attribute-set')
                for m in ('request', 'reply'):
                    msg_attrs(f'{ow} {sub} {m}', o[sub].get(m))
        if 'notify' in o:
            tgt = byname.get(o['notify'])
            if tgt is None or not any('reply' in (tgt.get(s) or {})
                                      for s in ('do', 'dump')):
                err(ow, f"notify '{o['notify']}' is not an operation with "
                        'a reply')
        if 'event' in o:
            if aset is None:
                err(ow, 'event without an attribute-set')
            msg_attrs(f'{ow} event', o['event'])
        if ('notify' in o or 'event' in o) and ('do' in o or 'dump' in o):
            err(ow, 'a notification with do or dump')
        if 'mcgrp' in o and o['mcgrp'] not in mcgrps:
            err(ow, f"mcgrp '{o['mcgrp']}' is not a multicast group")
        if not any(k in o for k in ('do', 'dump', 'notify', 'event')):
            err(ow, 'neither do, dump, notify nor event')
    unique('operations', [o.get('name') for o in oplist
                          if isinstance(o, dict)])
    strictly_increasing('operations', values)
    return errs


# ---------------------------------------------------------------- docs ---
def docs(spec):
    missing = []

    def need(where, obj):
        d = obj.get('doc') if isinstance(obj, dict) else None
        if not isinstance(d, str) or not d.strip():
            missing.append(f'{where}: no doc')

    need('family', spec)
    for d in spec.get('definitions') or []:
        w = f"{d.get('type')} '{d.get('name')}'"
        need(w, d)
        for e in d.get('entries') or []:
            if isinstance(e, dict):
                need(f"{w} entry '{e.get('name')}'", e)
            else:
                missing.append(f"{w} entry '{e}': no doc")
    for s in spec.get('attribute-sets') or []:
        w = f"attribute-set '{s.get('name')}'"
        need(w, s)
        for a in s.get('attributes') or []:
            need(f"{w} attribute '{a.get('name')}'", a)
    for o in (spec.get('operations') or {}).get('list') or []:
        need(f"operation '{o.get('name')}'", o)
    return missing


# --------------------------------------------------------------- model ---
class Model:
    """The C names and values the spec implies.

    enums: [(tag or None, [(NAME, value, origin)...])], members in order.
    ints: [(NAME, value, origin)] #defines with integer values.
    strs: [(NAME, value, origin)] #defines with string values.
    """

    def __init__(self, spec):
        fam = spec['name']
        by_define = spec.get('max-by-define', False)
        self.enums, self.ints, self.strs = [], [], []

        self.strs.append((c_upper(spec.get('c-family-name',
                                           f'{fam}-family-name')),
                          fam, 'family name'))
        self.ints.append((c_upper(spec.get('c-version-name',
                                           f'{fam}-family-version')),
                          spec.get('version', 1), 'family version'))
        for g in (spec.get('mcast-groups') or {}).get('list') or []:
            self.strs.append((c_upper(g.get('c-define-name',
                                            f"{fam}-mcgrp-{g['name']}")),
                              g['name'], f"mcast group '{g['name']}'"))

        for d in spec.get('definitions') or []:
            if d['type'] == 'const':
                val = d['value']
                lst = self.strs if isinstance(val, str) else self.ints
                lst.append((c_upper(f"{fam}-{d['name']}"), val,
                            f"const '{d['name']}'"))
                continue
            pfx = d.get('name-prefix', f"{fam}-{d['name']}-")
            tag = d['enum-name'] if 'enum-name' in d \
                else f"{fam}-{d['name']}"
            origin = f"{d['type']} '{d['name']}'"
            members = []
            nxt = d.get('value-start', 0)
            for ename, _, evalue in entries_of(d):
                v = evalue if evalue is not None else nxt
                nxt = v + 1
                cval = (1 << v) if d['type'] == 'flags' else v
                members.append((c_upper(pfx + ename), cval,
                                f"{origin} entry '{ename}'"))
            if d.get('render-max'):
                if d['type'] == 'flags':
                    mask = 0
                    for _, v, _ in members:
                        mask |= v
                    members.append(('__' + c_upper(pfx + 'all'), mask,
                                    f'{origin}: every bit'))
                else:
                    cnt = members[-1][1] + 1
                    members.append(('__' + c_upper(pfx + 'max'), cnt,
                                    f'{origin}: count'))
                    self._max(members, c_upper(pfx + 'max'), cnt - 1,
                              f'{origin}: max', by_define)
            self.enums.append((c_lower(tag) if tag else None, members))

        for s in spec.get('attribute-sets') or []:
            if s.get('subset-of'):
                continue
            if 'name-prefix' in s:
                pfx = s['name-prefix']
            elif s['name'] == fam:
                pfx = f'{fam}-a-'
            else:
                pfx = f"{fam}-a-{s['name']}-"
            cnt_name = c_upper(s.get('attr-cnt-name', f'__{pfx}max'))
            max_name = c_upper(s.get('attr-max-name', f'{pfx}max'))
            origin = f"attribute-set '{s['name']}'"
            members, nxt = [], 1
            for a in s['attributes']:
                v = a['value'] if a.get('value') is not None else nxt
                nxt = v + 1
                members.append((c_upper(pfx + a['name']), v,
                                f"{origin} attribute '{a['name']}'"))
            self._finish(members, cnt_name, max_name, origin, by_define)
            self.enums.append((c_lower(s['enum-name'])
                               if s.get('enum-name') else None, members))

        ops = spec['operations']
        pfx = ops.get('name-prefix', f'{fam}-cmd-')
        cnt_name = c_upper(spec.get('cmd-cnt-name', f'__{pfx}max'))
        max_name = c_upper(spec.get('cmd-max-name', f'{pfx}max'))
        members, nxt = [], 1
        for o in ops['list']:
            v = o['value'] if o.get('value') is not None else nxt
            nxt = v + 1
            members.append((c_upper(pfx + o['name']), v,
                            f"operation '{o['name']}'"))
        self._finish(members, cnt_name, max_name, 'operations', by_define)
        self.enums.append((c_lower(ops['enum-name'])
                           if ops.get('enum-name') else None, members))

    def _max(self, members, name, value, origin, by_define):
        if by_define:
            self.ints.append((name, value, origin))
        else:
            members.append((name, value, origin))

    def _finish(self, members, cnt_name, max_name, origin, by_define):
        """UNSPEC at 0 when values start at 1; the count and max names."""
        if members and members[0][1] == 1:
            base = cnt_name[2:] if cnt_name.startswith('__') else cnt_name
            base = base[:-3] if base.endswith('MAX') else base + '_'
            members.insert(0, (base + 'UNSPEC', 0, f'{origin}: unspec'))
        cnt = members[-1][1] + 1
        members.append((cnt_name, cnt, f'{origin}: count'))
        self._max(members, max_name, cnt - 1, f'{origin}: max', by_define)

    def names(self):
        out = {n for _, ms in self.enums for n, _, _ in ms}
        out |= {n for n, _, _ in self.ints + self.strs}
        return out


# ----------------------------------------------------------------- gen ---
def c_str(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def gen(spec):
    m = Model(spec)
    out = ['/* Generated by selftests/unit/uapi_spec.py from uapi/usbeth.yaml.',
           ' * Built with -nostdinc: the header must stand alone. */',
           '#include <linux/usbeth.h>', '']
    n = 0
    for tag, members in m.enums:
        if tag:
            out.append(f'_Static_assert(sizeof(enum {tag}) > 0, '
                       f'{c_str(f"enum {tag} (spec) is missing")});')
            n += 1
        for name, val, origin in members:
            out.append(f'_Static_assert({name} == {val}, '
                       f'{c_str(f"{name} should be {val} ({origin})")});')
            n += 1
    for name, val, origin in m.ints:
        out.append(f'_Static_assert({name} == {val}, '
                   f'{c_str(f"{name} should be {val} ({origin})")});')
        n += 1
    for name, val, origin in m.strs:
        msg = f'{name} should be the string {c_str(val)} ({origin})'
        out.append(f'_Static_assert(sizeof({name}) == sizeof({c_str(val)}), '
                   f'{c_str(msg)});')
        n += 1
    out += ['', 'int puts(const char *s);', '',
            'static int streq(const char *a, const char *b)', '{',
            '\twhile (*a && *a == *b) {', '\t\ta++;', '\t\tb++;', '\t}',
            '\treturn *a == *b;', '}', '',
            'int main(void)', '{', '\tint bad = 0;', '']
    for name, val, origin in m.strs:
        msg = f'{name} is not the string {c_str(val)} ({origin})'
        out += [f'\tif (!streq({name}, {c_str(val)})) {{',
                f'\t\tputs({c_str(msg)});', '\t\tbad = 1;', '\t}']
    out += ['\treturn bad;', '}', f'/* {n} static checks */', '']
    return '\n'.join(out)


# --------------------------------------------------------------- extra ---
def parse_header(text):
    """(#define names, [(enum tag or None, [member names])], leftover text)."""
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    guard = None
    g = re.search(r'^\s*#\s*ifndef\s+(\w+)\s*\n\s*#\s*define\s+\1\b', text,
                  re.M)
    if g:
        guard = g.group(1)
    defines = []
    for d in re.finditer(r'^\s*#\s*define\s+(\w+)', text, re.M):
        if d.group(1) != guard:
            defines.append(d.group(1))
    rest = re.sub(r'^\s*#[^\n]*(\\\n[^\n]*)*', ' ', text, flags=re.M)
    enums = []

    def take(mo):
        members = []
        for item in mo.group(2).split(','):
            item = item.strip()
            if not item:
                continue
            nm = re.match(r'(\w+)\s*(=|$)', item)
            members.append(nm.group(1) if nm else item)
        enums.append((mo.group(1), members))
        return ' '
    rest = re.sub(r'\benum\s+(\w+)?\s*\{([^}]*)\}\s*;', take, rest)
    return defines, enums, rest.strip()


def extra(spec, header_text):
    m = Model(spec)
    known = m.names()
    defines, enums, rest = parse_header(header_text)
    errs = []
    if rest:
        errs.append('header has declarations the spec does not describe: '
                    + ' '.join(rest.split())[:200])
    for d in defines:
        if d not in known:
            errs.append(f'#define {d} is not in the spec')
    for d in sorted({d for d in defines if defines.count(d) > 1}):
        errs.append(f'#define {d} is defined more than once')
    spec_enums = {tag: [n for n, _, _ in ms] for tag, ms in m.enums if tag}
    spec_anon = [[n for n, _, _ in ms] for tag, ms in m.enums if not tag]
    seen = set()
    for tag, members in enums:
        for n in members:
            if n not in known:
                errs.append(f"enum {tag or '(anonymous)'}: {n} is not in "
                            'the spec')
        if tag is None:
            if members not in spec_anon:
                errs.append(f'anonymous enum {{{", ".join(members)}}} is '
                            'not in the spec')
            continue
        if tag in seen:
            errs.append(f'enum {tag} is defined more than once')
        seen.add(tag)
        if tag not in spec_enums:
            errs.append(f'enum {tag} is not in the spec')
        elif members != spec_enums[tag]:
            errs.append(f'enum {tag} members differ from the spec:\n'
                        f'  header: {" ".join(members)}\n'
                        f'  spec:   {" ".join(spec_enums[tag])}')
    for tag in spec_enums:
        if tag not in seen:
            errs.append(f'enum {tag} (spec) is not in the header')
    return errs


def main(argv):
    usage = ('usage: uapi_spec.py validate|docs SPEC | gen SPEC OUT.c | '
             'extra SPEC HEADER')
    if len(argv) < 3:
        sys.exit(usage)
    cmd, spec_path = argv[1], argv[2]
    try:
        spec = load(spec_path)
    except (OSError, yaml.YAMLError) as e:
        print(f'{spec_path}: {e}')
        return 1
    if cmd == 'validate' and len(argv) == 3:
        errs = validate(spec)
    elif cmd == 'docs' and len(argv) == 3:
        errs = docs(spec)
    elif cmd in ('gen', 'extra') and len(argv) == 4:
        errs = validate(spec)
        if errs:
            errs.insert(0, 'the spec is not valid:')
        elif cmd == 'gen':
            with open(argv[3], 'w', encoding='utf-8') as f:
                f.write(gen(spec))
        else:
            with open(argv[3], encoding='utf-8') as f:
                errs = extra(spec, f.read())
    else:
        sys.exit(usage)
    for e in errs:
        print(e)
    return 1 if errs else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
