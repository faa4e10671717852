"""On a GPU: CuPy and PyTorch arrays through every operation against the CPU
reference and against the C library's own GPU path (NumPy in, on a CUDA
context), out= with the caller's tensor, no copies or allocations in a
loop, the caller's stream kept (work queued behind a slow kernel, no wait),
DLPack both ways, shared frames, strided views through dense copies.
Skipped where there is no GPU."""
import time

import numpy as np
import pytest

import jetfilter as jf
from conftest import random_image

if jf.device_count() == 0:
    pytest.skip("no CUDA device here", allow_module_level=True)
cp = pytest.importorskip("cupy")
torch = pytest.importorskip("torch")

FILTERS = [op for op in jf.operations() if op["kind"] == "filter"]
ARGS = {"conv": {"weights": np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], np.float32) / 16},
        "median": {"ksize": 5}, "box": {"ksize": 5}, "gauss": {"sigma": 1.2}}


@pytest.fixture(scope="module")
def gpu():
    return jf.Context(backend="cuda")


@pytest.fixture(scope="module")
def cpu():
    return jf.Context(backend="cpu")


def _close(a, b, exact):
    a, b = np.asarray(a).astype(int), np.asarray(b).astype(int)
    return np.array_equal(a, b) if exact else np.abs(a - b).max() <= 1


@pytest.mark.parametrize("op", FILTERS, ids=lambda op: op["name"])
@pytest.mark.parametrize("h,w,c", [(1, 1, None), (5, 7, None), (577, 1023, None), (33, 17, 3),
                                   (120, 64, 4), (1080, 1920, 3)])
def test_cupy_and_torch_match_the_cpu_and_the_c_gpu_path(op, h, w, c, gpu, cpu):
    fn = getattr(jf, op["name"].replace("-", "_"))
    kw = ARGS.get(op["name"], {})
    img = random_image(h, w, c, seed=h)
    want = fn(img, context=cpu, **kw)
    c_gpu = fn(img, context=gpu, **kw)  # NumPy on a CUDA context: the C library's GPU path
    if op["estimate"]:
        want, c_gpu = want[0], c_gpu[0]
    exact = op["exact"]
    assert _close(c_gpu, want, exact)
    x = cp.asarray(img)
    got = fn(x, **kw)
    got = got[0] if op["estimate"] else got
    assert isinstance(got, cp.ndarray) and got.shape == img.shape and got.dtype == cp.uint8
    assert np.array_equal(cp.asnumpy(got), c_gpu)  # bit-identical to the C library's GPU path
    t = torch.as_tensor(img, device="cuda")
    gt = fn(t, **kw)
    gt = gt[0] if op["estimate"] else gt
    assert isinstance(gt, torch.Tensor) and gt.is_cuda
    assert np.array_equal(gt.cpu().numpy(), c_gpu)


def test_uint16_and_padded_device_rows(gpu, cpu):
    img = random_image(301, 203, 3, np.uint16, seed=4)
    want = jf.median(img, ksize=5, context=cpu)
    x = cp.asarray(img)
    got = jf.median(x, ksize=5)  # uint16 from CuPy
    assert np.array_equal(cp.asnumpy(got), want)
    wide = cp.zeros((301, 260, 3), cp.uint8)
    wide[:, 10:213] = cp.asarray(img.astype(np.uint8))
    view = wide[:, 10:213]  # rows padded on the device
    assert np.array_equal(cp.asnumpy(jf.median(view, ksize=5)),
                          jf.median(img.astype(np.uint8), ksize=5, context=cpu))


