import re, sys, collections, math
SM = int(sys.argv[2]) if len(sys.argv) > 2 else 132
rows = collections.defaultdict(dict); shape = {}
for line in open(sys.argv[1]):
    m = re.match(r"layer/(\w+)/N(\d+)/(\w+)/(\w+)/([^/]+)/([^/]+)/iterations:1/manual_time\s+([\d.]+) us", line)
    if not m: continue
    model, n, dt, lay, name, row, t = m.groups(); t = float(t)
    kv = {a: (float(b[:-1])*1000 if b.endswith('k') else b) for a, b in re.findall(r"(\w+)=([\w.]+)", line)}
    lab = line.split("stream_us=")[1].split(" ", 1)[1].strip() if "stream_us=" in line else ""
    rows[(model, n, lay, name)][row] = (t, lab[:50])
    shape[(model, n, lay, name)] = (int(n), int(float(kv['C'])), int(float(kv['H'])), int(float(kv['K'])), int(float(kv['P'])), int(kv['R']), int(kv['str']), int(kv.get('mult', 1)))
tot = collections.defaultdict(float)
for key, v in rows.items():
    N, C, H, K, P, R, st, mult = shape[key]
    M = N * P * P
    blocks = math.ceil(M / 128) * math.ceil(K / 128)
    sblocks = math.ceil(M / 64) * math.ceil(K / 64)
    r = v.get("router"); s = v.get("router+small"); c = v.get("cudnn")
    sp = {k: x[0] for k, x in v.items() if k.startswith("router+small+")}
    best_s = min([s[0]] + list(sp.values())) if s else None
    print(f"{key[2]:5s} {key[3]:22s} C={C:4d} K={K:4d} P={P:3d} R={R} bl/SM={blocks/SM:5.2f} sbl/SM={sblocks/SM:5.2f} CRS={C*R*R:5d} router={r[0] if r else 0:7.1f} small={s[0] if s else 0:7.1f} r/s={r[0]/s[0] if r and s else 0:5.2f} bestsplit={best_s if sp else 0:6.1f} cudnn={c[0] if c else 0:6.1f} [{r[1] if r else ''}]")
    if r and s and c:
        tot[key[2], 'router'] += r[0]*mult; tot[key[2], 'small'] += s[0]*mult; tot[key[2], 'cudnn'] += c[0]*mult
        tot[key[2], 'best'] += min(r[0], s[0])*mult
for k, v in sorted(tot.items()): print(k, round(v, 1))
