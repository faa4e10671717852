#!/usr/bin/env bash
# Benchmark a Jetson in several nvpmodel power modes.
#
#   scripts/power_sweep.sh [--modes 0,1 | --power-modes 7W,15W,MAXN_SUPER] [--jetson-clocks]
#                          [--settle SECONDS] [--out DIR] [-- BENCH ARGS]
#
# Modes by id or by the name the board's /etc/nvpmodel.conf gives them
# (`jetfilter info` lists them; ids differ between boards and releases); a
# mode the board does not have is refused before anything changes.  For
# each mode: set it (sudo nvpmodel -m N), optionally pin clocks with
# jetson_clocks, let the clocks settle, run `jetfilter bench --energy` with the
# given arguments, tagged with the mode; results go to DIR/bench_mode<N>.csv
# and .json.  The original mode (and clocks) are restored at the end, also on
# Ctrl-C or a failure.  Nano modes: 0 = MAXN (10 W, 4 cores, GPU 921.6 MHz),
# 1 = 5 W (2 cores, GPU 640 MHz).
# Environment: JETFILTER (default build/jetfilter), NVPMODEL, JETSON_CLOCKS,
# SUDO (default "sudo" unless root), NVPMODEL_CONF (default /etc/nvpmodel.conf).
set -uo pipefail
cd "$(dirname "$0")/.."

modes="0,1" clocks=0 settle=10 out="benchmarks/results/power-sweep"
while [ $# -gt 0 ]; do
  case "$1" in
    --modes|--power-modes) modes="$2"; shift 2 ;;
    --jetson-clocks) clocks=1; shift ;;
    --settle) settle="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "power_sweep: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
jetfilter=${JETFILTER:-build/jetfilter}
nvpmodel=${NVPMODEL:-nvpmodel}
jetson_clocks=${JETSON_CLOCKS:-jetson_clocks}
if [ -z "${SUDO+set}" ]; then
  SUDO=sudo; [ "$(id -u)" -eq 0 ] && SUDO=""
fi
command -v "$nvpmodel" > /dev/null || { echo "power_sweep: $nvpmodel not found (not a Jetson?)" >&2; exit 1; }

# the board's modes, "ID NAME" a line, and each asked mode as its id
conf=${NVPMODEL_CONF:-/etc/nvpmodel.conf}
board_modes() {
  [ -r "$conf" ] && sed -n 's/^< *POWER_MODEL ID=\([0-9]*\) NAME=\([^ >]*\).*/\1 \2/p' "$conf"
}
ids=""
for m in ${modes//,/ }; do
  id=$(board_modes | awk -v m="$m" '$1 == m || $2 == m { print $1; exit }')
  if [ -z "$id" ] && [[ "$m" =~ ^[0-9]+$ ]] && [ -z "$(board_modes)" ]; then
    id=$m # no list to check an id against: nvpmodel says
  fi
  if [ -z "$id" ]; then
    echo "power_sweep: no power mode '$m' on this board; its modes (id name): $(board_modes | paste -sd, -)" >&2
    exit 2
  fi
  ids="$ids $id"
done
mkdir -p "$out"

# the current mode: `nvpmodel -q` prints "NV Power Mode: NAME" then the id
original=$($SUDO "$nvpmodel" -q 2>/dev/null | grep -E '^[0-9]+$' | tail -1)
[ -n "$original" ] || { echo "power_sweep: cannot read the current power mode" >&2; exit 1; }
echo "power_sweep: current mode $original; sweeping modes $modes (ids$ids)"

restored=0 child=""
restore() {
  [ "$restored" -eq 1 ] && return
  restored=1
  # a bench still running is stopped first: its numbers would be mixed modes
  [ -n "$child" ] && kill "$child" 2> /dev/null && wait "$child" 2> /dev/null
  echo "power_sweep: restoring mode $original"
  $SUDO "$nvpmodel" -m "$original" > /dev/null
  if [ "$clocks" -eq 1 ]; then
    $SUDO "$jetson_clocks" --restore "$out/clocks.conf" > /dev/null
  fi
}
trap 'restore' EXIT
trap 'restore; exit 130' INT
trap 'restore; exit 143' TERM

if [ "$clocks" -eq 1 ]; then
  $SUDO "$jetson_clocks" --store "$out/clocks.conf" > /dev/null
fi
status=0
for m in $ids; do
  name=$(board_modes | awk -v m="$m" '$1 == m { print "-" $2; exit }')
  echo "power_sweep: mode $m${name/-/ }"
  $SUDO "$nvpmodel" -m "$m" > /dev/null || { echo "power_sweep: cannot set mode $m" >&2; status=1; break; }
  if [ "$clocks" -eq 1 ]; then
    $SUDO "$jetson_clocks" > /dev/null
  fi
  sleep "$settle"
  # in the background with `wait`, so a signal is handled now, not when the bench ends
  "$jetfilter" bench --energy --tag "mode-$m$name" --csv "$out/bench_mode$m.csv" \
      --json "$out/bench_mode$m.json" "$@" &
  child=$!
  wait "$child" || status=1
  child=""
done
exit $status
