#!/usr/bin/env bash
# The shared library exports exactly the functions the public headers mark
# JF_API: no internal jf_* symbol leaks (a program could come to depend on
# it), none of the public ones is missing, and nothing else (the static CUDA
# runtime, libjpeg) is exported.
#   tests/check_exports.sh LIBJETFILTER.so INCLUDE_DIR
set -euo pipefail
lib=$1 inc=$2
declared=$(cat "$inc"/jetfilter.h "$inc"/jetfilter/*.h | tr '\n' ' ' | grep -oE 'JF_API [^;{]*\(' |
           sed -E 's/\($//' | grep -oE '[A-Za-z_][A-Za-z0-9_]*$' | sort -u)
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TtWwDdBbRr]$/ {print $3}' |
           grep -vE '^(_init|_fini|_edata|_end|__bss_start)$' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
extra=$(comm -13 <(echo "$declared") <(echo "$exported"))
n=$(echo "$declared" | wc -l)
[ "$n" -ge 80 ] || { echo "exports: only $n JF_API functions found in the headers"; exit 1; }
if [ -n "$missing" ] || [ -n "$extra" ]; then
  [ -z "$missing" ] || echo "exports: declared JF_API but not exported:" $missing
  [ -z "$extra" ] || echo "exports: exported but not declared JF_API:" $extra
  exit 1
fi
echo "exports: $(basename "$lib") exports exactly the $n JF_API functions of the headers"
