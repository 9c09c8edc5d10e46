#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One-time (and re-runnable) setup on Debian 12:
#   1. install the Debian packages needed to build, test and run usbeth;
#   2. for every kernel of the matrix (scripts/kernels.conf; KERNELS=...
#      narrows it or adds a non-default one): resolve the ABI from that
#      release's metapackage, fetch and unpack (not install) the stock image,
#      modules and headers into the cache, so the module builds against
#      exactly the kernel the test VM boots;
#   3. for kernels built with another compiler than this machine's (Debian
#      13's gcc-14), a debootstrap'd build root of that release with its
#      compiler and the headers unpacked inside, as DKMS would have it;
#   4. build everything (unless --no-build).
#
# Newer releases are reached through a private apt configuration (own
# sources and lists under the cache): this machine's own apt sources stay
# as they are. Cache: $USBETH_CACHE (default ~/.cache/usbeth); see
# scripts/kernel-env.sh for what it records per kernel.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${USBETH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usbeth}
mirror=${USBETH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security_mirror=${USBETH_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
build=1
for a in "$@"; do
	case $a in
	--no-build) build=0 ;;
	-h|--help)
		echo "usage: $0 [--no-build]    (KERNELS=\"6.12 7.3-rt\" picks kernels of scripts/kernels.conf)"
		exit 0 ;;
	*) echo "setup: unknown argument '$a'" >&2; exit 1 ;;
	esac
done

say() { printf '[setup] %s\n' "$*"; }
die() { printf 'setup: %s\n' "$*" >&2; exit 1; }
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

