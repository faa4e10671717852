#!/usr/bin/env python3
"""Mutation testing of the library's C sources: make one small mistake at a
time (a comparison turned, an operator swapped, a constant moved, a condition
negated, a statement dropped), rebuild, run the tests that cover the file, and
count the mistakes the tests catch.  A mutant that does not compile is not
counted; one that survives is listed for review (some are equivalent: they
change nothing a caller can see).

    scripts/mutate.py [--sample N] [--seed S] [--out DIR] [--timeout S] [--min-score P]
                      [--sanitize] PATH...
    scripts/mutate.py --replay SURVIVORS [--out DIR] [--sanitize]

PATH: source files or folders (filters/, core/, io/scan.c, pipeline/,
jobs/options.c).  --sample N: at most N mutants a folder, drawn at random
(seeded, so a rerun draws the same); 0 = every mutant.  The tree is copied
into DIR/src and built there once (CPU only, tests on), so the checkout is
never touched.  Prints the score per folder; DIR/survivors.txt lists what
survived with its diff.  `--list` prints the mutants without running them.
--min-score P: exit 1 when under P% of all compiled mutants are killed (CI
runs a small sample with it).  --replay: the mutants a run's survivors.txt
lists, again, on the code as it is now (each found by its line's text,
the nearest to where it was; a line no longer there is counted as gone):
what tests added since have killed.  --sanitize: build and run under
AddressSanitizer, LeakSanitizer and UBSan, as CI's sanitizer stage runs
every test, so a mutant that leaks (a free dropped) or overflows counts
as caught, as CI would catch it.
"""
import argparse
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# CTest entries that are scripts, not executables in build/tests: the man
# page, completions and README against --help; every report against the
# schema; the CPU median's networks against their derivation.
SCRIPT_TESTS = ('test_docs', 'test_schema', 'test_median_cpu_networks')

# Arguments a test takes here: check_rows' quick set (every row, border
# and depth, fewer k and sizes) keeps a mutant's run short.
TEST_ARGS = {'check_rows': ['--quick']}

# The tests that cover each folder, quickest and most direct first (run as
# many at once as there are cores; a run stops at the first failure).
TESTS = {
    # the median networks' check first: a changed comparator of k = 9's is
    # seen by it alone, in seconds
    'filters': ['test_median_cpu_networks', 'test_ops', 'check_rows', 'test_float', 'test_resolve', 'test_api',
                'test_metrics', 'test_launch_list', 'test_filters', 'test_impulse', 'test_denoise', 'test_codecs',
                'test_cli'],
    'core': ['test_api', 'test_float', 'test_profile', 'test_resolve', 'test_ops', 'test_metrics', 'test_power',
             'test_pipeline', 'test_codecs', 'test_filters', 'test_cli', 'test_hostile'],
    'io': ['test_formats', 'test_codecs', 'test_api', 'test_faults', 'test_stream', 'test_hostile',
           'test_cli', 'test_safety'],
    'pipeline': ['test_pipeline', 'test_shard', 'test_faults', 'test_cli', 'test_stream', 'test_hostile',
                 'test_safety'],
    'jobs': ['test_jobs', 'test_options', 'test_cli', 'test_faults', 'test_shard', 'test_ops', 'test_hostile',
             'test_safety', 'test_formats', 'test_docs', 'test_schema'],
    'cli': ['test_options', 'test_cli', 'test_faults', 'test_shard', 'test_ops', 'test_stream', 'test_power',
            'test_hostile', 'test_safety', 'test_docs', 'test_schema'],
    'calib': ['test_power', 'test_power_nvml', 'test_cli'],
}

# Code that runs only where a GPU (or its driver's library) is: a CPU
# build compiles it but no CPU test can reach it, so its mutants would
# only measure that.  Left out of the sample and named in the summary;
# the GPU tests (scripts/gpu.sh test) are what holds it.
GPU_ONLY = ('io/codec_nvjpeg.c',
            'cli/calibrate.c')  # its grid runs on a CUDA device; without one it refuses
# and functions, by file: a context attaches a calibration profile only for
# a CUDA device
GPU_ONLY_FUNCTIONS = {'core/profile.c': ('jf_profile_attach',)}


def gpu_only_lines(rel, lines):
    """Line numbers of the functions GPU_ONLY_FUNCTIONS names in a file:
    from the definition's first line to its closing brace."""
    out = set()
    for name in GPU_ONLY_FUNCTIONS.get(rel, ()):
        starts = [i for i, l in enumerate(lines) if re.match(r'^\w[\w\s\*]*\b%s\(' % name, l)]
        for i in starts:
            j = i
            while j < len(lines) and lines[j] != '}':
                j += 1
            out.update(range(i, j + 1))
    return out

