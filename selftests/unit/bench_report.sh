#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/bench-report.py on made-up cells: medians, spreads and ratios
# against defaults as computed by hand, and hostile lines (non-numeric,
# non-finite, Markdown in a name, missing fields) left out, not rendered.
# A line whose driver state (drv_*) differs from what its configuration
# declares (selftests/bench/configs.txt, or a profile's JSON), or lacks it,
# is refused by name and left out of every figure; --verify says the same
# of one state.
here=$(cd "$(dirname "$0")" && pwd)
# a host test of this checkout: its tree, and lib.sh's helpers only (no module)
export USBETH_TOP=${USBETH_TOP:-$(cd "$here/../.." && pwd)} USBETH_HELPERS_ONLY=1
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$here/../lib.sh"
[ -x /usr/bin/python3 ] || ktap_skip_all "no /usr/bin/python3 (Debian: apt-get install python3)"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
ktap_plan 49
k='# data: kernel=7.3 link=ncm-full'
line() { # CONFIG ROUND IDLE UP_MBIT UP_P50 DOWN_MBIT DOWN_P50 [DRV_STATE]
	echo "  $k config=$1 round=$2 idle_p50=$3 idle_p90=$3 idle_p99=$3" \
		"up_mbit=$4 up_p50=$5 up_p90=$5 up_p99=$5 up_n=70" \
		"down_mbit=$6 down_p50=$7 down_p90=$7 down_p99=$7 down_n=70 ${8:-}"
}
# the profiles the lines name: a directory of the test's own
P=$W/profiles
mkdir -p "$P"
echo '{ "match": {}, "settings": { "bql-limit-max": 8192, "tx-timer-usecs": 50 } }' > "$P/modem.json"
echo '{ "extends": "modem", "match": {}, "settings": { "ntb-tx-max": "device-max" } }' > "$P/dock.json"
export USBETH_BENCH_PROFILES=$P
# and a configuration table of its own
cat > "$W/configs.txt" <<'EOF'
# LINKS|NAME|KNOBS
ncm-full|defaults|
ncm-full|defaults-again|
ncm-full|tx-max-4k|ntb-tx-max 4096
ncm-full|tx-max-2k|ntb-tx-max 2048
ncm-full|timer-0|tx-timer-usecs 0
ncm-full|tx-4k+timer-0|ntb-tx-max 4096 tx-timer-usecs 0
ncm-full|profile:modem|
ncm-full|profile:dock|
EOF
export USBETH_BENCH_TABLE=$W/configs.txt
{
	echo "unrelated console line"
	line defaults 1 3 20 12 10 30
	line defaults 2 3 30 10 12 40
	line defaults 3 3 25 11 11 50
	line tx-max-4k 1 2 22 4 9 20 drv_tx_max=4097
	line tx-max-4k 2 2 24 5 9 20 drv_tx_max=4096
	line tx-max-4k 3 2 23 3 9 20 drv_tx_max=4097
	# held the driver's default, not the 4096 declared: not counted
	line tx-max-4k 4 2 99 99 99 99 drv_tx_max=16384
	# no record of the timer it declares
	line timer-0 1 2 20 5 10 30
	# profiles: from their JSON, "extends" and "device-max" followed
	line profile:modem 1 2 20 5 10 30 "drv_limit_max=8192 drv_tx_timer_usecs=50"
	line profile:modem 2 2 20 5 10 30 "drv_limit_max=8192 drv_tx_timer_usecs=400"
	line profile:dock 1 2 20 5 10 30 "drv_limit_max=8192 drv_tx_timer_usecs=50 drv_tx_max=16384 drv_dev_tx_max=16384"
	line profile:dock 2 2 20 5 10 30 "drv_limit_max=8192 drv_tx_timer_usecs=50 drv_tx_max=16384 drv_dev_tx_max=8192"
	line no-such-config 1 2 20 5 10 30
	echo "$k config=bad1 round=1 idle_p50=nan up_mbit=inf"
	line 'x|y' 1 1 1 1 1 1
	line bad2 1 1 1e400 1 1 1
	line bad3 1 1 abc 1 1 1
	echo "$k round=1 idle_p50=1"
	echo "$k config=tx-max-2k round=1 error=set"
} > "$W/data.txt"
/usr/bin/python3 "$USBETH_TOP/scripts/bench-report.py" --no-plots "$W/data.txt" "$W/out" > "$W/stdout" 2>&1
ktap_check report_written test -s "$W/out/report.md"
sed 's/^/# /' "$W/stdout"
row() { grep "^| $1 |" "$W/out/report.md"; }
# defaults: up 25 (20-30) Mbit/s, up p50 11 (10-12); tx-max-4k: 23, 4 (3-5)
ktap_check defaults_median_spread grep -qF '| defaults | 3.00 (3.00-3.00) | 25.0 (20.0-30.0) | 11.0 (10.0-12.0) |' "$W/out/report.md"
# lat 11/4 = 2.75, tput 23/25 = 0.92; down lat 40/20 = 2.00, tput 9/11 = 0.82
ktap_check ratios_against_defaults grep -qF '| 2.75 | 0.92 | 9.0 (9.0-9.0) | 20.0 (20.0-20.0) | 20.0 (20.0-20.0) | 2.00 | 0.82 |' <(row tx-max-4k)
ktap_check mismatch_refused_by_name grep -qF "config=tx-max-4k round=4: drv_tx_max=16384, declared 4096" "$W/stdout"
ktap_check mismatch_listed_in_report grep -qF -- "- data.txt: 7.3 ncm-full tx-max-4k round 4: drv_tx_max=16384, declared 4096" "$W/out/report.md"
ktap_check unrecorded_refused grep -qF "config=timer-0 round=1: drv_tx_timer_usecs not recorded (declared 0)" "$W/stdout"
ktap_check profile_from_json grep -qF "config=profile:modem round=2: drv_tx_timer_usecs=400, declared 50" "$W/stdout"
ktap_check profile_extends_device_max test "$(grep -c 'config=profile:dock' "$W/stdout")" -eq 1 -a \
	"$(grep -c 'config=profile:dock round=2: drv_tx_max=16384, declared 8192' "$W/stdout")" -eq 1
