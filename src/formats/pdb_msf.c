/* SPDX-License-Identifier: MIT */
/* The MSF 7.00 container of a PDB: a superblock (block size, block count, the
 * directory's size and the block holding the list of the directory's blocks), then
 * the directory (stream count, stream sizes, each stream's block numbers). A stream
 * is read by copying its blocks in order. */
#include "formats/pdb_int.h"
#include "core/error.h"
#include "core/le.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char msf_magic[32] = "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0";

static uint64_t blocks_of(uint64_t bytes, uint32_t bsize)
{
	return (bytes + bsize - 1) / bsize;
}

/* Copies the blocks list[0..) of a stream of n bytes into out; 0 or PMU_E*. */
static int gather(const struct pmuk_pdb *p, const uint8_t *list, uint32_t n, uint8_t *out,
		  const char *what)
{
	for (uint32_t done = 0, k = 0; done < n; k++) {
		uint32_t b = pmuk_le32(list + 4 * (size_t)k), take = n - done;

		if (take > p->bsize)
			take = p->bsize;
		if (b >= p->nblocks || (uint64_t)b * p->bsize + take > p->size)
			return pmuk_fail(PMU_EFORMAT, "PDB %s: block %u of %u lies past the end of "
					 "the file (%zu bytes): the file is truncated or corrupt",
					 what, b, p->nblocks, p->size);
		memcpy(out + done, p->file + (size_t)b * p->bsize, take);
		done += take;
	}
	return 0;
}

static int superblock(struct pmuk_pdb *p, uint32_t *dirbytes, uint32_t *mapblock)
{
	if (p->size < 56 || memcmp(p->file, msf_magic, 32))
		return pmuk_fail(PMU_EFORMAT, "not a PDB 7.00 file (no MSF 7.00 signature at "
				 "offset 0): give the .pdb the linker wrote");
	p->bsize = pmuk_le32(p->file + 32);
	p->nblocks = pmuk_le32(p->file + 40);
	*dirbytes = pmuk_le32(p->file + 44);
	*mapblock = pmuk_le32(p->file + 52);
	if (p->bsize != 512 && p->bsize != 1024 && p->bsize != 2048 && p->bsize != 4096 &&
	    p->bsize != 8192 && p->bsize != 16384 && p->bsize != 32768)
		return pmuk_fail(PMU_EFORMAT, "PDB superblock (offset 32): block size %u is not "
				 "a power of two from 512 to 32768: the file is corrupt", p->bsize);
	if ((uint64_t)p->nblocks * p->bsize > p->size)
		return pmuk_fail(PMU_EFORMAT, "PDB superblock (offset 40): %u blocks of %u bytes "
				 "do not fit the file's %zu bytes: it is truncated", p->nblocks,
				 p->bsize, p->size);
	if (*mapblock >= p->nblocks || blocks_of(*dirbytes, p->bsize) * 4 > p->bsize ||
	    (uint64_t)*mapblock * p->bsize + p->bsize > p->size)
		return pmuk_fail(PMU_EFORMAT, "PDB superblock (offset 44): a directory of %u "
				 "bytes listed in block %u does not fit the file: it is corrupt",
				 *dirbytes, *mapblock);
	return 0;
}

/* Splits the directory into sizes and block lists. */
static int directory(struct pmuk_pdb *p, uint32_t n)
{
	uint64_t at, used = 0;

	if (n < 4)
		return pmuk_fail(PMU_EFORMAT, "PDB stream directory: %u bytes hold no stream "
				 "count: the file is corrupt", n);
	p->nstreams = pmuk_le32(p->dir);
	if (p->nstreams > (n - 4) / 4)
		return pmuk_fail(PMU_EFORMAT, "PDB stream directory (offset 0): %u streams do "
				 "not fit its %u bytes: the file is corrupt", p->nstreams, n);
	if (!(p->ssize = calloc(p->nstreams + 1, sizeof(*p->ssize))) ||
	    !(p->sblocks = calloc(p->nstreams + 1, sizeof(*p->sblocks))))
		return pmuk_fail(PMU_ENOMEM, "out of memory reading a PDB directory");
	at = 4 + 4 * (uint64_t)p->nstreams;
	for (uint32_t i = 0; i < p->nstreams; i++) {
		uint32_t sz = pmuk_le32(p->dir + 4 + 4 * (size_t)i);

		p->ssize[i] = sz == 0xffffffffu ? 0 : sz;
		p->sblocks[i] = (uint32_t *)(p->dir + at);
		at += 4 * blocks_of(p->ssize[i], p->bsize);
		/* Streams own distinct blocks, so together they list no more than the file
		 * has; stream 0 (the previous directory) may list freed ones again. A
		 * block listed over and over would make a small file copy gigabytes. */
		used += i ? blocks_of(p->ssize[i], p->bsize) : 0;
		if (used > p->nblocks)
			return pmuk_fail(PMU_EFORMAT, "PDB stream directory (offset %llu): "
					 "stream %u (%u bytes) brings the blocks streams 1 to %u "
					 "list to %llu, but the file has %u: the file is corrupt",
					 (unsigned long long)(4 + 4 * (uint64_t)i), i, p->ssize[i],
					 i, (unsigned long long)used, p->nblocks);
		if (at > n)
			return pmuk_fail(PMU_EFORMAT, "PDB stream directory (offset %llu): the "
					 "block list of stream %u (%u bytes) runs past its end: the "
					 "file is corrupt", (unsigned long long)(at - 4 *
					 blocks_of(p->ssize[i], p->bsize)), i, p->ssize[i]);
	}
	return 0;
}

int pmuk_pdb_msf(struct pmuk_pdb *p)
{
	uint32_t n = 0, map = 0;
	int err = superblock(p, &n, &map);

	if (err)
		return err;
	if (!(p->dir = malloc(n ? n : 1)))
		return pmuk_fail(PMU_ENOMEM, "out of memory reading a PDB directory");
	if ((err = gather(p, p->file + (size_t)map * p->bsize, n, p->dir, "stream directory")))
		return err;
	return directory(p, n);
}

int pmuk_pdb_stream(struct pmuk_pdb *p, uint32_t i, struct pdb_stream *out)
{
	char what[32];
	int err;

	*out = (struct pdb_stream){ .index = i };
	if (i >= p->nstreams)
		return pmuk_fail(PMU_EFORMAT, "PDB stream %u is named but the directory has %u "
				 "streams: the file is corrupt", i, p->nstreams);
	out->n = p->ssize[i];
	if (!(out->p = malloc(out->n ? out->n : 1)))
		return pmuk_fail(PMU_ENOMEM, "out of memory reading PDB stream %u (%u bytes)", i,
				 out->n);
	snprintf(what, sizeof(what), "stream %u", i);
	if ((err = gather(p, (const uint8_t *)p->sblocks[i], out->n, out->p, what))) {
		free(out->p);
		out->p = NULL;
	}
	return err;
}
