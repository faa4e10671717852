"""jetfilter: median filters, convolutions, PSNR and SSIM on NumPy, CuPy and
PyTorch arrays, on CUDA GPUs (a Jetson Nano up to a data-centre GPU) or on
the CPU, with the same results.

    import jetfilter as jf
    clean = jf.median(noisy, ksize=5)              # NumPy in, NumPy out
    clean = jf.median(cupy_frame, ksize=5)         # CuPy in, CuPy out, on its stream
    out, info = jf.auto_impulse(frame)             # the decision and the noise density
    jf.psnr(reference, clean)                      # a float

Every operation of the library's table is a function here, with the
command line's parameter names and defaults (jetfilter.operations() lists
them).  Images are (H, W) or (H, W, C) arrays of uint8, uint16 or float32
(float16 through a float32 copy) with C from 1 to 4; rows may be padded;
float32 images go to the median, the convolutions, pad, psnr and ssim.  Host arrays (anything with
__array_interface__ or the buffer protocol) stay on the host; device
arrays (__cuda_array_interface__ or DLPack) are filtered in place on the
GPU, queued on the stream their producer works on, with no host wait and
no hidden copy.  Errors are jetfilter.Error subclasses carrying the
library's message.
"""
import json as _json
import os as _os
import threading as _threading

from . import _arrays, _cli, _ops  # noqa: F401 (_cli: the console script)
from . import _jetfilter as _c
from ._arrays import DeviceArray
from ._context import Context, default_context
from ._jetfilter import (ArgumentError, CudaError, DecodeError, EncodeError, Error, FileError,
                         InternalError, LimitError, NoDeviceError, OutOfMemoryError,
                         UnsupportedError)

__version__ = _c.version()
built_with_cuda = _c.built_with_cuda
device_count = _c.device_count

_OPERATIONS = _ops.generate(globals())


def operations():
    """The operation table: a list of dicts (name, summary, kind, params
    with name, type, default, range and choices), as the library has it."""
    return _c.ops()


# ---- files -------------------------------------------------------------------------

class Picture(object):
    """A decoded JPEG or PNG: its pixels (a NumPy array over the decoded
    memory, no copy), its alpha plane or None, its format, and the metadata
    (ICC profile, EXIF, other markers) that write(..., like=picture) carries
    to another file."""

    __slots__ = ("pixels", "alpha", "format", "info", "_buffer")

    def __init__(self, buffer):
        spec = buffer.image()
        shape = (spec[3], spec[2]) if spec[4] == 1 else (spec[3], spec[2], spec[4])
        self._buffer = buffer
        self.pixels = _arrays.host_array(buffer, spec, shape)
        a = buffer.alpha()
        self.alpha = None if a is None else _arrays.host_array(buffer, a, (a[3], a[2]))
        self.info = buffer.picture_info()
        self.format = self.info["format"]

    def __repr__(self):
        return "jetfilter.Picture(%s, %s %s%s)" % (self.format, "x".join(map(str, self.pixels.shape)),
                                                   self.pixels.dtype, ", alpha" if self.alpha is not None else "")


def read(path):
    """Decode a JPEG, PNG, TIFF (its first page), WebP or PFM file (the
    format from its bytes) into a Picture (float32 pixels from a PFM or a
    float TIFF), with the library's limits and errors
    (DecodeError names the file and the damage)."""
    return Picture(_c.read(_os.fspath(path) if hasattr(_os, "fspath") else path))


_PNG_FILTERS = ["default", "none", "sub", "up", "avg", "paeth", "adaptive"]
_TIFF_COMPRESSIONS = ["same", "none", "lzw", "deflate", "packbits"]
_FORMATS = {"jpg": "FORMAT_JPEG", "jpeg": "FORMAT_JPEG", "jpe": "FORMAT_JPEG", "png": "FORMAT_PNG",
            "tif": "FORMAT_TIFF", "tiff": "FORMAT_TIFF", "webp": "FORMAT_WEBP", "pfm": "FORMAT_PFM"}