ktap_check undeclared_config_refused grep -qF "config=no-such-config round=1: no configuration no-such-config of link ncm-full" "$W/stdout"
ktap_expect_eq held_lines_counted "$(row 'profile:modem' | cut -d'|' -f4)" " 20.0 (20.0-20.0) "
R=$USBETH_TOP/scripts/bench-report.py
ktap_check verify_holds /usr/bin/python3 "$R" --verify ncm-full tx-4k+timer-0 drv_tx_max=4097 drv_tx_timer_usecs=0 drv_limit_max=1
ktap_expect_eq verify_names_the_difference \
	"$(/usr/bin/python3 "$R" --verify ncm-full timer-0 drv_tx_timer_usecs=400 2>&1; echo "rc=$?")" \
	"ncm-full timer-0: drv_tx_timer_usecs=400, declared 0
rc=1"
ktap_check hostile_lines_left_out test -z "$(grep -E 'bad[123]|x\|y|nan|inf' "$W/out/report.md")"
ktap_check failed_cell_listed grep -qF -- '- 7.3 ncm-full tx-max-2k round 1: set' "$W/out/report.md"
printf '# nothing\n' > "$W/empty.txt"
ktap_check no_data_is_an_error test "$(/usr/bin/python3 "$USBETH_TOP/scripts/bench-report.py" --no-plots "$W/empty.txt" "$W/o2" > /dev/null 2>&1; echo $?)" -ne 0

