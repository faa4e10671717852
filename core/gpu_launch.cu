/* Launch limits: whether a kernel can start with a block of so many
 * threads and so much shared memory on the context's device (registers,
 * threads, shared memory, within the device's limits or the Nano's), checked
 * before every launch so that a shape the device cannot run is refused with
 * its reason, never a failed launch. */
#include "core/gpu.cuh"

static jf_status kernel_attr(jf_context *ctx, const void *func, jf_kernel_attr **out)
{
    struct jf_gpu *g = ctx->gpu;
    cudaFuncAttributes a;
    int i;
    for (i = 0; i < g->nkernels; i++)
        if (g->kernels[i].func == func) {
            *out = &g->kernels[i];
            return JF_OK;
        }
    JF_CUDA_TRY(cudaFuncGetAttributes(&a, func));
    i = g->nkernels < JF_MAX_KERNELS ? g->nkernels++ : JF_MAX_KERNELS - 1;
    g->kernels[i].func = func;
    g->kernels[i].regs = a.numRegs;
    g->kernels[i].max_threads = a.maxThreadsPerBlock;
    g->kernels[i].static_smem = a.sharedSizeBytes;
    *out = &g->kernels[i];
    return JF_OK;
}

/* Registers a block of `threads` takes: whole warps, 256-register units per
 * warp (the allocation granularity from Maxwell to Hopper). */
static long block_registers(int regs, int threads)
{
    long per_warp = ((long)regs * 32 + 255) / 256 * 256;
    return per_warp * ((threads + 31) / 32);
}

static jf_status check_launch(jf_context *ctx, const void *func, const char *what, int threads,
                              size_t dyn_smem, int record)
{
    const jf_device_info *d = &ctx->gpu->info;
    jf_kernel_attr *a = NULL;
    jf_status st;
    size_t smem;
    if ((st = kernel_attr(ctx, func, &a)) != JF_OK)
        return st;
    smem = a->static_smem + dyn_smem;
    if (threads > a->max_threads || threads > d->max_threads_per_block ||
        block_registers(a->regs, threads) > d->registers_per_block)
        return record ? jf_fail(JF_ERR_ARG, "%s: a block of %d threads needs %ld registers "
                                "(%d per thread); this device allows %d per block and %d threads; "
                                "use a smaller block", what, threads,
                                block_registers(a->regs, threads), a->regs, d->registers_per_block,
                                a->max_threads < d->max_threads_per_block ? a->max_threads
                                                                         : d->max_threads_per_block)
                      : JF_ERR_ARG;
    if (smem > (size_t)d->shared_per_block_optin)
        return record ? jf_fail(JF_ERR_ARG, "%s: needs %zu bytes of shared memory per block; this "
                                "device allows %d; use a smaller block", what, smem,
                                d->shared_per_block_optin)
                      : JF_ERR_ARG;
    /* always the device's whole opt-in, so concurrent launches never lower
     * the limit under each other */
    if (smem > (size_t)d->shared_per_block)
        JF_CUDA_TRY(cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         d->shared_per_block_optin - (int)a->static_smem));
    return JF_OK;
}

jf_status jf_gpu_launch_fits(jf_context *ctx, const void *func, const char *what, int threads,
                             size_t dyn_smem)
{
    return check_launch(ctx, func, what, threads, dyn_smem, 1);
}

int jf_gpu_launch_ok(jf_context *ctx, const void *func, int threads, size_t dyn_smem)
{
    return check_launch(ctx, func, "", threads, dyn_smem, 0) == JF_OK;
}
