#!/usr/bin/env python3
# A byte-level model of the h2 patch's output ownership (tile_kernel.cu, two-block halo): every
# output byte of a row written exactly once, only by a tile holding it (its segment or its halo of
# 32 bytes), nothing outside the row, and whole 32-byte sectors per tile on the unmasked path.
import random

def tile_writes(A, L, S, t, T, masked, whole_sectors=True):
    """Bytes (absolute addresses) tile t writes; each as (addr, tile)."""
    G = S // 16
    s_t = A + t * S
    seg = min(S, L - t * S)
    head = s_t & 15
    second_half = whole_sectors and (s_t & 16) != 0
    takes_halo = t > 0
    last = t == T - 1
    fv = s_t - head
    out = []
    if not masked:
        assert seg == S
        for j in range(G):
            next_tiles = second_half and j == G - 1 and not last
            if not next_tiles:
                if j != 0 or takes_halo or head == 0:
                    out += range(fv + 16 * j, fv + 16 * j + 16)
                else:
                    out += range(fv + head, fv + 16)
            if second_half and j == 1 and takes_halo:
                out += range(fv - 16, fv)
            if last and j == G - 1 and head != 0:
                out += range(fv + 16 * G, fv + 16 * G + head)
    else:
        lo = 0 if not takes_halo else (-16 - head if second_half else -head)
        hi = seg if last else (S - 16 - head if second_half else S - head)
        for j in range(G):
            if j * 16 >= seg + 16:  # lanes past the tile's rows: their columns are masked (c >= cols_here is the other axis)
                pass
            begin = j * 16 - head
            l = max(lo - begin, 0); h = min(hi - begin, 16)
            if h > l:
                out += range(fv + 16 * j + l, fv + 16 * j + h)
            if whole_sectors and j == 1:
                b = -16 - head
                l = max(lo - b, 0); h = min(hi - b, 16)
                if h > l:
                    out += range(fv - 16 + l, fv - 16 + h)
            if j == G - 1:
                tail_hi = hi - (begin + 16)
                if tail_hi > 0:
                    out += range(fv + 16 * G, fv + 16 * G + tail_hi)
    return out, s_t, seg

def check(A, L, S, paths, whole_sectors=True):
    T = (L + S - 1) // S
    written = {}
    for t in range(T):
        seg = min(S, L - t * S)
        masked = paths[t] if seg == S else True
        bytes_, s_t, seg = tile_writes(A, L, S, t, T, masked, whole_sectors)
        for b in bytes_:
            assert A <= b < A + L, ("outside the row", A, L, S, t, b)
            assert s_t - 32 <= b < s_t + seg, ("data not held", A, L, S, t, b, s_t, seg)
            assert b not in written, ("twice", A, L, S, t, b, written[b])
            written[b] = t
    assert len(written) == L, ("missing", A, L, S, sorted(set(range(A, A + L)) - set(written))[:5])
    # whole sectors: sectors inside the row are written by one tile
    for sec in range((A + 31) // 32 * 32, A + L - 31, 32):
        owners = {written[b] for b in range(sec, sec + 32)}
        if whole_sectors:
            assert len(owners) == 1, ("sector split", A, L, S, sec, owners)

random.seed(1)
for trial in range(20000):
    S = random.choice([64, 128, 256, 512])
    T = random.randint(1, 6)
    L = (T - 1) * S + random.randint(1, S) if T > 1 else random.randint(1, S)
    # The last row tile must keep at least ... nothing: the model takes any length.
    A = random.randint(0, 255) * 1 + 4096
    paths = [random.random() < 0.3 for _ in range(T)]
    check(A, L, S, paths)
print("h2 ownership model: 20000 random rows, every byte once, data held, sectors whole")