# --across: each file a set of boots (one per kernel); per configuration the
# median over boots of each boot's own ratio. Boots: 7.3 lat 10/5 = 2.00
# tput 18/20 = 0.90; 6.12 1.00, 1.00; 6.1 12/4 = 3.00, 15/30 = 0.50; a boot
# with no defaults (5.10) counts for nothing.
cell() { # KERNEL CONFIG UP_MBIT UP_P50
	echo "# data: kernel=$1 link=ncm-full config=$2 round=1 idle_p50=1" \
		"up_mbit=$3 up_p50=$4 up_p90=$4 up_p99=$4 up_n=70 drv_tx_timer_usecs=0"
}
x=timer-0
{ cell 7.3 defaults 20 10; cell 7.3 $x 18 5; cell 6.12 defaults 20 10; cell 6.12 $x 20 10; } > "$W/a.txt"
{ cell 6.1 defaults 30 12; cell 6.1 $x 15 4; cell 5.10 $x 1 1; } > "$W/b.txt"
/usr/bin/python3 "$USBETH_TOP/scripts/bench-report.py" --across "$W/a.txt" "$W/b.txt" > "$W/across.md" 2>&1
sed 's/^/# /' "$W/across.md"
ktap_check across_median_over_boots grep -qxF '| timer-0 | 3 (6.1, 6.12, 7.3) | 2.00 (1.00-3.00) | 0.90 (0.50-1.00) | - | - |' "$W/across.md"
ktap_check across_no_defaults_is_an_error test "$(/usr/bin/python3 "$USBETH_TOP/scripts/bench-report.py" --across "$W/empty.txt" > /dev/null 2>&1; echo $?)" -ne 0
# a missing file: one line naming it, no traceback
/usr/bin/python3 "$USBETH_TOP/scripts/bench-report.py" --across "$W/a.txt" "$W/missing.txt" > "$W/missing.out" 2>&1
ktap_check missing_file_named grep -qx "bench-report: .*No such file or directory: '$W/missing.txt'" "$W/missing.out"
ktap_check missing_file_one_line test "$(wc -l < "$W/missing.out")" -eq 1

# --boots: per data file and per (kernel, link) the report's own table,
# the file's refused lines under it, the plots linked; a file without data
# lines said so. Same table as the report's: the rows are the report's rows.
printf 'KTAP version 1\n# no data here\n' > "$W/console.txt"
/usr/bin/python3 "$R" --boots "$W/data.txt" "$W/a.txt" "$W/console.txt" > "$W/boots.md" 2> "$W/boots.err"
sed 's/^/# /' "$W/boots.md" | head -n 40
ktap_check boots_table_as_report grep -qxF "$(row tx-max-4k)" "$W/boots.md"
# three files, three boots: 7.3 in data.txt, 7.3 and 6.12 in a.txt
ktap_check boots_per_file_and_boot test "$(grep -cxE '### (data|a|console)\.txt|#### ncm-full on (7\.3|6\.12) \([0-9]+ rounds\)' "$W/boots.md")" -eq 6
ktap_check boots_refused_under_its_file grep -qxF -- "- 7.3 ncm-full tx-max-4k round 4: drv_tx_max=16384, declared 4096" "$W/boots.md"
ktap_check boots_plots_linked grep -qF '](performance/data-7.3-ncm-full.png)' "$W/boots.md"
ktap_check boots_across_plot_linked grep -qxF '![ncm-full, every boot against its own defaults](performance/across-ncm-full.png)' "$W/boots.md"
ktap_check boots_no_data_said grep -qxF 'No `# data:` lines: not a benchmark boot.' "$W/boots.md"
# the plots: each boot's and the across-boots one, where the links say
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
	/usr/bin/python3 "$R" --boots --write-plots "$W/png" "$W/a.txt" > /dev/null 2>&1
	ktap_check boots_plots_written test -s "$W/png/a-7.3-ncm-full.png" -a -s "$W/png/a-6.12-ncm-full.png"
	/usr/bin/python3 "$R" --across-plot "$W/png" "$W/a.txt" "$W/b.txt" > "$W/ap.out" 2>&1
	ktap_check across_plot_written test -s "$W/png/across-ncm-full.png"
else
	ktap_skip boots_plots_written "no python3-matplotlib"
	ktap_skip across_plot_written "no python3-matplotlib"
fi
ktap_check across_plot_needs_defaults test "$(/usr/bin/python3 "$R" --across-plot "$W/png" "$W/empty.txt" > /dev/null 2>&1; echo $?)" -ne 0

