// SPDX-License-Identifier: MIT
/*
 * ftrace_filter.c - set_ftrace_filter, set_ftrace_notrace, set_graph_function and
 * set_graph_notrace: the kernel's parser and semantics over the functions of
 * functab.h.
 *
 * As in the kernel (kernel/trace/ftrace.c):
 *   - an open for writing works on a private copy of the filter: empty with
 *     O_TRUNC (`>`), the current one otherwise (`>>`), committed at close.  Here
 *     each write commits the copy as well (FUSE releases a file only after
 *     close(2) returned), so a filter written in several writes is seen part by
 *     part;
 *   - unlike the kernel, a write that fails changes nothing: its tokens are taken
 *     back from the copy, and a file whose writes all failed is not committed at
 *     close, so `echo nosuch > set_ftrace_filter` fails with EINVAL and leaves the
 *     filter as it was (the kernel would commit the emptied copy).  The failure is
 *     also written to error_log (the kernel writes nothing there for these files);
 *   - a filter is a list of patterns as well as a set of functions: every glob
 *     token accepted (`!` ones too, `mod:` ones with their object glob; not line
 *     numbers) is kept in order with the private copy, and a function that
 *     appears later (a program run for the first time, exec'd, rebuilt, or a
 *     library loaded) is selected as replaying the list over it says, before
 *     its object's selection is published;
 *   - writes are cut into tokens at white space (and NUL); a token may continue
 *     over several writes; the last one, not followed by white space, is taken
 *     at close, where its errors are not reported;
 *   - a token is a glob (ftrace_glob.c): `x`, `x*`, `*x`, `*x*`, or a full
 *     glob when `*` is inside or `?`, `[` or `\` appear; `!` in front removes;
 *     a token starting with a digit is a line number of available_filter_functions
 *     (from 1, strtoul base 0);
 *   - a token that matches nothing is EINVAL; the write stops there;
 *   - with `demangle` on (the option when the file was opened), a C++ function
 *     matches by its mangled name, its demangled name and that name without
 *     return type, parameters and clone suffixes ("Json::Reader::parse"); the
 *     files list demangled names.  The command separator is a single `:`, so a
 *     scope `::` is part of the name;
 *   - set_ftrace_filter/notrace take commands `FUNC:CMD[:ARG]` (the table
 *     ff_cmds): `mod` (FUNC:mod:OBJECT, OBJECT a glob on the basename of the
 *     executable or shared object or, for libz.so.1.2.13, libz.so.1.2, libz.so.1,
 *     libz.so and libz; `!` in front to exclude it; an empty FUNC is every
 *     function of it).  A mod command for an object not known yet is kept
 *     pending and applies when a process registers such an object; until then it
 *     reads back as FUNC:mod:OBJECT.  set_ftrace_filter alone also takes the function probes
 *     (ftrace_probe.c): FUNC:traceon[:N], traceoff[:N], stacktrace[:N], dump,
 *     cpudump; `!FUNC:CMD` removes the uncounted one, `!FUNC:CMD:N` the counted
 *     one.  They do not change the filter; they are edited on a copy for each
 *     write, made the probes when the write succeeded.  Unknown commands (and
 *     snapshot, enable_event, disable_event, which come with their features)
 *     are EINVAL, as in a kernel that has not registered them.
 *   - set_graph_function/notrace take no commands but `mod` (FUNC:mod:OBJECT, so
 *     that a program not run yet can be named), and `!x` is EINVAL unless it
 *     removed something; they do take line numbers and `mod` (the kernel's do
 *     not), so that the four files share one syntax.
 * Reading prints the selected functions in the order of available_filter_functions
 * ("name [object]" for shared objects in the ftrace files, the bare name in the
 * graph files), or "#### all functions enabled ####" (set_ftrace_filter,
 * set_graph_function) / "#### no functions disabled ####" (the notrace files)
 * when empty.  Functions of programs that exited stay selected and listed, so that
 * a filter applies again when the program runs again.
 *
 * Instances: set_ftrace_filter and set_ftrace_notrace are in every instance, each
 * with its own bits and kept patterns (tfs_ft.inst[slot]; the top's are
 * tfs_ft_func.sel and tfs_ft.pats), all with the syntax above.  An instance's
 * set_ftrace_filter takes probes as the top's does: they are that instance's
 * (tfs_ft.inst[slot].probes, the top's in slot 0), listed and removed there
 * alone, and act on it (ftrace_probe.c).
 *
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "functab.h"

#define FF_TOKEN_MAX 1024 /* longer tokens: EINVAL (the kernel's FTRACE_BUFF_MAX) */

/* ---- an open filter file ---------------------------------------------------------------- */

struct ff_open {
	struct tfs_instance *inst; /* whose filter (the top: tfs_ft_func.sel, tfs_ft.pats) */
	enum tfs_filter which;
	bool writing;
	uint8_t *set; /* the private copy: set[id] for function ids < n */
	unsigned int n;
	char tok[FF_TOKEN_MAX];
	unsigned int len;
	bool fail; /* the pending token was too long: dropped */
	bool bad;  /* a write failed (and was taken back) */
	bool good; /* a write succeeded */
	bool probed; /* a write took a probe command (processes must hear of it) */
	struct tfs_ft_pats pats;     /* the private copy of the kept patterns */
	uint32_t seen;		     /* set[] is up to date for the function ids below */
	bool demangle;		     /* C++ names match demangled (the option at open) */
	struct tfs_ft_probes probes; /* set_ftrace_filter: the working copy of a write */
	struct tfs_ft_pats ppats;    /* ... and of the probe commands kept as patterns */
	uint32_t probes_seen;	     /* the functions there were when the copy was made */
	const char *why;	     /* error_log text of a failed command */
};

/* ---- whose filter ------------------------------------------------------------------ */

