#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usbethd under systemd, with the unit shipped in packaging/ and all its
# hardening: systemd (the distribution's, 252 on Debian 12) runs as PID 1 of
# a PID namespace in container mode, sharing this VM's network, with the
# unit installed as a runtime unit (a drop-in only points ExecStart at the
# daemon and its built-in profiles, copied under /run: PrivateTmp= would hide
# a tree that lives under /tmp). Checked: start returns once the
# daemon said READY (Type=notify); the process has only CAP_NET_ADMIN,
# no_new_privs and a seccomp filter; a "cellular modem" plugged in gets the
# tests' modem profile through all that (cdc_ncm sysfs); reload keeps it
# running; stop restores the driver's value; systemd-analyze's exposure
# score.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/usbethd_lib.sh"

SD=/lib/systemd/systemd
U=/run/systemd/system
SDLOG=/tmp/usbethd-systemd.log
STAGE=/run/usbethd-selftest
upid='' sdpid='' etc_overlay=0 enabled=''

cleanup() {
	local t=$SECONDS wd
	if [ -n "$sdpid" ]; then
		sc systemctl exit > /dev/null 2>&1
		watchdog 30 kill -9 "$sdpid" > /dev/null 2>&1 &
		wd=$!
		wait "$upid" 2>/dev/null
		kill "$wd" 2>/dev/null
		echo "# systemd ended $((SECONDS - t)) s after it was told to exit"
	fi
	monitor_stop_all
	rm -rf "$U" "$STAGE"
	[ -n "$enabled" ] && rm -f "$enabled"
	[ $etc_overlay -eq 1 ] && umount /etc
	ncm_teardown
}
trap cleanup EXIT
ktap_plan 11
[ -x "$SD" ] || env_missing "no systemd ($SD)"
command -v unshare > /dev/null && command -v nsenter > /dev/null ||
	env_missing "unshare/nsenter (util-linux) missing"
need_usbeth_prog USBETHD

# sc CMD...: a command inside the systemd's namespaces (systemctl refuses
# to talk to a PID 1 outside its own PID namespace)
sc() { nsenter -t "$sdpid" -p -m -r -w "$@"; }

# --- the unit, as packaged; udev masked (it would rename netdevs under
# the other tests' feet); the boot target pulls nothing. Installed
# (USBETH_TOP unset): the unit systemd finds where the package put it,
# untouched. From a tree: the tree's unit as a runtime unit, with the
# daemon and its profiles staged under /run (PrivateTmp= would hide a tree
# under /tmp) and a drop-in pointing ExecStart there.
rm -rf "$U" "$STAGE" && mkdir -p "$U"
if [ -n "${USBETH_TOP:-}" ]; then
	mkdir -p "$U/usbethd.service.d" "$STAGE/sbin"
	cp "$USBETHD" "$STAGE/sbin/usbethd" && stage_profiles "$STAGE/profiles.d" &&
		modem_test_profile "$STAGE/profiles.d" ||
		bail "cannot stage the daemon in $STAGE"
	sed "s|@SBINDIR@|$STAGE/sbin|" "$USBETH_TOP/packaging/usbethd.service" > "$U/usbethd.service"
	cat > "$U/usbethd.service.d/selftest.conf" <<EOF2
[Service]
ExecStart=
ExecStart=$STAGE/sbin/usbethd -d $STAGE/profiles.d
EOF2
else
	unit=
	for d in /etc/systemd/system /usr/lib/systemd/system /lib/systemd/system; do
		[ -r "$d/usbethd.service" ] && { unit=$d/usbethd.service; break; }
	done
	[ -n "$unit" ] || env_missing "no installed usbethd.service (install usbethd)"
	ktap_info "the installed unit: $unit"
	# the tests' modem profile, where an admin puts their own:
	# /etc/usbeth/profiles.d (the test VM's /etc is the host's,
	# read-only: a tmpfs overlay makes it writable meanwhile)
	if [ ! -w /etc ]; then
		mkdir -p /run/usbeth-etc/up /run/usbeth-etc/work &&
			mount -t overlay usbeth-etc -o lowerdir=/etc,upperdir=/run/usbeth-etc/up,workdir=/run/usbeth-etc/work /etc ||
			env_missing "cannot make /etc writable for the test (overlay)"
		etc_overlay=1
	fi
	enabled=/etc/usbeth/profiles.d/modem-test.json
	[ -e "$enabled" ] && enabled=''	# the admin's own: left alone
	if [ -n "$enabled" ]; then
		mkdir -p /etc/usbeth/profiles.d && modem_test_profile /etc/usbeth/profiles.d ||
			bail "cannot write the modem-test profile in /etc/usbeth/profiles.d"
	else
		MODEM_TEST_PROFILE=/etc/usbeth/profiles.d/modem-test.json
	fi
fi
for m in systemd-udevd.service systemd-udev-trigger.service systemd-udev-settle.service \
	 systemd-udevd-control.socket systemd-udevd-kernel.socket; do
	ln -s /dev/null "$U/$m"
