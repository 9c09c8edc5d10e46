#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lay out, in STAGE, what a machine running KERNEL has once usbeth is
# installed, with the selftests installed as the kselftest target `usbeth`
# by the kernel's own tooling: `make check` boots the VM with STAGE over
# its /usr (selftests/vm/guest-run.sh --installed) and runs the installed
# list with run_kselftest.sh, against the installed module and programs.
#
#   kselftest-install.sh KERNEL STAGE
#
# STAGE/usr gets:
#   - `make install` of a copy of this tree (the files git knows), laid out
#     as the Debian packages have it (PREFIX=/usr, multiarch LIBDIR, the
#     unit and udev rule under /usr/lib): the CLI and the daemon linked to
#     libusbeth.so.0, the profiles, the spec, the rule, the unit;
#   - the module built for KERNEL where DKMS puts it,
#     lib/modules/ABI/updates/dkms/usbeth.ko, with the stock modules beside
#     it (their tree linked, not copied) and the indexes depmod makes of
#     both, so `modprobe usbeth` finds it;
#   - lib/usbeth/kselftest: `make -C tools/testing/selftests TARGETS=usbeth
#     INSTALL_PATH=... install` of the kernel's kselftest framework
#     (Makefile, lib.mk, run_kselftest.sh, kselftest/ of linux-source-6.12,
#     unpacked by setup.sh), with selftests/ as tools/testing/selftests/usbeth:
#     the helpers built against the installed libusbeth (pkg-config), the
#     test modules against KERNEL's headers (TEST_GEN_MODS_DIR), and
#     usbethd-hooks, the daemon with its test hooks, built in the copy of
#     the tree like the installed daemon (LINK=shared) and installed beside
#     the tests only (USBETHD_HOOKS=): never in STAGE/usr's sbin.
#
# KERNEL must be one built with this machine's compiler (no build root:
# 6.1), since the kselftest build compiles the test modules here.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

say() { echo "kselftest-install: $*"; }
die() { echo "kselftest-install: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: kselftest-install.sh KERNEL STAGE"
eval "$("$top/scripts/kernel-env.sh" "$1")" || exit 2
[ -z "$KBUILDROOT" ] ||
	die "kernel $KLABEL is built with ${KCC%% *} in a build root; the kselftest install builds its test modules with this machine's compiler (pick a kernel like 6.1)"
stage=$2
ksrc=$USBETH_CACHE/ynl/tools/testing/selftests
[ -f "$ksrc/lib.mk" ] && [ -f "$ksrc/run_kselftest.sh" ] ||
	die "no kselftest framework in $ksrc (scripts/setup.sh unpacks it)"
kmod=$top/build/kmod/$KLABEL/kmod/usbeth.ko
[ -r "$kmod" ] || die "the module for $KLABEL is not built ($kmod: make)"
multiarch=$(gcc -print-multiarch)

rm -rf "$stage"
mkdir -p "$stage/root" "$stage/src"
stage=$(cd "$stage" && pwd)
root=$stage/root

# 1. the tree, as `make install` on a clean checkout installs it (a copy:
# LINK=shared relinks the programs, and the tree's own must stay static)
say "make install of the tree into $root"
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' |
	tar --null -T - -cf -) | tar -xf - -C "$stage/src"
make -s -C "$stage/src" install DESTDIR="$root" PREFIX=/usr \
	LIBDIR="/usr/lib/$multiarch" UNITDIR=/usr/lib/systemd/system \
	UDEVDIR=/usr/lib/udev/rules.d MODLOADDIR=/usr/lib/modules-load.d SYSCONFDIR=/etc \
	> "$stage/install.log" 2>&1 || { tail -n 20 "$stage/install.log" >&2; die "make install failed"; }
make -s -C "$stage/src/usbethd" LINK=shared usbethd-hooks >> "$stage/install.log" 2>&1 ||
	{ tail -n 20 "$stage/install.log" >&2; die "usbethd-hooks did not build"; }

# 2. the module, as DKMS installs it, among the stock ones
say "the module for $KABI in /usr/lib/modules/$KABI/updates/dkms"
m=$root/usr/lib/modules/$KABI
stock=$KROOT/lib/modules/$KABI
mkdir -p "$m/updates/dkms"
install -m 0644 "$kmod" "$m/updates/dkms/usbeth.ko"
ln -s "$stock/kernel" "$m/kernel"
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -e "$stock/$f" ] && cp "$stock/$f" "$m/"
done
ln -s usr/lib "$root/lib"
depmod -b "$root" "$KABI"
grep -q '^updates/dkms/usbeth.ko:' "$m/modules.dep" || die "depmod did not index usbeth.ko"

# 3. the kselftest target, by the kernel's framework
say "make -C tools/testing/selftests TARGETS=usbeth install (linux-source $(cat "$USBETH_CACHE/ynl/VERSION" 2>/dev/null))"
kt=$stage/ktree
mkdir -p "$kt/tools/testing/selftests" "$kt/scripts"
cp -r "$ksrc/Makefile" "$ksrc/lib.mk" "$ksrc/run_kselftest.sh" "$ksrc/kselftest" \
	"$kt/tools/testing/selftests/"
cp "$USBETH_CACHE/ynl/scripts/subarch.include" "$kt/scripts/"
cp -r "$stage/src/selftests" "$kt/tools/testing/selftests/usbeth"
inst=$root/usr/lib/usbeth/kselftest
PKG_CONFIG_PATH=$root/usr/lib/$multiarch/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root \
	make -C "$kt/tools/testing/selftests" TARGETS=usbeth INSTALL_PATH="$inst" \
	KDIR="$KDIR" USBETHD_HOOKS="$stage/src/usbethd/usbethd-hooks" install > "$stage/kselftest.log" 2>&1 ||
	{ tail -n 30 "$stage/kselftest.log" >&2; die "the kselftest install failed (log: $stage/kselftest.log)"; }
[ -s "$inst/kselftest-list.txt" ] || die "no kselftest-list.txt in $inst"
[ -x "$inst/usbeth/usbethd-hooks" ] || die "no usbethd-hooks in $inst/usbeth"
say "$(wc -l < "$inst/kselftest-list.txt") tests in $inst/kselftest-list.txt"
