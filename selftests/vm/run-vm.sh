#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a stock Debian kernel of the matrix under qemu TCG with this machine's
# root visible (read-only, 9p), load the usbeth module, run the given test
# programs inside (selftests/vm/guest-run.sh), stream their KTAP output here,
# unload the module, and exit with the guest's verdict.
#
#   run-vm.sh [-K KERNEL] [-t TIMEOUT_S] [-o LOGDIR] [-k KMOD.ko] [-q] TEST...
#   run-vm.sh [-K KERNEL] [-t TIMEOUT_S] [-o LOGDIR] [-q] -I STAGE
#
# KERNEL names a kernel of the matrix (scripts/kernels.conf: 6.1, 6.12, 7.3;
# default: the first); the module is the one built for it, build/kmod/KERNEL.
# -I: no tests from the tree: STAGE (scripts/kselftest-install.sh) is laid
# over the guest's /usr as an installed usbeth, and the installed kselftest
# list runs through run_kselftest.sh (guest-run.sh --installed).
#
# The run fails when: a test fails; the module does not unload; the guest
# does not finish within the timeout (it is killed, and we say so); or the
# guest's kernel log shows an oops, BUG, WARNING, lockdep report, panic or
# "unregister_netdevice: waiting for" (see check-klog.sh). The kernel log of
# a failed run is kept and its path printed.
#
# The VM has two e1000e NICs wired together (a qemu hub) for the BQL tests,
# an xHCI controller with no device on it, and a third e1000e on a hub of
# its own: the peer of the USB NIC (QEMU's usb-net) that a test plugs in
# and pulls at run time. The guest drives its own QEMU monitor for that
# through its third serial port, ttyS2 (monitor-relay.py; lib.sh's
# vm_monitor): device_add, device_del, netdev_add, netdev_del, info.
#
# TCG runs single-threaded by default (one host thread takes turns with
# both vCPUs): multi-threaded TCG has lost whole runs to x86 text patching
# racing the other vCPU, a jump label or a module's alternatives patched
# while it runs through them (TESTBED.md): "Oops: int3" in netif_rx_internal
# and sched_clock_cpu on 7.3, and "Oops: double fault ... Fatal exception
# in interrupt" on 6.12 right after modules were loaded (CI, 2026-12-02;
# interrupt context, where usbeth runs no code). Single-threaded TCG has
# shown neither. Its cost, measured on this 2-core machine one run after the
# other: the whole 6.12 suite took 646 s single-threaded, 537 s multi.
# USBETH_VM_TCG_THREAD=multi asks for the other; then such an oops makes
# the run exit 3 and it is run once more single-threaded.
#
# Exit: 0 pass, 1 fail, 2 usage, 3 fail with the text-patching signature
# under multi-threaded TCG (only when USBETH_VM_TCG_THREAD=multi).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
timeout_s=${USBETH_VM_TIMEOUT:-900}
logdir=
kmod=
kernel=
quiet=0
orig_args=("$@")
stage=
usage="usage: run-vm.sh [-K KERNEL] [-t TIMEOUT_S] [-o LOGDIR] [-k KMOD.ko] [-q] { TEST... | -I STAGE }"
while getopts "K:t:o:k:qI:" o; do
	case $o in
	K) kernel=$OPTARG ;;
	t) timeout_s=$OPTARG ;;
	o) logdir=$OPTARG ;;
	k) kmod=$OPTARG ;;
	q) quiet=1 ;;
	I) stage=$(readlink -f "$OPTARG") ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ -n "$stage" ]; then
	[ -f "$stage/root/usr/lib/usbeth/kselftest/kselftest-list.txt" ] ||
		{ echo "run-vm: $stage is no kselftest stage (scripts/kselftest-install.sh)" >&2; exit 2; }
	[ $# -eq 0 ] || { echo "run-vm: -I runs the installed list, no TEST" >&2; exit 2; }
else
	[ $# -gt 0 ] || { echo "run-vm: no test given" >&2; exit 2; }
fi

tcg_thread=${USBETH_VM_TCG_THREAD:-single}
case $tcg_thread in
single | multi) ;;
*) echo "run-vm: USBETH_VM_TCG_THREAD is single or multi, not '$tcg_thread'" >&2; exit 2 ;;
esac
# A multi-threaded run lost to the text-patching flake (exit 3, below) is
# run once more single-threaded; the lost run's logs are kept beside.
if [ -z "${USBETH_VM_ATTEMPT:-}" ] && [ "$tcg_thread" = multi ]; then
	USBETH_VM_ATTEMPT=1 "$0" "${orig_args[@]}"
	rc=$?
	[ $rc -eq 3 ] || exit $rc
	if [ -n "$logdir" ]; then
		rm -rf "$logdir-tcg-flake" && mv "$logdir" "$logdir-tcg-flake"
		echo "# run-vm: the lost run's logs are in $logdir-tcg-flake"
	fi
	echo "# run-vm: running again with single-threaded TCG"
	USBETH_VM_ATTEMPT=2 USBETH_VM_TCG_THREAD=single exec "$0" "${orig_args[@]}"
