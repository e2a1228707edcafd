// SPDX-License-Identifier: MIT
/*
 * options.c - trace_options and options/NAME: the core options (the kernel's
 * order and boot defaults), every tracer's own options, and what changing one
 * does.
 *
 * Everything here is per instance (the kernel's trace_array): core options are
 * bits of inst->opts.  A tracer's options belong to the tracer, as in the
 * kernel: options/func_stack_trace can be set while nop is current and the
 * function tracer finds it set when it becomes current.  So the values of every
 * tracer are kept (inst->tracer_vals), and inst->tracer_opts mirrors those of the
 * current tracer for code that reads the field.  An instance starts with the
 * kernel's defaults for instances: trace_printk_dest and copy_trace_marker off.
 *
 * The two ways of writing behave differently, as in the kernel:
 *   trace_options   "NAME" or "noNAME"; core options first, then the current
 *                   tracer's; anything else EINVAL.  A tracer's set_opt hook is
 *                   asked even when the value does not change.
 *   options/NAME    "0" or "1" only; nothing happens when the value is the same.
 * What the rest of utracefs must learn of a change: overwrite switches every ring's
 * mode without emptying it (the kernel does not clear the buffer either);
 * trace_printk, function-trace and the tracers' options are published to the
 * processes (tfs_apply), since the runtime acts on them.
 */
#include <errno.h>
#include <string.h>

#include "functab.h"
#include "settings.h"
#include "tfs.h"

const struct tfs_opt_def tfs_core_opts[TFS_OPT_NR] = {
	[TFS_OPT_PRINT_PARENT] = {"print-parent", true},
	[TFS_OPT_SYM_OFFSET] = {"sym-offset", false},
	[TFS_OPT_SYM_ADDR] = {"sym-addr", false},
	[TFS_OPT_VERBOSE] = {"verbose", false},
	[TFS_OPT_RAW] = {"raw", false},
	[TFS_OPT_HEX] = {"hex", false},
	[TFS_OPT_BIN] = {"bin", false},
	[TFS_OPT_BLOCK] = {"block", false},
	[TFS_OPT_FIELDS] = {"fields", false},
	[TFS_OPT_TRACE_PRINTK] = {"trace_printk", true},
	[TFS_OPT_ANNOTATE] = {"annotate", true},
	[TFS_OPT_USERSTACKTRACE] = {"userstacktrace", false},
	[TFS_OPT_SYM_USEROBJ] = {"sym-userobj", false},
	[TFS_OPT_PRINTK_MSG_ONLY] = {"printk-msg-only", false},
	[TFS_OPT_CONTEXT_INFO] = {"context-info", true},
	[TFS_OPT_LATENCY_FORMAT] = {"latency-format", false},
	[TFS_OPT_RECORD_CMD] = {"record-cmd", true},
	[TFS_OPT_RECORD_TGID] = {"record-tgid", false},
	[TFS_OPT_OVERWRITE] = {"overwrite", true},
	[TFS_OPT_DISABLE_ON_FREE] = {"disable_on_free", false},
	[TFS_OPT_IRQ_INFO] = {"irq-info", true},
	[TFS_OPT_MARKERS] = {"markers", true},
	[TFS_OPT_EVENT_FORK] = {"event-fork", false},
	[TFS_OPT_TRACE_PRINTK_DEST] = {"trace_printk_dest", true},
	[TFS_OPT_COPY_TRACE_MARKER] = {"copy_trace_marker", true},
	[TFS_OPT_PAUSE_ON_TRACE] = {"pause-on-trace", false},
	[TFS_OPT_HASH_PTR] = {"hash-ptr", true},
	[TFS_OPT_FUNCTION_TRACE] = {"function-trace", true},
	[TFS_OPT_FUNCTION_FORK] = {"function-fork", false},
	[TFS_OPT_STACKTRACE] = {"stacktrace", false},
};

/* the kernel's trace_options write buffer: 64 bytes, NUL included */
#define OPT_WRITE_MAX 64
#define MAX_TRACERS TFS_MAX_TRACERS
#define MAX_OPTION_FILES 128

static pthread_once_t opts_once = PTHREAD_ONCE_INIT;
static uint64_t tracer_defs[MAX_TRACERS]; /* each tracer's default option bits */
static unsigned int nr_tracers;

/* options/ listing: index -> (tracer or -1 for core, option index) */
struct opt_file {
	const char *name;
	int tracer;
	unsigned int idx;
};
static struct opt_file opt_files[MAX_OPTION_FILES];
static unsigned int nr_opt_files;
static bool tgid_recorded; /* record-tgid was set once (in any instance) */

