"""One Python function per operation of the C library's table, made when the
package is imported: a new operation in the table appears here with no edit.

Each function has a real signature (help() and editors show it): the image
(two for a metric), the operation's parameters as keyword arguments with
the table's names (dashes become underscores) and defaults, then out=,
context= and stream=.  The parameters' ranges and errors are the library's.
"""
from . import _arrays
from . import _jetfilter as _c
from ._context import Context, bind_stream, context_for, default_context

_PLANS = {}
_PLAN_CACHE_MAX = 256

# what the extension's one-step call reads itself (NumPy here; CuPy and
# PyTorch when _arrays first sees one of theirs)
_c.fast_setup(_arrays._np.ndarray, _arrays._np.empty,
              tuple(_arrays._np.dtype(t) for t in ("uint8", "uint16", "float32")),
              Context, default_context)


def python_name(name):
    return name.replace("-", "_")


def _default_value(p):
    text = p["default"]
    if text == "":
        return None
    if p["type"] == "int":
        return int(text)
    if p["type"] == "float":
        return float(text)
    return text


def _weights_bytes(value, name):
    """k x k weights as float32 bytes (NumPy arrays, nested lists)."""
    np = _arrays._np
    if np is not None:
        w = np.ascontiguousarray(np.asarray(value, dtype="<f4"))
        if w.ndim != 2 or w.shape[0] != w.shape[1]:
            raise _c.ArgumentError("%s: want k x k weights, not shape %s" % (name, w.shape))
        return w.tobytes()
    import struct
    rows = [list(r) for r in value]
    return struct.pack("<%df" % (len(rows) * len(rows)), *[float(x) for r in rows for x in r])


def plan(op_name, values, defaults):
    """The prepared Plan for these values (cached: made once per setting)."""
    try:  # the types too: True == 1 and 5.0 == 5, but they are not the same argument
        key = (op_name, values, tuple(type(v) for _, v in values))
        p = _PLANS.get(key)
    except TypeError:  # an unhashable value: the plan refuses it by name
        key, p = None, None
    if p is None:
        params = {}
        for (name, value), default in zip(values, defaults):
            if value is None or value is default or (value == default and type(value) is type(default)):
                continue  # the table's default: left unset, as the command line leaves it
            params[name] = value
        p = _c.Plan(op_name, params)
        if key is None:
            return p
        if len(_PLANS) >= _PLAN_CACHE_MAX:
            _PLANS.clear()
        _PLANS[key] = p
    return p


def _plan_into(cache, key, op, values, defaults):
    """plan(), kept in an operation's own cache under its arguments and their types."""
    p = plan(op["name"], values, defaults)
    if len(cache) >= _PLAN_CACHE_MAX:
        cache.clear()
    cache[key] = p
    return p


def _check_out(img, dst, shape):
    if tuple(dst.shape) != tuple(shape) and not (len(shape) == 2 and tuple(dst.shape) == tuple(shape) + (1,)):
        raise _c.ArgumentError("out: shape %s, but the result is %s" % (dst.shape, tuple(shape)))
    if dst.sample != img.sample:
        raise _c.ArgumentError("out: %s, but the image is %s" % (dst.dtype_name, img.dtype_name))
    if dst.on_device != img.on_device or (img.on_device and dst.device != img.device):
        raise _c.ArgumentError("out: in %s, the image in %s: jetfilter makes no hidden copies"
                               % (_where(dst), _where(img)))


def _where(img):
    return "GPU %d memory" % img.device if img.on_device else "host memory"


def _prepare(image, context, stream):
    img = _arrays.describe(image)
    ctx = context_for(img, context)
    if img.on_device:
        bind_stream(ctx, img, stream)
    elif ctx.is_cuda:
        _arrays.locate_host(img)
        if stream is not None:
            bind_stream(ctx, img, stream)
    return img, ctx


def _release(ctx):
    """Back to the context's own stream once the work is queued on the
    caller's (ordered after it, no host wait): a caller's stream may be
    destroyed after the call, and must not stay in use."""
    if not ctx.holds_stream:  # a bare int from the caller: it may be destroyed after
        ctx.set_stream(0)


