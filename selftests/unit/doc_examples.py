#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The examples of README.md, usbethd(8) and usbethd.profiles(5), run as
a reader would copy them, on a stock install laid out in a temporary
directory (the shipped profiles, an empty /etc/usbeth/profiles.d): each
page's examples in its order, on an install of its own.

What is run: the commands that need no module and no root beyond the
files (usbethd --check, usbethd --explain --device, install/rm of a
profile, systemctl reload usbethd, which here validates as the daemon's
reload would); every JSON example is written to the file the text names
just before it. Where a page shows a command's output (a line after a
"$ " or "# " prompt), the output must be what the command prints. The
other commands (those that need the module, root or packages) are listed
and left to the VM tests. Then the README's own profile is checked to
apply with the README's enabled shipped profile beside it.

usage: doc_examples.py TOP USBETHD     prints KTAP; exit 0 when all passed
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import ktap

TOP, USBETHD = sys.argv[1], sys.argv[2]
PROFILE_PATH = re.compile(r"/etc/usbeth/profiles\.d/[A-Za-z0-9._+@-]+\.json")
# commands run here; anything else is reported as left to the VM tests
RUNNABLE = re.compile(r"^(sudo )?(usbethd --check|usbethd --explain --device "
                      r"|install -m 0644 /usr/share/usbeth/profiles\.available/"
                      r"|systemctl reload usbethd|rm /etc/usbeth/profiles\.d/)")

results = []


def result(ok, name, diag=None):
    results.append((ok, name, diag))


