# SPDX-License-Identifier: GPL-2.0
# Sourced by the daemon benchmarks: the kernel's clock on usbeth's events.
#
# usbeth_kprobes GROUP NTF_FILTER: kprobes GROUP/usbeth_ntf on the
# module's notification of a netdev (usbeth_notify_dev(dev, cmd)), kept
# where NTF_FILTER holds, and GROUP/usbeth_applied on the fill of a CHANGE
# (usbeth_fill_dev(skb, dev, name, portid, seq, flags, cmd, left): the
# values are in the driver by then). Both carry dev=ADDRESS, the struct
# net_device's address, the key that pairs them: the name sits at an offset
# that differs by kernel. enum usbeth_cmd: NEW_NTF 3, DEL_NTF 4,
# CHANGE_NTF 5. Tracing is in T (tracefs).
usbeth_kprobes() {
	mountpoint -q "$T" || mount -t tracefs none "$T" 2>/dev/null
	[ -w "$T/kprobe_events" ] || ktap_skip_all "no tracefs kprobe events in this kernel"
	echo mono > "$T/trace_clock" || bail "trace_clock mono"
	echo 4096 > "$T/buffer_size_kb"
	{
		echo "p:$1/usbeth_ntf usbeth_notify_dev dev=\$arg1:x64 cmd=\$arg2:u8"
		echo "p:$1/usbeth_applied usbeth_fill_dev dev=\$arg2:x64 cmd=\$arg7:u8"
	} > "$T/kprobe_events" || bail "cannot place kprobes on usbeth"
	echo "$2" > "$T/events/$1/usbeth_ntf/filter" &&
		echo 'cmd == 5' > "$T/events/$1/usbeth_applied/filter" || bail "kprobe filters"
	echo 1 > "$T/events/$1/enable"
}
# trace_begin: an empty trace, recording
trace_begin() { echo 0 > "$T/tracing_on"; echo > "$T/trace"; echo 1 > "$T/tracing_on"; }
