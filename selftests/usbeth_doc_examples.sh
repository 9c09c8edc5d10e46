#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The examples that need the module work when copied, on the real drivers:
#   - docs/measuring.md's recipe (ping under an iperf3 upload before and
#     after `usbeth link set`, the original put back) runs as written over
#     the USB NCM link, from the host side's netns to the gadget's: its
#     blocks marked <!-- measure:NAME --> in one bash, in order, only the
#     recipe's own DEV, PEER and LOAD_SECONDS given this link's values.
#     Between the blocks the driver's own file for KNOB is read: the
#     original before, VALUE after the set and through the second load,
#     the original again after the restore. Latency is printed, never
#     judged: a timing in this VM says nothing about hardware;
#   - usbeth(8)'s EXAMPLES, each as the page gives it, the page's device
#     names mapped to this VM's (eth0 an e1000e, usb0 the gadget side,
#     usb1 and enx020000b101 the host side, in netns ncm-host): each exits
#     0 (the monitor runs until stopped) with output of the kind the page
#     documents, and every knob a `link set` names is read back from the
#     driver (sysfs, configfs, ethtool -c).
# The e1000e's knobs are put back at the end, for the tests after this one.
source "$(dirname "$0")/lib.sh"

need_usbeth_prog USBETH_CLI
command -v iperf3 > /dev/null || env_missing "no iperf3 (Debian: apt-get install iperf3)"
command -v jq > /dev/null || env_missing "no jq (Debian: apt-get install jq)"

# the pages: the checkout's, or where `make install` puts them
if [ -n "${USBETH_TOP:-}" ]; then
	DOC=$USBETH_TOP/docs/measuring.md MAN=$USBETH_TOP/ip-extensions/usbeth.8