pkgs=(
	build-essential gcc make bc flex bison libelf-dev libssl-dev pkg-config
	qemu-system-x86 busybox-static cpio kmod xz-utils zstd debootstrap
	iproute2 ethtool iperf3 iputils-ping util-linux
	libmnl-dev libjson-c-dev udev
	sparse shellcheck clang-14 libclang-rt-14-dev
	dkms debhelper
	python3 python3-yaml python3-jsonschema python3-matplotlib mandoc rsync
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	say "installing: ${missing[*]}"
	$sudo apt-get update -q
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
else
	say "Debian packages: all present"
fi

mkdir -p "$cache/kernels"

# ---- apt, per release ------------------------------------------------------
# aptargs CODENAME: the options that point apt at that release's private
# configuration (nothing for bookworm, this machine's own).
aptargs() {
	local code=$1 d=$cache/apt/$1
	[ "$code" = bookworm ] && return 0
	echo "-o Dir::Etc::sourcelist=/dev/null -o Dir::Etc::sourceparts=$d/sources" \
	     "-o Dir::Etc::preferencesparts=/dev/null -o Dir::State::Lists=$d/lists" \
	     "-o Dir::Cache=$d/cache"
}
declare -A apt_ready=()
# apt_stanza URI SUITES: one deb822 source of Debian's main component
apt_stanza() {
	printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' \
		"$1" "$2" /usr/share/keyrings/debian-archive-keyring.gpg
}
apt_prepare() { # apt_prepare CODENAME
	local code=$1 d=$cache/apt/$1
	[ -n "${apt_ready[$code]:-}" ] && return 0
	if [ "$code" = bookworm ]; then
		# this machine's own lists: refreshed when they know no kernel
		apt-cache depends linux-image-amd64 2>/dev/null | grep -q 'Depends: linux-image-[0-9]' ||
			$sudo apt-get update -q > /dev/null
	else
		mkdir -p "$d/sources" "$d/lists/partial" "$d/cache/archives/partial"
		local suites="$code $code-updates $code-backports"
		[ "$code" = sid ] && suites=sid	# no updates, backports or security suites
		apt_stanza "$mirror" "$suites" > "$d/sources/$code.sources"
		[ "$code" = sid ] || { echo; apt_stanza "$security_mirror" "$code-security"; } >> "$d/sources/$code.sources"
		say "apt lists of $code (private configuration in $d)"
		# shellcheck disable=SC2046
		apt-get $(aptargs "$code") update -q 2>&1 | grep -v '^W: Download is performed unsandboxed' |
			grep -E '^(E|W):' >&2 || true
	fi
	apt_ready[$code]=1
}
# apt_q RELEASE CMD ARGS...: apt-get/apt-cache for that release. A
# backports release is made the default one (apt's candidates are otherwise
# never from backports); a plain release is left unpinned, so its -updates
# and -security versions win as they do on an installed system.
apt_q() {
	local rel=$1 tool=$2 pin=()
	shift 2
	[[ $rel == *-backports ]] && pin=(-o APT::Default-Release="$rel")
	# shellcheck disable=SC2046
	"$tool" $(aptargs "${rel%%-*}") "${pin[@]}" "$@"
}

# ---- build roots -------------------------------------------------------------
buildroot_prepare() { # buildroot_prepare CODENAME
	local code=$1 root=$cache/buildroot/$1
	if [ -f "$root/.complete" ]; then
		say "build root $code: already in $root"
		return 0
	fi
	say "debootstrap of a $code build root in $root (a few minutes, ~700 MB)"
	rm -rf "$root.tmp" && mkdir -p "$cache/buildroot"
	debootstrap --variant=minbase \
		--include=build-essential,gcc-14,libelf-dev,bc,flex,bison,kmod,pahole,sparse,xz-utils \
		"$code" "$root.tmp" "$mirror" > "$cache/buildroot/$code.log" 2>&1 ||
		die "debootstrap $code failed: see $cache/buildroot/$code.log"
	rm -rf "$root"
	mv "$root.tmp" "$root"
	touch "$root/.complete"
}

# ---- sparse that reads the kernel's headers --------------------------------
# 7.x's headers use __typeof_unqual__, which sparse 0.6.4 (Debian 12 and 13)
# cannot parse. The kernel's Makefile would then turn C= off with only a
# make warning (its probe, scripts/checker-valid.sh, is not in Debian's
# headers package either), and a sparse check would pass having checked
# nothing. So each kernel's sparse is probed on the construct; where the
# build root's cannot read it, sid's sparse goes into that root as
# /usr/local/bin/sparse, and the kernel's env names it (KSPARSE).
sparse_probe='static int a; static __typeof_unqual__(a) b;'
sparse_reads() { # sparse_reads ROOT SPARSE: no complaint about the probe
	local out
	if [ -n "$1" ]; then
		out=$(chroot "$1" "$2" - 2>&1 <<< "$sparse_probe")
	else
		out=$("$2" - 2>&1 <<< "$sparse_probe")
	fi
	[ -z "$out" ]
}
sparse_for() { # sparse_for ROOT HEADERS: the sparse path for this kernel
	local root=$1 hdr=$2
	# only kernels whose headers use the construct need it
	if ! grep -rqs __typeof_unqual__ "$hdr"/../linux-headers-*-common/include/linux/compiler.h \
			"$hdr"/include/linux/compiler.h ||
		sparse_reads "$root" "${root:+/usr/bin/}sparse"; then
		echo sparse
		return 0
	fi
	[ -n "$root" ] || die "the host's sparse cannot read $hdr, and it has no build root"
	if ! sparse_reads "$root" /usr/local/bin/sparse 2>/dev/null; then
		say "sparse from sid into the $(basename "$root") build root (its own cannot read 7.x's headers)" >&2
		apt_prepare sid >&2
		local tmp
		tmp=$(mktemp -d)
		(cd "$tmp" && apt_q sid apt-get download -q sparse > /dev/null 2>&1)
		[ -f "$(echo "$tmp"/sparse_*.deb)" ] || die "could not download sparse from sid"
		dpkg-deb --fsys-tarfile "$tmp"/sparse_*.deb | tar -xO ./usr/bin/sparse > "$root/usr/local/bin/sparse"
		chmod 755 "$root/usr/local/bin/sparse"
		rm -rf "$tmp"
		sparse_reads "$root" /usr/local/bin/sparse ||
			die "sid's sparse cannot read 7.x's headers either: $(chroot "$root" /usr/local/bin/sparse --version)"
	fi
	echo /usr/local/bin/sparse
}

# ---- kernels -----------------------------------------------------------------
prepare_kernel() { # prepare_kernel RELEASE FLAVOUR
	local rel=$1 fl=$2 code=${1%%-*} abi kver series label dest pkgs=() d root=""
	apt_prepare "$code"
	abi=$(apt_q "$rel" apt-cache depends "linux-image-$fl" 2>/dev/null |
		sed -n "s/.*Depends: linux-image-\([0-9].*-$fl\)\$/\1/p" | head -n1)
	[ -n "$abi" ] || die "cannot tell the ABI of linux-image-$fl in $rel from apt"
	kver=${abi%-"$fl"}            # 6.1.0-57, 7.3.4+deb13
	series=$(echo "$kver" | cut -d. -f1,2)
	label=$series
	[ "$fl" = rt-amd64 ] && label=$series-rt
	if [ -n "${KERNELS:-}" ]; then
		local w hit=0
		for w in $KERNELS; do
			case $w in "$label"|"$abi") hit=1 ;; "$rel") [ "$fl" = amd64 ] && hit=1 ;; esac
		done
		[ $hit -eq 1 ] || return 0
	fi

	dest=$cache/$abi
	if [ ! -f "$dest/.complete" ]; then
		say "fetching $rel kernel $abi (image, modules, headers, kbuild)"
		rm -rf "$dest"
		mkdir -p "$dest/dl" "$dest/root"
		# 7.x splits the image into binary, modules and base packages.
		# (Read whole, then matched: grep -q would leave apt-cache writing
		# into a closed pipe, and pipefail take its SIGPIPE for "no".)
		local deps
		deps=$(apt_q "$rel" apt-cache depends "linux-image-$abi" 2>/dev/null)
		if grep -q "Depends: linux-binary-$abi" <<< "$deps"; then
			pkgs+=("linux-binary-$abi" "linux-modules-$abi" "linux-base-$abi")
		else
			pkgs+=("linux-image-$abi")
		fi
		pkgs+=("linux-headers-$abi")
		mapfile -t -O ${#pkgs[@]} pkgs < <(apt_q "$rel" apt-cache depends "linux-headers-$abi" |
			sed -n 's/^ *Depends: \(linux-\(headers-.*-common.*\|kbuild-.*\)\)$/\1/p' | sort -u)
		(cd "$dest/dl" && apt_q "$rel" apt-get download -q "${pkgs[@]}" 2>&1 |
			grep -v '^W: Download is performed unsandboxed' | grep -E '^(E|W):' >&2 || true)
		for d in "$dest"/dl/*.deb; do dpkg -x "$d" "$dest/root"; done
		[ -d "$dest/root/lib" ] || ln -s usr/lib "$dest/root/lib"
		[ -d "$dest/root/lib/modules/$abi/kernel" ] || die "$abi: no modules unpacked"
		depmod -b "$dest/root" "$abi"
		touch "$dest/.complete"
	else
		say "$rel kernel $abi: already unpacked in $dest"
	fi
	local hdr=$dest/root/usr/src/linux-headers-$abi
	local kimage=$dest/root/boot/vmlinuz-$abi
	[ -f "$kimage" ] || kimage=$dest/root/usr/lib/modules/$abi/vmlinuz
	[ -f "$kimage" ] || die "$abi: no kernel image unpacked"
	local kcc
	kcc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$hdr/.config")

	# Which compiler: this machine's if it is the one the kernel was built
	# with, else the build root of the kernel's release.
	local hostcc kdir=$hdr kdir_in=$hdr
	hostcc=$(gcc --version | head -n1 | sed 's/^[^(]*//')
	if [ "${kcc#*(}" = "${hostcc#(}" ]; then
		# the arch headers include the common ones by absolute path
		sed -i "s|^include /usr/src/|include $dest/root/usr/src/|" "$hdr/Makefile"
	else
		buildroot_prepare "$code"
		root=$cache/buildroot/$code
		if [ ! -f "$root/usr/src/.usbeth-$abi" ]; then
			for d in "$dest"/dl/linux-headers-*.deb "$dest"/dl/linux-kbuild-*.deb; do
				dpkg -x "$d" "$root"
			done
			touch "$root/usr/src/.usbeth-$abi"
		fi
		kdir=$root/usr/src/linux-headers-$abi
		kdir_in=/usr/src/linux-headers-$abi
		local rootcc
		rootcc=$(chroot "$root" "${kcc%% *}" --version | head -n1)
		[ "$rootcc" = "$kcc" ] ||
			say "warning: $abi was built by '$kcc'; the $code build root has '$rootcc'"
	fi
	local ksparse
	ksparse=$(sparse_for "$root" "$hdr") || exit 1
	# the VM chroots into this machine's root and binds the unpacked
	# modules on /lib/modules/<abi>: that mount point must exist
	[ -d "/lib/modules/$abi" ] || $sudo mkdir -p "/lib/modules/$abi"

	cat > "$(printf '%s/kernels/%s_%s.env' "$cache" "$rel" "$fl")" <<-EOF
	USBETH_CACHE='$cache'
	KLABEL='$label'
	KABI='$abi'
	KRELEASE='$rel'
	KFLAVOUR='$fl'
	KROOT='$dest/root'
	KIMAGE='$kimage'
	KDIR='$kdir'
	KBUILDROOT='$root'
	KDIR_IN_ROOT='$kdir_in'
	KCC='$kcc'
	KSPARSE='$ksparse'
	CHECKPATCH='$cache/checkpatch/scripts/checkpatch.pl'
	EOF
	say "kernel $label: $abi ($rel), built by $kcc${root:+, in the $code build root}"
}

