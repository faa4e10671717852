"""Arrays in and out without copies: reading NumPy, CuPy, PyTorch, DLPack
and any __array_interface__ / __cuda_array_interface__ producer into the
C library's image descriptions, and making the outputs.

An image is (H, W) or (H, W, C), uint8, uint16 or float32, channels
interleaved (float16 goes through a float32 copy and comes back float16);
rows may be padded (a row stride larger than W * C * itemsize) and are read
in place.  Other views of NumPy, CuPy and PyTorch arrays (every other
column, one channel of three, reversed, Fortran order) go through a dense
copy made by their own library, and an out= of that kind is written there
and copied back.  Host arrays stay where they are; device arrays are used
in place on the stream their producer works on.
"""
import sys

from . import _jetfilter as _c

_TYPESTR = {0: "|u1", 1: "<u2", 2: "<f4"}       # jf_sample -> typestr
_ITEMSIZE = {0: 1, 1: 2, 2: 4}
DTYPE_NAMES = {0: "uint8", 1: "uint16", 2: "float32"}
_DLPACK_CODE = {0: 1, 1: 1, 2: 2}                # kDLUInt, kDLFloat

try:  # NumPy makes host outputs and reads the buffer protocol
    import numpy as _np
except ImportError as e:  # pragma: no cover - a requirement of the package
    raise ImportError("jetfilter needs NumPy (pip install numpy, or apt-get install python3-numpy): %s" % e)


class Image(object):
    """One image as the C library sees it, and what keeps its memory alive."""

    __slots__ = ("spec", "shape", "sample", "location", "device", "stream", "owner", "kind", "module",
                 "stream_owner", "staged_for", "half")

    def __init__(self, spec, shape, sample, location, device, stream, owner, kind, module=None):
        self.spec = spec          # (ptr, location, width, height, channels, stride, sample, device)
        self.shape = shape        # (H, W) or (H, W, C)
        self.sample = sample
        self.location = location
        self.device = device      # CUDA device, or -1 on the host
        self.stream = stream      # the producer's stream (int), or None
        self.owner = owner        # the object whose memory this is
        self.kind = kind          # "numpy", "cupy", "torch", "cuda", "dlpack", "jetfilter"
        self.module = module      # the producer's module, to make outputs alike
        self.stream_owner = None  # the stream's object, kept alive while it is in use
        self.staged_for = None    # an out= view this dense copy is copied back into (finish)
        self.half = False         # a float32 copy of a float16 array (outputs go back to float16)

    @property
    def on_device(self):
        """Memory only the GPU reads (NumPy cannot)."""
        return self.location == _c.LOC_DEVICE

    @property
    def dtype_name(self):
        return "float16" if self.half else DTYPE_NAMES[self.sample]


def _fail(message):
    raise _c.ArgumentError(message)


def _intake(what, writable, data, shape, strides, dtype, readonly, location, device):
    """The one checked description of an array (the extension's intake):
    a NULL pointer, a lying shape or strides, a dtype other than uint8 or
    uint16, a read-only out= are refused there, naming `what`."""
    spec = _c.intake(what, writable, data, shape, strides, dtype, readonly, location, device)
    return spec, spec[6]


def _framework(obj):
    mod = type(obj).__module__.split(".")[0]
    return mod if mod in ("cupy", "torch", "numpy") else None


def _declared_device(obj):
    dev = getattr(obj, "device", None)
    for attr in ("id", "index"):
        n = getattr(dev, attr, None)
        if isinstance(n, int):
            return n
    return None


def _device_of(obj, ptr):
    """The CUDA device of a device array: asked of its framework, else of CUDA."""
    dev = getattr(obj, "device", None)
    for attr in ("id", "index"):  # cupy.cuda.Device.id, torch.device.index
        n = getattr(dev, attr, None)
        if isinstance(n, int):
            return n
    return _c.memory_locate(ptr)[1]


