# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for usbeth selftests: KTAP output and the three test topologies.
# Source it from a test; it sets USBETH_TOP and NLWAIT.
#
# USB NCM link (ncm_setup / ncm_plug / ncm_unplug / ncm_teardown):
#
#   netns ncm-gadget                          netns ncm-host
#   +---------------------------+             +---------------------------+
#   | $NCM_GADGET_IF (u_ether,  |  dummy_hcd  | $NCM_HOST_IF (cdc_ncm     |
#   |  usb_f_ncm, configfs g1)  |=== USB  ====|  over usbnet)             |
#   | 10.200.0.2/24             |             | 10.200.0.1/24             |
#   +---------------------------+             +---------------------------+
#
# e1000e pair (e1k_setup / e1k_teardown): the VM's two e1000e NICs, wired by
# a qemu hub, each in its own netns:
#
#   netns e1k-a: $E1K_A_IF 10.201.0.1/24  <---->  netns e1k-b: $E1K_B_IF 10.201.0.2/24

#
# What the tests drive, and where it comes from:
#
#   USBETH_TOP unset (an installed kselftest, run_kselftest.sh): the system's.
#     The module through modprobe (loaded here when it is not), `usbeth` and
#     `usbethd` from PATH, the profiles, udev rule, unit, spec and bash
#     completion where `make install` or the packages put them, beside the
#     daemon's prefix.
#   USBETH_TOP=TREE (make check, vm/guest-run.sh): a built checkout's. The
#     module is USBETH_KMOD (insmod), the programs are the tree's builds.
#
# Either way the test's own helpers (nlwait, usbethctl, genl_fuzz, the
# python tools, the test modules) are found next to the test: in tools/ and
# kmod/ of a checkout (the modules in USBETH_KMOD_DIR, built per kernel),
# flat beside it and in kmod/ in a kselftest install.
#
# A test whose environment is missing (no dummy_hcd, no e1000e pair, no
# systemd, no module) exits 4 (KSFT_SKIP) with the reason; with
# USBETH_STRICT=1 (make check sets it) the same condition fails the test,
# so the suite never skips silently there.
USBETH_SELFTESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export USBETH_SELFTESTS

# ksft_helper NAME: a helper of the tests, by name, next to them. The
# per-kernel build of a checkout's test modules (USBETH_KMOD_DIR) comes
# before kmod/ beside the tests, which may hold a build for another kernel
# (make -C selftests/kmod builds for the running one).
ksft_helper() {
	local d
	for d in "$USBETH_SELFTESTS" "$USBETH_SELFTESTS/tools" \
		 ${USBETH_KMOD_DIR:+"$USBETH_KMOD_DIR/selftests/kmod"} "$USBETH_SELFTESTS/kmod"; do
		[ -e "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	echo "$USBETH_SELFTESTS/tools/$1"
	return 1
}
NLWAIT=$(ksft_helper nlwait)
export NLWAIT

# env_missing REASON: this machine lacks what the test needs: skip it
# (exit 4), or fail it under USBETH_STRICT=1.
env_missing() {
	if [ "${USBETH_STRICT:-0}" = 1 ]; then
		echo "Bail out! $* (USBETH_STRICT=1: a missing environment is a failure)"
		exit 1
	fi
	if [ "$__ktap_plan" -gt 0 ]; then
		echo "# SKIP $*"
	else
		echo "KTAP version 1"
		echo "1..0 # SKIP $*"
	fi
	exit 4
}

# ---------------------------------------------------------------- KTAP ----
__ktap_n=0 __ktap_pass=0 __ktap_fail=0 __ktap_skip=0 __ktap_plan=0

ktap_plan() { # ktap_plan N
	__ktap_plan=$1
	echo "KTAP version 1"
	echo "1..$1"
}
ktap_info() { echo "# $*"; }
ktap_ok() { __ktap_n=$((__ktap_n + 1)); __ktap_pass=$((__ktap_pass + 1)); echo "ok $__ktap_n $1"; }
ktap_fail() {
	__ktap_n=$((__ktap_n + 1)); __ktap_fail=$((__ktap_fail + 1))
	echo "not ok $__ktap_n $1${2:+ # $2}"
}
ktap_skip() {
	__ktap_n=$((__ktap_n + 1)); __ktap_skip=$((__ktap_skip + 1))
	echo "ok $__ktap_n $1 # SKIP $2"
}
# ktap_skip_all REASON: the whole test cannot run here.
ktap_skip_all() {
	echo "KTAP version 1"
	echo "1..0 # SKIP $1"
	exit 4
}
# ktap_check NAME CMD...: one result from a command's exit status; the
# command's output is shown as diagnostics when it fails.
ktap_check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		ktap_ok "$name"
	else
		[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/# /'
		ktap_fail "$name" "failed: $*"
	fi
}
# ktap_expect_eq NAME ACTUAL EXPECTED
ktap_expect_eq() {
	if [ "$2" == "$3" ]; then
		ktap_ok "$1"
	else
		ktap_fail "$1" "got '$2', expected '$3'"
	fi
}
# ktap_finish: exit 1 if anything failed or the plan was not met, 4 if all
# skipped, else 0.
ktap_finish() {
	if [ "$__ktap_n" -ne "$__ktap_plan" ]; then
		echo "# planned $__ktap_plan tests, ran $__ktap_n"
		exit 1
	fi
	echo "# totals: pass:$__ktap_pass fail:$__ktap_fail skip:$__ktap_skip"
	[ "$__ktap_fail" -eq 0 ] || exit 1
	[ "$__ktap_skip" -lt "$__ktap_n" ] || exit 4
	exit 0
}

# An error in setup: say so and stop the test as failed.
bail() {
	echo "Bail out! $*"
	exit 1
}

# ---------------------------------------------------------- helpers ------
# watchdog SECONDS CMD...: run CMD after SECONDS unless killed first (TERM
# ends the wait too). A bound on something that may hang, not a wait: start
# it in the background, with its output away from the KTAP pipe, and kill
# it when what it guards is over.
watchdog() {
	local secs=$1 s
	shift
	sleep "$secs" &
	s=$!
	trap 'kill $s' TERM
	wait $s && "$@"
}

# The driver a netdev is bound to, as ethtool reports it.
link_driver() { # link_driver [NETNS] IFNAME
	if [ $# -eq 2 ]; then
		ip netns exec "$1" ethtool -i "$2" 2>/dev/null | sed -n 's/^driver: //p'
	else
		ethtool -i "$1" 2>/dev/null | sed -n 's/^driver: //p'
	fi
}

# iperf_bytes SERVER_NS CLIENT_NS ADDR IPERF_CLIENT_ARGS...: run one iperf3
# transfer from a one-off server and print the bytes the receiver counted
# by the time the sender finished; fails if the transfer does not complete.
# The server has no "listening" event to wait on, so the client retries a
# refused connection a bounded number of times. With -J, iperf3 (3.12)
# exits 0 even when it could not connect, the error only in its JSON, so
# success is read from the JSON, not the exit status (CI once counted "0
# bytes" of a transfer that never connected: 3 NTBs on the wire).
# The receiver takes its count when the client's "done" arrives, and the
# client is done once its last byte is in its socket buffer: on a busy
# machine that count can be 0 although the transfer worked (seen on the
# host's loopback, 1 run in 10 with both cores busy). Such a run measured
# nothing, so it is run again, at most three runs in all, saying so.
iperf_bytes() {
	local run rcvd
	for run in 1 2 3; do
		rcvd=$(__iperf_once "$@") || return 1
		[ "$rcvd" -gt 0 ] && break
		echo "# iperf_bytes: run $run to $3 counted 0 bytes at the receiver" >&2
	done
	echo "$rcvd"
}

__iperf_once() {
	local sns=$1 cns=$2 addr=$3 tries=0 json out rcvd err
	shift 3
	ip netns exec "$sns" iperf3 -s -1 -D -B "$addr" >/dev/null 2>&1 || return 1
	while :; do
		json=$(ip netns exec "$cns" iperf3 -c "$addr" -J "$@" 2>&1)
		out=$(printf '%s\n' "$json" | __iperf_json)
		IFS="|" read -r rcvd err <<< "$out"
		# only a refusal is tried again: the server may not listen yet
		case $err in "unable to connect"*) ;; *) break ;; esac
		tries=$((tries + 1))
		[ $tries -lt 50 ] || break
		sleep 0.1
	done
	if [ -n "$err" ]; then
		echo "# iperf_bytes: iperf3 -c $addr $*: $err" >&2
		return 1
	fi
	if [ -z "$rcvd" ]; then
		echo "# iperf_bytes: iperf3 -c $addr $*: no receiver count in its output, which began:" >&2
		printf '%s\n' "$json" | head -n 5 | sed 's/^/#   /' >&2
		return 1
	fi
	echo "$rcvd"
}