def run_filter(op, image, out, context, stream, values, defaults):
    """FILTER and PAD operations: an output of the image's kind."""
    p = plan(op["name"], values, defaults)
    img, ctx = _prepare(image, context, stream)
    shape = img.shape
    if op["kind"] == "pad":
        k = int(p.value("ksize"))
        shape = (shape[0] + k - 1, shape[1] + k - 1) + tuple(shape[2:])
    made = out is None
    if made:
        out = _arrays.empty_like(img, shape, img.sample, ctx)
        dst = _arrays.describe(out, True, "out")
    else:
        dst = _arrays.describe(out, True, "out")
        _check_out(img, dst, shape)
        if ctx.is_cuda and not dst.on_device:
            _arrays.locate_host(dst)
    try:
        _, _, decision, estimate = _c.run(ctx, p, img.spec, dst.spec)
        _arrays.finish(dst)
    finally:
        _release(ctx)
    if made and img.half:  # float16 in, float16 out (rounded from the float32 result)
        out = _arrays.as_half(out)
    if dst.location in (_c.LOC_MANAGED, _c.LOC_MAPPED) or img.location in (_c.LOC_MANAGED, _c.LOC_MAPPED):
        ctx.sync()  # NumPy reads a shared frame as soon as this returns
    if op["estimate"]:
        return out, {"decision": decision, op["estimate"]: estimate}
    return out


def run_noise(op, image, out, context, stream, values, defaults):
    """NOISE operations: a noisy copy (the input is left alone), or out=."""
    p = plan(op["name"], values, defaults)
    img, ctx = _prepare(image, context, stream)
    if out is None:
        out = _arrays.empty_like(img, img.shape, img.sample, ctx)
        dst = _arrays.describe(out, True, "out")
    else:
        dst = _arrays.describe(out, True, "out")
        _check_out(img, dst, img.shape)
    try:
        if dst.spec[0] != img.spec[0]:
            _c.copy(ctx, img.spec, dst.spec)
        _c.run(ctx, p, dst.spec, None)
        _arrays.finish(dst)
    finally:
        _release(ctx)
    return out


def run_metric(op, a, b, context, stream, values, defaults):
    p = plan(op["name"], values, defaults)
    ia, ctx = _prepare(a, context, stream)
    ib = _arrays.describe(b, False, "b")
    if ib.on_device != ia.on_device:
        raise _c.ArgumentError("a in %s, b in %s: both on the GPU or both on the host"
                               % (_where(ia), _where(ib)))
    try:
        return _c.measure(ctx, p, ia.spec, ib.spec)
    finally:
        _release(ctx)


def run_estimate(op, image, context, stream, values, defaults):
    p = plan(op["name"], values, defaults)
    img, ctx = _prepare(image, context, stream)
    try:
        return _c.estimate(ctx, p, img.spec)
    finally:
        _release(ctx)


_ESTIMATE_TEMPLATE = '''
def {name}(image, *, {kwargs}context=None, stream=None):
    return _run(_OP, image, context, stream, ({values}), _DEFAULTS)
'''
_TEMPLATE = '''
def {name}({args}*, {kwargs}out=None, context=None, stream=None):
    return _run(_OP, {images}out, context, stream, ({values}), _DEFAULTS)
'''
# a filter's call: NumPy, CuPy and PyTorch CUDA arrays in one step of the
# extension (_c.fast); everything else, and what it declines, through _run
_FAST_TEMPLATE = '''
def {name}({args}*, {kwargs}out=None, context=None, stream=None):
    if stream is None:
        try:
            p = _PLANS[({key})]
        except KeyError:
            p = _plan_into(_PLANS, ({key}), _OP, ({values}), _DEFAULTS)
        except TypeError:  # an unhashable value: the Python path refuses it by name
            p = None
        if p is not None:
            r = _fast(p, image, out, context)
            if r is not NotImplemented:
                return r
    return _run(_OP, {images}out, context, stream, ({values}), _DEFAULTS)
'''
_METRIC_TEMPLATE = '''
def {name}(a, b, *, {kwargs}context=None, stream=None):
    return _run(_OP, a, b, context, stream, ({values}), _DEFAULTS)
'''


