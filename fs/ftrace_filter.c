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
 *     also written to error_log (the kernel writes nothing there for these files).
 *     What a failed write's earlier `mod:` tokens cached, and the cached `mod:`
 *     commands that an O_TRUNC open clears, are not taken back;
 *   - writes are cut into tokens at white space (and NUL); a token may continue
 *     over several writes; the last one, not followed by white space, is taken
 *     at close, where its errors are not reported;
 *   - a token is a glob (ftrace_glob.c): `x`, `x*`, `*x`, `*x*`, or a full
 *     glob when `*` is inside or `?`, `[` or `\` appear; `!` in front removes;
 *     a token starting with a digit is a line number of available_filter_functions
 *     (from 1, strtoul base 0);
 *   - a token that matches nothing is EINVAL; the write stops there;
 *   - set_ftrace_filter/notrace take commands `FUNC:CMD[:ARG]` (the table
 *     ff_cmds): `mod` (FUNC:mod:OBJECT, OBJECT the basename of the executable or
 *     shared object, itself a glob, `!` in front to exclude it; an empty FUNC is
 *     every function of it).  A mod command for an object not known yet is kept
 *     ("cached") and applied when a process registers it; it reads back as
 *     FUNC:mod:OBJECT.  set_ftrace_filter alone also takes the function probes
 *     (ftrace_probe.c): FUNC:traceon[:N], traceoff[:N], stacktrace[:N], dump,
 *     cpudump; `!FUNC:CMD` removes the uncounted one, `!FUNC:CMD:N` the counted
 *     one.  They do not change the filter; they are edited on a copy for each
 *     write, made the probes when the write succeeded.  Unknown commands (and
 *     snapshot, enable_event, disable_event, which come with their features)
 *     are EINVAL, as in a kernel that has not registered them.
 *   - set_graph_function/notrace take no commands, and `!x` is EINVAL unless it
 *     removed something; they do take line numbers (the kernel's do not), so that
 *     the four files share one syntax.
 * Reading prints the selected functions in the order of available_filter_functions
 * ("name [object]" for shared objects in the ftrace files, the bare name in the
 * graph files), or "#### all functions enabled ####" (set_ftrace_filter,
 * set_graph_function) / "#### no functions disabled ####" (the notrace files)
 * when empty.  Functions of programs that exited stay selected and listed, so that
 * a filter applies again when the program runs again.
 *
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "functab.h"

#define FF_TOKEN_MAX 1024 /* longer tokens: EINVAL (the kernel's FTRACE_BUFF_MAX) */

/* ---- an open filter file ---------------------------------------------------------------- */

struct ff_open {
	enum tfs_filter which;
	bool writing;
	uint8_t *set; /* the private copy: set[id] for function ids < n */
	unsigned int n;
	char tok[FF_TOKEN_MAX];
	unsigned int len;
	bool fail; /* the pending token was too long: dropped */
	bool bad;  /* a write failed (and was taken back) */
	bool good; /* a write succeeded */
	struct tfs_ft_probes probes; /* set_ftrace_filter: the working copy of a write */
	const char *why;	     /* error_log text of a failed command */
};

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

/* The kernel's ftrace_match_record: an executable's functions have no "module" name. */
static bool match_record(const struct tfs_ft_obj *ob, const struct tfs_ft_func *f,
			 const struct tfs_glob *fg, const struct tfs_glob *mg, int exclude_mod)
{
	if (mg) {
		const char *modname = ob->exe ? NULL : ob->mod;

		if (!mg->len) {
			/* blank module: shared objects, or with `!` executables */
			if (!exclude_mod == !modname)
				return false;
		} else if (!tfs_glob_hit(ob->mod, mg) == !exclude_mod) {
			return false;
		}
		if (!fg->len)
			return true;
	}
	return tfs_glob_hit(f->name, fg);
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

			if (!match_record(ob, &tfs_ft.funcs[id], &fg, mod ? &mg : NULL, exclude))
				continue;
			if (set_put(ff, id, !clear))
				return -ENOMEM;
			found = 1;
		}
	}
	return found;
}

static bool module_known(const char *mod)
{
	for (unsigned int i = 0; i < tfs_ft.nr_objs; i++)
		if (!strcmp(tfs_ft.objs[i].mod, mod))
			return true;
	return false;
}

/* The kernel's cache_mod: keep FUNC:mod:MOD for an object not seen yet (lock held). */
static int cache_mod(enum tfs_filter which, const char *func, const char *mod)
{
	int l = which == TFS_FILTER_NOTRACE;
	struct tfs_ft_mod *m;
	int ret = -EINVAL;

	if (func[0] == '!') {
		func++;
		for (unsigned int i = 0; i < tfs_ft.nr_mods[l];) {
			m = &tfs_ft.mods[l][i];
			if (strcmp(m->mod, mod) || (strcmp(func, "*") && strcmp(m->func, func))) {
				i++;
				continue;
			}
			free(m->func);
			free(m->mod);
			memmove(m, m + 1, (tfs_ft.nr_mods[l] - i - 1) * sizeof(*m));
			tfs_ft.nr_mods[l]--;
			ret = 0;
		}
		return ret;
	}
	if (module_known(mod))
		return -EINVAL;
	m = realloc(tfs_ft.mods[l], (tfs_ft.nr_mods[l] + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	tfs_ft.mods[l] = m;
	m += tfs_ft.nr_mods[l];
	m->func = strdup(func);
	m->mod = strdup(mod);
	if (!m->func || !m->mod) {
		free(m->func);
		free(m->mod);
		return -ENOMEM;
	}
	tfs_ft.nr_mods[l]++;
	return 0;
}

/* FUNC:mod:MODULE (lock held). */
static int cmd_mod(struct ff_open *ff, uint32_t probe, char *func, char *next)
{
	char *orig;
	int ret;

	(void)probe;
	if (!next)
		next = "";
	orig = strdup(func); /* match_records cuts the pattern */
	if (!orig)
		return -ENOMEM;
	char *mod = strdup(next);

	if (!mod) {
		free(orig);
		return -ENOMEM;
	}
	ret = match_records(ff, func, mod);
	free(mod);
	if (ret == 0)
		ret = cache_mod(ff->which, orig, next);
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
 * callers: traceon, traceoff and stacktrace are counted when a COUNT part is
 * there at all (an empty one stores -1); dump always counts 1; cpudump never
 * counts.  Anything after COUNT is ignored.
 */
static int cmd_probe(struct ff_open *ff, uint32_t cmd, char *func, char *param)
{
	bool counted = cmd == UT_PROBE_DUMP || (cmd != UT_PROBE_CPUDUMP && param);
	bool not = func[0] == '!';
	struct ff_open m = {.which = ff->which};
	int64_t count = 1;
	int ret;

	if (ff->which != TFS_FILTER_TRACE) {
		ff->why = "Function probes only in set_ftrace_filter";
		return -EINVAL;
	}
	if (counted && cmd != UT_PROBE_DUMP && !not) {
		char *number = strsep(&param, ":");

		count = -1;
		if (number[0] && (ret = parse_count(number, &count))) {
			ff->why = "Bad count";
			return ret;
		}
	}
	func += not;
	if (not && (!func[0] || !strcmp(func, "*"))) {
		ret = tfs_probes_del(&ff->probes, cmd, counted, true, NULL, 0); /* the whole kind */
	} else {
		ret = match_records(&m, func, NULL);
		if (ret > 0)
			ret = not ? tfs_probes_del(&ff->probes, cmd, counted, false, m.set, m.n)
				  : tfs_probes_add(&ff->probes, cmd, counted, count, m.set, m.n);
		else if (ret == 0) /* no function: removing says ENODEV or EINVAL */
			ret = not ? tfs_probes_del(&ff->probes, cmd, counted, false, NULL, 0) : -EINVAL;
		free(m.set);
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
    /*
     * snapshot[:N] (with snapshots) and enable_event/disable_event:SYSTEM:EVENT[:N]
     * (with events) go here: a probe command each (ut_probe_cmd, runtime/probe.c).
     */
};

/* One token of set_ftrace_filter/notrace (lock held). */
static int ftrace_token(struct ff_open *ff, char *tok)
{
	char *next = tok, *func = strsep(&next, ":"), *cmd;
	int ret;

	if (!next) {
		ret = match_records(ff, func, NULL);
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

	if (tfs_parse_regex(tok, &g, &not ) == MATCH_INDEX) {
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
		if (!tfs_glob_hit(tfs_ft.funcs[id].name, &g))
			continue;
		if (!not ) {
			fail = 0;
			if (set_put(ff, id, true))
				return -ENOMEM;
		} else if (set_has(ff, id)) {
			ff->set[id] = 0;
			fail = 0;
		}
	}
	return fail ? -EINVAL : 0;
}

static int process_token(struct ff_open *ff)
{
	char tok[FF_TOKEN_MAX]; /* parsing cuts it; error_log shows ff->tok whole */
	int ret;

	ff->tok[ff->len] = '\0';
	memcpy(tok, ff->tok, ff->len + 1);
	ff->why = NULL;
	pthread_mutex_lock(&tfs_ft_lock);
	if (ff->which == TFS_FILTER_TRACE || ff->which == TFS_FILTER_NOTRACE)
		ret = ftrace_token(ff, tok);
	else
		ret = graph_token(ff, tok);
	pthread_mutex_unlock(&tfs_ft_lock);
	ff->len = 0;
	return ret;
}

void tfs_ft_apply_mods_locked(unsigned int fobj)
{
	const char *name = tfs_ft.objs[fobj].mod;

	for (int l = 0; l < 2; l++) {
		enum tfs_filter which = l ? TFS_FILTER_NOTRACE : TFS_FILTER_TRACE;
		struct ff_open ff = {.which = which};

		for (unsigned int i = 0; i < tfs_ft.nr_mods[l];) {
			struct tfs_ft_mod *m = &tfs_ft.mods[l][i];

			if (strcmp(m->mod, name)) {
				i++;
				continue;
			}
			/* the kernel's process_mod_list: run it against the new object, drop it */
			char *func = strdup(strcmp(m->func, "") ? m->func : "*");
			char *mod = strdup(m->mod);

			if (func && mod)
				match_records(&ff, func, mod);
			free(func);
			free(mod);
			free(m->func);
			free(m->mod);
			memmove(m, m + 1, (tfs_ft.nr_mods[l] - i - 1) * sizeof(*m));
			tfs_ft.nr_mods[l]--;
		}
		for (unsigned int id = 0; id < ff.n; id++)
			if (ff.set[id])
				tfs_ft.funcs[id].sel |= 1u << which;
		free(ff.set);
	}
}

bool tfs_ft_nonempty_locked(enum tfs_filter f)
{
	for (uint32_t id = 0; id < tfs_ft.nr_funcs; id++)
		if (tfs_ft.funcs[id].sel & (1u << f))
			return true;
	/* a cached mod command alone already filters: nothing traced until it loads */
	return f <= TFS_FILTER_NOTRACE && tfs_ft.nr_mods[f] > 0;
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
	ff->which = which;
	ff->writing = (o->flags & O_ACCMODE) != O_RDONLY;
	if (ff->writing) {
		pthread_mutex_lock(&tfs_ft_lock);
		ff->n = tfs_ft.nr_funcs;
		ff->set = calloc(ff->n ? ff->n : 1, 1);
		if (ff->set && !(o->flags & O_TRUNC))
			for (unsigned int id = 0; id < ff->n; id++)
				ff->set[id] = tfs_ft.funcs[id].sel >> which & 1;
		if (ff->set && (o->flags & O_TRUNC) && which <= TFS_FILTER_NOTRACE) {
			/* the kernel clears the cached mod commands at open */
			for (unsigned int i = 0; i < tfs_ft.nr_mods[which]; i++) {
				free(tfs_ft.mods[which][i].func);
				free(tfs_ft.mods[which][i].mod);
			}
			tfs_ft.nr_mods[which] = 0;
		}
		pthread_mutex_unlock(&tfs_ft_lock);
		if (!ff->set) {
			free(ff);
			return -ENOMEM;
		}
	}
	o->priv = ff;
	return 0;
}

int tfs_ft_show(enum tfs_filter which, struct tfs_buf *b)
{
	bool graph = which >= TFS_FILTER_GRAPH, any = false;
	int err = 0;

	pthread_mutex_lock(&tfs_ft_lock);
	for (unsigned int i = 0; i < tfs_ft.nr_objs && !err; i++) {
		const struct tfs_ft_obj *ob = &tfs_ft.objs[i];

		for (unsigned int j = 0; j < ob->n && !err; j++) {
			const struct tfs_ft_func *f = &tfs_ft.funcs[ob->funcs[j]];

			if (!(f->sel >> which & 1))
				continue;
			any = true;
			err = graph || ob->exe ? tfs_buf_printf(b, "%s\n", f->name)
					       : tfs_buf_printf(b, "%s [%s]\n", f->name, ob->mod);
		}
	}
	if (!any && !err)
		err = tfs_buf_printf(b, which == TFS_FILTER_TRACE || which == TFS_FILTER_GRAPH
					    ? "#### all functions enabled ####\n"
					    : "#### no functions disabled ####\n");
	for (unsigned int i = 0; !graph && i < tfs_ft.nr_mods[which] && !err; i++) {
		const struct tfs_ft_mod *m = &tfs_ft.mods[which][i];

		err = tfs_buf_printf(b, "%s:mod:%s\n", m->func[0] ? m->func : "*", m->mod);
	}
	if (which == TFS_FILTER_TRACE && !err)
		err = tfs_probes_show_locked(b);
	pthread_mutex_unlock(&tfs_ft_lock);
	return err;
}

static int ff_show(struct tfs_open *o)
{
	return tfs_ft_show(which_of(o), &o->content);
}

/* A failed token: the error_log line names the file and the token. */
static void log_failed(const struct ff_open *ff)
{
	static const char *const files[] = {
	    [TFS_FILTER_TRACE] = "set_ftrace_filter",
	    [TFS_FILTER_NOTRACE] = "set_ftrace_notrace",
	    [TFS_FILTER_GRAPH] = "set_graph_function",
	    [TFS_FILTER_GRAPH_NOTRACE] = "set_graph_notrace",
	};

	tfs_error_log(files[ff->which],
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

/* A write to set_ftrace_filter starts: the probes' working copy. */
static int probes_begin(struct ff_open *ff)
{
	int err;

	if (ff->which != TFS_FILTER_TRACE)
		return 0;
	pthread_mutex_lock(&probe_write_lock);
	pthread_mutex_lock(&tfs_ft_lock);
	err = tfs_probes_copy(&ff->probes, &tfs_ft.probes);
	pthread_mutex_unlock(&tfs_ft_lock);
	if (err) {
		tfs_probes_free(&ff->probes);
		pthread_mutex_unlock(&probe_write_lock);
	}
	return err;
}

/* It ends: when ok, the copy becomes the probes (-ENOSPC: out of counters). */
static int probes_end(struct ff_open *ff, bool ok)
{
	int err = 0;

	if (ff->which != TFS_FILTER_TRACE)
		return 0;
	if (ok) {
		pthread_mutex_lock(&tfs_ft_lock);
		err = tfs_probes_commit_locked(&ff->probes);
		pthread_mutex_unlock(&tfs_ft_lock);
	}
	tfs_probes_free(&ff->probes);
	pthread_mutex_unlock(&probe_write_lock);
	return err;
}

/* One write, all or nothing: a failed token takes back the write's other tokens. */
ssize_t tfs_ft_write(void *priv, const char *buf, size_t size)
{
	struct ff_open *ff = priv;
	unsigned int n = ff->n;
	uint8_t *before = malloc(n ? n : 1);
	ssize_t ret;

	if (!before)
		return -ENOMEM;
	memcpy(before, ff->set, n);
	ret = probes_begin(ff);
	if (!ret) {
		ret = write_tokens(ff, buf, size);
		if (ret >= 0) {
			int err = probes_end(ff, true);

			if (err) {
				tfs_error_log("set_ftrace_filter", "Too many probes", "", 0);
				ret = err;
			}
		} else {
			probes_end(ff, false);
		}
	}
	if (ret < 0) {
		memset(ff->set, 0, ff->n); /* set_put may have grown it */
		memcpy(ff->set, before, n);
		ff->len = 0;
		ff->bad = true;
	} else {
		ff->good = true;
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
	tfs_sel_publish();
	tfs_apply();
	return ret;
}

/* Make the private copy the filter; true when it changed. */
static bool commit(struct ff_open *ff)
{
	bool changed = false;

	pthread_mutex_lock(&tfs_ft_lock);
	for (uint32_t id = 0; id < tfs_ft.nr_funcs; id++) {
		struct tfs_ft_func *f = &tfs_ft.funcs[id];
		uint8_t sel = (uint8_t)((f->sel & ~(1u << ff->which)) |
					(set_has(ff, id) ? 1u << ff->which : 0));

		changed |= sel != f->sel;
		f->sel = sel;
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
	}
	if (ff)
		free(ff->set);
	free(ff);
	return changed;
}

void *tfs_ft_open_priv(enum tfs_filter which, bool trunc)
{
	struct tfs_file f = {.arg = which};
	struct tfs_open o = {.file = &f, .flags = O_WRONLY | (trunc ? O_TRUNC : 0)};

	return ff_open(&o) ? NULL : o.priv;
}

static int ff_release(struct tfs_open *o)
{
	struct ff_open *ff = o->priv;
	bool pending = ff && ff->writing && ff->len, changed;

	changed = tfs_ft_close(ff);
	o->priv = NULL;
	/* a last token may have changed the mod commands even when no function changed */
	if (changed || pending) {
		tfs_sel_publish();
		tfs_apply();
	}
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