done
cat > "$U/usbeth-selftest.target" <<'EOF2'
[Unit]
Description=usbeth selftest boot: nothing until asked
DefaultDependencies=no
EOF2

ncm_setup -s super -v 0x1199 -p 0x9071
ncm_unplug
gadget=$NCM_GADGET_IF
ip -n "$NCM_GADGET_NS" link set dev "$gadget" netns 1 || bail "cannot move $gadget back"
ip link set dev "$gadget" up

unshare --pid --fork --mount --propagation private sh -c '
	mount -t proc proc /proc && mount -t cgroup2 cgroup2 /sys/fs/cgroup &&
	exec env container=usbeth-selftest "$0" --system --unit=usbeth-selftest.target \
		--log-target=console --show-status=no' "$SD" > "$SDLOG" 2>&1 < /dev/null &
upid=$!
# systemd's manager socket appears when it is up: nothing to wait on but
# polling for it (bounded)
for ((i = 0; i < 300; i++)); do
	sdpid=$(pgrep -P "$upid")
	[ -n "$sdpid" ] && [ -S /run/systemd/private ] && break
	sleep 0.1
done
[ -n "$sdpid" ] && [ -S /run/systemd/private ] || { sed 's/^/# /' "$SDLOG"; bail "systemd did not come up"; }
ktap_info "systemd $(sc systemctl --version | head -n1 | cut -d' ' -f2) as PID 1 of a PID namespace (pid $sdpid outside)"
ktap_expect_eq systemd_running "$(sc systemctl is-system-running --wait 2>&1)" running

# --- start: Type=notify, so this returns once the daemon said READY=1
# (the first start also runs sysinit.target's units)
t=$SECONDS
if sc systemctl start usbethd.service; then
	ktap_ok unit_starts
else
	ktap_fail unit_starts "systemctl start usbethd.service failed"
	sc systemctl status --no-pager usbethd.service 2>&1 | sed 's/^/#   /'
fi
ktap_info "systemctl start took $((SECONDS - t)) s"
ktap_expect_eq unit_active "$(sc systemctl show -p ActiveState,SubState --value usbethd.service | tr '\n' ' ')" "active running "
mp=$(sc systemctl show -p MainPID --value usbethd.service)
st=$(sc cat "/proc/$mp/status")
capbnd=$(sed -n 's/^CapBnd:\t//p' <<< "$st") capeff=$(sed -n 's/^CapEff:\t//p' <<< "$st")
# CAP_NET_ADMIN is capability 12
ktap_expect_eq only_cap_net_admin "bnd=$capbnd eff=$capeff" "bnd=0000000000001000 eff=0000000000001000"
ktap_expect_eq no_new_privs_and_seccomp \
	"$(sed -n 's/^NoNewPrivs:\t//p; s/^Seccomp:\t//p' <<< "$st" | tr '\n' ' ')" "1 2 "

# --- a cellular modem appears: its profile gets through the hardening
monitor_start ""
echo "$NCM_UDC" > "$NCM_GADGET/UDC"
host=''
if ev=$(monitor_expect '^new .* role=usb-host' 60); then
	host=$(sed -n 's/.* ifname=\([^ ]*\).*/\1/p' <<< "$ev")
	idx=$(sed -n 's/.* ifindex=\([0-9]*\).*/\1/p' <<< "$ev")
fi
if [ -n "$host" ] && monitor_expect "^change ifindex=$idx " 60 > /dev/null; then
	ktap_expect_eq modem_profile_applied "$(modem_held "$host")" "$(modem_wanted)"
else
	ktap_fail modem_profile_applied "no NEW and CHANGE of the host netdev within 60 s"
fi
sc journalctl -q -o cat -u usbethd.service | sed 's/^/#   journal: /'

# --- reload (ExecReload: SIGHUP; RELOADING=1 then READY=1)
ktap_check unit_reloads sc systemctl reload usbethd.service
ktap_expect_eq active_after_reload "$(sc systemctl show -p ActiveState --value usbethd.service)" active

# --- stop: the daemon restores what it changed before it exits
ktap_check unit_stops sc systemctl stop usbethd.service
ktap_expect_eq stop_restored "$(cat "/sys/class/net/${host:-none}/cdc_ncm/tx_timer_usecs" 2>&1)" 400

# --- what systemd thinks of the sandbox (0 best .. 10 worst)
score=$(sc systemd-analyze security --no-pager usbethd.service 2>&1 |
	sed -n 's/.*Overall exposure level for usbethd.service: \([0-9.]*\).*/\1/p')
ktap_info "systemd-analyze security: overall exposure ${score:-?} (0 = fully sandboxed, 10 = none)"
ktap_check exposure_at_most_2 awk -v s="${score:-99}" 'BEGIN { exit !(s <= 2.0) }'
ktap_finish