# __iperf_json < IPERF3_JSON: prints "RECEIVED_BYTES|ERROR", either empty
__iperf_json() {
	awk '/"sum_received"/ { f = 1 }
		f && /"bytes":/ { gsub(/[^0-9]/, ""); r = $0; f = 0 }
		/"error":/ { sub(/.*"error":[ \t]*"/, ""); sub(/"[^"]*$/, ""); e = $0 }
		END { print r "|" e }'
}

# ------------------------------------------------------------ NCM link ---
NCM_GADGET=/sys/kernel/config/usb_gadget/usbeth-g1
NCM_FUNC=$NCM_GADGET/functions/ncm.usb0
NCM_UDC=dummy_udc.0
NCM_HOST_NS=ncm-host NCM_GADGET_NS=ncm-gadget
NCM_HOST_ADDR=10.200.0.1 NCM_GADGET_ADDR=10.200.0.2
NCM_HOST_IF= NCM_GADGET_IF=

# ncm_setup [-s super|high|full] [-v VID] [-p PID] [-q QMULT] [-m HOST_MAC]
# Load dummy_hcd at the given speed (default super), make a configfs NCM
# gadget posing as VID:PID (default 1d6b:0104) and plug it in.
ncm_setup() {
	ncm_create "$@"
	ncm_plug
}

# ncm_create [-s super|high|full] [-v VID] [-p PID] [-q QMULT]: ncm_setup without
# the plug: the gadget is made, not bound to the UDC (so it has no netdev
# yet: u_ether registers it at the first bind).
ncm_create() {
	local speed=super vid=0x1d6b pid=0x0104 qmult= mac=02:00:00:00:b1:01 o OPTIND=1
	while getopts "s:v:p:q:m:" o; do
		case $o in
		s) speed=$OPTARG ;;
		v) vid=$OPTARG ;;
		p) pid=$OPTARG ;;
		q) qmult=$OPTARG ;;
		m) mac=$OPTARG ;;
		*) bail "ncm_setup: bad option" ;;
		esac
	done
	local want hs
	case $speed in
	super) want=Y hs=Y ;;
	high) want=N hs=Y ;;
	full) want=N hs=N ;;
	*) bail "ncm_setup: speed '$speed' is not super, high or full" ;;
	esac
	# dummy_hcd stays loaded between tests: on 6.1, reloading it after
	# u_ether detached a netdev from its gadget (device_move to no parent)
	# can leave a stale sysfs glue dir that makes the next gadget netdev
	# fail to register ("kobject_add_internal failed for usb0 ... parent:
	# net"). Reload only to change speed.
	if [ -d /sys/module/dummy_hcd ] &&
	   { [ "$(cat /sys/module/dummy_hcd/parameters/is_super_speed)" != "$want" ] ||
	     [ "$(cat /sys/module/dummy_hcd/parameters/is_high_speed)" != "$hs" ]; }; then
		rmmod dummy_hcd || bail "rmmod dummy_hcd (to change speed)"
	fi
	if [ ! -d /sys/module/dummy_hcd ]; then
		modinfo dummy_hcd > /dev/null 2>&1 ||
			env_missing "no dummy_hcd module (CONFIG_USB_DUMMY_HCD) for the USB NCM link"
		modprobe dummy_hcd "is_super_speed=$want" "is_high_speed=$hs" ||
			bail "modprobe dummy_hcd"
		NCM_UDC=dummy_udc.0
	fi
	modprobe libcomposite && modprobe usb_f_ncm && modprobe cdc_ncm ||
		env_missing "cannot load the USB gadget/NCM modules (libcomposite, usb_f_ncm, cdc_ncm)"
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config ||
		env_missing "cannot mount configfs"
	ip netns add "$NCM_HOST_NS" && ip netns add "$NCM_GADGET_NS" ||
		bail "cannot create the NCM netns"

	mkdir -p "$NCM_GADGET" || bail "configfs gadget"
	echo "$vid" > "$NCM_GADGET/idVendor"
	echo "$pid" > "$NCM_GADGET/idProduct"
	mkdir -p "$NCM_GADGET/strings/0x409" "$NCM_GADGET/configs/c.1/strings/0x409"
	echo usbeth > "$NCM_GADGET/strings/0x409/manufacturer"
	echo "usbeth test gadget" > "$NCM_GADGET/strings/0x409/product"
	echo 0123456789 > "$NCM_GADGET/strings/0x409/serialnumber"
	echo NCM > "$NCM_GADGET/configs/c.1/strings/0x409/configuration"
	NCM_MAC=$mac NCM_QMULT=$qmult
	ncm_func_make
}

# ncm_func_make: the NCM function (its netdev not registered until it binds)
NCM_MAC='' NCM_QMULT=''
ncm_func_make() {
	mkdir "$NCM_FUNC" || bail "cannot create the NCM function"
	echo "$NCM_MAC" > "$NCM_FUNC/host_addr"
	echo 02:00:00:00:b1:02 > "$NCM_FUNC/dev_addr"
	if [ -n "$NCM_QMULT" ]; then
		echo "$NCM_QMULT" > "$NCM_FUNC/qmult" || bail "cannot set qmult $NCM_QMULT"
	fi
	ln -s "$NCM_FUNC" "$NCM_GADGET/configs/c.1/" || bail "cannot link the NCM function"
}

# kernel_fixed [RELEASE]: true when the kernel (default: the running one)
# carries upstream/'s fixes of the kernel bugs docs/kernel-bugs.md
# describes, which the NCM helpers below otherwise work around: a refused
# bind (the glue directory device_move() leaves behind), a refused first
# bind binding again (a BUG in register_netdevice), the full-speed download
# stall (bench/data.sh), the NTB kept across a disconnect (a gadget kept
# down across plugs). scripts/build-debug-kernel.sh builds such kernels
# (flavours fixed, debug-fixed and kcsan-fixed) only with the patches
# applied, and names them by it: their release ends in "-usbeth-fixed" or
# "-usbeth-FLAVOUR-fixed". Every other kernel is taken to have the bugs.
kernel_fixed() {
	case ${1:-$(uname -r)} in
	*-usbeth-fixed | *-usbeth-*-fixed) return 0 ;;
	esac
	return 1
}
# the running kernel's answer, for the helpers below (the kernel's word, not
# the environment's)
NCM_KERNEL_FIXED=0
kernel_fixed && NCM_KERNEL_FIXED=1

