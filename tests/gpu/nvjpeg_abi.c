/*
 * io/codec_nvjpeg.c declares the part of nvJPEG it calls instead of
 * including nvjpeg.h (the library is loaded at run time and the build
 * machine's toolkit has no header).  Compiled against the real header on a
 * machine that has it (scripts/gpu.sh nvjpeg): each value and layout used
 * there must match, or this file does not compile.
 *   cc -fsyntax-only -I/usr/local/cuda/include tests/gpu/nvjpeg_abi.c
 */
#include <stddef.h>
#include <nvjpeg.h>

#define SAME(a, b) _Static_assert((a) == (b), #a " is not " #b)
SAME(NVJPEG_STATUS_SUCCESS, 0);
SAME(NVJPEG_STATUS_JPEG_NOT_SUPPORTED, 4);
SAME(NVJPEG_STATUS_INCOMPLETE_BITSTREAM, 10);
SAME(NVJPEG_BACKEND_DEFAULT, 0);
SAME(NVJPEG_BACKEND_HARDWARE, 3);
SAME(NVJPEG_OUTPUT_Y, 2);
SAME(NVJPEG_OUTPUT_RGBI, 5);
SAME(NVJPEG_FLAGS_BITSTREAM_STRICT, 1 << 2);
SAME(MAJOR_VERSION, 0);
SAME(MINOR_VERSION, 1);
SAME(PATCH_LEVEL, 2);
SAME(NVJPEG_MAX_COMPONENT, 4);
SAME(NVJPEG_INPUT_RGBI, 5);
SAME(NVJPEG_CSS_444, 0);
SAME(NVJPEG_CSS_422, 1);
SAME(NVJPEG_CSS_420, 2);
SAME(NVJPEG_CSS_440, 3);
SAME(NVJPEG_CSS_411, 4);
SAME(NVJPEG_CSS_410, 5);
SAME(NVJPEG_CSS_GRAY, 6);
SAME(sizeof(nvjpegImage_t), 4 * sizeof(void *) + 4 * sizeof(size_t));
SAME(offsetof(nvjpegImage_t, pitch), 4 * sizeof(void *));
SAME(sizeof(nvjpegBackend_t), sizeof(int));
SAME(sizeof(nvjpegOutputFormat_t), sizeof(int));
SAME(sizeof(libraryPropertyType), sizeof(int));
SAME(sizeof(nvjpegStatus_t), sizeof(int));

/* the prototypes, with the header's types, in the shape codec_nvjpeg.c calls them */
static nvjpegStatus_t (*const create_ex)(nvjpegBackend_t, nvjpegDevAllocator_t *,
                                         nvjpegPinnedAllocator_t *, unsigned int,
                                         nvjpegHandle_t *) = nvjpegCreateEx;
static nvjpegStatus_t (*const decode)(nvjpegHandle_t, nvjpegJpegState_t, const unsigned char *,
                                      size_t, nvjpegOutputFormat_t, nvjpegImage_t *,
                                      cudaStream_t) = nvjpegDecode;
static nvjpegStatus_t (*const batched_init)(nvjpegHandle_t, nvjpegJpegState_t, int, int,
                                            nvjpegOutputFormat_t) = nvjpegDecodeBatchedInitialize;
static nvjpegStatus_t (*const batched)(nvjpegHandle_t, nvjpegJpegState_t,
                                       const unsigned char *const *, const size_t *,
                                       nvjpegImage_t *, cudaStream_t) = nvjpegDecodeBatched;
static nvjpegStatus_t (*const parse)(nvjpegHandle_t, const unsigned char *, size_t, int, int,
                                     nvjpegJpegStream_t) = nvjpegJpegStreamParse;
static nvjpegStatus_t (*const prealloc)(nvjpegHandle_t, nvjpegJpegState_t, int, int, int,
                                        nvjpegChromaSubsampling_t,
                                        nvjpegOutputFormat_t) = nvjpegDecodeBatchedPreAllocate;
static nvjpegStatus_t (*const parse_header)(nvjpegHandle_t, const unsigned char *, size_t,
                                            nvjpegJpegStream_t) = nvjpegJpegStreamParseHeader;
static nvjpegStatus_t (*const supported)(nvjpegHandle_t, nvjpegJpegStream_t,
                                         int *) = nvjpegDecodeBatchedSupported;
static nvjpegStatus_t (*const hw_info)(nvjpegHandle_t, unsigned int *,
                                       unsigned int *) = nvjpegGetHardwareDecoderInfo;
static nvjpegStatus_t (*const property)(libraryPropertyType, int *) = nvjpegGetProperty;
static nvjpegStatus_t (*const enc_state)(nvjpegHandle_t, nvjpegEncoderState_t *,
                                         cudaStream_t) = nvjpegEncoderStateCreate;
static nvjpegStatus_t (*const enc_params)(nvjpegHandle_t, nvjpegEncoderParams_t *,
                                          cudaStream_t) = nvjpegEncoderParamsCreate;
static nvjpegStatus_t (*const enc_quality)(nvjpegEncoderParams_t, const int,
                                           cudaStream_t) = nvjpegEncoderParamsSetQuality;
static nvjpegStatus_t (*const enc_sampling)(nvjpegEncoderParams_t, const nvjpegChromaSubsampling_t,
                                            cudaStream_t) = nvjpegEncoderParamsSetSamplingFactors;
static nvjpegStatus_t (*const enc_image)(nvjpegHandle_t, nvjpegEncoderState_t,
                                         const nvjpegEncoderParams_t, const nvjpegImage_t *,
                                         nvjpegInputFormat_t, int, int,
                                         cudaStream_t) = nvjpegEncodeImage;
static nvjpegStatus_t (*const enc_yuv)(nvjpegHandle_t, nvjpegEncoderState_t,
                                       const nvjpegEncoderParams_t, const nvjpegImage_t *,
                                       nvjpegChromaSubsampling_t, int, int,
                                       cudaStream_t) = nvjpegEncodeYUV;
static nvjpegStatus_t (*const enc_retrieve)(nvjpegHandle_t, nvjpegEncoderState_t, unsigned char *,
                                            size_t *, cudaStream_t) = nvjpegEncodeRetrieveBitstream;

int main(void)
{
    return !(create_ex && decode && batched_init && batched && prealloc && parse && parse_header &&
             supported && hw_info && property && enc_state && enc_params && enc_quality &&
             enc_sampling && enc_image && enc_yuv && enc_retrieve);
}