def describe(obj, writable=False, what="image"):
    """The Image of any array-like; nothing is copied."""
    if isinstance(obj, Image):
        return obj
    if isinstance(obj, (str, bytes)):
        _fail("%s: a %s is not an image array" % (what, type(obj).__name__))
    fast = _FAST[type(obj)]
    if fast is not None:
        img = fast(obj, writable, what)
        if img is not None:
            return img
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        ptr, readonly, shape, strides, typestr = _interface_fields(cai, what)
        fw = _framework(obj)
        if not isinstance(ptr, int) or ptr == 0:
            loc, dev = _c.LOC_DEVICE, 0  # refused by the intake
        elif fw in ("cupy", "torch"):  # device memory of a known device: no question to CUDA
            loc, dev = _c.LOC_DEVICE, _device_of(obj, ptr)
        else:
            loc, dev = _c.memory_locate(ptr)
            if loc == _c.LOC_HOST:
                loc = _c.LOC_DEVICE  # memory CUDA does not know: trust the producer
            said = _declared_device(obj)
            if said is not None:
                dev = said  # the producer says which GPU
            elif dev < 0:
                dev = 0  # unknown: the current device
        spec, sample = _intake(what, writable, ptr, shape, strides, typestr, readonly, loc, dev)
        stream = cai.get("stream") if cai.get("version", 0) >= 3 else None
        if stream is not None and (not isinstance(stream, int) or isinstance(stream, bool) or stream < 0):
            _fail("%s: __cuda_array_interface__ stream %r is not a stream" % (what, stream))
        if stream is None:
            # no stream said (PyTorch's interface is version 2): its current
            # stream, else the legacy default stream, which others sync with
            if fw == "torch":
                stream = sys.modules["torch"].cuda.current_stream(dev).cuda_stream or 1
            else:
                stream = 1
        return Image(spec, tuple(shape), sample, loc, dev, stream, obj,
                     "jetfilter" if isinstance(obj, DeviceArray) else fw or "cuda",
                     sys.modules.get(fw or "", None))
    ai = getattr(obj, "__array_interface__", None)
    if ai is None and hasattr(obj, "__dlpack__"):
        return _from_dlpack(obj, writable, what)
    if ai is None:
        try:
            obj = _np.asarray(obj)  # the buffer protocol, without a copy
        except Exception:
            _fail("%s: %s is not an image array" % (what, type(obj).__name__))
        if obj.dtype == object:
            _fail("%s: not an image array" % what)
        ai = obj.__array_interface__
    ptr, readonly, shape, strides, typestr = _interface_fields(ai, what)
    spec, sample = _intake(what, writable, ptr, shape, strides, typestr, readonly, _c.LOC_HOST, -1)
    return Image(spec, tuple(shape), sample, _c.LOC_HOST, -1, None, obj, "numpy", _np)


def _interface_fields(iface, what):
    """(ptr, readonly, shape, strides, typestr) of an array interface dict,
    as the producer gave them (the intake checks them)."""
    if not isinstance(iface, dict):
        _fail("%s: the array interface is not a dict" % what)
    data = iface.get("data")
    if isinstance(data, tuple) and len(data) == 2:
        ptr, readonly = data
    elif data is None and "data" in iface:
        ptr, readonly = 0, False
    else:
        _fail("%s: the array interface's data is not (pointer, read-only)" % what)
    if iface.get("mask") is not None:
        _fail("%s: masked arrays are not taken" % what)
    return ptr, bool(readonly), iface.get("shape"), iface.get("strides"), iface.get("typestr")


def locate_host(img):
    """A host image in memory the GPU addresses (jetfilter.frame: managed or
    mapped) is given to the GPU in place; asked of CUDA only for CUDA work."""
    loc, dev = _c.memory_locate(img.spec[0])
    if loc in (_c.LOC_MANAGED, _c.LOC_MAPPED):
        img.spec = (img.spec[0], loc) + img.spec[2:7] + (dev,)
        img.location, img.device = loc, dev
    return img


# the intake's words for a layout the kernels cannot read in place
_LAYOUT_REFUSALS = ("must be dense", "a reversed view")