# --kernels: two kernels' defaults over pairs of boots, the other against
# the stock one; floor.sh's lines in a table of their own, a line without
# the defaults' state refused
st='drv_limit_max=1879048192 drv_tx_max=16384 drv_rx_max=16384 drv_tx_timer_usecs=400 drv_dev_rx_max=16384 drv_dev_tx_max=16384 drv_qmult=5'
kl() { # KERNEL ROUND CONFIG UP_MBIT UP_P50
	echo "# data: kernel=$1 link=ncm-full config=$3 round=$2 idle_p50=1.0 idle_p90=1 idle_p99=1 up_mbit=$4 up_p50=$5 up_p90=1 up_p99=1 up_n=70 down_mbit=- down_p50=- down_p90=- down_p99=- down_n=0 $st"
}
{ kl 7.3 1 defaults 100 12; kl 7.3 2 defaults 100 12; kl 7.3-fixed 1 defaults 95 4; kl 7.3-fixed 2 defaults 95 4
  echo "# floor: kernel=7.3-fixed link=ncm-full idle_p50=1.5 cpu_p50=3.5 cpu_n=150 up_mbit=95 up_p50=4 up_n=150 ntb_ms=1.38 drv_tx_max=16384 drv_rx_max=16384 drv_tx_timer_usecs=400"
  echo "# floor: kernel=7.3-fixed link=ncm-full idle_p50=1.5 cpu_p50=3.5 cpu_n=150 up_mbit=95 up_p50=4 up_n=150 ntb_ms=1.38 drv_tx_max=8192 drv_rx_max=16384 drv_tx_timer_usecs=0"
} > "$W/pair-1.txt"
{ kl 7.3 1 defaults 110 12; kl 7.3 2 defaults 110 12; kl 7.3-fixed 1 defaults 99 6; kl 7.3-fixed 2 defaults 99 6; } > "$W/pair-2.txt"
/usr/bin/python3 "$R" --kernels "$W/pair-1.txt" "$W/pair-2.txt" > "$W/kernels.md" 2> "$W/kernels.err"
sed 's/^/# /' "$W/kernels.md"
ktap_check kernels_per_kernel grep -qxF '| ncm-full | upload | 7.3-fixed | 2 | 97.0 (95.0-99.0) | 5.00 (4.00-6.00) | 1.00 (1.00-1.00) |' "$W/kernels.md"
# 12 / 5 times lower, 97 / 105 - 1 = -8%, floor 1.0 + 16384 * 8 / 105000
ktap_check kernels_against_stock grep -qxF '| ncm-full | upload | 7.3-fixed vs 7.3 | 2.40 | -8% | 5.00 | 2.25 | 1.00 |' "$W/kernels.md"
# pair by pair: 12 / 4 and 12 / 6 times lower, 95 / 100 and 99 / 110
ktap_check kernels_pair_by_pair grep -qxF '| ncm-full | upload | 7.3-fixed vs 7.3 | 3.00 2.00 | 0.95 0.90 | 2 of 2 |' "$W/kernels.md"
ktap_check kernels_floor_table grep -qxF '| ncm-full | 7.3-fixed | 1 | 1.50 | 3.50 | 4.00 | 95.0 | 1.38 |' "$W/kernels.md"
ktap_check kernels_floor_refused grep -q 'a floor line without the defaults' "$W/kernels.err"
# the control kernel is the base wherever there is one (not the first
# kernel without "fixed" in its name); a configuration beyond the defaults
# against its own boot's defaults, beside that boot's A/A; adaptive-tx on
# where it is not declared refuses the line
{ kl 7.3 1 defaults 50 20; kl 7.3-control 1 defaults 100 12; kl 7.3-control 1 defaults-again 100 10
  kl 7.3-fixed 1 defaults 100 8 | sed 's/$/ drv_adaptive_tx=off/'
  kl 7.3-fixed 1 defaults-again 100 10 | sed 's/$/ drv_adaptive_tx=off/'
  kl 7.3-fixed 1 adaptive-tx 90 4 | sed 's/$/ drv_adaptive_tx=on/'
  kl 7.3-fixed 2 defaults 1 1 | sed 's/$/ drv_adaptive_tx=on/'
} > "$W/control-1.txt"
grep -q '|adaptive-tx|' "$W/configs.txt" || printf 'ncm-full|adaptive-tx|adaptive-tx on\n' >> "$W/configs.txt"
/usr/bin/python3 "$R" --kernels "$W/control-1.txt" > "$W/control.md" 2> "$W/control.err"
sed 's/^/# /' "$W/control.md"
# 7.3-fixed's defaults: median(8, 10) = 9 against the control's 11
ktap_check kernels_control_base grep -qxF '| ncm-full | upload | 7.3-fixed vs 7.3-control | 1.22 | 1.00 | 1 of 1 |' "$W/control.md"
# 8 / 4 times lower, 90 / 100, A/A 8 / 10 = 0.80: 2.00 is beyond 1 / 0.80;
# the A/A's throughput 1.00, so 0.90 lies below it
row='| ncm-full | 7.3-fixed | adaptive-tx | upload | 1 | 2.00 | 0.90 | 0.80 | 1.00 | 1 of 1 | 1 below, 0 above, of 1 |'
ktap_check kernels_config_rows grep -qxF "$row" "$W/control.md"
# --paired: the same table alone
ktap_check paired_rows grep -qxF "$row" <(/usr/bin/python3 "$R" --paired "$W/control-1.txt" 2> /dev/null)
ktap_check adaptive_tx_undeclared_refused grep -q 'config=defaults round=2: drv_adaptive_tx=on, declared off' "$W/control.err"

