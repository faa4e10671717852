/*
 * jetfilter._jetfilter: the CPython extension under the `jetfilter`
 * package, over the public C API only (jetfilter.h).
 *
 * It stays below the arrays: images come in as plain descriptions
 * (pointer, location, width, height, channels, row stride, sample type,
 * device), which the Python layer (jetfilter/_arrays.py) reads from NumPy,
 * CuPy, PyTorch, DLPack or any other producer.  What is here: contexts,
 * plans of the operation table, running them with the GIL released, the
 * codecs, buffers the library allocates, DLPack capsules, and one
 * exception class per jf_status.
 *
 * Written against the limited API of Python 3.6 (one binary for every
 * later CPython, as on a Jetson's JetPack 4.6): Py_LIMITED_API is set, so
 * a call newer than 3.6 does not compile.
 */
#define Py_LIMITED_API 0x03060000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <jetfilter.h>

#include "intake.h"

#include <math.h>
#include <stdint.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

/* Instances of heap types hold a reference to their type, which their
 * dealloc gives back, since CPython 3.8; on 3.6 and 3.7 it must not. */
static int g_heap_types_counted = 1;

/* ---- errors ------------------------------------------------------------------ */

static PyObject *g_error;                       /* jetfilter.Error */
static PyObject *g_errors[16];                  /* by -status */
static const struct {
    jf_status status;
    const char *name;
    const char *doc;
} ERRORS[] = {
    {JF_ERR_ARG, "ArgumentError", "An invalid argument or parameter value (also a ValueError)."},
    {JF_ERR_IO, "FileError", "A file could not be opened, read or written (also an OSError)."},
    {JF_ERR_DECODE, "DecodeError", "Not a valid JPEG or PNG, or damaged (also a ValueError)."},
    {JF_ERR_ENCODE, "EncodeError", "The encoder failed."},
    {JF_ERR_UNSUPPORTED, "UnsupportedError",
     "Valid input or a choice this build or operation does not handle."},
    {JF_ERR_LIMIT, "LimitError", "Over a resource limit: pixels, metadata, scans, memory."},
    {JF_ERR_NOMEM, "OutOfMemoryError", "An allocation failed (also a MemoryError)."},
    {JF_ERR_CUDA, "CudaError", "A CUDA call failed; the message names it."},
    {JF_ERR_NO_DEVICE, "NoDeviceError", "CUDA asked for, but no usable device (or a CPU-only build)."},
    {JF_ERR_INTERNAL, "InternalError", "A bug in jetfilter: please report it."},
};

/* Raise the exception of `st` with the library's one-line detail. */
static PyObject *raise_status(jf_status st)
{
    const char *detail = jf_last_error();
    PyObject *type = st < 0 && -st < 16 && g_errors[-st] ? g_errors[-st] : g_error;
    PyErr_SetString(type, detail && *detail ? detail : jf_status_str(st));
    return NULL;
}

/* UTF-8 of a str as a new bytes object (PyUnicode_AsUTF8 is not in the
 * limited API before 3.10); NULL with an exception set. */
static PyObject *utf8_of(PyObject *s)
{
    if (!PyUnicode_Check(s)) {
        PyErr_SetString(PyExc_TypeError, "a str is needed");
        return NULL;
    }
    return PyUnicode_AsUTF8String(s);
}

/* ---- image descriptions -------------------------------------------------------- */

/* (ptr, location, width, height, channels, stride, sample, device): a
 * description intake() made; checked again, as a caller of this private
 * module may hand in any tuple. */
static int parse_image(PyObject *spec, jf_image *img)
{
    unsigned long long ptr, stride;
    int loc, w, h, c, sample, device;
    if (!PyArg_ParseTuple(spec, "KiiiiKii;an image description", &ptr, &loc, &w, &h, &c, &stride,
                          &sample, &device))
        return -1;
    if (!ptr || w < 1 || h < 1 || c < 1 || c > 4 || sample < 0 || sample >= JF_SAMPLE_COUNT ||
        loc < 0 || loc >= JF_LOC_COUNT ||
        stride < (unsigned long long)w * (unsigned long long)c * jf_sample_size((jf_sample)sample)) {
        PyErr_SetString(PyExc_ValueError, "not an image description jetfilter made");
        return -1;
    }
    memset(img, 0, sizeof *img);
    img->data = (unsigned char *)(uintptr_t)ptr;
    img->location = (jf_location)loc;
    img->width = w;
    img->height = h;
    img->channels = c;
    img->stride = (size_t)stride;
    img->sample = (jf_sample)sample;
    img->device = device;
    return 0;
}

static PyObject *describe_image(const jf_image *img)
{
    return Py_BuildValue("(KiiiiKii)", (unsigned long long)(uintptr_t)img->data, (int)img->location,
                         img->width, img->height, img->channels, (unsigned long long)img->stride,
                         (int)img->sample, img->device);
}

/* A whole number from Python (an int, or anything with __index__: NumPy's
 * integers; not a bool, a float or a string); -1 with an exception set. */
static int whole_number(PyObject *v, const char *what, const char *field, long long *out)
{
    PyObject *i;
    int overflow = 0;
    if (PyBool_Check(v) || PyFloat_Check(v) || PyUnicode_Check(v) || PyBytes_Check(v) ||
        !(i = PyNumber_Index(v))) {
        PyErr_Clear();
        PyErr_Format(g_errors[-JF_ERR_ARG], "%s: the %s holds a %s, not a whole number", what, field,
                     Py_TYPE(v) == &PyFloat_Type ? "float" : "value of another type");
        return -1;
    }
    *out = PyLong_AsLongLongAndOverflow(i, &overflow);
    Py_DECREF(i);
    if (overflow || (*out == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        PyErr_Format(g_errors[-JF_ERR_ARG], "%s: a %s value beyond 64 bits", what, field);
        return -1;
    }
    return 0;
}

/* Up to 8 whole numbers of a tuple or list; the count, or -1. */
static long long number_list(PyObject *seq, const char *what, const char *field, int64_t *out)
{
    Py_ssize_t n, i;
    if (!PyTuple_Check(seq) && !PyList_Check(seq)) {
        PyErr_Format(g_errors[-JF_ERR_ARG], "%s: the %s is not a tuple", what, field);
        return -1;
    }
    n = PySequence_Size(seq);
    if (n < 0 || n > 8) {
        if (n > 8)
            PyErr_Format(g_errors[-JF_ERR_ARG], "%s: %zd dimensions; want (H, W) or (H, W, C)", what, n);
        return -1;
    }
    for (i = 0; i < n; i++) {
        PyObject *item = PySequence_GetItem(seq, i);
        long long v;
        int rc = item ? whole_number(item, what, field, &v) : -1;
        Py_XDECREF(item);
        if (rc < 0)
            return -1;
        out[i] = v;
    }
    return n;
}

/* Raise the intake's refusal, or describe the image. */
static PyObject *intake_result(int rc, const jf_image *img, const char *why)
{
    if (rc != 0) {
        PyErr_SetString(g_errors[-JF_ERR_ARG], why);
        return NULL;
    }
    return describe_image(img);
}

/* intake(what, writable, data, shape, strides, dtype, readonly, location, device) -> description:
 * every producer's array comes in here (jetfilter/_arrays.py) */
static PyObject *py_intake(PyObject *mod, PyObject *args)
{
    const char *what;
    int writable, readonly, location, device;
    PyObject *data, *shape, *strides, *dtype, *dtype_text;
    int64_t shape_v[8], strides_v[8];
    long long ptr, nd, ns = 0;
    jfpy_array a;
    jf_image img;
    char why[512];
    int rc;
    (void)mod;
    if (!PyArg_ParseTuple(args, "spOOOOpii", &what, &writable, &data, &shape, &strides, &dtype,
                          &readonly, &location, &device))
        return NULL;
    if (PyLong_Check(data) && !PyBool_Check(data)) {
        unsigned long long u = PyLong_AsUnsignedLongLong(data);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_Format(g_errors[-JF_ERR_ARG], "%s: the data pointer is not an address", what);
            return NULL;
        }
        ptr = (long long)u;
    } else if (data == Py_None) {
        ptr = 0;
    } else {
        PyErr_Format(g_errors[-JF_ERR_ARG], "%s: the data pointer is not an int", what);
        return NULL;
    }
    if ((nd = number_list(shape, what, "shape", shape_v)) < 0)
        return NULL;
    if (strides != Py_None && (ns = number_list(strides, what, "strides", strides_v)) < 0)
        return NULL;
    if (strides != Py_None && ns != nd) {
        PyErr_Format(g_errors[-JF_ERR_ARG], "%s: %lld strides for %lld dimensions", what, ns, nd);
        return NULL;
    }
    if (!(dtype_text = PyObject_Str(dtype)))
        return NULL;
    {
        PyObject *b = PyUnicode_AsUTF8String(dtype_text);
        Py_DECREF(dtype_text);
        if (!b)
            return NULL;
        memset(&a, 0, sizeof a);
        a.data = (uint64_t)ptr;
        a.ndim = nd;
        a.shape = shape_v;
        a.strides = strides == Py_None ? NULL : strides_v;
        a.dtype = PyBytes_AsString(b);
        a.lanes = 1;
        a.readonly = readonly;
        a.location = location;
        a.device = device;
        rc = jfpy_intake(&a, writable, what, &img, why, sizeof why);
        Py_DECREF(b);
    }
    return intake_result(rc, &img, why);
}

/* NumPy's __array_struct__: the array interface in C (a capsule holding
 * this struct, as NumPy's documentation defines it), which NumPy makes in
 * a tenth of the time of the interface's dict. */
typedef struct {
    int two; /* 2: the struct's own check */
    int nd;
    char typekind;
    int itemsize;
    int flags;
    Py_intptr_t *shape;
    Py_intptr_t *strides; /* NULL: C order */
    void *data;
    PyObject *descr;
} numpy_array_struct;
#define NUMPY_NOTSWAPPED 0x0200
#define NUMPY_WRITEABLE 0x0400

/* What NumPy's struct says of an array, for the intake: shape and strides
 * into shape_v and strides_v (s->nd <= 8), the typestr the interface's
 * dict would give into dtype[0..n) (byte order: the machine's, or the
 * other for a swapped array; kind; size). */
static void numpy_struct_fields(const numpy_array_struct *s, jfpy_array *a, int64_t *shape_v,
                                int64_t *strides_v, char *dtype, size_t n)
{
    const uint16_t one = 1;
    const int little = *(const unsigned char *)&one == 1;
    const char order = s->itemsize == 1 ? '|' : !(s->flags & NUMPY_NOTSWAPPED) == !little ? '<' : '>';
    int i;
    for (i = 0; i < s->nd; i++) {
        shape_v[i] = (int64_t)s->shape[i];
        strides_v[i] = s->strides ? (int64_t)s->strides[i] : 0;
    }
    snprintf(dtype, n, "%c%c%d", order, s->typekind, s->itemsize);
    memset(a, 0, sizeof *a);
    a->data = (uint64_t)(uintptr_t)s->data;
    a->ndim = s->nd;
    a->shape = shape_v;
    a->strides = s->strides ? strides_v : NULL;
    a->dtype = dtype;
    a->lanes = 1;
    a->readonly = !(s->flags & NUMPY_WRITEABLE);
    a->location = JF_LOC_HOST;
    a->device = -1;
}