# Mutants known to be equivalent (no caller can tell them from the code) or
# reachable only with a GPU, each reviewed once: (file, a regular
# expression searched in "old line -> new line", operator names), and why.
# Left out of the draw, so a sample's survivors are ones worth reading.
EQUIVALENT = [
    # a string or flag option's range fields are never read
    ('jobs/options.c', r'OPT_(STRING|FLAG).* -> ', ('0->1', '1->0', 'n->n+1')),
    # an option without a short letter given the letter 1, which no one types
    ('jobs/options.c', r' -> \s*\{"[\w-]+", 1, OPT_', ('0->1',)),
    # bucket JF_LATENCY_SUB holds that one microsecond count: both branches
    # give it as the bucket's upper end
    ('pipeline/latency.c', r'if \(b < JF_LATENCY_SUB\)', ('lt->le',)),
    # a regular file's read() returns it whole unless a signal comes first:
    # the offset and the count of a second read() are never used
    ('filters/conv/kernels.c', r'read\(fd, text \+ got', ('add->sub', 'sub->add')),
    # a plane's frames left unfreed: a leak, which only the sanitizers'
    # stage (LeakSanitizer over test_stream) can see; or one plane past
    # each array: the next array's first (freed again, as jf_image_free
    # allows) and after `ref` the slot's parameter text, cleared, as the
    # stream ends and nothing reads either
    ('pipeline/stream.c', r'for \(p = 0; p < JF_VIDEO_MAX_PLANES; p\+\+\) \{ -> ', ('0->1', 'lt->le')),
    ('pipeline/stream.c', r'jf_image_free\(&s->slots\[i\]\.\w+\[p\]\); -> ', ('drop-statement',)),
    # the k = 3 median's prefetches of the next pair's rows, to be read and
    # to be written: an address, a line size, a row or a condition changed
    # only moves or drops a hint (prefetches never fault)
    ('filters/median/median_net_template.c',
     r'^\s*(__builtin_prefetch\((next[01] \+ i|w[01] \+ i, 1)\);|const size_t line = 64 / sizeof\(SAMPLE\);|'
     r'const SAMPLE \*next[01] = .*source_row\(job, y \+ [45]\);|if \(w0\) \{|SAMPLE \*w[01] = .*) -> ',
     ('add->sub', 'sub->add', 'mul->div', 'div->mul', 'n->n+1', '0->1', '1->0', 'drop-statement',
      'negate-if', 'lt->le', 'le->lt')),
    ('filters/median/median_net_template.c', r' -> .*\b(next[01]|w[01]) - at\b', ('add->sub',)),
    # a block one sample longer: that sample is computed again by the next
    # block, or after the last lands in the chunk's slack, read from one
    # sample past the range (past the image only on its last row: ASan's)
    ('filters/median/median_net_template.c', r'^\s*for \(j = i; j < i \+ line; j\+\+\) -> ', ('lt->le',)),
    # the contexts' backend is read only to name a GPU item's device: on a
    # CPU-only build it is the CPU's whether set or not
    ('pipeline/batch.c', r'^\s*b->backend = jf_context_backend\(first\); -> ', ('drop-statement',)),
    # an item or its fields left unfreed: a leak, which the sanitizers'
    # stage sees (its stats': test_cli, test_shard, test_jobs,
    # test_pipeline and test_faults fail)
    ('pipeline/batch.c', r'^\s*free\(it(->\w+)?\); -> ', ('drop-statement',)),
    # a large image's request for huge pages is a hint: dropped or over
    # another length, only where the pages come from changes; its block
    # not returned falls through to malloc, a leak the sanitizers' stage sees
    ('core/image.c', r'^\s*\(void\)madvise\(p, n & ~\(JF_HUGE_PAGE - 1\), MADV_HUGEPAGE\);.* -> ',
     ('drop-statement', 'sub->add', '1->0')),
    ('core/image.c', r'^\s*return \(unsigned char \*\)p; -> ', ('drop-statement',)),
    # exactly 32 MiB on either side of the line
    ('core/image.c', r'if \(n >= JF_HUGE_MIN\) \{ -> ', ('ge->gt',)),
]


