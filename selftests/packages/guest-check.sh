#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside a freshly installed Debian system booted in the VM
# (check-packages.sh): what a user's machine does with the packages. Run
# by usbeth-check.service once the system is up; the phase comes from the
# kernel command line (usbethcheck=boot1 or boot2: not usbeth.check, which the
# kernel would hand to the module as a parameter). KTAP goes to the
# second serial port, then the system powers off cleanly.
#
# boot1: the module was loaded at boot, usbethd.service is up (READY), a
#   gadget posing as a Quectel modem is plugged, udev renames its host side
#   to enx<MAC>, usbethd applies an admin's own profile for it, written
#   first as the README shows (a file in /etc/usbeth/profiles.d and a
#   reload; read back in sysfs), `systemctl stop usbethd` restores it; then apt-get purge takes
#   every file of the packages away (the list was taken at install time).
# boot2: the purged system still boots, with no failed unit.
#
# Files beside this one: lib.sh (the selftests' KTAP helpers), files.before
# (dpkg -L of the packages, and the module DKMS built), kabi.
here=$(dirname "$(readlink -f "$0")")
# the helpers only: lib.sh loads no module here (whether the system did is
# what boot1 checks, that none is left what boot2 checks)
export USBETH_HELPERS_ONLY=1
# shellcheck source=selftests/lib.sh
. "$here/lib.sh"
exec > /dev/ttyS1 2>&1

