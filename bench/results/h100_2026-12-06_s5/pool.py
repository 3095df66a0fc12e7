# Pools the fifth session's call 4/5 rows: per routed layer, the median of the router and
# forced hopper_tma rows of each binary (eb = v1, h64 = v2); cuDNN from call 5. Run here.
import json,math,os,re,sys,statistics as st
os.chdir(os.path.dirname(os.path.abspath(__file__)))
L=json.load(open('../../../tests/data/model_layers.json'))['models']
def routed(l):
    s=l['stride']; P=(l['H']+2*l['pad']-l['dil']*(l['R']-1)-1)//s+1; Q=(l['W']+2*l['pad']-l['dil']*(l['S']-1)-1)//s+1
    return l['R']==3 and l['S']==3 and l['K']>=256 and l['C']>=256 and P*Q>=16384
def load(f):
    out={}
    for b in json.load(open(f))['benchmarks']:
        if not b.get('error_occurred'): out[re.sub(r'/iterations.*','',b['name'])]=b['real_time']
    return out
files={'eb':['call4_eb_vae.json','call4_eb_hop.json','call5_eb_vae.json','call5_eb_hop.json'],
       'h64':['call4_h64_hop.json','call5_h64_vae.json','call5_h64_hop.json']}
D={k:[load(f) for f in v] for k,v in files.items()}
cud=load('call5_h64_vae.json')
g=lambda v: math.exp(sum(map(math.log,v))/len(v))
for model in ['sd35_vae_512','flux2_vae_1024']:
    rs=[];rc=[];ro=[]
    for l in L[model]['layers']:
        if not routed(l): continue
        base=f"layer/{model}/N1/bf16/nhwc/{l['name']}/"
        smp={k:[d[base+m] for d in D[k] for m in ('router','hopper_tma') if base+m in d] for k in D}
        if not smp['eb'] or not smp['h64']: continue
        e=st.median(smp['eb']); h=st.median(smp['h64']); c=cud[base+'cudnn']
        rs.append(e/h); rc.append(c/h); ro.append(c/e)
        print(f"{model:15s} {l['name']:22s} {l['C']:4d}->{l['K']:4d} {l['H']:5d}  v1 {e:7.1f} (n{len(smp['eb'])})  v2 {h:7.1f} (n{len(smp['h64'])})  x{e/h:.2f}  cuDNN {c:7.1f}: {c/e:.2f} -> {c/h:.2f}")
    print(model, len(rs), 'v2/v1 geomean %.3f (%.2f-%.2f)'%(g(rs),min(rs),max(rs)), 'vs cuDNN %.2f -> %.2f'%(g(ro),g(rc)))
