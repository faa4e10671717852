/*
 * The damaged-data check of the GPU's JPEG path, fast: a walk over the
 * scan's Huffman codes that decodes no coefficient.
 *
 * jf_jpeg_check_entropy must refuse every JPEG whose entropy-coded data
 * libjpeg-turbo's decoder refuses, with its message.  Reading the data with
 * libjpeg-turbo (at an eighth of the size) is most of the GPU path's CPU
 * time (docs/kernels/studies.md, "Damaged JPEG data on the GPU path").  This walk sits in front of
 * it and only ever says "clean" or "not sure":
 *
 *   clean      the file is one the engine decodes (baseline Huffman, 8
 *              bits, one scan holding every component, standard layout)
 *              and its scan reads as libjpeg-turbo reads it without any
 *              of the warnings it counts as damage: every code is in its
 *              table, no bit is read past a segment's end (premature
 *              end), no whole byte is left over before a marker
 *              (extraneous bytes), the restart markers come in sequence,
 *              the end marker follows the scan, and the DC sums stay well
 *              inside an int;
 *   not sure   anything else, whatever the reason: libjpeg-turbo then
 *              reads the file as before and gives its own verdict and
 *              message.
 *
 * So the check is never looser than libjpeg-turbo's, and a damaged file's
 * message is still libjpeg-turbo's; the walk only makes clean files cheap.
 * It mirrors libjpeg-turbo's reading rules (jdhuff.c, jdmarker.c): a 0xFF
 * followed by 0xFF fill bytes and 0x00 is one data byte 0xFF, followed by
 * anything else a marker; codes are decoded canonically from the table's
 * counts, the longest 16 bits; a symbol with a size of 0 and a run other
 * than 15 ends the block.
 */
#include "io/io.h"

#include <stdint.h>
#include <stdio.h> /* jpeglib.h uses FILE */
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

enum {
    LOOK = 11,      /* bits a table lookup sees; longer codes take the slow path */
    PAD = 4096,     /* zero bytes after the data: an MCU reads at most 10 x 248 bytes */
    MAX_BLOCKS = 10 /* blocks an MCU may hold (libjpeg's D_MAX_BLOCKS_IN_MCU) */
};

/* A Huffman table as the walk uses it: fast[] by the next LOOK bits, 0
 * where no code of LOOK bits or fewer starts there.
 *   DC: the code's length | the difference's size << 8.
 *   AC: up to two symbols at once, the second where its code also lies in
 *       the LOOK bits: bits 0-5 what both take (codes and extra bits), 6-11
 *       what the first takes, 12-18 how far the first moves the coefficient
 *       index (64: the block ends), 19-26 how far both move it.  Only the
 *       codes must be in sight: extra bits are skipped, never read. */
typedef struct walk_table {
    uint32_t fast[1 << LOOK];
    int32_t maxcode[18];
    int32_t valoffset[18];
    uint8_t huffval[256];
} walk_table;

/* The first code of the `n` bits `v` as jpeg_huff_decode reads it, bit by
 * bit from length `from` on (no shorter code starts there): its symbol and
 * length, or -1 when none ends within the n bits. */
static int first_code(const walk_table *t, int v, int n, int from, int *len)
{
    int l;
    for (l = from; l <= n; l++) {
        const int code = v >> (n - l);
        if (code <= t->maxcode[l]) {
            *len = l;
            return t->huffval[(code + t->valoffset[l]) & 0xFF];
        }
    }
    return -1;
}

/* How far an AC symbol moves the coefficient index: run + 1; 16 for a run
 * of 16 zeros; 64 for the end of the block (size 0, any other run). */
static int ac_advance(int sym)
{
    return (sym & 15) ? (sym >> 4) + 1 : (sym >> 4) == 15 ? 16 : 64;
}

/* The table libjpeg-turbo would derive from `h` (jpeg_make_d_derived_tbl),
 * or 0 where it would refuse it: let libjpeg-turbo say why. */
