import re, sys, collections, math
SM=132
rows = collections.defaultdict(dict); shape={}
for line in open(sys.argv[1]):
    m = re.match(r"layer/(\w+)/N(\d+)/(\w+)/(\w+)/([^/]+)/([^/]+)/iterations:1/manual_time\s+([\d.]+) us", line)
    if not m: continue
    model, n, dt, lay, name, row, t = m.groups()
    kv = {a: (float(b[:-1])*1000 if b.endswith('k') else float(b)) for a, b in re.findall(r"(\w+)=([\d.]+k?)\b", line)}
    rows[(lay,name)][row]=float(t); shape[(lay,name)]=kv
    sp = re.search(r"split_k=(\d+)", line)
    if row=='router': rows[(lay,name)]['rsplit']=int(sp.group(1)) if sp else 1
    if row=='router+small': rows[(lay,name)]['ssplit']=int(sp.group(1)) if sp else 1
for (lay,name),v in sorted(rows.items()):
    s=shape[(lay,name)]
    M=s['P']**2; K=s['K']; steps=int(math.ceil(s['C']/32)*s['R']**2)
    mb=math.ceil(M/128)*math.ceil(K/128); sb=math.ceil(M/64)*math.ceil(K/64)
    print(f"{lay} {name:20s} steps={steps:4d} mb={mb:3d} sb={sb:4d} main={v.get('router',0):5.1f}(s{v.get('rsplit')}) small={v.get('router+small',0):5.1f}(s{v.get('ssplit')}) sp2={v.get('router+small+split2',0):5.1f} sp4={v.get('router+small+split4',0):5.1f}")
