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

/* (ptr, location, width, height, channels, stride, sample, device) */
static int parse_image(PyObject *spec, jf_image *img)
{
    unsigned long long ptr, stride;
    int loc, w, h, c, sample, device;
    if (!PyArg_ParseTuple(spec, "KiiiiKii;an image description", &ptr, &loc, &w, &h, &c, &stride,
                          &sample, &device))
        return -1;
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
    if (self->ctx) {
        PyErr_SetString(PyExc_RuntimeError, "Context.__init__ called twice");
        return -1;
    }
    Py_BEGIN_ALLOW_THREADS
    st = jf_context_create(&o, &self->ctx);
    Py_END_ALLOW_THREADS
    if (st != JF_OK) {
        raise_status(st);
        return -1;
    }
    if (!(self->lock = PyThread_allocate_lock())) {
        PyErr_NoMemory();
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

static jf_context *context_of(PyObject *obj)
{
    if (!PyObject_TypeCheck(obj, (PyTypeObject *)g_context_type)) {
        PyErr_SetString(PyExc_TypeError, "a jetfilter.Context is needed");
        return NULL;
    }
    if (!((ContextObject *)obj)->ctx) {
        PyErr_SetString(PyExc_ValueError, "the context is closed");
        return NULL;
    }
    return ((ContextObject *)obj)->ctx;
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

static PyObject *Context_sync(PyObject *self, PyObject *unused)
{
    ContextObject *c = (ContextObject *)self;
    jf_context *ctx = context_of(self);
    jf_status st;
    (void)unused;
    if (!ctx)
        return NULL;
    lock_context(c);
    Py_BEGIN_ALLOW_THREADS
    st = jf_context_sync(ctx);
    Py_END_ALLOW_THREADS
    PyThread_release_lock(c->lock);
    if (st != JF_OK)
        return raise_status(st);
    Py_RETURN_NONE;
}

/* A context call that takes a cudaStream_t (a Python int). */
static PyObject *with_stream(PyObject *self, PyObject *arg,
                             jf_status (*call)(jf_context *, void *))
{
    ContextObject *c = (ContextObject *)self;
    jf_context *ctx = context_of(self);
    unsigned long long stream;
    jf_status st;
    if (!ctx)
        return NULL;
    stream = PyLong_AsUnsignedLongLong(arg);
    if (PyErr_Occurred())
        return NULL;
    lock_context(c);
    st = call(ctx, (void *)(uintptr_t)stream);
    PyThread_release_lock(c->lock);
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
    if (c->ctx) {
        jf_context *ctx = c->ctx;
        lock_context(c);
        c->ctx = NULL;
        Py_BEGIN_ALLOW_THREADS
        jf_context_destroy(ctx);
        Py_END_ALLOW_THREADS
        PyThread_release_lock(c->lock);
    }
    Py_RETURN_NONE;
}

static PyObject *Context_info(PyObject *self, PyObject *unused)
{
    jf_context *ctx = context_of(self);
    jf_device_info d;
    (void)unused;
    if (!ctx)
        return NULL;
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
    jf_context *ctx = context_of(self);
    jf_stat_total t[64];
    size_t n, i;
    PyObject *list;
    (void)unused;
    if (!ctx)
        return NULL;
    n = jf_stats_totals(ctx, t, 64);
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

/* One parameter from a Python value: bool and int as whole numbers, float,
 * str as the command line takes it, bytes as float32 weights. */
static jf_status set_param(jf_plan *plan, const char *name, PyObject *v)
{
    if (PyBool_Check(v) || PyLong_Check(v)) {
        long long n = PyLong_AsLongLong(v);
        if (n == -1 && PyErr_Occurred())
            return JF_ERR_INTERNAL;
        return jf_plan_set_int(plan, name, n);
    }
    if (PyFloat_Check(v))
        return jf_plan_set_double(plan, name, PyFloat_AsDouble(v));
    if (PyUnicode_Check(v)) {
        PyObject *b = utf8_of(v);
        jf_status st;
        if (!b)
            return JF_ERR_INTERNAL;
        st = jf_plan_set(plan, name, PyBytes_AsString(b));
        Py_DECREF(b);
        return st;
    }
    if (PyBytes_Check(v)) {
        char *data;
        Py_ssize_t n;
        int k;
        if (PyBytes_AsStringAndSize(v, &data, &n) < 0)
            return JF_ERR_INTERNAL;
        k = (int)lround(sqrt((double)n / sizeof(float)));
        if ((Py_ssize_t)k * k * (Py_ssize_t)sizeof(float) != n) {
            PyErr_Format(g_errors[-JF_ERR_ARG], "%s: %zd bytes are not k x k float32 weights", name, n);
            return JF_ERR_INTERNAL;
        }
        return jf_plan_set_weights(plan, (const float *)data, k);
    }
    PyErr_Format(PyExc_TypeError, "%s: want a number or a string, not %s", name,
                 Py_TYPE(v) ? "that type" : "nothing");
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
        !(ctx = context_of(ctx_obj)) || !(plan = plan_of(plan_obj)) || parse_image(src_spec, &src) < 0)
        return NULL;
    if (dst_spec == Py_None)
        memset(&dst, 0, sizeof dst);
    else if (parse_image(dst_spec, &dst) < 0)
        return NULL;
    lock_context((ContextObject *)ctx_obj);
    Py_BEGIN_ALLOW_THREADS
    st = jf_plan_run(ctx, plan, &src, dst_spec == Py_None ? NULL : &dst, &r);
    Py_END_ALLOW_THREADS
    PyThread_release_lock(((ContextObject *)ctx_obj)->lock);
    if (st != JF_OK)
        return raise_status(st);
    return Py_BuildValue("(sssd)", jf_variant_name(r.variant), r.kernel, r.decision, r.estimate);
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
        !(ctx = context_of(ctx_obj)) || !(plan = plan_of(plan_obj)) || parse_image(src_spec, &src) < 0 ||
        parse_image(dst_spec, &dst) < 0)
        return NULL;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (i = 0; i < calls && st == JF_OK; i++)
        st = jf_plan_run(ctx, plan, &src, &dst, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st == JF_OK)
        st = jf_context_sync(ctx);
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
        !(ctx = context_of(ctx_obj)) || !(plan = plan_of(plan_obj)) || parse_image(a_spec, &a) < 0 ||
        parse_image(b_spec, &b) < 0)
        return NULL;
    lock_context((ContextObject *)ctx_obj);
    Py_BEGIN_ALLOW_THREADS
    st = jf_plan_measure(ctx, plan, &a, &b, &value);
    Py_END_ALLOW_THREADS
    PyThread_release_lock(((ContextObject *)ctx_obj)->lock);
    if (st != JF_OK)
        return raise_status(st);
    return PyFloat_FromDouble(value);
}

/* copy(context, src, dst): pixels between images in any two locations */
static PyObject *py_copy(PyObject *mod, PyObject *args)
{
    PyObject *ctx_obj, *src_spec, *dst_spec;
    jf_context *ctx;
    jf_image src, dst;
    jf_status st;
    (void)mod;
    if (!PyArg_ParseTuple(args, "OOO", &ctx_obj, &src_spec, &dst_spec) || !(ctx = context_of(ctx_obj)) ||
        parse_image(src_spec, &src) < 0 || parse_image(dst_spec, &dst) < 0)
        return NULL;
    lock_context((ContextObject *)ctx_obj);
    Py_BEGIN_ALLOW_THREADS
    if (src.location == JF_LOC_HOST && dst.location == JF_LOC_HOST)
        st = src.sample == dst.sample ? jf_image_copy(&src, &dst) : jf_image_convert(&src, &dst);
    else
        st = jf_image_transfer(ctx, &src, &dst);
    Py_END_ALLOW_THREADS
    PyThread_release_lock(((ContextObject *)ctx_obj)->lock);
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
    if (!PyArg_ParseTuple(args, "Oiiiii", &ctx_obj, &w, &h, &c, &sample, &loc) ||
        !(ctx = context_of(ctx_obj)) || !(b = new_buffer()))
        return NULL;
    lock_context((ContextObject *)ctx_obj);
    Py_BEGIN_ALLOW_THREADS
    st = loc == JF_LOC_HOST ? jf_image_alloc_as(&b->img, w, h, c, (jf_sample)sample)
                            : jf_image_alloc_on_as(ctx, &b->img, w, h, c, (jf_location)loc,
                                                   (jf_sample)sample);
    Py_END_ALLOW_THREADS
    PyThread_release_lock(((ContextObject *)ctx_obj)->lock);
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

/* write(path, image, alpha, like, format, quality, png_level, png_filter) ->
 * the warning ("" if none).  `like`: a Buffer whose picture's metadata goes
 * with the pixels, or None. */
static PyObject *py_write(PyObject *mod, PyObject *args)
{
    PyObject *path_obj, *spec, *alpha_spec, *like;
    const char *path;
    int format, quality, level, filter;
    jf_picture pic;
    jf_encode_options e = jf_encode_defaults();
    jf_status st;
    (void)mod;
    if (!PyArg_ParseTuple(args, "O&OOOiiii", PyUnicode_FSConverter, &path_obj, &spec, &alpha_spec,
                          &like, &format, &quality, &level, &filter))
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
    pic.format = (jf_format)format;
    e.format = (jf_format)format;
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

/* from_dlpack_capsule(capsule) -> (holder, ptr, device_type, device_id, shape, strides, code, bits)
 * strides in elements (None: C order), as DLPack gives them. */
static PyObject *py_from_dlpack_capsule(PyObject *mod, PyObject *capsule)
{
    DLManagedTensor *t;
    DLHolderObject *h;
    PyObject *shape, *strides, *out;
    allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)g_holder_type, Py_tp_alloc);
    int i;
    (void)mod;
    if (!PyCapsule_IsValid(capsule, "dltensor")) {
        PyErr_SetString(PyExc_TypeError, "not an unused DLPack capsule ('dltensor')");
        return NULL;
    }
    t = (DLManagedTensor *)PyCapsule_GetPointer(capsule, "dltensor");
    if (!t || !(h = (DLHolderObject *)alloc((PyTypeObject *)g_holder_type, 0)))
        return NULL;
    h->t = t;
    if (PyCapsule_SetName(capsule, "used_dltensor") < 0) { /* ours now: the holder deletes it */
        h->t = NULL;
        Py_DECREF(h);
        return NULL;
    }
    shape = PyTuple_New(t->dl_tensor.ndim);
    strides = t->dl_tensor.strides ? PyTuple_New(t->dl_tensor.ndim) : (Py_INCREF(Py_None), Py_None);
    for (i = 0; shape && strides && i < t->dl_tensor.ndim; i++) {
        PyTuple_SetItem(shape, i, PyLong_FromLongLong(t->dl_tensor.shape[i]));
        if (strides != Py_None)
            PyTuple_SetItem(strides, i, PyLong_FromLongLong(t->dl_tensor.strides[i]));
    }
    out = shape && strides
              ? Py_BuildValue("(OKiiOOii)", (PyObject *)h,
                              (unsigned long long)((uintptr_t)t->dl_tensor.data + t->dl_tensor.byte_offset),
                              t->dl_tensor.device.device_type, t->dl_tensor.device.device_id, shape,
                              strides, t->dl_tensor.dtype.code, t->dl_tensor.dtype.bits)
              : NULL;
    Py_XDECREF(shape);
    Py_XDECREF(strides);
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

/* to_dlpack_capsule(owner, ptr, device_type, device_id, shape, strides, bits) -> capsule
 * shape and strides (in elements) of 2 or 3 dimensions, unsigned integers. */
static PyObject *py_to_dlpack_capsule(PyObject *mod, PyObject *args)
{
    PyObject *owner, *shape, *strides, *capsule;
    unsigned long long ptr;
    int dev_type, dev_id, bits, i, n;
    ExportedTensor *e;
    (void)mod;
    if (!PyArg_ParseTuple(args, "OKiiO!O!i", &owner, &ptr, &dev_type, &dev_id, &PyTuple_Type, &shape,
                          &PyTuple_Type, &strides, &bits))
        return NULL;
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
    e->t.dl_tensor.dtype.code = 1; /* kDLUInt */
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

static PyMethodDef module_methods[] = {
    {"run", py_run, METH_VARARGS, "run(context, plan, src, dst): run a filter, pad or noise plan."},
    {"measure", py_measure, METH_VARARGS, "measure(context, plan, a, b) -> float: run a metric plan."},
    {"c_call_loop", py_c_call_loop, METH_VARARGS,
     "c_call_loop(context, plan, src, dst, calls) -> microseconds a call, made from C (benchmarks)."},
    {"copy", py_copy, METH_VARARGS, "copy(context, src, dst): pixels between any two locations."},
    {"alloc", py_alloc, METH_VARARGS, "alloc(context, w, h, c, sample, location) -> Buffer."},
    {"read", py_read, METH_VARARGS, "read(path) -> Buffer holding the decoded picture."},
    {"write", py_write, METH_VARARGS, "write(path, image, alpha, like, format, quality, level, filter)."},
    {"ops", py_ops, METH_NOARGS, "The operation table: every operation and its parameters."},
    {"from_dlpack_capsule", py_from_dlpack_capsule, METH_O, "Take a DLPack capsule's tensor."},
    {"to_dlpack_capsule", py_to_dlpack_capsule, METH_VARARGS, "A DLPack capsule over memory."},
    {"version", py_version, METH_NOARGS, "The C library's version."},
    {"built_with_cuda", py_built_with_cuda, METH_NOARGS, "Whether the library has CUDA kernels."},
    {"device_count", py_device_count, METH_NOARGS, "Usable CUDA devices."},
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
    return m;
}
