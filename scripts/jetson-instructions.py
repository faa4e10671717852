#!/usr/bin/env python3
"""Instructions per output pixel of a Jetson's fast grey kernels (median and
convolution, k = 3 to 13), from the board's machine code: CUDA 11.8's sm_53
for the Nano, CUDA 12.4's sm_87 for the Orin (scripts/nano-check.sh and
scripts/orin-check.sh --update write benchmarks/jetson/BOARD/instructions.md).

  cuobjdump -sass libjetfilter.a | cu++filt | jetson-instructions.py nano|orin LAUNCHES
  jetson-instructions.py --kernels < NAMES   (the kernels it reads, for cuobjdump -fun)

Static counts as a thread of a block inside the image runs them, divided by
the thread's outputs:
  network   the straight-line blocks that hold the work (basic blocks at
            least 35% min/max or multiply-add instructions), with the shared
            loads, unpacking and packing ptxas scheduled into them;
  tile      the cheapest path once around the tile's load loop that stores
            16-byte pieces and loads words (not the sample-by-sample path
            at the image's edges), per piece, times the pieces a thread
            loads (the launch's shared memory / 16 / threads);
  stores    the blocks with the widest row stores (one a row);
  prologue  the first basic block (the rest of the prologue, a few tens of
            instructions a thread, is not counted).
A kernel whose blocks inside the image read it directly (no tile, no
barrier: the k = 3 video median) is counted whole, every instruction on its
path from the first block to the exit: "tile" then holds what comes before
the work (the check, the row pointers), "stores" what lies between and
after it.  Then the board's predicted time for a 1920 x 1080 grey frame at
its clocks (instructions / (128 lanes x SMs x clock); on the Orin's Ampere
SMs integer min/max and dot products issue at 64 lanes an SM, so they
count twice) against its memory (a read and a write of each sample), and which
bounds it.
"""
import os
import re
import sys

# the work itself: min/max for the medians, multiply-adds for the convolutions
# (float, or fixed point: the Nano's video ones, the Orin's dot products)
WORK = re.compile(r'^(IMNMX|VMNMX|VIMNMX|FMNMX|HSET2|HMNMX2|FFMA|FMUL|FADD|VMAD|IDP)')
# integer min/max and dot products, at half the issue rate on Ampere's SMs
HALF_RATE = re.compile(r'^(IMNMX|VIMNMX|IDP)')
PIXELS = 1920 * 1080

# Each board: its SMs, its clocks (MHz) each with the memory's GB/s at that
# mode, and the words of the table's head.
BOARDS = {
    'nano': {
        'title': 'the Jetson Nano (sm_53)', 'check': 'nano-check.sh', 'cuda': "CUDA 11.8's sm_53",
        'sms': 1, 'half_rate_minmax': False,
        'modes': [('921 MHz', 921, 16.5), ('614 MHz', 614, 16.5)],
        'memory': "read and write each pixel at 16.5 GB/s, measured copy",
        'lanes': "the Nano's 128 lanes",
    },
    'orin': {
        'title': 'the Jetson Orin Nano (sm_87)', 'check': 'orin-check.sh', 'cuda': "CUDA 12.4's sm_87",
        'sms': 8, 'half_rate_minmax': True,
        # MAXN_SUPER, 15W and 7W (JetPack 6.1+): GPU clock caps and the
        # memory's theoretical bandwidth at its EMC clock in each
        'modes': [('MAXN_SUPER', 1020, 102.0), ('15W', 625, 68.0), ('7W', 420, 68.0)],
        'memory': "read and write each pixel at the memory's theoretical 102 GB/s in MAXN_SUPER and 68 "
                  "GB/s in 15W and 7W: a measured copy reaches less, so the memory column is a floor",
        'lanes': "the Orin Nano's 8 SMs of 128 lanes (integer min/max and dot products at 64 lanes an SM)",
    },
}


# The kernels the tables read, by name without spaces or return type: the
# fast grey networks (not the strips, nor the several-channel kernels) and
# convolutions, and the histogram median.
TABLE_KERNELS = ('median_fast_kernel', 'median_fast_video', 'conv_fast_kernel', 'conv_fast_video', 'conv_fast_dp',
                 'median_shared_hist_kernel<')


