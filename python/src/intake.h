/*
 * The array intake of the Python extension: what any producer says of an
 * array (NumPy's and CuPy's attributes, PyTorch's, the two array
 * interfaces, a DLPack tensor) checked in one place and turned into a
 * jf_image, or refused with the reason.  Plain C, no Python: the fuzz
 * harness (tests/fuzz/fuzz_intake.c) calls it as the extension does.
 */
#ifndef JFPY_INTAKE_H
#define JFPY_INTAKE_H

#include <jetfilter.h>

#include <stddef.h>
#include <stdint.h>

/* An array as its producer describes it; nothing here is trusted. */
typedef struct jfpy_array {
    uint64_t data;          /* the first element's address (any offset applied) */
    int64_t ndim;
    const int64_t *shape;   /* ndim sizes; NULL is refused */
    const int64_t *strides; /* ndim steps in bytes; NULL: C order */
    const char *dtype;      /* a typestr ("|u1", "<u2") or any other name, for the message */
    int64_t lanes;          /* DLPack's vector lanes; 1 elsewhere */
    int readonly;
    int location;           /* jf_location */
    int device;             /* CUDA device, or -1 on the host */
} jfpy_array;

/* The image `a` describes: 0, or -1 with the reason (naming `what`, the
 * argument) in why[0..n).  `writable`: the call writes into it (out=). */
int jfpy_intake(const jfpy_array *a, int writable, const char *what, jf_image *img, char *why,
                size_t n);

/* A DLPack data type as a typestr ("|u1", "<u2", "<f4"), or a name for
 * one nobody takes ("int4", "bfloat16"), into out[0..n). */
void jfpy_dlpack_dtype(int code, int bits, char *out, size_t n);

#endif
