"""Hostile callers: producers that lie about their arrays, DLPack capsules
that are broken, parameters of the wrong type, and threads that close a
context while another uses it.  Each is refused with a jetfilter exception
(or a TypeError for a wrong type), never a crash, a leak or a silent
success."""
import ctypes
import threading

import numpy as np
import pytest

import jetfilter as jf
from conftest import random_image


class Iface(object):
    """Any __array_interface__ a producer might hand in."""

    def __init__(self, **fields):
        d = {"shape": (4, 4), "typestr": "|u1", "data": (0, False), "strides": None, "version": 3}
        d.update(fields)
        self.__array_interface__ = d


@pytest.mark.parametrize("fields,words", [
    ({"data": (0, False)}, "NULL"),
    ({"data": None}, "NULL"),
    ({"data": ("0x1000", False)}, "pointer"),
    ({"data": (-5, False)}, "pointer"),
    ({"data": (1 << 70, False)}, "pointer"),
    ({"shape": None}, "shape"),
    ({"shape": (4, -4)}, "negative"),
    ({"shape": (4, 4.0)}, "whole number"),
    ({"shape": (True, 4)}, "whole number"),
    ({"shape": (1 << 40, 4)}, "too large"),
    ({"shape": (4,) * 9}, "dimensions"),
    ({"typestr": "|u4"}, "uint8, uint16 or float32"),
    ({"typestr": "<f8"}, "uint8, uint16 or float32"),
    ({"typestr": "<f2"}, "uint8, uint16 or float32"),
    ({"typestr": "garbage"}, "uint8, uint16 or float32"),
    ({"typestr": None}, "uint8, uint16 or float32"),
    ({"strides": (4, 1, 1)}, "strides"),
    ({"strides": (-4, 1)}, "reversed"),
    ({"strides": (1 << 62, 1), "shape": (8, 4)}, "overflows"),
    ({"mask": object()}, "masked"),
])
def test_lying_array_interfaces(fields, words, cpu):
    buf = np.arange(64, dtype=np.uint8)
    f = {"data": (buf.ctypes.data, False)}
    f.update(fields)
    bad = Iface(**f)
    with pytest.raises(jf.ArgumentError) as e:
        jf.median(bad, context=cpu)
    assert words in str(e.value)


def _numpy_arrays():
    """NumPy arrays of every layout the intake tells apart."""
    base = np.arange(2 * 6 * 5 * 3, dtype=np.uint16).reshape(2 * 6, 5, 3)
    readonly = np.zeros((4, 5), np.uint8)
    readonly.flags.writeable = False
    return [np.zeros((4, 5), np.uint8), base, base[::2], base[:, ::-1], base[:, :, 1], base.T,
            np.asfortranarray(base), base.astype(">u2"), base.astype(np.float32), base.astype(np.float64),
            base.astype(np.int16), readonly, np.zeros((2, 3, 4, 5), np.uint8), np.zeros(7, np.uint8),
            np.zeros((0, 5), np.uint8), np.zeros((3, 2, 9), np.uint8)]


@pytest.mark.parametrize("writable", [False, True])
def test_numpy_arrays_by_struct_as_by_interface(writable):
    """NumPy arrays are read through __array_struct__ (the interface's C
    form, for speed): every layout gets the description, or the refusal,
    that its __array_interface__ gets."""
    from jetfilter import _jetfilter as c
    for x in _numpy_arrays():
        i = x.__array_interface__
        results = []
        for call in (lambda: c.intake_struct("image", writable, x.__array_struct__),
                     lambda: c.intake("image", writable, i["data"][0], i["shape"], i["strides"],
                                      i["typestr"], i["data"][1], c.LOC_HOST, -1)):
            try:
                results.append(call())
            except jf.ArgumentError as e:
                results.append(str(e))
        assert results[0] == results[1], (x.dtype, x.shape, x.strides)


def test_array_struct_that_is_not_numpys_is_refused():
    from jetfilter import _jetfilter as c
    for cap in (None, 5, object(), b"bytes"):
        with pytest.raises(jf.ArgumentError, match="__array_struct__"):
            c.intake_struct("image", False, cap)