/* intake_struct(what, writable, capsule) -> description: a NumPy array
 * from its __array_struct__, checked by the same intake as intake(). */
static PyObject *py_intake_struct(PyObject *mod, PyObject *args)
{
    const char *what;
    int writable, rc;
    PyObject *cap;
    const numpy_array_struct *s;
    int64_t shape_v[8], strides_v[8];
    char dtype[32], why[512];
    jfpy_array a;
    jf_image img;
    (void)mod;
    if (!PyArg_ParseTuple(args, "spO", &what, &writable, &cap))
        return NULL;
    if (!PyCapsule_CheckExact(cap) || !(s = (const numpy_array_struct *)PyCapsule_GetPointer(cap, NULL))) {
        PyErr_Clear();
        PyErr_Format(g_errors[-JF_ERR_ARG], "%s: __array_struct__ is not NumPy's capsule", what);
        return NULL;
    }
    if (s->two != 2 || s->nd < 0 || s->nd > 8 || !s->shape) {
        PyErr_Format(g_errors[-JF_ERR_ARG], "%s: __array_struct__ describes no array", what);
        return NULL;
    }
    numpy_struct_fields(s, &a, shape_v, strides_v, dtype, sizeof dtype);
    rc = jfpy_intake(&a, writable, what, &img, why, sizeof why);
    return intake_result(rc, &img, why);
}

/* ---- Context ------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    jf_context *ctx;
    PyThread_type_lock lock; /* one call at a time: a context is not shared by threads */
} ContextObject;

static PyObject *g_context_type;

static int name_index(const char *(*name_of)(int), int count, const char *name, const char *what)
{
    int i;
    for (i = 0; i < count; i++)
        if (strcmp(name_of(i), name) == 0)
            return i;
    PyErr_Format(g_errors[-JF_ERR_ARG], "%s: no such name '%s'", what, name);
    return -1;
}

static const char *backend_name_of(int i) { return jf_backend_name((jf_backend)i); }
static const char *memory_name_of(int i) { return jf_memory_name((jf_memory)i); }

static int Context_init(PyObject *self_, PyObject *args, PyObject *kw)
{
    static char *names[] = {"backend", "device", "threads", "memory", "stream", "stats", NULL};
    ContextObject *self = (ContextObject *)self_;
    const char *backend = "auto", *memory = "auto";
    int device = 0, threads = 0, stats = 0, b, m;
    unsigned long long stream = 0;
    jf_context_options o = jf_context_defaults();
    jf_status st;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|siisKi", names, &backend, &device, &threads,
                                     &memory, &stream, &stats))
        return -1;
    if ((b = name_index(backend_name_of, JF_BACKEND_COUNT, backend, "backend")) < 0 ||
        (m = name_index(memory_name_of, JF_MEMORY_COUNT, memory, "memory")) < 0)
        return -1;
    o.backend = (jf_backend)b;
    o.memory = (jf_memory)m;
    o.device = device;
    o.threads = threads;
    o.stats = stats;
    o.stream = (void *)(uintptr_t)stream;
    if (self->ctx || self->lock) {
        PyErr_SetString(PyExc_RuntimeError, "Context.__init__ called twice");
        return -1;
    }
    if (!(self->lock = PyThread_allocate_lock())) {
        PyErr_NoMemory();
        return -1;
    }
    Py_BEGIN_ALLOW_THREADS
    st = jf_context_create(&o, &self->ctx);
    Py_END_ALLOW_THREADS
    if (st != JF_OK) {
        raise_status(st);
        return -1;
    }
    return 0;
}

static void Context_dealloc(PyObject *self_)
{
    ContextObject *self = (ContextObject *)self_;
    PyTypeObject *type = Py_TYPE(self_);
    freefunc tp_free = (freefunc)PyType_GetSlot(type, Py_tp_free);
    if (self->ctx) {
        Py_BEGIN_ALLOW_THREADS
        jf_context_destroy(self->ctx);
        Py_END_ALLOW_THREADS
    }
    if (self->lock)
        PyThread_free_lock(self->lock);
    tp_free(self_);
    if (g_heap_types_counted)
        Py_DECREF(type);
}

/* The context's lock, taken with the GIL released (another thread may hold
 * it while it waits for the GPU). */
