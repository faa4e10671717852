"""Every operation of the table: present with the table's parameters and
defaults, bit for bit what the C library's command line makes of the same
pixels, and equal to scipy/OpenCV where their definitions match."""
import inspect
import os

import numpy as np
import pytest

import jetfilter as jf
from conftest import PHOTOS, SIZES, cli, random_image

FILTERS = [op for op in jf.operations() if op["kind"] == "filter"]
# what each filter is run with in the comparisons: (python keywords, command-line options)
SETTINGS = {
    "median": [({"ksize": 5}, ["-k", "5"]), ({"ksize": 3, "border": "zero"}, ["-k", "3", "-b", "zero"])],
    "erode": [({}, []), ({"ksize": 15, "border": "zero"}, ["-k", "15", "-b", "zero"])],
    "dilate": [({"ksize": 5, "border": "mirror"}, ["-k", "5", "-b", "mirror"])],
    "adaptive-median": [({"max_ksize": 5}, ["--max-ksize", "5"])],
    "switching-median": [({"max_ksize": 7, "border": "mirror"}, ["--max-ksize", "7", "-b", "mirror"])],
    "auto-impulse": [({}, [])],
    "box": [({"ksize": 5, "border": "reflect"}, ["-k", "5", "-b", "reflect"])],
    "gauss": [({"sigma": 1.5}, ["--sigma", "1.5"]), ({"ksize": 7}, ["-k", "7"])],
    "sharpen": [({"ksize": 3}, ["-k", "3"])],
    "laplace": [({}, [])],
    "conv": [({"kernel": "KERNEL"}, ["--kernel", "KERNEL"])],
    "nlmeans": [({}, []), ({"noise_sigma": 20.0, "search": 7, "patch": 3, "border": "mirror"},
                           ["--noise-sigma", "20", "--search", "7", "--patch", "3", "-b", "mirror"])],
    "bilateral": [({}, []), ({"ksize": 7, "sigma_color": 30.0, "sigma_space": 2.0},
                             ["-k", "7", "--sigma-color", "30", "--sigma-space", "2"])],
    "guided": [({}, []), ({"ksize": 7, "eps": 200.0}, ["-k", "7", "--eps", "200"])],
    "auto": [({}, []), ({"speed": "fast"}, ["--speed", "fast"])],
}


def test_every_operation_is_a_function_with_the_tables_parameters():
    ops = jf.operations()
    assert len(ops) >= 14
    for op in ops:
        fn = getattr(jf, op["name"].replace("-", "_"))
        sig = inspect.signature(fn)
        names = [p for p in sig.parameters]
        want = [q["name"].replace("-", "_") for q in op["params"]]
        assert [n for n in names if n in want] == want, op["name"]
        for q in op["params"]:
            d = sig.parameters[q["name"].replace("-", "_")].default
            if q["default"] == "":
                assert d is None, (op["name"], q["name"])
            elif q["type"] == "int":
                assert d == int(q["default"]), (op["name"], q["name"])
            elif q["type"] == "float":
                assert d == float(q["default"]), (op["name"], q["name"])
            else:
                assert d == q["default"], (op["name"], q["name"])
        assert sig.parameters[names[0]].kind == inspect.Parameter.POSITIONAL_OR_KEYWORD
        assert all(sig.parameters[n].kind == inspect.Parameter.KEYWORD_ONLY for n in want)
        assert op["summary"][:20].lower() in fn.__doc__.lower()
        # what it does first, in the summary's own words; internals last
        assert fn.__doc__.lower().startswith(op["summary"].lower()), fn.__doc__[:40]
        if "GPU variants" in fn.__doc__:
            assert fn.__doc__.index("GPU variants") > fn.__doc__.index("Parameters"), op["name"]
    assert set(SETTINGS) == {op["name"] for op in FILTERS}, "a new filter: add it to SETTINGS"


def _kernel_file(tmp):
    path = os.path.join(tmp, "k.txt")
    with open(path, "w") as f:
        f.write("# a sharpening kernel\n0 -1 0\n-1 5 -1\n0 -1 0\n")
    return path


@pytest.mark.parametrize("op", FILTERS, ids=lambda op: op["name"])
@pytest.mark.parametrize("channels,dtype", [(None, np.uint8), (3, np.uint8), (4, np.uint8),
                                            (None, np.uint16), (3, np.uint16)])