else
	prefix=${USBETH_CLI%/*}
	prefix=${prefix%/*}
	DOC=${prefix:-/usr}/share/doc/usbethd/docs/measuring.md
	MAN=${prefix:-/usr}/share/man/man8/usbeth.8
fi
# read_page PATH: the page, or its gzipped form (Debian's packages)
read_page() {
	if [ -r "$1" ]; then cat "$1"; elif [ -r "$1.gz" ]; then zcat "$1.gz"; else return 1; fi
}
doc=$(read_page "$DOC") || env_missing "no $DOC"
man=$(read_page "$MAN") || env_missing "no $MAN"

# recipe_block NAME: the fenced block right after <!-- measure:NAME -->
recipe_block() {
	awk -v m="<!-- measure:$1 -->" '
		s == 0 && $0 == m { s = 1; next }
		s == 1 { s = /^```/ ? 2 : 0; next }
		s == 2 && /^```/ { exit }
		s == 2 { print }' <<< "$doc"
}
# the page's EXAMPLES: the command of each .TP entry, as a reader sees it
mapfile -t EXAMPLES < <(awk '/^\.SH EXAMPLES/ { f = 1; next } /^\.SH / { f = 0 }
	f && p == ".TP" && /^\.B / { print substr($0, 4) } { p = $0 }' <<< "$man" |
	sed -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" -e 's/\\(dq/"/g' -e 's/\\e/\\/g' -e 's/\\&//g')

STEPS=(before set after restore)
ktap_plan $((8 + 2 * ${#EXAMPLES[@]}))

W=$(mktemp -d)
IPERF_PID_FILE=$W/iperf3.pid
E='' E_ORIG_RX='' E_ORIG_MAX=() E_ORIG_HOLD=()
# e1000e_put_back: the e1000e's knobs as they were, and the NIC back in
# the initial netns
e1000e_put_back() {
	local q
	[ -n "$E" ] || return 0
	[ -n "$E_ORIG_RX" ] && ip netns exec "$NCM_HOST_NS" ethtool -C "$E" rx-usecs "$E_ORIG_RX" 2>/dev/null
	for q in "${!E_ORIG_MAX[@]}"; do
		ip netns exec "$NCM_HOST_NS" sh -c "d=/sys/class/net/$E/queues/tx-$q/byte_queue_limits
			echo ${E_ORIG_MAX[q]} > \$d/limit_max; echo ${E_ORIG_HOLD[q]} > \$d/hold_time"
	done
	ip -n "$NCM_HOST_NS" link set dev "$E" down 2>/dev/null
	ip -n "$NCM_HOST_NS" link set dev "$E" netns 1 2>/dev/null
	E=''
}
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[ -s "$IPERF_PID_FILE" ] && kill "$(cat "$IPERF_PID_FILE")" 2>/dev/null
	e1000e_put_back
	ncm_teardown
	rm -rf "$W"
}
trap cleanup EXIT

# `usbeth` (and `sudo`, which here is root already) on PATH, as installed
mkdir "$W/bin" || bail "cannot make $W/bin"
ln -s "$USBETH_CLI" "$W/bin/usbeth" || bail "cannot link usbeth into $W/bin"
printf '#!/bin/sh\nexec "$@"\n' > "$W/bin/sudo" && chmod 755 "$W/bin/sudo"
export PATH=$W/bin:$PATH

ncm_setup -s super
H=$NCM_HOST_NS G=$NCM_GADGET_NS HD=$NCM_HOST_IF GD=$NCM_GADGET_IF

# info_lines TEXT: each line of TEXT as a KTAP diagnostic, indented
info_lines() {
	local line
	[ -n "$1" ] || return 0
	while IFS= read -r line; do ktap_info "  $line"; done <<< "$1"
}
# scale KNOB VALUE: VALUE in the knob's unit, as usbeth(8) defines the
# suffixes (SIZE: k, m, g; TIME: us, ms, s)
scale() {
	local knob=$1 v=$2 n u
	n=${v%%[!0-9]*} u=${v#"$n"}
	case $u in
	"") echo "$n" ;;
	k | K) echo $((n * 1024)) ;;
	m | M) echo $((n * 1048576)) ;;
	g | G) echo $((n * 1073741824)) ;;
	us | ms | s)
		local per_us=1
		[ "$knob" = bql-hold-time ] && per_us=1000
		case $u in
		us) echo $((n / per_us)) ;;
		ms) echo $((n * 1000 / per_us)) ;;
		s) echo $((n * 1000000 / per_us)) ;;
		esac ;;
	*) echo "?$v" ;;
	esac
}
# driver_file KNOB [QUEUE]: the file under /sys/class/net/DEV that holds it
driver_file() {
	case $1 in
	ntb-rx-max) echo cdc_ncm/rx_max ;;
	ntb-tx-max) echo cdc_ncm/tx_max ;;
	tx-timer-usecs) echo cdc_ncm/tx_timer_usecs ;;
	bql-limit-max) echo "queues/tx-${2:-0}/byte_queue_limits/limit_max" ;;
	bql-limit-min) echo "queues/tx-${2:-0}/byte_queue_limits/limit_min" ;;
	bql-hold-time) echo "queues/tx-${2:-0}/byte_queue_limits/hold_time" ;;
	*) return 1 ;;
	esac
}
# held NS DEV QUEUE KNOB...: the values the driver holds, a line each, read
# in one visit to the netns (each costs a second or so in the VM)
held() {
	local ns=$1 dev=$2 q=$3 k f sh=''
	shift 3
	for k; do
		case $k in
		qmult) sh+="cat '$NCM_FUNC/qmult';" ;;
		rx-usecs | tx-usecs | rx-frames | tx-frames)
			sh+="ethtool -c '$dev' | sed -n 's/^$k: *//p';" ;;
		*) f=$(driver_file "$k" "$q") || { echo "(no read-back for $k)"; return 1; }
		   sh+="cat '/sys/class/net/$dev/$f';" ;;
		esac
	done
	# configfs is not under the /sys that ip netns exec mounts anew
	case " $* " in
	*" qmult "*) sh -c "$sh" ;;
	*) ip netns exec "$ns" sh -c "$sh" ;;
	esac
}
# is_held KNOB WANT GOT: ntb-tx-max may read one pad byte more (usbeth(8))
is_held() {
	[ "$3" = "$2" ] || { [ "$1" = ntb-tx-max ] && [ "$3" = $(($2 + 1)) ]; }
}

