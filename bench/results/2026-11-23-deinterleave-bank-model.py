# Shared-memory bank model of the f32 deinterleave staging (skinny_kernels.cu: load_staged and
# store_segments with 256 threads, warps of 32): for each column count, the average wavefronts per
# warp instruction of the load phase / the store phase's column reads, for candidate layouts of the
# staged run. 'skew1/32' is the layout before v18b (one word of padding per 32); 'xor(r&3)' is
# rows_xored, which v18b takes for odd column counts. '!OVF' marks a layout that would not fit the
# 32 KiB buffer. Used for docs/kernels.md v18b; run: python3 <this file>.
import itertools
W=32
def wavefronts(addrs):
    # addrs: word addresses of the 32 lanes (None = inactive); distinct words per bank -> max
    banks={}
    for a in addrs:
        if a is None: continue
        banks.setdefault(a%W,set()).add(a)
    return max((len(s) for s in banks.values()), default=0)
def chunk_n(cols, room_num, room_den):
    size=4; per_vector=4
    half=(32768//2//size)*room_num//room_den//cols
    if half*size>=1024: return half//per_vector*per_vector
    n=(32768//size)*room_num//room_den//cols
    rnd=128//size if n>=128//size else per_vector
    return n//rnd*rnd
def phases(cols, m, n):
    count=n*cols; V=4
    vectors=count//V
    load=[];store=[]
    # load phase: vector v = base + lane (blockDim 256; warp w covers v = base+32w .. ) ; element e = 4v+t
    for v0 in range(0, vectors, 32):
        for t in range(V):
            addrs=[m(4*(v0+l)+t) if v0+l<vectors else None for l in range(32)]
            load.append(wavefronts(addrs))
    vpr=(n+V-1)//V
    slots=cols*vpr
    for s0 in range(0, slots, 32):
        for t in range(V):
            addrs=[]
            for l in range(32):
                s=s0+l
                if s>=slots: addrs.append(None); continue
                c=s//vpr; v=s%vpr; i=4*v+t
                addrs.append(m(i*cols+c) if i<n else None)
            store.append(wavefronts(addrs))
    return sum(load)/len(load), sum(store)/len(store)
cands={
 'skew1/32': (lambda e: e+e//32, 32,33),
 'skew1/16': (lambda e: e+e//16, 16,17),
 'skew3/32': (lambda e: e+3*(e//32), 32,35),
 'xor(r&3)': (lambda e: (e&~31)|((e&31)^((e>>5)&3)), 1,1),
 'xor(r&31)': (lambda e: (e&~31)|((e&31)^((e>>5)&31)), 1,1),
 'xor(5r&31)': (lambda e: (e&~31)|((e&31)^(((e>>5)*5)&31)), 1,1),
 'skew1/32+xor': (lambda e: (lambda f:(f&~31)|((f&31)^((f>>7)&3)))(e+e//32), 32,33),
}
for cols in [2,3,5,8,16,17,24,31,32,33,40,47,48]:
    row=[]
    for name,(m,a,b) in cands.items():
        n=chunk_n(cols,a,b)
        # buffer check: max mapped index must fit 8192 words
        mx=max(m(e) for e in range(n*cols))
        ld,st=phases(cols,m,n)
        row.append('%s %.2f/%.2f%s'%(name,ld,st,'' if mx<8192 else '!OVF'))
    print(cols, ' | '.join(row))