def equivalent(rel, line, new, name):
    change = line + ' -> ' + new
    return any(rel == f and name in names and re.search(pat, change) for f, pat, names in EQUIVALENT)


# (pattern, replacement, name): each match in a code line is one mutant.
OPERATORS = [
    (r'(?<![<>=!])==(?!=)', '!=', 'eq->ne'),
    (r'!=', '==', 'ne->eq'),
    (r'(?<![<>-])<=', '<', 'le->lt'),
    (r'(?<![<>-])>=', '>', 'ge->gt'),
    (r'(?<![<>\-=])<(?![<=])', '<=', 'lt->le'),
    (r'(?<![<>\-=])>(?![>=])', '>=', 'gt->ge'),
    (r'&&', '||', 'and->or'),
    (r'\|\|', '&&', 'or->and'),
    (r'(?<=[\w)\]]) \+ (?=[\w(])', ' - ', 'add->sub'),
    (r'(?<=[\w)\]]) - (?=[\w(])', ' + ', 'sub->add'),
    (r'(?<=[\w)\]]) \* (?=[\w(])', ' / ', 'mul->div'),
    (r'(?<=[\w)\]]) / (?=[\w(])', ' * ', 'div->mul'),
    (r'\+\+', '--', 'inc->dec'),
    (r'(?<![\w.])0(?![\w.x])', '1', '0->1'),
    (r'(?<![\w.])1(?![\w.x])', '0', '1->0'),
    (r'(?<![\w.])([2-9]|[1-9]\d+)(?![\w.x])', lambda m: str(int(m.group(0)) + 1), 'n->n+1'),
    (r'\bif \((.*)\)(\s*\{?\s*)$', r'if (!(\1))\2', 'negate-if'),
    (r'\breturn 1;', 'return 0;', 'return1->0'),
    (r'\breturn 0;', 'return 1;', 'return0->1'),
]
# whole statements dropped: assignments and calls ending a line
DROP = re.compile(r'^\s+(?!return|if|else|for|while|do|case|default|break|continue|goto)'
                  r'[\w*\->.\[\]() ]+(=[^=]|\+=|-=|\(|\+\+|--).*;\s*$')
# but not `(void)name;`, which only quiets a compiler: dropping it is
# equivalent by construction
VOID_CAST = re.compile(r'^\s*\(void\)\s*[\w.\->\[\]]+\s*(,\s*\(void\)\s*[\w.\->\[\]]+\s*)*;\s*$')


def code_lines(text):
    """Line numbers (0-based) of lines that are code: not comments, not
    preprocessor, not inside a block comment."""
    out, in_comment = [], False
    for i, line in enumerate(text.split('\n')):
        s = line.strip()
        if in_comment:
            if '*/' in s:
                in_comment = False
            continue
        if s.startswith('/*'):
            in_comment = '*/' not in s
            continue
        if not s or s.startswith('#') or s.startswith('//') or s.startswith('*'):
            continue
        out.append(i)
    return out


def strip_strings(line):
    """The line with string and char literals blanked, so operators inside
    them are not mutated (same length, so offsets hold)."""
    return re.sub(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'', lambda m: '"' + ' ' * (len(m.group(0)) - 2) + '"', line)


def mutants_of(text):
    lines = text.split('\n')
    out = []
    for i in code_lines(text):
        line = lines[i]
        code = strip_strings(line)
        cut = code.find('/*')
        if cut >= 0:
            code = code[:cut]
        for pat, rep, name in OPERATORS:
            for m in re.finditer(pat, code):
                # groups taken from the line itself: the match ran on `code`,
                # whose string literals are blanked (same offsets)
                put = rep(m) if callable(rep) else re.sub(
                    r'\\(\d)', lambda g: line[m.start(int(g.group(1))):m.end(int(g.group(1)))], rep)
                new = line[:m.start()] + put + line[m.end():]
                if new != line:
                    out.append((i, new, name))
        if DROP.match(code) and not code.rstrip().endswith(',') and not VOID_CAST.match(code):
            out.append((i, re.sub(r'\S.*', '/* dropped */;', line, count=1), 'drop-statement'))
    return out


def folder_of(rel):
    return rel.split('/')[0]