# __ncm_try_bind UDC: one bind. A refused first bind of a function leaves
# its netdev half-registered, and f_ncm registers it again at the next bind,
# which is a kernel BUG (register_netdevice: reg_state not UNINITIALIZED,
# seen on 7.3): so the function is made anew before any other try. Whether
# this was its first is the kernel's word: u_ether names a netdev that never
# went through registration "(unnamed net_device)" (its name is still the
# usb%d pattern), whoever bound it before. On a kernel with the fixes
# (kernel_fixed) a refusal is only counted: the callers fail on it.
__ncm_try_bind() {
	local first=0
	[ "$(cat "$NCM_FUNC/ifname")" = "(unnamed net_device)" ] && first=1
	if echo "$1" > "$NCM_GADGET/UDC" 2> /dev/null; then
		NCM_UDC=$1
		return 0
	fi
	NCM_STALE_GLUE=$((NCM_STALE_GLUE + 1))
	if [ $first -eq 1 ] && [ $NCM_KERNEL_FIXED -eq 0 ]; then
		rm -f "$NCM_GADGET/configs/c.1/$(basename "$NCM_FUNC")"
		rmdir "$NCM_FUNC" || bail "cannot remove the NCM function a refused bind left"
		ncm_func_make
	fi
	return 1
}

# ncm_udc_reload: the UDC goes (dummy_hcd unloaded: the gadget device is
# deleted and freed) and comes back at the same speed, and the gadget binds
# to it. A kernel bug stands in the way: u_ether moves its netdev off the
# gadget at unbind (device_move() to no parent), and device_move() never
# drops the old parent's "net" glue directory (drivers/base/core.c, 6.1 to
# 7.3), so it outlives the gadget. A new gadget allocated where a freed one
# was finds that dead directory, and the bind fails ("kobject_add_internal
# failed for usb0 (error: -2 parent: net)"; on stock 7.3 mostly from the
# second reload on, and reloading again mostly lands on the same address). So a
# refused bind reloads dummy_hcd with more UDCs (num=2, 4, ... 32), tried
# from the last allocated: of N new gadgets at most as many as have been
# freed can sit on a dead directory. NCM_STALE_GLUE counts refused binds,
# NCM_UDC names the UDC the gadget is bound to. (On the debug kernel
# KASAN's quarantine keeps freed memory from coming back at once; there the
# same directory shows as a leak: it holds a reference to its gadget, so
# neither the gadget device nor its UDC is ever released, five kmemleak
# objects for each UDC removed, which vm/kmemleak-known.sh sets aside.)
# On a kernel with the fixes (kernel_fixed) the gadget binds to the one
# new UDC or the reload fails.
NCM_STALE_GLUE=0
ncm_udc_reload() {
	local n=1 u udcs ss hs
	ss=$(cat /sys/module/dummy_hcd/parameters/is_super_speed) &&
		hs=$(cat /sys/module/dummy_hcd/parameters/is_high_speed) || return 1
	if [ $NCM_KERNEL_FIXED -eq 1 ]; then
		rmmod dummy_hcd && modprobe dummy_hcd "is_super_speed=$ss" "is_high_speed=$hs" &&
			__ncm_try_bind dummy_udc.0
		return
	fi
	while [ $n -le 32 ]; do
		rmmod dummy_hcd && modprobe dummy_hcd "is_super_speed=$ss" "is_high_speed=$hs" num=$n ||
			return 1
		mapfile -t udcs < <(ls -r /sys/class/udc)
		for u in "${udcs[@]}"; do
			__ncm_try_bind "$u" && return 0
		done
		n=$((n * 2))
	done
	return 1
}

# ncm_bind: bind the gadget to $NCM_UDC. After dummy_hcd was reloaded (a
# speed change in ncm_create) the first bind may meet a dead glue directory
# (above): then the refusal is counted and the UDC reloaded until one takes;
# on a kernel with the fixes (kernel_fixed) a refused bind fails.
ncm_bind() {
	__ncm_try_bind "$NCM_UDC" && return 0
	if [ $NCM_KERNEL_FIXED -eq 1 ]; then
		ktap_info "the bind to $NCM_UDC was refused (on $(uname -r), which has the fixes of upstream/)"
		return 1
	fi
	ktap_info "the bind to $NCM_UDC was refused: reloading dummy_hcd with more UDCs (a stale glue directory, ncm_udc_reload)"
	ncm_udc_reload
}

# ncm_plug: bind the gadget to the dummy UDC (the cable goes in), put both
# netdevs in their netns and up, in the order that gives the host carrier:
# the host must be up when the gadget sends its CONNECT notification, which
# it does when its netdev opens. (Toggling an open gadget netdev instead
# makes u_ether disable and re-enable live endpoints, which is flaky.)
ncm_plug() {
	ncm_bind || bail "cannot bind the gadget to $NCM_UDC ($NCM_STALE_GLUE binds refused)"
	if [ -z "$NCM_GADGET_IF" ]; then
		NCM_GADGET_IF=$(cat "$NCM_FUNC/ifname")
		ip link set dev "$NCM_GADGET_IF" netns "$NCM_GADGET_NS" ||
			bail "cannot move $NCM_GADGET_IF into $NCM_GADGET_NS"
		ip -n "$NCM_GADGET_NS" addr add "$NCM_GADGET_ADDR/24" dev "$NCM_GADGET_IF"
		ip -n "$NCM_GADGET_NS" link set lo up
	fi
	NCM_HOST_IF=$("$NLWAIT" -t 30 driver cdc_ncm) || bail "no cdc_ncm netdev appeared"
	ip link set dev "$NCM_HOST_IF" netns "$NCM_HOST_NS" ||
		bail "cannot move $NCM_HOST_IF into $NCM_HOST_NS"
	ip -n "$NCM_HOST_NS" addr add "$NCM_HOST_ADDR/24" dev "$NCM_HOST_IF"
	ip -n "$NCM_HOST_NS" link set lo up
	ip -n "$NCM_HOST_NS" link set dev "$NCM_HOST_IF" up
	ip -n "$NCM_GADGET_NS" link set dev "$NCM_GADGET_IF" up
	"$NLWAIT" -N "$NCM_HOST_NS" -t 30 carrier "$NCM_HOST_IF" ||
		bail "host side $NCM_HOST_IF got no carrier"
	"$NLWAIT" -N "$NCM_GADGET_NS" -t 30 carrier "$NCM_GADGET_IF" ||
		bail "gadget side $NCM_GADGET_IF got no carrier"
}

# ncm_unplug: unbind the UDC (the cable comes out); the host netdev goes.
# The gadget netdev is taken down first so the next plug opens it after the
# host side is up (see ncm_plug).
ncm_unplug() {
	ip -n "$NCM_GADGET_NS" link set dev "$NCM_GADGET_IF" down
	echo "" > "$NCM_GADGET/UDC" || bail "cannot unbind the gadget"
	"$NLWAIT" -N "$NCM_HOST_NS" -t 30 gone "$NCM_HOST_IF" ||
		bail "host side $NCM_HOST_IF did not go away on unplug"
	NCM_HOST_IF=
}

# ncm_teardown: undo ncm_setup, whatever state it got to.
ncm_teardown() {
	[ -d "$NCM_GADGET" ] || { ip netns del "$NCM_HOST_NS" 2>/dev/null; ip netns del "$NCM_GADGET_NS" 2>/dev/null; return 0; }
	[ -n "$(cat "$NCM_GADGET/UDC" 2>/dev/null)" ] && echo "" > "$NCM_GADGET/UDC"
	rm -f "$NCM_GADGET/configs/c.1/ncm.usb0"
	rmdir "$NCM_GADGET/configs/c.1/strings/0x409" "$NCM_GADGET/configs/c.1" 2>/dev/null
	rmdir "$NCM_FUNC" "$NCM_GADGET/strings/0x409" "$NCM_GADGET" 2>/dev/null
	ip netns del "$NCM_HOST_NS" 2>/dev/null
	ip netns del "$NCM_GADGET_NS" 2>/dev/null
	NCM_HOST_IF= NCM_GADGET_IF=
	# more than one UDC (ncm_udc_reload): back to one, for what runs next
	if [ "$NCM_UDC" != dummy_udc.0 ]; then
		rmmod dummy_hcd
		NCM_UDC=dummy_udc.0
	fi
	return 0
}

