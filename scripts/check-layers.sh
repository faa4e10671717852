#!/usr/bin/env bash
# Fail when an #include points up a layer (DESIGN.md, "Layers"):
#   include/                          0  the public header and its parts (jetfilter/*.h)
#   core/                             1  runtime
#   io/  filters/                     2  (peers: neither includes the other)
#   calib/                            3  device profiles, power readers
#   pipeline/  benchmarks/            4  (peers)
#   jobs/                             5  the batch commands as library calls
#   cli/                              6  the command-line tool
#   gst/  python/                     7  the bindings: the public API only
# A file may include its own folder, and any folder of a lower layer; the
# bindings only their own folder and the public headers.
# samples/ and tests/ are users of the library and are not checked.
set -uo pipefail
cd "$(dirname "$0")/.."
rank() {
  case "$1" in
    include) echo 0 ;; core) echo 1 ;; io|filters) echo 2 ;; calib) echo 3 ;;
    pipeline|benchmarks) echo 4 ;; jobs) echo 5 ;; cli) echo 6 ;; gst|python) echo 7 ;; *) echo -1 ;;
  esac
}
bad=0 checked=0
while IFS= read -r file; do
  from=${file%%/*}
  rf=$(rank "$from")
  [ "$rf" -ge 0 ] || continue
  checked=$((checked + 1))
  while IFS=: read -r line inc; do
    target=${inc%%/*}
    case "$inc" in jetfilter.h|jetfilter/*.h) continue ;; esac # the public API: layer 0
    case "$inc" in */*) ;; *) [ -f "$(dirname "$file")/$inc" ] && continue ;; esac # beside the file
    rt=$(rank "$target")
    if [ "$rf" -eq 7 ] && [ "$target" != "$from" ]; then
      echo "$file:$line: $from/ is a binding and includes \"$inc\": the public API only (jetfilter.h)"
      bad=$((bad + 1)); continue
    fi
    if [ "$rt" -lt 0 ]; then
      echo "$file:$line: includes \"$inc\", which is in no layer"; bad=$((bad + 1)); continue
    fi
    if [ "$target" != "$from" ] && [ "$rt" -ge "$rf" ]; then
      echo "$file:$line: $from/ (layer $rf) includes \"$inc\" ($target/, layer $rt): includes must point down"
      bad=$((bad + 1))
    fi
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
           sed -E 's/^([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1:\2/')
done < <(if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
           git ls-files '*.c' '*.h' '*.cu' '*.cuh'
         else
           find include core io filters calib pipeline benchmarks jobs cli gst python \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) 2> /dev/null
         fi)
if [ "$bad" -gt 0 ]; then
  echo "check-layers: $bad include(s) point up a layer ($checked files checked)"
  exit 1
fi
echo "check-layers: $checked files, every include points down"
