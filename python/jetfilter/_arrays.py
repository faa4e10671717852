"""Arrays in and out without copies: reading NumPy, CuPy, PyTorch, DLPack
and any __array_interface__ / __cuda_array_interface__ producer into the
C library's image descriptions, and making the outputs.

An image is (H, W) or (H, W, C), uint8 or uint16, channels interleaved;
rows may be padded (a row stride larger than W * C * itemsize), the rest
must be dense.  Host arrays stay where they are; device arrays are used in
place on the stream their producer works on.
"""
import sys

from . import _jetfilter as _c

_SAMPLES = {("u", 1): 0, ("u", 2): 1}           # (kind, itemsize) -> jf_sample
_TYPESTR = {0: "|u1", 1: "<u2"}                  # jf_sample -> typestr
_ITEMSIZE = {0: 1, 1: 2}
_LITTLE = sys.byteorder == "little"

try:  # NumPy makes host outputs and reads the buffer protocol; it is optional
    import numpy as _np
except ImportError:  # pragma: no cover - the tests run with NumPy
    _np = None


class Image(object):
    """One image as the C library sees it, and what keeps its memory alive."""

    __slots__ = ("spec", "shape", "sample", "location", "device", "stream", "owner", "kind", "module",
                 "stream_owner")

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

    @property
    def on_device(self):
        """Memory only the GPU reads (NumPy cannot)."""
        return self.location == _c.LOC_DEVICE

    @property
    def dtype_name(self):
        return "uint8" if self.sample == 0 else "uint16"


def _fail(message):
    raise _c.ArgumentError(message)


def _sample_of(typestr, what):
    if not isinstance(typestr, str) or len(typestr) < 3:
        _fail("%s: unreadable type %r" % (what, typestr))
    order, kind, size = typestr[0], typestr[1], int(typestr[2:])
    sample = _SAMPLES.get((kind, size))
    if sample is None:
        _fail("%s: dtype %s is not taken: uint8 or uint16 images" % (what, typestr))
    if size > 1 and (order == ">" or (order == "=" and not _LITTLE)):
        _fail("%s: big-endian uint16: convert it to the machine's order (astype('<u2'))" % what)
    return sample


def _layout(shape, strides, itemsize, what):
    """(width, height, channels, row stride in bytes) of an image whose
    pixels are dense and interleaved; rows may be padded."""
    n = len(shape)
    if n == 2:
        h, w = shape
        c = 1
    elif n == 3:
        h, w, c = shape
    else:
        _fail("%s: %d dimensions; want (H, W) or (H, W, C)" % (what, n))
    if not 1 <= c <= 4:
        _fail("%s: %d channels; want 1 to 4 (grey, grey+alpha, RGB, RGBA or CMYK)" % (what, c))
    if h < 1 or w < 1:
        _fail("%s: an empty image (%s)" % (what, "x".join(str(x) for x in shape)))
    row = w * c * itemsize
    if strides is None:
        return w, h, c, row
    if not ((n == 2 or c == 1 or strides[2] == itemsize) and
            (w == 1 or strides[1] == c * itemsize) and
            (h == 1 or (strides[0] >= row and strides[0] % itemsize == 0))):
        _fail("%s: strides %s: the pixels of a row must be dense and interleaved (rows may be "
              "padded); make it contiguous first" % (what, tuple(strides)))
    return w, h, c, strides[0] if h > 1 else row