/* The selection bits of function id in the instance of slot (lock held). */
static uint8_t sel_of(unsigned int slot, uint32_t id)
{
	const struct tfs_ft_isel *is = &tfs_ft.inst[slot];

	if (!slot)
		return tfs_ft.funcs[id].sel;
	return id < is->n ? is->sel[id] : 0;
}

/* Give an instance's bits room for n functions, or every known one (lock held). */
static int sel_grow(unsigned int slot, unsigned int n)
{
	struct tfs_ft_isel *is = &tfs_ft.inst[slot];
	uint8_t *s;

	if (n < tfs_ft.nr_funcs)
		n = tfs_ft.nr_funcs;
	if (n <= is->n)
		return 0;
	s = realloc(is->sel, n);
	if (!s)
		return -ENOMEM;
	memset(s + is->n, 0, n - is->n);
	is->sel = s;
	is->n = n;
	return 0;
}

/* Set them (lock held): 0 or -ENOMEM. */
static int sel_set(unsigned int slot, uint32_t id, uint8_t v)
{
	if (!slot) {
		tfs_ft.funcs[id].sel = v;
		return 0;
	}
	if (id >= tfs_ft.inst[slot].n && (!v || sel_grow(slot, id + 1)))
		return v ? -ENOMEM : 0;
	tfs_ft.inst[slot].sel[id] = v;
	return 0;
}

/* The kept patterns of filter f of the instance of slot. */
static struct tfs_ft_pats *pats_of(unsigned int slot, enum tfs_filter f)
{
	return slot ? &tfs_ft.inst[slot].pats[f] : &tfs_ft.pats[f];
}

/* Probe edits of concurrent writers go one write after the other. */
static pthread_mutex_t probe_write_lock = PTHREAD_MUTEX_INITIALIZER;

static int set_put(struct ff_open *ff, uint32_t id, bool on)
{
	if (id >= ff->n) {
		unsigned int n = tfs_ft.nr_funcs > id ? tfs_ft.nr_funcs : id + 1;
		uint8_t *s = realloc(ff->set, n);

		if (!s)
			return -ENOMEM;
		memset(s + ff->n, 0, n - ff->n);
		ff->set = s;
		ff->n = n;
	}
	ff->set[id] = on;
	return 0;
}

static bool set_has(const struct ff_open *ff, uint32_t id)
{
	return id < ff->n && ff->set[id];
}

/* Does a mod: glob (exclude: it had `!`) take object ob?  A blank one takes shared
 * objects (with `!` executables): an executable's functions have no "module". */
static bool mod_takes(const struct tfs_ft_obj *ob, const struct tfs_glob *mg, int exclude_mod)
{
	if (!mg->len)
		return !exclude_mod != ob->exe;
	return !tfs_ft_obj_hit(ob, mg) == !!exclude_mod;
}

/* The kernel's ftrace_match_record. */
static bool match_record(const struct tfs_ft_obj *ob, struct tfs_ft_func *f,
			 const struct tfs_glob *fg, const struct tfs_glob *mg, int exclude_mod,
			 bool demangle)
{
	if (mg) {
		if (!mod_takes(ob, mg, exclude_mod))
			return false;
		if (!fg->len)
			return true;
	}
	return tfs_ft_func_hit(f, fg, demangle);
}

/* Line `index` (from 1) of available_filter_functions: its id, or UINT32_MAX. */
static uint32_t avail_line(unsigned long index)
{
	if (index-- == 0)
		return UINT32_MAX;
	for (unsigned int i = 0; i < tfs_ft.nr_objs; i++) {
		const struct tfs_ft_obj *ob = &tfs_ft.objs[i];

		if (!ob->live)
			continue;
		if (index < ob->n)
			return ob->funcs[index];
		index -= ob->n;
	}
	return UINT32_MAX;
}

/* Add (or with `!` remove) what func (and mod) match; >0 found, 0 none, -errno (lock held). */
static int match_records(struct ff_open *ff, char *func, char *mod)
{
	struct tfs_glob fg = {MATCH_FULL, "", 0}, mg = {MATCH_FULL, "", 0};
	int clear = 0, exclude = 0, found = 0;

	tfs_parse_regex(func, &fg, &clear);
	if (mod)
		tfs_parse_regex(mod, &mg, &exclude);
	if (fg.type == MATCH_INDEX) {
		uint32_t id = avail_line(strtoul(fg.search, NULL, 0));

		if (id == UINT32_MAX)
			return 0;
		return set_put(ff, id, !clear) ?: 1;
	}
	for (unsigned int i = 0; i < tfs_ft.nr_objs; i++) {
		const struct tfs_ft_obj *ob = &tfs_ft.objs[i];

		for (unsigned int j = 0; j < ob->n; j++) {
			uint32_t id = ob->funcs[j];

			if (!match_record(ob, &tfs_ft.funcs[id], &fg, mod ? &mg : NULL, exclude,
					  ff->demangle))
				continue;
			if (set_put(ff, id, !clear))
				return -ENOMEM;
			found = 1;
		}
	}
	return found;
}

/* ---- kept patterns ----------------------------------------------------------------------- */