def test_filters_match_the_command_line(op, channels, dtype, tmp, cpu):
    """The C library through Python and through the command line: the same
    bytes (PNG carries every sample exactly)."""
    kernel = _kernel_file(tmp)
    img = random_image(61, 45, channels, dtype, seed=len(op["name"]))
    if op["name"] in ("adaptive-median", "switching-median", "auto-impulse"):
        img = img.copy()
        mask = random_image(61, 45, channels, np.uint8, seed=3) < 30  # impulses to find
        img[mask] = np.iinfo(dtype).max
    src = os.path.join(tmp, "in.png")
    jf.write(src, img if channels != 4 else img[..., :3].copy())
    if channels == 4:
        img = img[..., :3].copy()  # RGBA is colour + alpha in files: compare the colour
    fn = getattr(jf, op["name"].replace("-", "_"))
    for kw, args in SETTINGS[op["name"]]:
        kw = {k: kernel if v == "KERNEL" else v for k, v in kw.items()}
        args = [kernel if a == "KERNEL" else a for a in args]
        try:
            got = fn(img, context=cpu, **kw)
        except jf.UnsupportedError:
            rc, _, err = cli("denoise", src, "-o", os.path.join(tmp, "x.png"), "-f", op["name"],
                             "--backend", "cpu", *args, check=False)
            assert rc == 1 and "16" in err  # refused alike
            continue
        if op["estimate"]:
            got, info = got
            assert set(info) == {"decision", op["estimate"]}
            v = info[op["estimate"]]
            assert (v != v) or 0 <= v <= (1 if op["estimate"] == "impulse_density" else 65535)
        out = os.path.join(tmp, "out.png")
        cli("denoise", src, "-o", out, "-f", op["name"], "--backend", "cpu", *args)
        want = jf.read(out).pixels
        assert got.dtype == img.dtype and got.shape == img.shape
        assert np.array_equal(got, want), (op["name"], kw)


@pytest.mark.parametrize("h,w", SIZES)
def test_awkward_sizes_and_layouts(h, w, cpu):
    """1x1 to 1023x577, rows padded (a view into a wider array), channel
    counts 1 to 4: the same pixels as a packed copy."""
    for c in (None, 1, 3, 4):
        base = random_image(h, w + 5, c, seed=h)
        view = base[:, 2:w + 2]  # rows padded: the row stride is (w + 5) * c
        packed = np.ascontiguousarray(view)
        a = jf.median(view, ksize=3, context=cpu)
        b = jf.median(packed, ksize=3, context=cpu)
        assert np.array_equal(a, b)
        assert a.shape == view.shape
        if h > 1:
            every_other = packed[::2]  # rows two apart
            assert np.array_equal(jf.box(every_other, context=cpu),
                                  jf.box(np.ascontiguousarray(every_other), context=cpu))


def test_strided_views_go_through_a_copy(cpu):
    """Views whose pixels are not dense rows (every other column, one
    channel of three, reversed, Fortran order, a transposed image) give
    what their dense copies give; an out= of that kind is written through
    a dense copy, and nothing beside the view changes."""
    base = random_image(41, 37, 4, seed=3)
    grey = random_image(29, 53, seed=4)
    views = [base[:, ::2], base[:, :, :3], base[:, :, 1], base[::-1], base[:, ::-1], base[::2, ::-3],
             np.asfortranarray(grey), grey.T, grey[::-1, ::2], (base.astype(np.uint16) * 257)[:, ::2]]
    for v in views:
        assert not v.flags.c_contiguous
        for f in (lambda a, **k: jf.median(a, ksize=5, context=cpu, **k),
                  lambda a, **k: jf.gauss(a, ksize=5, context=cpu, **k)):
            want = f(np.ascontiguousarray(v))
            assert np.array_equal(f(v), want)
            big = np.full(v.shape[:1] + (2 * v.shape[1],) + v.shape[2:], 9, v.dtype)
            out = big[:, ::2]
            assert f(v, out=out) is out
            assert np.array_equal(out, want)
            assert (big[:, 1::2] == 9).all()  # the columns between untouched
    img = random_image(20, 30)
    assert jf.psnr(img[:, ::2], img[:, ::2].copy(), context=cpu) == float("inf")
    want = jf.median(np.ascontiguousarray(img[::-1]), ksize=3, context=cpu)
    a = img[::-1]
    jf.median(a, ksize=3, out=a, context=cpu)  # in place, reversed: read before written
    assert np.array_equal(a, want)
    ro = np.zeros((20, 60), np.uint8)[:, ::2]
    ro.flags.writeable = False
    with pytest.raises(jf.ArgumentError, match="read-only"):
        jf.median(img, out=ro, context=cpu)
    with pytest.raises(jf.ArgumentError, match="big-endian"):
        jf.median(np.arange(60, dtype=">u2").reshape(6, 10)[:, ::2], context=cpu)


