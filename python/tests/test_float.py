"""float32 and float16 images from Python: the median against NumPy's sort
of each window (NaN last), the convolution against a float64 sum, PSNR and
SSIM with their data range, the median that skips depth holes or NaN, and
the same on CuPy and PyTorch arrays where a GPU is."""
import numpy as np
import pytest

import jetfilter as jf
from conftest import SIZES

BORDERS = {"zero": "constant", "replicate": "edge"}  # jetfilter's names -> np.pad's


def depth_map(h, w, c=None, seed=0, holes=0.3, specials=False):
    rng = np.random.default_rng(seed + 31 * h + w)
    shape = (h, w) if c is None else (h, w, c)
    a = rng.uniform(0.2, 9.0, shape).astype(np.float32)
    a[rng.random(shape) < holes] = 0.0
    if specials:
        pick = rng.random(shape)
        a[pick < 0.03] = np.nan
        a[(pick >= 0.03) & (pick < 0.05)] = np.inf
        a[(pick >= 0.05) & (pick < 0.07)] = -np.inf
        a[(pick >= 0.07) & (pick < 0.09)] = -0.0
    return a


def windows(a, k, border):
    r = k // 2
    pad = [(r, r), (r, r)] + ([(0, 0)] if a.ndim == 3 else [])
    p = np.pad(a.astype(np.float64), pad, mode=BORDERS[border])
    h, w = a.shape[:2]
    return np.stack([p[j:j + h, i:i + w] for j in range(k) for i in range(k)], axis=-1)