phase=$(sed -n 's/.*usbethcheck=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
kabi=$(uname -r)
pkgs=(usbeth usbethd usbeth-dkms libusbeth0 libusbeth-dev usbeth-tests)
mac=00:00:5e:00:53:01
# Debian's 73-usb-net-by-mac.rules: a USB NIC with a universally
# administered MAC is named enx<MAC>
host_if=enx${mac//:/}
g=/sys/kernel/config/usb_gadget/modem

finish() {
	echo "# totals: pass:$__ktap_pass fail:$__ktap_fail skip:$__ktap_skip"
	sync
	# (without D-Bus systemctl cannot ask logind about inhibitors, says so
	# and goes on)
	systemctl poweroff --no-block 2> /dev/null
	exit 0
}

sysfs() { cat "/sys/class/net/$host_if/$1" 2>&1; }

boot1() {
	ktap_plan 27
	ktap_info "Debian $(cat /etc/debian_version), kernel $kabi, $(systemctl --version | head -n1)"

	# -- at boot
	ktap_check module_loaded_at_boot test -d /sys/module/usbeth
	ktap_check module_from_dkms sh -c "modinfo -n usbeth | grep -q /updates/dkms/"
	# systemd-modules-load has it in its list and succeeded; which of it and
	# usbethd's modprobe@usbeth (both early at boot) loads it first varies
	ktap_check in_modules_load_d sh -c \
		"systemd-analyze cat-config modules-load.d | grep -qx usbeth"
	ktap_expect_eq modules_load_ok "$(systemctl show -P Result systemd-modules-load)" success
	ktap_expect_eq usbethd_active "$(systemctl is-active usbethd)" active
	# Type=notify (systemd 252, Debian 12) or notify-reload (253 and
	# later, Debian 13: usbethd/Makefile): "Started" is logged only once
	# the daemon sent READY=1
	want_type=notify
	[ "$(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')" -ge 253 ] && want_type=notify-reload
	ktap_expect_eq usbethd_ready \
		"$(systemctl show -P Type usbethd) $(systemctl show -P SubState usbethd)" "$want_type running"
	ktap_check usbethd_started_logged sh -c "journalctl -b -u usbethd -o cat | grep -q '^Started'"

	# -- the shipped profiles other than default ship disabled, each with
	# the evidence it cites installed and readable as named
	ktap_check dock_profile_shipped_disabled test -r /usr/share/usbeth/profiles.available/displaylink.json \
		-a ! -e /usr/share/usbeth/profiles.d/displaylink.json
	ktap_check dock_evidence_installed grep -qF "profile:displaylink" \
		/usr/share/doc/usbethd/docs/performance-boots.md
	# -- an admin's own profile for the modem, as the README shows: a file
	# in /etc/usbeth/profiles.d and a reload (synchronous)
	ktap_check own_modem_profile sh -c 'cat > /etc/usbeth/profiles.d/my-modem.json <<EOF &&
{
    "description": "our modem: a BQL cap and a shorter cdc_ncm TX timer",
    "match": { "vid": "2c7c", "pid": "0125", "role": "host" },
    "settings": { "bql-limit-max": 8192, "tx-timer-usecs": 50 }
}
EOF
		usbethd --check && systemctl reload usbethd'

	# -- a modem is plugged
	modprobe dummy_hcd || bail "cannot load dummy_hcd"
	modprobe libcomposite || bail "cannot load libcomposite"
	mkdir -p "$g/strings/0x409" "$g/configs/c.1/strings/0x409" "$g/functions/ncm.usb0" ||
		bail "configfs gadget"
	echo 0x2c7c > "$g/idVendor"		# Quectel
	echo 0x0125 > "$g/idProduct"		# EC25
	echo "usbeth check" > "$g/strings/0x409/manufacturer"
	echo "modem look-alike" > "$g/strings/0x409/product"
	echo "$mac" > "$g/functions/ncm.usb0/host_addr"
	echo 02:00:00:00:53:02 > "$g/functions/ncm.usb0/dev_addr"
	ln -s "$g/functions/ncm.usb0" "$g/configs/c.1/" || bail "configfs link"
	# the journal from here on: what usbethd logs about the plug
	cursor=$(journalctl -n 0 --show-cursor -o cat | sed -n 's/^-- cursor: //p')
	ls /sys/class/udc > "$g/UDC" || bail "cannot bind the gadget"
	# udev names it (an event: udevadm wait returns when the device is there)
	udevadm wait -t 60 "/sys/class/net/$host_if" > /dev/null 2>&1
	udevadm settle -t 60
	ktap_check renamed_by_udev test -e "/sys/class/net/$host_if"
	ktap_expect_eq host_driver "$(basename "$(readlink "/sys/class/net/$host_if/device/driver")")" cdc_ncm
	# usbethd's log line for the last of the profile's two knobs; the
	# daemon logs them under the name it saw first (udev may rename later)
	line=$(timeout 60 journalctl -u usbethd -f -o cat --after-cursor="$cursor" |
		grep -m1 "profile my-modem: tx-timer-usecs")
	bql_line=$(journalctl -u usbethd -o cat --after-cursor="$cursor" |
		grep -m1 "profile my-modem: bql-limit-max")
	ktap_info "usbethd: ${line:-nothing}; ${bql_line:-nothing}"
	ktap_check profile_logged test -n "$line" -a -n "$bql_line"
	ktap_expect_eq profile_tx_timer "$(sysfs cdc_ncm/tx_timer_usecs)" 50
	ktap_expect_eq profile_bql_limit_max "$(sysfs queues/tx-0/byte_queue_limits/limit_max)" 8192
	ktap_check cli_reads_it sh -c "usbeth link show dev $host_if | grep -qw 'tx-timer-usecs 50'"

	# -- stop restores what the daemon changed
	timer0=$(sed -n 's/.*tx-timer-usecs: \([0-9]*\) -> 50$/\1/p' <<< "$line")
	bql0=$(sed -n 's/.*bql-limit-max: \([0-9]*\) -> 8192$/\1/p' <<< "$bql_line")
	systemctl stop usbethd
	ktap_expect_eq stop_restores_tx_timer "$(sysfs cdc_ncm/tx_timer_usecs)" "${timer0:-?}"
	ktap_expect_eq stop_restores_bql "$(sysfs queues/tx-0/byte_queue_limits/limit_max)" "${bql0:-?}"

	# -- the installed suite (usbeth-tests), as a user runs it: tests that
	# plug no USB device (a plug here meets udev's renaming and the rule's
	# usbethd --apply, which the suite's own runs keep away) and make few
	# netdevs (usbeth_dump_intr's 1200, each an event for this udevd, took
	# more than the runner's 600 s here)
	kst=/usr/lib/usbeth/kselftest
	ktap_check kselftest_installed grep -qx usbeth:module.sh "$kst/kselftest-list.txt"
	(cd "$kst" && env -u USBETH_HELPERS_ONLY ./run_kselftest.sh -t usbeth:module.sh \
		-t usbeth:usbeth_many_queues.sh) > /tmp/kselftest.log 2>&1
	sed 's/^/# kselftest: /' /tmp/kselftest.log | grep -E '^# kselftest: (not )?ok|^# kselftest: # (not )?ok|Bail|SKIP|# kselftest: # # '
	for t in module usbeth_many_queues; do
		ktap_check "kselftest_$t" grep -q "^ok [0-9]* selftests: usbeth: $t.sh\$" /tmp/kselftest.log
	done

	# -- purge (the admin's own file in /etc is the admin's to remove)
	rm -f /etc/usbeth/profiles.d/my-modem.json
	ktap_check apt_get_purge env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${pkgs[@]}"
	ktap_check dkms_forgot sh -c "! dkms status usbeth | grep -q . && ! test -e /var/lib/dkms/usbeth"
	ktap_check module_file_removed sh -c \
		"! ls /lib/modules/$kabi/updates/dkms/usbeth.ko* 2> /dev/null && ! modinfo usbeth > /dev/null 2>&1"
	ktap_check unit_and_rule_removed sh -c \
		"! systemctl cat usbethd > /dev/null 2>&1 &&
		 ! ls /etc/systemd/system/*/usbethd.service /lib/udev/rules.d/90-usbeth.rules \
		      /usr/lib/udev/rules.d/90-usbeth.rules 2> /dev/null"
	left=()
	while IFS= read -r f; do
		# a directory may be shared (/usr/bin, merged-usr's /lib link to
		# /usr/lib); one of ours must go
		if [ -d "$f" ]; then
			case $f in *usbeth*) ;; *) continue ;; esac
		fi
		{ [ -e "$f" ] || [ -L "$f" ]; } && left+=("$f")
	done < "$here/files.before"
	ktap_info "$(wc -l < "$here/files.before") paths listed before the purge, ${#left[@]} left"
	ktap_expect_eq every_file_removed "${left[*]}" ""
	ktap_check dpkg_forgot sh -c \
		"! dpkg-query -W -f='\${db:Status-Status}\n' ${pkgs[*]} 2> /dev/null | grep -vx not-installed"
	finish
}

boot2() {
	ktap_plan 4
	state=$(systemctl is-system-running)
	failed=$(systemctl --failed --plain --no-legend | awk '{print $1}' | tr '\n' ' ')
	ktap_info "system state at the check: $state; failed units: ${failed:-none}"
	ktap_expect_eq no_failed_unit "$failed" ""
	ktap_check no_usbeth_module test ! -e /sys/module/usbeth
	ktap_expect_eq no_usbethd_unit "$(systemctl show -P LoadState usbethd)" not-found
	ktap_expect_eq modules_load_ok "$(systemctl show -P Result systemd-modules-load)" success
	finish
}

case $phase in
boot1) boot1 ;;
boot2) boot2 ;;
*) echo "Bail out! no usbethcheck=boot1|boot2 on the kernel command line"; finish ;;
esac