def table_kernels(listing):
    """`--kernels`: of "mangled<TAB>demangled" lines (a library's kernels),
    the mangled names of those the tables read, comma separated (for
    cuobjdump -fun: disassembling the whole library took most of a check)."""
    names = []
    for line in listing.splitlines():
        mangled, _, demangled = line.partition('\t')
        if re.sub(r'^void\s+', '', demangled).replace(' ', '').startswith(TABLE_KERNELS):
            names.append(mangled)
    return ','.join(names)


def outputs_a_thread(name, shapes):
    """Outputs a thread computes, from median_shapes.h's constants."""
    m = re.match(r'median_fast_kernel3<\(int\)(\d)', name)
    if m:
        return 4 * shapes['JF_MEDIAN_FAST_COLS'] * int(m.group(1))
    m = re.match(r'median_fast_kernel<\(int\)(\d+),\(int\)(\d)', name)
    if m:
        return 2 * shapes['JF_MEDIAN_FAST_COLS'] * int(m.group(2))
    m = re.match(r'median_fast_video_net_kernel<\(int\)(\d+)', name)
    if m:
        return 2 * shapes['JF_MEDIAN_FAST_COLS']
    if name.startswith('median_fast_video_kernel'):
        return shapes['JF_MEDIAN_VIDEO_ROWS'] * shapes['JF_MEDIAN_VIDEO_COLS']
    m = re.match(r'conv_fast_(video|dp)_kernel<\(int\)(\d+),', name)
    if m:
        return int(m.group(2)) * shapes['JF_CONV_FAST_FIXED_COLS']
    m = re.match(r'conv_fast_kernel<\(int\)(\d+),', name)
    if m:
        k = int(m.group(1))
        return shapes['JF_CONV_FAST_PX'] * (4 if k >= shapes['JF_CONV_FAST_ROWS_FROM'] else 8)
    return None


def functions(sass):
    """name -> [(address, instruction)] for every kernel in a cuobjdump -sass listing."""
    out, name = {}, None
    for line in sass.splitlines():
        m = re.search(r'Function : (.*)$', line)
        if m:
            # drop the parameter list: the first '(' that opens no template cast
            name = re.sub(r'\((?!int\)|bool\)).*$', '', m.group(1)).replace(' ', '')
            name = re.sub(r'^void', '', name)
            out[name] = []
            continue
        # "/*0970*/  LDG.E.128 R8, [R12] ;", or the second of a dual-issued
        # pair: "/*0988*/  @P1 LDG.E.128 R4, [R12+0x10] }"
        m = re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+([^;}]*?)\s*[;}]', line)
        if m and name:
            text = m.group(2).replace('{', '').replace('}', '').strip()
            out[name].append((int(m.group(1), 16), text))
    return out


def opcode(text):
    return re.sub(r'^@!?P\w+\s+', '', text).split()[0]


def snap(ins, target):
    """A branch target as the instruction it reaches (on sm_5x every fourth
    8-byte slot holds scheduling control, and targets may name one)."""
    for a, _ in ins:
        if a >= target:
            return a
    return target


def blocks_of(ins):
    leaders = {ins[0][0]}
    for i, (a, t) in enumerate(ins):
        # sm_5x: SSY/SYNC and PBK/BRK reconverge; from sm_70, BSSY names the
        # reconvergence point (a BSYNC there) and the paths branch to it
        m = re.search(r'\b(BRA|SSY|PBK|BRK|SYNC|EXIT|RET|CAL|PCNT|CONT|BSSY)\b(.*)', t)
        if m:
            if i + 1 < len(ins):
                leaders.add(ins[i + 1][0])
            target = re.search(r'0x([0-9a-f]+)', m.group(2))
            if target and m.group(1) in ('BRA', 'SSY', 'PBK', 'PCNT', 'BSSY'):
                leaders.add(snap(ins, int(target.group(1), 16)))
    blocks, cur = [], []
    for a, t in ins:
        if a in leaders and cur:
            blocks.append(cur)
            cur = []
        cur.append((a, t))
    blocks.append(cur)
    return blocks


def real(block):
    return [t for _, t in block if not opcode(t).startswith('NOP')]


