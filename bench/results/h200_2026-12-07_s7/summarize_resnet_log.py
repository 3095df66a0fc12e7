import re, sys, collections, math
rows = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    m = re.match(r"layer/resnet50_224/N1/bf16/(\w+)/([^/]+)/([^/]+)/iterations:1/manual_time\s+([\d.]+) us.*mult=(\d+).*?(\S+(?: split_k=\d+)?(?: tile=small)?(?: split_k=\d+)?)\s*$", line)
    if not m: continue
    lay, name, row, t, mult = m.group(1), m.group(2), m.group(3), float(m.group(4)), int(m.group(5))
    lab = line.split("stream_us=")[1].split(" ", 1)[1].strip() if "stream_us=" in line else ""
    rows[(lay, name)][row] = (t, mult, lab[:60])
sums = collections.defaultdict(lambda: collections.defaultdict(float)); rat = collections.defaultdict(list)
for (lay, name), v in sorted(rows.items()):
    r, s, c = v.get("router"), v.get("router+small"), v.get("cudnn")
    print(f"{lay} {name:22s} router={r[0] if r else '-':>7} small={s[0] if s else '-':>7} cudnn={c[0] if c else '-':>6}  [{r[2] if r else ''}] [{s[2] if s else ''}]")
    if r and s and c:
        for k, x in (("router", r), ("small", s), ("cudnn", c)): sums[lay][k] += x[0] * x[1]
        sums[lay]["best"] += min(r[0], s[0]) * r[1]
        rat[lay].append(r[0] / s[0])
for lay in sums:
    xs = rat[lay]
    print(lay, {k: round(v, 1) for k, v in sums[lay].items()}, "router/small geomean", round(math.exp(sum(map(math.log, xs)) / len(xs)), 3), "n", len(xs))