static void add_opt_file(const char *name, int tracer, unsigned int idx)
{
	if (nr_opt_files == MAX_OPTION_FILES)
		return;
	/* two tracers may offer the same name: the kernel makes one file */
	for (unsigned int i = 0; i < nr_opt_files; i++)
		if (strcmp(opt_files[i].name, name) == 0)
			return;
	opt_files[nr_opt_files++] = (struct opt_file){name, tracer, idx};
}

static void opts_init(void)
{
	for (unsigned int i = 0; i < TFS_OPT_NR; i++)
		add_opt_file(tfs_core_opts[i].name, -1, i);
	for (nr_tracers = 0; nr_tracers < MAX_TRACERS && tfs_tracers[nr_tracers]; nr_tracers++) {
		const struct tracer *t = tfs_tracers[nr_tracers];

		for (unsigned int i = 0; t->opts && t->opts[i].name && i < 64; i++) {
			if (t->opts[i].def)
				tracer_defs[nr_tracers] |= 1ull << i;
			add_opt_file(t->opts[i].name, (int)nr_tracers, i);
		}
	}
}

static int tracer_index(const struct tracer *t)
{
	pthread_once(&opts_once, opts_init);
	for (unsigned int i = 0; i < nr_tracers; i++)
		if (tfs_tracers[i] == t)
			return (int)i;
	return -1;
}

static int tracer_opt_index(const struct tracer *t, const char *name)
{
	for (unsigned int i = 0; t && t->opts && t->opts[i].name && i < 64; i++)
		if (strcmp(t->opts[i].name, name) == 0)
			return (int)i;
	return -1;
}

static const struct tracer *current_tracer(const struct tfs_instance *inst)
{
	return __atomic_load_n(&inst->tracer, __ATOMIC_ACQUIRE);
}

/* ---- what the rest of utracefs asks ---------------------------------------------- */

bool tfs_opt(const struct tfs_instance *inst, enum tfs_opt o)
{
	return (__atomic_load_n(&inst->opts, __ATOMIC_RELAXED) >> o) & 1;
}

/* No lock: called from tfs_apply() and tfs_publish_locked() (tfs.lock may be held). */
bool tfs_tracer_opt(const struct tfs_instance *inst, const char *name)
{
	const struct tracer *t = current_tracer(inst);
	int ti = tracer_index(t), oi = tracer_opt_index(t, name);

	if (ti < 0 || oi < 0)
		return false;
	return (__atomic_load_n(&inst->tracer_vals[ti], __ATOMIC_RELAXED) >> oi) & 1;
}

uint64_t tfs_tracer_opts_of(const struct tfs_instance *inst, const struct tracer *t)
{
	int ti = tracer_index(t);

	return ti < 0 ? 0 : __atomic_load_n(&inst->tracer_vals[ti], __ATOMIC_RELAXED);
}

void tfs_opts_init(struct tfs_instance *inst, bool top)
{
	pthread_once(&opts_once, opts_init);
	inst->opts = tfs_opts_default();
	if (!top)
		inst->opts &= ~(1ull << TFS_OPT_TRACE_PRINTK_DEST | 1ull << TFS_OPT_COPY_TRACE_MARKER);
	memcpy(inst->tracer_vals, tracer_defs, sizeof(inst->tracer_vals));
	inst->tracer_opts = tfs_tracer_opts_of(inst, inst->tracer);
}

uint64_t tfs_opts_default(void)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < TFS_OPT_NR; i++)
		if (tfs_core_opts[i].def)
			v |= 1ull << i;
	return v;
}

bool tfs_opt_tgid_recorded(void)
{
	return __atomic_load_n(&tgid_recorded, __ATOMIC_RELAXED) ||
	       tfs_opt(&tfs_top, TFS_OPT_RECORD_TGID);
}

int tfs_opt_find(const char *name)
{
	for (unsigned int i = 0; i < TFS_OPT_NR; i++)
		if (strcmp(tfs_core_opts[i].name, name) == 0)
			return (int)i;
	return -1;
}

const char *tfs_option_file_name(unsigned int i)
{
	pthread_once(&opts_once, opts_init);
	return i < nr_opt_files ? opt_files[i].name : NULL;
}

/* Core options the kernel keeps for the top level only (no file in an instance). */
static bool top_only_opt(const struct opt_file *f)
{
	return f->tracer < 0 && (f->idx == TFS_OPT_PRINTK_MSG_ONLY || f->idx == TFS_OPT_RECORD_CMD ||
				 f->idx == TFS_OPT_TRACE_PRINTK);
}