# ---------------------------------------------------- many NCM links ---
# N USB NICs at once: N configfs NCM gadgets (usbeth-s1 ... usbeth-sN), each
# on a UDC of its own, every netdev left in the initial netns:
#
#   gadget usbeth-sI                                  host side
#   $NCMS_GADGET_IF[I] (u_ether) == ${NCMS_UDC[I]} == a cdc_ncm netdev
#
# (ncms_setup / ncms_plug / ncms_unplug / ncms_hosts / ncms_teardown). A
# plug binds every gadget to its UDC, one right after the other, and
# returns: the hosts enumerate them together, as a hub full of NICs
# powering up. dummy_hcd makes at most 32 UDCs (MAX_NUM_UDC in
# drivers/usb/gadget/udc/dummy_hcd.c, 6.1 to 7.3), so N is at most 32;
# they run at high speed: a SuperSpeed one registers two USB buses, and the
# kernel numbers 63 at most (USB_MAXBUS), the VM's xHCI taking two.
NCMS_MAX=32
NCMS_N=0 NCMS_STALE_GLUE=0
NCMS_UDC=() NCMS_GADGET_IF=() NCMS_HOST_IFS=()
ncms_gadget() { echo "/sys/kernel/config/usb_gadget/usbeth-s$1"; }

# __ncms_func_make I: gadget I's NCM function, linked into its config; the
# host side's MAC 02:00:00:5e:I:01, the gadget's 02:00:00:5e:I:02
__ncms_func_make() {
	local g f
	g=$(ncms_gadget "$1")
	f=$g/functions/ncm.s$1
	mkdir "$f" || return 1
	printf '02:00:00:5e:%02x:01\n' "$1" > "$f/host_addr" &&
		printf '02:00:00:5e:%02x:02\n' "$1" > "$f/dev_addr" &&
		ln -s "$f" "$g/configs/c.1/"
}