# ------------------------------------------------------------ recipe ---
settings=$(recipe_block settings)
declare -A want_var=([DEV]=$HD [PEER]=$NCM_GADGET_ADDR [LOAD_SECONDS]=3)
script=$W/recipe.sh
KNOB='' VALUE='' missing=''
{
	# the test's hook between blocks: the value the driver holds
	echo "__step() { echo \"\$1 \$(cat /sys/class/net/\$DEV/\$__FILE)\" >> '$W/steps'; }"
	echo "set -e -o pipefail"
	while IFS= read -r line; do
		name=${line%%=*}
		if [[ $line =~ ^[A-Z_]+= ]] && [ -n "${want_var[$name]+x}" ]; then
			echo "$name=${want_var[$name]}"
			unset "want_var[$name]"
		else
			echo "$line"
		fi
	done <<< "$settings"
} > "$script"
KNOB=$(sed -n 's/^KNOB=\([^ ]*\).*/\1/p' <<< "$settings")
VALUE=$(sed -n 's/^VALUE=\([^ ]*\).*/\1/p' <<< "$settings")
missing="${!want_var[*]}"
file=$(driver_file "$KNOB") || file=''
for s in "${STEPS[@]}"; do
	b=$(recipe_block "$s")
	[ -n "$b" ] || missing+=" block:$s"
	printf '%s\n__step %s\n' "$b" "$s" >> "$script"
done
ktap_expect_eq recipe_blocks_and_settings_found \
	"${missing# }|${KNOB:+knob}|${VALUE:+value}|${file:+file}" "|knob|value|file"
want=$(scale "$KNOB" "$VALUE")
orig=$(sysfs_of "$H" "$HD" "$file")
ktap_info "recipe: $KNOB $VALUE on $HD ($file $orig), ping $NCM_GADGET_ADDR under iperf3"

ip netns exec "$G" iperf3 -s -D -B "$NCM_GADGET_ADDR" -I "$IPERF_PID_FILE" > /dev/null 2>&1 ||
	bail "cannot start iperf3 -s in $G"
for _ in $(seq 50); do
	[ -n "$(ip netns exec "$G" ss -Hltn 'sport = :5201')" ] && break
	sleep 0.1
done
t0=$SECONDS
out=$(cd "$W" && ip netns exec "$H" timeout 60 bash -c "__FILE='$file'; source '$script'" 2>&1)
rc=$?
info_lines "$out"
ktap_info "the recipe took $((SECONDS - t0)) s"
ktap_expect_eq recipe_runs "$rc" 0
step() { sed -n "s/^$1 //p" "$W/steps" 2>/dev/null; }
ktap_expect_eq recipe_measure_before_leaves_it "$(step before)" "$orig"
if is_held "$KNOB" "$want" "$(step set)"; then ktap_ok recipe_set_held; else
	ktap_fail recipe_set_held "driver holds '$(step set)', set $VALUE ($want)"; fi
if is_held "$KNOB" "$want" "$(step after)"; then ktap_ok recipe_held_under_load; else
	ktap_fail recipe_held_under_load "driver holds '$(step after)', set $VALUE ($want)"; fi
ktap_expect_eq recipe_restored "$(step restore)" "$orig"
# two measurements, each with ping's summary and iperf3's
ktap_expect_eq recipe_printed_two_measurements \
	"$(grep -c '^rtt min/avg/max/mdev = ' <<< "$out") $(grep -c 'sender$' <<< "$out") $(grep -c 'receiver$' <<< "$out")" "2 2 2"