void tfs_ft_pats_free(struct tfs_ft_pats *p)
{
	for (unsigned int i = 0; i < p->n; i++) {
		free(p->v[i].func);
		free(p->v[i].mod);
	}
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

static int pats_copy(struct tfs_ft_pats *dst, const struct tfs_ft_pats *src)
{
	dst->v = calloc(src->n ? src->n : 1, sizeof(*dst->v));
	dst->n = 0;
	if (!dst->v)
		return -ENOMEM;
	for (unsigned int i = 0; i < src->n; i++, dst->n++) {
		struct tfs_ft_pat *d = &dst->v[i];

		*d = src->v[i];
		d->func = strdup(src->v[i].func);
		d->mod = src->v[i].mod ? strdup(src->v[i].mod) : NULL;
		if (!d->func || (src->v[i].mod && !d->mod)) {
			free(d->func);
			free(d->mod);
			tfs_ft_pats_free(dst);
			return -ENOMEM;
		}
	}
	return 0;
}

static void pat_drop(struct tfs_ft_pats *p, unsigned int i)
{
	free(p->v[i].func);
	free(p->v[i].mod);
	memmove(&p->v[i], &p->v[i + 1], (p->n - i - 1) * sizeof(*p->v));
	p->n--;
}

static bool same_mod(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/*
 * Keep a pattern at the end of the list.  A later pattern decides alone for the
 * functions it matches, so an earlier one with the same text goes (`>>` of the
 * same name does not grow the list), and a removal with nothing before it goes.
 */
static int pats_push_as(struct tfs_ft_pats *p, const char *func, const char *mod,
			const struct tfs_ft_pat *how)
{
	struct tfs_ft_pat *v, n = *how;
	bool neg = how->neg;

	for (unsigned int i = 0; i < p->n;)
		if (!strcmp(p->v[i].func, func) && same_mod(p->v[i].mod, mod) &&
		    p->v[i].cmd == how->cmd && p->v[i].counted == how->counted)
			pat_drop(p, i);
		else
			i++;
	if (neg && !p->n)
		return 0;
	v = realloc(p->v, (p->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->v = v;
	n.func = strdup(func);
	n.mod = mod ? strdup(mod) : NULL;
	if (!n.func || (mod && !n.mod)) {
		free(n.func);
		free(n.mod);
		return -ENOMEM;
	}
	p->v[p->n++] = n;
	return 0;
}

/* Keep a filter's pattern. */
static int pats_push(struct tfs_ft_pats *p, const char *func, const char *mod, bool neg,
		     bool demangle)
{
	struct tfs_ft_pat how = {.neg = neg, .demangle = demangle};

	return pats_push_as(p, func, mod, &how);
}

/* A kept pattern parsed once to be run over many functions. */
struct pat_run {
	char *fbuf, *mbuf; /* parsed in place */
	struct tfs_glob fg, mg;
	int clear, exclude;
};

static int pat_parse(const struct tfs_ft_pat *pt, struct pat_run *r)
{
	memset(r, 0, sizeof(*r));
	r->fbuf = strdup(pt->func);
	r->mbuf = pt->mod ? strdup(pt->mod) : NULL;
	if (!r->fbuf || (pt->mod && !r->mbuf)) {
		free(r->fbuf);
		free(r->mbuf);
		return -ENOMEM;
	}
	tfs_parse_regex(r->fbuf, &r->fg, &r->clear);
	if (r->mbuf)
		tfs_parse_regex(r->mbuf, &r->mg, &r->exclude);
	return 0;
}

/* Does kept pattern pt (parsed as r) match function id? */
static bool pat_hit(const struct tfs_ft_pat *pt, const struct pat_run *r, uint32_t id)
{
	struct tfs_ft_func *f = &tfs_ft.funcs[id];

	return match_record(&tfs_ft.objs[f->obj], f, &r->fg, pt->mod ? &r->mg : NULL, r->exclude,
			    pt->demangle);
}

/* Replay the patterns over the functions first.. (lock held): on[id - first] = selected. */
static int pats_replay(const struct tfs_ft_pats *p, uint32_t first, uint8_t *on)
{
	for (unsigned int i = 0; i < p->n; i++) {
		struct pat_run r;

		if (pat_parse(&p->v[i], &r))
			return -ENOMEM;
		if (r.fg.type != MATCH_INDEX)
			for (uint32_t id = first; id < tfs_ft.nr_funcs; id++)
				if (pat_hit(&p->v[i], &r, id))
					on[id - first] = !p->v[i].neg;
		free(r.fbuf);
		free(r.mbuf);
	}
	return 0;
}

/*
 * Replay the kept probe commands over the functions first.. into the probes pr
 * (lock held): each adds or removes its probe on the new functions it matches.
 */
static int probe_pats_replay(const struct tfs_ft_pats *p, uint32_t first, struct tfs_ft_probes *pr)
{
	uint8_t *on = calloc(tfs_ft.nr_funcs ? tfs_ft.nr_funcs : 1, 1);

	if (!on)
		return -ENOMEM;
	for (unsigned int i = 0; i < p->n; i++) {
		const struct tfs_ft_pat *pt = &p->v[i];
		struct pat_run r;
		bool any = false;

		if (pat_parse(pt, &r)) {
			free(on);
			return -ENOMEM;
		}
		memset(on, 0, tfs_ft.nr_funcs);
		for (uint32_t id = first; id < tfs_ft.nr_funcs; id++)
			any |= on[id] = pat_hit(pt, &r, id);
		if (any && pt->neg)
			tfs_probes_del(pr, pt->cmd, pt->counted, false, on, tfs_ft.nr_funcs);
		else if (any)
			tfs_probes_add(pr, pt->cmd, pt->counted, pt->count, on, tfs_ft.nr_funcs);
		free(r.fbuf);
		free(r.mbuf);
	}
	free(on);
	return 0;
}

/* The probe commands of the instance of slot on the new functions first.. (lock held). */
static void apply_probe_pats(unsigned int slot, uint32_t first)
{
	struct tfs_ft_isel *is = &tfs_ft.inst[slot];
	struct tfs_ft_probes pr;

	if (!is->probe_pats.n || tfs_probes_copy(&pr, &is->probes))
		return;
	if (probe_pats_replay(&is->probe_pats, first, &pr) || tfs_probes_commit_locked(slot, &pr))
		tfs_probes_free(&pr); /* ENOMEM or out of counters: the new functions go without */
}

void tfs_ft_apply_pats_locked(uint32_t first)
{
	uint8_t *on;

	if (first >= tfs_ft.nr_funcs || !(on = malloc(tfs_ft.nr_funcs - first)))
		return;
	/* every instance's probes and filters, the top's (slot 0) first */
	for (unsigned int slot = 0; slot < UT_INST_MAX; slot++)
		apply_probe_pats(slot, first);
	for (unsigned int slot = 0; slot < UT_INST_MAX; slot++)
		for (int f = 0; f < TFS_FILTER_NR; f++) {
			if (!pats_of(slot, f)->n)
				continue;
			memset(on, 0, tfs_ft.nr_funcs - first);
			pats_replay(pats_of(slot, f), first, on);
			for (uint32_t id = first; id < tfs_ft.nr_funcs; id++)
				if (on[id - first])
					sel_set(slot, id, (uint8_t)(sel_of(slot, id) | 1u << f));
		}
	free(on);
}

/* Functions that appeared since the private copy was made: as its patterns say. */
static int sync_new(struct ff_open *ff)
{
	uint32_t first = ff->seen;

	if (first >= tfs_ft.nr_funcs)
		return 0;
	if (set_put(ff, tfs_ft.nr_funcs - 1, false))
		return -ENOMEM;
	if (pats_replay(&ff->pats, first, ff->set + first))
		return -ENOMEM;
	ff->seen = tfs_ft.nr_funcs;
	return 0;
}

/* Does any object take mod: glob mod (as match_record takes it)? */
static bool mod_known(const char *mod)
{
	struct tfs_glob mg;
	int exclude;
	char *m = strdup(mod);
	bool known = false;

	if (!m)
		return true;
	tfs_parse_regex(m, &mg, &exclude);
	for (unsigned int i = 0; i < tfs_ft.nr_objs && !known; i++)
		known = mod_takes(&tfs_ft.objs[i], &mg, exclude);
	free(m);
	return known;
}

/* A removal `!FUNC:mod:MOD` takes back the pending FUNC:mod:MOD (`!*` every one of MOD). */
static bool unpend(struct tfs_ft_pats *p, const char *func, const char *mod)
{
	bool any = false;

	for (unsigned int i = 0; i < p->n;) {
		const struct tfs_ft_pat *pt = &p->v[i];

		if (!pt->neg && pt->mod && !strcmp(pt->mod, mod) &&
		    (!strcmp(func, "*") || !strcmp(pt->func, func)) && !mod_known(mod)) {
			pat_drop(p, i);
			any = true;
		} else {
			i++;
		}
	}
	return any;
}

/*
 * FUNC:mod:MODULE (lock held).  Kept as a pattern for the objects that come later;
 * one whose MODULE names no object known yet is pending (the kernel caches it),
 * one that matches nothing in the objects it names is EINVAL.
 */
static int cmd_mod(struct ff_open *ff, uint32_t probe, char *func, char *next)
{
	bool neg = func[0] == '!';
	char *orig;
	int ret;

	(void)probe;
	if (!next)
		next = "";
	orig = strdup(func + neg); /* match_records cuts the pattern */
	if (!orig)
		return -ENOMEM;
	char *mod = strdup(next);

	if (!mod) {
		free(orig);
		return -ENOMEM;
	}
	ret = match_records(ff, func, mod);
	free(mod);
	if (ret == 0 && neg && unpend(&ff->pats, orig, next))
		ret = 1;
	else if (ret == 0 && (neg || mod_known(next)))
		ret = -EINVAL;
	else if (ret == 0) /* pending: said on the console, as it reads back */
		fprintf(stderr,
			"utracefs: %s:mod:%s: no object by that name yet, kept until one "
			"is loaded\n",
			orig[0] ? orig : "*", next);
	if (ret >= 0)
		ret = pats_push(&ff->pats, orig, next, neg, ff->demangle);
	free(orig);
	return ret < 0 ? ret : 0;
}

/* The kernel's kstrtoul (base 0: 0x.. hex, 0.. octal): 0, -EINVAL or -ERANGE. */
static int parse_count(const char *s, int64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s == '+')
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return -ERANGE; /* before trailing junk, as kstrtoull */
	if (*end)
		return -EINVAL;
	*out = (int64_t)v;
	return 0;
}

/*
 * FUNC:CMD[:COUNT] (lock held), the kernel's ftrace_trace_probe_callback and its
 * callers: traceon, traceoff, stacktrace and snapshot are counted when a COUNT
 * part is there at all (an empty one stores -1); dump always counts 1; cpudump
 * never counts.  Anything after COUNT is ignored.  Adding a snapshot probe
 * allocates the snapshot buffer, as the kernel's registration does.
 */
static int cmd_probe(struct ff_open *ff, uint32_t cmd, char *func, char *param)
{
	bool counted = cmd == UT_PROBE_DUMP || (cmd != UT_PROBE_CPUDUMP && param);
	bool not = func[0] == '!';
	struct ff_open m = {.which = ff->which, .demangle = ff->demangle};
	struct tfs_ft_pat how = {.neg = func[0] == '!',
				 .demangle = ff->demangle,
				 .cmd = (uint8_t)cmd,
				 .counted = counted};
	int64_t count = 1;
	int ret;

	if (ff->which != TFS_FILTER_TRACE) {
		ff->why = "Function probes only in set_ftrace_filter";
		return -EINVAL;
	}
	ff->probed = true;
	if (counted && cmd != UT_PROBE_DUMP && !not) {
		char *number = strsep(&param, ":");

		count = -1;
		if (number[0] && (ret = parse_count(number, &count))) {
			ff->why = "Bad count";
			return ret;
		}
	}
	func += not;
	how.count = count;
	/* the snapshot of the instance the probe is written to, as the kernel's */
	if (cmd == UT_PROBE_SNAPSHOT && !not && (ret = tfs_spare_alloc(ff->inst)))
		return ret;
	if (not && (!func[0] || !strcmp(func, "*"))) {
		ret = tfs_probes_del(&ff->probes, cmd, counted, true, NULL, 0); /* the whole kind */
		/* and the commands of that kind kept for later functions */
		for (unsigned int i = 0; !ret && i < ff->ppats.n;)
			if (ff->ppats.v[i].cmd == cmd && ff->ppats.v[i].counted == counted)
				pat_drop(&ff->ppats, i);
			else
				i++;
	} else {
		char *orig = strdup(func);

		if (!orig)
			return -ENOMEM;
		ret = match_records(&m, func, NULL);
		if (ret > 0)
			ret = not ? tfs_probes_del(&ff->probes, cmd, counted, false, m.set, m.n)
				  : tfs_probes_add(&ff->probes, cmd, counted, count, m.set, m.n);
		else if (ret == 0) /* no function: removing says ENODEV or EINVAL */
			ret = not ? tfs_probes_del(&ff->probes, cmd, counted, false, NULL, 0) : -EINVAL;
		free(m.set);
		if (!ret && !isdigit((unsigned char)orig[0]))
			ret = pats_push_as(&ff->ppats, orig, NULL, &how);
		free(orig);
	}
	if (ret == -ENODEV)
		ff->why = "No such probe";
	else if (ret == -EINVAL && !not)
		ff->why = "No function matches, or all have this probe";
	return ret ?: 0;
}

/* The commands of set_ftrace_filter and set_ftrace_notrace. */
static const struct ff_cmd {
	const char *name;
	int (*run)(struct ff_open *ff, uint32_t probe, char *func, char *param);
	uint32_t probe; /* enum ut_probe_cmd of a function probe */
} ff_cmds[] = {
    {"mod", cmd_mod, 0},
    {"traceon", cmd_probe, UT_PROBE_TRACEON},
    {"traceoff", cmd_probe, UT_PROBE_TRACEOFF},
    {"stacktrace", cmd_probe, UT_PROBE_STACKTRACE},
    {"dump", cmd_probe, UT_PROBE_DUMP},
    {"cpudump", cmd_probe, UT_PROBE_CPUDUMP},
    {"snapshot", cmd_probe, UT_PROBE_SNAPSHOT},
    /*
     * enable_event/disable_event:SYSTEM:EVENT[:N] (with events) go here: a probe
     * command each (ut_probe_cmd, runtime/probe.c).
     */
};

/* One token of set_ftrace_filter/notrace (lock held). */
/*
 * Cut the function part off a token at the first `:` that is not one of a C++
 * scope `::` ("Json::Reader::*:mod:libjsoncpp"); next: after it, NULL if none.
 */
static char *cut_func(char *tok, char **next)
{
	char *p = tok;

	while ((p = strchr(p, ':')) && p[1] == ':')
		p += 2;
	*next = p ? p + 1 : NULL;
	if (p)
		*p = '\0';
	return tok;
}

static int ftrace_token(struct ff_open *ff, char *tok)
{
	char *next, *func = cut_func(tok, &next), *cmd;
	int ret;

	if (!next) {
		char *orig = strdup(func + (func[0] == '!'));

		if (!orig)
			return -ENOMEM;
		ret = match_records(ff, func, NULL);
		if (ret > 0 && !isdigit((unsigned char)orig[0])) /* line numbers are not kept */
			ret = pats_push(&ff->pats, orig, NULL, tok[0] == '!', ff->demangle) ?: 1;
		free(orig);
		return ret > 0 ? 0 : ret ?: -EINVAL;
	}
	cmd = strsep(&next, ":");
	for (size_t i = 0; i < sizeof(ff_cmds) / sizeof(ff_cmds[0]); i++)
		if (!strcmp(cmd, ff_cmds[i].name))
			return ff_cmds[i].run(ff, ff_cmds[i].probe, func, next);
	ff->why = "Unknown command";
	return -EINVAL; /* not a registered command */
}

/* One token of set_graph_function/notrace (lock held). */
static int graph_token(struct ff_open *ff, char *tok)
{
	struct tfs_glob g;
	int not, fail = 1;
	char *next, *func = cut_func(tok, &next), *orig;

	if (next) {
		/* FUNC:mod:OBJECT, as in set_ftrace_filter (the kernel's graph files take none) */
		if (!strcmp(strsep(&next, ":"), "mod"))
			return cmd_mod(ff, 0, func, next);
		ff->why = "Unknown command";
		return -EINVAL;
	}
	orig = strdup(tok + (tok[0] == '!'));
	if (!orig)
		return -ENOMEM;
	if (tfs_parse_regex(tok, &g, &not ) == MATCH_INDEX) {
		free(orig);
		/* a line number, as in set_ftrace_filter (the kernel's graph files take none) */
		uint32_t id = avail_line(strtoul(g.search, NULL, 0));

		if (id == UINT32_MAX || (not && !set_has(ff, id)))
			return -EINVAL;
		if (not ) {
			ff->set[id] = 0;
			return 0;
		}
		return set_put(ff, id, true);
	}
	for (uint32_t id = 0; id < tfs_ft.nr_funcs; id++) {
		if (!tfs_ft_func_hit(&tfs_ft.funcs[id], &g, ff->demangle))
			continue;
		if (!not ) {
			fail = 0;
			if (set_put(ff, id, true)) {
				free(orig);
				return -ENOMEM;
			}
		} else if (set_has(ff, id)) {
			ff->set[id] = 0;
			fail = 0;
		}
	}
	if (!fail)
		fail = pats_push(&ff->pats, orig, NULL, not, ff->demangle);
	free(orig);
	return fail ? fail < 0 ? fail : -EINVAL : 0;
}

static int process_token(struct ff_open *ff)
{
	char tok[FF_TOKEN_MAX]; /* parsing cuts it; error_log shows ff->tok whole */
	int ret;

	ff->tok[ff->len] = '\0';
	memcpy(tok, ff->tok, ff->len + 1);
	ff->why = NULL;
	pthread_mutex_lock(&tfs_ft_lock);
	ret = sync_new(ff);
	if (ret)
		;
	else if (ff->which == TFS_FILTER_TRACE || ff->which == TFS_FILTER_NOTRACE ||
		 ff->which == TFS_FILTER_STACK)
		ret = ftrace_token(ff, tok);
	else
		ret = graph_token(ff, tok);
	pthread_mutex_unlock(&tfs_ft_lock);
	ff->len = 0;
	return ret;
}

/* A positive FUNC:mod:OBJ whose OBJ names no object yet (lock held). */
static bool pending(const struct tfs_ft_pat *pt)
{
	return pt->mod && !pt->neg && !mod_known(pt->mod);
}

/* Is any function in filter f of the instance of slot, or a mod pending? (lock held) */
static bool nonempty_locked(unsigned int slot, enum tfs_filter f)
{
	const struct tfs_ft_pats *p = pats_of(slot, f);

	for (uint32_t id = 0; id < tfs_ft.nr_funcs; id++)
		if (sel_of(slot, id) & (1u << f))
			return true;
	/* a pending mod command alone already filters: nothing traced until it loads */
	for (unsigned int i = 0; i < p->n; i++)
		if (pending(&p->v[i]))
			return true;
	return false;
}

bool tfs_ft_nonempty_locked(enum tfs_filter f)
{
	return nonempty_locked(0, f);
}

bool tfs_ft_inst_nonempty_locked(unsigned int slot, enum tfs_filter f)
{
	return slot < UT_INST_MAX && nonempty_locked(slot, f);
}

uint8_t tfs_ft_inst_sel_locked(unsigned int slot, uint32_t id)
{
	return slot < UT_INST_MAX && id < tfs_ft.nr_funcs ? sel_of(slot, id) : 0;
}

void tfs_ft_inst_clear(const struct tfs_instance *inst)
{
	struct tfs_ft_isel *is = &tfs_ft.inst[inst->slot];

	if (!inst->slot)
		return;
	pthread_mutex_lock(&tfs_ft_lock);
	free(is->sel);
	is->sel = NULL;
	is->n = 0;
	for (int f = 0; f < TFS_FILTER_NR; f++)
		tfs_ft_pats_free(&is->pats[f]);
	pthread_mutex_unlock(&tfs_ft_lock);
	tfs_probes_inst_drop(inst->slot); /* gone before already (rmdir): nothing left */
}

bool tfs_ft_graph_select(void)
{
	bool on;

	pthread_mutex_lock(&tfs_ft_lock);
	on = tfs_ft_nonempty_locked(TFS_FILTER_GRAPH) ||
	     tfs_ft_nonempty_locked(TFS_FILTER_GRAPH_NOTRACE);
	pthread_mutex_unlock(&tfs_ft_lock);
	return on;
}

/* ---- the files --------------------------------------------------------------------------- */

static enum tfs_filter which_of(const struct tfs_open *o)
{
	return (enum tfs_filter)o->file->arg;
}

static int ff_open(struct tfs_open *o)
{
	struct ff_open *ff = calloc(1, sizeof(*ff));
	enum tfs_filter which = which_of(o);

	if (!ff)
		return -ENOMEM;
	ff->inst = o->inst;
	ff->which = which;
	ff->writing = (o->flags & O_ACCMODE) != O_RDONLY;
	ff->demangle = tfs_out_demangle(o->inst);
	if (ff->writing) {
		unsigned int slot = o->inst->slot;
		int err = 0;

		pthread_mutex_lock(&tfs_ft_lock);
		ff->n = ff->seen = tfs_ft.nr_funcs;
		ff->set = calloc(ff->n ? ff->n : 1, 1);
		if (ff->set && !(o->flags & O_TRUNC)) {
			for (unsigned int id = 0; id < ff->n; id++)
				ff->set[id] = sel_of(slot, id) >> which & 1;
			err = pats_copy(&ff->pats, pats_of(slot, which));
		}
		if (ff->set && !err)
			tfs_ft_writer_locked(true); /* function ids stay until the close */
		pthread_mutex_unlock(&tfs_ft_lock);
		if (!ff->set || err) {
			free(ff->set);
			free(ff);
			return -ENOMEM;
		}
	}
	o->priv = ff;
	return 0;
}

int tfs_ft_show(enum tfs_filter which, struct tfs_buf *b)
{
	return tfs_ft_show_inst(&tfs_top, which, b);
}

int tfs_ft_show_inst(const struct tfs_instance *inst, enum tfs_filter which, struct tfs_buf *b)
{
	bool graph = which == TFS_FILTER_GRAPH || which == TFS_FILTER_GRAPH_NOTRACE, any = false;
	bool demangle = tfs_out_demangle(inst);
	unsigned int slot = inst->slot;
	const struct tfs_ft_pats *pats;
	int err = 0;

	pthread_mutex_lock(&tfs_ft_lock);
	for (unsigned int i = 0; i < tfs_ft.nr_objs && !err; i++) {
		const struct tfs_ft_obj *ob = &tfs_ft.objs[i];

		for (unsigned int j = 0; j < ob->n && !err; j++) {
			struct tfs_ft_func *f = &tfs_ft.funcs[ob->funcs[j]];

			if (!(sel_of(slot, ob->funcs[j]) >> which & 1))
				continue;
			any = true;
			err = graph || ob->exe
				  ? tfs_buf_printf(b, "%s\n", tfs_ft_func_name(f, demangle))
				  : tfs_buf_printf(b, "%s [%s]\n", tfs_ft_func_name(f, demangle),
						   ob->mod);
		}
	}
	if (!any && !err)
		err = tfs_buf_printf(b, which == TFS_FILTER_TRACE || which == TFS_FILTER_GRAPH ||
					    which == TFS_FILTER_STACK
					    ? "#### all functions enabled ####\n"
					    : "#### no functions disabled ####\n");
	pats = pats_of(slot, which);
	for (unsigned int i = 0; i < pats->n && !err; i++) {
		const struct tfs_ft_pat *m = &pats->v[i];

		if (pending(m))
			err = tfs_buf_printf(b, "%s:mod:%s\n", m->func[0] ? m->func : "*", m->mod);
	}
	if (which == TFS_FILTER_TRACE && !err)
		err = tfs_probes_show_locked(slot, b, demangle);
	pthread_mutex_unlock(&tfs_ft_lock);
	return err;
}

static int ff_show(struct tfs_open *o)
{
	return tfs_ft_show_inst(o->inst, which_of(o), &o->content);
}

/* A failed token: the error_log line names the file and the token. */
static void log_failed(const struct ff_open *ff)
{
	static const char *const files[] = {
	    [TFS_FILTER_TRACE] = "set_ftrace_filter",
	    [TFS_FILTER_NOTRACE] = "set_ftrace_notrace",
	    [TFS_FILTER_GRAPH] = "set_graph_function",
	    [TFS_FILTER_GRAPH_NOTRACE] = "set_graph_notrace",
	    [TFS_FILTER_STACK] = "stack_trace_filter",
	};

	tfs_error_log(ff->inst, files[ff->which],
		      ff->len >= FF_TOKEN_MAX - 1 ? "Pattern too long"
		      : ff->why		  ? ff->why
						  : "No function matches",
		      ff->tok, 0);
}

static ssize_t write_tokens(struct ff_open *ff, const char *buf, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		char c = buf[i];

		if (!c || isspace((unsigned char)c)) {
			if (ff->fail) {
				ff->fail = false;
				ff->len = 0;
				continue;
			}
			if (ff->len) {
				int err = process_token(ff);

				if (err) {
					log_failed(ff);
					return err;
				}
			}
			continue;
		}
		if (ff->fail)
			continue;
		if (ff->len >= FF_TOKEN_MAX - 1) {
			ff->fail = true; /* the kernel's parser gives up on this token */
			ff->tok[ff->len] = '\0';
			log_failed(ff);
			ff->len = 0;
			return -EINVAL;
		}
		ff->tok[ff->len++] = c;
	}
	return (ssize_t)size;
}

/* A write to set_ftrace_filter starts: the working copy of its instance's probes. */
static int probes_begin(struct ff_open *ff)
{
	struct tfs_ft_isel *is = &tfs_ft.inst[ff->inst->slot];
	int err;

	if (ff->which != TFS_FILTER_TRACE)
		return 0;
	pthread_mutex_lock(&probe_write_lock);
	pthread_mutex_lock(&tfs_ft_lock);
	err = tfs_probes_copy(&ff->probes, &is->probes);
	if (!err)
		err = pats_copy(&ff->ppats, &is->probe_pats);
	ff->probes_seen = tfs_ft.nr_funcs;
	pthread_mutex_unlock(&tfs_ft_lock);
	if (err) {
		tfs_probes_free(&ff->probes);
		tfs_ft_pats_free(&ff->ppats);
		pthread_mutex_unlock(&probe_write_lock);
	}
	return err;
}

/* Has pr a probe of the kind (command, counted) of kept command pt? */
static bool probes_of_kind(const struct tfs_ft_probes *pr, const struct tfs_ft_pat *pt)
{
	for (unsigned int i = 0; i < pr->n; i++)
		if (pr->v[i].cmd == pt->cmd && pr->v[i].counted == pt->counted)
			return true;
	return false;
}

/* It ends: when ok, the copy becomes the probes (-ENOSPC: out of counters). */
static int probes_end(struct ff_open *ff, bool ok)
{
	unsigned int slot = ff->inst->slot;
	int err = 0;

	if (ff->which != TFS_FILTER_TRACE)
		return 0;
	if (ok) {
		pthread_mutex_lock(&tfs_ft_lock);
		/* functions that came during the write: what the commands say for them */
		err = probe_pats_replay(&ff->ppats, ff->probes_seen, &ff->probes);
		/* a kind with no probe left is gone, as the kernel unregisters its ops */
		for (unsigned int i = 0; !err && i < ff->ppats.n;)
			if (!probes_of_kind(&ff->probes, &ff->ppats.v[i]))
				pat_drop(&ff->ppats, i);
			else
				i++;
		if (!err)
			err = tfs_probes_commit_locked(slot, &ff->probes);
		if (!err) {
			tfs_ft_pats_free(&tfs_ft.inst[slot].probe_pats);
			tfs_ft.inst[slot].probe_pats = ff->ppats;
			memset(&ff->ppats, 0, sizeof(ff->ppats));
		}
		pthread_mutex_unlock(&tfs_ft_lock);
	}
	tfs_probes_free(&ff->probes);
	tfs_ft_pats_free(&ff->ppats);
	pthread_mutex_unlock(&probe_write_lock);
	return err;
}

/* One write, all or nothing: a failed token takes back the write's other tokens. */
ssize_t tfs_ft_write(void *priv, const char *buf, size_t size)
{
	struct ff_open *ff = priv;
	unsigned int n = ff->n;
	uint32_t seen = ff->seen;
	uint8_t *before = malloc(n ? n : 1);
	struct tfs_ft_pats pats_before;
	ssize_t ret;

	if (!before)
		return -ENOMEM;
	if (pats_copy(&pats_before, &ff->pats)) {
		free(before);
		return -ENOMEM;
	}
	memcpy(before, ff->set, n);
	ret = probes_begin(ff);
	if (!ret) {
		ret = write_tokens(ff, buf, size);
		if (ret >= 0) {
			int err = probes_end(ff, true);

			if (err) {
				tfs_error_log(ff->inst, "set_ftrace_filter", "Too many probes", "", 0);
				ret = err;
			}
		} else {
			probes_end(ff, false);
		}
	}
	if (ret < 0) {
		memset(ff->set, 0, ff->n); /* set_put may have grown it */
		memcpy(ff->set, before, n);
		ff->seen = seen;
		tfs_ft_pats_free(&ff->pats);
		ff->pats = pats_before;
		ff->len = 0;
		ff->bad = true;
	} else {
		ff->good = true;
		tfs_ft_pats_free(&pats_before);
	}
	free(before);
	return ret;
}

static bool commit(struct ff_open *ff);

static ssize_t ff_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	struct ff_open *ff = o->priv;
	ssize_t ret;

	if (!ff || !ff->writing)
		return -EBADF;
	ret = tfs_ft_write(ff, buf, size);
	if (ret < 0)
		return ret;
	/*
	 * FUSE sends the release of a file after close(2) has returned, so a commit
	 * there alone would land after `echo x > set_ftrace_filter` returned.  The
	 * private copy is committed after every write that succeeded too (what close
	 * would commit if it came now), and the write returns once every process
	 * applied it.
	 */
	commit(ff);
	/* an instance's probes act whatever its tracer: published as the top's are */
	tfs_sel_publish_apply(ff->probed ? &tfs_top : o->inst);
	ff->probed = false;
	return ret;
}

/* Make the private copy the filter; true when it changed. */
static bool commit(struct ff_open *ff)
{
	unsigned int slot = ff->inst->slot;
	bool changed = false;
	struct tfs_ft_pats pats, *kept = pats_of(slot, ff->which);

	pthread_mutex_lock(&tfs_ft_lock);
	if (sync_new(ff) || pats_copy(&pats, &ff->pats)) {
		pthread_mutex_unlock(&tfs_ft_lock);
		return false; /* ENOMEM: the filter stays as it was */
	}
	/* an instance's bits for every function first: nothing can fail after */
	if (slot && sel_grow(slot, 0)) {
		tfs_ft_pats_free(&pats);
		pthread_mutex_unlock(&tfs_ft_lock);
		return false;
	}
	changed = pats.n != kept->n;
	tfs_ft_pats_free(kept);
	*kept = pats;
	for (uint32_t id = 0; id < tfs_ft.nr_funcs; id++) {
		uint8_t old = sel_of(slot, id);
		uint8_t sel = (uint8_t)((old & ~(1u << ff->which)) |
					(set_has(ff, id) ? 1u << ff->which : 0));

		changed |= sel != old;
		sel_set(slot, id, sel);
	}
	/*
	 * A filter that reads back empty is empty: patterns whose functions were all
	 * removed again (`a*` then `!abc`) must not make it select when a function
	 * comes later.
	 */
	if (!nonempty_locked(slot, ff->which)) {
		tfs_ft_pats_free(kept);
		tfs_ft_pats_free(&ff->pats);
	}
	pthread_mutex_unlock(&tfs_ft_lock);
	return changed;
}

/* Close of a file opened for writing: the last token, then the commit. */
bool tfs_ft_close(void *priv)
{
	struct ff_open *ff = priv;
	bool changed = false;

	if (ff && ff->writing) {
		if (ff->len && !ff->fail && !probes_begin(ff)) {
			bool ok = process_token(ff) == 0;

			/* its errors are not reported, as in the kernel */
			if (!probes_end(ff, ok) && ok)
				ff->good = true;
		}
		if (ff->good || !ff->bad)
			changed = commit(ff);
		pthread_mutex_lock(&tfs_ft_lock);
		tfs_ft_writer_locked(false);
		pthread_mutex_unlock(&tfs_ft_lock);
	}
	if (ff) {
		free(ff->set);
		tfs_ft_pats_free(&ff->pats);
	}
	free(ff);
	return changed;
}

void *tfs_ft_open_priv_inst(struct tfs_instance *inst, enum tfs_filter which, bool trunc)
{
	struct tfs_file f = {.arg = which};
	struct tfs_open o = {.inst = inst, .file = &f, .flags = O_WRONLY | (trunc ? O_TRUNC : 0)};

	return ff_open(&o) ? NULL : o.priv;
}

void *tfs_ft_open_priv(enum tfs_filter which, bool trunc)
{
	return tfs_ft_open_priv_inst(&tfs_top, which, trunc);
}

static int ff_release(struct tfs_open *o)
{
	struct ff_open *ff = o->priv;
	bool pending = ff && ff->writing && ff->len, changed;
	bool probes = pending && ff->which == TFS_FILTER_TRACE; /* the last token may be one */

	changed = tfs_ft_close(ff);
	o->priv = NULL;
	/* a last token may have changed the mod commands even when no function changed */
	if (changed || pending)
		tfs_sel_publish_apply(probes ? &tfs_top : o->inst);
	return 0;
}

#define FF_OPS(n)                                                                                  \
	const struct tfs_file_ops n = {                                                            \
	    .open = ff_open,                                                                       \
	    .show = ff_show,                                                                       \
	    .write = ff_write,                                                                     \
	    .release = ff_release,                                                                 \
	}
FF_OPS(tfs_set_ftrace_filter_ops);
FF_OPS(tfs_set_ftrace_notrace_ops);
FF_OPS(tfs_set_graph_function_ops);
FF_OPS(tfs_set_graph_notrace_ops);
FF_OPS(tfs_stack_trace_filter_ops);