def successors(blocks):
    """Control flow between basic blocks: fall-through, branch targets, and
    SYNC / BRK to the reconvergence point of the innermost SSY / PBK region
    around them (or, where ptxas placed none around, the nearest after)."""
    index = {b[0][0]: i for i, b in enumerate(blocks)}
    ins = [x for b in blocks for x in b]
    points = {'SSY': [], 'PBK': []}  # (where set, reconvergence point)
    for a, t in ins:
        op = opcode(t)
        target = re.search(r'0x([0-9a-f]+)', t)
        if op in points and target:
            points[op].append((a, snap(ins, int(target.group(1), 16))))
    succ = [set() for _ in blocks]
    for i, b in enumerate(blocks):
        a, t = b[-1]
        op = opcode(t)
        predicated = t.startswith('@')
        target = re.search(r'0x([0-9a-f]+)', t)
        if op.startswith('BRA') and target and snap(ins, int(target.group(1), 16)) in index:
            succ[i].add(index[snap(ins, int(target.group(1), 16))])
        joined = False
        for kind, point in (('SYNC', 'SSY'), ('BRK', 'PBK')):
            # the innermost region set before and reconverging after it;
            # else the nearest point after it
            enclosing = [p for at, p in points[point] if at < a < p and p in index]
            after = [p for _, p in points[point] if p > a and p in index]
            if op.startswith(kind) and (enclosing or after):
                succ[i].add(index[min(enclosing or after)])
                joined = True
        ends = (op.startswith(('BRA', 'EXIT', 'RET')) or joined) and not predicated
        if not ends and i + 1 < len(blocks):
            succ[i].add(i + 1)
    return succ


def shortest(blocks, succ, src, dst, avoid=None):
    """The path with the fewest instructions from the start of block src to
    the end of block dst (both in it; dst a block, or a test of one: the
    nearest that passes), through no block that `avoid` names:
    (instructions, [blocks]), or None."""
    import heapq
    reached = dst if callable(dst) else lambda i: i == dst
    size = [len(real(b)) for b in blocks]
    best, prev = {src: size[src]}, {}
    heap = [(size[src], src)]
    while heap:
        d, n = heapq.heappop(heap)
        if d > best.get(n, 1e18):
            continue
        if reached(n):
            path = [n]
            while path[-1] != src:
                path.append(prev[path[-1]])
            return d, path[::-1]
        for m in succ[n]:
            if avoid and avoid(m):
                continue
            nd = d + size[m]
            if nd < best.get(m, 1e18):
                best[m], prev[m] = nd, n
                heapq.heappush(heap, (nd, m))
    return None


def work_block(block):
    """The work's blocks: at least 35% min/max or multiply-add instructions (a
    block that also loads a thread's window rows holds a little over a third)."""
    r = real(block)
    return bool(r) and sum(1 for t in r if WORK.match(opcode(t))) >= 0.35 * len(r)


def tile_piece(blocks):
    """Instructions a 16-byte piece of the tile costs on the cheapest path
    around the tile's load loop (a backward branch) that stores pieces: the
    path's instructions over the 16-byte shared stores on it (ptxas may
    unroll the loop, several pieces an iteration)."""
    succ = successors(blocks)
    stores = lambda i: sum(1 for _, t in blocks[i] if opcode(t).startswith('STS.128'))
    # word loads (LDG.E or generic LD.E, .64, .128): the pieces inside the image,
    # not the sample-by-sample one at its edges (LDG.E.U8, .U16)
    loads = lambda i: sum(1 for _, t in blocks[i] if re.match(r'LDG?\.E(\.64|\.128)?$', opcode(t)))
    best = None
    for latch in range(len(blocks)):
        for head in succ[latch]:
            if head > latch:
                continue
            for s in range(head, latch + 1):
                if not stores(s):
                    continue
                first = shortest(blocks, succ, head, s)
                second = shortest(blocks, succ, s, latch)
                if not first or not second:
                    continue
                path = first[1] + second[1][1:]
                if not any(loads(i) for i in path):
                    continue
                cost = first[0] + second[0] - len(real(blocks[s]))
                per = cost / float(sum(stores(i) for i in path))
                best = per if best is None else min(best, per)
    return best


def direct_path(blocks):
    """Where blocks inside the image skip the tile (read their rows straight
    from the image, no barrier): the cheapest path from the first block to
    an exit that meets no barrier and holds the work, as (blocks on it, its
    work blocks), else None."""
    barrier = lambda i: any(opcode(t).startswith('BAR') for _, t in blocks[i])
    exits = lambda i: any(opcode(t) == 'EXIT' and not t.startswith('@') for _, t in blocks[i])
    found = shortest(blocks, successors(blocks), 0, exits, avoid=barrier)
    if not found:
        return None
    net = [i for i in found[1] if work_block(blocks[i])]
    return (found[1], net) if net else None