def test_out_with_a_null_pointer_is_refused(cpu):
    """It once returned success, wrote nothing and leaked an image a call."""
    img = random_image(30, 20)
    with pytest.raises(jf.ArgumentError, match="out: the array's data pointer is NULL"):
        jf.median(img, out=Iface(shape=(30, 20), data=(0, False)), context=cpu)


def test_uint16_at_an_odd_address_is_refused(cpu):
    raw = np.zeros(2 * 16 + 1, np.uint8)
    bad = Iface(shape=(4, 4), typestr="<u2", data=(raw.ctypes.data + 1, False))
    with pytest.raises(jf.ArgumentError, match="not a multiple of 2"):
        jf.median(bad, context=cpu)


# ---- DLPack capsules made by hand -------------------------------------------------

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", DELETER)]

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class Producer(object):
    """A DLPack producer whose tensor says whatever the test wants; counts
    how often its deleter runs (exactly once, taken or refused)."""

    def __init__(self, array, ndim=None, shape=True, code=1, bits=None, lanes=1, device=1, offset=0):
        self.array = array
        self.deleted = 0
        self._shape = (ctypes.c_int64 * 3)(*(list(array.shape) + [0, 0, 0])[:3])
        t = DLManagedTensor()
        t.dl_tensor.data = array.ctypes.data
        t.dl_tensor.device = DLDevice(device, 0)
        t.dl_tensor.ndim = array.ndim if ndim is None else ndim
        t.dl_tensor.dtype = DLDataType(code, 8 * array.itemsize if bits is None else bits, lanes)
        t.dl_tensor.shape = ctypes.cast(self._shape, ctypes.POINTER(ctypes.c_int64)) if shape else None
        t.dl_tensor.strides = None
        t.dl_tensor.byte_offset = offset

        def deleter(_):
            self.deleted += 1
        self._deleter = DELETER(deleter)
        t.deleter = self._deleter
        self.tensor = t

    def __dlpack_device__(self):
        return (self.tensor.dl_tensor.device.device_type, 0)

    def __dlpack__(self, stream=None):
        return _capsule_new(ctypes.addressof(self.tensor), b"dltensor", None)


@pytest.mark.parametrize("kw,words", [
    ({"shape": False}, "no shape"),
    ({"ndim": -1}, "-1 dimensions"),
    ({"ndim": 7}, "7 dimensions"),
    ({"bits": 4}, "uint4"),
    ({"bits": 64}, "uint8, uint16 or float32"),
    ({"code": 2, "bits": 64}, "<f8"),
    ({"lanes": 4}, "lanes"),
    ({"device": 8}, "device type 8"),
    ({"offset": (1 << 64) - 1}, "NULL"),
])
def test_broken_dlpack_capsules(kw, words, cpu):
    p = Producer(random_image(6, 5), **kw)
    with pytest.raises(jf.ArgumentError) as e:
        jf.median(p, context=cpu)
    assert words in str(e.value)
    assert p.deleted == 1  # the refused tensor is given back, once


def test_a_good_hand_made_capsule(cpu):
    img = random_image(6, 5)
    p = Producer(img)
    out = jf.median(p, context=cpu)
    assert np.array_equal(out, jf.median(img, context=cpu))
    del out
    import gc
    gc.collect()
    assert p.deleted == 1


def test_uint64_through_dlpack_is_refused_not_truncated(cpu):
    a = np.arange(20, dtype=np.uint64).reshape(4, 5)
    if not hasattr(a, "__dlpack__"):
        pytest.skip("NumPy without DLPack")

    class Only(object):  # DLPack alone, no array interface to fall back on
        def __dlpack__(self, stream=None):
            return a.__dlpack__()

        def __dlpack_device__(self):
            return a.__dlpack_device__()
    with pytest.raises(jf.ArgumentError, match="uint8, uint16 or float32"):
        jf.median(Only(), context=cpu)


# ---- parameters typed as the table says -------------------------------------------

@pytest.mark.parametrize("value", ["5", 5.0, True, b"5", None.__class__, [5]])
def test_int_parameters_take_whole_numbers_only(value, cpu):
    with pytest.raises(TypeError, match="ksize"):
        jf.median(random_image(9, 9), ksize=value, context=cpu)


