#!/usr/bin/env python3
"""tests/deps.py BUILD_DIR - the source files' dependency graph as the linker sees it:
file A depends on file B when A's object uses a symbol B's object defines (nm).
Prints the cycles (strongly connected components of more than one file), and the
cycles between the stage folders (src/read, src/analyse, ...; a subfolder counts as its
folder), and exits 1 when there is one; with --edges, prints every edge."""
import os, subprocess, sys
from collections import defaultdict
build = sys.argv[1]
objdir = os.path.join(build, 'obj')
objs = []
for root, _, fs in os.walk(objdir):
    objs += [os.path.join(root, f) for f in fs if f.endswith('.o')]
# only the objects of sources that exist (a build directory keeps those of removed files)
objs = [o for o in objs
        if os.path.exists(os.path.join('src', os.path.relpath(o, objdir)[:-2] + '.c'))]
defs, uses = {}, defaultdict(set)
objs.sort()
names = {o: os.path.relpath(o, objdir)[:-2] + '.c' for o in objs}
# one nm for many objects (-A: each line starts "OBJECT: "; an nm per object costs ~0.1 s
# of CPU each, 20 s for the build); the objects in sorted order, as one nm each did
for i in range(0, len(objs), 400):
    out = subprocess.run(['nm', '-P', '-A', '--'] + objs[i:i + 400],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        o, _, rest = line.partition(': ')
        name = names.get(o)
        if name is None:
            sys.exit('deps.py: nm printed a line of no object asked: %r' % line)
        p = rest.split()
        if len(p) < 2: continue
        sym, t = p[0], p[1]
        if t == 'U': uses[name].add(sym)
        elif t in 'TDBRCGSV': defs[sym] = name
graph = defaultdict(set)
for a, syms in uses.items():
    for s in syms:
        b = defs.get(s)
        if b and b != a: graph[a].add(b)
if '--edges' in sys.argv:
    for a in sorted(graph):
        for b in sorted(graph[a]): print(a, '->', b)
def sccs_of(graph):
    idx, low, on, st, out, n = {}, {}, set(), [], [], [0]
    def strong(v):
        idx[v] = low[v] = n[0]; n[0] += 1; st.append(v); on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in idx: strong(w); low[v] = min(low[v], low[w])
            elif w in on: low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            c = []
            while True:
                w = st.pop(); on.discard(w); c.append(w)
                if w == v: break
            if len(c) > 1: out.append(sorted(c))
    for v in sorted(graph):
        if v not in idx: strong(v)
    return out
sys.setrecursionlimit(10000)
folders = defaultdict(set)
for a in list(graph):
    for b in graph[a]:
        fa, fb = a.split('/')[0], b.split('/')[0]
        if fa != fb: folders[fa].add(fb)
bad = 0
for c in sccs_of(folders):
    bad = 1
    print('folder cycle: %s' % ' '.join(c))
    for a in sorted(graph):
        for b in sorted(graph[a]):
            fa, fb = a.split('/')[0], b.split('/')[0]
            if fa != fb and fa in c and fb in c:
                syms = sorted(s for s in uses[a] if defs.get(s) == b)
                print('   %s -> %s: %s' % (a, b, ' '.join(syms[:6])))
sccs = sccs_of(graph)
for c in sccs:
    print('cycle (%d files): %s' % (len(c), ' '.join(c)))
    # one concrete pair per file, to say where to cut
    for a in c:
        for b in sorted(graph[a] & set(c)):
            syms = sorted(s for s in uses[a] if defs.get(s) == b)
            print('   %s -> %s: %s' % (a, b, ' '.join(syms[:6]) + (' ...' if len(syms) > 6 else '')))
sys.exit(1 if sccs or bad else 0)
