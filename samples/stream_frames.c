/*
 * stream_frames: the smallest frame loop over a video pipe with the library.
 *
 *   ffmpeg -i in.mp4 -f yuv4mpegpipe - | jetfilter-stream-frames [K] | ffmpeg -f yuv4mpegpipe -i - out.mp4
 *
 * Reads Y4M frames from standard input, takes a K x K median (default 5) of
 * the luma plane on the GPU when there is one (else on the CPU), passes the
 * chroma through, and writes Y4M to standard output.  The frames live in
 * memory the GPU reaches directly (mapped page-locked memory on a discrete
 * GPU; plain memory otherwise), allocated once before the loop; each median
 * is only queued, and the one wait per frame is jf_context_sync().  For the
 * threaded version with a reader and a writer running beside the GPU, see
 * `jetfilter stream` (pipeline/stream.c).
 */
#include <jetfilter.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CHECK(call)                                                                 \
    do {                                                                            \
        if ((call) != JF_OK) {                                                      \
            fprintf(stderr, "stream_frames: %s\n", jf_last_error());               \
            goto done;                                                              \
        }                                                                           \
    } while (0)

int main(int argc, char **argv)
{
    jf_context *ctx = NULL;
    jf_video_reader *in = NULL;
    jf_video_writer *out = NULL;
    jf_image frame[JF_VIDEO_MAX_PLANES] = {{0}}, luma_out = {0};
    jf_median_options mo = jf_median_defaults();
    const jf_video_format *f;
    jf_location where = JF_LOC_HOST;
    long long frames = 0;
    int p, got, rc = 1;

    mo.ksize = argc > 1 ? atoi(argv[1]) : 5;
    signal(SIGPIPE, SIG_IGN); /* a consumer that quits is an error of write() */
    CHECK(jf_context_create(NULL, &ctx)); /* CUDA when a device is there */
    if (jf_context_backend(ctx) == JF_BACKEND_CUDA && jf_context_memory(ctx) == JF_MEMORY_COPY)
        where = JF_LOC_MAPPED;
    CHECK(jf_video_open_y4m(STDIN_FILENO, "-", &in));
    f = jf_video_reader_format(in);
    CHECK(jf_video_writer_open(STDOUT_FILENO, "-", f, jf_video_reader_header(in), &out));
    for (p = 0; p < f->planes; p++)
        CHECK(jf_image_alloc_on(ctx, &frame[p], f->plane_width[p], f->plane_height[p],
                                f->plane_channels[p], where));
    CHECK(jf_image_alloc_on(ctx, &luma_out, f->width, f->height, f->plane_channels[0], where));
    for (;;) {
        jf_image written[JF_VIDEO_MAX_PLANES];
        CHECK(jf_video_read(in, frame, &got));
        if (!got)
            break;
        CHECK(jf_median(ctx, &frame[0], &luma_out, &mo)); /* queued */
        CHECK(jf_context_sync(ctx));
        for (p = 0; p < f->planes; p++)
            written[p] = p == 0 ? luma_out : frame[p];
        CHECK(jf_video_write(out, written, jf_video_frame_params(in)));
        frames++;
    }
    fprintf(stderr, "stream_frames: %lld frames, %dx%d %s, median k=%d of the luma on %s\n", frames,
            f->width, f->height, f->layout, mo.ksize, jf_backend_name(jf_context_backend(ctx)));
    rc = 0;
done:
    for (p = 0; p < JF_VIDEO_MAX_PLANES; p++)
        jf_image_free(&frame[p]);
    jf_image_free(&luma_out);
    jf_video_writer_close(out);
    jf_video_reader_close(in);
    jf_context_destroy(ctx);
    return rc;
}