def _host_spec(ptr, shape, strides, typestr, location, device, what):
    sample = _sample_of(typestr, what)
    w, h, c, stride = _layout(shape, strides, _ITEMSIZE[sample], what)
    return (ptr, location, w, h, c, stride, sample, device), sample


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
    fast = _FAST.get(type(obj))
    if fast is not None:
        img = fast(obj, writable, what)
        if img is not None:
            return img
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        ptr, readonly = cai["data"]
        if writable and readonly:
            _fail("%s: a read-only device array cannot be written" % what)
        if ptr == 0:
            _fail("%s: a device array with no memory" % what)
        fw = _framework(obj)
        if fw in ("cupy", "torch"):  # device memory of a known device: no question to CUDA
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
        spec, sample = _host_spec(ptr, cai["shape"], cai.get("strides"), cai["typestr"], loc, dev, what)
        stream = cai.get("stream") if cai.get("version", 0) >= 3 else None
        if stream is None:
            # no stream said (PyTorch's interface is version 2): its current
            # stream, else the legacy default stream, which others sync with
            if fw == "torch":
                stream = sys.modules["torch"].cuda.current_stream(dev).cuda_stream or 1
            else:
                stream = 1
        return Image(spec, tuple(cai["shape"]), sample, loc, dev, stream, obj,
                     "jetfilter" if isinstance(obj, DeviceArray) else fw or "cuda",
                     sys.modules.get(fw or "", None))
    ai = getattr(obj, "__array_interface__", None)
    if ai is None and hasattr(obj, "__dlpack__"):
        return _from_dlpack(obj, writable, what)
    if ai is None:
        if _np is None:
            _fail("%s: %s has neither __array_interface__ nor __cuda_array_interface__ "
                  "(install NumPy for the buffer protocol)" % (what, type(obj).__name__))
        try:
            obj = _np.asarray(obj)  # the buffer protocol, without a copy
        except Exception:
            _fail("%s: %s is not an image array" % (what, type(obj).__name__))
        if obj.dtype == object:
            _fail("%s: not an image array" % what)
        ai = obj.__array_interface__
    ptr, readonly = ai["data"]
    if writable and readonly:
        _fail("%s: a read-only array cannot be written (out= must be writable)" % what)
    spec, sample = _host_spec(ptr, ai["shape"], ai.get("strides"), ai["typestr"], _c.LOC_HOST, -1,
                              what)
    return Image(spec, tuple(ai["shape"]), sample, _c.LOC_HOST, -1, None, obj, "numpy", _np)


def locate_host(img):
    """A host image in memory the GPU addresses (jetfilter.frame: managed or
    mapped) is given to the GPU in place; asked of CUDA only for CUDA work."""
    loc, dev = _c.memory_locate(img.spec[0])
    if loc in (_c.LOC_MANAGED, _c.LOC_MAPPED):
        img.spec = (img.spec[0], loc) + img.spec[2:7] + (dev,)
        img.location, img.device = loc, dev
    return img


def _numpy_image(x, writable, what):
    """NumPy arrays from their attributes (cheaper than the interface dict)."""
    dt = x.dtype
    if dt.kind != "u" or dt.itemsize > 2 or (dt.itemsize == 2 and dt.byteorder == (">" if _LITTLE else "<")):
        return None  # the general path says what is wrong
    if writable and not x.flags.writeable:
        _fail("%s: a read-only array cannot be written (out= must be writable)" % what)
    w, h, c, stride = _layout(x.shape, x.strides, dt.itemsize, what)
    sample = dt.itemsize - 1
    spec = (x.__array_interface__["data"][0], _c.LOC_HOST, w, h, c, stride, sample, -1)
    return Image(spec, x.shape, sample, _c.LOC_HOST, -1, None, x, "numpy", _np)


def _cupy_image(x, writable, what):
    """CuPy arrays without building their interface dict (the call's cost)."""
    if x.dtype.kind != "u" or x.dtype.itemsize > 2:
        _fail("%s: dtype %s is not taken: uint8 or uint16 images" % (what, x.dtype))
    sample = x.dtype.itemsize - 1
    w, h, c, stride = _layout(x.shape, x.strides, x.dtype.itemsize, what)
    dev = x.data.device_id
    stream = sys.modules["cupy"].cuda.get_current_stream()
    spec = (x.data.ptr, _c.LOC_DEVICE, w, h, c, stride, sample, dev)
    img = Image(spec, x.shape, sample, _c.LOC_DEVICE, dev, stream.ptr or 1, x, "cupy",
                sys.modules["cupy"])
    img.stream_owner = stream  # held while the context uses the stream
    return img


