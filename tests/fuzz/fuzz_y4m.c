/* libFuzzer harness: any bytes as a YUV4MPEG2 stream (a header, FRAME lines
 * with parameters, frames cut short), read frame by frame into planes of
 * the layout it declares, under a small pixel limit. */
#define _GNU_SOURCE /* memfd_create */
#include <jetfilter.h>

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    jf_video_reader *r = NULL;
    jf_image planes[JF_VIDEO_MAX_PLANES];
    int fd = memfd_create("y4m", 0), p, frames = 0, got = 1;
    if (fd < 0)
        return 0;
    jf_set_max_pixels(1 << 16); /* frames of the fuzzer's size, not the header's word */
    if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        return 0;
    }
    if (jf_video_open_y4m(fd, "fuzz.y4m", &r) == JF_OK) {
        const jf_video_format *f = jf_video_reader_format(r);
        int ok = 1;
        for (p = 0; p < JF_VIDEO_MAX_PLANES; p++)
            planes[p] = (jf_image){0};
        for (p = 0; p < f->planes && ok; p++)
            ok = jf_image_alloc(&planes[p], f->plane_width[p], f->plane_height[p],
                                f->plane_channels[p]) == JF_OK;
        while (ok && got && frames++ < 16 && jf_video_read(r, planes, &got) == JF_OK)
            (void)jf_video_frame_params(r);
        for (p = 0; p < JF_VIDEO_MAX_PLANES; p++)
            jf_image_free(&planes[p]);
        jf_video_reader_close(r);
    }
    close(fd);
    return 0;
}