def _is_half(x):
    return str(getattr(x, "dtype", "")) in ("float16", "torch.float16")


def _half_staged(x, writable, what, as_float32, empty_float32):
    """A float16 array through a float32 copy: the image's values (exact),
    or for an out= an empty float32 array that finish() rounds back into it."""
    if writable and _readonly(x):
        _fail("%s: a read-only array" % what)
    img = describe(empty_float32(x) if writable else as_float32(x), writable, what)
    img.half = True
    if writable:
        img.staged_for = x
    return img


def _staged(x, writable, what, error, dense_copy, dense_empty):
    """A view whose pixels are not dense rows (refused by the intake with
    `error`), through a dense copy its own library makes: the copy for an
    image, an empty array for an out= (finish() copies the result back).
    Anything else the intake refused stays refused."""
    if not any(words in str(error) for words in _LAYOUT_REFUSALS):
        raise error
    if writable and _readonly(x):
        _fail("%s: a read-only array" % what)
    img = describe(dense_empty(x) if writable else dense_copy(x), writable, what)
    if writable:
        img.staged_for = x
    return img


def as_half(arr):
    """A float32 result as float16, by its own library."""
    if type(arr).__module__.split(".")[0] == "torch":
        return arr.half()
    return arr.astype("float16")


def _readonly(x):
    flags = getattr(x, "flags", None)
    return flags is not None and getattr(flags, "writeable", True) is False


def finish(img):
    """After the work on an out= that went through a dense copy: the result
    copied back into the caller's view, by its own library (on its stream
    for device arrays, after the work queued there)."""
    view = img.staged_for
    if view is None:
        return
    if img.half and img.kind == "numpy":
        _np.copyto(view, img.owner, casting="unsafe")  # rounded to float16
    elif img.kind == "torch":
        view.copy_(img.owner)
    elif img.kind == "cupy":
        view[...] = img.owner
    else:
        _np.copyto(view, img.owner)


def _numpy_image(x, writable, what):
    """NumPy arrays from their attributes (cheaper than the interface dict)."""
    if x.dtype.char == "e":  # float16
        return _half_staged(x, writable, what, lambda v: v.astype(_np.float32),
                            lambda v: _np.empty(v.shape, _np.float32))
    try:  # the interface's C form: NumPy builds it far faster than the dict
        spec = _c.intake_struct(what, writable, x.__array_struct__)
        sample = spec[6]
    except _c.ArgumentError as e:
        return _staged(x, writable, what, e, _np.ascontiguousarray, lambda v: _np.empty(v.shape, v.dtype))
    return Image(spec, x.shape, sample, _c.LOC_HOST, -1, None, x, "numpy", _np)


def _cupy_image(x, writable, what):
    """CuPy arrays without building their interface dict (the call's cost)."""
    data, cupy = x.data, sys.modules["cupy"]
    dev = data.device_id
    if x.dtype.char == "e":  # float16
        with cupy.cuda.Device(dev):
            return _half_staged(x, writable, what, lambda v: v.astype(cupy.float32),
                                lambda v: cupy.empty(v.shape, cupy.float32))
    try:
        spec, sample = _intake(what, writable, data.ptr, x.shape, x.strides, x.dtype.str, False,
                               _c.LOC_DEVICE, dev)
    except _c.ArgumentError as e:
        with cupy.cuda.Device(dev):
            return _staged(x, writable, what, e, cupy.ascontiguousarray,
                           lambda v: cupy.empty(v.shape, v.dtype))
    stream = cupy.cuda.get_current_stream()
    img = Image(spec, x.shape, sample, _c.LOC_DEVICE, dev, stream.ptr or 1, x, "cupy", cupy)
    img.stream_owner = stream  # held while the context uses the stream
    return img


_TORCH_TYPESTR = {"torch.uint8": "|u1", "torch.uint16": "=u2", "torch.float32": "=f4"}