def _torch_image(t, writable, what):
    torch = sys.modules["torch"]
    if not t.is_cuda:
        return describe(t.numpy(), writable, what)  # host tensors: through NumPy, no copy
    if t.dtype not in (torch.uint8, getattr(torch, "uint16", None)):
        _fail("%s: dtype %s is not taken: uint8 or uint16 images" % (what, t.dtype))
    isz = t.element_size()
    w, h, c, stride = _layout(t.shape, tuple(s * isz for s in t.stride()), isz, what)
    dev = t.device.index or 0
    stream = torch.cuda.current_stream(dev)
    spec = (t.data_ptr(), _c.LOC_DEVICE, w, h, c, stride, isz - 1, dev)
    img = Image(spec, tuple(t.shape), isz - 1, _c.LOC_DEVICE, dev, stream.cuda_stream or 1, t,
                "torch", torch)
    img.stream_owner = stream
    return img


class _Fast(dict):
    """type -> a describer that reads the array's attributes directly: the
    two libraries users hand in most, found the first time one is seen."""

    def get(self, t, default=None):
        if t in self:
            return self[t]
        mod = t.__module__.split(".")[0]
        f = None
        if mod == "cupy" and t.__name__ == "ndarray":
            f = _cupy_image
        elif _np is not None and t is _np.ndarray:
            f = _numpy_image
        elif mod == "torch" and t.__name__ in ("Tensor", "Parameter"):
            f = _torch_image
        self[t] = f
        return f


_FAST = _Fast()


def _from_dlpack(obj, writable, what):
    dev_type, dev_id = obj.__dlpack_device__()
    if dev_type == 2:  # CUDA: the producer orders its work before the legacy default stream
        capsule = obj.__dlpack__(stream=1)
    else:
        capsule = obj.__dlpack__()
    holder, ptr, dev_type, dev_id, shape, strides, code, bits = _c.from_dlpack_capsule(capsule)
    if code != 1:  # kDLUInt
        _fail("%s: DLPack type code %d, %d bits: uint8 or uint16 images" % (what, code, bits))
    itemsize = bits // 8
    byte_strides = None if strides is None else tuple(s * itemsize for s in strides)
    typestr = "|u1" if itemsize == 1 else "<u2"
    if dev_type in (1, 3):  # CPU, CUDA host (pinned)
        loc, dev = (_c.LOC_HOST, -1) if dev_type == 1 else (_c.LOC_MAPPED, dev_id)
    elif dev_type == 2:
        loc, dev = _c.LOC_DEVICE, dev_id
    elif dev_type == 13:
        loc, dev = _c.LOC_MANAGED, dev_id
    else:
        _fail("%s: DLPack device type %d (not CPU or CUDA)" % (what, dev_type))
    spec, sample = _host_spec(ptr, shape, byte_strides, typestr, loc, dev, what)
    return Image(spec, tuple(shape), sample, loc, dev, 1 if dev_type == 2 else None, (holder, obj),
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
    if _np is None:
        _fail("NumPy is needed for host images")
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
        self.dtype = "uint8" if spec[6] == 0 else "uint16"
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
                                    tuple(s // isz for s in self.strides), 8 * isz)

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
    dtype = "uint8" if sample == 0 else "uint16"
    if img.location in (_c.LOC_HOST, _c.LOC_MAPPED, _c.LOC_MANAGED):
        if img.location != _c.LOC_HOST:  # a shared frame in: a shared frame out
            from . import frame
            return frame(shape, dtype, context=context)
        return _np.empty(shape, dtype)
    if img.kind == "cupy" and img.module is not None:
        with img.module.cuda.Device(img.device):
            return img.module.empty(shape, dtype)
    if img.kind == "torch" and img.module is not None and sample == 0:
        return img.module.empty(shape, dtype=img.module.uint8, device="cuda:%d" % img.device)
    h, w = shape[0], shape[1]
    c = shape[2] if len(shape) == 3 else 1
    buf = _c.alloc(context, w, h, c, sample, _c.LOC_DEVICE)
    return DeviceArray(buf, buf.image(), shape, context)
