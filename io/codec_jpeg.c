/*
 * JPEG through libjpeg-turbo's libjpeg API.
 *
 * Decoding is strict: libjpeg treats truncated or corrupt entropy data as a
 * warning and fills the gap with grey; jetfilter refuses such files instead,
 * so that a damaged photo never turns into a "denoised" half-grey output.
 * Neither libjpeg nor this file prints anything: messages go to jf_last_error.
 *
 * Metadata: EXIF (APP1 "Exif\0\0") and the ICC profile (APP2 "ICC_PROFILE",
 * possibly split over several markers) are lifted into the picture so they
 * survive a change of format; other APPn markers (XMP, IPTC, ...) and
 * comments are kept verbatim.  APP0 (JFIF) and APP14 (Adobe) are written
 * anew by libjpeg.  The pixels are not rotated, so the EXIF orientation stays
 * true.
 *
 * CMYK and YCCK files decode to four channels exactly as stored (YCCK through
 * libjpeg's own transform back to CMYK) and encode to the same kind, with
 * the Adobe marker when the input had one: Adobe's files store CMYK
 * inverted, and that convention travels with the marker, so the output
 * means what the input meant without any guessed conversion.
 *
 * Before libjpeg sees a file, jf_jpeg_prescan (scan.c) checks every marker's
 * length, the metadata bytes and the number of scans against jf_limits; a
 * progress monitor holds the scan limit again while decoding, as djpeg's
 * -maxscans does.  What the encoder cannot carry (EXIF over 64 KB, PNG text)
 * is said in the picture's warning (jf_last_warning()), not dropped silently.
 */
#include "io/io.h"
#include "core/errors.h"
#include "core/image.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

typedef struct jf_jpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
} jf_jpeg_error;

