/* SPDX-License-Identifier: MIT */
/* Time order for perf.data records. perf writes each ring's records in order
 * but the rings one after another, so records are held in a heap until no
 * older one can come: at a FINISHED_ROUND, everything up to the last time of
 * the round before it (perf's rule: a round holds what the rings had when it
 * started, so nothing older than the previous round's end arrives later).
 * Before the first round everything is held, as perf does: one round can
 * span seconds (perf record -z pushes a ring only once it holds enough, so a
 * ring's records of the whole run may come before another's); only a window
 * the caller asked for, or the memory bound, lets records out early. Records
 * without a time take the newest time seen, keeping their place; so do those
 * of time 0, which perf synthesizes (mmaps at the start, LOST_SAMPLES at the
 * end) and, as perf, does not order. A record older than one already
 * delivered goes out at once, counted out of order. */
#include "formats/perf_read_int.h"
#include "core/error.h"
#include "core/grow.h"

#include <stdlib.h>

static int before(const struct perf_hent *a, const struct perf_hent *b)
{
	return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

static void push(struct perf_src *s, struct perf_qent *q)
{
	struct perf_hent e = { q->key, q->seq, q };
	size_t i = s->nq++;

	for (; i && before(&e, &s->heap[(i - 1) / 2]); i = (i - 1) / 2)
		s->heap[i] = s->heap[(i - 1) / 2];
	s->heap[i] = e;
}

/* The first entry out. The hole at the root goes down the smaller child to
 * a leaf, then the last entry goes up from there: one comparison a level
 * where sifting the last entry down from the root takes two, and the last
 * entry (a leaf, late) mostly belongs near the bottom anyway. The keys are
 * distinct (seq), so the order out is the same either way. */
static struct perf_qent *pop(struct perf_src *s)
{
	struct perf_qent *q = s->heap[0].q;
	struct perf_hent last = s->heap[--s->nq];
	size_t i = 0, n = s->nq;

	for (size_t l; (l = 2 * i + 1) < n; i = l) {
		if (l + 1 < n && before(&s->heap[l + 1], &s->heap[l]))
			l++;
		s->heap[i] = s->heap[l];
	}
	for (; i && before(&last, &s->heap[(i - 1) / 2]); i = (i - 1) / 2)
		s->heap[i] = s->heap[(i - 1) / 2];
	if (n)
		s->heap[i] = last;
	s->queued_bytes -= sizeof(*q) + q->size;
	return q;
}

struct perf_qent *perf_qent_get(struct perf_src *s, size_t size)
{
	size_t cls = (size + 63) / 64;
	struct perf_qent *q;

	if (cls >= PERF_QENT_CLASSES)   /* past 4 KiB: its own size, freed when put */
		q = malloc(sizeof(*q) + (size + 7) / 8 * 8);
	else if ((q = s->spare[cls]))
		s->spare[cls] = q->next;
	else
		q = malloc(sizeof(*q) + cls * 64);
	if (q)
		q->cls = cls;
	return q;
}

void perf_qent_put(struct perf_src *s, struct perf_qent *q)
{
	if (q->cls >= PERF_QENT_CLASSES) {
		free(q);
		return;
	}
	q->next = s->spare[q->cls];
	s->spare[q->cls] = q;
}

static void deliver(struct perf_src *s, struct perf_qent *q)
{
	if (!s->cb_ret) {
		perf_build_id_fill(s, &q->rec);
		pmuk_trace_count(s->t, &q->rec);
		s->cb_ret = s->cb(&q->rec, s->ctx);
		if (!s->out_any || q->key > s->last_out)
			s->last_out = q->key;
		s->out_any = 1;
	}
	perf_qent_put(s, q);
}

int perf_order_flush(struct perf_src *s, uint64_t upto)
{
	while (s->nq && !s->cb_ret && s->heap[0].key <= upto)
		deliver(s, pop(s));
	return s->cb_ret;
}

int perf_order_round(struct perf_src *s)
{
	uint64_t limit = s->round_limit;

	s->round_limit = s->max_time;
	s->rounds = 1;
	return perf_order_flush(s, limit);
}

int perf_order_add(struct perf_src *s, struct perf_qent *q)
{
	q->key = (q->rec.has & PMU_HAS_TIME) && q->rec.time ? q->rec.time : s->max_time;
	q->seq = s->seq++;
	if (s->out_any && q->key < s->last_out) {
		s->t->st.out_of_order++;
		deliver(s, q);
		return s->cb_ret;
	}
	if (pmuk_grow_raw((void **)&s->heap, &s->cap_q, s->nq + 1, sizeof(*s->heap))) {
		perf_qent_put(s, q);
		return pmuk_fail(PMU_ENOMEM, "%s: no memory to order the records", s->path);
	}
	push(s, q);
	s->queued_bytes += sizeof(*q) + q->size;
	if (q->key > s->max_time)
		s->max_time = q->key;
	if (!s->rounds && s->window && s->max_time > s->window)
		perf_order_flush(s, s->max_time - s->window);
	while (s->queued_bytes > PERF_READ_QUEUE_MAX && s->nq && !s->cb_ret)
		deliver(s, pop(s));
	return s->cb_ret;
}

void perf_order_free(struct perf_src *s)
{
	for (size_t i = 0; i < s->nq; i++)
		free(s->heap[i].q);
	free(s->heap);
	s->heap = NULL;
	s->nq = 0;
	for (size_t c = 0; c < PERF_QENT_CLASSES; c++)
		for (struct perf_qent *q; (q = s->spare[c]); s->spare[c] = q->next, free(q))
			;
}
