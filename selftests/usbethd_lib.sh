# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the usbethd tests (usbethd.sh, usbethd_udev.sh): a daemon run
# in the background with every line it logs kept in $LOG, and waits on
# those lines. The test sets D (the daemon), BUILTIN and ADMIN (profile
# directories), RUN (runtime directory) and LOG before using them.

# daemon_test DIR: the variables a test of the daemon works with, under
# DIR (D the daemon, BUILTIN, ADMIN, RUN, LOG; no daemon yet), or the
# environment is missing when there is no daemon to test
daemon_test() {
	D=$USBETHD W=$1
	BUILTIN=$W/builtin ADMIN=$W/admin RUN=$W/run LOG=$W/daemon.log
	DPID='' DFD=''
	need_usbeth_prog USBETHD
}

# stage_profiles DIR: a copy of the shipped profiles in DIR, owned by the
# guest's root: those enabled as shipped and, as an admin who enabled them
# all has them, those shipped disabled. usbethd reads no profile that
# another user may write, and the checkout (seen over 9p with the host's
# owners) may be a user's.
stage_profiles() {
	rm -rf "$1" && mkdir -p "$1" && cp "$USBETH_PROFILES"/*.json "$1"/ &&
		cp "$USBETH_PROFILES_AVAILABLE"/*.json "$1"/ &&
		chmod 0755 "$1" && chmod 0644 "$1"/*.json
}
# daemon_dirs: W anew, with ADMIN and RUN empty, the shipped profiles in
# BUILTIN and an empty LOG
daemon_dirs() {
	rm -rf "$W" && mkdir -p "$ADMIN" "$RUN" && stage_profiles "$BUILTIN" && : > "$LOG"
}
# daemon_log_if_failed RC: a test that failed (RC, or a failed check)
# shows what the daemon said
daemon_log_if_failed() {
	if [ "$1" -ne 0 ] || [ "$__ktap_fail" -gt 0 ]; then
		sed 's/^/# usbethd: /' "$LOG"
	fi
}
# shipped_profile NAME: the shipped profile's file, enabled or not
shipped_profile() {
	local d
	for d in "$USBETH_PROFILES" "$USBETH_PROFILES_AVAILABLE"; do
		[ -r "$d/$1.json" ] && { echo "$d/$1.json"; return 0; }
	done
	return 1
}

# modem_test_profile DIR: the tests' own modem profile, DIR/modem-test.json
# (MODEM_TEST_PROFILE its path): the host side of a modem vendor's device
# on cdc_ncm (the gadget posing as one), a BQL cap and a shorter TX timer,
# two knobs the daemon changes and puts back. Not a shipped profile: none
# of usbeth's helps a modem (docs/performance.md), but the daemon's
# bookkeeping needs one that changes something on a plug.
modem_test_profile() {
	MODEM_TEST_PROFILE=$1/modem-test.json
	cat > "$MODEM_TEST_PROFILE" <<-EOF && chmod 0644 "$MODEM_TEST_PROFILE"
	{
		"description": "test: a modem's host side, two knobs changed",
		"match": { "vid": ["1199", "2c7c"], "driver": "cdc_ncm", "role": "host" },
		"settings": { "bql-limit-max": 8192, "tx-timer-usecs": 50 }
	}
	EOF
}

# storm_profiles QMULT TXQUEUELEN: the profiles of the storm
# (usbethd_storm.sh, bench/usbethd_storm_bench.sh) in BUILTIN and ADMIN,
# both made anew: the shipped default and the tests' modem-test, and the
# admin's storm-gadget, which gives every gadget QMULT and TXQUEUELEN once
# it is connected at high speed or faster
storm_profiles() {
	rm -rf "$BUILTIN" "$ADMIN" && mkdir -p "$BUILTIN" "$ADMIN" &&
		cp "$(shipped_profile default)" "$BUILTIN"/ && modem_test_profile "$BUILTIN" &&
		cat > "$ADMIN/storm-gadget.json" <<-EOF &&
	{
		"description": "test: every gadget, once it runs at high speed or faster",
		"match": { "role": "gadget", "speed-min": "high" },
		"settings": { "qmult": $1, "txqueuelen": $2 }
	}
	EOF
		chmod 0755 "$BUILTIN" "$ADMIN" && chmod 0644 "$BUILTIN"/*.json "$ADMIN"/*.json
}

# USBETHD_HOOKS: the daemon built with the test hooks (usbethd/testhooks.h:
# USBETHD_TEST_KILL_AT, USBETHD_TEST_DUMP_FAIL), which the shipped usbethd
# does not read: usbethd/usbethd-hooks of a checkout, or in a kselftest
# install a helper beside the tests (selftests/Makefile, USBETHD_HOOKS=)
if [ -z "${USBETHD_HOOKS:-}" ]; then
	if [ -n "${USBETH_TOP:-}" ]; then
		USBETHD_HOOKS=$USBETH_TOP/usbethd/usbethd-hooks
	else
		USBETHD_HOOKS=$(ksft_helper usbethd-hooks)
	fi
fi
# need_usbethd_hooks: a test that sets a USBETHD_TEST_* variable needs
# USBETHD_HOOKS (the usbeth-tests package has none)
need_usbethd_hooks() {
	[ -x "$USBETHD_HOOKS" ] ||
		env_missing "no usbethd-hooks, the daemon with the test hooks ($USBETHD_HOOKS: make in a checkout, or a kselftest install with USBETHD_HOOKS=)"
}

# daemon_start [OPTION...]: the daemon, its stderr on DFD (read by dexpect);
# in netns $DNS when set. D, the daemon tested, unless a USBETHD_TEST_*
# variable is set (USBETHD_TEST_KILL_AT=... daemon_start): that run is
# USBETHD_HOOKS's, the only build that reads them.
DNS=
daemon_start() {
	local pre=() d=$D v
	[ -n "$DNS" ] && pre=(ip netns exec "$DNS")
	for v in ${!USBETHD_TEST_@}; do
		[ -n "${!v}" ] && d=$USBETHD_HOOKS
	done
	[ "$d" = "$D" ] || [ -x "$d" ] || bail "daemon_start: $v set, and no $d (need_usbethd_hooks)"
	exec {DFD}< <(exec "${pre[@]}" "$d" -d "$BUILTIN" -d "$ADMIN" --runtime-dir "$RUN" "$@" 2>&1)
	DPID=$!
}
# dmark: later dexpects look only at lines from here on.
# (Builtins only, here and in dexpect: a process per line read would cost
# more than the plug it waits for, under TCG.)
MARK=0
dmark() { local seen; mapfile -t seen < "$LOG"; MARK=${#seen[@]}; }
# dexpect ERE [SECONDS]: the first line since the mark matching ERE, from
# what was read already or, failing that, from the daemon's next lines
# (every line is kept in $LOG, so waits may come in any order, also from
# subshells); prints it, and keeps it in DLINE.
dexpect() {
	local line seen end=$((SECONDS + ${2:-20}))
	mapfile -t -s "$MARK" seen < "$LOG"
	for line in "${seen[@]}"; do
		[[ $line =~ $1 ]] && { DLINE=$line; printf '%s\n' "$line"; return 0; }
	done
	while [ $SECONDS -lt $end ]; do
		read -r -t $((end - SECONDS)) -u "$DFD" line || return 1
		printf '%s\n' "$line" >> "$LOG"
		if [[ $line =~ $1 ]]; then
			DLINE=$line
			printf '%s\n' "$line"
			return 0
		fi
	done
	return 1
}
# dexpect_all ERE COUNT [SECONDS]: lines since the mark matching ERE until
# COUNT distinct values of its first group (an ifname, say) were seen, from
# what was read already, then from the daemon's next lines; those values
# are the keys of DSEEN, which holds as many as were seen on a timeout.
declare -A DSEEN=()
dexpect_all() {
	local line seen end=$((SECONDS + ${3:-60}))
	DSEEN=()
	mapfile -t -s "$MARK" seen < "$LOG"
	for line in "${seen[@]}"; do
		[[ $line =~ $1 ]] && DSEEN[${BASH_REMATCH[1]}]=1
	done
	while [ ${#DSEEN[@]} -lt "$2" ]; do
		[ $SECONDS -lt $end ] || return 1
		read -r -t $((end - SECONDS)) -u "$DFD" line || return 1
		printf '%s\n' "$line" >> "$LOG"
		[[ $line =~ $1 ]] && DSEEN[${BASH_REMATCH[1]}]=1
	done
	return 0
}
# daemon_stop: SIGTERM, read its last lines until it exits; its status.
daemon_stop() {
	local line rc
	kill -TERM "$DPID" 2>/dev/null	# unless already told
	while read -r -t 30 -u "$DFD" line; do printf '%s\n' "$line" >> "$LOG"; done
	wait "$DPID"
	rc=$?
	exec {DFD}<&-
	DPID=
	return $rc
}
# nl_socks PID: a line per netlink socket of PID: "PROTOCOL BYTES DROPS",
# the bytes queued on it unread and the notifications it dropped
# (/proc/net/netlink's Rmem and Drops); PROTOCOL rtnetlink, generic or
# netlink-NUMBER
nl_socks() {
	local f l inos=" "
	for f in /proc/"$1"/fd/*; do
		l=$(readlink "$f") || continue
		[[ $l == socket:\[*\] ]] && { l=${l#socket:[}; inos+="${l%]} "; }
	done
	awk -v inos="$inos" 'NR > 1 && index(inos, " " $10 " ") {
		print ($2 == 0 ? "rtnetlink" : $2 == 16 ? "generic" : "netlink-" $2), $5, $9
	}' /proc/net/netlink
}
# nl_drops PID: the notifications PID's netlink sockets dropped, in all
nl_drops() { nl_socks "$1" | awk '{ d += $3 } END { print d + 0 }'; }
# nl_queued PID: nl_socks in a line, "PROTOCOL:BYTES (DROPS dropped)"
nl_queued() {
	nl_socks "$1" | awk '{ printf "%s%s:%d%s", sep, $1, $2, ($3 > 0 ? " (" $3 " dropped)" : ""); sep = ", " }
		END { print "" }'
}
uf() { "$USBETHCTL" get "$1" | sed -n "s/^$2=//p" | head -n1; }
sysnet() { cat "/sys/class/net/$1/$2"; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$DPID/status"; }
plug() { echo "$NCM_UDC" > "$NCM_GADGET/UDC"; }
unplug() { echo "" > "$NCM_GADGET/UDC"; }
# applied PROFILE: wait for a device to get PROFILE; its ifname in APPLIED
applied() {
	dexpect "^([^ :]+): profile $1 applied" "${2:-30}" > /dev/null || return 1
	APPLIED=${DLINE%%:*}
}
# modem_wanted [PROFILE]: "KNOB=VALUE ..." of the cdc_ncm and BQL knobs the
# PROFILE sets: a shipped profile's name, a file's path, or none for the
# tests' modem-test (modem_test_profile); modem_held HOST [PROFILE]:
# the same knobs as HOST's driver holds them (its sysfs files). cdc_ncm pads an NTB size that is a
# multiple of the endpoint's packet size by one byte (4096 is held as 4097):
# that counts as the size asked for. A profile that sets none of them, or a
# file that cannot be read, gives "none" against "nothing read": a failed
# comparison, never an empty one that passes.
declare -A MODEM_SYSFS=([ntb-rx-max]=cdc_ncm/rx_max [ntb-tx-max]=cdc_ncm/tx_max
	[tx-timer-usecs]=cdc_ncm/tx_timer_usecs
	[bql-limit-max]=queues/tx-0/byte_queue_limits/limit_max)
modem_wanted() {
	local out f=${MODEM_TEST_PROFILE:-}
	case ${1:-} in
	'') ;;
	*/*) f=$1 ;;
	*) f=$(shipped_profile "$1") ;;
	esac
	out=$(python3 -c 'import json, sys
try:
    s = json.load(open(sys.argv[1])).get("settings", {})
except (OSError, ValueError, AttributeError) as e:
    sys.exit(f"modem_wanted: {sys.argv[1]}: {e}")
print(" ".join(f"{k}={s[k]}" for k in sys.argv[2:] if s.get(k) is not None))' \
		"$f" ntb-rx-max ntb-tx-max tx-timer-usecs bql-limit-max)
	echo "${out:-none}"
}
modem_held() { knobs_held "$1" "$(modem_wanted "${2:-}")"; }
# knobs_held HOST WANTED: modem_held against WANTED (what modem_wanted
# printed), read with builtins only: no process per file, for many
# netdevs under TCG
knobs_held() {
	local kv k w v out=()
	for kv in $2; do
		[ "$kv" = none ] && break
		k=${kv%%=*} w=${kv#*=} v=
		read -r v < "/sys/class/net/$1/${MODEM_SYSFS[$k]}"
		case $k in ntb-*) [ "$v" = $((w + 1)) ] && v=$w ;; esac
		out+=("$k=$v")
	done
	echo "${out[*]:-nothing read}"
}
