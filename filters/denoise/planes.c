/* Samples to the float planes the denoisers work on, and back (CPU): the
 * border made up around them, the colour decorrelated, Poisson-Gaussian
 * noise stabilised (denoise_math.h holds the arithmetic the GPU shares). */
#include "filters/denoise/denoise.h"
#include "filters/denoise/denoise_math.h"
#include "core/context.h"
#include "core/errors.h"

#include <string.h>

typedef struct to_job {
    const jf_image *src;
    int pad;
    jf_border border;
    const jf_plane_map *map;
    const jf_planes *out;
} to_job;

static float sample_at(const jf_image *img, int x, int y, int c)
{
    const unsigned char *row = img->data + (size_t)y * img->stride;
    return img->sample == JF_SAMPLE_U16 ? (float)((const uint16_t *)(const void *)row)[x * img->channels + c]
                                        : (float)row[x * img->channels + c];
}

static void to_rows(void *arg, int begin, int end, int worker)
{
    const to_job *j = (const to_job *)arg;
    const jf_image *s = j->src;
    const int wp = s->width + 2 * j->pad;
    int y, x, c;
    (void)worker;
    for (y = begin; y < end; y++) {
        const int sy = jf_border_index(y - j->pad, s->height, j->border);
        for (x = 0; x < wp; x++) {
            const int sx = jf_border_index(x - j->pad, s->width, j->border);
            float v[3];
            for (c = 0; c < j->map->colour; c++) {
                v[c] = sy < 0 || sx < 0 ? 0.0f : sample_at(s, sx, sy, c);
                if (j->map->vst)
                    v[c] = jf_gat_forward(v[c], j->map->a, j->map->b);
            }
            if (j->map->decorrelate)
                jf_rgb_to_dec(v[0], v[1], v[2], &v[0], &v[1], &v[2]);
            for (c = 0; c < j->map->colour; c++)
                jf_plane_row(j->out, c, y)[x] = v[c];
        }
    }
}

jf_status jf_planes_from_image(jf_context *ctx, const jf_image *src, int pad, jf_border border,
                               const jf_plane_map *map, jf_planes *out, int scratch_slot)
{
    to_job j;
    out->width = src->width + 2 * pad;
    out->height = src->height + 2 * pad;
    out->channels = map->colour;
    out->stride = (size_t)out->width;
    out->plane = out->stride * (size_t)out->height;
    out->data = (float *)jf_scratch_get(ctx, scratch_slot, sizeof(float) * out->plane * (size_t)out->channels);
    if (!out->data)
        return JF_ERR_NOMEM;
    j.src = src;
    j.pad = pad;
    j.border = border;
    j.map = map;
    j.out = out;
    jf_parallel_for(ctx, out->height, to_rows, &j);
    return JF_OK;
}

typedef struct from_job {
    const jf_planes *p;
    int pad;
    const jf_plane_map *map;
    const jf_image *src;
    const jf_image *dst;
} from_job;

static void from_rows(void *arg, int begin, int end, int worker)
{
    const from_job *j = (const from_job *)arg;
    const jf_image *d = j->dst;
    const int ch = d->channels, colour = j->map->colour;
    int y, x, c;
    (void)worker;
    for (y = begin; y < end; y++) {
        unsigned char *row = d->data + (size_t)y * d->stride;
        const unsigned char *srow = j->src->data + (size_t)y * j->src->stride;
        for (x = 0; x < d->width; x++) {
            float v[3];
            for (c = 0; c < colour; c++)
                v[c] = jf_plane_row(j->p, c, y + j->pad)[x + j->pad];
            if (j->map->decorrelate)
                jf_dec_to_rgb(v[0], v[1], v[2], &v[0], &v[1], &v[2]);
            for (c = 0; c < ch; c++) {
                const float f = c >= colour ? 0.0f
                                : j->map->vst ? jf_gat_inverse(v[c], j->map->a, j->map->b) : v[c];
                if (d->sample == JF_SAMPLE_U16)
                    ((uint16_t *)(void *)row)[x * ch + c] =
                        c >= colour ? ((const uint16_t *)(const void *)srow)[x * ch + c]
                                    : jf_saturate_round16(f);
                else
                    row[x * ch + c] = c >= colour ? srow[x * ch + c] : jf_saturate_round(f);
            }
        }
    }
}

void jf_planes_to_image(jf_context *ctx, const jf_planes *p, int pad, const jf_plane_map *map,
                        const jf_image *src, jf_image *dst)
{
    from_job j;
    j.p = p;
    j.pad = pad;
    j.map = map;
    j.src = src;
    j.dst = dst;
    jf_parallel_for(ctx, dst->height, from_rows, &j);
}
