"""The package as a user gets it: the batch, the command, the stubs, DLPack
and the buffer protocol, threads, Jetson frames, and Python 3.6."""
import os
import shutil
import subprocess
import sys
import json as jf_json
import threading

import numpy as np
import pytest

import jetfilter as jf
from conftest import PHOTOS, ROOT, builds_format, cli, random_image

HERE = os.path.dirname(os.path.abspath(__file__))


def test_imported_from_the_installed_package():
    """The tests run against what pip installed, not the source tree."""
    assert not os.path.dirname(jf.__file__).startswith(os.path.join(ROOT, "python", "jetfilter")) or \
        os.environ.get("JETFILTER_TEST_IN_TREE") == "1"
    assert jf.__version__.count(".") == 2


def test_missing_numpy_is_an_import_error_naming_it():
    """NumPy is a requirement: without it the import fails, saying so."""
    code = ("import sys\nsys.modules['numpy'] = None\ntry:\n    import jetfilter\n"
            "except ImportError as e:\n    print('ImportError:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, cwd=HERE).stdout
    assert "ImportError:" in out and "needs NumPy" in out, out


def test_tiff_and_webp_round_trip(tmp):
    """TIFF keeps 16 bits and alpha exactly in every compression; lossless
    WebP keeps 8-bit RGBA exactly, and stays lossless when written "like"
    itself; a lossy WebP is close; a wrong compression name is refused."""
    if not (builds_format("tif") and builds_format("webp")):
        pytest.skip("this jetfilter was built without TIFF or WebP")
    deep = random_image(37, 23, 3, np.uint16, seed=5)
    for comp in ("none", "lzw", "deflate", "packbits"):
        path = os.path.join(tmp, "deep_%s.tif" % comp)
        assert jf.write(path, deep, tiff_compression=comp) == ""
        back = jf.read(path)
        assert back.format == "tiff" and back.pixels.dtype == np.uint16
        assert np.array_equal(back.pixels, deep)
    rgba = random_image(19, 11, 4, np.uint8, seed=6)
    jf.write(os.path.join(tmp, "a.webp"), rgba, lossless=True)
    back = jf.read(os.path.join(tmp, "a.webp"))
    assert back.format == "webp" and np.array_equal(back.pixels, rgba[..., :3])
    assert np.array_equal(back.alpha, rgba[..., 3])
    jf.write(os.path.join(tmp, "b.webp"), back)  # like itself: lossless
    assert np.array_equal(jf.read(os.path.join(tmp, "b.webp")).pixels, rgba[..., :3])
    photo = jf.read(os.path.join(PHOTOS, "chelsea.png")).pixels
    jf.write(os.path.join(tmp, "c.webp"), photo, quality=90)
    err = np.abs(jf.read(os.path.join(tmp, "c.webp")).pixels.astype(int) - photo.astype(int))
    assert 0 < err.mean() < 4
    with pytest.raises(jf.ArgumentError, match="tiff_compression"):
        jf.write(os.path.join(tmp, "x.tif"), deep, tiff_compression="jpeg")
    with pytest.raises(jf.ArgumentError, match="jpeg, png, tiff, webp or pfm"):
        jf.write(os.path.join(tmp, "x.bmp"), deep)


def test_float_files(tmp):
    """float32 depth maps through PFM and float TIFF bit for bit (NaN,
    infinities, -0), the median on what was read equal to scipy's; floats
    refused for PNG and integers for PFM, by name."""
    if not builds_format("tif"):
        pytest.skip("this jetfilter was built without TIFF")
    rng = np.random.default_rng(11)
    depth = (rng.random((23, 41)) * 4).astype(np.float32)
    depth[rng.random(depth.shape) < 0.1] = 0
    depth.flat[[3, 50, 70]] = [np.nan, np.inf, -0.0]
    rgb = rng.standard_normal((9, 13, 3)).astype(np.float32)
    for name, img in (("d.pfm", depth), ("d.tif", depth), ("c.pfm", rgb), ("c.tif", rgb)):
        path = os.path.join(tmp, name)
        assert jf.write(path, img) == ""
        back = jf.read(path)
        assert back.format == name[2:].replace("tif", "tiff") and back.pixels.dtype == np.float32
        assert back.pixels.tobytes() == np.ascontiguousarray(img).tobytes()
    with open(os.path.join(tmp, "d.pfm"), "rb") as f:  # the header other readers expect
        assert f.read(14) == b"Pf\n41 23\n-1.0\n"
    scipy_ndimage = pytest.importorskip("scipy.ndimage")
    finite = np.nan_to_num(depth, posinf=9.0)
    jf.write(os.path.join(tmp, "f.pfm"), finite)
    got = jf.median(jf.read(os.path.join(tmp, "f.pfm")).pixels, ksize=5)
    assert np.array_equal(got, scipy_ndimage.median_filter(finite, 5, mode="nearest"))
    with pytest.raises(jf.UnsupportedError, match="PNG holds 8- and 16-bit samples, not float32"):
        jf.write(os.path.join(tmp, "d.png"), depth)
    with pytest.raises(jf.UnsupportedError, match="PFM holds float32 samples, not 8-bit ones"):
        jf.write(os.path.join(tmp, "u.pfm"), random_image(5, 4, 1, np.uint8, seed=1))
    assert not os.path.exists(os.path.join(tmp, "d.png"))


def test_denoise_batch_report(tmp):
    src = os.path.join(tmp, "in")
    os.makedirs(os.path.join(src, "sub"))
    shutil.copy(os.path.join(PHOTOS, "rocket.jpg"), src)
    shutil.copy(os.path.join(PHOTOS, "chelsea.png"), os.path.join(src, "sub"))
    with open(os.path.join(src, "broken.jpg"), "wb") as f:
        f.write(b"\xff\xd8\xff garbage")
    with pytest.raises(jf.BatchError, match="1 of 3 files failed; the first: .*broken.jpg") as e:
        jf.denoise(src, os.path.join(tmp, "out"), ksize=5, backend="cpu", format="png")
    report = e.value.report
    s = report["summary"]
    assert (s["files"], s["ok"], s["failed"]) == (3, 2, 1)
    by = {r["path"]: r for r in report["files"]}
    assert by["broken.jpg"]["status"] == "failed" and "broken.jpg" in by["broken.jpg"]["error"]
    assert by["sub/chelsea.png"]["width"] == 451
    assert report["settings"]["parameters"]["ksize"] == 5
    # the same pixels as the function
    want = jf.median(jf.read(os.path.join(PHOTOS, "rocket.jpg")).pixels, ksize=5,
                     context=jf.Context(backend="cpu"))
    assert np.array_equal(jf.read(os.path.join(tmp, "out", "rocket.png")).pixels, want)
    # one file to one file
    r = jf.denoise(os.path.join(PHOTOS, "rocket.jpg"), os.path.join(tmp, "one.png"), backend="cpu")
    assert r["summary"]["ok"] == 1 and os.path.isfile(os.path.join(tmp, "one.png"))
    with pytest.raises(jf.ArgumentError, match="ksize 4"):
        jf.denoise(src, os.path.join(tmp, "bad"), ksize=4)
    with pytest.raises(TypeError, match="denoise.. got an unexpected keyword argument 'colour'"):
        jf.denoise(src, os.path.join(tmp, "bad"), colour="red")
    with pytest.raises(jf.BatchError, match="nothere.*No such file") as e:
        jf.denoise(os.path.join(tmp, "nothere"), os.path.join(tmp, "x"), backend="cpu")
    assert e.value.report["summary"]["failed"] == 1
    n = jf.noise_files(os.path.join(PHOTOS, "chelsea.png"), os.path.join(tmp, "noisy.png"),
                       salt_pepper=0.2, seed=3)
    assert n["summary"]["ok"] == 1


def test_shards_merged_in_this_process(tmp):
    """The reports of a sharded run merge in this process: the summary
    comes back, the whole merged report goes to `output`, and reports of
    different runs are refused by name."""
    src = os.path.join(tmp, "in")
    os.makedirs(src)
    names = ["p%d.png" % i for i in range(6)]
    for name in names:
        shutil.copy(os.path.join(PHOTOS, "chelsea.png"), os.path.join(src, name))
    json = lambda name: os.path.join(tmp, name)  # noqa: E731
    for i in (0, 1):
        jf.denoise(src, os.path.join(tmp, "out"), backend="cpu", shard="%d/2" % i, json=json("s%d.json" % i))
    jf.denoise(src, os.path.join(tmp, "k5"), backend="cpu", ksize=5, shard="1/2", json=json("k5.json"))
    m = jf.merge_reports([json("s0.json"), json("s1.json")], output=json("all.json"))
    assert m["summary"]["files"] == 6 and m["summary"]["ok"] == 6 and m["summary"]["complete"]
    assert "files" not in m and m["shard"]["files_in_inputs"] == 6
    with open(json("all.json")) as f:
        assert sorted(r["path"] for r in jf_json.load(f)["files"]) == names
    alone = jf.merge_reports(json("s0.json"))
    assert not alone["summary"]["complete"] and alone["summary"]["missing"] == 6 - alone["summary"]["files"] > 0
    with pytest.raises(jf.Error, match="different runs"):
        jf.merge_reports([json("s0.json"), json("k5.json")])
    with pytest.raises(jf.Error, match="nothere.json: not a jetfilter --json report"):
        jf.merge_reports([json("s0.json"), json("nothere.json")])


def test_worker_runs_batch_after_batch(tmp):
    """A Worker runs batch after batch: the reports and pixels of
    jetfilter.denoise, the same exceptions, no setting kept from a call
    before, and nothing once closed."""
    src = os.path.join(tmp, "in")
    os.makedirs(src)
    shutil.copy(os.path.join(PHOTOS, "rocket.jpg"), src)
    with open(os.path.join(src, "broken.jpg"), "wb") as f:
        f.write(b"\xff\xd8\xff garbage")
    out = lambda name: os.path.join(tmp, name)  # noqa: E731
    with jf.Worker() as w:
        with pytest.raises(jf.BatchError) as e:
            w.denoise(src, out("a"), ksize=5, backend="cpu", format="png")
        a = e.value.report
        with pytest.raises(jf.BatchError) as e:
            w.denoise(src, out("b"), backend="cpu", max_mpix=0.01)
        small = e.value.report
        with pytest.raises(TypeError, match="colour"):
            w.denoise(src, out("bad"), colour="red")
        with pytest.raises(jf.ArgumentError, match="ksize 4"):
            w.denoise(src, out("bad"), ksize=4)
        n = w.noise_files(os.path.join(PHOTOS, "chelsea.png"), out("noisy.png"), salt_pepper=0.2, seed=3)
        with pytest.raises(jf.BatchError) as e:
            w.denoise(src, out("c"), backend="cpu")
        again = e.value.report
    with pytest.raises(jf.BatchError) as e:
        jf.denoise(src, out("plain"), ksize=5, backend="cpu", format="png")
    plain = e.value.report
    assert (a["summary"]["ok"], a["summary"]["failed"]) == (1, 1) == \
        (plain["summary"]["ok"], plain["summary"]["failed"])
    assert np.array_equal(jf.read(out("a/rocket.png")).pixels, jf.read(out("plain/rocket.png")).pixels)
    assert "broken.jpg" in [r["error"] for r in a["files"] if r["status"] == "failed"][0]
    assert small["summary"]["failed"] == 2 and again["summary"]["ok"] == 1  # the limit did not stay
    assert n["summary"]["ok"] == 1 and not os.path.exists(out("bad"))
    with pytest.raises(jf.Error, match="closed"):
        w.denoise(src, out("d"))


def test_batches_run_in_this_process(tmp, monkeypatch):
    """denoise() needs no other process and no bundled command: the batch
    runs in the library; progress comes from it, file by file; an exception
    of the progress callable is raised once the batch is done; a callback
    that starts another batch is refused instead of waiting for itself;
    batches from two threads take turns."""
    def no_process(*args, **kwargs):
        raise AssertionError("a process was started: %r" % (args,))

    monkeypatch.setattr(subprocess, "Popen", no_process)
    monkeypatch.setattr(jf._cli, "executable", lambda: "/nonexistent/jetfilter")
    src = os.path.join(tmp, "in")
    os.makedirs(os.path.join(src, "sub"))
    shutil.copy(os.path.join(PHOTOS, "rocket.jpg"), src)
    shutil.copy(os.path.join(PHOTOS, "chelsea.png"), os.path.join(src, "sub"))
    seen = []
    r = jf.denoise(src, os.path.join(tmp, "out"), backend="cpu", jobs=2,
                   progress=lambda *p: seen.append(p))
    assert r["summary"]["ok"] == 2 and r["command"] == "denoise"
    assert seen[0][:2] == (0, 2) and seen[0][6] is None  # before the first file
    paths = sorted(p[6] for p in seen if p[6] is not None)
    assert paths == ["rocket.jpg", "sub/chelsea.png"]
    assert max(p[0] for p in seen) == 2 and all(p[1] == 2 for p in seen)

    def raises(*p):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        jf.denoise(src, os.path.join(tmp, "out2"), backend="cpu", progress=raises)
    assert os.path.isfile(os.path.join(tmp, "out2", "sub", "chelsea.png"))  # the batch went on
    nested = []

    def starts_another(*p):
        if p[6] is not None and not nested:
            try:
                jf.denoise(src, os.path.join(tmp, "nested"), backend="cpu")
            except jf.ArgumentError as e:
                nested.append(str(e))

    jf.denoise(src, os.path.join(tmp, "out3"), backend="cpu", progress=starts_another)
    assert nested and "callback" in nested[0] and not os.path.exists(os.path.join(tmp, "nested"))
    reports = []
    threads = [threading.Thread(target=lambda i=i: reports.append(
        jf.denoise(src, os.path.join(tmp, "t%d" % i), backend="cpu", ksize=5))) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [x["summary"]["ok"] for x in reports] == [2, 2, 2]
    with pytest.raises(TypeError, match="progress"):
        jf._jetfilter.job("denoise", [], [], 42)
    # a NUL byte would end the C string early: another file, another value
    with pytest.raises(ValueError, match="an input holds a NUL byte"):
        jf.denoise(os.path.join(src, "rocket.jpg").encode() + b"\0.png", os.path.join(tmp, "nul"))
    with pytest.raises(ValueError, match="an option's value holds a NUL byte"):
        jf.denoise(src, os.path.join(tmp, "nul"), suffix="-a\0b")
    assert not os.path.exists(os.path.join(tmp, "nul"))


def test_ctrl_c_stops_a_batch(tmp):
    """Ctrl-C during an in-process batch: the file in hand finishes, no
    other starts, nothing half-written is left, and KeyboardInterrupt is
    raised once the batch has stopped."""
    import signal
    src = os.path.join(tmp, "in")
    os.makedirs(src)
    for i in range(4):
        shutil.copy(os.path.join(PHOTOS, "chelsea.png"), os.path.join(src, "c%d.png" % i))

    def interrupt(done, total, failed, skipped, mpix, seconds, path):
        if path is not None and done == 1:
            os.kill(os.getpid(), signal.SIGINT)

    # Python leaves SIGINT ignored when it started so (a shell's background
    # job): the test sets the default handler itself
    was = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            jf.denoise(src, os.path.join(tmp, "out"), backend="cpu", jobs=1, progress=interrupt)
    finally:
        signal.signal(signal.SIGINT, was)
    written = os.listdir(os.path.join(tmp, "out"))
    assert len(written) == 1 and not [n for n in written if n.startswith(".")]
    r = jf.denoise(src, os.path.join(tmp, "out"), backend="cpu", skip_existing=True)
    assert (r["summary"]["ok"], r["summary"]["skipped"]) == (3, 1)  # the next batch runs whole


@pytest.mark.skipif(jf.device_count() < 1, reason="no CUDA device")
def test_gpu_batch_in_this_process_writes_what_the_command_writes(tmp):
    """On a GPU: the in-process batch (CUDA filters, the GPU's JPEG codecs)
    writes the bytes the command writes with the same options."""
    src = os.path.join(tmp, "in")
    os.makedirs(src)
    for name in ("rocket.jpg", "chelsea.png", "retina.jpg"):
        if os.path.exists(os.path.join(PHOTOS, name)):
            shutil.copy(os.path.join(PHOTOS, name), src)
    for codec in ("nvjpeg", "cpu"):
        r = jf.denoise(src, os.path.join(tmp, "py-" + codec), backend="cuda", codec=codec,
                       filter="gauss", ksize=7, jobs=2)
        assert r["backend"] == "cuda" and r["summary"]["ok"] == len(os.listdir(src))
        cli("denoise", src, "-o", os.path.join(tmp, "cli-" + codec), "--backend", "cuda",
            "--codec", codec, "--filter", "gauss", "-k", "7", "-j", "2", "--quiet")
        for name in os.listdir(src):
            with open(os.path.join(tmp, "py-" + codec, name), "rb") as a, \
                    open(os.path.join(tmp, "cli-" + codec, name), "rb") as b:
                assert a.read() == b.read(), (codec, name)


def test_file_names_that_are_not_utf8(tmp):
    """denoise() and a Worker take the same names: any bytes a file system
    holds, given as bytes or as str with surrogate escapes."""
    src = os.path.join(tmp.encode(), b"in-\xff")
    os.makedirs(src)
    shutil.copy(os.path.join(PHOTOS, "rocket.jpg").encode(), os.path.join(src, b"r\xe9.jpg"))
    want = jf.denoise(src, os.path.join(tmp.encode(), b"out-\xfe"), backend="cpu")
    assert want["summary"]["ok"] == 1
    assert os.path.isfile(os.path.join(tmp.encode(), b"out-\xfe", b"r\xe9.jpg"))
    with jf.Worker() as w:
        got = w.denoise(os.fsdecode(src), os.fsdecode(os.path.join(tmp.encode(), b"w-\xfe")),
                        backend="cpu")
    assert got["summary"]["ok"] == 1
    assert os.path.isfile(os.path.join(tmp.encode(), b"w-\xfe", b"r\xe9.jpg"))


def test_serve_answers_every_failure_with_its_reason(tmp):
    """serve: the request's log files are checked like any output (never an
    input), a failure's answer says why, an over-long line is refused."""
    import json
    img = os.path.join(tmp, "in.png")
    shutil.copy(os.path.join(PHOTOS, "chelsea.png"), img)
    before = open(img, "rb").read()
    lines = [{"args": ["denoise", img, "-o", os.path.join(tmp, "o"), "-v"], "stderr": img},
             ["denoise", img, "-o", os.path.join(tmp, "o.png"), "--bogus"],
             {"args": ["metrics", img, img], "stdout": "/dev/full"},
             ["denoise", os.path.join(tmp, "nothere.png"), "-o", os.path.join(tmp, "n.png")]]
    text = "".join(json.dumps(x) + "\n" for x in lines) + "[" + "x" * 70000 + "]\n"
    p = subprocess.run([jf._cli.executable(), "serve", "--max-request", "0.05"], input=text.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    answers = [json.loads(x) for x in p.stdout.decode().splitlines()]
    assert [a["exit"] for a in answers] == [2, 2, 1, 1, 2]
    assert "would write over the input" in answers[0]["error"]
    assert "--bogus" in answers[1]["error"]
    assert "standard output" in answers[2]["error"]
    assert "nothere.png" in answers[3]["error"]
    assert "over 0.05 MB" in answers[4]["error"]
    assert open(img, "rb").read() == before


def test_the_command_comes_with_the_package():
    rc, out, _ = cli("-V")
    assert rc == 0 and out.startswith("jetfilter " + jf.__version__)
    exe = shutil.which("jetfilter")
    if exe and os.path.dirname(exe) == os.path.dirname(sys.executable):  # the console script
        assert subprocess.run([exe, "-V"], stdout=subprocess.PIPE).stdout.startswith(b"jetfilter")


def test_stubs_are_what_the_table_makes():
    import jetfilter._stubs as stubs
    with open(os.path.join(os.path.dirname(jf.__file__), "__init__.pyi")) as f:
        assert f.read() == stubs.stubs(), "run: python -m jetfilter._stubs > python/jetfilter/__init__.pyi"


def test_python_3_6_syntax():
    vermin = shutil.which("vermin") or shutil.which("vermin", path=os.path.dirname(sys.executable))
    if vermin is None:
        pytest.skip("vermin is not installed (CI installs it)")
    src = os.path.join(ROOT, "python")
    p = subprocess.run([vermin, "-t=3.6-", "--no-tips", "--violations", "--eval-annotations",
                        os.path.join(src, "jetfilter"), os.path.join(src, "setup.py"), HERE],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    assert p.returncode == 0, p.stdout


def test_dlpack_and_buffer_protocol(cpu):
    img = random_image(30, 20, 3)
    want = jf.median(img, context=cpu)

    class OnlyDLPack(object):
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, stream=None):
            return self.a.__dlpack__()

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    if hasattr(img, "__dlpack__"):
        assert np.array_equal(jf.median(OnlyDLPack(img), context=cpu), want)
        v = jf.from_dlpack(OnlyDLPack(img))
        assert np.array_equal(v, img)

    class OnlyBuffer(object):  # the buffer protocol, through memoryview
        def __init__(self, a):
            self.m = memoryview(a)

        def __buffer__(self, flags):
            return self.m

    buf = bytearray(img.tobytes())
    mv = memoryview(buf).cast("B", shape=list(img.shape))
    assert np.array_equal(jf.median(mv, context=cpu), want)


def test_threads_share_nothing_and_release_the_gil():
    """Eight threads, each with its default context, on different images at
    once: every result as when run alone."""
    imgs = [random_image(301, 257, 3, seed=s) for s in range(8)]
    ref = jf.Context(backend="cpu", threads=1)
    want = [jf.median(i, ksize=7, context=ref) for i in imgs]
    got = [None] * 8

    def work(n):
        for _ in range(3):
            got[n] = jf.median(imgs[n], ksize=7)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(np.array_equal(g, w) for g, w in zip(got, want))


def test_frames_are_numpy_arrays():
    f = jf.frame((48, 64, 3))
    assert isinstance(f, np.ndarray) and f.shape == (48, 64, 3) and f.dtype == np.uint8
    f[:] = random_image(48, 64, 3)
    out = jf.median(f, ksize=3)
    assert np.array_equal(out, jf.median(np.array(f), ksize=3, context=jf.Context(backend="cpu")))
    assert jf.frame((4, 4), dtype="float32").dtype == np.float32
    with pytest.raises(jf.ArgumentError, match="uint8, uint16 or float32"):
        jf.frame((4, 4), dtype="float64")