# ncms_setup N [-v VID] [-p PID]: dummy_hcd at high speed with 32 UDCs
# (loaded again when it has fewer or another speed), N gadgets posing as VID:PID (default
# 1d6b:0104), each bound to a UDC that takes it, all at once: plugged, as
# ncms_plug leaves them. A UDC stays its gadget's from then on: its first
# bind registered the gadget netdev (NCMS_GADGET_IF), which stays across
# unbinds. A refused bind (the dead glue directory of ncm_udc_reload,
# left by an earlier dummy_hcd: only a reload makes one) is counted in
# NCMS_STALE_GLUE, the function made anew (see __ncm_try_bind) and the
# next UDC tried: 32 - N refusals can be borne.
ncms_setup() {
	local n=$1 vid=0x1d6b pid=0x0104 o OPTIND=2 i g u udcs=() next=0 first
	while getopts "v:p:" o; do
		case $o in
		v) vid=$OPTARG ;;
		p) pid=$OPTARG ;;
		*) bail "ncms_setup: bad option" ;;
		esac
	done
	[ "$n" -ge 1 ] && [ "$n" -le $NCMS_MAX ] || bail "ncms_setup: $n gadgets: 1 to $NCMS_MAX"
	modinfo dummy_hcd > /dev/null 2>&1 ||
		env_missing "no dummy_hcd module (CONFIG_USB_DUMMY_HCD) for the USB NCM links"
	if [ -d /sys/module/dummy_hcd ] &&
	   { [ "$(cat /sys/module/dummy_hcd/parameters/num)" -lt $NCMS_MAX ] ||
	     [ "$(cat /sys/module/dummy_hcd/parameters/is_super_speed)" != N ] ||
	     [ "$(cat /sys/module/dummy_hcd/parameters/is_high_speed)" != Y ]; }; then
		rmmod dummy_hcd || bail "rmmod dummy_hcd (for $NCMS_MAX UDCs at high speed)"
	fi
	if [ ! -d /sys/module/dummy_hcd ]; then
		modprobe dummy_hcd is_super_speed=N is_high_speed=Y num=$NCMS_MAX ||
			bail "modprobe dummy_hcd num=$NCMS_MAX"
	fi
	modprobe libcomposite && modprobe usb_f_ncm && modprobe cdc_ncm ||
		env_missing "cannot load the USB gadget/NCM modules (libcomposite, usb_f_ncm, cdc_ncm)"
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config ||
		env_missing "cannot mount configfs"
	mapfile -t udcs < <(ls /sys/class/udc)
	NCMS_N=$n NCMS_UDC=() NCMS_GADGET_IF=()
	for ((i = 1; i <= n; i++)); do
		g=$(ncms_gadget "$i")
		mkdir -p "$g/strings/0x409" "$g/configs/c.1/strings/0x409" || bail "configfs gadget $g"
		echo "$vid" > "$g/idVendor"
		echo "$pid" > "$g/idProduct"
		echo usbeth > "$g/strings/0x409/manufacturer"
		echo "usbeth storm gadget $i" > "$g/strings/0x409/product"
		printf 'S%08d\n' "$i" > "$g/strings/0x409/serialnumber"
		echo NCM > "$g/configs/c.1/strings/0x409/configuration"
		__ncms_func_make "$i" || bail "cannot make gadget $i's NCM function"
		while :; do
			[ $next -lt ${#udcs[@]} ] ||
				bail "$i of $n gadgets bound: no UDC left ($NCMS_STALE_GLUE binds refused)"
			u=${udcs[next]}
			next=$((next + 1))
			# whether this is its first bind: asked before it
			# (the refusal names the netdev)
			first=0
			[ "$(cat "$g/functions/ncm.s$i/ifname")" = "(unnamed net_device)" ] && first=1
			echo "$u" > "$g/UDC" 2> /dev/null && break
			NCMS_STALE_GLUE=$((NCMS_STALE_GLUE + 1))
			if [ $first -eq 1 ]; then
				rm -f "$g/configs/c.1/ncm.s$i"
				rmdir "$g/functions/ncm.s$i" ||
					bail "cannot remove the NCM function a refused bind left"
				__ncms_func_make "$i" || bail "cannot make gadget $i's NCM function again"
			fi
		done
		NCMS_UDC[i]=$u
		NCMS_GADGET_IF[i]=$(cat "$g/functions/ncm.s$i/ifname")
	done
}

# ncms_plug: every gadget bound to its UDC, one right after the other,
# without waiting for the hosts (ncms_hosts waits)
ncms_plug() {
	local i
	for ((i = 1; i <= NCMS_N; i++)); do
		echo "${NCMS_UDC[i]}" > "$(ncms_gadget "$i")/UDC" || bail "cannot bind gadget $i"
	done
}

# ncms_unplug: every gadget unbound, one right after the other, without
# waiting for the hosts to see it (ncms_hosts 0 waits)
ncms_unplug() {
	local i
	for ((i = 1; i <= NCMS_N; i++)); do
		echo "" > "$(ncms_gadget "$i")/UDC" || bail "cannot unbind gadget $i"
	done
}

# ncms_gadgets_up: the gadget netdevs up, in one ip -batch (they outlive
# unplugs, so they come up again at each plug)
ncms_gadgets_up() {
	local i
	for ((i = 1; i <= NCMS_N; i++)); do echo "link set dev ${NCMS_GADGET_IF[i]} up"; done |
		ip -batch - || bail "cannot bring the gadget netdevs up"
}

# ncms_hosts COUNT [SECONDS]: wait until exactly COUNT cdc_ncm netdevs
# exist (every host side there, or with 0 every one gone); their names in
# NCMS_HOST_IFS
ncms_hosts() {
	local out
	out=$("$NLWAIT" -t "${2:-120}" -c "$1" driver cdc_ncm) || return 1
	mapfile -t NCMS_HOST_IFS <<< "$out"
	[ "$1" -gt 0 ] || NCMS_HOST_IFS=()
}

# ncms_teardown: every gadget unbound and removed (its netdev with it).
# dummy_hcd stays loaded with its UDCs: unloading it leaves a dead glue
# directory for each gadget netdev that ever left a UDC (ncm_udc_reload),
# up to N of them for the NCM link of a test after this one to meet.
ncms_teardown() {
	local i g
	for ((i = 1; i <= NCMS_MAX; i++)); do
		g=$(ncms_gadget "$i")
		[ -d "$g" ] || continue
		[ -n "$(cat "$g/UDC" 2>/dev/null)" ] && echo "" > "$g/UDC"
		rm -f "$g/configs/c.1/ncm.s$i"
		rmdir "$g/configs/c.1/strings/0x409" "$g/configs/c.1" 2>/dev/null
		rmdir "$g/functions/ncm.s$i" "$g/strings/0x409" "$g" 2>/dev/null
	done
	NCMS_N=0 NCMS_UDC=() NCMS_GADGET_IF=() NCMS_HOST_IFS=()
	return 0
}

# -------------------------------------------------------- e1000e pair ---
E1K_A_NS=e1k-a E1K_B_NS=e1k-b
E1K_A_ADDR=10.201.0.1 E1K_B_ADDR=10.201.0.2
E1K_A_MAC=52:54:00:00:b0:01 E1K_B_MAC=52:54:00:00:b0:02
E1K_A_IF= E1K_B_IF=

__e1k_by_mac() {
	local d
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && { basename "$d"; return 0; }
	done
	return 1
}

# e1k_setup: the two wired e1000e NICs, one per netns, up with carrier.
e1k_setup() {
	modprobe e1000e || env_missing "no e1000e driver (modprobe e1000e)"
	E1K_A_IF=$(__e1k_by_mac $E1K_A_MAC) && E1K_B_IF=$(__e1k_by_mac $E1K_B_MAC) ||
		env_missing "no e1000e pair with MACs $E1K_A_MAC and $E1K_B_MAC (the usbeth VM has them: make check)"
	[ "$(link_driver "$E1K_A_IF")" = e1000e ] || bail "$E1K_A_IF is not e1000e"
	ip netns add "$E1K_A_NS" && ip netns add "$E1K_B_NS" || bail "cannot create the e1000e netns"
	ip link set dev "$E1K_A_IF" netns "$E1K_A_NS" && ip link set dev "$E1K_B_IF" netns "$E1K_B_NS" ||
		bail "cannot move the e1000e NICs"
	ip -n "$E1K_A_NS" addr add "$E1K_A_ADDR/24" dev "$E1K_A_IF"
	ip -n "$E1K_B_NS" addr add "$E1K_B_ADDR/24" dev "$E1K_B_IF"
	ip -n "$E1K_A_NS" link set lo up
	ip -n "$E1K_B_NS" link set lo up
	ip -n "$E1K_A_NS" link set dev "$E1K_A_IF" up
	ip -n "$E1K_B_NS" link set dev "$E1K_B_IF" up
	"$NLWAIT" -N "$E1K_A_NS" -t 30 carrier "$E1K_A_IF" &&
		"$NLWAIT" -N "$E1K_B_NS" -t 30 carrier "$E1K_B_IF" || bail "e1000e pair: no carrier"
}

# e1k_teardown: move the NICs back to the initial netns (synchronously; a
# deleted netns hands physical devices back only later) and drop the netns.
e1k_teardown() {
	if [ -n "$E1K_A_IF" ]; then
		ip -n "$E1K_A_NS" link set dev "$E1K_A_IF" down 2>/dev/null
		ip -n "$E1K_A_NS" link set dev "$E1K_A_IF" netns 1 2>/dev/null
	fi
	if [ -n "$E1K_B_IF" ]; then
		ip -n "$E1K_B_NS" link set dev "$E1K_B_IF" down 2>/dev/null
		ip -n "$E1K_B_NS" link set dev "$E1K_B_IF" netns 1 2>/dev/null
	fi
	ip netns del "$E1K_A_NS" 2>/dev/null
	ip netns del "$E1K_B_NS" 2>/dev/null
	E1K_A_IF= E1K_B_IF=
	return 0
}

# ------------------------------------------------------- usbnet NIC ----
# QEMU's usb-net, plugged into the VM's xHCI controller at run time through
# the VM's own monitor (vm_monitor: run-vm.sh relays ttyS2 to QEMU's QMP)
# and pulled out the same way, as a user plugs a real USB NIC. Its network
# side is wired by a qemu hub to the VM's third e1000e:
#
#   netns unet-host                            netns unet-peer
#   +---------------------------+              +---------------------------+
#   | $UNET_IF (cdc_ether or    |  xHCI, qemu  | $UNET_PEER_IF (e1000e)    |
#   |  rndis_host, over usbnet) |=== hub 1 ====|                           |
#   | 10.202.0.1/24             |              | 10.202.0.2/24             |
#   +---------------------------+              +---------------------------+
#
# The device (VID:PID 0525:a4a2, full speed) has two configurations, read
# from sysfs in the guest (QEMU 7.2): CDC-ECM (bConfigurationValue 1) and
# RNDIS (2). The kernel picks ECM, driven by cdc_ether; unet_plug -c rndis
# selects configuration 2 through sysfs, and rndis_host drives it.
# It is no modem: no radio link is behind it, only QEMU's emulation.
UNET_HOST_NS=unet-host UNET_PEER_NS=unet-peer
UNET_HOST_ADDR=10.202.0.1 UNET_PEER_ADDR=10.202.0.2
UNET_PEER_MAC=52:54:00:00:b0:03 UNET_MAC=52:54:00:00:b0:10
UNET_VID=0525 UNET_PID=a4a2
UNET_IF='' UNET_PEER_IF='' UNET_DRIVER='' UNET_ID='' UNET_N=0

# vm_monitor CMD...: one command of QEMU's human monitor, run on the VM's
# own QEMU (device_add, device_del, netdev_add, netdev_del, info); prints
# its output; fails with QEMU's error on stderr.
vm_monitor() {
	local fd reply
	[ -c /dev/ttyS2 ] || return 2
	stty -F /dev/ttyS2 raw -echo 115200 2>/dev/null || return 2
	exec {fd}<>/dev/ttyS2
	printf '%s\n' "$*" >&$fd
	read -r -t 60 -u $fd reply
	exec {fd}>&-
	case $reply in
	ok*) reply=${reply#ok}; [ -n "${reply# }" ] && printf '%s\n' "${reply# }"; return 0 ;;
	error*) echo "vm_monitor: $*: ${reply#error }" >&2; return 1 ;;
	*) echo "vm_monitor: $*: no answer from the VM's monitor" >&2; return 1 ;;
	esac
}