const char *tfs_inst_option_file_name(unsigned int i)
{
	pthread_once(&opts_once, opts_init);
	if (i >= nr_opt_files)
		return NULL;
	return top_only_opt(&opt_files[i]) ? "" : opt_files[i].name;
}

/* ---- parsing ---------------------------------------------------------------------- */

int tfs_opt_parse(const char *buf, size_t size, char *name, size_t namesize, bool *neg)
{
	char text[OPT_WRITE_MAX];

	if (size >= OPT_WRITE_MAX)
		return -EINVAL;
	if (tfs_strip(buf, size, text, sizeof(text)) < 0)
		return -EINVAL;
	*neg = strncmp(text, "no", 2) == 0;
	const char *s = text + (*neg ? 2 : 0);

	/* an empty name matches nothing: the kernel answers EINVAL too */
	if (!*s || strlen(s) >= namesize)
		return -EINVAL;
	strcpy(name, s);
	return 0;
}

int tfs_opt_parse_bool(const char *buf, size_t size, bool *val)
{
	unsigned long v;
	int err = tfs_parse_ulong(buf, size, &v);

	if (err)
		return err;
	if (v > 1)
		return -EINVAL;
	*val = v;
	return 0;
}

/* ---- changing options -------------------------------------------------------------- */

void tfs_printk_dest_locked(unsigned int slot)
{
	uint64_t bit = 1ull << TFS_OPT_TRACE_PRINTK_DEST;

	for (unsigned int i = 0; i < UT_INST_MAX; i++) {
		struct tfs_instance *in = tfs_inst_of_slot(i);

		if (in)
			__atomic_store_n(&in->opts, i == slot ? in->opts | bit : in->opts & ~bit,
					 __ATOMIC_RELAXED);
	}
	tfs.printk_slot = slot;
}

/*
 * Set core option o of inst.  The kernel refuses to clear trace_printk_dest of the
 * top instance (where trace_printk output goes); an unchanged value is a no-op.
 */
static int set_core_opt(struct tfs_instance *inst, unsigned int o, bool on)
{
	uint64_t bit = 1ull << o;

	tfs_lock();
	bool was = inst->opts & bit;

	if (was == on) {
		tfs_unlock();
		return 0;
	}
	if (o == TFS_OPT_TRACE_PRINTK_DEST) {
		/* one instance has it: setting moves it there, clearing it back to the top */
		if (!on && inst == &tfs_top) {
			tfs_unlock();
			return -EINVAL;
		}
		tfs_printk_dest_locked(on ? inst->slot : 0);
		tfs_unlock();
		tfs_apply(&tfs_top); /* the runtime reads the slot on the top's page */
		return 0;
	}
	__atomic_store_n(&inst->opts, on ? inst->opts | bit : inst->opts & ~bit, __ATOMIC_RELAXED);
	if (o == TFS_OPT_RECORD_TGID && on)
		__atomic_store_n(&tgid_recorded, true, __ATOMIC_RELAXED);
	tfs_unlock();

	if (o == TFS_OPT_OVERWRITE)
		tfs_ring_set_overwrite(inst, on);
	else if (o == TFS_OPT_TRACE_PRINTK || o == TFS_OPT_FUNCTION_TRACE)
		tfs_apply(inst); /* options the runtime acts on (state.c publishes them) */
	else if (o == TFS_OPT_EVENT_FORK || o == TFS_OPT_FUNCTION_FORK)
		tfs_sel_publish_all(); /* new threads tell utracefs, and keep their creator's answer */
	return 0;
}

/*
 * Set option oi of tracer ti.  The tracer's set_opt may refuse (the kernel's nop
 * tracer refuses test_nop_refuse).  always_ask: trace_options asks the tracer
 * even when nothing changes, options/NAME does not.
 */
static int set_tracer_opt(struct tfs_instance *inst, unsigned int ti, unsigned int oi, bool on,
			  bool always_ask)
{
	const struct tracer *t = tfs_tracers[ti];
	uint64_t bit = 1ull << oi;
	bool is_current;
	int err = 0;

	tfs_lock();
	bool was = inst->tracer_vals[ti] & bit;

	if (was == on && !always_ask)
		goto out;
	if (t->set_opt) {
		err = t->set_opt(oi, on); /* called with tfs.lock held */
		if (err)
			goto out;
	}
	if (was == on)
		goto out;
	__atomic_store_n(&inst->tracer_vals[ti],
			 on ? inst->tracer_vals[ti] | bit : inst->tracer_vals[ti] & ~bit,
			 __ATOMIC_RELAXED);
	is_current = inst->tracer == t;
	if (is_current)
		inst->tracer_opts = inst->tracer_vals[ti];
	tfs_unlock();
	if (is_current)
		tfs_apply(inst); /* e.g. func_stack_trace: the runtime writes stack events */
	return 0;
out:
	tfs_unlock();
	return err;
}