def write(path, image, format=None, quality=92, png_level=None, png_filter=None, like=None,
          tiff_compression=None, lossless=None):
    """Encode and write an image atomically (a temporary name, then a
    rename: a failure leaves nothing).  `image`: an array (H, W[, C]) on the
    host, or a Picture; a 4th channel (or 2nd, for grey) is alpha.  The
    format comes from `format` ("jpeg", "png", "tiff", "webp", "pfm"),
    else the file name; float32 images go to TIFF and PFM (which holds
    nothing else).  `quality`: JPEG's and lossy WebP's.  `tiff_compression`:
    "none", "lzw", "deflate" or "packbits" (default: `like`'s when it was a
    TIFF, else deflate).  `lossless`: WebP lossless (default: when `like`
    was a lossless WebP).  `like`: a Picture whose metadata goes with the
    pixels.  Returns what the encoder left out ("" if nothing)."""
    path = _os.fspath(path) if hasattr(_os, "fspath") else path
    if isinstance(image, Picture):
        like = image if like is None else like
        alpha = image.alpha
        image = image.pixels
    else:
        alpha = None
    fmt = (format or _os.path.splitext(path)[1].lstrip(".")).lower()
    if fmt not in _FORMATS:
        raise ArgumentError("%s: the format (%s) is jpeg, png, tiff, webp or pfm: give format= or a "
                            ".jpg/.png/.tif/.webp/.pfm name" % (path, fmt or "none"))
    tiff = _TIFF_COMPRESSIONS.index(tiff_compression or "same") if (tiff_compression or "same") in _TIFF_COMPRESSIONS else -1
    if tiff < 0:
        raise ArgumentError("tiff_compression: one of %s" % ", ".join(_TIFF_COMPRESSIONS[1:]))
    webp = 0 if lossless is None else 2 if lossless else 1
    img = _arrays.describe(image)
    if img.on_device:
        raise ArgumentError("write: the image is in GPU memory; copy it to the host first "
                            "(jetfilter makes no hidden copies)")
    channels = img.spec[4]
    if alpha is None and channels in (2, 4) and not (like is not None and like.info["cmyk"]):
        np = _arrays._np
        arr = np.asarray(image)
        alpha = np.ascontiguousarray(arr[..., -1])
        image = np.ascontiguousarray(arr[..., :-1])
        img = _arrays.describe(image)
    aspec = None if alpha is None else _arrays.describe(alpha, False, "alpha").spec
    level = -1 if png_level is None else int(png_level)
    filt = 0 if png_filter is None else _PNG_FILTERS.index(png_filter) if png_filter in _PNG_FILTERS else -1
    if filt < 0:
        raise ArgumentError("png_filter: one of %s" % ", ".join(_PNG_FILTERS[1:]))
    return _c.write(path, img.spec, aspec, None if like is None else like._buffer,
                    getattr(_c, _FORMATS[fmt]), int(quality), level, filt, tiff, webp)


# ---- frames the GPU and NumPy share ---------------------------------------------------

def frame(shape, dtype="uint8", context=None):
    """A NumPy array in memory the GPU addresses too, so a camera frame
    filled from Python is filtered in place and read back with no copy:
    managed memory where the context's memory mode is managed (a Jetson:
    its 4 GB are shared, so nothing moves at all), else page-locked mapped
    memory.  Operations on it run on the GPU in place and return when done."""
    ctx = context or default_context()
    shape = tuple(shape)
    c = shape[2] if len(shape) == 3 else 1
    sample = {"uint8": 0, "uint16": 1, "float32": 2}.get(str(dtype))
    if sample is None:
        raise ArgumentError("frame: dtype %s: uint8, uint16 or float32" % dtype)
    if not ctx.is_cuda:
        return _arrays._np.empty(shape, dtype)
    loc = _c.LOC_MANAGED if ctx.info()["memory"] == "managed" else _c.LOC_MAPPED
    buf = _c.alloc(ctx, shape[1], shape[0], c, sample, loc)
    return _arrays.host_array(buf, buf.image(), shape)


def from_dlpack(obj):
    """Any DLPack producer's image as jetfilter sees it: a NumPy array for
    host memory, a jetfilter.DeviceArray view for GPU memory (no copy)."""
    img = _arrays.describe(obj)
    if not img.on_device:
        return _arrays.host_array(img.owner, img.spec, img.shape)
    return DeviceArray(img.owner, img.spec, img.shape, None)


# ---- the batch: files and folders, as the command line does them, in this process ----

def _option_value(value):
    """An option's value as the library takes it: bytes (a file name as the
    system has it), None for a flag that is set."""
    if value is True:
        return None
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value).encode("utf-8")
    if isinstance(value, (str, bytes)) or hasattr(value, "__fspath__"):
        return _os.fsencode(value)  # a file name may carry surrogate escapes
    return str(value).encode("utf-8")


def _job_options(output, options):
    pairs = [(b"output", _os.fsencode(output))]
    for key, value in options.items():
        if value is None or value is False:
            continue
        pairs.append((key.replace("_", "-").encode("utf-8"), _option_value(value)))
    return pairs


class BatchError(Error):
    """Files of a batch failed (each damaged or missing file is named in the
    report, and the batch went on with the others).  `report` holds the
    whole report: what was written, and why each failure failed."""

    def __init__(self, message, report):
        Error.__init__(self, message)
        self.report = report


def _check_report(command, report):
    """The report, or BatchError when any file failed."""
    s = report.get("summary", {})
    failed = [r for r in report.get("files", []) if r.get("status") == "failed"]
    if s.get("failed") or failed:
        first = failed[0].get("error") if failed else "see the report"
        raise BatchError("%s: %d of %d files failed; the first: %s"
                         % (command, s.get("failed", len(failed)), s.get("files", 0), first), report)
    return report


def _usage_error(command, error, options):
    """A refused option as the exception Python raises: an option the
    command does not know is an unexpected keyword (TypeError)."""
    message = str(error)
    for key in options:
        if ("unknown option '--%s'" % key.replace("_", "-")) in message:
            return TypeError("%s() got an unexpected keyword argument '%s'" % (command, key))
    return error


