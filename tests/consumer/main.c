/* A program outside the project: built against an installed jetfilter by
 * tests/install_consumer.sh, through find_package and through pkg-config. */
#include <jetfilter.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    jf_picture pic;
    jf_image out = {0};
    jf_median_options mo = jf_median_defaults();
    mo.ksize = 5;
    mo.border = JF_BORDER_REFLECT;
    if (argc < 2 || jf_picture_read(argv[1], &pic) != JF_OK || jf_median(NULL, &pic.color, &out, &mo) != JF_OK) {
        fprintf(stderr, "consumer: %s\n", jf_last_error());
        return 1;
    }
    printf("consumer: %s %dx%d filtered with jetfilter %s\n", argv[1], out.width, out.height, jf_version());
    jf_image_free(&out);
    jf_picture_free(&pic);
    return 0;
}