/* ---- trace_options ----------------------------------------------------------------- */

static int trace_options_show(struct tfs_open *o)
{
	struct tfs_instance *inst = o->inst;
	const struct tracer *t = current_tracer(inst);
	int ti = tracer_index(t);
	int err = 0;

	for (unsigned int i = 0; i < TFS_OPT_NR && !err; i++)
		err = tfs_buf_printf(&o->content, "%s%s\n", tfs_opt(inst, i) ? "" : "no",
				     tfs_core_opts[i].name);
	for (unsigned int i = 0; ti >= 0 && t->opts && t->opts[i].name && i < 64 && !err; i++)
		err = tfs_buf_printf(&o->content, "%s%s\n",
				     (inst->tracer_vals[ti] >> i) & 1 ? "" : "no", t->opts[i].name);
	return err;
}

static ssize_t trace_options_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	char name[OPT_WRITE_MAX];
	bool neg;
	int err = tfs_opt_parse(buf, size, name, sizeof(name), &neg);

	if (err)
		return err;
	int i = tfs_opt_find(name);

	if (i >= 0) {
		err = set_core_opt(o->inst, (unsigned int)i, !neg);
	} else {
		const struct tracer *t = current_tracer(o->inst);
		int ti = tracer_index(t), oi = tracer_opt_index(t, name);

		if (ti < 0 || oi < 0)
			return -EINVAL;
		err = set_tracer_opt(o->inst, (unsigned int)ti, (unsigned int)oi, !neg, true);
	}
	return err ? err : (ssize_t)size;
}

const struct tfs_file_ops tfs_trace_options_ops = {
	.show = trace_options_show,
	.write = trace_options_write,
	.seek = TFS_SEEK_SEQ,
};

/* ---- options/NAME ------------------------------------------------------------------- */

static const struct opt_file *opt_file_of(const struct tfs_open *o)
{
	pthread_once(&opts_once, opts_init);
	if (o->cpu < 0 || (unsigned int)o->cpu >= nr_opt_files)
		return NULL;
	return &opt_files[o->cpu];
}

/*
 * The tracer option a file stands for.  A name several tracers offer has one
 * file (the kernel makes one too); utrace's demangle (function and
 * function_graph) is such a name, and the file acts on the current tracer's
 * option when that tracer has one by the name, else on the first tracer's.
 */
static void opt_file_target(const struct tfs_instance *inst, const struct opt_file *f,
			    unsigned int *ti, unsigned int *oi)
{
	const struct tracer *t = current_tracer(inst);
	int cur = tracer_index(t), i = tracer_opt_index(t, f->name);

	*ti = (unsigned int)f->tracer;
	*oi = f->idx;
	if (cur >= 0 && i >= 0) {
		*ti = (unsigned int)cur;
		*oi = (unsigned int)i;
	}
}

static bool opt_file_value(const struct tfs_instance *inst, const struct opt_file *f)
{
	unsigned int ti, oi;

	if (f->tracer < 0)
		return tfs_opt(inst, f->idx);
	opt_file_target(inst, f, &ti, &oi);
	return (__atomic_load_n(&inst->tracer_vals[ti], __ATOMIC_RELAXED) >> oi) & 1;
}

static int option_file_show(struct tfs_open *o)
{
	const struct opt_file *f = opt_file_of(o);

	if (!f)
		return -ENOENT;
	return tfs_buf_printf(&o->content, "%d\n", opt_file_value(o->inst, f));
}

static ssize_t option_file_write(struct tfs_open *o, const char *buf, size_t size, off_t off)
{
	const struct opt_file *f = opt_file_of(o);
	bool on;
	int err;

	if (!f)
		return -ENOENT;
	err = tfs_opt_parse_bool(buf, size, &on);
	if (err)
		return err;
	if (f->tracer < 0) {
		err = set_core_opt(o->inst, f->idx, on);
	} else {
		unsigned int ti, oi;

		opt_file_target(o->inst, f, &ti, &oi);
		err = set_tracer_opt(o->inst, ti, oi, on, false);
	}
	return err ? err : (ssize_t)size;
}

const struct tfs_file_ops tfs_option_file_ops = {
	.show = option_file_show,
	.write = option_file_write,
};
