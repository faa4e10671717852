/*
 * A Jetson's launch list (benchmarks/jetson/BOARD/launches.txt), made from
 * the variant table: every kernel launch the resolver can choose on the
 * board, with the most dynamic shared memory it asks for.  The board's
 * check (scripts/nano-check.sh, scripts/orin-check.sh) checks each against
 * its build's registers and spills; a CTest test checks that the committed
 * lists are what this prints, so they cannot drift.
 *
 *   jetfilter-launches nano > benchmarks/jetson/nano/launches.txt
 *   jetfilter-launches orin > benchmarks/jetson/orin/launches.txt
 */
#include "filters/ops.h"
#include "filters/resolve.h"

#include <stdio.h>
#include <string.h>

#define MAX_LAUNCHES 256

typedef struct launch {
    char instance[128];
    int threads;
    size_t smem;
    int kmin, kmax;       /* the k that launch it */
    unsigned channels;    /* bit c: c channels */
    unsigned samples;     /* bit (1 << jf_sample) */
    int bx, by;           /* its block (at the most shared memory) */
} launch;

typedef struct collect {
    launch list[MAX_LAUNCHES];
    int n, overflow;
    /* the call being enumerated */
    int k, ch;
    jf_sample sample;
} collect;

static void emit(void *user, const char *instance, int bx, int by, size_t smem)
{
    collect *c = (collect *)user;
    const int threads = bx * by;
    launch *l = NULL;
    int i;
    for (i = 0; i < c->n; i++)
        if (strcmp(c->list[i].instance, instance) == 0 && c->list[i].threads == threads)
            l = &c->list[i];
    if (!l) {
        if (c->n == MAX_LAUNCHES) {
            c->overflow = 1;
            return;
        }
        l = &c->list[c->n++];
        memset(l, 0, sizeof *l);
        snprintf(l->instance, sizeof l->instance, "%s", instance);
        l->threads = threads;
        l->kmin = c->k;
        l->kmax = c->k;
    }
    if (c->k < l->kmin)
        l->kmin = c->k;
    if (c->k > l->kmax)
        l->kmax = c->k;
    l->channels |= 1u << c->ch;
    l->samples |= 1u << c->sample;
    if (smem >= l->smem) {
        l->smem = smem;
        l->bx = bx;
        l->by = by;
    }
}

/* The boards as the CUDA runtime describes them. */
typedef struct board {
    const char *name, *words;
    int cc_major, cc_minor, sms, shared_per_block_optin, shared_per_sm, registers_per_block;
} board;

static const board boards[] = {
    /* JetPack 4.6, GM20B */
    {"nano", "a Jetson Nano (compute\n# capability 5.3, 1 SM, 48 KiB of shared memory a block)", 5, 3, 1, 49152,
     65536, 32768},
    /* JetPack 6, GA10B as the Orin Nano 8 GB and the Orin NX have it (the
     * AGX Orin has 16 SMs, the Orin Nano 4 GB 4) */
    {"orin", "a Jetson Orin Nano (compute\n# capability 8.7, 8 SMs, 48 KiB of shared memory a block, 163 KiB by opting in)",
     8, 7, 8, 166912, 167936, 65536},
};

static jf_device_info device_of(const board *b)
{
    jf_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "%s", b->name);
    d.cc_major = b->cc_major;
    d.cc_minor = b->cc_minor;
    d.multiprocessors = b->sms;
    d.integrated = 1;
    d.shared_per_block = 49152;
    d.shared_per_block_optin = b->shared_per_block_optin;
    d.shared_per_sm = b->shared_per_sm;
    d.registers_per_block = b->registers_per_block;
    d.registers_per_sm = 65536;
    d.max_threads_per_block = 1024;
    return d;
}

static void words(const launch *l, char *out, size_t n)
{
    int used = snprintf(out, n, "%dx%d", l->bx, l->by);
    used += snprintf(out + used, n - (size_t)used, l->kmin == l->kmax ? ", k = %d" : ", k = %d..%d",
                     l->kmin, l->kmax);
    used += snprintf(out + used, n - (size_t)used, ", channels %s%s%s", l->channels & 2 ? "1" : "",
                     l->channels & 8 ? (l->channels & 2 ? " 3" : "3") : "",
                     l->channels & 16 ? (l->channels & 10 ? " 4" : "4") : "");
    static const char *const depths[8] = {"-", "8 bits", "16 bits", "8 and 16 bits", "float32",
                                          "8 bits, float32", "16 bits, float32",
                                          "8 and 16 bits, float32"};
    snprintf(out + used, n - (size_t)used, ", %s", depths[l->samples & 7]);
}