static void lock_context(ContextObject *c)
{
    if (!PyThread_acquire_lock(c->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(c->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
}

/* A context for one call: its lock held for the whole call, so that
 * close() on another thread waits for the call, and a call after close()
 * is refused; NULL with an exception set.  Give it back with
 * release_context(). */
static jf_context *acquire_context(PyObject *obj)
{
    ContextObject *c = (ContextObject *)obj;
    if (!PyObject_TypeCheck(obj, (PyTypeObject *)g_context_type)) {
        PyErr_SetString(PyExc_TypeError, "a jetfilter.Context is needed");
        return NULL;
    }
    if (!c->lock) {
        PyErr_SetString(PyExc_ValueError, "the context was never made (Context.__init__ failed)");
        return NULL;
    }
    lock_context(c);
    if (!c->ctx) {
        PyThread_release_lock(c->lock);
        PyErr_SetString(PyExc_ValueError, "the context is closed");
        return NULL;
    }
    return c->ctx;
}

static void release_context(PyObject *obj) { PyThread_release_lock(((ContextObject *)obj)->lock); }

static PyObject *Context_sync(PyObject *self, PyObject *unused)
{
    jf_context *ctx = acquire_context(self);
    jf_status st;
    (void)unused;
    if (!ctx)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    st = jf_context_sync(ctx);
    Py_END_ALLOW_THREADS
    release_context(self);
    if (st != JF_OK)
        return raise_status(st);
    Py_RETURN_NONE;
}

/* A context call that takes a cudaStream_t (a Python int). */
static PyObject *with_stream(PyObject *self, PyObject *arg,
                             jf_status (*call)(jf_context *, void *))
{
    jf_context *ctx;
    unsigned long long stream;
    jf_status st;
    stream = PyLong_AsUnsignedLongLong(arg);
    if (PyErr_Occurred() || !(ctx = acquire_context(self)))
        return NULL;
    st = call(ctx, (void *)(uintptr_t)stream);
    release_context(self);
    if (st != JF_OK)
        return raise_status(st);
    Py_RETURN_NONE;
}

static PyObject *Context_set_stream(PyObject *self, PyObject *arg)
{
    return with_stream(self, arg, jf_context_set_stream);
}

static PyObject *Context_order(PyObject *self, PyObject *arg)
{
    return with_stream(self, arg, jf_context_order);
}

static PyObject *Context_close(PyObject *self, PyObject *unused)
{
    ContextObject *c = (ContextObject *)self;
    (void)unused;
    if (c->lock) { /* waits for a call in flight on another thread */
        jf_context *ctx;
        lock_context(c);
        ctx = c->ctx;
        c->ctx = NULL;
        if (ctx) {
            Py_BEGIN_ALLOW_THREADS
            jf_context_destroy(ctx);
            Py_END_ALLOW_THREADS
        }
        PyThread_release_lock(c->lock);
    }
    Py_RETURN_NONE;
}

static PyObject *context_info(jf_context *ctx);

static PyObject *Context_info(PyObject *self, PyObject *unused)
{
    jf_context *ctx = acquire_context(self);
    PyObject *info;
    (void)unused;
    if (!ctx)
        return NULL;
    info = context_info(ctx);
    release_context(self);
    return info;
}

static PyObject *context_info(jf_context *ctx)
{
    jf_device_info d;
    if (jf_context_backend(ctx) != JF_BACKEND_CUDA || jf_context_device(ctx, &d) != JF_OK)
        return Py_BuildValue("{sssisKsssssi}", "backend", jf_backend_name(jf_context_backend(ctx)),
                             "device", -1, "stream", 0ULL, "note", jf_context_note(ctx),
                             "memory", jf_memory_name(jf_context_memory(ctx)), "threads",
                             jf_context_threads(ctx));
    return Py_BuildValue("{sssisKsssssisssisisisssi}", "backend", "cuda", "device", d.index, "stream",
                         (unsigned long long)(uintptr_t)jf_context_stream(ctx), "note",
                         jf_context_note(ctx), "memory", jf_memory_name(jf_context_memory(ctx)),
                         "threads", jf_context_threads(ctx), "name", d.name, "integrated",
                         d.integrated, "cc_major", d.cc_major, "cc_minor", d.cc_minor, "profile",
                         jf_context_profile(ctx) ? jf_context_profile(ctx) : "", "multiprocessors",
                         d.multiprocessors);
}

/* stats() -> [(name, variant, calls, ms, bytes_read, bytes_written)]: the
 * running totals of a context made with stats > 0 (after sync()). */
static PyObject *Context_stats(PyObject *self, PyObject *unused)
{
    jf_context *ctx = acquire_context(self);
    jf_stat_total t[64];
    size_t n, i;
    PyObject *list;
    (void)unused;
    if (!ctx)
        return NULL;
    n = jf_stats_totals(ctx, t, 64);
    release_context(self);
    if (!(list = PyList_New(0)))
        return NULL;
    for (i = 0; i < n && i < 64; i++) {
        PyObject *row = Py_BuildValue("(ssKdKK)", t[i].name, t[i].variant,
                                      (unsigned long long)t[i].calls, t[i].ms,
                                      (unsigned long long)t[i].bytes_read,
                                      (unsigned long long)t[i].bytes_written);
        if (!row || PyList_Append(list, row) < 0) {
            Py_XDECREF(row);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(row);
    }
    return list;
}

static PyMethodDef Context_methods[] = {
    {"stats", Context_stats, METH_NOARGS,
     "Running totals per stage [(name, variant, calls, ms, bytes_read, bytes_written)] of a "
     "context made with stats=N (after sync())."},
    {"sync", Context_sync, METH_NOARGS, "Wait for the work queued on the context's stream."},
    {"set_stream", Context_set_stream, METH_O,
     "Queue later work on this cudaStream_t (an int; 0: the context's own), after what was queued."},
    {"order", Context_order, METH_O,
     "Make this cudaStream_t (an int) wait on the device for the work queued so far."},
    {"close", Context_close, METH_NOARGS, "Wait for queued work and release the context."},
    {"info", Context_info, METH_NOARGS, "What the context is: backend, device, stream, memory."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot Context_slots[] = {
    {Py_tp_doc, "A jetfilter context: a backend (CPU threads, or a CUDA device and stream) and the "
                "buffers it keeps between calls."},
    {Py_tp_init, (void *)Context_init},
    {Py_tp_dealloc, (void *)Context_dealloc},
    {Py_tp_methods, Context_methods},
    {Py_tp_new, (void *)PyType_GenericNew},
    {0, NULL}};

static PyType_Spec Context_spec = {"jetfilter._jetfilter.Context", sizeof(ContextObject), 0,
                                   Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, Context_slots};

/* ---- Plan ---------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    jf_plan *plan;
} PlanObject;

static PyObject *g_plan_type;

/* One parameter from a Python value, typed as the table says: an int
 * parameter takes whole numbers (int, NumPy's integers: anything with
 * __index__ but a bool), a float one numbers too, a choice, file or size one
 * a str, weights bytes of float32.  A value of another type is a TypeError
 * naming the parameter.  JF_ERR_INTERNAL: a Python exception is set. */
static jf_status set_param(jf_plan *plan, const char *name, PyObject *v)
{
    const jf_param_info *info = jf_op_param(jf_plan_op(plan), name);
    const char *want = NULL;
    if (!info) /* the library names what the operation takes */
        return jf_plan_set(plan, name, "");
    switch (info->type) {
    case JF_PARAM_INT:
    case JF_PARAM_DOUBLE:
        if (!PyBool_Check(v) && !PyUnicode_Check(v) && !PyBytes_Check(v)) {
            if (info->type == JF_PARAM_DOUBLE && (PyFloat_Check(v) || PyLong_Check(v) ||
                                                  PyNumber_Check(v))) {
                double d = PyFloat_AsDouble(v);
                if (d == -1.0 && PyErr_Occurred())
                    return JF_ERR_INTERNAL;
                return jf_plan_set_double(plan, name, d);
            }
            if (!PyFloat_Check(v)) {
                PyObject *i = PyNumber_Index(v);
                if (i) {
                    int overflow = 0;
                    long long n = PyLong_AsLongLongAndOverflow(i, &overflow);
                    Py_DECREF(i);
                    if (overflow) {
                        char text[32];
                        snprintf(text, sizeof text, "%s1e19", overflow < 0 ? "-" : "");
                        return jf_plan_set(plan, name, text); /* the library's range message */
                    }
                    if (n == -1 && PyErr_Occurred())
                        return JF_ERR_INTERNAL;
                    return jf_plan_set_int(plan, name, n);
                }
                PyErr_Clear();
            }
        }
        want = info->type == JF_PARAM_INT ? "a whole number (int)" : "a number";
        break;
    case JF_PARAM_CHOICE:
    case JF_PARAM_FILE:
    case JF_PARAM_SIZE:
        if (PyUnicode_Check(v) || (info->type == JF_PARAM_FILE && PyBytes_Check(v))) {
            PyObject *b = PyUnicode_Check(v) ? utf8_of(v) : (Py_INCREF(v), v);
            jf_status st;
            if (!b)
                return JF_ERR_INTERNAL;
            if (strlen(PyBytes_AsString(b)) != (size_t)PyBytes_Size(b)) {
                Py_DECREF(b);
                PyErr_Format(g_errors[-JF_ERR_ARG], "%s: a NUL character in the value", name);
                return JF_ERR_INTERNAL;
            }
            st = jf_plan_set(plan, name, PyBytes_AsString(b));
            Py_DECREF(b);
            return st;
        }
        want = info->type == JF_PARAM_SIZE ? "a str \"WxH\"" : "a str";
        break;
    case JF_PARAM_WEIGHTS:
        if (PyBytes_Check(v)) {
            char *data;
            Py_ssize_t n;
            int k;
            if (PyBytes_AsStringAndSize(v, &data, &n) < 0)
                return JF_ERR_INTERNAL;
            k = (int)lround(sqrt((double)n / sizeof(float)));
            if (n == 0 || (Py_ssize_t)k * k * (Py_ssize_t)sizeof(float) != n) {
                PyErr_Format(g_errors[-JF_ERR_ARG], "%s: %zd bytes are not k x k float32 weights",
                             name, n);
                return JF_ERR_INTERNAL;
            }
            return jf_plan_set_weights(plan, (const float *)data, k);
        }
        want = "k x k weights";
        break;
    default:
        break;
    }
    {
        PyObject *tn = PyObject_GetAttrString((PyObject *)Py_TYPE(v), "__name__");
        PyObject *tb = tn ? PyUnicode_AsUTF8String(tn) : NULL;
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: want %s, not %s", name, want ? want : "a value",
                     tb ? PyBytes_AsString(tb) : "that type");
        Py_XDECREF(tn);
        Py_XDECREF(tb);
    }
    return JF_ERR_INTERNAL;
}

static int Plan_init(PyObject *self_, PyObject *args, PyObject *kw)
{
    PlanObject *self = (PlanObject *)self_;
    const char *op;
    PyObject *params = NULL, *key, *value;
    Py_ssize_t pos = 0;
    jf_status st;
    (void)kw;
    if (!PyArg_ParseTuple(args, "s|O!", &op, &PyDict_Type, &params))
        return -1;
    if (self->plan) {
        PyErr_SetString(PyExc_RuntimeError, "Plan.__init__ called twice");
        return -1;
    }
    if ((st = jf_plan_create(op, &self->plan)) != JF_OK) {
        raise_status(st);
        return -1;
    }
    while (params && PyDict_Next(params, &pos, &key, &value)) {
        PyObject *name = utf8_of(key);
        if (!name)
            return -1;
        if (value == Py_None) { /* the default */
            Py_DECREF(name);
            continue;
        }
        st = set_param(self->plan, PyBytes_AsString(name), value);
        Py_DECREF(name);
        if (st != JF_OK) {
            if (!PyErr_Occurred())
                raise_status(st);
            return -1;
        }
    }
    if ((st = jf_plan_prepare(self->plan)) != JF_OK) {
        raise_status(st);
        return -1;
    }
    return 0;
}

static void Plan_dealloc(PyObject *self_)
{
    PlanObject *self = (PlanObject *)self_;
    PyTypeObject *type = Py_TYPE(self_);
    freefunc tp_free = (freefunc)PyType_GetSlot(type, Py_tp_free);
    jf_plan_free(self->plan);
    tp_free(self_);
    if (g_heap_types_counted)
        Py_DECREF(type);
}

static jf_plan *plan_of(PyObject *obj)
{
    if (!PyObject_TypeCheck(obj, (PyTypeObject *)g_plan_type) || !((PlanObject *)obj)->plan) {
        PyErr_SetString(PyExc_TypeError, "a jetfilter Plan is needed");
        return NULL;
    }
    return ((PlanObject *)obj)->plan;
}

static PyObject *Plan_describe(PyObject *self, PyObject *unused)
{
    jf_plan *p = plan_of(self);
    (void)unused;
    return p ? PyUnicode_FromString(jf_plan_describe(p)) : NULL;
}

static PyObject *Plan_value(PyObject *self, PyObject *arg)
{
    jf_plan *p = plan_of(self);
    PyObject *name;
    char out[512];
    jf_status st;
    if (!p || !(name = utf8_of(arg)))
        return NULL;
    st = jf_plan_value(p, PyBytes_AsString(name), out, sizeof out);
    Py_DECREF(name);
    if (st != JF_OK)
        return raise_status(st);
    return PyUnicode_FromString(out);
}

static PyMethodDef Plan_methods[] = {
    {"describe", Plan_describe, METH_NOARGS, "The plan in a few words: 'median k=5'."},
    {"value", Plan_value, METH_O, "A parameter's resolved value, as text."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot Plan_slots[] = {
    {Py_tp_doc, "Plan(op, params): an operation of the table with its parameters, checked and "
                "resolved once, run on many images."},
    {Py_tp_init, (void *)Plan_init},
    {Py_tp_dealloc, (void *)Plan_dealloc},
    {Py_tp_methods, Plan_methods},
    {Py_tp_new, (void *)PyType_GenericNew},
    {0, NULL}};

static PyType_Spec Plan_spec = {"jetfilter._jetfilter.Plan", sizeof(PlanObject), 0,
                                Py_TPFLAGS_DEFAULT, Plan_slots};

/* ---- running -------------------------------------------------------------------- */

/* run(context, plan, src, dst) -> (variant, kernel, decision, estimate) */
static PyObject *py_run(PyObject *mod, PyObject *args)
{
    PyObject *ctx_obj, *plan_obj, *src_spec, *dst_spec;
    jf_context *ctx;
    jf_plan *plan;
    jf_image src, dst;
    jf_op_result r = JF_OP_RESULT_INIT;
    jf_status st;
    (void)mod;
    if (!PyArg_ParseTuple(args, "OOOO", &ctx_obj, &plan_obj, &src_spec, &dst_spec) ||
        !(plan = plan_of(plan_obj)) || parse_image(src_spec, &src) < 0)
        return NULL;
    if (dst_spec == Py_None)
        memset(&dst, 0, sizeof dst);
    else if (parse_image(dst_spec, &dst) < 0)
        return NULL;
    if (!(ctx = acquire_context(ctx_obj)))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    st = jf_plan_run(ctx, plan, &src, dst_spec == Py_None ? NULL : &dst, &r);
    Py_END_ALLOW_THREADS
    release_context(ctx_obj);
    if (st != JF_OK)
        return raise_status(st);
    return Py_BuildValue("(sssd)", jf_variant_name(r.variant), r.kernel, r.decision, r.estimate);
}

/* ---- a filter call in one step --------------------------------------------- */

/* fast(plan, image, out, context): the whole of a plain filter call for the
 * arrays users hand in most (NumPy's, and CuPy's and PyTorch's CUDA tensors
 * once one of theirs was seen), read
 * here rather than through the package's Python layers, which cost more
 * than a small image's filter.  Anything it does not take as the Python
 * path would (another type, float16, a view that is not dense rows, an
 * out= that does not match, a context of another device, memory the GPU
 * shares, a caller's stream that must be given back) returns
 * NotImplemented before any work, and the package takes the Python path,
 * which does the same work or raises the error naming what was wrong. */
static struct {
    PyObject *numpy_type, *np_empty, *dtypes[3]; /* uint8, uint16, float32 (native order) */
    PyObject *context_class, *default_context;
    PyObject *cupy_type, *cupy_stream; /* cupy.ndarray, cupy.cuda.get_current_stream */
    PyObject *cupy_empty, *cupy_device; /* cupy.empty, cupy.cuda.runtime.getDevice */
    PyObject *torch_type, *torch_dtypes[3], *torch_stream; /* torch.Tensor, torch.cuda.current_stream */
    PyObject *s_array_struct, *s_data, *s_ptr, *s_device_id, *s_shape, *s_strides, *s_dtype;
    PyObject *s_is_cuda, *s_device, *s_stream, *s_stream_owner, *s_data_ptr, *s_stride, *s_index;
    PyObject *s_cuda_stream;
} g_fast;

enum { FAST_NUMPY, FAST_CUPY, FAST_TORCH };

/* fast_setup(numpy.ndarray, numpy.empty, (uint8, uint16, float32), Context, default_context) */
static PyObject *py_fast_setup(PyObject *mod, PyObject *args)
{
    PyObject *nt, *empty, *dtypes, *cls, *dflt;
    int i;
    (void)mod;
    if (!PyArg_ParseTuple(args, "OOO!OO", &nt, &empty, &PyTuple_Type, &dtypes, &cls, &dflt) ||
        PyTuple_Size(dtypes) != 3)
        return PyErr_Occurred() ? NULL : (PyErr_SetString(PyExc_TypeError, "three dtypes"), NULL);
#define JF_KEEP(field, value) (Py_INCREF(value), Py_XDECREF(g_fast.field), g_fast.field = (value))
    JF_KEEP(numpy_type, nt);
    JF_KEEP(np_empty, empty);
    JF_KEEP(context_class, cls);
    JF_KEEP(default_context, dflt);
    for (i = 0; i < 3; i++)
        JF_KEEP(dtypes[i], PyTuple_GetItem(dtypes, i));
    if (!g_fast.s_array_struct) {
        static const char *const names[] = {"__array_struct__", "data", "ptr", "device_id", "shape",
                                            "strides", "dtype", "is_cuda", "device", "_stream",
                                            "_stream_owner", "data_ptr", "stride", "index",
                                            "cuda_stream"};
        PyObject **slots[] = {&g_fast.s_array_struct, &g_fast.s_data, &g_fast.s_ptr,
                              &g_fast.s_device_id, &g_fast.s_shape, &g_fast.s_strides,
                              &g_fast.s_dtype, &g_fast.s_is_cuda, &g_fast.s_device,
                              &g_fast.s_stream, &g_fast.s_stream_owner, &g_fast.s_data_ptr,
                              &g_fast.s_stride, &g_fast.s_index, &g_fast.s_cuda_stream};
        for (i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
            if (!(*slots[i] = PyUnicode_InternFromString(names[i])))
                return NULL;
    }
    Py_RETURN_NONE;
}

/* fast_cupy(cupy.ndarray, cupy.cuda.get_current_stream, cupy.empty, cupy.cuda.runtime.getDevice) */
static PyObject *py_fast_cupy(PyObject *mod, PyObject *args)
{
    PyObject *t, *stream, *empty, *device;
    (void)mod;
    if (!PyArg_ParseTuple(args, "OOOO", &t, &stream, &empty, &device))
        return NULL;
    JF_KEEP(cupy_type, t);
    JF_KEEP(cupy_stream, stream);
    JF_KEEP(cupy_empty, empty);
    JF_KEEP(cupy_device, device);
    Py_RETURN_NONE;
}

/* fast_torch(torch.Tensor, (uint8, uint16 or None, float32), STREAM): STREAM(device) is
 * torch.cuda.current_stream (a Stream) or torch._C._cuda_getCurrentRawStream (its handle) */
static PyObject *py_fast_torch(PyObject *mod, PyObject *args)
{
    PyObject *t, *dtypes, *stream;
    int i;
    (void)mod;
    if (!PyArg_ParseTuple(args, "OO!O", &t, &PyTuple_Type, &dtypes, &stream))
        return NULL;
    if (PyTuple_Size(dtypes) != 3) {
        PyErr_SetString(PyExc_TypeError, "three dtypes");
        return NULL;
    }
    for (i = 0; i < 3; i++)
        JF_KEEP(torch_dtypes[i], PyTuple_GetItem(dtypes, i));
    JF_KEEP(torch_type, t);
    JF_KEEP(torch_stream, stream);
#undef JF_KEEP
    Py_RETURN_NONE;
}

/* obj.name() */
static PyObject *call_method0(PyObject *obj, PyObject *name)
{
    PyObject *m = PyObject_GetAttr(obj, name), *r;
    if (!m)
        return NULL;
    r = PyObject_CallFunctionObjArgs(m, NULL);
    Py_DECREF(m);
    return r;
}

/* A NumPy or CuPy array as the intake takes it: 1, or 0 (no exception) where
 * the Python path must look; its number of dimensions in *ndim. */
static int fast_describe(PyObject *obj, int kind, int writable, const char *what, jf_image *img,
                         int *ndim)
{
    int64_t shape_v[8], strides_v[8];
    char dtype[8], why[256];
    jfpy_array a;
    int rc, i;
    memset(&a, 0, sizeof a);
    a.lanes = 1;
    if (kind == FAST_NUMPY) {
        PyObject *cap = PyObject_GetAttr(obj, g_fast.s_array_struct);
        const numpy_array_struct *s = cap && PyCapsule_CheckExact(cap)
                                          ? (const numpy_array_struct *)PyCapsule_GetPointer(cap, NULL)
                                          : NULL;
        if (!s || s->two != 2 || s->nd < 2 || s->nd > 3 || !s->shape || !(s->flags & NUMPY_NOTSWAPPED) ||
            (s->typekind == 'f' && s->itemsize == 2)) { /* float16: through a float32 copy */
            Py_XDECREF(cap);
            PyErr_Clear();
            return 0;
        }
        numpy_struct_fields(s, &a, shape_v, strides_v, dtype, sizeof dtype);
        Py_DECREF(cap);
    } else {
        /* CuPy: data.ptr, data.device_id, strides in bytes; PyTorch: data_ptr(),
         * device.index, stride() in elements, and is_cuda */
        static const char *const typestr[3] = {"|u1", "=u2", "=f4"};
        static const int itemsize[3] = {1, 2, 4};
        PyObject *const *dtypes = kind == FAST_CUPY ? g_fast.dtypes : g_fast.torch_dtypes;
        PyObject *data = NULL, *ptr = NULL, *dev = NULL, *strides = NULL, *cuda = NULL;
        PyObject *shape = PyObject_GetAttr(obj, g_fast.s_shape);
        PyObject *dt = PyObject_GetAttr(obj, g_fast.s_dtype);
        int which = -1;
        long long nd = -1, ns = -1;
        for (i = 0; dt && i < 3; i++)
            if (dt == dtypes[i])
                which = i;
        if (which >= 0 && kind == FAST_CUPY) {
            data = PyObject_GetAttr(obj, g_fast.s_data);
            ptr = data ? PyObject_GetAttr(data, g_fast.s_ptr) : NULL;
            dev = data ? PyObject_GetAttr(data, g_fast.s_device_id) : NULL;
            strides = PyObject_GetAttr(obj, g_fast.s_strides);
        } else if (which >= 0 && (cuda = PyObject_GetAttr(obj, g_fast.s_is_cuda)) == Py_True) {
            data = PyObject_GetAttr(obj, g_fast.s_device);
            dev = data ? PyObject_GetAttr(data, g_fast.s_index) : NULL;
            if (dev == Py_None) { /* torch.device("cuda"): the current device, 0 as the Python path */
                Py_DECREF(dev);
                dev = PyLong_FromLong(0);
            }
            ptr = call_method0(obj, g_fast.s_data_ptr);
            strides = call_method0(obj, g_fast.s_stride);
        }
        if (ptr && dev && shape && strides && PyLong_Check(ptr) && PyLong_Check(dev)) {
            a.data = PyLong_AsUnsignedLongLong(ptr);
            a.device = (int)PyLong_AsLong(dev);
            nd = number_list(shape, what, "shape", shape_v);
            ns = number_list(strides, what, "strides", strides_v);
        }
        Py_XDECREF(cuda);
        Py_XDECREF(data);
        Py_XDECREF(ptr);
        Py_XDECREF(dev);
        Py_XDECREF(shape);
        Py_XDECREF(strides);
        Py_XDECREF(dt);
        if (PyErr_Occurred() || nd < 2 || nd > 3 || ns != nd) {
            PyErr_Clear();
            return 0;
        }
        if (kind == FAST_TORCH)
            for (i = 0; i < nd; i++)
                strides_v[i] *= itemsize[which];
        memcpy(dtype, typestr[which], 4);
        a.ndim = nd;
        a.strides = strides_v;
        a.location = JF_LOC_DEVICE;
    }
    a.shape = shape_v;
    a.dtype = dtype;
    rc = jfpy_intake(&a, writable, what, img, why, sizeof why);
    *ndim = (int)a.ndim;
    return rc == 0;
}

/* The Python Context's attribute as a C long; 0 and no exception if absent. */
static long long context_attr(PyObject *ctx, PyObject *name, int *ok)
{
    PyObject *v = PyObject_GetAttr(ctx, name);
    long long n = 0;
    if (v && PyLong_Check(v))
        n = (long long)PyLong_AsUnsignedLongLongMask(v);
    else
        *ok = 0;
    Py_XDECREF(v);
    PyErr_Clear();
    return n;
}

static int host_memory(const jf_image *img)
{
    jf_location loc;
    int dev;
    return jf_memory_locate(img->data, &loc, &dev) == JF_OK && loc == JF_LOC_HOST;
}

static PyObject *py_fast(PyObject *mod, PyObject *args)
{
    PyObject *plan_obj, *image, *out, *context, *ctx_obj = NULL, *made = NULL, *stream_obj = NULL;
    PyObject *result = NULL;
    jf_image src, dst;
    jf_plan *plan;
    jf_context *ctx;
    jf_status st;
    int kind, on_device, ndim_src, ndim_dst, ok = 1, is_cuda;
    unsigned long long stream = 0, current;
    (void)mod;
    if (!PyArg_UnpackTuple(args, "fast", 4, 4, &plan_obj, &image, &out, &context) ||
        !(plan = plan_of(plan_obj)))
        return NULL;
    if (!g_fast.numpy_type)
        Py_RETURN_NOTIMPLEMENTED;
    if ((PyObject *)Py_TYPE(image) == g_fast.numpy_type)
        kind = FAST_NUMPY;
    else if (g_fast.cupy_type && (PyObject *)Py_TYPE(image) == g_fast.cupy_type)
        kind = FAST_CUPY;
    else if (g_fast.torch_type && (PyObject *)Py_TYPE(image) == g_fast.torch_type)
        kind = FAST_TORCH;
    else
        Py_RETURN_NOTIMPLEMENTED;
    on_device = kind != FAST_NUMPY; /* a PyTorch tensor on the host: fast_describe declines it */
    if ((out != Py_None && Py_TYPE(out) != Py_TYPE(image)) || (kind == FAST_TORCH && out == Py_None) ||
        !fast_describe(image, kind, 0, "image", &src, &ndim_src))
        Py_RETURN_NOTIMPLEMENTED;
    /* the context: the caller's, else this thread's for where the image is */
    if (context == Py_None) {
        PyObject *dev = on_device ? PyLong_FromLong(src.device) : (Py_INCREF(Py_None), Py_None);
        ctx_obj = dev ? PyObject_CallFunctionObjArgs(g_fast.default_context, dev, NULL) : NULL;
        Py_XDECREF(dev);
        if (!ctx_obj)
            return NULL;
    } else {
        ctx_obj = context;
        Py_INCREF(ctx_obj);
    }
    if (!PyObject_TypeCheck(ctx_obj, (PyTypeObject *)g_fast.context_class))
        goto python_path;
    {
        PyObject *v = PyObject_GetAttr(ctx_obj, g_fast.s_is_cuda);
        is_cuda = v ? PyObject_IsTrue(v) : -1;
        Py_XDECREF(v);
        if (is_cuda < 0) {
            PyErr_Clear();
            goto python_path;
        }
    }
    if (on_device && (!is_cuda || context_attr(ctx_obj, g_fast.s_device, &ok) != src.device || !ok))
        goto python_path;
    if (!on_device && is_cuda && !host_memory(&src))
        goto python_path; /* a frame the GPU shares: the Python path waits for it */
    current = (unsigned long long)context_attr(ctx_obj, g_fast.s_stream, &ok);
    if (!ok)
        goto python_path;
    if (on_device) { /* the stream CuPy, or PyTorch on the image's device, works on now */
        PyObject *p;
        if (kind == FAST_CUPY)
            stream_obj = PyObject_CallFunctionObjArgs(g_fast.cupy_stream, NULL);
        else {
            PyObject *dev = PyLong_FromLong(src.device);
            stream_obj = dev ? PyObject_CallFunctionObjArgs(g_fast.torch_stream, dev, NULL) : NULL;
            Py_XDECREF(dev);
        }
        if (!stream_obj)
            goto fail;
        if (kind == FAST_TORCH && PyLong_Check(stream_obj)) {
            /* the handle itself, with no object to hold: PyTorch's own
             * streams live in its pool for the process's life (an external
             * one is its maker's to keep, as it was behind a Stream), so
             * the context holds PyTorch's tensor type as the owner */
            p = stream_obj;
            stream_obj = g_fast.torch_type;
            Py_INCREF(stream_obj);
        } else
            p = PyObject_GetAttr(stream_obj, kind == FAST_CUPY ? g_fast.s_ptr : g_fast.s_cuda_stream);
        if (!p || !PyLong_Check(p)) {
            Py_XDECREF(p);
            PyErr_Clear();
            goto python_path;
        }
        stream = PyLong_AsUnsignedLongLong(p);
        Py_DECREF(p);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            goto python_path;
        }
        if (!stream)
            stream = 1; /* the legacy default stream, which others sync with */
    } else if (current > 2) { /* a caller's stream the context must give back unless it holds it */
        PyObject *owner = PyObject_GetAttr(ctx_obj, g_fast.s_stream_owner);
        const int held = owner && owner != Py_None;
        Py_XDECREF(owner);
        PyErr_Clear();
        if (!held)
            goto python_path;
    }
    /* out=: given (of the image's shape, dtype and place), or made by the
     * image's library: CuPy's only on the device current now (the Python
     * path selects the image's for it) */
    if (out == Py_None) {
        PyObject *shape, *dt;
        if (kind == FAST_CUPY) {
            PyObject *cur = PyObject_CallFunctionObjArgs(g_fast.cupy_device, NULL);
            const long d = cur && PyLong_Check(cur) ? PyLong_AsLong(cur) : -1;
            Py_XDECREF(cur);
            PyErr_Clear();
            if (d != src.device)
                goto python_path;
        }
        shape = PyObject_GetAttr(image, g_fast.s_shape);
        dt = PyObject_GetAttr(image, g_fast.s_dtype);
        if (shape && dt)
            made = PyObject_CallFunctionObjArgs(kind == FAST_CUPY ? g_fast.cupy_empty : g_fast.np_empty,
                                                shape, dt, NULL);
        Py_XDECREF(shape);
        Py_XDECREF(dt);
        if (!made)
            goto fail;
        out = made;
    }
    if (!fast_describe(out, kind, 1, "out", &dst, &ndim_dst) || dst.width != src.width ||
        dst.height != src.height || dst.channels != src.channels || dst.sample != src.sample ||
        dst.device != src.device || !(ndim_dst == ndim_src || (ndim_src == 2 && ndim_dst == 3)) ||
        (!on_device && is_cuda && !made && !host_memory(&dst)))
        goto python_path;
    if (on_device) {
        if (stream != current) {
            PyObject *v;
            if (!(ctx = acquire_context(ctx_obj)))
                goto fail;
            st = jf_context_set_stream(ctx, (void *)(uintptr_t)stream);
            release_context(ctx_obj);
            if (st != JF_OK) {
                raise_status(st);
                goto fail;
            }
            if (!(v = PyLong_FromUnsignedLongLong(stream)) ||
                PyObject_SetAttr(ctx_obj, g_fast.s_stream, v) < 0) {
                Py_XDECREF(v);
                goto fail;
            }
            Py_DECREF(v);
        }
        if (PyObject_SetAttr(ctx_obj, g_fast.s_stream_owner, stream_obj) < 0)
            goto fail;
    }
    if (!(ctx = acquire_context(ctx_obj)))
        goto fail;
    Py_BEGIN_ALLOW_THREADS
    st = jf_plan_run(ctx, plan, &src, &dst, NULL);
    Py_END_ALLOW_THREADS
    release_context(ctx_obj);
    if (st != JF_OK) {
        raise_status(st);
        goto fail;
    }
    Py_INCREF(out);
    result = out;
    goto done;
python_path:
    Py_INCREF(Py_NotImplemented);
    result = Py_NotImplemented;
    goto done;
fail:
    result = NULL;
done:
    Py_XDECREF(ctx_obj);
    Py_XDECREF(made);
    Py_XDECREF(stream_obj);
    return result;
}

/* c_call_loop(context, plan, src, dst, calls) -> microseconds a call: the
 * same call as run(), made `calls` times from C with the GIL held, for the
 * benchmark of what Python adds (benchmarks/python_bench.py); the context
 * is synchronised after. */
static PyObject *py_c_call_loop(PyObject *mod, PyObject *args)
{
    PyObject *ctx_obj, *plan_obj, *src_spec, *dst_spec;
    jf_context *ctx;
    jf_plan *plan;
    jf_image src, dst;
    int calls, i;
    jf_status st = JF_OK;
    struct timespec t0, t1;
    (void)mod;
    if (!PyArg_ParseTuple(args, "OOOOi", &ctx_obj, &plan_obj, &src_spec, &dst_spec, &calls) ||
        !(plan = plan_of(plan_obj)) || parse_image(src_spec, &src) < 0 ||
        parse_image(dst_spec, &dst) < 0 || !(ctx = acquire_context(ctx_obj)))
        return NULL;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (i = 0; i < calls && st == JF_OK; i++)
        st = jf_plan_run(ctx, plan, &src, &dst, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st == JF_OK)
        st = jf_context_sync(ctx);
    release_context(ctx_obj);
    if (st != JF_OK)
        return raise_status(st);
    return PyFloat_FromDouble(((t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) / 1e3) /
                              (calls > 0 ? calls : 1));
}

/* measure(context, plan, a, b) -> float */
static PyObject *py_measure(PyObject *mod, PyObject *args)
{
    PyObject *ctx_obj, *plan_obj, *a_spec, *b_spec;
    jf_context *ctx;
    jf_plan *plan;
    jf_image a, b;
    double value = 0;
    jf_status st;
    (void)mod;
    if (!PyArg_ParseTuple(args, "OOOO", &ctx_obj, &plan_obj, &a_spec, &b_spec) ||
        !(plan = plan_of(plan_obj)) || parse_image(a_spec, &a) < 0 || parse_image(b_spec, &b) < 0 ||
        !(ctx = acquire_context(ctx_obj)))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    st = jf_plan_measure(ctx, plan, &a, &b, &value);
    Py_END_ALLOW_THREADS
    release_context(ctx_obj);
    if (st != JF_OK)
        return raise_status(st);
    return PyFloat_FromDouble(value);
}

/* estimate(context, plan, image) -> {sigma, poisson_a, poisson_b, signal_dependent,
 * impulse_density, patches} */
static PyObject *py_estimate(PyObject *mod, PyObject *args)
{
    PyObject *ctx_obj, *plan_obj, *spec;
    jf_context *ctx;
    jf_plan *plan;
    jf_image img;
    jf_noise_estimate e;
    jf_status st;
    (void)mod;
    if (!PyArg_ParseTuple(args, "OOO", &ctx_obj, &plan_obj, &spec) || !(plan = plan_of(plan_obj)) ||
        parse_image(spec, &img) < 0 || !(ctx = acquire_context(ctx_obj)))
        return NULL;
    memset(&e, 0, sizeof e);
    e.size = sizeof e;
    Py_BEGIN_ALLOW_THREADS
    st = jf_plan_estimate(ctx, plan, &img, &e);
    Py_END_ALLOW_THREADS
    release_context(ctx_obj);
    if (st != JF_OK)
        return raise_status(st);
    return Py_BuildValue("{sdsdsdsOsdsi}", "sigma", e.sigma, "poisson_a", e.poisson_a, "poisson_b",
                         e.poisson_b, "signal_dependent", e.signal_dependent ? Py_True : Py_False,
                         "impulse_density", e.impulse_density, "patches", e.patches);
}

/* copy(context, src, dst): pixels between images in any two locations */
static PyObject *py_copy(PyObject *mod, PyObject *args)
{
    PyObject *ctx_obj, *src_spec, *dst_spec;
    jf_context *ctx;
    jf_image src, dst;
    jf_status st;
    (void)mod;
    if (!PyArg_ParseTuple(args, "OOO", &ctx_obj, &src_spec, &dst_spec) ||
        parse_image(src_spec, &src) < 0 || parse_image(dst_spec, &dst) < 0 ||
        !(ctx = acquire_context(ctx_obj)))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    if (src.location == JF_LOC_HOST && dst.location == JF_LOC_HOST)
        st = src.sample == dst.sample ? jf_image_copy(&src, &dst) : jf_image_convert(&src, &dst);
    else
        st = jf_image_transfer(ctx, &src, &dst);
    Py_END_ALLOW_THREADS
    release_context(ctx_obj);
    if (st != JF_OK)
        return raise_status(st);
    Py_RETURN_NONE;
}

/* ---- buffers the library allocates ---------------------------------------------- */

/* Memory from jf_image_alloc_on (device, mapped, managed) or jf_picture_read
 * (a decoded picture): freed when the last view of it goes. */
typedef struct {
    PyObject_HEAD
    jf_image img;     /* an image the buffer owns, or ... */
    jf_picture pic;   /* ... a decoded picture's colour plane (and its metadata) */
    int is_picture;
    char warning[256]; /* what decoding it left out */
} BufferObject;

static PyObject *g_buffer_type;

static void Buffer_dealloc(PyObject *self_)
{
    BufferObject *self = (BufferObject *)self_;
    PyTypeObject *type = Py_TYPE(self_);
    freefunc tp_free = (freefunc)PyType_GetSlot(type, Py_tp_free);
    Py_BEGIN_ALLOW_THREADS /* cudaFree waits for work that uses it */
    if (self->is_picture)
        jf_picture_free(&self->pic);
    else
        jf_image_free(&self->img);
    Py_END_ALLOW_THREADS
    tp_free(self_);
    if (g_heap_types_counted)
        Py_DECREF(type);
}

static const jf_image *buffer_image(BufferObject *b) { return b->is_picture ? &b->pic.color : &b->img; }

static PyObject *Buffer_image(PyObject *self, PyObject *unused)
{
    (void)unused;
    return describe_image(buffer_image((BufferObject *)self));
}

static PyObject *Buffer_alpha(PyObject *self, PyObject *unused)
{
    BufferObject *b = (BufferObject *)self;
    (void)unused;
    if (!b->is_picture || !b->pic.alpha.data)
        Py_RETURN_NONE;
    return describe_image(&b->pic.alpha);
}

static PyObject *Buffer_picture_info(PyObject *self, PyObject *unused)
{
    BufferObject *b = (BufferObject *)self;
    (void)unused;
    if (!b->is_picture)
        Py_RETURN_NONE;
    return Py_BuildValue("{sssnsnsisiss}", "format", jf_format_name(b->pic.format), "icc_bytes",
                         (Py_ssize_t)b->pic.icc_size, "exif_bytes", (Py_ssize_t)b->pic.exif_size,
                         "other_metadata", b->pic.extra_count, "cmyk",
                         b->pic.color_model == JF_COLOR_CMYK, "warning", b->warning);
}

static PyMethodDef Buffer_methods[] = {
    {"image", Buffer_image, METH_NOARGS, "The description of the pixels it holds."},
    {"alpha", Buffer_alpha, METH_NOARGS, "A decoded picture's alpha plane, or None."},
    {"picture_info", Buffer_picture_info, METH_NOARGS, "A decoded picture's format and metadata."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot Buffer_slots[] = {
    {Py_tp_doc, "Memory jetfilter allocated (device, mapped, managed, or a decoded picture), "
                "released with its last view."},
    {Py_tp_dealloc, (void *)Buffer_dealloc},
    {Py_tp_methods, Buffer_methods},
    {0, NULL}};

static PyType_Spec Buffer_spec = {"jetfilter._jetfilter.Buffer", sizeof(BufferObject), 0,
                                  Py_TPFLAGS_DEFAULT, Buffer_slots};

static BufferObject *new_buffer(void)
{
    PyTypeObject *t = (PyTypeObject *)g_buffer_type;
    allocfunc alloc = (allocfunc)PyType_GetSlot(t, Py_tp_alloc);
    BufferObject *b = (BufferObject *)alloc(t, 0);
    if (b) {
        memset(&b->img, 0, sizeof b->img);
        memset(&b->pic, 0, sizeof b->pic);
        b->is_picture = 0;
        b->warning[0] = '\0';
    }
    return b;
}

/* alloc(context, width, height, channels, sample, location) -> Buffer */
static PyObject *py_alloc(PyObject *mod, PyObject *args)
{
    PyObject *ctx_obj;
    jf_context *ctx;
    int w, h, c, sample, loc;
    BufferObject *b;
    jf_status st;
    (void)mod;
    if (!PyArg_ParseTuple(args, "Oiiiii", &ctx_obj, &w, &h, &c, &sample, &loc) || !(b = new_buffer()))
        return NULL;
    if (!(ctx = acquire_context(ctx_obj))) {
        Py_DECREF(b);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    st = loc == JF_LOC_HOST ? jf_image_alloc_as(&b->img, w, h, c, (jf_sample)sample)
                            : jf_image_alloc_on_as(ctx, &b->img, w, h, c, (jf_location)loc,
                                                   (jf_sample)sample);
    Py_END_ALLOW_THREADS
    release_context(ctx_obj);
    if (st != JF_OK) {
        Py_DECREF(b);
        return raise_status(st);
    }
    return (PyObject *)b;
}

/* ---- codecs ---------------------------------------------------------------------- */

/* read(path) -> Buffer holding the decoded picture */
static PyObject *py_read(PyObject *mod, PyObject *args)
{
    PyObject *path_obj;
    const char *path;
    BufferObject *b;
    jf_status st;
    (void)mod;
    if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path_obj))
        return NULL;
    path = PyBytes_AsString(path_obj);
    if (!path || !(b = new_buffer())) {
        Py_DECREF(path_obj);
        return NULL;
    }
    b->is_picture = 1;
    Py_BEGIN_ALLOW_THREADS
    st = jf_picture_read(path, &b->pic);
    if (st == JF_OK)
        snprintf(b->warning, sizeof b->warning, "%s", jf_last_warning());
    Py_END_ALLOW_THREADS
    Py_DECREF(path_obj);
    if (st != JF_OK) {
        Py_DECREF(b);
        return raise_status(st);
    }
    return (PyObject *)b;
}

/* write(path, image, alpha, like, format, quality, png_level, png_filter,
 * tiff_compression, webp_mode) ->
 * the warning ("" if none).  `like`: a Buffer whose picture's metadata goes
 * with the pixels, or None. */
static PyObject *py_write(PyObject *mod, PyObject *args)
{
    PyObject *path_obj, *spec, *alpha_spec, *like;
    const char *path;
    int format, quality, level, filter, tiff, webp;
    jf_picture pic;
    jf_encode_options e = jf_encode_defaults();
    jf_status st;
    (void)mod;
    if (!PyArg_ParseTuple(args, "O&OOOiiiiii", PyUnicode_FSConverter, &path_obj, &spec, &alpha_spec,
                          &like, &format, &quality, &level, &filter, &tiff, &webp))
        return NULL;
    path = PyBytes_AsString(path_obj);
    memset(&pic, 0, sizeof pic);
    if (like != Py_None) {
        if (!PyObject_TypeCheck(like, (PyTypeObject *)g_buffer_type) ||
            !((BufferObject *)like)->is_picture) {
            Py_DECREF(path_obj);
            PyErr_SetString(PyExc_TypeError, "metadata comes from a picture jetfilter.read made");
            return NULL;
        }
        pic = ((BufferObject *)like)->pic; /* its metadata, borrowed; the pixels are replaced */
    }
    if (!path || parse_image(spec, &pic.color) < 0 ||
        (alpha_spec != Py_None && parse_image(alpha_spec, &pic.alpha) < 0)) {
        Py_DECREF(path_obj);
        return NULL;
    }
    if (alpha_spec == Py_None)
        memset(&pic.alpha, 0, sizeof pic.alpha);
    pic.color.owned = pic.alpha.owned = 0;
    if (like == Py_None)
        pic.color_model = JF_COLOR_DEFAULT;
    if (like == Py_None)
        pic.format = (jf_format)format; /* else the input's: what "same" compression reads */
    e.format = (jf_format)format;
    e.tiff_compression = tiff;
    e.webp_mode = webp;
    e.quality = quality;
    e.png_level = level;
    e.png_filter = filter;
    Py_BEGIN_ALLOW_THREADS
    st = jf_picture_write(path, &pic, &e);
    Py_END_ALLOW_THREADS
    Py_DECREF(path_obj);
    if (st != JF_OK)
        return raise_status(st);
    return PyUnicode_FromString(jf_last_warning());
}

/* ---- the operation table ------------------------------------------------------------ */

static PyObject *choices_list(const char *const *choices)
{
    PyObject *list = PyList_New(0);
    int i;
    for (i = 0; list && choices && choices[i]; i++) {
        PyObject *s = PyUnicode_FromString(choices[i]);
        if (!s || PyList_Append(list, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(s);
    }
    return list;
}

static const char *param_type_name(jf_param_type t)
{
    static const char *const names[] = {"int", "float", "choice", "file", "size", "weights"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "unknown";
}

/* ops() -> [{name, summary, kind, exact, samples, estimate, auto_rule, params: [...]}] */
static PyObject *py_ops(PyObject *mod, PyObject *unused)
{
    PyObject *list = PyList_New(0);
    int i, j;
    (void)mod, (void)unused;
    for (i = 0; list && i < jf_op_count(); i++) {
        const jf_op_info *op = jf_op_get(i);
        PyObject *params = PyList_New(0), *d;
        for (j = 0; params && j < op->param_count; j++) {
            const jf_param_info *p = &op->params[j];
            PyObject *choices = choices_list(p->choices);
            PyObject *pd = choices ? Py_BuildValue("{sssssssssssdsdsisO}", "name", p->name, "type",
                                                   param_type_name(p->type), "metavar",
                                                   p->metavar ? p->metavar : "", "help",
                                                   p->help ? p->help : "", "default",
                                                   p->default_text ? p->default_text : "", "min",
                                                   p->min, "max", p->max, "odd", p->odd, "choices",
                                                   choices)
                                   : NULL;
            Py_XDECREF(choices);
            if (!pd || PyList_Append(params, pd) < 0) {
                Py_XDECREF(pd);
                Py_CLEAR(params);
                break;
            }
            Py_DECREF(pd);
        }
        if (!params) {
            Py_DECREF(list);
            return NULL;
        }
        d = Py_BuildValue("{sssssssisIsssssssO}", "name", op->name, "summary", op->summary, "kind",
                          jf_op_kind_name(op->kind), "exact", op->exact, "samples", op->samples,
                          "estimate", op->estimate_name ? op->estimate_name : "", "auto_rule",
                          op->auto_rule ? op->auto_rule : "", "samples_rule",
                          op->samples_rule ? op->samples_rule : "", "params", params);
        Py_DECREF(params);
        if (!d || PyList_Append(list, d) < 0) {
            Py_XDECREF(d);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(d);
    }
    return list;
}

/* ---- DLPack ----------------------------------------------------------------------- */

/* DLPack's C structures (dlpack.h, a stable ABI since 0.2) */
typedef struct { int32_t device_type, device_id; } DLDevice;
typedef struct { uint8_t code, bits; uint16_t lanes; } DLDataType;
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape, *strides;
    uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
enum { DL_CPU = 1, DL_CUDA = 2, DL_CUDA_HOST = 3, DL_CUDA_MANAGED = 13 };

/* A capsule's tensor, kept alive by the object that consumed it. */
typedef struct {
    PyObject_HEAD
    DLManagedTensor *t;
} DLHolderObject;

static PyObject *g_holder_type;

static void DLHolder_dealloc(PyObject *self_)
{
    DLHolderObject *self = (DLHolderObject *)self_;
    PyTypeObject *type = Py_TYPE(self_);
    freefunc tp_free = (freefunc)PyType_GetSlot(type, Py_tp_free);
    if (self->t && self->t->deleter)
        self->t->deleter(self->t);
    tp_free(self_);
    if (g_heap_types_counted)
        Py_DECREF(type);
}

static PyType_Slot DLHolder_slots[] = {
    {Py_tp_doc, "A DLPack tensor taken from its capsule, released with its last view."},
    {Py_tp_dealloc, (void *)DLHolder_dealloc},
    {0, NULL}};

static PyType_Spec DLHolder_spec = {"jetfilter._jetfilter.DLPackHolder", sizeof(DLHolderObject), 0,
                                    Py_TPFLAGS_DEFAULT, DLHolder_slots};

/* from_dlpack_capsule(capsule, what, writable) -> (holder, description, shape): the
 * capsule's tensor through the one intake; the holder keeps it alive (and
 * releases a refused one at once). */
static PyObject *py_from_dlpack_capsule(PyObject *mod, PyObject *args)
{
    PyObject *capsule, *shape, *out;
    const char *what;
    int writable, i, location, rc;
    DLManagedTensor *t;
    DLHolderObject *h;
    DLTensor *d;
    allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)g_holder_type, Py_tp_alloc);
    int64_t strides[3];
    char dtype[48], why[512];
    jfpy_array a;
    jf_image img;
    (void)mod;
    if (!PyArg_ParseTuple(args, "Osp", &capsule, &what, &writable))
        return NULL;
    if (!PyCapsule_IsValid(capsule, "dltensor")) {
        PyErr_Format(g_errors[-JF_ERR_ARG], "%s: not an unused DLPack capsule ('dltensor')", what);
        return NULL;
    }
    t = (DLManagedTensor *)PyCapsule_GetPointer(capsule, "dltensor");
    if (!t) {
        PyErr_Clear();
        PyErr_Format(g_errors[-JF_ERR_ARG], "%s: a DLPack capsule holding nothing", what);
        return NULL;
    }
    if (!(h = (DLHolderObject *)alloc((PyTypeObject *)g_holder_type, 0)))
        return NULL;
    h->t = t;
    if (PyCapsule_SetName(capsule, "used_dltensor") < 0) { /* ours now: the holder deletes it */
        h->t = NULL;
        Py_DECREF(h);
        return NULL;
    }
    d = &t->dl_tensor;
    switch (d->device.device_type) {
    case DL_CPU: location = JF_LOC_HOST; break;
    case DL_CUDA: location = JF_LOC_DEVICE; break;
    case DL_CUDA_HOST: location = JF_LOC_MAPPED; break;
    case DL_CUDA_MANAGED: location = JF_LOC_MANAGED; break;
    default:
        Py_DECREF(h);
        PyErr_Format(g_errors[-JF_ERR_ARG], "%s: DLPack device type %d (not CPU or CUDA)", what,
                     (int)d->device.device_type);
        return NULL;
    }
    jfpy_dlpack_dtype(d->dtype.code, d->dtype.bits, dtype, sizeof dtype);
    memset(&a, 0, sizeof a);
    a.data = (uint64_t)(uintptr_t)d->data;
    a.ndim = d->ndim;
    a.shape = d->ndim >= 2 && d->ndim <= 3 ? d->shape : NULL;
    a.dtype = dtype;
    a.lanes = d->dtype.lanes;
    a.location = location;
    a.device = location == JF_LOC_HOST ? -1 : d->device.device_id;
    if (a.data > UINT64_MAX - d->byte_offset)
        a.data = 0; /* refused below as having no data */
    else if (a.data)
        a.data += d->byte_offset;
    if (d->strides && a.shape) { /* elements to bytes */
        const int64_t isz = d->dtype.bits / 8 > 0 ? d->dtype.bits / 8 : 1;
        for (i = 0; i < d->ndim; i++)
            strides[i] = d->strides[i] > INT64_MAX / isz || d->strides[i] < INT64_MIN / isz
                             ? -1 : d->strides[i] * isz;
        a.strides = strides;
    }
    if ((rc = jfpy_intake(&a, writable, what, &img, why, sizeof why)) != 0) {
        Py_DECREF(h);
        PyErr_SetString(g_errors[-JF_ERR_ARG], why);
        return NULL;
    }
    shape = d->ndim == 2 ? Py_BuildValue("(LL)", (long long)d->shape[0], (long long)d->shape[1])
                         : Py_BuildValue("(LLL)", (long long)d->shape[0], (long long)d->shape[1],
                                         (long long)d->shape[2]);
    out = shape ? Py_BuildValue("(ONO)", (PyObject *)h, describe_image(&img), shape) : NULL;
    Py_XDECREF(shape);
    Py_DECREF(h);
    return out;
}

/* What our capsule carries: the tensor, its shape and strides, and a
 * reference to the object whose memory it describes. */
typedef struct {
    DLManagedTensor t;
    int64_t shape[3], strides[3];
    PyObject *owner;
} ExportedTensor;

static void exported_deleter(DLManagedTensor *self)
{
    ExportedTensor *e = (ExportedTensor *)self;
    PyGILState_STATE g = PyGILState_Ensure(); /* consumers may delete from any thread */
    Py_XDECREF(e->owner);
    PyGILState_Release(g);
    free(e);
}

static void capsule_destructor(PyObject *capsule)
{
    /* a capsule nobody consumed still owns its tensor */
    if (PyCapsule_IsValid(capsule, "dltensor")) {
        DLManagedTensor *t = (DLManagedTensor *)PyCapsule_GetPointer(capsule, "dltensor");
        if (t && t->deleter)
            t->deleter(t);
    } else {
        PyErr_Clear();
    }
}

/* to_dlpack_capsule(owner, ptr, device_type, device_id, shape, strides, bits, code) -> capsule
 * shape and strides (in elements) of 2 or 3 dimensions; code 1 unsigned
 * integers, 2 floats (DLPack's kDLUInt, kDLFloat). */
static PyObject *py_to_dlpack_capsule(PyObject *mod, PyObject *args)
{
    PyObject *owner, *shape, *strides, *capsule;
    unsigned long long ptr;
    int dev_type, dev_id, bits, code, i, n;
    ExportedTensor *e;
    (void)mod;
    if (!PyArg_ParseTuple(args, "OKiiO!O!ii", &owner, &ptr, &dev_type, &dev_id, &PyTuple_Type, &shape,
                          &PyTuple_Type, &strides, &bits, &code))
        return NULL;
    if (code != 1 && code != 2) {
        PyErr_SetString(PyExc_ValueError, "DLPack type code 1 (unsigned) or 2 (float)");
        return NULL;
    }
    n = (int)PyTuple_Size(shape);
    if (n < 1 || n > 3 || PyTuple_Size(strides) != n) {
        PyErr_SetString(PyExc_ValueError, "1 to 3 dimensions, strides for each");
        return NULL;
    }
    if (!(e = (ExportedTensor *)calloc(1, sizeof *e)))
        return PyErr_NoMemory();
    for (i = 0; i < n; i++) {
        e->shape[i] = PyLong_AsLongLong(PyTuple_GetItem(shape, i));
        e->strides[i] = PyLong_AsLongLong(PyTuple_GetItem(strides, i));
    }
    if (PyErr_Occurred()) {
        free(e);
        return NULL;
    }
    e->t.dl_tensor.data = (void *)(uintptr_t)ptr;
    e->t.dl_tensor.device.device_type = dev_type;
    e->t.dl_tensor.device.device_id = dev_id;
    e->t.dl_tensor.ndim = n;
    e->t.dl_tensor.dtype.code = (uint8_t)code;
    e->t.dl_tensor.dtype.bits = (uint8_t)bits;
    e->t.dl_tensor.dtype.lanes = 1;
    e->t.dl_tensor.shape = e->shape;
    e->t.dl_tensor.strides = e->strides;
    e->t.manager_ctx = e;
    e->t.deleter = exported_deleter;
    Py_INCREF(owner);
    e->owner = owner;
    if (!(capsule = PyCapsule_New(&e->t, "dltensor", capsule_destructor))) {
        Py_DECREF(owner);
        free(e);
    }
    return capsule;
}

/* ---- small facts -------------------------------------------------------------------- */

static PyObject *py_version(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    return PyUnicode_FromString(jf_version());
}

static PyObject *py_built_with_cuda(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    return PyBool_FromLong(jf_built_with_cuda());
}

/* codec_keep(on): keep the GPU's JPEG engines between batches; with on,
 * start device 0's now (a Worker, like serve, runs batch after batch). */
static PyObject *py_codec_keep(PyObject *mod, PyObject *arg)
{
    const long on = PyLong_AsLong(arg);
    (void)mod;
    if (on == -1 && PyErr_Occurred())
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    jf_codec_keep(on != 0);
    if (on && jf_built_with_cuda() && jf_device_count() > 0)
        (void)jf_codec_probe(JF_CODEC_AUTO, 0, NULL, 0); /* none: the batches say why */
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyObject *py_device_count(PyObject *mod, PyObject *unused)
{
    int n;
    (void)mod, (void)unused;
    Py_BEGIN_ALLOW_THREADS
    n = jf_device_count();
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(n);
}

static PyObject *py_memory_locate(PyObject *mod, PyObject *arg)
{
    unsigned long long ptr = PyLong_AsUnsignedLongLong(arg);
    jf_location loc;
    int dev;
    jf_status st;
    (void)mod;
    if (PyErr_Occurred())
        return NULL;
    if ((st = jf_memory_locate((const void *)(uintptr_t)ptr, &loc, &dev)) != JF_OK)
        return raise_status(st);
    return Py_BuildValue("(ii)", (int)loc, dev);
}

static PyObject *py_last_warning(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    return PyUnicode_FromString(jf_last_warning());
}

/* ---- batches in this process (jetfilter/jobs.h) ------------------------------- */

/* What a running job's progress calls reach: its callable (called from
 * the batch's threads with the GIL taken) and the first exception raised. */
typedef struct job_progress_target {
    jf_job *job;
    PyObject *callable; /* NULL: none */
    PyObject *exc_type, *exc_value, *exc_tb;
} job_progress_target;

/* After each file: the caller's callable, then the signals, whose handlers
 * run when this is the main thread (the calling thread is one of the
 * batch's workers).  The first exception is raised once the batch has
 * stopped; a KeyboardInterrupt (Ctrl-C) stops it: no file starts after. */
static void job_progress_call(void *user, const jf_job_progress *p)
{
    job_progress_target *t = (job_progress_target *)user;
    PyGILState_STATE gil = PyGILState_Ensure();
    int failed = 0;
    if (t->callable) {
        PyObject *path = p->path ? PyUnicode_DecodeFSDefault(p->path)
                                 : (Py_INCREF(Py_None), Py_None);
        PyObject *r = path ? PyObject_CallFunction(t->callable, "iiiiddO", p->done, p->total,
                                                   p->failed, p->skipped, p->mpix, p->seconds,
                                                   path)
                           : NULL;
        Py_XDECREF(path);
        Py_XDECREF(r);
        failed = !r;
    }
    if (failed || PyErr_CheckSignals() < 0) {
        const int interrupted = PyErr_ExceptionMatches(PyExc_KeyboardInterrupt);
        if (!t->exc_type)
            PyErr_Fetch(&t->exc_type, &t->exc_value, &t->exc_tb);
        else
            PyErr_Clear();
        if (interrupted) /* Ctrl-C: no file starts after this one */
            jf_job_cancel(t->job);
    }
    PyGILState_Release(gil);
}

/* A bytes object's text for the library: NULL, with TypeError or
 * ValueError naming `what`, when it is not bytes or holds a NUL byte (the
 * C string would end there: another file, another value). */
static const char *bytes_text(PyObject *o, const char *what)
{
    const char *text = PyBytes_Check(o) ? PyBytes_AsString(o) : NULL;
    if (!PyBytes_Check(o))
        PyErr_Format(PyExc_TypeError, "job: %s is not bytes", what);
    else if (text && (size_t)PyBytes_Size(o) != strlen(text)) {
        PyErr_Format(PyExc_ValueError, "job: %s holds a NUL byte", what);
        text = NULL;
    }
    return text;
}

/* job(command, inputs, options, progress) -> the report (str): `inputs` a
 * list of bytes (file names as the system has them), `options` a list of
 * (name, bytes or None) pairs, `progress` a callable or None.  The batch's
 * failures of single files are in the report; a refusal raises. */
static PyObject *py_job(PyObject *mod, PyObject *args)
{
    const char *command;
    PyObject *inputs, *options, *progress, *report = NULL;
    job_progress_target target = {NULL, NULL, NULL, NULL, NULL};
    jf_job *job = NULL;
    jf_status st;
    Py_ssize_t i, n;
    (void)mod;
    if (!PyArg_ParseTuple(args, "sO!O!O", &command, &PyList_Type, &inputs, &PyList_Type, &options,
                          &progress))
        return NULL;
    if (progress != Py_None && !PyCallable_Check(progress)) {
        PyErr_SetString(PyExc_TypeError, "progress must be callable or None");
        return NULL;
    }
    if ((st = jf_job_create(command, &job)) != JF_OK)
        return raise_status(st);
    n = PyList_Size(inputs);
    for (i = 0; i < n; i++) {
        const char *path = bytes_text(PyList_GetItem(inputs, i), "an input");
        if (!path)
            goto out;
        if ((st = jf_job_add_input(job, path)) != JF_OK) {
            raise_status(st);
            goto out;
        }
    }
    n = PyList_Size(options);
    for (i = 0; i < n; i++) {
        PyObject *pair = PyList_GetItem(options, i), *value;
        const char *name_text, *value_text = NULL;
        if (!PyTuple_Check(pair) || PyTuple_Size(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "job: options are (name, value) pairs");
            goto out;
        }
        value = PyTuple_GetItem(pair, 1);
        if (!(name_text = bytes_text(PyTuple_GetItem(pair, 0), "an option's name")) ||
            (value != Py_None && !(value_text = bytes_text(value, "an option's value"))))
            goto out;
        if ((st = jf_job_set(job, name_text, value_text)) != JF_OK) {
            raise_status(st);
            goto out;
        }
    }
    target.job = job;
    target.callable = progress != Py_None ? progress : NULL;
    jf_job_on_progress(job, job_progress_call, &target);
    Py_BEGIN_ALLOW_THREADS
    st = jf_job_run(job);
    Py_END_ALLOW_THREADS
    if (target.exc_type) {
        PyErr_Restore(target.exc_type, target.exc_value, target.exc_tb);
        goto out;
    }
    if (st != JF_OK) {
        raise_status(st);
        goto out;
    }
    {
        const char *text = jf_job_report(job) ? jf_job_report(job) : "{}";
        report = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "surrogateescape");
    }
out:
    jf_job_destroy(job);
    return report;
}

static PyMethodDef module_methods[] = {
    {"run", py_run, METH_VARARGS, "run(context, plan, src, dst): run a filter, pad or noise plan."},
    {"fast", py_fast, METH_VARARGS,
     "fast(plan, image, out, context) -> out: a plain filter call on NumPy or CuPy arrays or "
     "PyTorch CUDA tensors in one step, or NotImplemented where the Python path must look."},
    {"fast_setup", py_fast_setup, METH_VARARGS,
     "fast_setup(ndarray, empty, dtypes, Context, default_context): what fast() reads."},
    {"fast_cupy", py_fast_cupy, METH_VARARGS,
     "fast_cupy(cupy.ndarray, get_current_stream, empty, runtime.getDevice)."},
    {"fast_torch", py_fast_torch, METH_VARARGS,
     "fast_torch(torch.Tensor, (uint8, uint16, float32), current stream or its raw handle)."},
    {"job", py_job, METH_VARARGS,
     "job(command, inputs, options, progress) -> str: a batch in this process, its JSON report."},
    {"measure", py_measure, METH_VARARGS, "measure(context, plan, a, b) -> float: run a metric plan."},
    {"estimate", py_estimate, METH_VARARGS, "estimate(context, plan, image) -> dict: run an estimate plan."},
    {"c_call_loop", py_c_call_loop, METH_VARARGS,
     "c_call_loop(context, plan, src, dst, calls) -> microseconds a call, made from C (benchmarks)."},
    {"copy", py_copy, METH_VARARGS, "copy(context, src, dst): pixels between any two locations."},
    {"alloc", py_alloc, METH_VARARGS, "alloc(context, w, h, c, sample, location) -> Buffer."},
    {"read", py_read, METH_VARARGS, "read(path) -> Buffer holding the decoded picture."},
    {"write", py_write, METH_VARARGS, "write(path, image, alpha, like, format, quality, level, filter)."},
    {"ops", py_ops, METH_NOARGS, "The operation table: every operation and its parameters."},
    {"from_dlpack_capsule", py_from_dlpack_capsule, METH_VARARGS,
     "from_dlpack_capsule(capsule, what, writable) -> (holder, description, shape)."},
    {"intake", py_intake, METH_VARARGS,
     "intake(what, writable, data, shape, strides, dtype, readonly, location, device) -> description."},
    {"intake_struct", py_intake_struct, METH_VARARGS,
     "intake_struct(what, writable, capsule) -> description: a NumPy array's __array_struct__."},
    {"to_dlpack_capsule", py_to_dlpack_capsule, METH_VARARGS, "A DLPack capsule over memory."},
    {"version", py_version, METH_NOARGS, "The C library's version."},
    {"built_with_cuda", py_built_with_cuda, METH_NOARGS, "Whether the library has CUDA kernels."},
    {"device_count", py_device_count, METH_NOARGS, "Usable CUDA devices."},
    {"codec_keep", py_codec_keep, METH_O,
     "codec_keep(on): keep the GPU's JPEG engines between batches (on: start them now)."},
    {"memory_locate", py_memory_locate, METH_O, "memory_locate(ptr) -> (location, device)."},
    {"last_warning", py_last_warning, METH_NOARGS, "What the last decode or encode left out."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "jetfilter._jetfilter",
                                        "The C side of jetfilter (see the jetfilter package).", -1,
                                        module_methods, NULL, NULL, NULL, NULL};

static int add_type(PyObject *m, PyType_Spec *spec, const char *name, PyObject **out)
{
    if (!(*out = PyType_FromSpec(spec)))
        return -1;
    Py_INCREF(*out);
    return PyModule_AddObject(m, name, *out);
}

PyMODINIT_FUNC PyInit__jetfilter(void)
{
    PyObject *m = PyModule_Create(&module_def);
    const char *version = Py_GetVersion(); /* "3.6.9 (default, ..." */
    size_t i;
    if (!m)
        return NULL;
    g_heap_types_counted = strncmp(version, "3.6.", 4) != 0 && strncmp(version, "3.7.", 4) != 0;
    if (!(g_error = PyErr_NewExceptionWithDoc("jetfilter.Error",
                                              "Every error jetfilter raises; its message is the "
                                              "library's one-line detail.", NULL, NULL)))
        return NULL;
    Py_INCREF(g_error);
    PyModule_AddObject(m, "Error", g_error);
    for (i = 0; i < sizeof ERRORS / sizeof ERRORS[0]; i++) {
        char qualified[64];
        PyObject *bases;
        PyObject *extra = ERRORS[i].status == JF_ERR_ARG || ERRORS[i].status == JF_ERR_DECODE ||
                                  ERRORS[i].status == JF_ERR_LIMIT
                              ? PyExc_ValueError
                          : ERRORS[i].status == JF_ERR_IO ? PyExc_OSError
                          : ERRORS[i].status == JF_ERR_NOMEM ? PyExc_MemoryError
                          : ERRORS[i].status == JF_ERR_UNSUPPORTED ? PyExc_NotImplementedError
                                                                    : PyExc_RuntimeError;
        snprintf(qualified, sizeof qualified, "jetfilter.%s", ERRORS[i].name);
        if (!(bases = PyTuple_Pack(2, g_error, extra)) ||
            !(g_errors[-ERRORS[i].status] =
                  PyErr_NewExceptionWithDoc(qualified, ERRORS[i].doc, bases, NULL))) {
            Py_XDECREF(bases);
            return NULL;
        }
        Py_DECREF(bases);
        Py_INCREF(g_errors[-ERRORS[i].status]);
        PyModule_AddObject(m, ERRORS[i].name, g_errors[-ERRORS[i].status]);
    }
    if (add_type(m, &Context_spec, "Context", &g_context_type) < 0 ||
        add_type(m, &Plan_spec, "Plan", &g_plan_type) < 0 ||
        add_type(m, &Buffer_spec, "Buffer", &g_buffer_type) < 0 ||
        add_type(m, &DLHolder_spec, "DLPackHolder", &g_holder_type) < 0)
        return NULL;
    PyModule_AddIntConstant(m, "LOC_HOST", JF_LOC_HOST);
    PyModule_AddIntConstant(m, "LOC_DEVICE", JF_LOC_DEVICE);
    PyModule_AddIntConstant(m, "LOC_MAPPED", JF_LOC_MAPPED);
    PyModule_AddIntConstant(m, "LOC_MANAGED", JF_LOC_MANAGED);
    PyModule_AddIntConstant(m, "FORMAT_JPEG", JF_FORMAT_JPEG);
    PyModule_AddIntConstant(m, "FORMAT_PNG", JF_FORMAT_PNG);
    PyModule_AddIntConstant(m, "FORMAT_TIFF", JF_FORMAT_TIFF);
    PyModule_AddIntConstant(m, "FORMAT_WEBP", JF_FORMAT_WEBP);
    PyModule_AddIntConstant(m, "FORMAT_PFM", JF_FORMAT_PFM);
    return m;
}
