#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# the iperf3 and ip stand-ins run through iperf_bytes, unseen by shellcheck
# shellcheck disable=SC2317
# lib.sh's iperf_bytes on the host's loopback, with the real iperf3: a
# server that starts listening late is retried until it answers (iperf3 -J
# exits 0 on a refused connection, so only the JSON says it failed: CI
# once took such a run for a transfer of 0 bytes); a run whose receiver
# counted 0 bytes is run again, three runs at most; a server that never
# listens, or a client that fails otherwise, is a failure naming the
# error, never a count.
here=$(cd "$(dirname "$0")" && pwd)
# a host test of this checkout: its tree, and lib.sh's helpers only (no module)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$here/../lib.sh"
command -v iperf3 > /dev/null || ktap_skip_all "no iperf3 (Debian: apt-get install iperf3)"
W=$(mktemp -d)
trap 'pkill -f "iperf3 -s -1 -D -B 127.0.0.1 -p $port" 2>/dev/null; rm -rf "$W"' EXIT
ktap_plan 13

# the netns are the host's own here; a port of our own, away from 5201
port=$((20000 + $$ % 20000))
ip() { [ "$1 $2" = "netns exec" ] || { command ip "$@"; return; }; shift 3; "$@"; }
iperf3() { command iperf3 "$@" -p "$port"; }

ktap_info "iperf3 -J on a refused connection: $(command iperf3 -c 127.0.0.1 -p "$port" -J -n 1K > /dev/null 2>&1; echo "exit $?")"

# the receiver's count is taken when the client's "done" arrives, so on a
# busy machine it trails what was sent (CI saw 259072 of 1 MiB, and 0 here
# once in 10 with both cores busy); 32 MiB is more than loopback's socket
# buffers hold, so the receiver has read some of it by then
counted() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -gt 0 ] && [ "$1" -le 33554432 ]; }
bytes=$(iperf_bytes x y 127.0.0.1 -n 32M 2> "$W/err")
ktap_info "counted $bytes of 33554432 bytes"
ktap_check listening_server_counts counted "$bytes"

# the server listens only 0.7 s after it was started, as a slow guest's may
iperf3() {
	if [ "$1" = -s ]; then
		(sleep 0.7; command iperf3 "$@" -p "$port") &
		return 0
	fi
	command iperf3 "$@" -p "$port"
}
bytes=$(iperf_bytes x y 127.0.0.1 -n 32M 2> "$W/err")
ktap_expect_eq late_server_succeeds $? 0
ktap_check late_server_counts counted "$bytes"
ktap_expect_eq late_server_quiet "$(wc -l < "$W/err")" 0
wait

# a run whose receiver counted 0 bytes measured nothing: it is run again,
# saying so (the stand-in client reports 0 on its first run only)
zero_json='{ "end": { "sum_received": { "bytes": 0 } } }'
first=$W/first
iperf3() {
	if [ "$1" = -c ] && [ ! -e "$first" ]; then
		touch "$first"
		echo "$zero_json"
		return 0
	fi
	command iperf3 "$@" -p "$port"
}
bytes=$(iperf_bytes x y 127.0.0.1 -n 32M 2> "$W/err")
ktap_check zero_count_run_again counted "$bytes"
ktap_check zero_count_said grep -q "run 1 to 127.0.0.1 counted 0 bytes" "$W/err"
# ... three times at most, then the 0 is the answer
iperf3() { [ "$1" = -s ] && return 0; echo "$zero_json"; }
bytes=$(iperf_bytes x y 127.0.0.1 -n 32M 2> "$W/err")
ktap_expect_eq zero_count_three_runs "$?:$bytes:$(grep -c "counted 0 bytes" "$W/err")" 0:0:3
# a server left listening (a stand-in client never came) would answer the
# next case's client, which must find none
pkill -f "iperf3 -s -1 -D -B 127.0.0.1 -p $port"

# no server at all: bounded retries, then a failure naming the error
iperf3() { [ "$1" = -s ] && return 0; command iperf3 "$@" -p "$port"; }
bytes=$(iperf_bytes x y 127.0.0.1 -n 1M 2> "$W/err")
ktap_expect_eq no_server_fails "$?:$bytes" 1:
sed 's/^/# /' "$W/err"
ktap_check no_server_names_error grep -q "iperf3 -c 127.0.0.1 -n 1M: unable to connect" "$W/err"

# a client that fails for another reason (here: a bad option) is not
# retried and is not a count
iperf3() { command iperf3 "$@" -p "$port"; }
start=$SECONDS
bytes=$(iperf_bytes x y 127.0.0.1 -n 1M --no-such-option 2> "$W/err")
ktap_expect_eq bad_client_fails "$?:$bytes" 1:
ktap_check bad_client_not_retried test $((SECONDS - start)) -lt 3
sed 's/^/# /' "$W/err"
ktap_check bad_client_says_why grep -q "no receiver count" "$W/err"
ktap_check bad_client_shows_iperf3 grep -q '^#   .*no-such-option' "$W/err"
ktap_finish
