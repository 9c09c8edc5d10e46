#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-packages: the Debian packages (make deb, build/deb/RELEASE/)
# on a freshly installed Debian system, booted as a user's machine boots.
# For each kernel (default: 6.1, Debian 12, and 6.12, Debian 13; KERNELS=
# picks):
#
#   1. a fresh root of that release (scripts/deb-roots.sh system: systemd,
#      udev, the stock kernel image and headers of the matrix's ABI; the
#      cached debootstrap is copied, never used itself);
#   2. `apt-get install ./usbeth*.deb ./libusbeth*.deb` in it (chroot): DKMS
#      builds the module for that kernel with the release's own compiler
#      (checked: its log, dkms status, the module's vermagic and compiler);
#      dpkg -L of every package is kept for the purge check; the file list
#      equals what `make install` lays out;
#   3. the root becomes an ext4 disk image, booted in the VM with its own
#      kernel and Debian's initramfs, systemd as PID 1 and udevd with
#      Debian's stock rules: guest-check.sh boot1 (module loaded at boot,
#      usbethd READY, a modem plugged, renamed to enx<MAC> by udev, its
#      profile applied and restored, apt-get purge, nothing left);
#   4. booted again: guest-check.sh boot2 (the purged system boots clean).
#
# KTAP on stdout, one top-level test per step and kernel, the guest's
# results as subtests; the last line is "N passed, N failed". Work files
# and logs: build/packages/KERNEL/.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/selftests/packages
timeout=${USBETH_PKG_VM_TIMEOUT:-900}

[ "$(id -u)" = 0 ] || { echo "check-packages: needs root (chroot, debootstrap)" >&2; exit 2; }
kernels=${KERNELS:-6.1 6.12}
start=$SECONDS

# shellcheck disable=SC2016 # the inner shell expands them
in_root() { # in_root ROOT CMD...: chrooted, /proc /sys /dev/pts private
	unshare -m /bin/sh -c 'r=$0
		mount -t proc proc "$r/proc" && mount -t sysfs sysfs "$r/sys" &&
		mkdir -p "$r/dev/pts" && mount -t devpts devpts "$r/dev/pts" &&
		exec chroot "$r" "$@"' "$@"
}

n=0
# top NAME STATUS [REASON]: a top-level result
top_result() {
	n=$((n + 1))
	if [ "$2" = ok ]; then
		echo "ok $n $1"
	else
		echo "not ok $n $1${3:+ # $3}"
	fi
}
# sub NAME CMD...: a subtest from a command (its output as diagnostics)
sub() {
	local name=$1 out
	shift
	sn=$((sn + 1))
	if out=$("$@" 2>&1); then
		echo "  ok $sn $name"
	else
		[ -n "$out" ] && printf '%s\n' "$out" | head -n 20 | sed 's/^/  # /'
		echo "  not ok $sn $name"
		sfail=$((sfail + 1))
	fi
}

# boot WORK PHASE: the image booted to the end of guest-check.sh PHASE;
# its KTAP becomes this test's subtests. Single-threaded TCG, as in
# run-vm.sh: multi-threaded TCG loses runs to x86 text patching.
boot() {
	local w=$1 phase=$2 rc
	rm -f "$w/$phase.ktap" "$w/$phase.console"
	timeout "$timeout" qemu-system-x86_64 -accel tcg,thread=single -cpu max -smp 2 -m 1536 \
		-kernel "$w/vmlinuz" -initrd "$w/initrd.img" \
		-append "root=/dev/vda rw console=ttyS0,115200 panic=-1 usbethcheck=$phase" \
		-drive "file=$w/root.img,format=raw,if=virtio" \
		-nic none -display none -no-reboot \
		-chardev "file,id=con,path=$w/$phase.console" -serial chardev:con \
		-chardev "file,id=out,path=$w/$phase.ktap" -serial chardev:out \
		> "$w/$phase.qemu.log" 2>&1
	rc=$?
	sed -e 's/\r$//' -e '/^KTAP version/d' -e 's/^/  /' "$w/$phase.ktap" 2>/dev/null
	if [ $rc -eq 124 ]; then
		top_result "$phase" fail "the VM timed out after ${timeout}s (console: $w/$phase.console)"
	elif ! grep -q '^# totals: ' "$w/$phase.ktap" 2>/dev/null; then
		top_result "$phase" fail "no complete KTAP from the guest (console: $w/$phase.console)"
	elif grep -Eq '^(not ok|Bail out)' "$w/$phase.ktap"; then
		top_result "$phase" fail
	elif [ "$(sed -n 's/^1\.\.//p' "$w/$phase.ktap" | tr -d '\r')" != \
		"$(grep -Ec '^(ok|not ok) ' "$w/$phase.ktap")" ]; then
		top_result "$phase" fail "the guest ran another number of tests than it planned"
	else
		top_result "$phase" ok
	fi
}