def test_strided_device_views(gpu, cpu):
    """CuPy and PyTorch views whose pixels are not dense (every other
    column, one channel of three, reversed) through a dense copy their own
    library makes; an out= view written through one, its neighbours kept."""
    img = random_image(61, 90, 4, seed=6)
    x, t = cp.asarray(img), torch.as_tensor(img, device="cuda")
    for host, dx, dt in ((img[:, ::2], x[:, ::2], t[:, ::2]), (img[:, :, :3], x[:, :, :3], t[:, :, :3]),
                         (img[::-1], x[::-1], None), (img[:, :, 2], x[:, :, 2], t[:, :, 2])):
        want = jf.median(np.ascontiguousarray(host), ksize=5, context=cpu)
        assert np.array_equal(cp.asnumpy(jf.median(dx, ksize=5)), want)
        if dt is not None:
            assert np.array_equal(jf.median(dt, ksize=5).cpu().numpy(), want)
        big = cp.full(host.shape[:1] + (2 * host.shape[1],) + host.shape[2:], 9, cp.uint8)
        out = big[:, ::2]
        assert jf.median(dx, ksize=5, out=out) is out
        assert np.array_equal(cp.asnumpy(out), want)
        assert bool((big[:, 1::2] == 9).all())
    tout = torch.full((61, 90, 4), 9, dtype=torch.uint8, device="cuda")
    jf.median(t[:, :45], ksize=3, out=tout[:, ::2])
    assert np.array_equal(tout[:, ::2].cpu().numpy(),
                          jf.median(np.ascontiguousarray(img[:, :45]), ksize=3, context=cpu))
    assert bool((tout[:, 1::2] == 9).all())


def test_out_with_the_callers_tensor(gpu, cpu):
    img = random_image(240, 320, 3, seed=1)
    t = torch.as_tensor(img, device="cuda")
    out = torch.empty_like(t)
    r = jf.gauss(t, sigma=2.0, out=out)
    assert r is out
    assert _close(out.cpu().numpy(), jf.gauss(img, sigma=2.0, context=cpu), False)
    with pytest.raises(jf.ArgumentError, match="hidden copies"):
        jf.median(t, out=np.empty_like(img))
    with pytest.raises(jf.ArgumentError, match="context runs on the CPU"):
        jf.median(t, context=cpu)


def test_the_one_step_call_on_device_arrays(gpu, cpu):
    """CuPy arrays and PyTorch CUDA tensors with out= run in the extension's
    one step, on the stream their producer works on, and give the CPU's
    result (CuPy's without out= too); what that step must not take (a
    tensor without out=, a view that is not dense rows, a host or float16
    tensor, mixed kinds, a CPU context) it declines before any work."""
    from jetfilter import _ops
    c = jf._jetfilter
    p = _ops.plan("median", (("ksize", 5),), (3,))
    img = random_image(37, 53, 3, seed=9)
    want = jf.median(img, ksize=5, context=cpu)
    x, t = cp.asarray(img), torch.as_tensor(img, device="cuda")
    jf.median(x, ksize=5)
    jf.median(t, ksize=5)  # each library's type seen once
    wide = cp.asarray(img.astype(np.uint16) * 257)
    cases = [(x, cp.empty_like(x), want), (t, torch.empty_like(t), want),
             (wide, cp.empty_like(wide), jf.median(img.astype(np.uint16) * 257, ksize=5, context=cpu))]
    for a, out, expect in cases:
        for ctx in (gpu, None):
            out[...] = 7
            assert c.fast(p, a, out, ctx) is out
            got = cp.asnumpy(out) if isinstance(out, cp.ndarray) else out.cpu().numpy()
            assert np.array_equal(got, expect)
    made = c.fast(p, x, None, gpu)  # CuPy makes the output, as from the Python path
    assert isinstance(made, cp.ndarray) and made.dtype == x.dtype and made.shape == x.shape
    assert np.array_equal(cp.asnumpy(made), want)
    for a, out, ctx in [(t, None, gpu), (x[:, ::2], cp.empty_like(x[:, ::2]), gpu),
                        (t.cpu(), torch.empty_like(t.cpu()), cpu), (t.half(), torch.empty_like(t.half()), gpu),
                        (x, torch.empty_like(t), gpu), (x, cp.empty_like(x), cpu)]:
        assert c.fast(p, a, out, ctx) is NotImplemented
    # PyTorch's current stream, by its raw handle where torch has it, else
    # by its Stream object; the context holds it either way
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    dtypes = (torch.uint8, getattr(torch, "uint16", None), torch.float32)
    try:
        for getter in [raw, torch.cuda.current_stream] if raw else [torch.cuda.current_stream]:
            c.fast_torch(torch.Tensor, dtypes, getter)
            s = torch.cuda.Stream()
            with torch.cuda.stream(s):
                o = torch.empty_like(t)
                gpu.set_stream(None)  # the context's own: the call must take s and hold it
                assert c.fast(p, t, o, gpu) is o
                assert gpu.info()["stream"] == s.cuda_stream
                assert gpu.holds_stream
            s.synchronize()
            assert np.array_equal(o.cpu().numpy(), want)
    finally:
        c.fast_torch(torch.Tensor, dtypes, raw or torch.cuda.current_stream)
    side = cp.cuda.Stream(non_blocking=True)
    with side:
        o = cp.empty_like(x)
        assert c.fast(p, x, o, gpu) is o
        assert gpu.info()["stream"] == side.ptr
    side.synchronize()
    assert np.array_equal(cp.asnumpy(o), want)


