/* SPDX-License-Identifier: MIT */
/*
 * ut_evfilter.h - a compiled event filter (the kernel's filter language, compiled by
 * fs/event_filter.c) as utracefs hands it to the processes and as their writers
 * run it on a record before it goes into a ring (runtime/events.c).
 *
 * The program is flat and self-contained: a header, then nr predicates, each with
 * its branch: after predicate i, control goes to target when the result equals
 * when, else to i + 1; reaching nr means the record passes, nr + 1 that it does
 * not.  Targets always move forward (ut_evf_valid checks it, with every other
 * value a process copies out of shared memory), so a run takes nr steps at most,
 * allocates nothing and calls nothing.
 */
#ifndef UT_EVFILTER_H
#define UT_EVFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define UT_EVF_MAGIC 0x46567475u /* "utVF" */
#define UT_EVF_STR_MAX 256	 /* a string operand, NUL included (the kernel's) */
#define UT_EVF_MAX_PREDS 1024	 /* predicates of one filter */

/* What a field is to a filter. */
enum ut_evf_kind {
	UT_EVF_NUM,	  /* an integer (or pointer) of 1, 2, 4 or 8 bytes */
	UT_EVF_STR_FIXED, /* char name[N]: up to N bytes or a NUL */
	UT_EVF_STR_DYN,	  /* __data_loc char[]: offset | length << 16 */
	UT_EVF_CPU,	  /* the pseudo-field CPU (cpu): where the event is written */
	UT_EVF_COMM,	  /* the pseudo-field COMM (comm): the writing thread's name */
};

enum ut_evf_op { UT_EVF_EQ, UT_EVF_NE, UT_EVF_LT, UT_EVF_LE, UT_EVF_GT, UT_EVF_GE,
		 UT_EVF_BAND, UT_EVF_GLOB };

/* How a string predicate matches (a ~ pattern reduced as the kernel does). */
enum ut_evf_match { UT_EVF_FULL, UT_EVF_FRONT, UT_EVF_MIDDLE, UT_EVF_END, UT_EVF_PATTERN };

struct ut_evf_pred {
	uint16_t offset, size;
	uint8_t kind, is_signed, op, match;
	uint8_t neg;  /* != or a !pattern: the match inverted */
	uint8_t when; /* the result that branches */
	uint16_t target;
	uint16_t len; /* strings: of str */
	uint16_t _pad;
	uint64_t val; /* numbers: the operand */
	char str[UT_EVF_STR_MAX];
};
_Static_assert(sizeof(struct ut_evf_pred) == 280, "ut_evf_pred layout");

#define UT_EVF_USES_COMM 1u /* a predicate reads COMM */

struct ut_evf_prog {
	uint32_t magic;
	uint32_t nr;
	uint32_t flags; /* UT_EVF_USES_COMM */
	uint32_t _pad;
	struct ut_evf_pred p[];
};

static inline size_t ut_evf_size(uint32_t nr)
{
	return sizeof(struct ut_evf_prog) + (size_t)nr * sizeof(struct ut_evf_pred);
}

/* Is the len bytes at p a program a writer may run? */
static inline bool ut_evf_valid(const struct ut_evf_prog *p, size_t len)
{
	if (len < sizeof(*p) || p->magic != UT_EVF_MAGIC || !p->nr || p->nr > UT_EVF_MAX_PREDS ||
	    len != ut_evf_size(p->nr))
		return false;
	for (uint32_t i = 0; i < p->nr; i++) {
		const struct ut_evf_pred *pr = &p->p[i];

		if (pr->target <= i || pr->target > p->nr + 1 || pr->when > 1 || pr->kind > UT_EVF_COMM ||
		    pr->op > UT_EVF_GLOB || pr->match > UT_EVF_PATTERN || pr->len >= UT_EVF_STR_MAX ||
		    pr->str[UT_EVF_STR_MAX - 1] || strlen(pr->str) != pr->len)
			return false;
	}
	return true;
}

/* The kernel's glob: * ? [set] [!set] [a-z] and \ escapes. */
static inline bool ut_evf_glob(const char *p, const char *s, const char *end)
{
	const char *back_p = NULL, *back_s = NULL;

	for (;;) {
		char c = s < end ? *s : 0;

		if (*p == '*') {
			back_p = ++p;
			back_s = s;
			continue;
		}
		if (c && *p == '?') {
			p++;
			s++;
			continue;
		}
		if (c && *p == '[') {
			const char *q = p + 1;
			bool inv = *q == '!', hit = false;

			q += inv;
			do {
				char a = *q++, b = a;

				if (!a)
					goto mismatch;
				if (q[0] == '-' && q[1] && q[1] != ']') {
					b = q[1];
					q += 2;
				}
				hit |= a <= c && c <= b;
			} while (*q != ']');
			if (hit == inv)
				goto mismatch;
			p = q + 1;
			s++;
			continue;
		}
		if (*p == '\\' && p[1])
			p++;
		if (*p == c) {
			if (!c)
				return true;
			p++;
			s++;
			continue;
		}
mismatch:
		if (!back_p || back_s >= end || !*back_s)
			return false;
		p = back_p;
		s = ++back_s;
	}
}