static int make_table(const JHUFF_TBL *h, int dc, walk_table *t)
{
    int huffsize[257], huffcode[257];
    int p = 0, l, i, si, code, n;
    for (l = 1; l <= 16; l++) {
        i = h->bits[l];
        if (p + i > 256)
            return 0;
        while (i--)
            huffsize[p++] = l;
    }
    huffsize[p] = 0;
    n = p;
    code = 0;
    si = huffsize[0];
    p = 0;
    while (huffsize[p]) {
        while (huffsize[p] == si) {
            huffcode[p++] = code;
            code++;
        }
        if (code >= (1 << si))
            return 0;
        code <<= 1;
        si++;
    }
    p = 0;
    for (l = 1; l <= 16; l++) {
        if (h->bits[l]) {
            t->valoffset[l] = p - huffcode[p];
            p += h->bits[l];
            t->maxcode[l] = huffcode[p - 1];
        } else {
            t->maxcode[l] = -1;
        }
    }
    t->maxcode[17] = 0xFFFFF;
    t->valoffset[17] = 0;
    memcpy(t->huffval, h->huffval, sizeof t->huffval);
    if (dc)
        for (i = 0; i < n; i++)
            if (h->huffval[i] > 15)
                return 0;
    for (i = 0; i < (1 << LOOK); i++) {
        int l1, l2, s1, skip1, adv1;
        const int sym = first_code(t, i, LOOK, 1, &l1);
        t->fast[i] = 0;
        if (sym < 0)
            continue;
        if (dc) {
            t->fast[i] = (uint32_t)(l1 | sym << 8);
            continue;
        }
        s1 = sym & 15;
        skip1 = l1 + s1;
        adv1 = ac_advance(sym);
        t->fast[i] = (uint32_t)(skip1 | skip1 << 6 | adv1 << 12 | adv1 << 19);
        if (adv1 < 64 && skip1 < LOOK) {
            const int rest = LOOK - skip1;
            const int sym2 = first_code(t, i & ((1 << rest) - 1), rest, 1, &l2);
            if (sym2 >= 0)
                t->fast[i] = (uint32_t)((skip1 + l2 + (sym2 & 15)) | skip1 << 6 | adv1 << 12 |
                                        (adv1 + ac_advance(sym2)) << 19);
        }
    }
    return 1;
}

/* A code longer than LOOK bits from the top of `buf`: its symbol and
 * length, or -1 for none of 16 bits or fewer (a bad Huffman code). */
static int slow_symbol(const walk_table *t, uint64_t buf, int *len)
{
    return first_code(t, (int)(buf >> 48), 16, LOOK + 1, len);
}

static inline uint64_t load_be64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}

/* The bit reader: `buf` holds `cnt` bits from the top (at least 56 after a
 * refill, more than any step takes); `p` is the first byte not wholly in
 * it.  The refill comes after each step, so its load waits on the step
 * before, not on the table lookup of this one. */
typedef struct bits {
    const unsigned char *p;
    uint64_t buf;
    int cnt;
} bits;

#define REFILL(b)                                                                                  \
    do {                                                                                           \
        (b).buf |= load_be64((b).p) >> (b).cnt;                                                    \
        (b).p += (63 - (b).cnt) >> 3;                                                              \
        (b).cnt |= 56;                                                                             \
    } while (0)

#define TAKE(b, n)                                                                                 \
    do {                                                                                           \
        (b).buf <<= (n);                                                                           \
        (b).cnt -= (n);                                                                            \
    } while (0)

/* Bits the reader has taken since `base`. */
static inline size_t bits_used(const bits *b, const unsigned char *base)
{
    return (size_t)(b->p - base) * 8 - (size_t)b->cnt;
}

/* One step of the AC codes: one or two symbols (at most 26 bits from the
 * table, so two steps fit in a refill's 56), or a long code from the slow
 * path (refilled before, as it may take 31, and after, so that whatever
 * step follows still finds 26). */
#define AC_STEP(b, act, k)                                                                         \
    do {                                                                                           \
        const uint32_t e_ = (act)->fast[(b).buf >> (64 - LOOK)];                                   \
        if (e_) {                                                                                  \
            /* both symbols only where the first leaves the block open */                          \
            const int both_ = (k) + (int)((e_ >> 12) & 127) < 64;                                  \
            const int skip_ = both_ ? (int)(e_ & 63) : (int)((e_ >> 6) & 63);                      \
            (k) += both_ ? (int)(e_ >> 19) : (int)((e_ >> 12) & 127);                              \
            TAKE(b, skip_);                                                                        \
        } else {                                                                                   \
            int len_, sym_;                                                                        \
            REFILL(b);                                                                             \
            if ((sym_ = slow_symbol(act, (b).buf, &len_)) < 0)                                     \
                return 0;                                                                          \
            TAKE(b, len_ + (sym_ & 15));                                                           \
            REFILL(b); /* and after: the next step may take 26 */                                  \
            (k) += ac_advance(sym_);                                                               \
        }                                                                                          \
    } while (0)