# unet_usbdev: the USB device directory of the plugged usb-net, by VID:PID
unet_usbdev() {
	local d
	for d in /sys/bus/usb/devices/*; do
		[ "$(cat "$d/idVendor" 2>/dev/null):$(cat "$d/idProduct" 2>/dev/null)" = "$UNET_VID:$UNET_PID" ] &&
			{ echo "$d"; return 0; }
	done
	return 1
}

# unet_setup: the peer e1000e in its netns, and both netns (no USB device
# yet: unet_plug plugs it).
unet_setup() {
	modprobe e1000e && modprobe xhci_pci && modprobe usbnet && modprobe cdc_ether ||
		env_missing "cannot load e1000e, xhci_pci, usbnet and cdc_ether"
	[ -c /dev/ttyS2 ] && vm_monitor info usb > /dev/null 2>&1 ||
		env_missing "no QEMU monitor on ttyS2 to plug a USB NIC with (the usbeth VM has one: make check)"
	UNET_PEER_IF=$(__e1k_by_mac $UNET_PEER_MAC) ||
		env_missing "no e1000e with MAC $UNET_PEER_MAC, the usb-net's peer (the usbeth VM has it: make check)"
	ip netns add "$UNET_HOST_NS" && ip netns add "$UNET_PEER_NS" || bail "cannot create the usbnet netns"
	ip link set dev "$UNET_PEER_IF" netns "$UNET_PEER_NS" || bail "cannot move $UNET_PEER_IF"
	ip -n "$UNET_PEER_NS" addr add "$UNET_PEER_ADDR/24" dev "$UNET_PEER_IF"
	ip -n "$UNET_PEER_NS" link set lo up
	ip -n "$UNET_PEER_NS" link set dev "$UNET_PEER_IF" up
	ip -n "$UNET_HOST_NS" link set lo up
}

# unet_attach [-c ecm|rndis]: plug the usb-net into the xHCI controller and
# wait for its netdev (in the initial netns, where the kernel registers it):
# UNET_IF, UNET_DRIVER. Nothing is configured on it.
unet_attach() {
	local conf=ecm o OPTIND=1
	while getopts "c:" o; do
		case $o in
		c) conf=$OPTARG ;;
		*) bail "unet_attach: bad option" ;;
		esac
	done
	UNET_N=$((UNET_N + 1))
	UNET_ID=unet$UNET_N
	vm_monitor netdev_add "hubport,id=${UNET_ID}n,hubid=1" &&
		vm_monitor device_add "usb-net,id=$UNET_ID,netdev=${UNET_ID}n,mac=$UNET_MAC,bus=xhci.0" ||
		bail "cannot plug the usb-net into the VM"
	UNET_IF=$("$NLWAIT" -t 30 driver cdc_ether) || bail "no cdc_ether netdev appeared for the usb-net"
	UNET_DRIVER=cdc_ether
	[ "$conf" = rndis ] && unet_select_rndis
	return 0
}

# unet_select_rndis: the attached usb-net's RNDIS configuration selected
# through sysfs: cdc_ether's netdev goes, rndis_host's comes (UNET_IF).
unet_select_rndis() {
	local dev
	modprobe rndis_host || env_missing "no rndis_host driver (CONFIG_USB_NET_RNDIS_HOST)"
	dev=$(unet_usbdev) || bail "no USB device $UNET_VID:$UNET_PID in sysfs"
	echo 2 > "$dev/bConfigurationValue" || bail "cannot select the usb-net's RNDIS configuration"
	# (rndis_host's netdev may take the name cdc_ether's had: waited on by
	# driver, not by the old name going)
	UNET_IF=$("$NLWAIT" -t 30 driver rndis_host) || bail "no rndis_host netdev appeared for the usb-net"
	UNET_DRIVER=rndis_host
}

# unet_plug [-c ecm|rndis]: unet_attach, then unet_up.
unet_plug() {
	unet_attach "$@"
	unet_up
}

# unet_up: the attached NIC into its netns, addressed, up, with carrier.
unet_up() {
	ip link set dev "$UNET_IF" netns "$UNET_HOST_NS" || bail "cannot move $UNET_IF into $UNET_HOST_NS"
	ip -n "$UNET_HOST_NS" addr add "$UNET_HOST_ADDR/24" dev "$UNET_IF"
	ip -n "$UNET_HOST_NS" link set dev "$UNET_IF" up
	"$NLWAIT" -N "$UNET_HOST_NS" -t 30 carrier "$UNET_IF" || bail "$UNET_IF got no carrier"
	"$NLWAIT" -N "$UNET_PEER_NS" -t 30 carrier "$UNET_PEER_IF" || bail "$UNET_PEER_IF got no carrier"
}

# unet_unplug: pull the usb-net out (device_del) and wait for its netdev to
# go, wherever it is.
unet_unplug() {
	local ns
	[ -n "$UNET_ID" ] || return 0
	vm_monitor device_del "$UNET_ID" || bail "cannot unplug the usb-net"
	if [ -n "$UNET_IF" ]; then
		for ns in "" "$UNET_HOST_NS"; do
			in_ns "$ns" ip link show dev "$UNET_IF" > /dev/null 2>&1 || continue
			"$NLWAIT" ${ns:+-N "$ns"} -t 30 gone "$UNET_IF" || bail "$UNET_IF did not go away on unplug"
		done
	fi
	vm_monitor netdev_del "${UNET_ID}n" > /dev/null 2>&1
	UNET_IF='' UNET_ID=''
}

# unet_teardown: undo unet_setup and any plug, whatever state they got to.
unet_teardown() {
	[ -n "$UNET_ID" ] && unet_unplug
	if [ -n "$UNET_PEER_IF" ]; then
		ip -n "$UNET_PEER_NS" link set dev "$UNET_PEER_IF" down 2>/dev/null
		ip -n "$UNET_PEER_NS" link set dev "$UNET_PEER_IF" netns 1 2>/dev/null
	fi
	ip netns del "$UNET_HOST_NS" 2>/dev/null
	ip netns del "$UNET_PEER_NS" 2>/dev/null
	UNET_PEER_IF=''
	return 0
}

# ------------------------------------------- emulated USB devices ----
# usbemu (tools/usbemu.c) plugs an emulated USB network device into the
# kernel's USB/IP virtual host controller (vhci_hcd) and models the link
# behind it (rate, delay, device buffer). Each device NAME gets a far side,
# the TAP (a TUN for a raw-IP modem) "far0" in netns emu-NAME, where the
# peer's stack runs:
#
#                                   vhci_hcd                netns emu-NAME
#   ${EMU_IF[NAME]} (cdc_ether,  <== USB/IP ==> usbemu ==> far0 (TAP)
#    cdc_ncm or qmi_wwan)          socketpair   buffer,     10.210.N.2/24
#   10.210.N.1/24                               rate, delay
#
# The host netdev stays where the kernel registers it (the initial netns)
# unless the test moves it. Its device's USB serial number is its MAC, so
# it is found by serial (nlwait usbserial), however many are plugged.
declare -A EMU_PID=() EMU_IF=() EMU_MAC=() EMU_N=() EMU_OUT=()
EMU_COUNT=0

# emu_setup: the modules the emulated devices need.
emu_setup() {
	local m
	for m in vhci-hcd tun usbnet cdc_ether cdc_ncm qmi_wwan; do
		modprobe "$m" || env_missing "cannot load $m (CONFIG_USBIP_VHCI_HCD, CONFIG_TUN, the USB network drivers)"
	done
	[ -w /sys/devices/platform/vhci_hcd.0/attach ] || env_missing "vhci_hcd has no attach file"
	USBEMU=$(ksft_helper usbemu) || env_missing "no usbemu helper (make -C selftests/tools)"
	FRAMES=$(ksft_helper frames.py) || env_missing "no frames.py helper"
}

# emu_plug NAME PERSONALITY [USBEMU_OPTION...]: plug a device in and wait
# for its host netdev: ${EMU_IF[NAME]}. Its far netns is made anew.
emu_plug() {
	emu_start "$@"
	emu_wait "$1"
}

# emu_start NAME PERSONALITY [USBEMU_OPTION...]: plug a device in, and do
# not wait (several plugged at once: emu_start each, then emu_wait each).
emu_start() {
	local name=$1 pers=$2 n mac
	shift 2
	if [ -z "${EMU_N[$name]:-}" ]; then
		EMU_COUNT=$((EMU_COUNT + 1))
		EMU_N[$name]=$EMU_COUNT
	fi
	n=${EMU_N[$name]}
	mac=$(printf '02:e0:00:00:%02x:%02x' $((n / 256)) $((n % 256)))
	EMU_MAC[$name]=$mac
	ip netns del "emu-$name" 2>/dev/null
	ip netns add "emu-$name" || bail "cannot create netns emu-$name"
	ip -n "emu-$name" link set lo up
	EMU_OUT[$name]=/tmp/usbemu-$name.out
	"$USBEMU" -n "emu-$name" -t far0 -m "$mac" -c "/tmp/usbemu-$name.sock" "$@" "$pers" \
		> "${EMU_OUT[$name]}" 2>&1 &
	EMU_PID[$name]=$!
}

# emu_wait NAME: the plugged device's host netdev, ${EMU_IF[NAME]}
emu_wait() {
	local name=$1
	EMU_IF[$name]=$("$NLWAIT" -t 60 usbserial "${EMU_MAC[$name]//:/}") || {
		sed 's/^/# usbemu: /' "${EMU_OUT[$name]}"
		bail "no host netdev for the emulated device $name"
	}
}

# emu_up NAME [HOST_NETNS]: addresses on both sides, both up; waits for the
# host side's carrier (a CDC device's NETWORK_CONNECTION). The host netdev
# moves into HOST_NETNS when one is named.
emu_up() {
	local name=$1 ns=${2:-} n=${EMU_N[$1]} if=${EMU_IF[$1]}
	if [ -n "$ns" ]; then
		ip link set dev "$if" netns "$ns" || bail "cannot move $if into $ns"
	fi
	# qmi_wwan takes a received 802.3 frame whose destination begins with
	# 0x4- or 0x6- for an IP packet and puts a header before it; usbnet's
	# random MAC can begin so (seen on 6.1: 6a:b4:...), so the modem's
	# host side gets a fixed one
	if [ "$(link_driver ${ns:+"$ns"} "$if")" = qmi_wwan ]; then
		in_ns "$ns" ip link set dev "$if" address "$(printf '02:e1:00:00:%02x:%02x' $((n / 256)) $((n % 256)))"
	fi
	in_ns "$ns" ip addr add "10.210.$n.1/24" dev "$if"
	ip -n "emu-$name" addr add "10.210.$n.2/24" dev far0
	ip -n "emu-$name" link set far0 up
	in_ns "$ns" ip link set dev "$if" up
	"$NLWAIT" ${ns:+-N "$ns"} -t 30 carrier "$if" && return 0
	# Seen once on 6.12 at super speed: no carrier in 30 s, nothing in the
	# kernel log. What the device sent and holds is said, then it sends
	# NETWORK_CONNECTION again: a carrier that comes then says the host
	# lost the first one; none says the host never asked (no interrupt
	# URB pending).
	ktap_info "$if ($name): no carrier in 30 s; the device: $(emu_ctl "$name" stats |
		grep -o 'link=.*')"
	emu_ctl "$name" link up > /dev/null
	"$NLWAIT" ${ns:+-N "$ns"} -t 30 carrier "$if" ||
		bail "$if ($name) got no carrier, even after a second NETWORK_CONNECTION: $(emu_ctl "$name" stats |
			grep -o 'link=.*')"
	ktap_info "$if ($name): carrier after the device sent NETWORK_CONNECTION again"
}

# emu_addr NAME host|far: the address emu_up gave that side
emu_addr() { [ "$2" = host ] && echo "10.210.${EMU_N[$1]}.1" || echo "10.210.${EMU_N[$1]}.2"; }

# emu_ctl NAME COMMAND...: the device's control socket (usbemu ctl)
emu_ctl() { local name=$1; shift; "$USBEMU" ctl "/tmp/usbemu-$name.sock" "$@"; }

# emu_stat NAME KEY: one counter or setting of the device
emu_stat() {
	local kv
	for kv in $(emu_ctl "$1" stats); do
		[ "${kv%%=*}" = "$2" ] && { echo "${kv#*=}"; return 0; }
	done
	return 1
}

# emu_unplug NAME...: pull the devices out at once (each usbemu ends, its
# socket closes, vhci_hcd disconnects the device) and wait for every host
# netdev to go, wherever it is.
emu_unplug() {
	local name pids=()
	for name in "$@"; do
		[ -n "${EMU_PID[$name]:-}" ] && pids+=("${EMU_PID[$name]}")
	done
	[ ${#pids[@]} -gt 0 ] && kill -TERM "${pids[@]}" 2>/dev/null
	for name in "$@"; do
		[ -n "${EMU_PID[$name]:-}" ] || continue
		wait "${EMU_PID[$name]}" 2>/dev/null
		EMU_PID[$name]=''
		if [ -n "${EMU_IF[$name]:-}" ]; then
			__emu_gone "${EMU_IF[$name]}" || bail "${EMU_IF[$name]} ($name) did not go away on unplug"
		fi
		EMU_IF[$name]=''
	done
}

# __emu_gone IFNAME: wait for IFNAME to go from every netns it may be in
__emu_gone() {
	local ns
	for ns in "" $(ip netns list | awk '{ print $1 }'); do
		in_ns "$ns" ip link show dev "$1" > /dev/null 2>&1 || continue
		"$NLWAIT" ${ns:+-N "$ns"} -t 30 gone "$1" || return 1
	done
}

# emu_teardown: every device pulled out, every far netns gone.
emu_teardown() {
	local name
	emu_unplug "${!EMU_PID[@]}" 2>/dev/null
	for name in "${!EMU_N[@]}"; do
		ip netns del "emu-$name" 2>/dev/null
		rm -f "/tmp/usbemu-$name.sock"
	done
	EMU_N=() EMU_IF=() EMU_PID=() EMU_MAC=() EMU_COUNT=0
	return 0
}

# ------------------------------------------------- what is under test ----
if [ -n "${USBETH_TOP:-}" ]; then
	USBETH_CLI=${USBETH_CLI:-$USBETH_TOP/ip-extensions/usbeth}
	USBETHD=${USBETHD:-$USBETH_TOP/usbethd/usbethd}
	USBETH_PROFILES=$USBETH_TOP/usbethd/profiles.d
	USBETH_PROFILES_AVAILABLE=$USBETH_TOP/usbethd/profiles.available
	USBETH_SPEC=$USBETH_TOP/uapi/usbeth.yaml
	USBETH_COMPLETION=$USBETH_TOP/ip-extensions/usbeth.bash-completion
	USBETH_KMOD=${USBETH_KMOD:-$USBETH_TOP/kmod/usbeth.ko}
else
	USBETH_CLI=${USBETH_CLI:-$(command -v usbeth)}
	USBETHD=${USBETHD:-$(command -v usbethd)}
	__prefix=${USBETHD%/*}
	__prefix=${__prefix%/*}
	__prefix=${__prefix:-/usr}
	USBETH_PROFILES=$__prefix/share/usbeth/profiles.d
	USBETH_PROFILES_AVAILABLE=$__prefix/share/usbeth/profiles.available
	USBETH_SPEC=$__prefix/share/usbeth/usbeth.yaml
	USBETH_COMPLETION=$__prefix/share/bash-completion/completions/usbeth
	USBETH_KMOD=$(modinfo -n usbeth 2>/dev/null)
fi
# USBETH_PROFILES: the profiles usbethd applies as shipped; _AVAILABLE: the
# ones shipped disabled, which an admin enables by copying one into
# /etc/usbeth/profiles.d (usbethd.profiles(5))
export USBETH_CLI USBETHD USBETH_PROFILES USBETH_PROFILES_AVAILABLE USBETH_SPEC USBETH_COMPLETION USBETH_KMOD

# usbeth_load: load the module under test (the tree's, or the system's
# through modprobe).
usbeth_load() {
	if [ -n "${USBETH_TOP:-}" ]; then
		insmod "$USBETH_KMOD"
	else
		modprobe usbeth
	fi
}

# usbeth_udev_rule: the udev rule as installed, its RUN+= naming $USBETHD.
usbeth_udev_rule() {
	local d
	if [ -n "${USBETH_TOP:-}" ]; then
		sed "s|@SBINDIR@|${USBETHD%/*}|g" "$USBETH_TOP/packaging/90-usbeth.rules"
		return
	fi
	for d in /etc/udev/rules.d /usr/lib/udev/rules.d /lib/udev/rules.d; do
		[ -r "$d/90-usbeth.rules" ] && { cat "$d/90-usbeth.rules"; return; }
	done
	return 1
}

# need_usbeth_prog VAR: the program in $VAR (USBETH_CLI, USBETHD) is there,
# or the environment is missing.
need_usbeth_prog() {
	[ -x "${!1}" ] && return 0
	if [ -n "${USBETH_TOP:-}" ]; then
		env_missing "$1 ${!1} is not built (make in $USBETH_TOP)"
	fi
	env_missing "no $([ "$1" = USBETHD ] && echo usbethd || echo usbeth) on PATH (install usbeth, or set USBETH_TOP to a built checkout)"
}

# Every test drives the module: load it if it is not (not for a script
# that takes only the helpers, USBETH_HELPERS_ONLY=1: the booted-system
# check, which asks whether the system loaded it).
if [ -z "${USBETH_HELPERS_ONLY:-}" ]; then
	[ "$(id -u)" -eq 0 ] || env_missing "must run as root"
	if [ ! -d /sys/module/usbeth ]; then
		__out=$(usbeth_load 2>&1) ||
			env_missing "the usbeth module cannot be loaded: ${__out:-no module}"
	fi
fi

USBETHCTL=$(ksft_helper usbethctl)
export USBETHCTL

# ue [NETNS] ARGS...: usbethctl, in NETNS when the first word names one.
ue() {
	if [ -e "/run/netns/$1" ]; then
		local ns=$1
		shift
		ip netns exec "$ns" "$USBETHCTL" "$@"
	else
		"$USBETHCTL" "$@"
	fi
}

# ue_field NETNS DEV KEY: one value from `usbethctl get` ("" when absent).
ue_field() {
	ue "$1" get "$2" | sed -n "s/^$3=//p" | head -n1
}

# in_ns NETNS CMD...: a command in NETNS ("" = the initial netns).
in_ns() {
	local ns=$1
	shift
	if [ -n "$ns" ]; then ip netns exec "$ns" "$@"; else "$@"; fi
}

# bytes_over NETNS IFNAME rx|tx SECONDS: "BYTES USECS", what a netdev's
# byte counter moved over a window (a measurement interval, not a wait on
# an event) and the window's length. Each count is read beside its
# timestamp in one shell, with no process started between them: a fork of
# ip and cat under TCG takes tens of milliseconds, and the spread of two
# came to 5% of a 3.5 s window.
bytes_over() {
	in_ns "$1" bash -c 'read -r b0 < "$1"; t0=$EPOCHREALTIME
		sleep "$2"; read -r b1 < "$1"; t1=$EPOCHREALTIME
		echo "$((b1 - b0)) $(( ${t1//[.,]/} - ${t0//[.,]/} ))"' \
		_ "/sys/class/net/$2/statistics/$3_bytes" "$4"
}

# sysfs_of NETNS DEV PATH: a file under /sys/class/net/DEV as seen from NETNS
# (sysfs shows the netns of whoever mounted it, so mount one there).
sysfs_of() {
	ip netns exec "$1" sh -c "cat /sys/class/net/$2/$3"
}

# wait_line FILE REGEX [N]: until N (default 1) lines of FILE, which a
# process is writing, match (tail follows it by inotify), at most 60 s.
# FILE may not be there yet: a process started with `> FILE &` opens it
# after the fork, and tail -F waits for it to appear.
wait_line() {
	timeout 60 tail -n +1 -F "$1" 2>/dev/null | grep -q -m "${3:-1}" -E "$2"
}

# changes_after_del FILE: the first 3 "change" lines of a `usbethctl
# monitor` log that came while their device (by ifindex) was gone from the
# monitor's netns (after its "del", before a "new"); nothing when none did
changes_after_del() {
	awk '{ split($2, a, "="); i = a[2] }
		$1 == "new" { gone[i] = 0 }
		$1 == "del" { gone[i] = 1 }
		$1 == "change" && gone[i] { print "CHANGE of ifindex " i " after its DEL: " $0 }' "$1" |
		head -n 3
}

# ethtool_stat NETNS DEV NAME: one `ethtool -S` counter.
ethtool_stat() {
	in_ns "$1" ethtool -S "$2" | sed -n "s/^ *$3: //p"
}

# monitor_start NETNS: start `usbethctl monitor` in the background on fd
# MON_FD and wait for it to say it is subscribed (no race with what follows).
MON_PIDS=()
monitor_start() {
	exec {MON_FD}< <(exec ip netns exec "${1:-$(__self_ns)}" "$USBETHCTL" monitor -t 120)
	MON_PIDS+=($!)
	local line
	read -r -t 30 -u "$MON_FD" line && [ "$line" = ready ] || bail "usbethctl monitor did not start"
}

# the initial netns has no name: `ip netns exec` needs one; give it one
__self_ns() {
	[ -e /run/netns/init ] || { mkdir -p /run/netns && touch /run/netns/init &&
		mount --bind /proc/1/ns/net /run/netns/init; } >&2
	echo init
}

# monitor_stop_all: end every monitor monitor_start started.
monitor_stop_all() {
	[ ${#MON_PIDS[@]} -gt 0 ] && kill "${MON_PIDS[@]}" 2>/dev/null
	MON_PIDS=()
	return 0
}

# monitor_expect REGEX [SECONDS]: read events until one matches; prints it.
monitor_expect() {
	local line end=$((SECONDS + ${2:-30}))
	while [ $SECONDS -lt $end ]; do
		read -r -t $((end - SECONDS)) -u "$MON_FD" line || return 1
		if [[ $line =~ $1 ]]; then
			printf '%s\n' "$line"
			return 0
		fi
	done
	return 1
}

# ------------------------------------------------------- what differs ----
# kasan_kernel: the running kernel was built with KASAN (the debug kernels
# of scripts/build-debug-kernel.sh), read from its own configuration. Under
# TCG such a kernel carries a few hundred kbit/s through an emulated link:
# less than the rates the emulated devices are tested at.
kasan_kernel() {
	grep -qx 'CONFIG_KASAN=y' "/lib/modules/$(uname -r)/config" 2>/dev/null
}

# usbnet_does_bql: whether this kernel's usbnet reports its TX bytes to BQL
# (mainline 6.19: Debian 13 backports' 7.3 does, 6.1 and 6.12 do not). Read
# from the driver itself, not from usbeth or a version number: its module
# calls BQL's completion hook, dql_completed.
usbnet_does_bql() {
	local ko n
	ko=$(modinfo -n usbnet 2>/dev/null) || return 1
	n=$(case $ko in
		*.xz) xz -dc "$ko" ;;
		*.zst) zstd -qdc "$ko" ;;
		*) cat "$ko" ;;
		esac | grep -ac dql_completed)
	[ "${n:-0}" -gt 0 ]
}

# extack_formatted: whether usbeth's refusals carry formatted messages
# (device, value and limit named) on this kernel: from 6.2, where the kernel
# keeps a formatted extack; 6.1 gets static messages (kmod/compat.h).
extack_formatted() {
	local v
	v=$(uname -r | cut -d. -f1,2)
	[ "${v%%.*}" -gt 6 ] || { [ "${v%%.*}" -eq 6 ] && [ "${v#*.}" -ge 2 ]; }
}