# --verdicts: per shipped profile and link; beyond the A/A band (as far from
# 1 as defaults-again came: 10 / 11, so 1.10) in every one of five boots
# counts: lat 10 / 5 = 2.00, tput 10 / 20 = 0.50. Four boots are too few;
# a profile with no cell is not measured.
for b in 1 2 3 4 5; do
	{ line defaults 1 1 20 10 20 10; line defaults-again 1 1 20 11 20 10
	  line profile:modem 1 1 10 5 20 10 "drv_limit_max=8192 drv_tx_timer_usecs=50"; } > "$W/v$b.txt"
done
/usr/bin/python3 "$R" --verdicts "$W"/v[1-5].txt > "$W/verdicts.md" 2>&1
sed 's/^/# /' "$W/verdicts.md"
ktap_check verdict_beyond_band grep -qxF '| modem | ncm-full | 7.3 x5 (5) | helps and costs | upload latency lower (2.00-2.00); upload throughput lower (0.50-0.50) |' "$W/verdicts.md"
ktap_check verdict_not_measured grep -qxF '| dock | - | - | not measured | - |' "$W/verdicts.md"
/usr/bin/python3 "$R" --verdicts "$W"/v[1-4].txt > "$W/verdicts2.md" 2>&1
ktap_check verdict_too_few_boots grep -qxF '| modem | ncm-full | 7.3 x4 (4) | no result | 4 boots, fewer than 5 |' "$W/verdicts2.md"
# --profile-verdict: the same verdict, as the lines of the profile's comment
/usr/bin/python3 "$R" --profile-verdict modem "$W"/v[1-5].txt > "$W/pv.txt" 2>&1
ktap_check profile_verdict_line grep -qxF 'ncm-full (7.3 x5; 5 boots): helps and costs: upload latency lower (2.00-2.00); upload throughput lower (0.50-0.50)' "$W/pv.txt"

# --emulated: two sets of boots of an emulated link. The A/A band per
# kernel: 170 / 170 and 50 / median(40, 99); the kernels pair by pair
# only where the newest kernel of a set kept a defaults cell (170 / 50);
# a refused cell counts both its transfers, a refused direction one
printf 'dongle-udp|defaults|\ndongle-udp|defaults-again|\n' >> "$W/configs.txt"
el() { # KERNEL CONFIG UP_P50 UP_MBIT [MORE] (IDLE: the egress idle %, 1)
	echo "# data: kernel=$1 link=dongle-udp config=$2 round=1 idle_p50=2 idle_p90=2 idle_p99=2" \
		"up_mbit=$4 up_p50=$3 up_p90=$3 up_p99=$3 up_n=225 down_mbit=- down_p50=- down_p90=-" \
		"down_p99=- down_n=0 up_wire=3.9 up_idle=${IDLE:-1} rate_up=4000000 rate_down=4000000 ${5:-}"
}
below() { echo "# data: kernel=$1 link=dongle-udp config=defaults round=$2 error=below-rate"; }
{ el 6.1 defaults 170 3.86; el 6.1 defaults-again 170 3.86; el 7.3 defaults 50 3.88
  el 7.3 defaults-again 40 3.88; below 7.3 2; el 7.3 defaults-again 99 3.8 refused=down; } > "$W/e1.txt"
{ el 6.1 defaults 168 3.86; below 7.3 1; } > "$W/e2.txt"
/usr/bin/python3 "$R" --emulated "$W/e1.txt" "$W/e2.txt" > "$W/emu.md" 2>&1
sed 's/^/# /' "$W/emu.md"
ktap_check emulated_aa_in_band grep -qxF '| dongle-udp | 6.1 | 1 | 1.00-1.00 (1 of 1) | 1.00-1.00 (1 of 1) | - | - |' "$W/emu.md"
ktap_check emulated_aa_out_of_band grep -qxF '| dongle-udp | 7.3 | 1 | 0.72-0.72 (0 of 1) | 0.99-0.99 (1 of 1) | - | - |' "$W/emu.md"
ktap_check emulated_pairs_need_newest grep -qxF '| dongle-udp | 6.1 / 7.3 | 1 | 3.40 | 0.99 |' "$W/emu.md"
ktap_check emulated_refused_counted grep -qxF 'Transfers refused as below the emulated rate: dongle-udp on 7.3: 5.' "$W/emu.md"