def test_numpy_integers_are_integers(cpu):
    img = random_image(9, 9)
    want = jf.median(img, ksize=5, context=cpu)
    for v in (np.int64(5), np.uint8(5), np.int32(5)):
        assert np.array_equal(jf.median(img, ksize=v, context=cpu), want)
    assert np.array_equal(jf.gauss(img, sigma=np.float32(1.5), context=cpu),
                          jf.gauss(img, sigma=1.5, context=cpu))
    assert np.array_equal(jf.gauss(img, sigma=np.int64(2), context=cpu),
                          jf.gauss(img, sigma=2.0, context=cpu))
    with pytest.raises(jf.ArgumentError, match="ksize"):
        jf.median(img, ksize=np.int64(1) << 40, context=cpu)
    with pytest.raises(TypeError, match="border"):
        jf.median(img, border=1, context=cpu)


def test_block_overflow_is_refused(cpu):
    for block in ("65536x65536", "4x0", "x8", "8x", "-4x8", "4x 8", "99999999999999999999x4"):
        with pytest.raises(jf.ArgumentError, match="block"):
            jf.median(random_image(9, 9), block=block, context=cpu)


# ---- contexts closed under a call --------------------------------------------------

def test_closing_a_context_while_another_thread_calls(cpu):
    """Every call either runs whole or is refused as closed; nothing crashes
    or hangs (it was a use after free)."""
    img = random_image(64, 64, 3)
    for _ in range(30):
        ctx = jf.Context(backend="cpu", threads=1)
        results = []

        def worker():
            for _ in range(20):
                try:
                    jf.median(img, ksize=5, context=ctx)
                    results.append("ok")
                except ValueError as e:
                    assert "closed" in str(e)
                    results.append("closed")
        threads = [threading.Thread(target=worker) for _ in range(3)]
        for t in threads:
            t.start()
        ctx.close()
        for t in threads:
            t.join(30)
            assert not t.is_alive()
        assert len(results) == 60
        with pytest.raises(ValueError, match="closed"):
            jf.median(img, context=ctx)
    with pytest.raises(ValueError, match="closed"):
        ctx.info()
    with pytest.raises(ValueError, match="closed"):
        ctx.sync()
    ctx.close()  # twice is fine


def test_a_context_never_made():
    c = jf.Context.__new__(jf.Context)
    with pytest.raises(ValueError, match="never made"):
        jf.median(random_image(4, 4), context=c)


def test_a_context_goes_before_the_stream_it_holds():
    """A context holding a stream's object (CuPy's, PyTorch's) that only it
    still references is closed, waiting for its work on that stream, before
    the object goes: CPython drops an instance's attributes before it frees
    the C part, which would otherwise wait on a destroyed stream."""
    events = []

    class Recorded(jf.Context):
        def close(self):
            events.append("context closed")
            super().close()

    class StreamObject(object):
        ptr = 0  # the context's own stream: what matters is the order

        def __del__(self):
            events.append("stream gone")

    ctx = Recorded(backend="cpu")
    ctx.set_stream(StreamObject())
    jf.median(np.zeros((8, 8), np.uint8) + 3, context=ctx)
    del ctx
    assert events[:2] == ["context closed", "stream gone"]


