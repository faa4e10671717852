/*
 * api_example: the library API in a few lines.
 *
 *   jetfilter-example INPUT OUTPUT [K]
 *
 * Reads a JPEG or PNG, adds 5% salt-and-pepper noise, removes it with a
 * K x K median (default 3), prints PSNR/SSIM of the noisy and the filtered
 * image against the original, and writes the result (format from OUTPUT's
 * extension).
 */
#include <jetfilter.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    jf_context *ctx = NULL;
    jf_picture pic;
    jf_image noisy = {0}, clean = {0};
    jf_noise_options noise = jf_noise_defaults();        /* salt and pepper, 5%, seed 1 */
    jf_median_options median = jf_median_defaults();     /* 3x3, replicate, auto */
    jf_encode_options enc = jf_encode_defaults();        /* PNG, or JPEG quality 92 */
    double psnr_noisy, psnr_clean, ssim_noisy, ssim_clean;
    int rc = 1;
    const char *ext;

    memset(&pic, 0, sizeof pic);
    noise.seed = 42;
    if (argc < 3) {
        fprintf(stderr, "usage: %s INPUT OUTPUT [K]\n", argv[0]);
        return 2;
    }
    if (argc > 3)
        median.ksize = atoi(argv[3]);
    ext = strrchr(argv[2], '.');
    if (ext && (strcmp(ext, ".jpg") == 0 || strcmp(ext, ".jpeg") == 0))
        enc.format = JF_FORMAT_JPEG;

    /* CUDA when a device is present, else the CPU */
    if (jf_context_create(NULL, &ctx) != JF_OK)
        goto fail;
    printf("backend: %s %s\n", jf_backend_name(jf_context_backend(ctx)), jf_context_note(ctx));

    if (jf_picture_read(argv[1], &pic) != JF_OK ||
        jf_image_alloc(&noisy, pic.color.width, pic.color.height, pic.color.channels) != JF_OK ||
        jf_image_copy(&pic.color, &noisy) != JF_OK ||
        jf_add_noise(ctx, &noisy, &noise) != JF_OK ||
        jf_median(ctx, &noisy, &clean, &median) != JF_OK ||  /* allocates `clean` */
        jf_psnr(ctx, &pic.color, &noisy, &psnr_noisy, NULL) != JF_OK ||
        jf_psnr(ctx, &pic.color, &clean, &psnr_clean, NULL) != JF_OK ||
        jf_ssim(ctx, &pic.color, &noisy, &ssim_noisy) != JF_OK ||
        jf_ssim(ctx, &pic.color, &clean, &ssim_clean) != JF_OK)
        goto fail;
    printf("%dx%d, %d channel(s), median k=%d\n", pic.color.width, pic.color.height,
           pic.color.channels, median.ksize);
    printf("noisy:    PSNR %6.2f dB  SSIM %.4f\n", psnr_noisy, ssim_noisy);
    printf("filtered: PSNR %6.2f dB  SSIM %.4f\n", psnr_clean, ssim_clean);

    /* write the filtered pixels with the input's metadata (EXIF, ICC) */
    jf_image_free(&pic.color);
    pic.color = clean;
    clean.data = NULL;
    if (jf_picture_write(argv[2], &pic, &enc) != JF_OK)
        goto fail;
    rc = 0;
    goto done;
fail:
    fprintf(stderr, "%s: %s (%s)\n", argv[0], jf_last_error(), "see jetfilter.h for statuses");
done:
    jf_image_free(&noisy);
    jf_image_free(&clean);
    jf_picture_free(&pic);
    jf_context_destroy(ctx);
    return rc;
}
