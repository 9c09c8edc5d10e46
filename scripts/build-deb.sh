#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: the Debian packages of the tree, built for each release named
# (default: bookworm trixie) in that release's own build root
# (scripts/deb-roots.sh build), so each release gets binaries built by its
# own compiler against its own libraries, and checked by its own lintian.
#
#   build-deb.sh [RELEASE...]
#
# The source is what git tracks in the working tree (uncommitted edits
# included), with packaging/debian as debian/. The version gets the
# release's suffix (0.1.0+deb12, 0.1.0+deb13): both builds can sit in one
# archive, and each is newer than the plain version. Results, with the
# build and lintian logs: build/deb/RELEASE/. lintian fails the build on
# any error or warning; overrides (packaging/debian/*.lintian-overrides)
# say why each is accepted.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

say() { echo "build-deb: $*" >&2; }
die() { say "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (chroot into the build roots)"
[ $# -gt 0 ] || set -- bookworm trixie
version=$(sed -n 's/^VERSION := //p' "$top/Makefile")

# shellcheck disable=SC2016 # the inner shell expands them
in_root() { # in_root ROOT CMD...: chrooted, /proc /sys /dev/pts private
	unshare -m /bin/sh -c 'r=$0
		mount -t proc proc "$r/proc" && mount -t sysfs sysfs "$r/sys" &&
		mkdir -p "$r/dev/pts" && mount -t devpts devpts "$r/dev/pts" &&
		exec chroot "$r" "$@"' "$@"
}

for rel in "$@"; do
	case $rel in
	bookworm) suffix=deb12 ;;
	trixie) suffix=deb13 ;;
	*) die "release $rel: bookworm or trixie" ;;
	esac
	start=$SECONDS
	root=$("$top/scripts/deb-roots.sh" build "$rel")
	out=$top/build/deb/$rel
	rm -rf "$out" "$root/build"
	mkdir -p "$out" "$root/build/usbeth-$version"
	src=$root/build/usbeth-$version
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' |
		tar --null -T - -cf -) | tar -xf - -C "$src"
	ln -s packaging/debian "$src/debian"
	sed -i "1s/^usbeth ($version) unstable;/usbeth ($version+$suffix) $rel;/" \
		"$src/packaging/debian/changelog"
	grep -q "^usbeth ($version+$suffix) $rel;" "$src/packaging/debian/changelog" ||
		die "packaging/debian/changelog does not start with usbeth ($version) unstable"
	# An override of a tag this release's lintian does not know is itself an
	# error there (alien-tag): bookworm's lintian asks for an init.d script
	# beside a unit, trixie's has no such tag. Such overrides are dropped.
	for f in "$src"/packaging/debian/*.lintian-overrides; do
		[ -e "$f" ] || continue
		while read -r _ tag _; do
			in_root "$root" lintian-explain-tags "$tag" > /dev/null 2>&1 && continue
			say "$rel: lintian has no tag $tag: its override in $(basename "$f") dropped"
			sed -i "/^[^#]* $tag\( \|\$\)/d" "$f"
		done < <(grep -v '^#' "$f" | grep .)
	done
	say "$rel: build dependencies, then dpkg-buildpackage (log: $out/build.log)"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	in_root "$root" /bin/sh -c "cd /build/usbeth-$version &&
		DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -q ./ &&
		dpkg-buildpackage -b -us -uc" > "$out/build.log" 2>&1 ||
		{ tail -n 30 "$out/build.log" >&2; die "$rel: the build failed: see $out/build.log"; }
	cp "$root"/build/*.deb "$root"/build/*.changes "$root"/build/*.buildinfo "$out/"
	say "$rel: lintian (log: $out/lintian.log)"
	lrc=0
	in_root "$root" /bin/sh -c 'cd /build && lintian --fail-on error,warning -I --show-overrides *.changes' \
		> "$out/lintian.log" 2>&1 || lrc=$?
	grep -E '^[EW]: ' "$out/lintian.log" >&2 || true
	[ $lrc -eq 0 ] || die "$rel: lintian found errors or warnings: see $out/lintian.log"
	rm -rf "$root/build"
	say "$rel: $(cd "$out" && echo *.deb) in $((SECONDS - start)) s"
done