# --emulated-verdicts: a configuration that is not a profile, judged as the
# profiles are: a shaper whose ping is 170 / 17 = 10 times lower and whose
# throughput 3.86 / 3.47 = 0.90 of the defaults' in each of five boots;
# its driver state (the shaper's rates as tc read them back) is checked
printf 'dongle-udp|cake|shaper-up 3600000 shaper-down 3600000\n' >> "$W/configs.txt"
sh='drv_shaper_up=3600000 drv_shaper_down=3600000'
for b in 1 2 3 4 5; do
	{ el 6.1 defaults 170 3.86; el 6.1 defaults-again 170 3.86; IDLE=$((b + 10)) el 6.1 cake 17 3.474 "$sh"; } > "$W/s$b.txt"
done
el 6.1 cake 1 3.9 'drv_shaper_up=none drv_shaper_down=3600000' >> "$W/s1.txt"
/usr/bin/python3 "$R" --emulated-verdicts "$W"/s[1-5].txt > "$W/ev.md" 2> "$W/ev.err"
sed 's/^/# /' "$W/ev.md"
ktap_check emulated_verdict_shaper grep -qxF '| dongle-udp | 6.1 | cake | 5 | 10.00 (10.00-10.00) | 0.90 (0.90-0.90) | - | - | helps and costs: upload latency lower (10.00-10.00); upload throughput lower (0.90-0.90) |' "$W/ev.md"
ktap_check emulated_verdict_state_refused grep -q 'drv_shaper_up=none, declared 3600000' "$W/ev.err"
# --targets: the same shaper, 17 - 2 - 1514 * 8 / 4000 = 12.0 ms above the
# floor at 0.90 of the throughput: short of the dongle's target in all five;
# beside it, the shaper's own egress idle share (11-15%, median 13), not
# the defaults' (1%)
/usr/bin/python3 "$R" --targets "$W"/s[1-5].txt > "$W/tg.md" 2>&1
sed 's/^/# /' "$W/tg.md"
ktap_check targets_dongle_floor grep -qxF '| dongle-udp | 6.1 | cake | 5 | 12.0 (12.0-12.0) | 0.90 (0.90-0.90) | no (0 of 5) | 13.0 (11.0-15.0) |' "$W/tg.md"

# the shipped table: every knob a configuration sets is one data.sh can
# set, a knob of `usbeth link set` (lib/usbeth.h's USBETH_KNOBS) or one of
# the words data.sh hands to tc or ethtool instead (a txqueuelen row once
# failed in every boot: no such knob)
knobs=$(grep -o 'X([A-Z_]*, "[a-z-]*"' "$USBETH_TOP/lib/usbeth.h" | sed 's/.*"\(.*\)"/\1/')
bad=$(awk -F'|' '!/^#/ && NF == 3 && $3 != "retired" {
	n = split($3, w, " ")
	for (i = 1; i <= n; i += 2) { k = w[i]; sub(/^@/, "", k); print $2 ": " k }
}' "$USBETH_TOP/selftests/bench/configs.txt" | while read -r cfg knob; do
	grep -qxF "$knob" <<< "$knobs"$'\nshaper-up\nshaper-down\nadaptive-tx' || echo "$cfg $knob"
done)
[ -n "$knobs" ] || bail "no knob names in lib/usbeth.h"
ktap_expect_eq configs_knobs_settable "$bad" ""
ktap_finish
