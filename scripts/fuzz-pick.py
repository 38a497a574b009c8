#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fuzz-pick.py TARGET DIR [N]: which inputs of DIR (a corpus a campaign
grew, or what libFuzzer -merge=1 added from it) to commit, ranked by the
reader's lines each adds to the committed corpus's (llvm-cov, the target's
fuzz-reader: files and fuzz-functions: ERE, as fuzz-long.sh counts them),
greedily: the input adding most first, the smaller of two equal. Prints
each with the lines reached so far; with N, copies the first N into
fuzz/corpus/<name>/. Needs the coverage build fuzz-long.sh makes
($FUZZ_OUT/cov/TARGET, FUZZ_OUT default build-fuzz). libFuzzer's merge
keeps every input with a new feature (hundreds: too many for the short
runs in make test); lines are what the goal counts. Function boundaries
are taken from lcov's FN: lines (a line belongs to the function starting
last before it): an estimate, fuzz-long.sh's count is the figure."""
import glob, os, re, shutil, subprocess, sys, tempfile

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
if len(sys.argv) < 3:
    sys.exit(__doc__)
target, cand = sys.argv[1], sys.argv[2]
take = int(sys.argv[3]) if len(sys.argv) > 3 else 0
name = target[len('fuzz-'):]
src = open(f'fuzz/{target}.c').read()
def header(key):
    m = re.search(rf'^ \* {key}: (.*)$', src, re.M)
    return m.group(1) if m else None
reader = (header('fuzz-reader') or header('fuzz-sources')).split()
fre = re.compile(header('fuzz-functions')) if header('fuzz-functions') else None
seeds = [d for d in [f'fuzz/corpus/{name}'] + (header('fuzz-seeds') or '').split() if os.path.isdir(d)]
binp = os.path.join(os.environ.get('FUZZ_OUT', 'build-fuzz'), 'cov', target)
if not os.access(binp, os.X_OK):
    sys.exit(f'fuzz-pick.py: no {binp}: run scripts/fuzz-long.sh for {target} first')
tmp = tempfile.mkdtemp()

def lines(paths):
    """The reader's lines (file, line) the inputs PATHS reach."""
    for f in glob.glob(tmp + '/*.profraw'):
        os.remove(f)
    subprocess.run([binp, '-runs=0', '-max_len=65536', '-rss_limit_mb=2048'] + paths,
                   env=dict(os.environ, LLVM_PROFILE_FILE=tmp + '/%p.profraw'),
                   capture_output=True)
    raws = glob.glob(tmp + '/*.profraw')
    if not raws:
        return set()
    subprocess.run(['llvm-profdata', 'merge', '-sparse', '-o', tmp + '/p.profdata'] + raws,
                   check=True)
    out = subprocess.run(['llvm-cov', 'export', '-format=lcov', binp,
                          '-instr-profile=' + tmp + '/p.profdata'] + reader,
                         capture_output=True, text=True).stdout
    res, fns, da, sf = set(), [], [], None
    for l in out.splitlines():
        if l.startswith('SF:'):
            sf, fns, da = l[3:], [], []
        elif l.startswith('FN:'):
            a, n = l[3:].split(',', 1)
            fns.append((int(a), n))
        elif l.startswith('DA:'):
            a, c = l[3:].split(',')[:2]
            da.append((int(a), int(c)))
        elif l == 'end_of_record':
            fns.sort()
            for ln, c in da:
                if c == 0:
                    continue
                if fre:
                    fn = [n for a, n in fns if a <= ln]
                    if not fn or not fre.search(fn[-1]):
                        continue
                res.add((sf, ln))
    return res

base = lines(seeds)
print(f'committed corpus: {len(base)} lines', flush=True)
cov = {c: lines([c]) - base for c in sorted(glob.glob(cand + '/*'))}
got, n = set(), 0
while True:
    best = max(cov, key=lambda c: (len(cov[c] - got), -os.path.getsize(c)), default=None)
    if best is None or not cov[best] - got:
        break
    got |= cov.pop(best)
    n += 1
    print(f'{n:3} {os.path.basename(best)} +{len(got)} lines, {os.path.getsize(best)} bytes')
    if n <= take:
        shutil.copy(best, f'fuzz/corpus/{name}/')
shutil.rmtree(tmp)
