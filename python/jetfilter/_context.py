"""Contexts: the one a caller makes, or this thread's default for where the
image lives (one per CUDA device, one for host images)."""
import atexit
import os
import threading

from . import _arrays
from . import _jetfilter as _c


class Context(_c.Context):
    """Where operations run: a CUDA device and stream, or CPU threads, with
    the buffers the library keeps between calls (after the first frame of a
    size, a loop allocates nothing).  One thread at a time uses it.

    Context(backend="auto", device=0, threads=0, memory="auto", stream=None, stats=0)

    backend: "auto" (CUDA when there is a device), "cpu" or "cuda".
    memory: "auto" (managed on a Jetson, copies elsewhere), "copy", "managed".
    stream: where its work queues (an int cudaStream_t or a CuPy, PyTorch or
    Numba stream); by default the context's own, or for device arrays the
    stream their producer reports.
    """

    # what a context that was never made (its __init__ failed) says: the
    # library refuses it by name at the first call
    is_cuda = False
    device = -1
    _stream = 0
    _stream_owner = None

    def __init__(self, backend="auto", device=0, threads=0, memory="auto", stream=None, stats=0):
        s = _arrays.stream_of(stream) or 0
        _c.Context.__init__(self, backend, device, threads, memory, s, stats)
        info = self.info()
        self.is_cuda = info["backend"] == "cuda"
        self.device = info["device"]
        self._stream = s
        self._stream_owner = stream if stream is not None and not isinstance(stream, int) else None

    def set_stream(self, stream, owner=None):
        """Queue later work on `stream` (no host wait: it first waits for
        what was queued before).  `owner`: the stream's object, kept alive
        while the context uses it."""
        s = _arrays.stream_of(stream) or 0
        if s != self._stream:
            _c.Context.set_stream(self, s)
            self._stream = s
        if owner is None and stream is not None and not isinstance(stream, int):
            owner = stream
        self._stream_owner = owner

    @property
    def holds_stream(self):
        """Whether the stream in use cannot go away under the context: its
        own, the legacy or per-thread default stream, or one whose object
        it holds."""
        return self._stream in (0, 1, 2) or self._stream_owner is not None

    @property
    def backend(self):
        return self.info()["backend"]

    @property
    def stream(self):
        """The cudaStream_t work queues on now (0 on the CPU)."""
        return self.info()["stream"]

    def __del__(self):
        # closed while the stream object it may hold still exists: CPython
        # drops an instance's attributes before it frees the C part, which
        # waits for the work queued on that stream
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        i = self.info()
        if i["backend"] == "cuda":
            return "jetfilter.Context(cuda, device %d %s, stream 0x%x, memory %s)" % (
                i["device"], i["name"], i["stream"], i["memory"])
        return "jetfilter.Context(cpu, %d threads%s)" % (i["threads"], "; " + i["note"] if i["note"] else "")


_local = threading.local()
_all_defaults = []  # every thread's default contexts, closed at exit


@atexit.register
def _close_defaults():
    """Give the GPU buffers back before the interpreter (and CUDA) go."""
    for ctx in _all_defaults:
        ctx.close()
    del _all_defaults[:]


def default_context(device=None):
    """This thread's context for host images (device None: backend from
    JETFILTER_BACKEND, else auto) or for images on CUDA device `device`."""
    contexts = getattr(_local, "contexts", None)
    if contexts is None:
        contexts = _local.contexts = {}
    ctx = contexts.get(device)
    if ctx is None:
        if device is None:
            ctx = Context(backend=os.environ.get("JETFILTER_BACKEND") or "auto")
        else:
            ctx = Context(backend="cuda", device=device)
        contexts[device] = ctx
        _all_defaults.append(ctx)
    return ctx


def context_for(img, context):
    """The context the work runs in, checked against where the image is."""
    if context is None:
        return default_context(img.device if img.on_device else None)
    if not isinstance(context, Context):
        raise TypeError("context: a jetfilter.Context, not %s" % type(context).__name__)
    if img.on_device:
        if not context.is_cuda:
            raise _c.ArgumentError("the image is in GPU %d memory, the context runs on the CPU"
                                   % img.device)
        if context.device != img.device:
            raise _c.ArgumentError("the image is on GPU %d, the context on GPU %d"
                                   % (img.device, context.device))
    return context


def bind_stream(ctx, img, stream):
    """Device work goes on the caller's stream: the one given, else the one
    the array's producer reported (CuPy's and PyTorch's current stream)."""
    if stream is not None:
        ctx.set_stream(stream)
    elif img.stream is not None:
        ctx.set_stream(img.stream, img.stream_owner)
