#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a kernel of the matrix from source: the matrix's newest default
# kernel (7.3 from trixie-backports), rebuilt from Debian's own source
# package (linux-source-SERIES, the version of the stock image) in that
# release's build root with Debian's own configuration, trimmed by
# localmodconfig to the modules the VM suite loads, plus
# scripts/kernel-base.config (its name, build-time options, the configfs
# gadget). The flavour adds:
#
#   debug        scripts/debug-kernel.config: lockdep, KASAN, kmemleak,
#                ref trackers, debug objects, failslab, netdevsim
#                (`make check-debug` runs the VM suite on it)
#   fixed        no option; the source patched with the two series in
#                upstream/ (fixes/, then features/; their *.patch files but
#                the cover letters): the fixes of the kernel bugs
#                docs/kernel-bugs.md describes, and the new behaviour
#   debug-fixed  both
#   kcsan        scripts/kcsan-kernel.config: the data-race detector,
#                which excludes KASAN, so a configuration of its own
#   kcsan-fixed  kcsan on the patched source
#   control      nothing added and no patch: fixed's source, configuration
#                and compiler without upstream/'s series, the kernel that
#                7.3-fixed is compared with (Debian's binary image differs
#                in its configuration and build)
#
#   build-debug-kernel.sh [-f] [FLAVOUR]   -f: rebuild even when cached;
#                                          FLAVOUR: debug (default)
#
# Cached in $USBETH_CACHE: the objects in the build root
# (/usr/src/usbeth-FLAVOUR-SERIES; a patched flavour's source in
# /usr/src/linux-source-SERIES-FLAVOUR, the pristine tree hard-linked with
# the patched files copied), the image and modules in
# $USBETH_CACHE/<abi>/root as setup.sh unpacks a stock kernel, and an entry
# of the matrix, kernels/<release>_FLAVOUR.env, named SERIES-FLAVOUR (so
# `KERNELS=7.3-debug make check` and run-vm.sh -K 7.3-fixed work). The
# kernel release is <version>-usbeth-FLAVOUR. It is rebuilt only when the
# source version, the fragments, the patches or this script change. The
# build time is measured and kept in <abi>/build-time.
#
# Needs scripts/setup.sh to have run (the build root and the private apt
# configuration of the release).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${USBETH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/usbeth}
force=0
[ "${1:-}" = -f ] && { force=1; shift; }
flavour=${1:-debug}
frags=("$top/scripts/kernel-base.config")
patches=()
case $flavour in
debug) frags+=("$top/scripts/debug-kernel.config") ;;
fixed | control) ;;
debug-fixed) frags+=("$top/scripts/debug-kernel.config") ;;
kcsan | kcsan-fixed) frags+=("$top/scripts/kcsan-kernel.config") ;;
*) echo "usage: build-debug-kernel.sh [-f] [debug|fixed|debug-fixed|kcsan|kcsan-fixed|control]" >&2; exit 2 ;;
esac
case $flavour in
*fixed)
	# the fixes, then the new behaviour on top
	for p in "$top"/upstream/fixes/[0-9][0-9][0-9][0-9]-*.patch \
		"$top"/upstream/features/[0-9][0-9][0-9][0-9]-*.patch; do
		[ -f "$p" ] && [ "${p##*/}" != 0000-cover-letter.patch ] && patches+=("$p")
	done
	[ ${#patches[@]} -gt 0 ] || { echo "build-debug-kernel: no patch in $top/upstream" >&2; exit 1; }
	;;
esac

say() { echo "build-debug-kernel: $*"; }
die() { echo "build-debug-kernel: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (chroot into the build root)"

# the newest default kernel of the matrix
base=$(KERNELS= "$top/scripts/kernel-env.sh" --list | tail -n1) ||
	die "no kernel of the matrix is set up: run scripts/setup.sh"
eval "$("$top/scripts/kernel-env.sh" "$base")"
[ -n "$KBUILDROOT" ] || die "kernel $base has no build root; the debug kernel needs one"
root=$KBUILDROOT
code=${KRELEASE%%-*}
series=$(echo "$KABI" | cut -d. -f1,2)
kver=$(echo "$KABI" | sed -E 's/^([0-9]+\.[0-9]+(\.[0-9]+)?).*/\1/')  # 7.3.4
label=$series-$flavour
abi=$kver-usbeth-$flavour
dest=$cache/$abi
src_in=/usr/src/linux-source-$series
psrc_in=$src_in
[ ${#patches[@]} -eq 0 ] || psrc_in=$src_in-$flavour
obj_in=/usr/src/usbeth-$flavour-$series
envf=$cache/kernels/${KRELEASE}_$flavour.env

# apt for the kernel's release, through setup.sh's private configuration
apt_q() {
	local d=$cache/apt/$code tool=$1
	shift
	"$tool" -o Dir::Etc::sourcelist=/dev/null -o Dir::Etc::sourceparts="$d/sources" \
		-o Dir::Etc::preferencesparts=/dev/null -o Dir::State::Lists="$d/lists" \
		-o Dir::Cache="$d/cache" -o APT::Default-Release="$KRELEASE" "$@"
}
[ -d "$cache/apt/$code/sources" ] || die "no apt configuration for $code: run scripts/setup.sh"

# linux-source-SERIES at the stock image's upstream version
srcver=$(apt_q apt-cache policy "linux-source-$series" | sed -n 's/^ *Candidate: //p')
case $srcver in
"$kver"-*) ;;
*) die "linux-source-$series is at '$srcver' in $KRELEASE, the stock kernel at $kver" ;;
esac

# what the cached build was made from: rebuild when any of it changes
# (of the patches, their diffs only: a reworded commit message is no change)
stamp=$(printf '%s\n' "$srcver" "$flavour" \
	"$(sha256sum "${frags[@]}" "$0" | cut -d' ' -f1)" \
	"$(for p in ${patches[@]+"${patches[@]}"}; do sed -n '/^diff --git /,/^-- $/p' "$p"; done |
		sha256sum)" | sha256sum | cut -c1-16)
if [ $force -eq 0 ] && [ -f "$dest/.complete" ] && [ "$(cat "$dest/.complete")" = "$stamp" ] &&
   [ -f "$envf" ]; then
	say "kernel $label ($abi): already built in $dest ($(cat "$dest/build-time" 2>/dev/null))"
	exit 0
fi

in_root() { # in_root CMD...: in the build root, /proc mounted, private mounts
	unshare -m /bin/sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root" "$@"
}

# what a kernel build needs beyond what DKMS does (setup.sh's build root
# has the headers' needs only); zstd compresses the bzImage (Debian's
# config: KERNEL_ZSTD), the last step of the build
need=()
for p in libssl-dev openssl cpio python3 zstd; do
	in_root dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	say "installing ${need[*]} in the $code build root"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	in_root apt-get update -q > /dev/null
	in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${need[@]}" > "$cache/buildroot/$code-debug-deps.log" 2>&1 ||
		die "apt-get install ${need[*]} failed: see $cache/buildroot/$code-debug-deps.log"
fi

# the source, unpacked once per version
if [ "$(cat "$root$src_in/.usbeth-version" 2>/dev/null)" != "$srcver" ]; then
	say "fetching and unpacking linux-source-$series $srcver (~170 MB, ~1.5 GB unpacked)"
	dl=$(mktemp -d "$cache/debug-dl.XXXXXX")
	(cd "$dl" && apt_q apt-get download -q "linux-source-$series=$srcver" 2>&1 |
		grep -v '^W: Download is performed unsandboxed' | grep -E '^(E|W):' >&2 || true)
	rm -rf "$root$src_in" "$root$obj_in" "$root$src_in"-*
	dpkg-deb --fsys-tarfile "$dl"/linux-source-*.deb |
		tar -xO "./usr/src/linux-source-$series.tar.xz" | tar -xJ -C "$root/usr/src"
	rm -rf "$dl"
	echo "$srcver" > "$root$src_in/.usbeth-version"
fi

# A patched flavour's source: the pristine tree hard-linked once per
# version, every file a patch touches (now or in the last series applied)
# a copy of its own, restored from the pristine tree, patched, and dated
# now, so that make rebuilds exactly those over earlier objects.
if [ ${#patches[@]} -gt 0 ]; then
	if [ "$(cat "$root$psrc_in/.usbeth-version" 2>/dev/null)" != "$srcver" ]; then
		rm -rf "$root$psrc_in"
		cp -al "$root$src_in" "$root$psrc_in"
		rm -f "$root$psrc_in/.usbeth-patched"
		echo "$srcver" > "$root$psrc_in/.usbeth-version"
	fi
	files=$( { cat "$root$psrc_in/.usbeth-patched" 2>/dev/null
		sed -n 's#^+++ b/##p' "${patches[@]}"; } | sort -u)
	for f in $files; do
		rm -f "$root$psrc_in/$f"
		[ ! -e "$root$src_in/$f" ] || cp -p "$root$src_in/$f" "$root$psrc_in/$f"
	done
	for p in "${patches[@]}"; do
		say "applying ${p#"$top"/}"
		patch -d "$root$psrc_in" -p1 -s -N --no-backup-if-mismatch < "$p" ||
			die "${p#"$top"/} does not apply to linux-source-$series $srcver"
	done
	for f in $files; do
		[ ! -e "$root$psrc_in/$f" ] || touch "$root$psrc_in/$f"
	done
	printf '%s\n' "$files" > "$root$psrc_in/.usbeth-patched"
fi

# The modules the VM suite and the benches load, with their dependencies,
# in lsmod's form for localmodconfig: every other module of Debian's
# configuration goes. The second line is the emulated devices (usbemu over
# vhci_hcd and a tap, posing as a qmi_wwan modem) and the bench's shapers.
mods=(virtio_pci 9pnet_virtio 9p e1000e dummy dummy_hcd libcomposite usb_f_ncm
      cdc_ncm cdc_ether cdc_mbim veth ifb xhci_pci rndis_host overlay
      vhci_hcd tun qmi_wwan sch_cake sch_ingress act_mirred cls_matchall)
mkdir -p "$root$obj_in"
{
	echo "Module                  Size  Used by"
	for m in "${mods[@]}"; do
		modprobe -d "$KROOT" -S "$KABI" --show-depends "$m"
	done | awk '$1 == "insmod" { print $2 }' | sed -e 's#.*/##' -e 's/\.ko.*//' -e 's/-/_/g' |
		sort -u | sed 's/$/ 16384 0/'
} > "$root$obj_in/usbeth.lsmod"

# a build from scratch is what docs/testing.md reports; a rebuild on top of
# earlier objects (a fragment or patch change, an interrupted build) says
# so. Looked at before configuring, which builds kconfig's own objects.
full=1
[ -z "$(find "$root$obj_in" -name '*.o' -print -quit)" ] || full=0

kmake() { # kmake ARGS...: make in the source tree, objects in $obj_in
	in_root make -C "$psrc_in" O="$obj_in" CC="${KCC%% *}" HOSTCC="${KCC%% *}" "$@"
}
say "configuring: Debian's config of $KABI, localmodconfig, ${frags[*]##*/}"
cp "$KROOT/lib/modules/$KABI/config" "$root$obj_in/.config"
kmake -s olddefconfig
kmake -s LSMOD="$obj_in/usbeth.lsmod" localmodconfig < /dev/null > /dev/null 2>&1 ||
	die "localmodconfig failed"
cat "${frags[@]}" > "$root$obj_in/usbeth.config"
echo "CONFIG_LOCALVERSION=\"-usbeth-$flavour\"" >> "$root$obj_in/usbeth.config"
in_root /bin/sh -c "cd $obj_in && $psrc_in/scripts/kconfig/merge_config.sh -m -O . .config usbeth.config" \
	> /dev/null
kmake -s olddefconfig
# every line of the fragment must have stuck
bad=0
while IFS= read -r l; do
	case $l in
	CONFIG_*=*) grep -qxF "$l" "$root$obj_in/.config" || { say "Kconfig refused: $l"; bad=1; } ;;
	"# CONFIG_"*" is not set")
		s=${l#\# }
		s=${s%% *}
		! grep -q "^$s=" "$root$obj_in/.config" || { say "Kconfig refused: $l"; bad=1; } ;;
	esac
done < "$root$obj_in/usbeth.config"
[ $bad -eq 0 ] || die "the fragments did not apply (see above)"
jobs=$(nproc)
say "building $abi with $jobs jobs${patches[0]:+, ${#patches[@]} patches applied} (about half an hour on 2 cores; log: $root$obj_in/build.log)"
t0=$SECONDS
kmake -j"$jobs" bzImage modules > "$root$obj_in/build.log" 2>&1 || {
	tail -n 30 "$root$obj_in/build.log" >&2
	die "the build failed: see $root$obj_in/build.log"
}
secs=$((SECONDS - t0))
krel=$(cat "$root$obj_in/include/config/kernel.release")
[ "$krel" = "$abi" ] || die "built $krel, expected $abi"

say "installing into $dest"
rm -rf "$dest" && mkdir -p "$dest/root/usr/lib"
ln -s usr/lib "$dest/root/lib"
kmake -s INSTALL_MOD_PATH="/usr/src/usbeth-$flavour-install" modules_install > /dev/null
inst=$root/usr/src/usbeth-$flavour-install/lib/modules
[ -d "$inst" ] || inst=$root/usr/src/usbeth-$flavour-install/usr/lib/modules
mv "$inst" "$dest/root/usr/lib/modules"
rm -rf "$root/usr/src/usbeth-$flavour-install"
rm -f "$dest/root/usr/lib/modules/$abi/build" "$dest/root/usr/lib/modules/$abi/source"
cp "$root$obj_in/arch/x86/boot/bzImage" "$dest/root/usr/lib/modules/$abi/vmlinuz"
cp "$root$obj_in/.config" "$dest/root/usr/lib/modules/$abi/config"
depmod -b "$dest/root" "$abi"
bt=$(printf '%dm%02ds on %d cores' $((secs / 60)) $((secs % 60)) "$jobs")
if [ $full -eq 1 ]; then
	echo "$bt" > "$root$obj_in/full-build-time"
else
	bt="$bt, on earlier objects; from scratch: $(cat "$root$obj_in/full-build-time" 2>/dev/null || echo unknown)"
fi
echo "$bt" > "$dest/build-time"
[ -d "/lib/modules/$abi" ] || mkdir -p "/lib/modules/$abi"

cat > "$envf" <<EOF
USBETH_CACHE='$cache'
KLABEL='$label'
KABI='$abi'
KRELEASE='$KRELEASE'
KFLAVOUR='$flavour'
KROOT='$dest/root'
KIMAGE='$dest/root/usr/lib/modules/$abi/vmlinuz'
KDIR='$root$obj_in'
KBUILDROOT='$root'
KDIR_IN_ROOT='$obj_in'
KCC='$KCC'
CHECKPATCH='$CHECKPATCH'
EOF
echo "$stamp" > "$dest/.complete"
say "kernel $label ($abi) built in $(cat "$dest/build-time")"