static void on_error(j_common_ptr cinfo)
{
    jf_jpeg_error *err = (jf_jpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

/* Warnings that mean the pixels are not what the file's author encoded. */
static int is_damage(int code)
{
    switch (code) {
    case JWRN_JPEG_EOF:
    case JWRN_HIT_MARKER:
    case JWRN_EXTRANEOUS_DATA:
    case JWRN_MUST_RESYNC:
    case JWRN_BOGUS_PROGRESSION:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_NOT_SEQUENTIAL:
        return 1;
    default:
        return 0;
    }
}

static void on_message(j_common_ptr cinfo, int level)
{
    if (level < 0 && is_damage(cinfo->err->msg_code))
        on_error(cinfo);
    /* trace messages and harmless warnings are dropped: the library is silent */
}

static void on_output(j_common_ptr cinfo) { (void)cinfo; }

static void setup_error(struct jpeg_error_mgr *pub)
{
    jpeg_std_error(pub);
    pub->error_exit = on_error;
    pub->emit_message = on_message;
    pub->output_message = on_output;
}

static volatile int g_gpu_check = 1;

void jf_set_gpu_jpeg_check(int on) { g_gpu_check = on != 0; }
int jf_gpu_jpeg_check(void) { return g_gpu_check; }

static const char ICC_ID[12] = "ICC_PROFILE"; /* with its NUL */
static const char EXIF_ID[6] = {'E', 'x', 'i', 'f', 0, 0};

/* Gather the ICC profile from its APP2 chunks (sequence numbers 1..count). */
static jf_status gather_icc(j_decompress_ptr cinfo, jf_picture *pic)
{
    jpeg_saved_marker_ptr m;
    size_t total = 0, at;
    int count = 0, seq;

    for (m = cinfo->marker_list; m; m = m->next)
        if (m->marker == JPEG_APP0 + 2 && m->data_length > 14 &&
            memcmp(m->data, ICC_ID, 12) == 0) {
            count = m->data[13];
            total += m->data_length - 14;
        }
    if (count == 0 || total == 0)
        return JF_OK;
    pic->icc = (unsigned char *)malloc(total);
    if (!pic->icc)
        return jf_fail(JF_ERR_NOMEM, "out of memory for the ICC profile");
    at = 0;
    for (seq = 1; seq <= count; seq++)
        for (m = cinfo->marker_list; m; m = m->next)
            if (m->marker == JPEG_APP0 + 2 && m->data_length > 14 &&
                memcmp(m->data, ICC_ID, 12) == 0 && m->data[12] == seq) {
                memcpy(pic->icc + at, m->data + 14, m->data_length - 14);
                at += m->data_length - 14;
            }
    if (at != total) { /* missing or repeated chunks: drop rather than corrupt */
        free(pic->icc);
        pic->icc = NULL;
        return JF_OK;
    }
    pic->icc_size = total;
    return JF_OK;
}

static jf_status keep_markers(j_decompress_ptr cinfo, jf_picture *pic)
{
    jpeg_saved_marker_ptr m;
    jf_status st;
    for (m = cinfo->marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 2 && m->data_length > 14 && memcmp(m->data, ICC_ID, 12) == 0)
            continue;
        if (m->marker == JPEG_APP0 + 1 && m->data_length > 6 && !pic->exif &&
            memcmp(m->data, EXIF_ID, 6) == 0) {
            pic->exif = (unsigned char *)malloc(m->data_length - 6);
            if (!pic->exif)
                return jf_fail(JF_ERR_NOMEM, "out of memory for EXIF");
            memcpy(pic->exif, m->data + 6, m->data_length - 6);
            pic->exif_size = m->data_length - 6;
            continue;
        }
        st = jf_picture_add_blob(pic, m->marker, NULL, m->data, m->data_length);
        if (st != JF_OK)
            return st;
    }
    return gather_icc(cinfo, pic);
}

/* The scan limit, again, while decoding: libjpeg counts the scans it reads. */
typedef struct scan_monitor {
    struct jpeg_progress_mgr pub;
    int max_scans;
} scan_monitor;

static void on_progress(j_common_ptr cinfo)
{
    scan_monitor *m = (scan_monitor *)cinfo->progress;
    if (cinfo->is_decompressor && ((j_decompress_ptr)cinfo)->input_scan_number > m->max_scans) {
        jf_jpeg_error *err = (jf_jpeg_error *)cinfo->err;
        snprintf(err->message, sizeof err->message, "more than %d scans (the limit)", m->max_scans);
        longjmp(err->jump, 2);
    }
}

jf_status jf_jpeg_check_entropy_how(const unsigned char *bytes, size_t size,
                                    jf_jpeg_check_how how)
{
    struct jpeg_decompress_struct cinfo;
    jf_jpeg_error err;
    JSAMPARRAY row;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = &err.pub;
    setup_error(&err.pub);
    if (setjmp(err.jump) != 0) {
        if (err.message[0] >= 'A' && err.message[0] <= 'Z')
            err.message[0] = (char)(err.message[0] - 'A' + 'a');
        jpeg_destroy_decompress(&cinfo);
        return jf_fail(JF_ERR_DECODE, "%s", err.message);
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, (unsigned char *)bytes, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    if (how != JF_JPEG_CHECK_LIBJPEG) {
        /* the walk proves most clean files clean at about half the cost
         * (jpeg_scan_check.c); the rest libjpeg-turbo reads as below */
        const int clean = jf_jpeg_scan_clean(&cinfo, bytes, size);
        if (clean || how == JF_JPEG_CHECK_WALK) {
            jpeg_destroy_decompress(&cinfo);
            return clean ? JF_OK : jf_fail(JF_ERR_UNSUPPORTED, "the walk cannot prove it clean");
        }
    }
    /* An eighth of the size: every Huffman code is still decoded (the AC
     * coefficients read and dropped), but the inverse DCT is the DC term,
     * and no colour conversion or whole-image coefficient buffer is made
     * (20% less time than reading the coefficients: docs/kernels/studies.md, "start-up") */
    cinfo.scale_num = 1;
    cinfo.scale_denom = 8;
    cinfo.do_fancy_upsampling = FALSE;
    cinfo.dct_method = JDCT_IFAST;
    cinfo.out_color_space = cinfo.jpeg_color_space;
    jpeg_start_decompress(&cinfo);
    row = (*cinfo.mem->alloc_sarray)((j_common_ptr)&cinfo, JPOOL_IMAGE,
                                     cinfo.output_width * (JDIMENSION)cinfo.output_components, 1);
    while (cinfo.output_scanline < cinfo.output_height)
        jpeg_read_scanlines(&cinfo, row, 1);
    jpeg_finish_decompress(&cinfo); /* through EOI: data after the last scan is damage too */
    jpeg_destroy_decompress(&cinfo);
    return JF_OK;
}

jf_status jf_jpeg_check_entropy(const unsigned char *bytes, size_t size)
{
    return jf_jpeg_check_entropy_how(bytes, size, JF_JPEG_CHECK_FULL);
}

jf_status jf_jpeg_decode(jf_context *frame_ctx, const unsigned char *bytes, size_t size,
                         jf_picture *pic)
{
    struct jpeg_decompress_struct cinfo;
    jf_jpeg_error err;
    scan_monitor monitor;
    jf_jpeg_scan scan;
    jf_status st = JF_OK;
    int n;

    if ((st = jf_jpeg_prescan(bytes, size, &scan)) != JF_OK)
        return st;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = &err.pub;
    setup_error(&err.pub);
    if ((n = setjmp(err.jump)) != 0) {
        /* libjpeg's "Premature end of JPEG file" reads better in lower case */
        if (err.message[0] >= 'A' && err.message[0] <= 'Z')
            err.message[0] = (char)(err.message[0] - 'A' + 'a');
        jpeg_destroy_decompress(&cinfo);
        jf_image_free(&pic->color);
        return jf_fail(n == 2 ? JF_ERR_LIMIT : JF_ERR_DECODE, "%s", err.message);
    }
    jpeg_create_decompress(&cinfo);
    memset(&monitor, 0, sizeof monitor);
    monitor.pub.progress_monitor = on_progress;
    monitor.max_scans = jf_get_limits().max_scans;
    cinfo.progress = &monitor.pub;
    jpeg_mem_src(&cinfo, (unsigned char *)bytes, (unsigned long)size);
    for (n = 1; n < 16; n++)
        if (n != 14)
            jpeg_save_markers(&cinfo, JPEG_APP0 + n, 0xFFFF);
    jpeg_save_markers(&cinfo, JPEG_COM, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    /* the size was held to the limits by the pre-scan, from the same SOF
     * libjpeg reads (a height of 0 it refuses itself) */
    switch (cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE:
        cinfo.out_color_space = JCS_GRAYSCALE;
        break;
    case JCS_YCbCr:
    case JCS_RGB:
        cinfo.out_color_space = JCS_RGB;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        /* the four channels as the file means them (YCCK back to CMYK, no
         * guessed conversion); the encoder writes the same kind back */
        cinfo.out_color_space = JCS_CMYK;
        pic->color_model = JF_COLOR_CMYK;
        pic->jpeg_ycck = cinfo.jpeg_color_space == JCS_YCCK;
        pic->jpeg_adobe = cinfo.saw_Adobe_marker ? 1 : 0;
        break;
    default:
        st = jf_fail(JF_ERR_UNSUPPORTED, "JPEG colour space %d is not supported",
                     (int)cinfo.jpeg_color_space);
        goto done;
    }
    if (cinfo.num_components >= 3) {
        pic->jpeg_h_samp = cinfo.comp_info[0].h_samp_factor;
        pic->jpeg_v_samp = cinfo.comp_info[0].v_samp_factor;
    }
    st = keep_markers(&cinfo, pic);
    if (st != JF_OK)
        goto done;
    pic->format = JF_FORMAT_JPEG;
    /* nvJPEG takes 8-bit YCbCr and grey files that are complete; what it
     * refuses comes back here, to the strict decoder */
    if (frame_ctx && scan.complete && cinfo.data_precision == 8 && !cinfo.arith_code &&
        (cinfo.jpeg_color_space == JCS_YCbCr || cinfo.jpeg_color_space == JCS_GRAYSCALE) &&
        jf_nvjpeg_wanted(frame_ctx)) {
        /* nvJPEG passes damaged entropy data in silence, so libjpeg-turbo
         * reads the coefficients too (no inverse DCT) and damage is refused
         * with the CPU path's message */
        st = jf_nvjpeg_decode(frame_ctx, bytes, size, (int)cinfo.image_width,
                              (int)cinfo.image_height, cinfo.num_components, g_gpu_check,
                              &pic->color, &pic->decoded_on_gpu);
        if (st == JF_OK || st == JF_ERR_DECODE) {
            if (st != JF_OK)
                pic->decoded_on_gpu = 0; /* the frame is the context's, nothing to free */
            goto done;
        }
        st = JF_OK;
    }
    pic->decoded_on_gpu = 0;
    jf_error_clear();

    jpeg_start_decompress(&cinfo);
    st = jf_picture_alloc_color(frame_ctx, pic, (int)cinfo.output_width,
                                (int)cinfo.output_height, cinfo.output_components, JF_SAMPLE_U8);
    if (st != JF_OK)
        goto done;
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = pic->color.data + (size_t)cinfo.output_scanline * pic->color.stride;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
done:
    jpeg_destroy_decompress(&cinfo);
    return st;
}

static void put_icc(jf_segment_fn put, void *user, const unsigned char *icc, size_t size)
{
    enum { CHUNK = 65533 - 14 };
    unsigned char buf[65533];
    size_t count = (size + CHUNK - 1) / CHUNK, i;
    if (count > 255) { /* a profile over 16 MB cannot be carried in JPEG markers */
        jf_warn("ICC profile of %zu bytes not written: JPEG carries at most %d", size, 255 * CHUNK);
        return;
    }
    for (i = 0; i < count; i++) {
        size_t len = size - i * CHUNK < CHUNK ? size - i * CHUNK : CHUNK;
        memcpy(buf, ICC_ID, 12);
        buf[12] = (unsigned char)(i + 1);
        buf[13] = (unsigned char)count;
        memcpy(buf + 14, icc + i * CHUNK, len);
        put(user, JPEG_APP0 + 2, buf, (unsigned int)(len + 14));
    }
}

void jf_jpeg_metadata(const jf_picture *pic, jf_segment_fn put, void *user)
{
    int i, text = 0, big = 0;
    if (pic->exif && pic->exif_size + 6 <= 65533) {
        unsigned char *buf = (unsigned char *)malloc(pic->exif_size + 6);
        if (buf) {
            memcpy(buf, EXIF_ID, 6);
            memcpy(buf + 6, pic->exif, pic->exif_size);
            put(user, JPEG_APP0 + 1, buf, (unsigned int)(pic->exif_size + 6));
            free(buf);
        }
    } else if (pic->exif) {
        jf_warn("EXIF of %zu bytes not written: JPEG carries at most 65527", pic->exif_size);
    }
    if (pic->icc && pic->icc_size)
        put_icc(put, user, pic->icc, pic->icc_size);
    for (i = 0; i < pic->extra_count; i++) {
        const jf_blob *b = &pic->extra[i];
        if (b->key[0] != '\0') /* PNG text chunks carry a keyword; JPEG markers do not */
            text++;
        else if (b->size > 65533)
            big++;
        else if ((b->tag > JPEG_APP0 && b->tag <= JPEG_APP0 + 15) || b->tag == JPEG_COM)
            put(user, b->tag, b->data, (unsigned int)b->size);
    }
    if (text)
        jf_warn("%d PNG text chunk%s not written: JPEG has no place for them", text,
                text == 1 ? "" : "s");
    if (big)
        jf_warn("%d marker%s over 64 KB not written", big, big == 1 ? "" : "s");
}

static void write_marker(void *cinfo, int marker, const unsigned char *data, unsigned int len)
{
    jpeg_write_marker((j_compress_ptr)cinfo, marker, data, len);
}

jf_status jf_jpeg_encode(const jf_picture *pic, int quality, unsigned char **out,
                         size_t *out_size)
{
    struct jpeg_compress_struct cinfo;
    jf_jpeg_error err;
    unsigned char *volatile mem = NULL;
    unsigned long mem_size = 0;
    const jf_image *img = &pic->color;

    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = &err.pub;
    setup_error(&err.pub);
    if (setjmp(err.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(mem);
        return jf_fail(JF_ERR_ENCODE, "JPEG encoder: %s", err.message);
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, (unsigned char **)&mem, &mem_size);
    cinfo.image_width = (JDIMENSION)img->width;
    cinfo.image_height = (JDIMENSION)img->height;
    cinfo.input_components = img->channels;
    cinfo.in_color_space = img->channels == 1 ? JCS_GRAYSCALE : img->channels == 4 ? JCS_CMYK : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    if (img->channels == 4) {
        /* CMYK back as it came: YCCK or CMYK, with the Adobe marker (and so
         * the inverted convention) if the input had one; YCCK is only
         * recognisable through that marker, so it always gets one */
        jpeg_set_colorspace(&cinfo, pic->jpeg_ycck ? JCS_YCCK : JCS_CMYK);
        cinfo.write_Adobe_marker = pic->jpeg_ycck || pic->jpeg_adobe ? TRUE : FALSE;
        if (pic->jpeg_h_samp >= 1 && pic->jpeg_h_samp <= 4 && pic->jpeg_v_samp >= 1 &&
            pic->jpeg_v_samp <= 4) {
            cinfo.comp_info[0].h_samp_factor = pic->jpeg_h_samp;
            cinfo.comp_info[0].v_samp_factor = pic->jpeg_v_samp;
            if (pic->jpeg_ycck) { /* K is full resolution beside Y */
                cinfo.comp_info[3].h_samp_factor = pic->jpeg_h_samp;
                cinfo.comp_info[3].v_samp_factor = pic->jpeg_v_samp;
            }
        }
    }
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (img->channels == 3 && pic->jpeg_h_samp >= 1 && pic->jpeg_h_samp <= 4 &&
        pic->jpeg_v_samp >= 1 && pic->jpeg_v_samp <= 4) {
        /* keep the input's chroma subsampling (4:4:4 stays 4:4:4) */
        cinfo.comp_info[0].h_samp_factor = pic->jpeg_h_samp;
        cinfo.comp_info[0].v_samp_factor = pic->jpeg_v_samp;
    } else if (img->channels == 3 && quality >= 90) {
        /* from PNG at high quality: no chroma subsampling (libvips' rule too),
         * else 4:2:0 would cap the fidelity the quality asks for */
        cinfo.comp_info[0].h_samp_factor = 1;
        cinfo.comp_info[0].v_samp_factor = 1;
    }
    jpeg_start_compress(&cinfo, TRUE);

    jf_jpeg_metadata(pic, write_marker, &cinfo);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = img->data + (size_t)cinfo.next_scanline * img->stride;
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = mem;
    *out_size = mem_size;
    return JF_OK;
}