/* One block: the DC difference (added to *dc) and the AC codes.  0 on a
 * bad code. */
static inline int walk_block(bits *b, const walk_table *dct, const walk_table *act, int64_t *dc)
{
    uint32_t e;
    int len, s, k;
    REFILL(*b);
    e = dct->fast[b->buf >> (64 - LOOK)];
    if (e) {
        len = (int)(e & 31);
        s = (int)(e >> 8);
    } else if ((s = slow_symbol(dct, b->buf, &len)) < 0) {
        return 0;
    }
    TAKE(*b, len);
    if (s) {
        const int v = (int)(b->buf >> (64 - s));
        *dc += v < (1 << (s - 1)) ? v - (1 << s) + 1 : v;
        TAKE(*b, s);
    }
    REFILL(*b);
    for (k = 1;;) {
        AC_STEP(*b, act, k);
        if (k >= 64)
            break;
        AC_STEP(*b, act, k);
        if (k >= 64)
            break;
        REFILL(*b);
    }
    return 1;
}

/* The scan's data without its stuffing, cut at the markers: segment i is
 * bytes seg[i] .. seg[i + 1] - 1 of `out`, ended by marker mark[i].  The
 * last segment is the one a marker other than RSTn ends.  0 when the data
 * runs out before such a marker. */
typedef struct segments {
    unsigned char *out;
    size_t *seg;
    unsigned char *mark;
    size_t count;
} segments;

static int cut_segments(const unsigned char *p, const unsigned char *end, size_t max_segments,
                        segments *sg)
{
    size_t n = 0;
    sg->count = 0;
    sg->seg[0] = 0;
    for (;;) {
        const unsigned char *q = (const unsigned char *)memchr(p, 0xFF, (size_t)(end - p));
        const unsigned char *r;
        if (!q)
            return 0;
        memcpy(sg->out + n, p, (size_t)(q - p));
        n += (size_t)(q - p);
        for (r = q + 1; r < end && *r == 0xFF; r++)
            ;
        if (r == end)
            return 0;
        if (*r == 0) {
            sg->out[n++] = 0xFF;
            p = r + 1;
            continue;
        }
        sg->mark[sg->count] = *r;
        sg->seg[++sg->count] = n;
        p = r + 1;
        if (*r < 0xD0 || *r > 0xD7 || sg->count == max_segments)
            break;
    }
    memset(sg->out + n, 0, PAD);
    return 1;
}

