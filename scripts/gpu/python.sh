#!/usr/bin/env bash
# On the GPU machine: the Python package with CuPy and PyTorch (and CV-CUDA
# as a peer).  Build it here first (scripts/gpu.sh python-build), carry
# python/jetfilter/_jetfilter.abi3.so, python/jetfilter/bin and the peers
# (../shared/peers copied into .device-carry/peers).  Logs under $OUT.
#   scripts/gpu.sh python [tests|sanitize|bench|all] [OUTDIR]
# tests: the pytest suite, GPU tests included; sanitize: compute-sanitizer
# memcheck over a loop of calls on CuPy and PyTorch arrays; bench:
# benchmarks/python_bench.py (against CV-CUDA and CuPy).
set -uo pipefail
cd "$(dirname "$0")/../.."
what=${1:-all}
dest=${2:-${OUT:-/tmp/jf-gpu-python}}
mkdir -p "$dest" /tmp/site
for f in .device-carry/peers/*.tar.xz; do [ -e "$f" ] && tar -xJf "$f" -C /tmp/site; done
# pytest (and what it needs) carried beside, for a machine without it
export PYTHONPATH=$PWD/python:/tmp/site:$PWD/.device-carry/pysite JETFILTER_TEST_IN_TREE=1
python3 -c "import jetfilter, cupy, torch; print('python', __import__('sys').version.split()[0], 'jetfilter', jetfilter.__version__, 'cupy', cupy.__version__, 'torch', torch.__version__)" 2>&1 | tee "$dest/versions.txt"
python3 -c "import cvcuda; print('cvcuda', cvcuda.__version__)" 2>&1 | tail -1 | tee -a "$dest/versions.txt"
python3 -m pip --version > /dev/null 2>&1 && python3 -m pytest --version > /dev/null 2>&1 || echo "no pytest here" | tee -a "$dest/versions.txt"
rc=0
if [ "$what" = tests ] || [ "$what" = all ]; then
  (cd /tmp && timeout 300 python3 -m pytest -q -p no:cacheprovider "$OLDPWD/python/tests" -x) > "$dest/pytest.log" 2>&1 || rc=1
  tail -5 "$dest/pytest.log"
fi
if [ "$what" = sanitize ] || [ "$what" = all ]; then
  cat > /tmp/jf_loop.py <<'PY'
import numpy as np, cupy as cp, jetfilter as jf
img = np.random.default_rng(1).integers(0, 256, (257, 333, 3), dtype=np.uint8)
x = cp.asarray(img)
# every filter of the operation table, the denoisers and their estimates included
args = {"conv": {"weights": np.full((3, 3), 1 / 9, np.float32)}, "gauss": {"sigma": 1.5}}
for op in jf.operations():
    if op["kind"] != "filter":
        continue
    f, kw = getattr(jf, op["name"].replace("-", "_")), args.get(op["name"], {})
    for _ in range(2):
        a = f(x, **kw); b = f(x[5:200, 7:300], **kw); c = f(img, context=jf.default_context(0), **kw)
    a = a[0] if op["estimate"] else a
r, info = jf.auto_impulse(x)
s = jf.psnr(x, a); s = jf.ssim(x, a)
d = jf.median(jf.from_dlpack(x), ksize=5); cp.asarray(d)
fr = jf.frame((120, 160, 3)); fr[:] = img[:120, :160]; jf.median(fr, ksize=5)
import torch
t = torch.as_tensor(img, device="cuda")
for op in ("median", "gauss"):
    kw = {"sigma": 1.5} if op == "gauss" else {}
    for _ in range(3):
        u = getattr(jf, op)(t, **kw); v = getattr(jf, op)(t[3:100, 5:200], **kw)
w = torch.empty_like(t); jf.median(t, out=w); jf.psnr(t, w)
# strided views through dense copies, out= views copied back
o = cp.zeros((257, 666, 3), cp.uint8); jf.median(x[:, ::2], ksize=5, out=o[:, ::4]); jf.gauss(x[::-1], sigma=1.5)
q = torch.zeros((257, 333), dtype=torch.uint8, device="cuda"); jf.median(t[:, :, 1], out=q)
# batches of files in this process (the library's jobs): CUDA filters, nvJPEG and the CPU codecs
import os, shutil, tempfile
out = tempfile.mkdtemp(); src = os.path.join(out, "in"); os.mkdir(src)
for name in ("chelsea.png", "rocket.jpg"):
    shutil.copy(os.path.join(os.environ["JF_ROOT"], "samples/images", name), src)
for codec in ("nvjpeg", "cpu"):
    for f in ("median", "nlmeans"):
        rep = jf.denoise(src, os.path.join(out, codec + f), backend="cuda", codec=codec,
                         filter=f, jobs=2, format="png")
        assert rep["summary"]["ok"] == rep["summary"]["files"] > 0, rep["summary"]
torch.cuda.synchronize(); cp.cuda.runtime.deviceSynchronize()
del x, a, b, c, r, d, fr, t, u, v, w, o, q  # what is left at exit is reported as leaked
cp.get_default_memory_pool().free_all_blocks(); cp.get_default_pinned_memory_pool().free_all_blocks()
torch.cuda.empty_cache()
print("loop done")
PY
  # --show-backtrace device: the host backtrace the sanitizer saves at each
  # CUDA call keeps the Python frames on the stack alive (and the arrays they
  # hold), which it then reports as leaked (measured: 46 of 47 "leaks");
  # device backtraces keep nothing
  timeout 270 compute-sanitizer --tool memcheck --leak-check full --show-backtrace device \
      --target-processes all env JF_ROOT="$PWD" python3 /tmp/jf_loop.py > "$dest/sanitize.log" 2>&1
  grep -E "ERROR SUMMARY|loop done" "$dest/sanitize.log" | tail -2
  grep -q "ERROR SUMMARY: 0 errors" "$dest/sanitize.log" || rc=1
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  timeout 560 python3 benchmarks/python_bench.py --jetfilter python/jetfilter/bin/jetfilter \
      --out "$dest" > "$dest/bench.log" 2>&1 || rc=1
  tail -45 "$dest/bench.log"
fi
exit $rc