def _torch_image(t, writable, what):
    torch = sys.modules["torch"]
    if not t.is_cuda:
        return describe(t.numpy(), writable, what)  # host tensors: through NumPy, no copy
    isz = t.element_size()
    dev = t.device.index or 0
    if _is_half(t):
        return _half_staged(t, writable, what, lambda v: v.float(),
                            lambda v: torch.empty(tuple(v.shape), dtype=torch.float32, device=v.device))
    try:
        spec, sample = _intake(what, writable, t.data_ptr(), tuple(t.shape),
                               tuple(st * isz for st in t.stride()),
                               _TORCH_TYPESTR.get(str(t.dtype), str(t.dtype)), False, _c.LOC_DEVICE, dev)
    except _c.ArgumentError as e:
        return _staged(t, writable, what, e, lambda v: v.contiguous(),
                       lambda v: torch.empty(tuple(v.shape), dtype=v.dtype, device=v.device))
    stream = torch.cuda.current_stream(dev)
    img = Image(spec, tuple(t.shape), sample, _c.LOC_DEVICE, dev, stream.cuda_stream or 1, t,
                "torch", torch)
    img.stream_owner = stream
    return img


class _Fast(dict):
    """type -> a describer that reads the array's attributes directly: the
    two libraries users hand in most, found the first time one is seen
    (a lookup after that is the dict's own)."""

    def __missing__(self, t):
        mod = t.__module__.split(".")[0]
        f = None
        if mod == "cupy" and t.__name__ == "ndarray":
            f = _cupy_image
            cupy = sys.modules["cupy"]
            _c.fast_cupy(t, cupy.cuda.get_current_stream, cupy.empty, cupy.cuda.runtime.getDevice)
        elif t is _np.ndarray:
            f = _numpy_image
        elif mod == "torch" and t.__name__ in ("Tensor", "Parameter"):
            f = _torch_image
            torch = sys.modules["torch"]
            if t is torch.Tensor and torch.cuda.is_available():
                # the current stream's handle as a number where PyTorch
                # gives it so (no Stream object a call), else its Stream
                raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
                _c.fast_torch(t, (torch.uint8, getattr(torch, "uint16", None), torch.float32),
                              raw or torch.cuda.current_stream)
        self[t] = f
        return f


_FAST = _Fast()


def _from_dlpack(obj, writable, what):
    try:
        dev_type, dev_id = obj.__dlpack_device__()
    except Exception as e:  # a producer without __dlpack_device__, or a broken one
        _fail("%s: __dlpack_device__() failed: %s" % (what, e))
    if dev_type == 2:  # CUDA: the producer orders its work before the legacy default stream
        capsule = obj.__dlpack__(stream=1)
    else:
        capsule = obj.__dlpack__()
    holder, spec, shape = _c.from_dlpack_capsule(capsule, what, writable)
    loc, dev = spec[1], spec[7]
    return Image(spec, shape, spec[6], loc, dev, 1 if loc == _c.LOC_DEVICE else None, (holder, obj),
                 "dlpack")


def stream_of(stream):
    """A stream argument as a cudaStream_t: an int, or CuPy's, PyTorch's or
    Numba's stream objects."""
    if stream is None or isinstance(stream, int):
        return stream
    for attr in ("ptr", "cuda_stream", "handle"):
        v = getattr(stream, attr, None)
        if v is not None:
            return int(getattr(v, "value", v) or 0)
    _fail("stream: %r is not a CUDA stream (an int, or a CuPy, PyTorch or Numba stream)" % (stream,))


class _HostView(object):
    """__array_interface__ over memory a Buffer owns, for NumPy."""

    __slots__ = ("__array_interface__", "buffer")

    def __init__(self, buffer, spec, shape):
        ptr, _, w, h, c, stride, sample, _ = spec
        self.buffer = buffer
        itemsize = _ITEMSIZE[sample]
        strides = (stride, c * itemsize, itemsize) if len(shape) == 3 else (stride, itemsize)
        self.__array_interface__ = {"shape": tuple(shape), "typestr": _TYPESTR[sample],
                                    "data": (ptr, False), "strides": strides, "version": 3}