/* A string predicate on str, len bytes at most (a NUL may end it sooner). */
static inline bool ut_evf_match_string(const struct ut_evf_pred *pr, const char *str, unsigned int len)
{
	unsigned int n = (unsigned int)strnlen(str, len);

	switch (pr->match) {
	case UT_EVF_FULL:
		return !strncmp(str, pr->str, len);
	case UT_EVF_FRONT:
		return len >= pr->len && !strncmp(str, pr->str, pr->len);
	case UT_EVF_MIDDLE:
		for (unsigned int i = 0; i + pr->len <= n; i++)
			if (!memcmp(str + i, pr->str, pr->len))
				return true;
		return false;
	case UT_EVF_END:
		/* the kernel compares the end of the field (len - 1 bytes), not of the text */
		return len - 1 >= pr->len && !memcmp(str + len - 1 - pr->len, pr->str, pr->len);
	default:
		return ut_evf_glob(pr->str, str, str + n);
	}
}

static inline bool ut_evf_match_number(const struct ut_evf_pred *pr, uint64_t raw)
{
	unsigned int bits = pr->size * 8u;
	uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
	uint64_t a = raw & mask, b = pr->val & mask;
	int64_t sa = (int64_t)a, sb = (int64_t)b;

	if (pr->is_signed && bits < 64) { /* sign-extend both, as compared in the field's type */
		uint64_t sign = 1ull << (bits - 1);

		sa = (int64_t)((a ^ sign) - sign);
		sb = (int64_t)((b ^ sign) - sign);
	}
	switch (pr->op) {
	case UT_EVF_EQ:
		return a == b;
	case UT_EVF_NE:
		return a != b;
	case UT_EVF_BAND:
		return (a & b) != 0;
	case UT_EVF_LT:
		return pr->is_signed ? sa < sb : a < b;
	case UT_EVF_LE:
		return pr->is_signed ? sa <= sb : a <= b;
	case UT_EVF_GT:
		return pr->is_signed ? sa > sb : a > b;
	default:
		return pr->is_signed ? sa >= sb : a >= b;
	}
}

static inline bool ut_evf_match_pred(const struct ut_evf_pred *pr, const unsigned char *rec, unsigned int size,
		       unsigned int cpu, const char *comm)
{
	uint64_t raw = 0;
	uint32_t loc;

	switch (pr->kind) {
	case UT_EVF_CPU:
		if (pr->op == UT_EVF_BAND || pr->op == UT_EVF_GLOB)
			return false;
		return ut_evf_match_number(pr, cpu);
	case UT_EVF_COMM:
		return ut_evf_match_string(pr, comm, 16) != pr->neg;
	case UT_EVF_STR_FIXED:
		if ((unsigned int)pr->offset + pr->size > size)
			return false;
		return ut_evf_match_string(pr, (const char *)rec + pr->offset, pr->size) != pr->neg;
	case UT_EVF_STR_DYN:
		if ((unsigned int)pr->offset + 4 > size)
			return false;
		memcpy(&loc, rec + pr->offset, 4);
		if ((loc & 0xffff) + (loc >> 16) > size || !(loc >> 16))
			return false;
		return ut_evf_match_string(pr, (const char *)rec + (loc & 0xffff), loc >> 16) != pr->neg;
	default:
		if ((unsigned int)pr->offset + pr->size > size || pr->size > 8)
			return false;
		memcpy(&raw, rec + pr->offset, pr->size); /* little-endian */
		return ut_evf_match_number(pr, raw);
	}
}

/*
 * Does the record rec (size bytes) pass the program?  cpu and comm: the writer's
 * (comm only read when the program has UT_EVF_USES_COMM).  p must be valid
 * (ut_evf_valid): its targets move forward, so this ends after nr steps at most.
 */
static inline bool ut_evf_match(const struct ut_evf_prog *p, const void *rec, unsigned int size,
				unsigned int cpu, const char *comm)
{
	unsigned int i = 0;

	if (!p)
		return true;
	while (i < p->nr) {
		const struct ut_evf_pred *pr = &p->p[i];
		bool r = ut_evf_match_pred(pr, (const unsigned char *)rec, size, cpu, comm);

		i = r == pr->when ? pr->target : i + 1;
	}
	return i == p->nr;
}

#endif