fi

kenv=$("$top/scripts/kernel-env.sh" ${kernel:+"$kernel"}) || exit 2
eval "$kenv"
kmoddir=$top/build/kmod/$KLABEL
kmod=${kmod:-$kmoddir/kmod/usbeth.ko}
[ -r "$kmod" ] || { echo "run-vm: module $kmod not built (make)" >&2; exit 2; }
modabi=$(modinfo -F vermagic "$kmod" | cut -d' ' -f1)
[ "$modabi" = "$KABI" ] ||
	{ echo "run-vm: $kmod is built for '$modabi' but the VM boots $KABI" >&2; exit 2; }

tests=()
for t in "$@"; do
	p=$(readlink -f "$t") && [ -f "$p" ] || { echo "run-vm: no test program '$t'" >&2; exit 2; }
	tests+=("$p")
done

# Guest files must live in the host tree (the guest's /tmp is its own tmpfs).
work=$top/build/vm
mkdir -p "$work"
run=$(mktemp -d "$work/run.XXXXXX")
trap 'rm -rf "$run"' EXIT
initrd=$USBETH_CACHE/$KABI/initramfs.cpio.gz
if [ ! -f "$initrd" ] || [ "$here/init" -nt "$initrd" ] || [ "$here/mkinitramfs.sh" -nt "$initrd" ]; then
	"$here/mkinitramfs.sh" "$KROOT" "$KABI" "$initrd" || exit 2
fi

{
	echo "export USBETH_TOP='$top' USBETH_KMOD='$kmod' USBETH_KMOD_DIR='$kmoddir'"
	echo "export USBETH_KERNEL='$KLABEL'"
	# the cache, for what setup.sh unpacked there (the kernel's YNL library)
	echo "export USBETH_CACHE='$USBETH_CACHE'"
	# knobs of the suite's length, passed on when set (check.sh --debug)
	for v in USBETH_TEST_TIMEOUT USBETH_FUZZ_COUNT USBETH_STRESS_CYCLES USBETH_NETNS_ROUNDS USBETH_CYCLES USBETH_CYCLES_UDC_EVERY USBETH_BENCH_ROUNDS \
		USBETH_BENCH_LINKS USBETH_BENCH_SECS USBETH_BENCH_CONFIGS USBETH_BENCH_DIRS USBETH_BENCH_SEED \
		USBETH_STALL_SPEEDS USBETH_STALL_CONFIGS USBETH_STALL_SECS USBETHD_BENCH_PLUGS USBETHD_BENCH_HOGS; do
		[ -n "${!v:-}" ] && printf 'export %s=%q\n' "$v" "${!v}"
	done
	printf 'exec /bin/bash %q' "$here/guest-run.sh"
	if [ -n "$stage" ]; then
		printf ' --installed %q' "$stage"
	else
		printf ' %q' "${tests[@]}"
	fi
	echo
} > "$run/job.sh"
: > "$run/ktap.log"
: > "$run/console.log"

# The debug kernels' CPU has no 5-level paging. Under KASAN, identify_cpu()
# clears the boot CPU's feature bits and reads them back while interrupts
# are on; an interrupt in between finds LA57 clear, takes the 4-level
# shadow bounds, and reports its own irq descriptor (in the 5-level direct
# map, 0xff11...) as a wild-memory-access in do_raw_spin_lock() from
# handle_edge_irq(), before any module is loaded: docs/testing.md.
cpu=max
case $KLABEL in *debug*) cpu=max,la57=off ;; esac