int jf_jpeg_scan_clean(struct jpeg_decompress_struct *cinfo, const unsigned char *bytes,
                       size_t size)
{
    walk_table *tables = NULL;
    const walk_table *dct[MAX_BLOCKS], *act[MAX_BLOCKS];
    int comp[MAX_BLOCKS];
    int64_t dc[MAX_COMPS_IN_SCAN];
    segments sg = {NULL, NULL, NULL, 0};
    size_t mcus, per_interval, intervals, i, m, start;
    int blocks = 0, ci, j, clean = 0;

    if (cinfo->progressive_mode || cinfo->arith_code || cinfo->data_precision != 8 ||
        cinfo->comps_in_scan != cinfo->num_components || cinfo->comps_in_scan < 1 ||
        cinfo->comps_in_scan > MAX_COMPS_IN_SCAN || cinfo->Ss != 0 || cinfo->Se != 63 ||
        cinfo->Ah != 0 || cinfo->Al != 0 || cinfo->unread_marker != 0 || !cinfo->src ||
        cinfo->src->next_input_byte < bytes || cinfo->src->next_input_byte > bytes + size ||
        cinfo->CCIR601_sampling)
        return 0;
    /* the layouts the engine decodes, whose output libjpeg-turbo sets up without complaint */
    if (!(cinfo->num_components == 1 && cinfo->jpeg_color_space == JCS_GRAYSCALE) &&
        !(cinfo->num_components == 3 &&
          (cinfo->jpeg_color_space == JCS_YCbCr || cinfo->jpeg_color_space == JCS_RGB)))
        return 0;
    tables = (walk_table *)malloc(2 * MAX_COMPS_IN_SCAN * sizeof *tables);
    if (!tables)
        return 0;
    for (ci = 0; ci < cinfo->comps_in_scan; ci++) {
        const jpeg_component_info *c = cinfo->cur_comp_info[ci];
        const JHUFF_TBL *h;
        int n;
        if (c->quant_tbl_no < 0 || c->quant_tbl_no >= NUM_QUANT_TBLS ||
            !cinfo->quant_tbl_ptrs[c->quant_tbl_no] || c->dc_tbl_no < 0 ||
            c->dc_tbl_no >= NUM_HUFF_TBLS || c->ac_tbl_no < 0 || c->ac_tbl_no >= NUM_HUFF_TBLS)
            goto done;
        /* whole ratios of sampling: the upsampler takes no others */
        if (c->h_samp_factor < 1 || c->v_samp_factor < 1 ||
            cinfo->max_h_samp_factor % c->h_samp_factor ||
            cinfo->max_v_samp_factor % c->v_samp_factor)
            goto done;
        if (!(h = cinfo->dc_huff_tbl_ptrs[c->dc_tbl_no]) || !make_table(h, 1, &tables[2 * ci]))
            goto done;
        if (!(h = cinfo->ac_huff_tbl_ptrs[c->ac_tbl_no]) || !make_table(h, 0, &tables[2 * ci + 1]))
            goto done;
        /* the blocks of this component in an MCU, in the order they are coded */
        n = cinfo->comps_in_scan == 1 ? 1 : c->h_samp_factor * c->v_samp_factor;
        if (blocks + n > MAX_BLOCKS)
            goto done;
        for (j = 0; j < n; j++, blocks++) {
            dct[blocks] = &tables[2 * ci];
            act[blocks] = &tables[2 * ci + 1];
            comp[blocks] = ci;
        }
    }
    if (cinfo->comps_in_scan == 1)
        mcus = (size_t)cinfo->cur_comp_info[0]->width_in_blocks *
               cinfo->cur_comp_info[0]->height_in_blocks;
    else
        mcus = (size_t)((cinfo->image_width + 8 * cinfo->max_h_samp_factor - 1) /
                        (8 * cinfo->max_h_samp_factor)) *
               ((cinfo->image_height + 8 * cinfo->max_v_samp_factor - 1) /
                (8 * cinfo->max_v_samp_factor));
    if (mcus == 0)
        goto done;
    per_interval = cinfo->restart_interval ? cinfo->restart_interval : mcus;
    intervals = (mcus + per_interval - 1) / per_interval;
    start = (size_t)(cinfo->src->next_input_byte - bytes);
    /* what no clean file holds: a marker of 2 bytes ends each interval, a
     * block takes 2 bits at least (saves a hostile header's huge buffers) */
    if (intervals > (size - start) / 2 || mcus / 4 > (size - start) / (size_t)blocks)
        goto done;
    sg.out = (unsigned char *)malloc(size - start + PAD);
    sg.seg = (size_t *)malloc((intervals + 1) * sizeof *sg.seg);
    sg.mark = (unsigned char *)malloc(intervals);
    if (!sg.out || !sg.seg || !sg.mark ||
        !cut_segments(bytes + start, bytes + size, intervals, &sg))
        goto done;
    /* restart markers in sequence between the intervals, the end marker after the last */
    if (sg.count != intervals || sg.mark[intervals - 1] != 0xD9)
        goto done;
    for (i = 0; i + 1 < intervals; i++)
        if (sg.mark[i] != 0xD0 + (i & 7))
            goto done;
    for (i = 0, m = 0; i < intervals; i++) {
        const size_t seg_bits = 8 * (sg.seg[i + 1] - sg.seg[i]);
        const size_t last = m + per_interval < mcus ? m + per_interval : mcus;
        bits b = {sg.out + sg.seg[i], 0, 0};
        size_t used = 0;
        memset(dc, 0, sizeof dc); /* the predictions start again at each restart */
        for (; m < last; m++) {
            for (j = 0; j < blocks; j++) {
                if (!walk_block(&b, dct[j], act[j], &dc[comp[j]]))
                    goto done;
                /* a DC sum far from overflowing libjpeg's int */
                if (dc[comp[j]] > (1 << 30) || dc[comp[j]] < -(1 << 30))
                    goto done;
            }
            /* read past the segment: premature end (and the walk stops before the padding's end) */
            if ((used = bits_used(&b, sg.out + sg.seg[i])) > seg_bits)
                goto done;
        }
        /* whole bytes left before the marker: extraneous data (used <= seg_bits,
         * checked after each MCU) */
        if (seg_bits - used >= 8)
            goto done;
    }
    clean = 1;
done:
    free(sg.out);
    free(sg.seg);
    free(sg.mark);
    free(tables);
    return clean;
}
