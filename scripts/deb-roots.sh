#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian roots the packaging work needs, debootstrap'd once and cached
# under $USBETH_CACHE/debroot:
#
#   deb-roots.sh build CODENAME    CODENAME-build: the build root `make deb`
#                                  builds that release's packages in (minbase,
#                                  debhelper, dh-dkms, the -dev packages,
#                                  lintian); prints its path
#   deb-roots.sh system KLABEL     the pristine system root `make
#                                  check-packages` boots: that kernel's
#                                  release with systemd, udev and the stock
#                                  kernel image and headers of the matrix's
#                                  ABI; prints its path. Each test run
#                                  copies it: the cache stays fresh.
#
# Needs root (debootstrap, chroot). The release's own -updates and -security
# suites are in every root's sources, as on an installed system.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${USBETH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usbeth}
mirror=${USBETH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security_mirror=${USBETH_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

say() { echo "deb-roots: $*" >&2; }
die() { say "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot)"
command -v debootstrap > /dev/null || die "debootstrap is missing (scripts/setup.sh installs it)"

# in_root ROOT CMD...: CMD chrooted into ROOT with /proc, /sys and /dev/pts
# mounted in a private mount namespace (nothing leaks onto the host)
# shellcheck disable=SC2016 # the inner shell expands them
in_root() {
	unshare -m /bin/sh -c 'r=$0
		mount -t proc proc "$r/proc" && mount -t sysfs sysfs "$r/sys" &&
		mkdir -p "$r/dev/pts" && mount -t devpts devpts "$r/dev/pts" &&
		exec chroot "$r" "$@"' "$@"
}

sources() { # sources CODENAME: the deb822 sources of an installed system
	cat <<-EOF
	Types: deb
	URIs: $mirror
	Suites: $1 $1-updates
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

	Types: deb
	URIs: $security_mirror
	Suites: $1-security
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
}

# bootstrap CODENAME DIR LOG DEBOOTSTRAP-ARGS...: a root with the full
# sources, apt lists fresh
bootstrap() {
	local code=$1 dir=$2 log=$3
	shift 3
	rm -rf "$dir.tmp"
	mkdir -p "$(dirname "$dir")"
	debootstrap "$@" "$code" "$dir.tmp" "$mirror" > "$log" 2>&1 ||
		die "debootstrap $code failed: see $log"
	rm -f "$dir.tmp/etc/apt/sources.list"
	sources "$code" > "$dir.tmp/etc/apt/sources.list.d/debian.sources"
	cp /etc/resolv.conf "$dir.tmp/etc/resolv.conf"
	in_root "$dir.tmp" apt-get update -q >> "$log" 2>&1 || die "apt-get update in $code failed: see $log"
}

apt_in() { # apt_in ROOT LOG PACKAGES...
	local root=$1 log=$2
	shift 2
	in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "$@" >> "$log" 2>&1 ||
		die "apt-get install $* failed: see $log"
}

case ${1:-} in
build)
	code=${2:?deb-roots.sh build CODENAME}
	root=$cache/debroot/$code-build
	want="build-essential debhelper dh-dkms dkms libmnl-dev libjson-c-dev pkgconf lintian fakeroot"
	if [ "$(cat "$root/.complete" 2>/dev/null)" != "$want" ]; then
		say "debootstrap of the $code package build root in $root (a few minutes)"
		log=$cache/debroot/$code-build.log
		bootstrap "$code" "$root" "$log" --variant=minbase
		# shellcheck disable=SC2086
		apt_in "$root.tmp" "$log" $want
		rm -rf "$root" && mv "$root.tmp" "$root"
		echo "$want" > "$root/.complete"
	fi
	echo "$root"
	;;
system)
	klabel=${2:?deb-roots.sh system KLABEL}
	kenv=$("$top/scripts/kernel-env.sh" "$klabel") ||
		die "kernel $klabel is not prepared: run scripts/setup.sh"
	eval "$kenv"
	code=$KRELEASE
	root=$cache/debroot/$code-system-$KABI
	want="systemd-sysv udev kmod iproute2 linux-image-$KABI linux-headers-$KABI"
	if [ "$(cat "$root/.complete" 2>/dev/null)" != "$want" ]; then
		say "debootstrap of a fresh $code system (kernel $KABI) in $root (a few minutes)"
		log=$cache/debroot/$code-system.log
		bootstrap "$code" "$root" "$log" --include=systemd-sysv,udev,kmod,iproute2
		# shellcheck disable=SC2086
		apt_in "$root.tmp" "$log" $want
		rm -rf "$root" && mv "$root.tmp" "$root"
		echo "$want" > "$root/.complete"
	fi
	echo "$root"
	;;
*)
	sed -n '3,/^set -e/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
	exit 2
	;;
esac