# The default kernels, or (a kernel's name being known only once resolved)
# every line checked against what KERNELS names.
while read -r rel fl def; do
	[ -n "${KERNELS:-}" ] || [ "$def" = yes ] || continue
	case $fl in debug | fixed | debug-fixed | kcsan | kcsan-fixed | control) continue ;; esac	# built by build-debug-kernel.sh
	prepare_kernel "$rel" "$fl"
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/scripts/kernels.conf")
labels=$("$top/scripts/kernel-env.sh" --list) ||
	die "no kernel to build for${KERNELS:+ in KERNELS='$KERNELS'} (scripts/kernels.conf names the matrix)"

# What no kernel of the matrix uses any more (Debian's updates move the
# ABIs on): the unpacked kernels, and the headers in the build roots.
in_list() { # in_list WORD LIST...
	local w=$1
	shift
	for x in "$@"; do [ "$x" = "$w" ] && return 0; done
	return 1
}
keep=() kvers=()
for f in "$cache"/kernels/*.env; do
	[ -f "$f" ] || continue
	a=$(sed -n "s/^KABI='\(.*\)'\$/\1/p" "$f")
	[ -n "$a" ] || continue
	keep+=("$a")
	kvers+=("$(sed -E 's/-(rt-)?amd64$//' <<< "$a")")
done
if [ ${#keep[@]} -gt 0 ]; then
	for d in "$cache"/*-amd64; do
		[ -d "$d" ] && ! in_list "$(basename "$d")" "${keep[@]}" || continue
		say "pruning $(basename "$d"): no kernel of the matrix uses it any more"
		rm -rf -- "$d"
	done
	for d in "$cache"/buildroot/*/usr/src/linux-headers-* "$cache"/buildroot/*/usr/src/linux-kbuild-*; do
		[ -d "$d" ] || continue
		n=$(basename "$d")
		case $n in
		linux-headers-*-common*) v=${n#linux-headers-}; v=${v%-common*}; in_list "$v" "${kvers[@]}" ;;
		linux-headers-*) in_list "${n#linux-headers-}" "${keep[@]}" ;;
		linux-kbuild-*) in_list "${n#linux-kbuild-}" "${kvers[@]}" ;;
		esac && continue
		say "pruning $n from $(dirname "$(dirname "$(dirname "$d")")")"
		rm -rf -- "$d"
		rm -f -- "$(dirname "$d")/.usbeth-${n#linux-headers-}"
	done
fi

# checkpatch.pl (and the data files it reads) from Debian's kernel source
# package, for the kmod/ style check.
series=6.1
cp_dir=$cache/checkpatch-$series
if [ ! -f "$cp_dir/.complete" ]; then
	say "fetching checkpatch.pl from linux-source-$series"
	rm -rf "$cp_dir" && mkdir -p "$cp_dir"
	(cd "$cp_dir" && apt-get download "linux-source-$series")
	dpkg-deb --fsys-tarfile "$cp_dir"/linux-source-*.deb |
		tar -xO "./usr/src/linux-source-$series.tar.xz" |
		tar -xJ -C "$cp_dir" --strip-components=1 \
			"linux-source-$series/scripts/checkpatch.pl" \
			"linux-source-$series/scripts/spelling.txt" \
			"linux-source-$series/scripts/const_structs.checkpatch"
	rm -f "$cp_dir"/*.deb
	touch "$cp_dir/.complete"
fi
ln -sfn "checkpatch-$series" "$cache/checkpatch"

# The kernel's YNL tooling (tools/net/ynl: ynl-gen-c.py, the python YNL
# library and its CLI) and the netlink spec schemas (Documentation/netlink),
# from Debian 13's kernel source package (6.1's predates YNL): uapi/usbeth.yaml
# is validated and uapi/linux/usbeth.h generated with them
# (scripts/ynl-gen.sh, make uapi), and the VM test usbeth_ynl.sh drives the
# family with the library. The package's version is kept in VERSION.
# From the same package, the kselftest framework (the selftests' Makefile,
# lib.mk, run_kselftest.sh and kselftest/, and the one file of scripts/ the
# Makefile includes): `make check` installs selftests/ as the kselftest
# target `usbeth` through it (scripts/kselftest-install.sh) and runs the
# installed list with run_kselftest.sh. And its checkpatch.pl, for the
# kernel patches in upstream/ (selftests/unit/upstream_series.sh; 6.1's,
# above, predates checks those patches meet). .complete names what was taken, so
# a cache from before a piece was added is refreshed.
ynl_series=6.12
ynl_dir=$cache/ynl-$ynl_series
ynl_pieces="tools/net/ynl Documentation/netlink tools/testing/selftests/Makefile
	tools/testing/selftests/lib.mk tools/testing/selftests/run_kselftest.sh
	tools/testing/selftests/kselftest scripts/subarch.include
	scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch"
if [ "$(cat "$ynl_dir/.complete" 2>/dev/null)" != "$(echo $ynl_pieces)" ]; then
	apt_prepare trixie
	say "fetching $(echo $ynl_pieces) from linux-source-$ynl_series"
	rm -rf "$ynl_dir" && mkdir -p "$ynl_dir"
	(cd "$ynl_dir" && apt_q trixie apt-get download -q "linux-source-$ynl_series" 2>&1 |
		grep -v '^W: Download is performed unsandboxed' | grep -E '^(E|W):' >&2 || true)
	[ -f "$(echo "$ynl_dir"/linux-source-*.deb)" ] || die "could not download linux-source-$ynl_series"
	dpkg-deb --fsys-tarfile "$ynl_dir"/linux-source-*.deb |
		tar -xO "./usr/src/linux-source-$ynl_series.tar.xz" |
		tar -xJ -C "$ynl_dir" --strip-components=1 \
			$(for p in $ynl_pieces; do echo "linux-source-$ynl_series/$p"; done)
	dpkg-deb -f "$ynl_dir"/linux-source-*.deb Version > "$ynl_dir/VERSION"
	rm -f "$ynl_dir"/*.deb
	echo $ynl_pieces > "$ynl_dir/.complete"
fi
ln -sfn "ynl-$ynl_series" "$cache/ynl"

# ethtool from Debian 13 (6.14): bookworm's 6.1 predates the TX aggregation
# fields of `ethtool -c/-C` (tx-aggr-*), which a cdc_ncm with the patches in
# upstream/ offers. Unpacked, not installed: it runs on this machine's libc
# and libmnl; selftests/usbeth_ncm_ethtool.sh uses it from $cache/ethtool.
if [ ! -x "$cache/ethtool/usr/sbin/ethtool" ]; then
	apt_prepare trixie
	say "fetching ethtool from trixie"
	rm -rf "$cache/ethtool.tmp" && mkdir -p "$cache/ethtool.tmp"
	(cd "$cache/ethtool.tmp" && apt_q trixie apt-get download -q ethtool 2>&1 |
		grep -v '^W: Download is performed unsandboxed' | grep -E '^(E|W):' >&2 || true)
	[ -f "$(echo "$cache"/ethtool.tmp/ethtool_*.deb)" ] || die "could not download trixie's ethtool"
	dpkg -x "$cache"/ethtool.tmp/ethtool_*.deb "$cache/ethtool.tmp/root"
	"$cache/ethtool.tmp/root/usr/sbin/ethtool" --version > /dev/null ||
		die "trixie's ethtool does not run here"
	rm -rf "$cache/ethtool" && mv "$cache/ethtool.tmp/root" "$cache/ethtool" && rm -rf "$cache/ethtool.tmp"
fi

if [ $build -eq 1 ]; then
	say "building (kernels: $(echo "$labels" | tr '\n' ' '))"
	make -C "$top" -j"$(nproc)"
fi
say "done (kernels: $(echo "$labels" | tr '\n' ' '))"