def test_no_allocation_or_transfer_in_a_loop(gpu):
    """1000 calls on device arrays after the first: CuPy's pool grows no more,
    the device's free memory stays, and nothing crosses to the host."""
    x = cp.asarray(random_image(480, 640, seed=2))
    out = cp.empty_like(x)
    jf.median(x, ksize=3, out=out)
    jf.median(x, ksize=3)
    cp.cuda.runtime.deviceSynchronize()
    pool = cp.get_default_memory_pool()
    used, total = pool.used_bytes(), pool.total_bytes()
    free0 = cp.cuda.runtime.memGetInfo()[0]
    ctx = jf.Context(backend="cuda", stats=4096)
    for _ in range(1000):
        jf.median(x, ksize=3, out=out, context=ctx)
        jf.median(x, ksize=3)
    cp.cuda.runtime.deviceSynchronize()
    assert pool.total_bytes() == total and pool.used_bytes() <= used + x.nbytes
    assert cp.cuda.runtime.memGetInfo()[0] >= free0 - (1 << 20)
    ctx.sync()
    names = {s[0] for s in ctx.stats()}
    assert "median" in names and not names & {"upload", "download", "stage", "unstage"}, names


SPIN = r'''
extern "C" __global__ void spin(long long cycles, int *flag) {
    long long start = clock64();
    while (clock64() - start < cycles) { }
    *flag = 1;
}
'''


def test_the_callers_stream_is_kept():
    """Work queued on a side stream behind a 0.3 s kernel: the call returns
    at once (no synchronisation), the result is right once the stream is,
    and the default stream is not blocked meanwhile."""
    spin = cp.RawKernel(SPIN, "spin")
    img = random_image(1080, 1920, seed=3)
    want = jf.median(img, ksize=5, context=jf.Context(backend="cpu"))
    side = cp.cuda.Stream(non_blocking=True)
    flag = cp.zeros(1, cp.int32)
    rate = cp.cuda.runtime.deviceGetAttribute(cp.cuda.runtime.cudaDevAttrClockRate, 0) * 1000
    cp.arange(10) * 2  # CuPy compiles its kernels at first use: not while timing
    cp.cuda.runtime.deviceSynchronize()
    with side:
        x = cp.asarray(img)
        side.synchronize()
        spin((1,), (1,), (np.int64(rate * 0.3), flag))
        t0 = time.perf_counter()
        y = jf.median(x, ksize=5)  # CuPy's current stream: `side`
        queued = time.perf_counter() - t0
    assert queued < 0.1, "the call waited for the stream (%.3f s)" % queued
    other = cp.cuda.Stream(non_blocking=True)
    with other:  # another stream runs meanwhile (its kernel compiled before)
        cp.arange(10) * 2
        other.synchronize()
        t0 = time.perf_counter()
        z = cp.arange(10) * 2
        other.synchronize()
        assert time.perf_counter() - t0 < 0.1
    assert not side.done
    side.synchronize()
    assert int(flag[0]) == 1
    assert np.array_equal(cp.asnumpy(y), want)
    # PyTorch: its current stream
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        t = torch.as_tensor(img, device="cuda")
        r = jf.median(t, ksize=5)
    s.synchronize()
    assert np.array_equal(r.cpu().numpy(), want)
    # an explicit stream= wins
    st = cp.cuda.Stream(non_blocking=True)
    r2 = jf.median(x, ksize=5, stream=st)
    st.synchronize()
    assert np.array_equal(cp.asnumpy(r2), want)