def host_array(buffer, spec, shape):
    """A NumPy array over memory a Buffer owns (it lives as long as the array)."""
    return _np.asarray(_HostView(buffer, spec, shape))


class DeviceArray(object):
    """An image in GPU memory that jetfilter allocated (or a view of another
    producer's, from_dlpack): it exposes __cuda_array_interface__ (v3) and
    DLPack, so cupy.asarray(x), torch.as_tensor(x, device="cuda") and
    torch.from_dlpack(x) take it without a copy, ordered after the work
    that wrote it."""

    __slots__ = ("_owner", "_spec", "shape", "dtype", "device", "_context", "__weakref__")

    def __init__(self, owner, spec, shape, context):
        self._owner = owner      # what keeps the memory (a Buffer, a DLPack holder)
        self._spec = spec
        self.shape = tuple(shape)
        self.dtype = DTYPE_NAMES[spec[6]]
        self.device = spec[7]
        self._context = context  # the work that writes it queues there (None: a view)

    @property
    def ptr(self):
        return self._spec[0]

    @property
    def strides(self):
        _, _, w, h, c, stride, sample, _ = self._spec
        isz = _ITEMSIZE[sample]
        return (stride, c * isz, isz) if len(self.shape) == 3 else (stride, isz)

    @property
    def __cuda_array_interface__(self):
        stream = self._context.stream if self._context is not None else 0
        return {"shape": self.shape, "typestr": _TYPESTR[self._spec[6]], "data": (self.ptr, False),
                "strides": self.strides, "version": 3, "stream": stream or None}

    def __dlpack_device__(self):
        return (2, self.device)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        if copy:
            raise BufferError("jetfilter.DeviceArray: DLPack with a copy is not offered")
        if stream is not None and stream != -1 and self._context is not None:
            # the consumer's stream waits for the work that wrote this (no host wait)
            self._context.order(stream)
        isz = _ITEMSIZE[self._spec[6]]
        return _c.to_dlpack_capsule(self, self.ptr, 2, self.device, self.shape,
                                    tuple(s // isz for s in self.strides), 8 * isz,
                                    _DLPACK_CODE[self._spec[6]])

    def copy_to_host(self):
        """A NumPy copy (waits for the work that writes it)."""
        from ._context import default_context
        out = _np.empty(self.shape, self.dtype)
        ctx = self._context or default_context(self.device)
        _c.copy(ctx, self._spec, describe(out, True).spec)
        return out

    def __repr__(self):
        return "jetfilter.DeviceArray(shape=%s, dtype=%s, device=%d)" % (self.shape, self.dtype, self.device)


def empty_like(img, shape, sample, context):
    """An output beside `img`: a NumPy array for host images, and for device
    images an array of the producer's own kind (CuPy for CuPy, PyTorch for
    PyTorch: their allocators cache, so a loop allocates nothing after its
    first frame) or else a jetfilter.DeviceArray."""
    dtype = DTYPE_NAMES[sample]
    if img.location in (_c.LOC_HOST, _c.LOC_MAPPED, _c.LOC_MANAGED):
        if img.location != _c.LOC_HOST:  # a shared frame in: a shared frame out
            from . import frame
            return frame(shape, dtype, context=context)
        return _np.empty(shape, dtype)
    if img.kind == "cupy" and img.module is not None:
        with img.module.cuda.Device(img.device):
            return img.module.empty(shape, dtype)
    if img.kind == "torch" and img.module is not None and sample in (0, 2):
        return img.module.empty(shape, dtype=img.module.uint8 if sample == 0 else img.module.float32,
                                device="cuda:%d" % img.device)
    h, w = shape[0], shape[1]
    c = shape[2] if len(shape) == 3 else 1
    buf = _c.alloc(context, w, h, c, sample, _c.LOC_DEVICE)
    return DeviceArray(buf, buf.image(), shape, context)
