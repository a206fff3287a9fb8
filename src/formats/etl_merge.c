/* SPDX-License-Identifier: MIT */
/* The merge step of a Windows recording (etl_merge.h): the input's buffers
 * copied as they are (zero padding of a preallocated file left out), then
 * buffers of ImageID, DbgID_RSDS and SysConfigEx events. */
#include "core/file.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/guid.h"
#include "core/opts.h"
#include "formats/etl_int.h"
#include "formats/etl_merge.h"

#include <pmukit/symbols.h>
#include <stdio.h>
#include <stdlib.h>

static const struct pmu_guid imageid_task = { 0xb3e675d7, 0x2554, 0x4f18,
	{ 0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde } };
static const struct pmu_guid sysconfig_ex = { 0x9b79ee91, 0xb5fd, 0x41c0,
	{ 0xa2, 0x43, 0x42, 0x48, 0xe2, 0x66, 0xe9, 0xd0 } };

struct mimage {
	uint32_t pid, time_date_stamp;
	uint64_t base, size, raw;
	char *name;
	int has_rsds;              /* the trace has a DbgID_RSDS for it already */
};

struct merge {
	struct pmuk_etl_merge_opts o;
	struct mimage *img;
	size_t n_img, cap_img;
	uint64_t header_raw;
	unsigned psz;
	uint32_t bufsz;
	struct pmuk_etl_mbuf b;
	struct pmuk_etl_merge_stats st;
};

static int add_image(struct merge *m, const struct pmu_etl_image_ev *im, uint64_t raw)
{
	for (size_t i = m->n_img; i-- > 0;)	/* rundowns list each twice */
		if (m->img[i].pid == im->pid && m->img[i].base == im->base &&
		    !strcmp(m->img[i].name, im->file_name))
			return 0;
	if (pmuk_grow((void **)&m->img, &m->cap_img, m->n_img + 1, sizeof(*m->img)))
		return pmuk_fail(PMU_ENOMEM, "no memory for %zu images", m->n_img + 1);
	m->img[m->n_img] = (struct mimage){ im->pid, im->time_date_stamp, im->base, im->size, raw,
					    strdup(im->file_name), 0 };
	if (!m->img[m->n_img++].name)
		return pmuk_fail(PMU_ENOMEM, "no memory for an image name");
	return 0;
}

/* The images the trace loaded, and those it identified already. */
static int collect(struct merge *m, const char *in)
{
	PMU_OPTS(pmu_etl_opts, eo, .order = PMU_ETL_ORDER_FILE, .no_names = 1);
	struct pmu_etl_event ev;
	struct pmu_etl_image_ev im;
	struct pmu_etl_imageid_ev id;
	struct pmu_etl *r;
	int rc, err = 0;

	if ((err = pmu_etl_open(in, &eo, &r)))
		return err;
	m->header_raw = pmu_etl_header(r)->header_raw_time;
	m->psz = pmu_etl_header(r)->pointer_size == 4 ? 4 : 8;
	m->bufsz = pmu_etl_header(r)->buffer_size;
	while (!err && (rc = pmu_etl_next(r, &ev)) > 0) {
		if (!pmu_etl_decode_image(&ev, &im) && im.opcode != 2)
			err = add_image(m, &im, ev.raw_time);
		else if (!pmu_etl_decode_imageid_rsds(&ev, &id) && id.opcode == 36)
			for (size_t i = 0; i < m->n_img; i++)
				m->img[i].has_rsds |= m->img[i].pid == id.pid &&
						      m->img[i].base == id.image_base;
	}
	pmu_etl_close(r);
	return err ? err : rc;
}