def test_dlpack_both_ways(cpu):
    img = random_image(64, 48, 3, seed=5)
    want = jf.box(img, ksize=3, context=cpu)
    t = torch.as_tensor(img, device="cuda")

    class OnlyDLPack(object):
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, stream=None):
            return self.a.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    got = jf.box(OnlyDLPack(t), ksize=3)  # DLPack in: a jetfilter.DeviceArray out
    assert isinstance(got, jf.DeviceArray)
    assert _close(got.copy_to_host(), want, False)
    back = torch.from_dlpack(got)  # no copy
    assert back.data_ptr() == got.ptr and _close(back.cpu().numpy(), want, False)
    c = cp.asarray(got)  # __cuda_array_interface__
    assert c.data.ptr == got.ptr and _close(cp.asnumpy(c), want, False)
    v = jf.from_dlpack(t)
    assert v.ptr == t.data_ptr()


def test_shared_frames_in_place():
    """frame(): NumPy and the GPU address the same memory (managed on a
    Jetson; mapped here, and managed when asked)."""
    cpu = jf.Context(backend="cpu")
    for memory in ("auto", "managed"):
        ctx = jf.Context(backend="cuda", memory=memory)
        f = jf.frame((480, 640, 3), context=ctx)
        f[:] = random_image(480, 640, 3, seed=6)
        out = jf.median(f, ksize=3, context=ctx)
        assert isinstance(out, np.ndarray)
        assert np.array_equal(out, jf.median(np.array(f), ksize=3, context=cpu))
        dst = jf.frame((480, 640, 3), context=ctx)
        jf.median(f, ksize=5, out=dst, context=ctx)
        assert np.array_equal(dst, jf.median(np.array(f), ksize=5, context=cpu))


def test_device_mismatch_is_refused():
    x = cp.asarray(random_image(8, 8))

    class OnGpu5(object):
        __cuda_array_interface__ = x.__cuda_array_interface__
        device = type("D", (), {"id": 5})()

    with pytest.raises(jf.ArgumentError, match="GPU 5, the context on GPU 0"):
        jf.median(OnGpu5(), context=jf.Context(backend="cuda", device=0))


@pytest.mark.parametrize("depth", [8, 16])
def test_python_runs_the_variant_the_command_line_runs(depth):
    """auto's choice from Python (the context's stats: what ran) is the C
    path's (jetfilter bench: jf_median on the same device) at every size,
    channel count and k where the resolver's rules change."""
    import json
    from conftest import cli
    sizes = [(48, 64), (480, 640), (720, 1280), (1080, 1920), (1440, 2560), (2160, 3840)]
    ks = [1, 3, 5, 7, 9, 11, 13, 15, 31]
    _, out, _ = cli("bench", "--backend", "cuda", "-f", "median", "-k", ",".join(map(str, ks)),
            "--size", ",".join("%dx%d" % (w, h) for h, w in sizes), "--channels", "1,3",
            "--depth", str(depth), "--reps", "1", "--warmup", "0", "--json", "-", "--quiet")
    cells = json.loads(out)["cells"]
    assert len(cells) == len(sizes) * 2 * len(ks)
    for cell in cells:
        h, w, c, k = cell["height"], cell["width"], cell["channels"], cell["ksize"]
        x = cp.zeros((h, w, c) if c > 1 else (h, w), cp.uint8 if depth == 8 else cp.uint16)
        with jf.Context(backend="cuda", stats=8) as ctx:
            jf.median(x, ksize=k, context=ctx)
            ctx.sync()
            ran = [row[1] for row in ctx.stats() if row[0] == "median"]
        assert ran == [cell["variant"]], (h, w, c, k, ran, cell["variant"])
