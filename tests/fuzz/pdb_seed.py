#!/usr/bin/env python3
"""Rewrites a PDB (MSF 7.00) with 512-byte blocks: the same streams in a file a
fraction of the size, a seed the fuzzer can mutate (lld writes 4096-byte blocks,
mostly padding). usage: pdb_seed.py IN.pdb OUT.pdb"""
import struct
import sys

MAGIC = b"Microsoft C/C++ MSF 7.00\r\n\x1aDS\0\0\0"


def streams(data):
    bs, _, nb, dirbytes, _, mapblk = struct.unpack_from("<6I", data, 32)
    ndir = (dirbytes + bs - 1) // bs
    dirblocks = struct.unpack_from("<%dI" % ndir, data, mapblk * bs)
    d = b"".join(data[b * bs:(b + 1) * bs] for b in dirblocks)[:dirbytes]
    n = struct.unpack_from("<I", d)[0]
    sizes = struct.unpack_from("<%dI" % n, d, 4)
    at, out = 4 + 4 * n, []
    for s in sizes:
        k = 0 if s == 0xffffffff else (s + bs - 1) // bs
        blocks = struct.unpack_from("<%dI" % k, d, at)
        at += 4 * k
        body = b"".join(data[b * bs:(b + 1) * bs] for b in blocks)
        out.append(None if s == 0xffffffff else body[:s])
    return out


def write(out, bs=512):
    blocks = [b"", b"\0" * bs, b"\0" * bs]     # superblock, two free block maps
    def put(body):
        first = len(blocks)
        for i in range(0, len(body), bs):
            blocks.append(body[i:i + bs].ljust(bs, b"\0"))
        return list(range(first, len(blocks)))
    lists = [put(s) if s else [] for s in out]
    d = struct.pack("<I", len(out))
    d += b"".join(struct.pack("<I", 0xffffffff if s is None else len(s)) for s in out)
    d += b"".join(struct.pack("<%dI" % len(l), *l) for l in lists)
    dirlist = put(d)
    mapblk = put(struct.pack("<%dI" % len(dirlist), *dirlist))[0]
    blocks[0] = (MAGIC + struct.pack("<6I", bs, 1, len(blocks), len(d), 0, mapblk)).ljust(bs, b"\0")
    return b"".join(blocks)


data = open(sys.argv[1], "rb").read()
assert data[:32] == MAGIC
open(sys.argv[2], "wb").write(write(streams(data)))