def _random_case(rng, cpu, closed):
    """An image, an out= and a context as a careless or hostile caller
    might pass them: odd dtypes and byte orders, views of every layout,
    misaligned and read-only memory, mismatched or aliased outputs (about
    half of each kind as the one step takes them)."""
    def pick(*choices):
        return choices[int(rng.integers(len(choices)))]
    h, w = pick(1, 1, 2, 7, 10, 0, int(rng.integers(1, 11))), pick(1, 3, 8, 11, 0, int(rng.integers(1, 11)))
    shape = (h, w) if rng.random() < 0.5 else (h, w, int(rng.integers(1, 6)))
    dtype = np.dtype(pick(*("u1", "u2", "f4") * 3 + ("f2", ">u2", ">f4", "i2", "u4", "f8", "?")))
    base = rng.integers(0, 256 if dtype.itemsize == 1 else 4096, shape).astype(dtype)
    image = pick(*(lambda a: a,) * 6 + (lambda a: a[::-1], lambda a: a[:, ::2],
                 lambda a: a[1:], lambda a: np.swapaxes(a, 0, 1), lambda a: np.asfortranarray(a),
                 lambda a: np.broadcast_to(a[:1], a.shape), _misaligned, _read_only))(base)
    out = pick(*(lambda: None, lambda: np.empty(image.shape, image.dtype.newbyteorder("="))) * 3,
               lambda: np.empty(image.shape, np.float32), lambda: np.empty(image.shape[:1] + (1,), image.dtype),
               lambda: _read_only(np.empty(image.shape, image.dtype)), lambda: image,
               lambda: np.empty((image.shape[0], 2 * image.shape[1]) + image.shape[2:], image.dtype)[:, ::2],
               lambda: _misaligned(np.empty(image.shape, image.dtype)), lambda: image.tolist())()
    return image, out, pick(cpu, cpu, cpu, None, object(), closed)


def _misaligned(a):
    """a's samples one byte past an aligned address (the same values)."""
    raw = bytearray(a.nbytes + 1)
    m = np.ndarray(a.shape, a.dtype, buffer=raw, offset=1)
    m[...] = a
    return m


def _read_only(a):
    a = np.array(a)
    a.flags.writeable = False
    return a


def test_the_one_step_call_on_random_arrays(cpu):
    """Two thousand seeded calls of the one step (fast()) with what careless
    and hostile callers pass: it takes a call only where its result is the
    Python path's on a clean copy (into out= when given), and declines the
    rest before touching anything; the Python path then gives a result or
    a clear error, never a crash."""
    from jetfilter import _ops
    c = jf._jetfilter
    ops = {o["name"]: o for o in c.ops()}
    closed = jf.Context(backend="cpu")
    closed.close()
    rng = np.random.default_rng(2026)
    taken = declined = 0
    for case in range(2000):
        name, k = [("median", 3), ("median", 5), ("median", 1), ("box", 3), ("erode", 3)][case % 5]
        values = (("ksize", k),)
        p = _ops.plan(name, values, (None,))
        image, out, context = _random_case(rng, cpu, closed)
        before = np.array(image, copy=True)
        out_before = np.array(out, copy=True) if isinstance(out, np.ndarray) else None
        try:
            r = c.fast(p, image, out, context)
        except (jf.Error, TypeError, ValueError) as e:  # what the Python path says too
            with pytest.raises(type(e)):
                _ops.run_filter(ops[name], image, out, context, None, values, (None,))
            r = NotImplemented
        if r is NotImplemented:
            declined += 1
            assert np.array_equal(np.asarray(image), before, equal_nan=True), case
            if out_before is not None:
                assert np.array_equal(out, out_before, equal_nan=True), case
            try:
                _ops.run_filter(ops[name], image, out, context, None, values, (None,))
            except (jf.Error, TypeError, ValueError):
                pass
            continue
        taken += 1
        assert context is cpu or context is None, case
        # the same context (None: the thread's default, the GPU where there is one)
        want = _ops.run_filter(ops[name], np.array(before), None, context, None, values, (None,))
        assert isinstance(r, np.ndarray) and r.dtype == want.dtype and r.shape == want.shape, case
        assert np.array_equal(r, want, equal_nan=True), case
        if out is not None:
            assert r is out, case
        elif not np.shares_memory(r, image):
            assert np.array_equal(np.asarray(image), before, equal_nan=True), case
    assert taken > 150 and declined > 1000, (taken, declined)
    # one row reversed: a dimension of size 1 never steps, so NumPy calls it
    # dense, and so does the intake (it once sent the Python path round its
    # dense copy for ever)
    row = random_image(1, 9, 3)[::-1]
    p = _ops.plan("median", (("ksize", 3),), (None,))
    assert np.array_equal(c.fast(p, row, None, cpu), jf.median(np.array(row), context=cpu))
    assert np.array_equal(_ops.run_filter(ops["median"], row, None, cpu, None, (("ksize", 3),), (None,)),
                          jf.median(np.array(row), context=cpu))
