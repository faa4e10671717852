#!/usr/bin/env bash
# Every GStreamer function a plugin calls, against the release it came in
# (the "version" the GObject-introspection files give it): none newer than
# LEVEL (default 1.14, JetPack 4.6's GStreamer), so the element builds and
# runs there.  As scripts/glibc-symbols.sh does for glibc.
#   scripts/gst-api-level.sh PLUGIN.so [LEVEL]
set -euo pipefail
plugin=$1 level=${2:-1.14}
gir=/usr/share/gir-1.0
[ -f "$gir/Gst-1.0.gir" ] || { echo "gst-api-level: no $gir/Gst-1.0.gir (libgstreamer1.0-dev)"; exit 1; }
syms=$(nm -D --undefined-only "$plugin" | awk '{print $2}' | grep -E '^gst_' | sed 's/@.*//' | sort -u)
python3 - "$level" "$gir" $syms <<'PY'
import glob, re, sys
level = tuple(int(x) for x in sys.argv[1].split("."))
gir, syms = sys.argv[2], sys.argv[3:]
since = {}
for f in glob.glob(gir + "/Gst*-1.0.gir"):
    text = open(f, encoding="utf-8").read()
    for m in re.finditer(r'<(?:function|method|constructor)\b[^>]*\bc:identifier="([^"]+)"[^>]*>', text):
        tag = m.group(0)
        v = re.search(r'\bversion="([0-9.]+)"', tag)
        since[m.group(1)] = v.group(1) if v else "1.0"
newer, unknown = [], []
for s in syms:
    if s not in since:
        unknown.append(s)  # macros' helpers, *_get_type: as old as their type
        continue
    if tuple(int(x) for x in since[s].split(".")[:2]) > level:
        newer.append("%s (%s)" % (s, since[s]))
print("gst-api-level: %d GStreamer functions, none newer than %s%s" % (len(syms), sys.argv[1],
      "" if not newer else ": FAILED"))
for n in newer:
    print("  newer than %s: %s" % (sys.argv[1], n))
sys.exit(1 if newer else 0)
PY