def count(ins, smem, threads, outputs):
    """Per output: network, of it min/max, tile load, output stores, prologue."""
    blocks = blocks_of(ins)
    direct = direct_path(blocks)
    if direct:
        # every instruction on the path: before the work (the check, the row
        # pointers) as the tile's, after it (glue, stores) as the stores'
        path, net = direct
        size = lambda i: len(real(blocks[i]))
        work = sum(1 for i in net for t in real(blocks[i]) if WORK.match(opcode(t)))
        imnmx = sum(1 for i in net for t in real(blocks[i]) if HALF_RATE.match(opcode(t)))
        before = sum(size(i) for i in path[1:path.index(net[0])])
        after = sum(size(i) for i in path[path.index(net[0]):] if i not in net)
        return (sum(size(i) for i in net) / outputs, work / outputs, before / outputs,
                after / outputs, size(path[0]) / outputs, imnmx / outputs)
    network = minmax = imnmx = 0
    for b in blocks:
        if work_block(b):
            network += len(real(b))
            minmax += sum(1 for t in real(b) if WORK.match(opcode(t)))
            imnmx += sum(1 for t in real(b) if HALF_RATE.match(opcode(t)))
    piece = tile_piece(blocks)
    tile = piece * smem / 16.0 / threads / outputs if piece else None
    # the rows' stores where a row goes out whole and aligned: the blocks
    # with the widest global store, one a row
    widest = None
    for width in ('STG.E.128', 'STG.E.64', 'STG.E'):
        chosen = [b for b in blocks if any(opcode(t) == width for _, t in b)]
        if chosen:
            widest = sum(len(real(b)) for b in chosen)
            break
    stores = widest / outputs if widest else None
    return network / outputs, minmax / outputs, tile, stores, len(real(blocks[0])) / outputs, imnmx / outputs


def frame(board, total, bytes_a_sample, imnmx=0.0):
    """A 1080p frame at `total` instructions an output (`imnmx` of them
    integer min/max or dot products): ms in each of the board's modes, ms for its memory
    there (a read and a write of each sample), and which bounds it.  The
    Nano's two modes share one memory: (t921, t614, mem, bound) as before."""
    issue = max(total, 2 * imnmx) if board['half_rate_minmax'] else total
    times = [issue * PIXELS / (128 * board['sms'] * mhz * 1e6) * 1e3 for _, mhz, _ in board['modes']]
    mems = [2.0 * bytes_a_sample * PIXELS / (gbs * 1e9) * 1e3 for _, _, gbs in board['modes']]
    if not board['half_rate_minmax']:
        t921, t614 = times
        mem = mems[0]
        if t921 > mem:
            bound = 'instructions'
        elif t614 > mem:
            bound = 'memory at 921 MHz, instructions at 614'
        else:
            bound = 'memory'
        return times, [mem], bound
    bounds = ['instructions' if t > m else 'memory' for t, m in zip(times, mems)]
    if len(set(bounds)) == 1:
        return times, mems, bounds[0]
    parts = []
    for kind in ('memory', 'instructions'):
        names = [name for b, (name, _, _) in zip(bounds, board['modes']) if b == kind]
        if names:
            parts.append('%s in %s' % (kind, ' and '.join(names)))
    return times, mems, ', '.join(parts)


def ms(values):
    return ' / '.join('%.2f' % v for v in values)