def _docstring(op):
    """What the function does, what it returns and its parameters; the GPU
    variants (internals) last."""
    summary = op["summary"]
    # "k x k median ...": a variable's name keeps its case
    if not (len(summary) > 1 and summary[1] == " " and summary[0].islower()):
        summary = summary[:1].upper() + summary[1:]
    lines = [summary + "."]
    if op["kind"] == "filter":
        lines.append("\nReturns an image of the input's kind, shape and dtype (NumPy for NumPy; on the "
                     "GPU, CuPy for CuPy, PyTorch for PyTorch, else a jetfilter.DeviceArray), or "
                     "writes into out=.")
        if op["estimate"]:
            lines.append("Returns (image, info): info holds the decision and %s." % op["estimate"])
        lines.append("Samples: %s." % op["samples_rule"])
    elif op["kind"] == "pad":
        lines.append("\nReturns the image larger by ksize - 1 each way, the border filled as asked.")
    elif op["kind"] == "metric":
        lines.append("\nReturns a float (b measured against the reference a).")
    elif op["kind"] == "noise":
        lines.append("\nReturns a noisy copy (the input is left alone), or writes into out=.")
    elif op["kind"] == "estimate":
        lines.append("\nReturns a dict: sigma (levels), poisson_a and poisson_b (variance = a * value"
                     " + b), signal_dependent, impulse_density, patches.")
    lines.append("\nParameters (as the command line's --options):")
    for q in op["params"]:
        rng = ""
        if q["type"] in ("int", "float"):
            rng = ", %g to %g%s" % (q["min"], q["max"], ", odd" if q["odd"] else "")
        if q["choices"]:
            rng = ": " + ", ".join(q["choices"])
        lines.append("  %s (%s%s): %s%s" % (python_name(q["name"]), q["type"], rng, q["help"],
                                            "; default %s" % q["default"] if q["default"] else ""))
    lines.append("  context: a jetfilter.Context (default: this thread's, on the image's device)")
    lines.append("  stream: a CUDA stream (int or CuPy/PyTorch stream) for device images; default "
                 "the one their producer works on")
    if op["kind"] == "filter":
        lines.append("\nGPU variants: auto = %s." % op["auto_rule"])
    return "\n".join(lines)


def generate(namespace):
    """Define one function per operation in `namespace`; their names."""
    names = []
    for op in _c.ops():
        params = [q for q in op["params"]]
        pyparams = [python_name(q["name"]) for q in params]
        defaults = tuple(_default_value(q) for q in params)
        kwargs = "".join("%s=%r, " % (n, d) for n, d in zip(pyparams, defaults))
        values = "".join("(%r, %s), " % (q["name"], _value_expr(q, n)) for q, n in zip(params, pyparams))
        name = python_name(op["name"])
        if op["kind"] == "metric":
            src = _METRIC_TEMPLATE.format(name=name, kwargs=kwargs, values=values)
            run = run_metric
        elif op["kind"] == "estimate":
            src = _ESTIMATE_TEMPLATE.format(name=name, kwargs=kwargs, values=values)
            run = run_estimate
        elif op["kind"] == "filter" and not op["estimate"] and all(q["type"] != "weights" for q in params):
            key = "".join("%s, type(%s), " % (n, n) for n in pyparams)
            src = _FAST_TEMPLATE.format(name=name, args="image, ", kwargs=kwargs, images="image, ",
                                        values=values, key=key)
            run = run_filter
        else:
            src = _TEMPLATE.format(name=name, args="image, ", kwargs=kwargs, images="image, ",
                                   values=values)
            run = run_noise if op["kind"] == "noise" else run_filter
        scope = {"_OP": op, "_DEFAULTS": defaults, "_run": run, "_w": _weights_bytes, "_PLANS": {},
                 "_plan_into": _plan_into, "_fast": _c.fast}
        exec(compile(src, "<jetfilter operation %s>" % op["name"], "exec"), scope)
        fn = scope[name]
        fn.__doc__ = _docstring(op)
        fn.__module__ = "jetfilter"
        fn.__qualname__ = name
        namespace[name] = fn
        names.append(name)
    return names


def _value_expr(q, pyname):
    if q["type"] == "weights":
        return "None if %s is None else _w(%s, %r)" % (pyname, pyname, pyname)
    return pyname
