/*
 * NVMM surfaces for the kernels: the GstBuffer's memory maps to an
 * NvBufSurface (JetPack's buffer descriptor); NvBufSurfaceMapEglImage makes
 * an EGLImage of its first surface, which CUDA registers
 * (cudaGraphicsEGLRegisterImage) and hands back as one pitched device
 * pointer per plane.  Block-linear surfaces have no such pointers: they are
 * refused by name (nvvidconv makes pitch-linear ones).
 */
#include "gst/nvmm_memory.h"

#include <string.h>
#include <cuda_runtime_api.h>
#include <cuda_egl_interop.h>
#include <nvbufsurface.h>

gboolean jf_gst_nvmm_map(GstBuffer *buf, GstMapFlags flags, jf_gst_nvmm_frame *f, const char **why)
{
    NvBufSurface *surf;
    NvBufSurfaceParams *params;
    cudaEglFrame egl;
    unsigned int i;
    memset(f, 0, sizeof *f);
    if (!gst_buffer_map(buf, &f->map, flags)) {
        *why = "the buffer could not be mapped";
        return FALSE;
    }
    f->buf = buf;
    surf = (NvBufSurface *)f->map.data;
    if (f->map.size < sizeof *surf || !surf->surfaceList || surf->batchSize < 1) {
        *why = "the buffer holds no NvBufSurface";
        goto fail;
    }
    params = &surf->surfaceList[0];
    if (params->layout != NVBUF_LAYOUT_PITCH) {
        *why = "a block-linear surface (nvvidconv before the element makes pitch-linear ones)";
        goto fail;
    }
    if (NvBufSurfaceMapEglImage(surf, 0) != 0 || !params->mappedAddr.eglImage) {
        *why = "NvBufSurfaceMapEglImage failed";
        goto fail;
    }
    f->surface = surf;
    if (cudaGraphicsEGLRegisterImage(&f->resource, params->mappedAddr.eglImage,
                                     (flags & GST_MAP_WRITE) ? cudaGraphicsRegisterFlagsNone
                                                             : cudaGraphicsRegisterFlagsReadOnly) != cudaSuccess) {
        f->resource = NULL;
        *why = "CUDA could not register the surface's EGLImage";
        goto fail;
    }
    if (cudaGraphicsResourceGetMappedEglFrame(&egl, f->resource, 0, 0) != cudaSuccess ||
        egl.frameType != cudaEglFrameTypePitch || egl.planeCount < 1 || egl.planeCount > 4) {
        *why = "the surface's EGL frame has no pitched planes";
        goto fail;
    }
    f->planes = (int)egl.planeCount;
    for (i = 0; i < egl.planeCount; i++) {
        f->data[i] = egl.frame.pPitch[i].ptr;
        f->pitch[i] = egl.frame.pPitch[i].pitch;
    }
    return TRUE;
fail:
    jf_gst_nvmm_unmap(f);
    return FALSE;
}

void jf_gst_nvmm_unmap(jf_gst_nvmm_frame *f)
{
    if (f->resource)
        cudaGraphicsUnregisterResource(f->resource);
    if (f->surface)
        NvBufSurfaceUnMapEglImage((NvBufSurface *)f->surface, 0);
    if (f->buf)
        gst_buffer_unmap(f->buf, &f->map);
    cudaGetLastError(); /* no sticky error from a failed registration for the next call */
    memset(f, 0, sizeof *f);
}