class Install:
    """A stock install under a temporary root, with wrappers on PATH."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="usbeth-doc.")
        os.chmod(self.root, 0o755)
        share = os.path.join(self.root, "usr/share/usbeth")
        os.makedirs(share)
        for d in ("profiles.d", "profiles.available"):
            shutil.copytree(os.path.join(TOP, "usbethd", d),
                            os.path.join(share, d))
        os.makedirs(os.path.join(self.root, "etc/usbeth/profiles.d"))
        for dirpath, dirs, files in os.walk(self.root):
            os.chmod(dirpath, 0o755)
            for f in files:
                os.chmod(os.path.join(dirpath, f), 0o644)
        self.bin = os.path.join(self.root, "bin")
        os.makedirs(self.bin)
        r = self.root
        self.wrap("usbethd", f'exec "{USBETHD}" -d "{r}/usr/share/usbeth/profiles.d" '
                  f'-d "{r}/etc/usbeth/profiles.d" '
                  f'--available-dir "{r}/usr/share/usbeth/profiles.available" "$@"')
        self.wrap("sudo", 'exec "$@"')
        # a reload loads the profiles as the daemon's does: a bad one fails
        self.wrap("systemctl", '[ "$*" = "reload usbethd" ] || '
                  '{ echo "systemctl $*: not run here" >&2; exit 1; }\n'
                  f'exec "{self.bin}/usbethd" --check > /dev/null')

    def wrap(self, name, body):
        p = os.path.join(self.bin, name)
        with open(p, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(p, 0o755)

    def path(self, p):
        return self.root + p

    def run(self, cmd):
        """Runs cmd (paths of the install mapped into the root); rc, output
        with the root taken out again."""
        cmd = cmd.replace("/usr/share/usbeth/", self.root + "/usr/share/usbeth/")
        cmd = cmd.replace("/etc/usbeth/", self.root + "/etc/usbeth/")
        env = dict(os.environ, PATH=self.bin + ":" + os.environ["PATH"])
        p = subprocess.run(["bash", "-c", cmd], env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        return p.returncode, p.stdout.replace(self.root, "")

    def write(self, path, text):
        with open(self.path(path), "w") as f:
            f.write(text)
        os.chmod(self.path(path), 0o644)

    def close(self):
        shutil.rmtree(self.root)


def man_text(line):
    """A line of roff as the reader sees it."""
    for a, b in (("\\-", "-"), ("\\e", "\\"), ("\\(dq", '"'), ("\\(aq", "'"),
                 ("\\&", ""), ("\\fB", ""), ("\\fI", ""), ("\\fR", "")):
        line = line.replace(a, b)
    return line


def blocks_markdown(path):
    """(kind, line number, lines, the profile path named last before it)
    of each fenced block."""
    out, cur, named = [], None, None
    for n, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if cur is None and line.startswith("```"):
            cur = (line[3:].strip(), n, [], named)
        elif cur is not None and line.startswith("```"):
            out.append(cur)
            cur = None
        elif cur is not None:
            cur[2].append(line)
        else:
            m = PROFILE_PATH.findall(line)
            if m:
                named = m[-1]
    return out


def blocks_man(path):
    out, cur, named = [], None, None
    for n, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if line.startswith(".EX"):
            cur = ("", n, [], named)
        elif line.startswith(".EE") and cur is not None:
            first = next((x for x in cur[2] if x.strip()), "")
            kind = "json" if first.startswith("{") else "sh"
            out.append((kind,) + cur[1:])
            cur = None
        elif cur is not None:
            cur[2].append(man_text(line))
        else:
            m = PROFILE_PATH.findall(man_text(line))
            if m:
                named = m[-1]
    return out


def commands(lines):
    """(command, expected output lines or None) of a shell block: with
    prompts ("$ ", "# "), the lines after a command are its output;
    without, every logical line (backslash continuations joined) is a
    command."""
    prompted = any(x.startswith(("$ ", "# ")) for x in lines)
    out, cur = [], None
    if prompted:
        for x in lines:
            if x.startswith(("$ ", "# ")):
                cur = [x[2:], []]
                out.append(cur)
            elif cur is not None:
                cur[1].append(x)
        return [(c, o) for c, o in out]
    joined = ""
    for x in lines:
        if x.endswith("\\"):
            joined += x[:-1] + " "
            continue
        joined += x
        if joined.strip():
            out.append((joined.strip(), None))
        joined = ""
    return out


def run_page(page, blocks):
    inst = Install()
    for kind, n, lines, named in blocks:
        where = f"{page}:{n}"
        if kind == "json":
            if not named:
                result(False, f"{where}_json_names_its_file",
                       "no /etc/usbeth/profiles.d/NAME.json named before it")
                continue
            inst.write(named, "\n".join(lines) + "\n")
            continue
        if kind not in ("sh", ""):
            continue
        for cmd, want in commands(lines):
            if not RUNNABLE.match(cmd):
                print(f"# {where}: not run here (the module, root or "
                      f"packages): {cmd}")
                continue
            rc, got = inst.run(cmd)
            name = f"{where}: {cmd}"
            if rc != 0:
                result(False, name, f"exit {rc}:\n{got}")
            elif want is not None and got.rstrip("\n") != "\n".join(want).rstrip("\n"):
                result(False, name, "output differs from the page's:\n" +
                       "want:\n" + "\n".join(want) + "\ngot:\n" + got)
            else:
                result(True, name)
    inst.close()
    return blocks


def main():
    readme = os.path.join(TOP, "README.md")
    man8 = os.path.join(TOP, "usbethd/usbethd.8")
    man5 = os.path.join(TOP, "usbethd/usbethd.profiles.5")
    rb = run_page("README.md", blocks_markdown(readme))
    run_page("usbethd.8", blocks_man(man8))
    # usbethd.profiles(5): its examples, together on a stock install,
    # pass --check (none leans on a profile that ships disabled)
    b5 = run_page("usbethd.profiles.5", blocks_man(man5))
    inst = Install()
    njson = 0
    for kind, n, lines, named in b5:
        if kind == "json" and named:
            inst.write(named, "\n".join(lines) + "\n")
            njson += 1
    rc, got = inst.run("usbethd --check")
    result(rc == 0 and njson >= 2, "usbethd.profiles.5_examples_pass_check_on_stock_install",
           f"{njson} examples; exit {rc}:\n{got}")
    inst.close()
    # the README's own profile applies with the README's enabled shipped
    # profile beside it, whatever the modem's speed
    inst = Install()
    own = [(n, lines, named) for kind, n, lines, named in rb
           if kind == "json" and named]
    enable = [c for kind, n, lines, named in rb if kind == "sh"
              for c, _ in commands(lines)
              if re.search(r"profiles\.available/[a-z0-9-]+\.json", c)]
    ok = len(own) == 1 and len(enable) == 1
    result(ok, "readme_has_one_own_profile_and_the_enable_command",
           f"{len(own)} own profiles, {len(enable)} enable commands")
    if ok:
        inst.run(enable[0])
        inst.write(own[0][2], "\n".join(own[0][1]) + "\n")
        name = os.path.basename(own[0][2])[:-5]
        for speed in ("super", "high", "full"):
            rc, got = inst.run("usbethd --explain --device vid=1199,pid=9071,"
                               f"driver=cdc_ncm,speed={speed}")
            m = re.search(r"^winner: (\S+)", got, re.M)
            result(rc == 0 and m and m.group(1) == name,
                   f"readme_own_profile_wins_{speed}", got)
        # and a modem of the same vendor that is not the admin's: the
        # shipped default, which sets nothing
        rc, got = inst.run("usbethd --explain --device vid=1199,pid=9091,driver=cdc_ncm")
        m = re.search(r"^winner: (\S+)", got, re.M)
        result(rc == 0 and m and m.group(1) == "default",
               "readme_other_modem_gets_default", got)
    inst.close()

    return ktap.finish(results)


sys.exit(main())
