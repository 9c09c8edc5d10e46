# SPDX-License-Identifier: GPL-2.0
# Sourced by the daemon benchmarks: the kernel's clock on usbeth's events.
#
# usbeth_kprobes GROUP NTF_FILTER: kprobes GROUP/usbeth_ntf on the
# module's notification of a netdev (usbeth_notify_dev(dev, cmd)), kept
# where NTF_FILTER holds, and GROUP/usbeth_applied on a SET's CHANGE
# (usbeth_notify_change(dev, name, info, left): the values are in the
# driver by then). Both carry dev=ADDRESS, the struct
# net_device's address, the key that pairs them: the name sits at an offset
# that differs by kernel. enum usbeth_cmd (in NTF_FILTER): NEW_NTF 3,
# DEL_NTF 4. Tracing is in T (tracefs).
usbeth_kprobes() {
	mountpoint -q "$T" || mount -t tracefs none "$T" 2>/dev/null
	[ -w "$T/kprobe_events" ] || ktap_skip_all "no tracefs kprobe events in this kernel"
	echo mono > "$T/trace_clock" || bail "trace_clock mono"
	echo 4096 > "$T/buffer_size_kb"
	{
		echo "p:$1/usbeth_ntf usbeth_notify_dev dev=\$arg1:x64 cmd=\$arg2:u8"
		echo "p:$1/usbeth_applied usbeth_notify_change dev=\$arg1:x64"
	} > "$T/kprobe_events" || bail "cannot place kprobes on usbeth"
	echo "$2" > "$T/events/$1/usbeth_ntf/filter" || bail "kprobe filter"
	echo 1 > "$T/events/$1/enable"
}
# trace_begin: an empty trace, recording
trace_begin() { echo 0 > "$T/tracing_on"; echo > "$T/trace"; echo 1 > "$T/tracing_on"; }
