"""Every way in which an array or an argument can be wrong: refused with a
jetfilter exception naming what is wrong, before anything runs, and the
exception classes one per library status."""
import numpy as np
import pytest

import jetfilter as jf
from conftest import random_image


def test_exception_classes():
    assert issubclass(jf.ArgumentError, jf.Error) and issubclass(jf.ArgumentError, ValueError)
    assert issubclass(jf.FileError, OSError) and issubclass(jf.DecodeError, ValueError)
    assert issubclass(jf.OutOfMemoryError, MemoryError)
    assert issubclass(jf.NoDeviceError, jf.Error) and issubclass(jf.CudaError, RuntimeError)
    names = {c.__name__ for c in (jf.ArgumentError, jf.FileError, jf.DecodeError, jf.EncodeError,
                                  jf.UnsupportedError, jf.LimitError, jf.OutOfMemoryError,
                                  jf.CudaError, jf.NoDeviceError, jf.InternalError)}
    assert len(names) == 10


@pytest.mark.parametrize("bad,words", [
    (np.zeros((4, 4), np.float64) + 1, "uint8, uint16 or float32"),
    (np.zeros((4, 4), np.int16) + 1, "uint8, uint16 or float32"),
    (np.zeros((4, 4, 5), np.uint8) + 1, "5 channels"),
    (np.zeros((4,), np.uint8) + 1, "1 dimensions"),
    (np.zeros((2, 4, 4, 3), np.uint8) + 1, "4 dimensions"),
    (np.zeros((0, 4), np.uint8), "empty"),
    (np.arange(60, dtype=">u2").reshape(6, 10), "big-endian"),
    ("not an image", "not an image"),
    ([[1, 2], [3, 4]], "uint8, uint16 or float32"),
    (b"bytes", "not an image"),
])
def test_bad_arrays(bad, words, cpu):
    with pytest.raises(jf.ArgumentError) as e:
        jf.median(bad, context=cpu)
    assert words in str(e.value)


def test_bad_out(cpu):
    img = random_image(20, 10, 3)
    with pytest.raises(jf.ArgumentError, match="shape"):
        jf.median(img, out=np.empty((20, 11, 3), np.uint8), context=cpu)
    with pytest.raises(jf.ArgumentError, match="uint16"):
        jf.median(img, out=np.empty((20, 10, 3), np.uint16), context=cpu)
    ro = np.empty_like(img)
    ro.flags.writeable = False
    with pytest.raises(jf.ArgumentError, match="read-only"):
        jf.median(img, out=ro, context=cpu)


@pytest.mark.parametrize("call,words", [
    (lambda a, c: jf.median(a, ksize=4, context=c), "ksize 4"),
    (lambda a, c: jf.median(a, ksize=257, context=c), "ksize 257"),
    (lambda a, c: jf.median(a, border="wrap", context=c), "border"),
    (lambda a, c: jf.median(a, variant="fastest", context=c), "variant"),
    (lambda a, c: jf.median(a, block="33x8", context=c), "block"),
    (lambda a, c: jf.gauss(a, sigma=100.0, context=c), "sigma"),
    (lambda a, c: jf.conv(a, context=c), "weights"),
    (lambda a, c: jf.conv(a, weights=np.ones((2, 2)), context=c), "odd"),
    (lambda a, c: jf.conv(a, weights=np.ones((3, 4)), context=c), "k x k"),
    (lambda a, c: jf.conv(a, kernel="/nonexistent/k.txt", context=c), "nonexistent"),
    (lambda a, c: jf.salt_pepper(a, density=1.5, context=c), "density"),
])
def test_bad_parameters_carry_the_librarys_message(call, words, cpu):
    with pytest.raises((jf.ArgumentError, jf.FileError)) as e:
        call(random_image(9, 9), cpu)
    assert words in str(e.value)


def test_unknown_keyword_is_a_type_error():
    with pytest.raises(TypeError, match="ksz"):
        jf.median(random_image(3, 3), ksz=3)
    with pytest.raises(TypeError):
        jf.median(random_image(3, 3), 5)  # parameters are keywords


def test_device_arrays_need_a_gpu(cpu):
    """An object that says it is GPU memory: a CPU context refuses it by name,
    and with no GPU the default context says why."""
    class Fake(object):
        __cuda_array_interface__ = {"shape": (4, 4), "typestr": "|u1", "data": (0x7f0000000000, False),
                                    "version": 3, "strides": None, "stream": 1}
    with pytest.raises(jf.ArgumentError, match="context runs on the CPU"):
        jf.median(Fake(), context=cpu)
    if jf.device_count() == 0:
        with pytest.raises(jf.NoDeviceError):
            jf.median(Fake())
    ro = dict(Fake.__cuda_array_interface__, data=(0x7f0000000000, True))
    out = type("RO", (), {"__cuda_array_interface__": ro})()
    with pytest.raises(jf.ArgumentError, match="read-only"):
        jf.median(random_image(4, 4), out=out, context=cpu)


def test_metrics_want_two_alike(cpu):
    with pytest.raises(jf.ArgumentError):
        jf.psnr(random_image(8, 8), random_image(8, 9), context=cpu)
    with pytest.raises(jf.ArgumentError):
        jf.psnr(random_image(8, 8), random_image(8, 8, 3), context=cpu)


def test_files(tmp):
    import os
    with pytest.raises(jf.FileError, match="nothing_here.png"):
        jf.read(os.path.join(tmp, "nothing_here.png"))
    bad = os.path.join(tmp, "bad.jpg")
    with open(bad, "wb") as f:
        f.write(b"\xff\xd8\xff\xe0 this is no JPEG")
    with pytest.raises(jf.DecodeError, match="bad.jpg"):
        jf.read(bad)
    with pytest.raises(jf.ArgumentError, match="jpeg, png, tiff, webp or pfm"):
        jf.write(os.path.join(tmp, "x.gif"), random_image(4, 4))
    with pytest.raises(jf.FileError):
        jf.write(os.path.join(tmp, "no", "such", "folder", "x.png"), random_image(4, 4))
    assert not os.path.exists(os.path.join(tmp, "x.tif"))


def test_contexts(cpu):
    assert cpu.backend == "cpu" and cpu.stream == 0 and not cpu.is_cuda
    with pytest.raises(jf.ArgumentError):
        jf.Context(backend="gpu")
    with pytest.raises(jf.ArgumentError):
        jf.Context(memory="paged")
    with pytest.raises(jf.NoDeviceError if jf.device_count() == 0 else jf.Error):
        jf.Context(backend="cuda", device=99)
    with jf.Context(backend="cpu", threads=1) as c:
        assert jf.median(random_image(5, 5), context=c).shape == (5, 5)
    with pytest.raises(ValueError, match="closed"):
        jf.median(random_image(5, 5), context=c)
    with pytest.raises(TypeError):
        jf.median(random_image(5, 5), context="cpu")
