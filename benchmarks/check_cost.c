/* What the damaged-data check of the GPU JPEG path costs a core, three
 * ways with libjpeg-turbo: reading the coefficients (the check before),
 * decoding at an eighth of the size (the check now: every Huffman code
 * decoded, the inverse DCT the DC term only), and the whole decode.
 *   check_cost FILE.jpg...        (3 passes over the files; ms a file)
 * Built by scripts/gpu.sh build; run by scripts/gpu.sh codec-costs. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jpeglib.h>

typedef struct error_exit {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
} error_exit;

static void on_error(j_common_ptr c) { longjmp(((error_exit *)c->err)->jump, 1); }

static void on_message(j_common_ptr c, int level)
{
    if (level < 0) /* a warning is damage, as the check counts it */
        longjmp(((error_exit *)c->err)->jump, 1);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

enum { COEFFICIENTS, EIGHTH, WHOLE, WAYS };
static const char *const names[WAYS] = {"coefficients", "an eighth", "whole decode"};

/* 0 clean, 1 refused */
static int check(const unsigned char *bytes, size_t size, int way)
{
    struct jpeg_decompress_struct cinfo;
    error_exit err;
    JSAMPARRAY row;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = on_error;
    err.pub.emit_message = on_message;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return 1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, (unsigned char *)bytes, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    if (way == COEFFICIENTS) {
        jpeg_read_coefficients(&cinfo);
    } else {
        if (way == EIGHTH) {
            cinfo.scale_num = 1;
            cinfo.scale_denom = 8;
            cinfo.do_fancy_upsampling = FALSE;
            cinfo.dct_method = JDCT_IFAST;
            cinfo.out_color_space = cinfo.jpeg_color_space;
        }
        jpeg_start_decompress(&cinfo);
        row = (*cinfo.mem->alloc_sarray)((j_common_ptr)&cinfo, JPOOL_IMAGE,
                                         cinfo.output_width * cinfo.output_components, 1);
        while (cinfo.output_scanline < cinfo.output_height)
            jpeg_read_scanlines(&cinfo, row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

int main(int argc, char **argv)
{
    int way, pass, i;
    if (argc < 2) {
        fprintf(stderr, "usage: check_cost FILE.jpg...\n");
        return 2;
    }
    for (way = 0; way < WAYS; way++) {
        double ms = 0;
        int refused = 0, files = 0;
        for (pass = 0; pass < 3; pass++)
            for (i = 1; i < argc; i++) {
                FILE *f = fopen(argv[i], "rb");
                unsigned char *bytes;
                long n;
                double t0;
                if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0 ||
                    !(bytes = malloc((size_t)n)) || fread(bytes, 1, (size_t)n, f) != (size_t)n) {
                    fprintf(stderr, "check_cost: cannot read %s\n", argv[i]);
                    return 1;
                }
                fclose(f);
                t0 = now_ms();
                refused += check(bytes, (size_t)n, way);
                ms += now_ms() - t0;
                files++;
                free(bytes);
            }
        printf("%-13s %6.2f ms a file (%d passes over %d files, %d refused)\n", names[way],
               ms / files, pass, argc - 1, refused / pass);
    }
    return 0;
}