/* ImageID always (as xperf writes it); DbgID_RSDS when the file here has one. */
static void identify(struct merge *m, const struct mimage *im)
{
	char mapped[1100], file[1100];
	uint8_t guid[16];
	struct pmu_module_id id;

	pmuk_etl_mbuf_event(&m->b, &imageid_task, 0, 2, im->pid, im->raw);
	pmuk_etl_mbuf_ptr(&m->b, im->base), pmuk_etl_mbuf_ptr(&m->b, im->size);
	pmuk_etl_mbuf_u32(&m->b, im->pid), pmuk_etl_mbuf_u32(&m->b, im->time_date_stamp);
	pmuk_etl_mbuf_wstr(&m->b, pmuk_path_base(im->name));
	pmuk_etl_mbuf_end(&m->b);
	m->st.image_ids++;
	if (im->has_rsds) {
		m->st.already++;
		return;
	}
	pmuk_etl_map_path(m->o.volumes, m->o.n_volumes, "", im->name, mapped, sizeof(mapped));
	if (m->o.locate ? m->o.locate(mapped, file, sizeof(file), m->o.locate_ctx) :
	    snprintf(file, sizeof(file), "%s", mapped) < 0) {
		m->st.unreadable++;
		return;
	}
	int err = pmu_module_id_from_pe_file(file, &id);
	if (err) {
		*(err == PMU_ENOENT ? &m->st.no_rsds : &m->st.unreadable) += 1;
		return;
	}
	pmuk_guid_store(guid, &id.guid);
	pmuk_etl_mbuf_event(&m->b, &imageid_task, 36, 2, im->pid, im->raw);
	pmuk_etl_mbuf_ptr(&m->b, im->base), pmuk_etl_mbuf_u32(&m->b, im->pid);
	pmuk_etl_mbuf_bytes(&m->b, guid, 16), pmuk_etl_mbuf_u32(&m->b, id.age);
	pmuk_etl_mbuf_bytes(&m->b, id.pdb, strlen(id.pdb) + 1);
	pmuk_etl_mbuf_end(&m->b);
	m->st.rsds++;
}

static void paths_event(struct merge *m, unsigned opcode, const char *a, const char *b)
{
	pmuk_etl_mbuf_event(&m->b, &sysconfig_ex, opcode, 0, 0, m->header_raw);
	pmuk_etl_mbuf_wstr(&m->b, a), pmuk_etl_mbuf_wstr(&m->b, b);
	pmuk_etl_mbuf_end(&m->b);
}

static void volumes(struct merge *m)
{
	char sys[600];

	for (size_t i = 0; i < m->o.n_volumes; i++, m->st.volumes++)
		paths_event(m, 35, m->o.volumes[i].nt, m->o.volumes[i].dos);
	if (m->o.windows_dir) {
		snprintf(sys, sizeof(sys), "%ssystem32", m->o.windows_dir);
		paths_event(m, 33, sys, m->o.windows_dir);
	}
}

int pmuk_etl_merge(const char *in, const char *out, const struct pmuk_etl_merge_opts *opts,
		   struct pmuk_etl_merge_stats *st)
{
	struct merge m = { 0 };
	int err;

	if ((err = PMUK_OPTS_LOAD(m.o, opts, pmuk_etl_merge_opts)) < 0)
		return err;
	if (!(err = collect(&m, in))) {
		m.b.psz = m.psz;	/* the trace's buffer size, within what ETW writes */
		m.b.bufsz = m.bufsz >= 8192 && m.bufsz <= (1u << 20) ? m.bufsz : 65536;
		for (size_t i = 0; i < m.n_img; i++)
			identify(&m, &m.img[i]);
		volumes(&m);
		pmuk_etl_mbuf_flush(&m.b);
		m.st.images = m.n_img;
		err = m.b.err ? pmuk_fail(PMU_ENOMEM, "no memory for the merged events") :
		      pmuk_etl_merge_write(in, out, &m.b);
		m.st.buffers = m.b.buffers;
	}
	for (size_t i = 0; i < m.n_img; i++)
		free(m.img[i].name);
	free(m.img);
	free(m.b.d);
	if (st)
		*st = m.st;
	return err;
}