def test_out_is_written_in_place(cpu):
    img = random_image(40, 30, 3)
    out = np.full_like(img, 7)
    r = jf.median(img, ksize=5, out=out, context=cpu)
    assert r is out
    assert np.array_equal(out, jf.median(img, ksize=5, context=cpu))
    big = np.zeros((50, 40, 3), np.uint8)  # a padded view as out
    jf.median(img, ksize=5, out=big[5:45, 3:33], context=cpu)
    assert np.array_equal(big[5:45, 3:33], out)
    assert big[:5].sum() == 0 and big[45:].sum() == 0


def test_the_one_step_call(cpu):
    """Plain NumPy arrays (every sample type, grey to four channels, out=
    given or made) run in the extension's one step and give what the Python
    path gives; what that step must not take (float16, a view that is not
    dense rows, an out= that does not match or is read-only, other types, a
    context that is not one) it declines before any work, and the call
    goes the Python path, which copies or raises as before."""
    from jetfilter import _ops
    c = jf._jetfilter
    op = [o for o in c.ops() if o["name"] == "median"][0]
    p = _ops.plan("median", (("ksize", 5),), (3,))
    for dtype, ch in [(np.uint8, None), (np.uint8, 3), (np.uint16, 4), (np.float32, 1)]:
        img = random_image(23, 37, ch, np.uint16 if dtype == np.uint16 else np.uint8, seed=5).astype(dtype)
        want = _ops.run_filter(op, img, None, cpu, None, (("ksize", 5),), (3,))
        out = np.full_like(img, 7)
        assert c.fast(p, img, out, cpu) is out
        assert np.array_equal(out, want)
        made = c.fast(p, img, None, cpu)
        assert made is not NotImplemented and made.dtype == img.dtype and made.shape == img.shape
        assert np.array_equal(made, want)
        assert np.array_equal(jf.median(img, ksize=5, context=cpu), want)
    img = random_image(12, 16)
    ro = np.empty_like(img)
    ro.flags.writeable = False

    class Sub(np.ndarray):
        pass
    declined = [(img.astype(np.float16), None, cpu), (img[:, ::2], None, cpu), (img[::-1], None, cpu),
                (img, np.empty((12, 15), np.uint8), cpu), (img, np.empty_like(img, np.uint16), cpu),
                (img, ro, cpu), (img, img.view(Sub), cpu), (img.view(Sub), None, cpu),
                (img.tolist(), None, cpu), (img[0], None, cpu), (img[:, :, None], np.empty_like(img), cpu),
                (img, None, object())]
    for image, out, ctx in declined:
        assert c.fast(p, image, out, ctx) is NotImplemented
    with pytest.raises(jf.ArgumentError, match="out: shape"):
        jf.median(img, out=np.empty((12, 15), np.uint8), context=cpu)
    with pytest.raises(jf.ArgumentError, match="read-only"):
        jf.median(img, out=ro, context=cpu)
    with pytest.raises(TypeError, match="context"):
        jf.median(img, context=object())
    closed = jf.Context(backend="cpu")
    closed.close()
    with pytest.raises(ValueError, match="closed"):
        jf.median(img, context=closed)


def _scipy():
    return pytest.importorskip("scipy.ndimage")


MODES = {"zero": "constant", "replicate": "nearest", "reflect": "reflect", "mirror": "mirror"}


@pytest.mark.parametrize("border", sorted(MODES))
@pytest.mark.parametrize("k", [1, 3, 5, 9])
def test_median_equals_scipy(border, k, cpu):
    nd = _scipy()
    for h, w in [(7, 5), (64, 33), (31, 128)]:
        img = random_image(h, w, seed=k)
        want = nd.median_filter(img, size=k, mode=MODES[border], cval=0)
        assert np.array_equal(jf.median(img, ksize=k, border=border, context=cpu), want)