# ---------------------------------------------------- usbeth(8) EXAMPLES ---
# the e1000e beside the NCM host side, as the page's eth0
modprobe e1000e || env_missing "no e1000e driver (modprobe e1000e)"
E=$(__e1k_by_mac "$E1K_A_MAC") || { E=''; env_missing "no e1000e with MAC $E1K_A_MAC (the usbeth VM has it: make check)"; }
ip link set dev "$E" netns "$H" || bail "cannot move $E into $H"
ip -n "$H" link set dev "$E" up
E_ORIG_RX=$(held "$H" "$E" 0 rx-usecs)
for d in $(ip netns exec "$H" sh -c "cd /sys/class/net/$E/queues && echo tx-*"); do
	q=${d#tx-}
	{ read -r "E_ORIG_MAX[$q]"; read -r "E_ORIG_HOLD[$q]"; } < <(held "$H" "$E" "$q" bql-limit-max bql-hold-time)
done
declare -A devmap=([eth0]=$E [usb0]=$GD [usb1]=$HD [enx020000b101]=$HD [ncm-host]=$H)
# the netns each of the page's devices is in, here
declare -A page_ns=([eth0]=$H [usb0]=$G [usb1]=$H [enx020000b101]=$H)

# map CMD: the page's names replaced by this VM's, in one pass (the VM's
# may be the page's: both sides of the NCM link are often usb0, each in
# its own netns)
map() {
	local k pat='' rest=$1 out='' re
	for k in "${!devmap[@]}"; do pat+="${pat:+|}$k"; done
	re="(^|[^[:alnum:]_-])($pat)([^[:alnum:]_-]|\$)"
	while [[ $rest =~ $re ]]; do
		out+=${rest%%"${BASH_REMATCH[0]}"*}${BASH_REMATCH[1]}${devmap[${BASH_REMATCH[2]}]}
		rest=${BASH_REMATCH[3]}${rest#*"${BASH_REMATCH[0]}"}
	done
	echo "$out$rest"
}
# name_of CMD: a test name for an example
name_of() { tr -c 'a-z0-9\n' _ <<< "$1" | sed 's/__*/_/g; s/^_//; s/_$//' | cut -c1-60; }

# sets_of EXAMPLE: each `link set` of the page's EXAMPLE (a batch's lines
# too), a line each: PAGE_DEV KNOB VALUE [KNOB VALUE ...] ("queue N" kept)
sets_of() {
	printf '%s\n' "${1//\\n/$'\n'}" | grep -oE "link set( dev)? [^ ']+( [^ '|]+)*" |
		sed -E 's/^link set( dev)? //'
}
# knobs_of LINE: of a line of sets_of, the device's netns and name here,
# the queue, and the knobs with their values in the knob's unit:
# NS DEV QUEUE KNOB VALUE [KNOB VALUE ...], each on a line of its own
knobs_of() {
	local words j q=0
	read -ra words <<< "$1"
	[ -n "${page_ns[${words[0]}]:-}" ] || return 1
	for ((j = 1; j + 1 < ${#words[@]}; j += 2)); do
		[ "${words[j]}" = queue ] && q=${words[j + 1]}
	done
	printf '%s\n' "${page_ns[${words[0]}]}" "${devmap[${words[0]}]}" "$q"
	for ((j = 1; j + 1 < ${#words[@]}; j += 2)); do
		[ "${words[j]}" = queue ] && continue
		printf '%s\n' "${words[j]}" "$(scale "${words[j]}" "${words[j + 1]}")"
	done
}
# unlike EXAMPLE: before the example runs, a knob it sets that already
# holds the value it sets (a default) is moved away, through usbeth, so
# that the example's set is seen: sizes halved, times doubled, N + 1
unlike() {
	local line kv ks ns dev q j k v got other moves
	while IFS= read -r line; do
		mapfile -t kv < <(knobs_of "$line")
		[ ${#kv[@]} -gt 3 ] || continue
		ns=${kv[0]} dev=${kv[1]} q=${kv[2]} moves=()
		ks=()
		for ((j = 3; j < ${#kv[@]}; j += 2)); do ks+=("${kv[j]}"); done
		mapfile -t got < <(held "$ns" "$dev" "$q" "${ks[@]}")
		for ((j = 3; j < ${#kv[@]}; j += 2)); do
			k=${kv[j]} v=${kv[j + 1]}
			is_held "$k" "$v" "${got[(j - 3) / 2]}" || continue
			case $k in
			ntb-* | bql-limit-*) other=$((v / 2)) ;;
			*-usecs | bql-hold-time) other=$((v * 2)) ;;
			*) other=$((v + 1)) ;;
			esac
			echo "$dev $k already ${got[(j - 3) / 2]}: moved to $other first"
			moves+=("$k" "$other")
		done
		[ ${#moves[@]} -eq 0 ] && continue
		ip netns exec "$ns" "$USBETH_CLI" link set dev "$dev" "${moves[@]}" 2>&1 || return 1
	done < <(sets_of "$1")
}
# check_sets EXAMPLE: every `link set` of it is held by the driver; prints
# what the driver holds, and fails naming what it does not
check_sets() {
	local line kv ks ns dev q j k v got bad=''
	while IFS= read -r line; do
		mapfile -t kv < <(knobs_of "$line")
		[ ${#kv[@]} -gt 3 ] || { echo "the page's ${line%% *} is none of this test's devices, or sets nothing"; return 1; }
		ns=${kv[0]} dev=${kv[1]} q=${kv[2]}
		ks=()
		for ((j = 3; j < ${#kv[@]}; j += 2)); do ks+=("${kv[j]}"); done
		mapfile -t got < <(held "$ns" "$dev" "$q" "${ks[@]}")
		for ((j = 3; j < ${#kv[@]}; j += 2)); do
			k=${kv[j]} v=${kv[j + 1]}
			echo "read back: $dev $k ${got[(j - 3) / 2]}"
			is_held "$k" "$v" "${got[(j - 3) / 2]}" || bad+=" $dev $k: set $v, holds '${got[(j - 3) / 2]}';"
		done
	done < <(sets_of "$1")
	[ -z "$bad" ] || { echo "NOT HELD:$bad"; return 1; }
}

for ex in "${EXAMPLES[@]}"; do
	cmd=$(map "$ex")
	n=$(name_of "$ex")
	# where it runs: with -n where it starts; else the netns of the device
	# it names (the host side's when none)
	ns=$H
	if [[ $cmd =~ (^|\ )-n\  ]]; then
		ns=''
	elif [[ " $ex " == *" usb0 "* ]]; then
		ns=$G
	fi
	ktap_info "example: $ex"
	if [[ $ex == *"link set"* ]]; then
		out=$(unlike "$ex") || bail "cannot move the knobs of '$ex' away first: $out"
		info_lines "$out"
	fi
	[ "$cmd" = "$ex" ] || ktap_info "  as: ${ns:+ip netns exec $ns }$cmd"
	case $cmd in
	*" monitor"*)
		# runs until stopped: stopped after 3 s, still running
		out=$(in_ns "$ns" timeout 3 bash -c "$cmd" 2>&1)
		rc=$?
		ktap_expect_eq "${n}_runs_until_stopped" "$rc" 124
		ok=$(jq -s -e 'length > 0 and .[0].event == "existing" and all(has("event"))' <<< "$out" 2>&1)
		ktap_expect_eq "${n}_json_events" "$ok" true
		;;
	*)
		out=$(in_ns "$ns" bash -c "$cmd" 2>&1)
		rc=$?
		info_lines "$(head -n 12 <<< "$out")"
		ktap_expect_eq "${n}_exits_0" "$rc" 0
		case $cmd in
		*"| jq -r"*".ifname'"*)
			ktap_expect_eq "${n}_names_the_ncm_link" "$out" "$HD" ;;
		*"| jq"*)
			ktap_check "${n}_prints_a_number" grep -qxE '[0-9]+' <<< "$out" ;;
		*"link set"*)
			if res=$(check_sets "$ex"); then ktap_ok "${n}_held"; else ktap_fail "${n}_held"; fi
			info_lines "$res" ;;
		*"-d link show"*)
			dev=${cmd##* }
			ktap_check "${n}_device_and_queues" sh -c \
				"printf '%s\n' \"\$1\" | head -n1 | grep -qE '^[0-9]+: $dev: ' &&
				 printf '%s\n' \"\$1\" | grep -qE '^    queue 0 limit [0-9]+ inflight [0-9]+ '" sh "$out" ;;
		*"link show"*)
			ktap_check "${n}_every_device" test "$(grep -cE '^[0-9]+: [^ ]+: ' <<< "$out")" -eq \
				"$(in_ns "$ns" ip -o link show | wc -l)" ;;
		*)
			ktap_fail "${n}_output" "no check for this kind of example" ;;
		esac
		;;
	esac
done
# what the examples changed on the e1000e is undone, for the tests after
# this one: read where the NIC is back, in the initial netns
want_e="$E_ORIG_RX"
for q in "${!E_ORIG_MAX[@]}"; do want_e+=" ${E_ORIG_MAX[q]} ${E_ORIG_HOLD[q]}"; done
e=$E
e1000e_put_back
got_e=$(ethtool -c "$e" | sed -n 's/^rx-usecs: *//p')
for q in "${!E_ORIG_MAX[@]}"; do
	got_e+=" $(cat "/sys/class/net/$e/queues/tx-$q/byte_queue_limits/limit_max" \
		"/sys/class/net/$e/queues/tx-$q/byte_queue_limits/hold_time" | tr '\n' ' ')"
	got_e=${got_e% }
done
ktap_expect_eq e1000e_put_back "$got_e" "$want_e"
ktap_info "the test took $SECONDS s"
ktap_finish