def replay_plan(path):
    """The mutants of a survivors.txt, placed in today's sources."""
    plan, gone = [], []
    for block in open(path).read().split('\n\n'):
        lines = block.strip('\n').split('\n')
        if len(lines) < 3:
            continue
        where, name = lines[0].split(' ', 1)
        f, at = where.rsplit(':', 1)
        old, new = lines[1][2:], lines[2][2:]
        full = os.path.join(ROOT, f)
        text = open(full).read().split('\n') if os.path.exists(full) else []
        hits = [i for i, l in enumerate(text) if l.strip() == old]
        if not hits:
            gone.append(lines[0])
            continue
        i = min(hits, key=lambda j: abs(j + 1 - int(at)))
        indent = text[i][:len(text[i]) - len(text[i].lstrip())]
        plan.append((folder_of(f), f, i, indent + new, name))
    return plan, gone


def run(cmd, cwd, timeout):
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode(errors='replace')
    except subprocess.TimeoutExpired:
        return 124, 'timeout'


# A mutant can make a test write without end (a stream that never stops)
# until its timeout: each file a test writes is capped, and each mutant's
# tests write under a folder of their own (TMPDIR), removed after it.
FILE_LIMIT = 4 << 30


def _capped():
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))


def first_failure(jobs, workers, env=None):
    """Run jobs (name, command, folder, timeout), `workers` at a time in
    their order; the name of the first that fails or times out (the others
    then stopped), or None."""
    def stop(p):
        try:
            os.killpg(p.pid, 9)
        except OSError:
            pass
        p.wait()

    pending, running = list(jobs), []
    try:
        while pending or running:
            while pending and len(running) < workers:
                name, cmd, cwd, timeout = pending.pop(0)
                p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True, env=env, preexec_fn=_capped)
                running.append((name, p, time.time() + timeout))
            time.sleep(0.02)
            for job in list(running):
                name, p, deadline = job
                rc = p.poll()
                if rc is None and time.time() > deadline:  # a hang counts as caught, as run() has it
                    stop(p)
                    rc = 124
                if rc is not None:
                    running.remove(job)
                    if rc != 0:
                        return name
        return None
    finally:
        for _, p, _ in running:  # a failure found: the rest are not needed
            stop(p)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('paths', nargs='*')
    ap.add_argument('--replay', help="a run's survivors.txt: its mutants again")
    ap.add_argument('--sample', type=int, default=0)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--out', default=os.path.join(ROOT, 'build-mutate'))
    ap.add_argument('--timeout', type=int, default=120)
    ap.add_argument('--list', action='store_true')
    ap.add_argument('--sanitize', action='store_true')
    ap.add_argument('--min-score', type=float, default=0.0,
                    help='fail (exit 1) when fewer than this %% of the compiled mutants are killed')
    a = ap.parse_args()

    files = []
    for p in a.paths:
        full = os.path.join(ROOT, p)
        if os.path.isdir(full):
            for d, _, names in os.walk(full):
                files += [os.path.relpath(os.path.join(d, n), ROOT) for n in sorted(names) if n.endswith('.c')]
        else:
            files.append(os.path.relpath(full, ROOT))
    by_folder = {}
    gpu_only = [f for f in files if f in GPU_ONLY]
    files = [f for f in files if f not in GPU_ONLY]
    if gpu_only:
        print('left out (run only with a GPU): %s' % ', '.join(gpu_only))
    skipped = 0
    for f in sorted(files):
        text = open(os.path.join(ROOT, f)).read()
        lines = text.split('\n')
        device_lines = gpu_only_lines(f, lines)
        for i, new, name in mutants_of(text):
            if i in device_lines or equivalent(f, lines[i], new, name):
                skipped += 1
                continue
            by_folder.setdefault(folder_of(f), []).append((f, i, new, name))
    if skipped:
        print('left out: %d mutants known to be equivalent or reached only with a GPU (EQUIVALENT, '
              'GPU_ONLY_FUNCTIONS in %s)' % (skipped, os.path.basename(__file__)))
    rng = random.Random(a.seed)
    plan = []
    for folder, ms in sorted(by_folder.items()):
        if a.sample and len(ms) > a.sample:
            ms = rng.sample(ms, a.sample)
        plan += [(folder,) + m for m in ms]
    if a.replay:
        plan, gone = replay_plan(a.replay)
        for g in gone:
            print('gone (its line changed): %s' % g)
    if a.list:
        for folder, f, i, new, name in plan:
            print('%s:%d %s: %s' % (f, i + 1, name, new.strip()))
        print('%d mutants' % len(plan))
        return 0

    out = os.path.abspath(a.out)  # the build runs in a folder of its own
    src, build = os.path.join(out, 'src'), os.path.join(out, 'build')
    if os.path.exists(src):
        shutil.rmtree(src)
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns('.git', 'build*', 'benchmarks/results'))
    os.makedirs(build, exist_ok=True)
    if a.sanitize:
        os.environ['ASAN_OPTIONS'] = 'detect_leaks=1'
    rc, log = run(['cmake', src, '-DJETFILTER_CUDA=OFF', '-DCMAKE_BUILD_TYPE=Release',
                   '-DJETFILTER_SANITIZE=%s' % ('ON' if a.sanitize else 'OFF')], build, 600)
    rc2, log2 = run(['make', '-j%d' % (os.cpu_count() or 2)], build, 3000)
    if rc or rc2:
        print(log + log2[-3000:])
        return 1
    _, targets = run(['make', 'help'], build, 60)
    known = set(re.findall(r'^\.\.\. (\S+)', targets, re.M))
    score = {}
    survivors = open(os.path.join(out, 'survivors.txt'), 'w')
    t0 = time.time()
    for n, (folder, f, i, new, name) in enumerate(plan):
        path = os.path.join(src, f)
        orig = open(path).read()
        lines = orig.split('\n')
        old = lines[i]
        lines[i] = new
        open(path, 'w').write('\n'.join(lines))
        tests = [t for t in TESTS.get(folder, TESTS['core'])
                 if t in known or t == 'test_launch_list' or t in SCRIPT_TESTS]
        docs = ['jetfilter-doc'] if 'jetfilter-doc' in known else []  # what test_docs reads
        rc, _ = run(['make', '-j%d' % (os.cpu_count() or 2)] + [t for t in tests if t in known] +
                    ['jetfilter-cli'] + docs, build, 600)
        if rc != 0:
            verdict = 'stillborn'
        else:
            verdict = 'survived'
            jobs = []
            for t in tests:
                exe = os.path.join(build, 'tests', t)
                if t == 'test_launch_list':
                    if 'jetfilter-launches' not in known:
                        continue
                    run(['make', 'jetfilter-launches'], build, 600)
                    jobs.append((t, ['sh', '-c', 'for b in nano orin; do %s/jetfilter-launches $b | cmp -s - '
                                     '%s/benchmarks/jetson/$b/launches.txt || exit 1; done' % (build, src)],
                                 build, a.timeout))
                elif os.path.exists(exe):
                    jobs.append((t, [exe] + TEST_ARGS.get(t, []), os.path.join(build, 'tests'), a.timeout))
                elif t in SCRIPT_TESTS:  # a CTest entry that runs a script (the docs, the schema)
                    jobs.append((t, ['ctest', '-R', '^%s$' % t, '--timeout', str(a.timeout)], build,
                                 a.timeout + 10))
            # as many tests at once as there are cores (CTest runs them so too)
            scratch = os.path.join(build, 'mutant-tmp')
            os.makedirs(scratch, exist_ok=True)
            failed = first_failure(jobs, os.cpu_count() or 2, dict(os.environ, TMPDIR=scratch))
            shutil.rmtree(scratch, ignore_errors=True)
            if failed:
                verdict = 'killed by ' + failed
        open(path, 'w').write(orig)
        s = score.setdefault(folder, {'killed': 0, 'survived': 0, 'stillborn': 0})
        s['killed' if verdict.startswith('killed') else verdict] += 1
        if verdict == 'survived':
            survivors.write('%s:%d %s\n- %s\n+ %s\n\n' % (f, i + 1, name, old.strip(), new.strip()))
            survivors.flush()
        print('[%d/%d %.0fs] %s:%d %s: %s' % (n + 1, len(plan), time.time() - t0, f, i + 1, name, verdict),
              flush=True)
    # restore the build of the unmutated tree
    run(['make', '-j2'], build, 3000)
    print('\nfolder      killed  survived  stillborn  score (killed / compiled)')
    for folder, s in sorted(score.items()):
        compiled = s['killed'] + s['survived']
        print('%-10s %7d %9d %10d  %5.1f%%' % (folder, s['killed'], s['survived'], s['stillborn'],
                                               100.0 * s['killed'] / compiled if compiled else 0))
    print('survivors: %s' % survivors.name)
    killed = sum(s['killed'] for s in score.values())
    compiled = sum(s['killed'] + s['survived'] for s in score.values())
    overall = 100.0 * killed / compiled if compiled else 0.0
    print('all folders: %d of %d killed, %.1f%%' % (killed, compiled, overall))
    if overall < a.min_score:
        print('mutate: under the %.0f%% asked for (--min-score)' % a.min_score)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