def hist_rows(ins, strip_rows):
    """The histogram median's rows (median_shared_hist_kernel, tiled): for
    each k its row is one straight-line block of 2k atomic adds (k a
    constant), found by that count.  Per output: the shortest cycle from
    that block back to it (a row down whose marker stays in its bin: the
    2k updates, their samples' loads, the marker's checks, the store), the
    walk's loop body (one bin the marker moves; the mean of the loops
    between this row block and the next), and the strip's first window
    (k^2 adds at the fill loop's instructions a sample) over the strip's
    rows: [(k, row, walk a bin, strip start)]."""
    blocks = blocks_of(ins)
    succ = successors(blocks)
    atoms = lambda i: sum(1 for t in real(blocks[i]) if opcode(t).startswith('ATOMS'))
    loads = lambda i: sum(1 for t in real(blocks[i]) if opcode(t).startswith('LDS'))
    looping = lambda i: i in succ[i]
    fills = [len(real(blocks[i])) / float(atoms(i)) for i in range(len(blocks))
             if looping(i) and atoms(i) >= 8]
    fill = min(fills) if fills else None
    heads = [i for i in range(len(blocks)) if atoms(i) >= 10 and atoms(i) % 2 == 0 and not looping(i)]
    out = []
    for n, i in enumerate(heads):
        cycles = [shortest(blocks, succ, s, i) for s in succ[i]]
        cycles = [c for c in cycles if c]
        if not cycles:
            continue
        end = heads[n + 1] if n + 1 < len(heads) else len(blocks)
        walks = [len(real(blocks[j])) for j in range(i + 1, end)
                 if looping(j) and loads(j) and not atoms(j)]
        k = atoms(i) // 2
        out.append((k, min(c[0] for c in cycles), sum(walks) / float(len(walks)) if walks else 0.0,
                    k * k * fill / strip_rows if fill else 0.0))
    return sorted(out)