qemu-system-x86_64 -accel "tcg,thread=$tcg_thread" -cpu "$cpu" -smp 2 -m 1536 \
	-nodefaults -display none -no-reboot -no-user-config \
	-kernel "$KIMAGE" -initrd "$initrd" \
	-append "console=ttyS0,115200 panic=-1 loglevel=7 usbeth.job=$run/job.sh usbeth.modroot=$KROOT usbeth.top=$top" \
	-chardev "file,id=con,path=$run/console.log" -serial chardev:con \
	-chardev "file,id=out,path=$run/ktap.log" -serial chardev:out \
	-fsdev local,id=hostroot,path=/,readonly=on,multidevs=remap,security_model=none \
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
	-netdev hubport,id=h0,hubid=0 -device e1000e,netdev=h0,mac=52:54:00:00:b0:01 \
	-netdev hubport,id=h1,hubid=0 -device e1000e,netdev=h1,mac=52:54:00:00:b0:02 \
	-device qemu-xhci,id=xhci \
	-netdev hubport,id=h2,hubid=1 -device e1000e,netdev=h2,mac=52:54:00:00:b0:03 \
	-chardev "socket,id=ctl,path=$run/ctl.sock,server=on,wait=off" -serial chardev:ctl \
	-chardev "socket,id=qmp,path=$run/qmp.sock,server=on,wait=off" -mon chardev=qmp,mode=control \
	-device virtio-rng-pci \
	> "$run/qemu.log" 2>&1 &
qpid=$!
/usr/bin/python3 "$here/monitor-relay.py" "$run/qmp.sock" "$run/ctl.sock" 2>> "$run/qemu.log" &
relaypid=$!

# Stream the guest's KTAP output while watching for the end, a hang, or a
# kernel log that already tells us the run is lost (a netdev that will never
# unregister, a panic): no point waiting out the whole timeout then.
if [ $quiet -eq 0 ]; then
	tail -n +1 -f --pid=$qpid "$run/ktap.log" | grep --line-buffered -v '^USBETH-VM-RESULT' &
	tailpid=$!
fi
start=$SECONDS
verdict=
fatal_seen=
while kill -0 $qpid 2>/dev/null; do
	if [ $((SECONDS - start)) -ge "$timeout_s" ]; then
		verdict="timeout: the guest did not finish within ${timeout_s}s"
		break
	fi
	if [ -z "$fatal_seen" ] &&
	   grep -qE 'unregister_netdevice: waiting for|Kernel panic|soft lockup' "$run/console.log"; then
		fatal_seen=$SECONDS
	fi
	if [ -n "$fatal_seen" ] && [ $((SECONDS - fatal_seen)) -ge 15 ]; then
		verdict="the guest's kernel is stuck (see the kernel log)"
		break
	fi
	sleep 0.5
done
if [ -n "$verdict" ]; then
	kill $qpid 2>/dev/null
fi
wait $qpid 2>/dev/null
kill $relaypid 2>/dev/null
wait $relaypid 2>/dev/null
[ $quiet -eq 0 ] && { sleep 0.2; kill "$tailpid" 2>/dev/null; wait "$tailpid" 2>/dev/null; }

rc=1
res=$(grep -a '^USBETH-VM-RESULT: rc=' "$run/ktap.log" | tail -n1 | sed 's/.*rc=//' | tr -d '\r')
if [ -z "$verdict" ]; then
	if [ -z "$res" ]; then
		verdict="the guest ended without a result (crash? see the kernel log)"
	elif [ "$res" != 0 ]; then
		verdict="tests failed in the guest (rc=$res)"
	else
		rc=0
	fi
fi
if ! klog=$("$here/check-klog.sh" "$run/console.log"); then
	rc=1
	verdict="${verdict:+$verdict; }the guest's kernel log shows a problem:"
fi

if [ $rc -eq 0 ]; then
	if [ -n "$logdir" ]; then mkdir -p "$logdir" && cp "$run"/*.log "$logdir"/; fi
	rm -rf "$run"
	echo "# run-vm: PASS ($((SECONDS - start))s)"
	exit 0
fi
keep=${logdir:-$work/failed-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$keep" && cp "$run"/*.log "$run/job.sh" "$keep"/ && rm -rf "$run"
echo "# run-vm: FAIL: $verdict"
[ -n "$klog" ] && printf '%s\n' "$klog" | head -n 20 | sed 's/^/#   /'
echo "# run-vm: guest kernel log kept at $keep/console.log"
if [ "$tcg_thread" = multi ] && grep -qE 'Oops: (int3|double fault)' "$keep/console.log"; then
	echo "# run-vm: the multi-threaded TCG text-patching signature (an int3 or double-fault oops), not a usbeth bug"
	exit 3
fi
exit 1