def median_numpy(a, k, border):
    win = np.sort(windows(a, k, border), axis=-1)  # NaN sorted last
    return win[..., (k * k) // 2].astype(np.float32)


def same(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


@pytest.mark.parametrize("h,w", SIZES)
@pytest.mark.parametrize("k", [3, 5, 7])
@pytest.mark.parametrize("border", sorted(BORDERS))
def test_median_is_numpys(h, w, k, border, cpu):
    a = depth_map(h, w, 3 if h * w < 100 else None, specials=True)
    got = jf.median(a, ksize=k, border=border, context=cpu)
    assert got.dtype == np.float32
    assert same(got, median_numpy(a, k, border))


def test_convolution_within_its_tolerance(cpu):
    a = depth_map(37, 23, 2, specials=False)
    w = np.random.default_rng(3).uniform(-0.3, 0.7, (5, 5)).astype(np.float32)
    got = jf.conv(a, weights=w, border="replicate", context=cpu)
    win = windows(a, 5, "replicate")
    want = (win * w.reshape(-1).astype(np.float64)).sum(axis=-1)
    bound = 25 * np.finfo(np.float32).eps * (np.abs(win) * np.abs(w.reshape(-1))).sum(axis=-1)
    assert got.dtype == np.float32 and np.all(np.abs(got - want) <= bound)
    a[4, 4, 1] = np.nan  # a NaN spreads over the windows that hold it
    got = jf.conv(a, weights=w, border="replicate", context=cpu)
    assert np.isnan(got[2:7, 2:7, 1]).all() and not np.isnan(got[..., 0]).any()


def test_float16_comes_back_float16(cpu):
    a = depth_map(33, 17, seed=5).astype(np.float16)
    got = jf.median(a, ksize=3, context=cpu)
    assert got.dtype == np.float16
    assert same(got, median_numpy(a.astype(np.float32), 3, "replicate").astype(np.float16))
    out = np.empty_like(a)
    jf.gauss(a, sigma=1.0, out=out, context=cpu)
    want = jf.gauss(a.astype(np.float32), sigma=1.0, context=cpu).astype(np.float16)
    assert same(out, want)


def test_metrics_with_a_data_range(cpu):
    rng = np.random.default_rng(1)
    a = rng.uniform(0, 10, (40, 30)).astype(np.float32)
    b = (a + rng.normal(0, 0.1, a.shape)).astype(np.float32)
    mse = np.mean((a.astype(np.float64) - b) ** 2)
    assert jf.psnr(a, b, data_range=10.0, context=cpu) == pytest.approx(10 * np.log10(100 / mse), rel=1e-12)
    assert jf.psnr(a, b, context=cpu) == pytest.approx(10 * np.log10(1 / mse), rel=1e-12)
    u8 = rng.integers(0, 256, (40, 30, 3), dtype=np.uint8)
    v8 = rng.integers(0, 256, (40, 30, 3), dtype=np.uint8)
    assert jf.ssim(u8 / np.float32(255), v8 / np.float32(255), context=cpu) == \
        pytest.approx(jf.ssim(u8, v8, context=cpu), abs=1e-6)
    with pytest.raises(jf.ArgumentError):
        jf.psnr(a, b, data_range=-1.0, context=cpu)


def test_depth_holes_skipped(cpu):
    d = (depth_map(61, 97, seed=2) * 1000).astype(np.uint16)  # millimetres, 0 = no reading
    got = jf.median(d, ksize=5, ignore_value=0, context=cpu)
    win = windows(d, 5, "replicate")
    for y, x in [(0, 0), (30, 40), (60, 96), (17, 3)]:
        valid = np.sort(win[y, x][win[y, x] != 0])
        assert got[y, x] == (valid[(len(valid) - 1) // 2] if len(valid) else d[y, x])
    f = depth_map(20, 30, seed=4, specials=True)
    got = jf.median(f, ksize=3, ignore="nan", context=cpu)
    win = windows(f, 3, "replicate")
    for y in range(20):
        for x in range(30):
            valid = np.sort(win[y, x][~np.isnan(win[y, x])])
            want = valid[(len(valid) - 1) // 2] if len(valid) else f[y, x]
            assert same(got[y, x], np.float32(want))
    with pytest.raises(jf.ArgumentError, match="float32"):
        jf.median(d, ignore="nan", context=cpu)


def test_gauss_leaves_holes_out(cpu):
    """The Gaussian over the valid samples only: scipy's normalised
    convolution (the holes' mask blurred alike), the hole kept where its
    window has nothing valid; negative weights refused."""
    ndi = pytest.importorskip("scipy.ndimage")
    d = depth_map(61, 97, seed=5)
    d[10:20, 10:20] = 0  # a hole wider than the window
    x = np.arange(-2, 3)
    g = np.exp(-x * x / (2 * 1.2 * 1.2))
    w = np.outer(g, g) / np.outer(g, g).sum()  # the library's sampled, normalised Gaussian
    got = jf.gauss(d, ksize=5, sigma=1.2, ignore_value=0, context=cpu)
    m = (d != 0).astype(np.float64)
    num = ndi.correlate(d * m, w, mode="nearest")
    den = ndi.correlate(m, w, mode="nearest")
    want = np.where(den > 0, num / np.where(den > 0, den, 1), d)
    assert np.allclose(got, want, rtol=1e-5, atol=1e-6)
    assert got[15, 15] == 0 and got[12, 10] > 0
    mm = (d * 1000).astype(np.uint16)
    got16 = jf.gauss(mm, ksize=5, sigma=1.2, ignore_value=0, context=cpu)
    m16 = (mm != 0).astype(np.float64)
    want16 = np.where(ndi.correlate(m16, w, mode="nearest") > 0,
                      ndi.correlate(mm * m16, w, mode="nearest") /
                      np.maximum(ndi.correlate(m16, w, mode="nearest"), 1e-300), mm)
    assert np.abs(got16.astype(np.float64) - np.floor(want16 + 0.5)).max() <= 1
    with pytest.raises(jf.ArgumentError, match="weights of zero or more"):
        jf.conv(d, weights=np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], np.float32),
                ignore_value=0, context=cpu)


def test_refused_by_name(cpu):
    with pytest.raises(jf.UnsupportedError, match="float32 images go to the median"):
        jf.erode(depth_map(8, 8), context=cpu)
    with pytest.raises(jf.ArgumentError, match="uint8, uint16 or float32"):
        jf.median(np.zeros((4, 4), np.float64), context=cpu)


def test_on_the_gpu():
    if jf.device_count() == 0:
        pytest.skip("no CUDA device here")
    cp = pytest.importorskip("cupy")
    torch = pytest.importorskip("torch")
    cpu, gpu = jf.Context(backend="cpu"), jf.Context(backend="cuda")
    a = depth_map(577, 1023, 3, specials=True)
    for k in (3, 5, 9):
        want = jf.median(a, ksize=k, context=cpu)
        assert same(jf.median(a, ksize=k, context=gpu), want)
        g = jf.median(cp.asarray(a), ksize=k)
        assert isinstance(g, cp.ndarray) and g.dtype == cp.float32 and same(cp.asnumpy(g), want)
        t = jf.median(torch.as_tensor(a, device="cuda"), ksize=k)
        assert t.dtype == torch.float32 and same(t.cpu().numpy(), want)
    h = jf.median(torch.as_tensor(a, device="cuda").half(), ksize=3)
    assert h.dtype == torch.float16
    want = jf.gauss(a, sigma=1.5, context=cpu)
    got = jf.gauss(cp.asarray(a), sigma=1.5)
    finite = np.isfinite(want)
    assert np.array_equal(np.isnan(cp.asnumpy(got)), np.isnan(want))
    assert np.allclose(cp.asnumpy(got)[finite], want[finite], rtol=1e-5, atol=1e-5)