def main():
    if sys.argv[1:] == ['--kernels']:
        print(table_kernels(sys.stdin.read()))
        return
    if len(sys.argv) != 3 or sys.argv[1] not in BOARDS:
        sys.exit('usage: jetson-instructions.py nano|orin LAUNCHES < SASS\n'
                 '       jetson-instructions.py --kernels < NAMES')
    board = BOARDS[sys.argv[1]]
    nano = sys.argv[1] == 'nano'
    launches = open(sys.argv[2]).read()
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    shapes = {}
    for m in re.finditer(r'#define (JF_MEDIAN_\w+) (\d+)\b', open(src + '/filters/median/median_shapes.h').read()):
        shapes[m.group(1)] = int(m.group(2))
    conv = open(src + '/filters/conv/conv_shapes.h').read()
    shapes['JF_CONV_FAST_PX'] = int(re.search(r'#define JF_CONV_FAST_PX (\d+)', conv).group(1))
    # "#define JF_CONV_FAST_ROWS(k) ((k) >= 11 ? 4 : 8)": 4 rows from that k
    rows = re.search(r'#define JF_CONV_FAST_ROWS\(k\) \(\(k\) >= (\d+) \? 4 : 8\)', conv)
    shapes['JF_CONV_FAST_ROWS_FROM'] = int(rows.group(1))
    for m in re.finditer(r'#define (JF_CONV_FAST_FIXED_\w+) (\d+)\b', open(src + '/filters/conv/conv_fast_fixed.h').read()):
        shapes[m.group(1)] = int(m.group(2))
    fns = functions(sys.stdin.read())
    rows = []
    # the kernels the video ones replaced on the Nano (still run at 7.x-8.x):
    # their figures stay in the Nano's table to compare
    replaced = [] if not nano else ['median_fast_kernel3<(int)1,unsignedchar>  128  4896  32x4, k = 3, channels 1, 8 bits (replaced)',
                'median_fast_kernel<(int)5,(int)1,unsignedchar>  128  3264  32x4, k = 5, channels 1, 8 bits (replaced)',
                'median_fast_kernel<(int)7,(int)1,unsignedchar>  128  3808  32x4, k = 7, channels 1, 8 bits (replaced)']
    for line in launches.splitlines() + replaced:
        if line.startswith('#') or not line.strip():
            continue
        name, threads, smem = line.split()[:3]
        words = line.split(None, 3)[3]
        if 'channels 1,' not in words or not name.startswith(TABLE_KERNELS[:-1]):
            continue
        outputs = outputs_a_thread(name, shapes)
        if outputs is None or name not in fns:
            continue
        network, minmax, tile, stores, prologue, imnmx = count(fns[name], int(smem), int(threads), outputs)
        total = network + (tile or 0) + (stores or 0) + prologue
        k = re.search(r'k = (\d+)', words).group(1)
        depth = '16' if 'unsignedshort' in name else '8'
        times, mems, bound = frame(board, total, 2 if depth == '16' else 1, imnmx)
        if 'replaced' in words:
            name += '` (before)'
        else:
            name += '`'
        figure = lambda v: '%.1f' % v if v is not None else '-'
        rows.append('| `%s | %s | %s | %d | %.1f | %.1f | %s | %s | %.1f | **%.1f** | %s | %s | %s |' % (
            name, k, depth, outputs, network, minmax, figure(tile), figure(stores), prologue, total,
            ms(times), ms(mems), bound))
    modes = ' / '.join(m[0] for m in board['modes']) if not nano else '921 / 614 MHz'
    print('# Instructions per output pixel on %s' % board['title'])
    print()
    print('Made by `scripts/%s --update` (scripts/jetson-instructions.py): static' % board['check'])
    print("counts from %s machine code of the fast grey median and convolution kernels in" % board['cuda'])
    print('`launches.txt`, as a thread of a block inside the image runs them: the')
    print('straight-line blocks of the work (min/max or multiply-adds, shared loads, unpacking,')
    print("packing), the tile's load loop times the 16-byte pieces a thread loads, the blocks")
    print('with the widest row stores, and the prologue up to its first branch (the rest of')
    if nano:
        print("the prologue is not counted). A 1920 x 1080 grey frame on the Nano's 128 lanes at 921 and 614")
        print('MHz against its memory (read and write each pixel at 16.5 GB/s, measured copy).')
        print('A kernel whose blocks inside the image read it directly (no tile, no barrier: the')
        print('k = 3 video median) is counted whole, every instruction on that path from the first')
        print('block to the exit: "tile load" then holds what comes before the work (the check, the')
        print('row pointers), "row stores" what lies between and after it.')
    else:
        print('the prologue is not counted). A 1920 x 1080 grey frame on %s' % board['lanes'])
        print('in each power mode (%s: %s MHz) against its memory (%s).' % (
            modes, ' / '.join(str(m[1]) for m in board['modes']), board['memory']))
        print('Predictions from instruction counts, not measurements: no Orin was at hand.')
    print()
    print('| kernel | k | bits | outputs a thread | network | of it min/max or multiply-add | tile load | row stores | prologue | total | 1080p ms, %s | memory ms%s | bound |' % (
        modes, '' if nano else ', ' + modes))
    print('|---|---|---|---|---|---|---|---|---|---|---|---|---|')
    for r in rows:
        print(r)
    # the histogram median: what the Nano runs from k = 9 (jf_median_fast_runs)
    if not nano:
        return
    strip = shapes['JF_MEDIAN_STRIP_MAX']
    hist = []
    for line in launches.splitlines():
        name = line.split()[0] if line.strip() and not line.startswith('#') else ''
        if name.startswith(TABLE_KERNELS[-1]) and name.endswith('(bool)1>') and name in fns:
            bits = re.search(r'<\(int\)(\d+)', name).group(1)
            for k, row, walk, start in hist_rows(fns[name], strip):
                total = row + walk + start
                times, mems, bound = frame(board, total, 1)
                hist.append('| `%s` | %d | %s | %d | %.1f | %.1f | **%.1f** | %s | %s | %s |' % (
                    name, k, bits, row, walk, start, total, ms(times), ms(mems), bound))
    if hist:
        print()
        print('## The histogram median (the Nano runs it from k = 9)')
        print()
        print('`median_shared_hist_kernel` with its tile, where each k up to 29 runs its rows')
        print('with k a constant: per output, a row down (the shortest way round the row loop:')
        print('2k atomic adds, their samples\' loads, the marker\'s checks, the store; the marker')
        print('staying in its bin), the walk\'s loop body for each bin the marker moves, and the')
        print("strip's first window (k^2 adds at the fill loop's cost a sample) shared by its")
        print('%d rows. The total and the 1080p grey frame count one bin a row (a photo moves' % strip)
        print('less: 0.40 to 0.67 bins a row on retina.jpg at k = 5 to 15, measured with OpenCV);')
        print('the first walk from bin 0 is left out.')
        print('k = 5 and 7 are for comparison (the Nano runs the video networks there); from')
        print('k = 25 a 1080p frame takes the long strips (`median_shared_ring_kernel`, k known')
        print('only at run time), not in this table.')
        print()
        print('| kernel | k | counter bits | a row down | a bin walked | strip start | total | 1080p ms, 921 / 614 MHz | memory ms | bound |')
        print('|---|---|---|---|---|---|---|---|---|---|')
        for r in hist:
            print(r)


if __name__ == '__main__':
    main()