install_debs() { # install_debs ROOT LOG
	in_root "$1" /bin/sh -c 'cd /tmp/usbeth-debs &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q ./usbeth*.deb ./libusbeth*.deb' \
		> "$2" 2>&1 || { tail -n 20 "$2"; return 1; }
}

run() {
echo "KTAP version 1"
for k in $kernels; do
	kenv=$("$top/scripts/kernel-env.sh" "$k") || { top_result "install_$k" fail "kernel $k is not set up"; continue; }
	eval "$kenv"
	rel=$KRELEASE
	w=$top/build/packages/$KLABEL
	echo "# ---- $KLABEL: Debian $rel, kernel $KABI"
	debs=()
	for d in "$top/build/deb/$rel"/usbeth*.deb "$top/build/deb/$rel"/libusbeth*.deb; do
		[ -e "$d" ] && [[ $d != *-dbgsym_* ]] && debs+=("$(basename "$d")")
	done
	if [ ${#debs[@]} -lt 6 ]; then
		top_result "install_$KLABEL" fail "no packages in build/deb/$rel: make deb"
		continue
	fi

	# 1-2: a fresh system, the packages installed
	echo "  KTAP version 1"
	sn=0 sfail=0
	sys=$("$top/scripts/deb-roots.sh" system "$KLABEL") || {
		top_result "install_$KLABEL" fail "no system root"; continue; }
	rm -rf "$w" && mkdir -p "$w"
	root=$w/root
	cp -a "$sys" "$root"
	rm -f "$root/.complete"
	mkdir -p "$root/tmp/usbeth-debs"
	# what a user installs: not the -dbgsym packages
	for d in "${debs[@]}"; do cp "$top/build/deb/$rel/$d" "$root/tmp/usbeth-debs/"; done
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	echo "  # apt-get install ./usbeth*.deb ./libusbeth*.deb (log: $w/install.log)"
	sub apt_get_install install_debs "$root" "$w/install.log"
	# DKMS's own lines in the install log, where usbeth-dkms is set up: the
	# module built for KABI and installed into its updates/dkms
	sed -n '/^Setting up usbeth-dkms /,/^Setting up /p' "$w/install.log" > "$w/dkms.log"
	sub dkms_built_for_kernel sh -c "cat '$w/dkms.log' | sed 's/^/dkms: /' | head -n 20 >&2;
		grep -q '/lib/modules/$KABI/updates/dkms' '$w/dkms.log'"
	sub dkms_status_installed sh -c "chroot '$root' dkms status usbeth | grep -F '$KABI' | grep -q 'installed'"
	ko=$(cd "$root" && ls lib/modules/"$KABI"/updates/dkms/usbeth.ko* 2>/dev/null | head -n1)
	sub module_for_kernel sh -c "test -n '$ko' &&
		chroot '$root' modinfo -F vermagic /$ko | grep -q '^$KABI '"
	# the compiler the kernel was built with (KCC: "gcc-14 (Debian 14.2.0-19) 14.2.0")
	cc_id=$(sed -n 's/^[^(]*\(([^)]*)\).*/\1/p' <<< "$KCC")
	sub module_built_by_kernels_compiler sh -c \
		"xz -dcf '$root/$ko' 2>/dev/null | zstd -dcf 2>/dev/null | strings | grep -F 'GCC: $cc_id' | grep -q ."
	sub usbethd_enabled test -L "$root/etc/systemd/system/multi-user.target.wants/usbethd.service"
	# what dpkg installed (and the module DKMS built), for the purge check
	chroot "$root" dpkg -L usbeth usbethd usbeth-dkms libusbeth0 libusbeth-dev usbeth-tests 2>/dev/null |
		grep -v '^/\.$' | sort -u > "$w/files.before"
	[ -n "$ko" ] && echo "/$ko" >> "$w/files.before"
	# make install lays out the same files (paths; not the docs dh adds)
	unitdir=/lib/systemd/system udevdir=/lib/udev/rules.d
	[ "$rel" != bookworm ] && unitdir=/usr/lib/systemd/system udevdir=/usr/lib/udev/rules.d
	make -s -C "$top" install DESTDIR="$w/make-install" PREFIX=/usr \
		LIBDIR=/usr/lib/x86_64-linux-gnu UNITDIR=$unitdir UDEVDIR=$udevdir \
		MODLOADDIR=/usr/lib/modules-load.d > "$w/make-install.log" 2>&1
	(cd "$w/make-install" && find . ! -type d | sed 's/^\.//' | sort) > "$w/make-install.files"
	# (not: directories, or links to them such as merged-usr's /lib; what
	# debhelper adds, docs and lintian overrides; man pages are compared
	# without the .gz debhelper gives them)
	chroot "$root" dpkg -L usbeth usbethd usbeth-dkms libusbeth0 libusbeth-dev 2>/dev/null |
		grep -Ev '^/usr/share/(doc|lintian)/' | while IFS= read -r f; do
			[ -d "$root$f" ] || echo "$f"
		done | sed 's,^\(/usr/share/man/.*\)\.gz$,\1,' | sort -u > "$w/packages.files"
	sub make_install_same_files diff -u "$w/packages.files" "$w/make-install.files"
	if [ $sfail -eq 0 ]; then
		echo "  1..$sn"
		top_result "install_$KLABEL" ok
	else
		echo "  1..$sn"
		top_result "install_$KLABEL" fail "see $w/install.log"
		continue
	fi

	# 3: the disk image, the check installed beside (not in) the packages
	c=$root/usr/local/lib/usbeth-check
	mkdir -p "$c"
	cp "$here/guest-check.sh" "$top/selftests/lib.sh" "$w/files.before" "$c/"
	cp "$here/usbeth-check.service" "$root/etc/systemd/system/"
	ln -sf /etc/systemd/system/usbeth-check.service \
		"$root/etc/systemd/system/multi-user.target.wants/usbeth-check.service"
	echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" > "$root/etc/fstab"
	echo usbeth-check > "$root/etc/hostname"
	rm -rf "$root/tmp/usbeth-debs"
	if ! cp "$root/boot/vmlinuz-$KABI" "$w/vmlinuz" || ! cp "$root/boot/initrd.img-$KABI" "$w/initrd.img"; then
		top_result "boot1_$KLABEL" fail "no kernel or initramfs in the root"
		continue
	fi
	size=$(( $(du -sm "$root" | cut -f1) + 1024 ))
	rm -f "$w/root.img"
	truncate -s "${size}M" "$w/root.img"
	mkfs.ext4 -q -F -L usbeth-root -d "$root" "$w/root.img" > "$w/mkfs.log" 2>&1 || {
		top_result "boot1_$KLABEL" fail "mkfs.ext4 -d failed: $w/mkfs.log"; continue; }
	rm -rf "$root"

	# 4: two boots
	echo "# booting Debian $rel (systemd, udev, $KABI) in the VM: install check"
	boot "$w" boot1
	echo "# booting the purged system again"
	boot "$w" boot2
done

echo "1..$n"
}

mkdir -p "$top/build/packages"
run | tee "$top/build/packages/ktap.log"
read -r p f _ < <(awk -f "$top/selftests/ktap-count.awk" "$top/build/packages/ktap.log")
echo "# check-packages took $((SECONDS - start))s"
echo "$p passed, $f failed"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