int main(int argc, char **argv)
{
    static collect c;
    /* the blocks and shapes some rows size by the grid */
    static const int sizes[][2] = {{3840, 2160}, {320, 240}, {64, 48}};
    static const int chans[] = {1, 3, 4};
    const board *b = NULL;
    jf_device_info dev;
    /* the weights: none (what rows that take only some weights pass over)
     * and a box (what they take) */
    static float box[JF_CONV_MAX_KSIZE * JF_CONV_MAX_KSIZE];
    int f, r, s, ci, si, rank1, boxed, i;
    for (i = 0; argc == 2 && i < (int)(sizeof boards / sizeof boards[0]); i++)
        if (strcmp(argv[1], boards[i].name) == 0)
            b = &boards[i];
    if (!b) {
        fprintf(stderr, "usage: jetfilter-launches nano|orin\n");
        return 2;
    }
    dev = device_of(b);
    for (f = 0; f < jf_family_total; f++) {
        const jf_family *fam = jf_families[f];
        for (r = 0; r < fam->row_count; r++) {
            const jf_variant_row *row = &fam->rows[r];
            const int kmax = row->kmax > 255 ? 255 : row->kmax;
            if (!row->launches)
                continue;
            for (s = 0; s < JF_SAMPLE_COUNT; s++)
                for (ci = 0; ci < 3; ci++)
                    for (si = 0; si < 3; si++)
                        for (rank1 = 0; rank1 <= 1; rank1++)
                            for (boxed = 0; boxed <= 1; boxed++)
                                for (c.k = row->kmin; c.k <= kmax; c.k += row->kmin == row->kmax ? 1 : 2) {
                                    jf_resolve_in in;
                                    jf_choice choice;
                                    if (!(row->samples & (1u << s)))
                                        continue;
                                    for (i = 0; boxed && i < c.k * c.k && c.k <= JF_CONV_MAX_KSIZE; i++)
                                        box[i] = 1.0f / (float)(c.k * c.k);
                                    memset(&in, 0, sizeof in);
                                    in.family = fam;
                                    in.fn = "launch list";
                                    in.dev = &dev;
                                    in.shape.width = sizes[si][0];
                                    in.shape.height = sizes[si][1];
                                    in.shape.channels = chans[ci];
                                    in.shape.sample = (jf_sample)s;
                                    in.shape.rank1 = rank1;
                                    in.shape.weights = boxed && c.k <= JF_CONV_MAX_KSIZE ? box : NULL;
                                    in.k = c.k;
                                    in.asked = row->variant;
                                    if (jf_resolve(&in, &choice) != JF_OK || choice.row != row)
                                        continue;
                                    c.ch = chans[ci];
                                    c.sample = (jf_sample)s;
                                    row->launches(&dev, &in.shape, c.k, choice.block_x, choice.block_y, emit, &c);
                                }
        }
    }
    if (c.overflow) {
        fprintf(stderr, "jetfilter-launches: more than %d launches\n", MAX_LAUNCHES);
        return 1;
    }
    printf("# Every kernel launch the resolver can choose on %s, with the most\n"
           "# dynamic shared memory it asks for; made by `jetfilter-launches %s` from the\n"
           "# variant table (filters/*/*_variants.c), never edited by hand.\n"
           "# benchmarks/jetson/occupancy.cpp checks each against the board's limits\n"
           "# (scripts/%s-check.sh).  Columns: kernel as cu++filt names it without\n"
           "# spaces, threads a block, dynamic shared memory in bytes, then in words:\n"
           "# the block at that shared memory, the k, channels and depths that launch it.\n",
           b->words, b->name, b->name);
    for (i = 0; i < c.n; i++) {
        char w[160];
        words(&c.list[i], w, sizeof w);
        printf("%-60s %4d %6zu  %s\n", c.list[i].instance, c.list[i].threads, c.list[i].smem, w);
    }
    return 0;
}