def _batch(command, inputs, output, options, progress=None):
    """Run a batch command in this process and return its report; the
    errors as exceptions."""
    if isinstance(inputs, (str, bytes)) or hasattr(inputs, "__fspath__"):
        inputs = [inputs]
    inputs = [_os.fsencode(p) for p in inputs]  # str, bytes or a path: the file name's bytes
    name = command if command != "noise" else "noise_files"
    try:
        text = _c.job(command, inputs, _job_options(output, options), progress)
    except ArgumentError as e:
        raise _usage_error(name, e, options)
    return _check_report(name, _json.loads(text))


_workers = [0]  # Workers open: the GPU's JPEG engines are kept while any is
_workers_lock = _threading.Lock()


class Worker(object):
    """Batch after batch in this process, as a service runs them: as it is
    made it starts CUDA and the GPU's JPEG engine (about a second on a
    server GPU) and keeps them until it is closed, so its batches pay no
    start-up and `codec="auto"` counts none (a lone jetfilter.denoise()
    counts it, and for a few hundred files keeps the CPU's codecs).  Its
    denoise() and noise_files() are the module's; calls from several
    threads take turns (one batch runs at a time in a process).

        with jetfilter.Worker() as w:
            for folder in folders:
                w.denoise(folder, out_dir(folder), ksize=5)
    """

    def __init__(self):
        self._closed = False
        with _workers_lock:
            _workers[0] += 1
            if _workers[0] == 1:
                _c.codec_keep(1)

    def _check(self):
        if self._closed:
            raise Error("this jetfilter.Worker is closed")

    def denoise(self, inputs, output, progress=None, **options):
        """jetfilter.denoise(), in this worker."""
        self._check()
        return _batch("denoise", inputs, output, options, progress)

    def noise_files(self, inputs, output, **options):
        """jetfilter.noise_files(), in this worker."""
        self._check()
        return _batch("noise", inputs, output, options)

    def close(self):
        """End the worker: later calls are refused; the GPU's JPEG engines
        close when no Worker is left."""
        with _workers_lock:
            if self._closed:
                return
            self._closed = True
            _workers[0] -= 1
            if _workers[0] == 0:
                _c.codec_keep(0)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass


def denoise(inputs, output, progress=None, **options):
    """Filter files and folders into `output` as `jetfilter denoise` does,
    in this process (the same options, as keywords: filter="median",
    ksize=5, jobs=4, format="png", reference="clean/", ...): the tree
    mirrored, damaged files named and passed over, inputs never written
    over.  Returns the report as a dict, as --json writes it: "files" (one
    record per file: status, error, timings, PSNR/SSIM), "summary";
    docs/report.schema.json describes it.  With one input file, `output`
    may name the output file.  `progress`, if given, is called after each
    file (and once before the first, path None) as
    progress(done, total, failed, skipped, mpix, seconds, path), from the
    batch's threads; one batch runs at a time in a process.

    A file that fails (damaged, missing, over a limit) does not stop the
    others; once all are done, jetfilter.BatchError is raised, naming the
    first failure, with the whole report in its `report` attribute.  A
    wrong option is an ArgumentError, an unknown keyword a TypeError."""
    return _batch("denoise", inputs, output, options, progress)


def noise_files(inputs, output, **options):
    """Noisy copies of files and folders, as `jetfilter noise` makes them
    (salt_pepper=0.1 or gaussian=20, seed=1, ...); the --json report.
    Failures raise jetfilter.BatchError, as in denoise()."""
    return _batch("noise", inputs, output, options)


def merge_reports(reports, output=None, force=False):
    """Merge the --json reports of a run's shards, as `jetfilter report
    merge` does, in this process: checked to share their settings and
    inputs, each file counted once.  Returns the merged report as a dict
    without its "files" (which go, with the rest, to `output` when it is
    given; force=True replaces a file jetfilter did not write):
    summary["complete"] says whether every file of the inputs is there
    exactly once, summary["failed"] how many failed.  Reports that cannot
    be read, or come from different runs, raise jetfilter.Error naming
    them."""
    if isinstance(reports, (str, bytes)) or hasattr(reports, "__fspath__"):
        reports = [reports]
    pairs = [(b"quiet", None)]
    if output is not None:
        pairs.append((b"output", _os.fsencode(output)))
    if force:
        pairs.append((b"force", None))
    text = _c.job("report", [_os.fsencode(p) for p in reports], pairs, None)
    return _json.loads(text)


__all__ = ["Context", "DeviceArray", "Picture", "Worker", "Error", "BatchError", "ArgumentError", "FileError", "DecodeError",
           "EncodeError", "UnsupportedError", "LimitError", "OutOfMemoryError", "CudaError",
           "NoDeviceError", "InternalError", "operations", "read", "write", "frame", "from_dlpack",
           "denoise", "noise_files", "merge_reports", "default_context", "built_with_cuda", "device_count"] + _OPERATIONS
