# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the reproducers here: a configfs NCM gadget on dummy_hcd,
# looped back to the same machine's cdc_ncm, each end in a netns of its own
# so that traffic between them crosses the emulated USB link.
# Needs: dummy_hcd, libcomposite, usb_f_ncm, cdc_ncm; iproute2; root.

G=/sys/kernel/config/usb_gadget/repro
F=$G/functions/ncm.usb0

die() { echo "$0: $*" >&2; exit 2; }

# udc_load [dummy_hcd PARAMS...]
udc_load() {
	modprobe dummy_hcd "$@" || die "no dummy_hcd (CONFIG_USB_DUMMY_HCD)"
}

# gadget_make: the gadget, one configuration, one NCM function, unbound
gadget_make() {
	modprobe libcomposite && modprobe usb_f_ncm && modprobe cdc_ncm ||
		die "needs libcomposite, usb_f_ncm, cdc_ncm"
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	mkdir "$G" "$G/configs/c.1" || die "cannot make $G"
	echo 0x1d6b > "$G/idVendor"
	echo 0x0104 > "$G/idProduct"
	func_make
}

# func_make: a new NCM function in the configuration (its net_device is
# registered at its first bind)
func_make() {
	mkdir "$F" && ln -s "$F" "$G/configs/c.1/"
}

# func_remove: the function out of the configuration, and gone
func_remove() {
	rm -f "$G/configs/c.1/ncm.usb0"
	rmdir "$F"
}

# host_if: the cdc_ncm interface the bound gadget made on the host side
host_if() {
	local d
	for d in /sys/class/net/*; do
		[ "$(basename "$(readlink -f "$d/device/driver" 2>/dev/null)")" = cdc_ncm ] &&
			{ basename "$d"; return 0; }
	done
	return 1
}

# wait_for CMD...: poll CMD for up to 30 s
wait_for() {
	local i
	for i in $(seq 300); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
no_host_if() { ! host_if > /dev/null; }

# bind: bind the gadget to the first UDC; 0 once the host side has its
# interface, 1 when the bind is refused
bind() {
	echo "$(ls /sys/class/udc | head -n1)" > "$G/UDC" 2> /dev/null || return 1
	wait_for host_if > /dev/null || die "bound, but no cdc_ncm interface appeared"
}

unbind() {
	echo "" > "$G/UDC"
	wait_for no_host_if || die "unbound, but the cdc_ncm interface stayed"
}

# quiet_link: the gadget (made) bound, its interface and the host's each
# in a netns of its own (repro-g, repro-h: gif, hif), 10.77.0.2 and
# 10.77.0.1, no IPv6, down: nothing goes out of either end but what the
# caller sends
quiet_link() {
	local ns
	ip netns add repro-h && ip netns add repro-g || die "ip netns"
	bind || die "the bind was refused"
	gif=$(cat "$F/ifname") hif=$(host_if)
	ip link set "$gif" netns repro-g && ip link set "$hif" netns repro-h || die "ip link set netns"
	ip -n repro-g addr add 10.77.0.2/24 dev "$gif" && ip -n repro-h addr add 10.77.0.1/24 dev "$hif" ||
		die "ip addr"
	for ns in repro-g repro-h; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	done
	ip netns exec repro-g sysctl -qw "net.ipv6.conf.$gif.disable_ipv6=1"
	ip netns exec repro-h sysctl -qw "net.ipv6.conf.$hif.disable_ipv6=1"
}
# iperf_repro: the start of a reproducer that runs iperf3: iperf3 and root
# there, dummy_hcd unloaded (the caller loads it as it needs); on exit the
# iperf3 client (pid in cli) and server (pid in pidf) are stopped, the
# gadget taken down and dummy_hcd unloaded
pidf=/run/repro-iperf3.pid cli=
iperf_stop() {
	[ -z "$cli" ] || kill "$cli" 2> /dev/null
	[ ! -s $pidf ] || kill "$(cat $pidf)" 2> /dev/null
	wait 2> /dev/null
	gadget_teardown
	rmmod dummy_hcd
}
iperf_repro() {
	command -v iperf3 > /dev/null || die "needs iperf3"
	[ "$(id -u)" = 0 ] || die "needs root"
	! lsmod | grep -q '^dummy_hcd ' || rmmod dummy_hcd || die "cannot reload dummy_hcd"
	trap iperf_stop EXIT
}

gadget_teardown() {
	[ -d "$G" ] || return 0
	[ -z "$(cat "$G/UDC" 2> /dev/null)" ] || echo "" > "$G/UDC"
	rm -f "$G/configs/c.1/ncm.usb0"
	rmdir "$G/configs/c.1" "$F" "$G" 2> /dev/null
	ip netns del repro-h 2> /dev/null
	ip netns del repro-g 2> /dev/null
	return 0
}