@pytest.mark.parametrize("border", sorted(MODES))
def test_pad_equals_numpy(border, cpu):
    np_mode = {"zero": "constant", "replicate": "edge", "reflect": "symmetric", "mirror": "reflect"}
    for shape in [(7, 5), (1, 1), (20, 9, 3)]:
        img = random_image(*shape)
        for k in (3, 7):
            r = k // 2
            width = ((r, r), (r, r)) + (((0, 0),) if len(shape) == 3 else ())
            if border == "mirror" and min(shape[:2]) <= r:
                continue  # numpy's reflect needs a wider image; the library's rule is tested in C
            want = np.pad(img, width, mode=np_mode[border])
            assert np.array_equal(jf.pad(img, ksize=k, border=border, context=cpu), want)


def test_box_and_gauss_near_scipy(cpu):
    nd = _scipy()
    img = random_image(120, 97, seed=5)
    box = jf.box(img, ksize=5, border="reflect", context=cpu)
    want = nd.uniform_filter(img.astype(np.float64), size=5, mode="reflect")
    assert np.abs(box.astype(int) - np.floor(want + 0.5).astype(int)).max() <= 1


def test_psnr_and_ssim(cpu):
    a = random_image(64, 48, 3, seed=1)
    b = np.clip(a.astype(int) + random_image(64, 48, 3, seed=2) % 9 - 4, 0, 255).astype(np.uint8)
    mse = np.mean((a.astype(np.float64) - b) ** 2)
    assert abs(jf.psnr(a, b, context=cpu) - 10 * np.log10(255 ** 2 / mse)) < 1e-9
    assert jf.psnr(a, a, context=cpu) == float("inf")
    s = jf.ssim(a, b, context=cpu)
    assert 0 < s < 1
    assert jf.ssim(a, a, context=cpu) == 1.0
    # the command line's metrics, on the same pixels
    import os, tempfile
    d = tempfile.mkdtemp()
    jf.write(os.path.join(d, "a.png"), a)
    jf.write(os.path.join(d, "b.png"), b)
    _, out, _ = cli("metrics", os.path.join(d, "a.png"), os.path.join(d, "b.png"), "--json", "-")
    import json
    m = json.loads(out)
    # 10 digits in the JSON; the command may have run on a GPU (SSIM within 1e-5 there)
    assert abs(m["ssim"] - s) < 1e-6 and abs(m["psnr_db"] - jf.psnr(a, b, context=cpu)) < 1e-7
    skimage = pytest.importorskip("skimage.metrics")
    want = skimage.structural_similarity(a, b, channel_axis=2, gaussian_weights=True, sigma=1.5,
                                         use_sample_covariance=False, data_range=255)
    assert abs(s - want) < 1e-6


def test_noise_leaves_the_input_alone(cpu):
    img = random_image(100, 80, 3, seed=9)
    before = img.copy()
    noisy = jf.salt_pepper(img, density=0.3, seed=4, context=cpu)
    assert np.array_equal(img, before)
    changed = noisy != img
    assert set(np.unique(noisy[changed])) <= {0, 255}
    assert 0.2 < changed.any(axis=2).mean() < 0.4
    again = jf.salt_pepper(img, density=0.3, seed=4, context=cpu)
    assert np.array_equal(noisy, again)  # same seed, same noise
    g = jf.gaussian(img, sigma=10, seed=1, context=cpu)
    assert 5 < np.std(g.astype(int) - img) < 15
    out = np.empty_like(img)
    assert jf.salt_pepper(img, density=0.1, out=out, context=cpu) is out


def test_real_photo_round_trip_and_metadata(tmp, cpu):
    pic = jf.read(os.path.join(PHOTOS, "astronaut.png"))
    assert pic.format == "png" and pic.pixels.shape == (512, 512, 3) and pic.info["icc_bytes"] > 0
    clean = jf.median(pic.pixels, ksize=3, context=cpu)
    out = os.path.join(tmp, "a.png")
    jf.write(out, clean, like=pic)
    back = jf.read(out)
    assert np.array_equal(back.pixels, clean)
    assert back.info["icc_bytes"] > 0  # the profile came along
    # 16-bit and alpha survive PNG
    deep = random_image(33, 17, 4, np.uint16, seed=2)
    jf.write(os.path.join(tmp, "d.png"), deep)
    d = jf.read(os.path.join(tmp, "d.png"))
    assert np.array_equal(d.pixels, deep[..., :3]) and np.array_equal(d.alpha, deep[..., 3])
    # JPEG: lossy, but close, and the file is a JPEG
    jf.write(os.path.join(tmp, "r.jpg"), clean, quality=95)
    j = jf.read(os.path.join(tmp, "r.jpg"))
    assert j.format == "jpeg" and jf.psnr(clean, j.pixels, context=cpu) > 30
