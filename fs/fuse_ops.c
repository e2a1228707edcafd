// SPDX-License-Identifier: MIT
/*
 * fuse_ops.c - FUSE glue: paths -> entries of the table (files.c) -> their ops.
 *
 * High-level libfuse3 API, multi-threaded loop (trace_pipe readers block in
 * read).  Every file is direct_io with size 0, like tracefs: content made by
 * ops->show at open is what reads return; trace_pipe* is not seekable.  O_TRUNC
 * reaches open itself (FUSE_CAP_ATOMIC_O_TRUNC), so `echo > trace` clears in the
 * same call; truncate(2) of a tracefs file changes nothing, as in the kernel.
 * What the kernel's tracefs refuses gets its errno: create EACCES, mkdir, rmdir,
 * unlink, rename, links and mknod EPERM, write without a write op EINVAL; mkdir
 * and rmdir work in instances/ only (instance.c).  A path below instances/NAME
 * names that instance's tree: the open file gets the instance and holds a
 * reference on it until its release.
 * chmod and chown work as in tracefs: they change what stat shows.
 *
 * lseek: FUSE serves SEEK_SET and SEEK_CUR itself and never passes a zero-byte
 * write(2) on; for SEEK_END (and SEEK_DATA, SEEK_HOLE) it asks for the size with
 * a getattr that carries the file handle, which no attribute cache may answer
 * (attr_timeout 0): that getattr gives the EINVAL of the kernel's seq_lseek
 * (ops->seek).  libfuse makes the same kind of getattr to answer a setattr on an
 * open file (ftruncate, futimens), which must succeed: setattr_reply tells them
 * apart.
 */
#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 12)
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "tfs.h"

/*
 * What a path names: the entry, the index of a dynamic entry (cpuN: N), the
 * entry's name, and the instance it belongs to (inst NULL: the top).
 */
struct tfs_node {
	const struct tfs_file *f;
	int cpu;
	const char *name;
	struct tfs_inst_ref ref;
};

/* One open file: what the ops see, plus FUSE's bookkeeping. */
struct tfs_fh {
	struct tfs_open o;
	struct tfs_file file; /* the entry, named as opened (options/NAME) */
	struct fuse_pollhandle *ph;
	struct tfs_fh *prev, *next;
};

static pthread_mutex_t fh_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tfs_fh *open_files;
static uint64_t next_fh_id = 1;
static struct timespec mount_time;

/* chmod/chown results, per path (tracefs keeps them in its inodes) */
struct tfs_attr {
	char *path;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	struct tfs_attr *next;
};
static struct tfs_attr *attrs;

/* set by a setattr op that succeeded: libfuse's getattr that follows is its reply */
static __thread bool setattr_reply;
/* the thread whose read or write this FUSE thread serves (tfs_caller) */
static __thread pid_t caller_tid;

pid_t tfs_caller(const struct tfs_open *o)
{
	return caller_tid > 0 ? caller_tid : o->pid;
}

/*
 * Whether entry c of dir is there: an entry of the root table is at the top
 * (in_inst false) or in an instance as its .inst says; any other always is.
 */
static bool in_scope(const struct tfs_file *dir, const struct tfs_file *c, bool in_inst)
{
	if (dir->children != tfs_root.children)
		return true;
	return in_inst ? c->inst != 0 : c->inst != TFS_INST_ONLY;
}

static const struct tfs_file *child(const struct tfs_file *dir, const char *name, size_t len,
				    int *index, const char **dname, bool in_inst, int parent)
{
	for (const struct tfs_file *c = dir->children; c && c->name; c++)
		if (in_scope(dir, c, in_inst) && strlen(c->name) == len &&
		    memcmp(c->name, name, len) == 0) {
			*dname = c->name;
			return c;
		}
	if (dir->dyn_name && len) { /* "" is a hidden entry */
		const char *n;

		for (unsigned int i = 0; (n = dir->dyn_name(i)); i++)
			if (strlen(n) == len && memcmp(n, name, len) == 0) {
				*index = (int)i;
				*dname = n;
				return dir->dyn_template;
			}
	}
	if (dir->dyn_entry && len) {
		const char *n;
		int idx;

		for (unsigned int i = 0; (n = dir->dyn_entry(parent, i, &idx)); i++)
			if (strlen(n) == len && memcmp(n, name, len) == 0) {
				*index = idx;
				*dname = n;
				return dir->dyn_template;
			}
	}
	return NULL;
}

static int resolve(const char *path, struct tfs_node *node)
{
	const struct tfs_file *f = &tfs_root;
	const char *p = path;

	node->cpu = -1;
	node->name = tfs_root.name;
	node->ref.inst = NULL;
	node->ref.gen = 0;
	while (*p) {
		size_t len;
		int index = -1;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		len = strcspn(p, "/");
		if (f->kind != TFS_DIR)
			return -ENOTDIR;
		if (f->arg == TFS_ARG_INSTANCES) {
			int err = tfs_inst_lookup(p, len, &node->ref);

			if (err)
				return err;
			node->name = node->ref.inst->name;
			f = f->dyn_template;
			p += len;
			continue;
		}
		f = child(f, p, len, &index, &node->name, node->ref.inst != NULL, node->cpu);
		if (!f)
			return -ENOENT;
		if (index >= 0)
			node->cpu =
			    index; /* per_cpu/cpuN (and below): N; options/NAME: its index */
		p += len;
	}
	node->f = f;
	return 0;
}

static unsigned int nr_subdirs(const struct tfs_file *dir, bool in_inst, int parent)
{
	unsigned int n = 0;
	int idx;

	for (const struct tfs_file *c = dir->children; c && c->name; c++)
		n += c->kind == TFS_DIR && in_scope(dir, c, in_inst);
	if (dir->dyn_name && dir->dyn_template->kind == TFS_DIR)
		for (unsigned int i = 0; dir->dyn_name(i); i++)
			n++;
	if (dir->dyn_entry && dir->dyn_template->kind == TFS_DIR)
		for (unsigned int i = 0; dir->dyn_entry(parent, i, &idx); i++)
			n++;
	return n;
}

static struct tfs_fh *fh_of(struct fuse_file_info *fi)
{
	return (struct tfs_fh *)(uintptr_t)fi->fh;
}

/* lseek(fd, off, SEEK_END) on an open file: the kernel's seq_lseek refuses it. */
static int seek_end(struct fuse_file_info *fi)
{
	const struct tfs_fh *fh = fh_of(fi);

	switch (fh->file.ops->seek) {
	case TFS_SEEK_SEQ:
		return -EINVAL;
	case TFS_SEEK_SEQ_READ:
		return (fh->o.flags & O_ACCMODE) != O_WRONLY ? -EINVAL : 0;
	default:
		return 0;
	}
}

static int tfs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct tfs_node node;
	bool reply = setattr_reply;
	int err;

	setattr_reply = false;
	if (fi && fi->fh && !reply && (err = seek_end(fi)))
		return err;
	err = resolve(path, &node);
	if (err)
		return err;
	memset(st, 0, sizeof(*st));
	st->st_uid = getuid();
	st->st_gid = getgid();
	if (node.f->kind == TFS_DIR) {
		st->st_mode = S_IFDIR | node.f->mode;
		st->st_nlink = 2 + nr_subdirs(node.f, node.ref.inst != NULL, node.cpu);
	} else {
		st->st_mode = S_IFREG | node.f->mode;
		st->st_nlink = 1;
	}
	st->st_atim = st->st_mtim = st->st_ctim = mount_time;
	pthread_mutex_lock(&fh_lock);
	for (struct tfs_attr *a = attrs; a; a = a->next)
		if (strcmp(a->path, path) == 0) {
			st->st_mode = (st->st_mode & S_IFMT) | a->mode;
			st->st_uid = a->uid;
			st->st_gid = a->gid;
		}
	pthread_mutex_unlock(&fh_lock);
	return 0;
}

static int set_attr(const char *path, mode_t mode, uid_t uid, gid_t gid)
{
	struct stat st;
	struct tfs_attr *a;
	int err = tfs_getattr(path, &st, NULL);

	if (err)
		return err;
	pthread_mutex_lock(&fh_lock);
	for (a = attrs; a && strcmp(a->path, path); a = a->next)
		;
	if (!a) {
		a = calloc(1, sizeof(*a));
		if (!a || !(a->path = strdup(path))) {
			free(a);
			pthread_mutex_unlock(&fh_lock);
			return -ENOMEM;
		}
		a->next = attrs;
		attrs = a;
	}
	a->mode = mode != (mode_t)-1 ? mode & 07777 : st.st_mode & 07777;
	a->uid = uid != (uid_t)-1 ? uid : st.st_uid;
	a->gid = gid != (gid_t)-1 ? gid : st.st_gid;
	pthread_mutex_unlock(&fh_lock);
	setattr_reply = true;
	return 0;
}

static int tfs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	return set_attr(path, mode, (uid_t)-1, (gid_t)-1);
}

static int tfs_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	return set_attr(path, (mode_t)-1, uid, gid);
}

static int tfs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		       struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct tfs_node node;
	int idx, err = resolve(path, &node);
	const char *n;

	if (err)
		return err;
	if (node.f->kind != TFS_DIR)
		return -ENOTDIR;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	for (const struct tfs_file *c = node.f->children; c && c->name; c++)
		if (in_scope(node.f, c, node.ref.inst != NULL))
			fill(buf, c->name, NULL, 0, 0);
	for (unsigned int i = 0; node.f->dyn_name && (n = node.f->dyn_name(i)); i++)
		if (*n)
			fill(buf, n, NULL, 0, 0);
	for (unsigned int i = 0; node.f->dyn_entry && (n = node.f->dyn_entry(node.cpu, i, &idx));
	     i++)
		if (*n)
			fill(buf, n, NULL, 0, 0);
	return 0;
}

static void fh_free(struct tfs_fh *fh)
{
	tfs_inst_put(fh->o.inst);
	tfs_buf_free(&fh->o.content);
	tfs_buf_free(&fh->o.wbuf);
	free(fh);
}

static int tfs_open_file(const char *path, struct fuse_file_info *fi)
{
	const struct tfs_file_ops *ops;
	struct tfs_node node;
	struct tfs_fh *fh;
	int acc = fi->flags & O_ACCMODE, err = resolve(path, &node);

	if (err)
		return err;
	if (node.f->kind == TFS_DIR)
		return -EISDIR;
	/* what programs sent before this open (sites, maps, exits) is known to it */
	tfs_registry_sync(2000);
	fh = calloc(1, sizeof(*fh));
	if (!fh)
		return -ENOMEM;
	fh->file = *node.f;
	fh->file.name = node.name;
	fh->o.file = &fh->file;
	err = tfs_inst_get(&node.ref);
	if (err) {
		free(fh);
		return err;
	}
	fh->o.inst = node.ref.inst ? node.ref.inst : &tfs_top;
	fh->o.cpu = node.cpu;
	fh->o.flags = fi->flags;
	fh->o.pid = fuse_get_context()->pid;
	ops = fh->file.ops;

	if (ops->open && (err = ops->open(&fh->o)))
		goto fail;
	/* the kernel's tracefs clears before it builds what reads will return */
	if ((fi->flags & O_TRUNC) && acc != O_RDONLY && ops->truncate &&
	    (err = ops->truncate(&fh->o)))
		goto fail_release;
	if (acc != O_WRONLY && ops->show && (err = ops->show(&fh->o)))
		goto fail_release;

	pthread_mutex_lock(&fh_lock);
	fh->o.fh_id = next_fh_id++;
	fh->next = open_files;
	if (open_files)
		open_files->prev = fh;
	open_files = fh;
	pthread_mutex_unlock(&fh_lock);

	fi->fh = (uint64_t)(uintptr_t)fh;
	fi->direct_io = 1;
	fi->keep_cache = 0;
	if (ops->seek == TFS_SEEK_NONE)
		fi->nonseekable = 1;
	return 0;
fail_release:
	if (ops->release)
		ops->release(&fh->o);
fail:
	fh_free(fh);
	return err < 0 ? err : -EIO;
}

static int tfs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct tfs_fh *fh = fh_of(fi);
	const struct tfs_buf *c = &fh->o.content;

	/*
	 * O_NONBLOCK may have been set or cleared with fcntl(F_SETFL) since open:
	 * each read request carries the file's flags of the moment.
	 */
	__atomic_store_n(&fh->o.flags, (fh->o.flags & ~O_NONBLOCK) | (fi->flags & O_NONBLOCK),
			 __ATOMIC_RELAXED);
	if (fh->file.ops->read) {
		int ret;

		caller_tid = fuse_get_context()->pid;
		ret = (int)fh->file.ops->read(&fh->o, buf, size, off);
		caller_tid = 0;
		return ret;
	}
	if (off < 0)
		return -EINVAL;
	if ((size_t)off >= c->len)
		return 0;
	if (size > c->len - (size_t)off)
		size = c->len - (size_t)off;
	memcpy(buf, c->data + off, size);
	return (int)size;
}

static int tfs_write(const char *path, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct tfs_fh *fh = fh_of(fi);
	int ret;

	if (!fh->file.ops->write)
		return -EINVAL;
	caller_tid = fuse_get_context()->pid;
	ret = (int)fh->file.ops->write(&fh->o, buf, size, off);
	caller_tid = 0;
	return ret;
}

/* tests: UTRACEFS_TEST_RELEASE_DELAY_MS makes every release late, as FUSE may send it */
static unsigned int release_delay_ms;

static int tfs_release(const char *path, struct fuse_file_info *fi)
{
	struct tfs_fh *fh = fh_of(fi);

	if (release_delay_ms)
		usleep(release_delay_ms * 1000u);

	pthread_mutex_lock(&fh_lock);
	if (fh->prev)
		fh->prev->next = fh->next;
	else
		open_files = fh->next;
	if (fh->next)
		fh->next->prev = fh->prev;
	if (fh->ph)
		fuse_pollhandle_destroy(fh->ph);
	pthread_mutex_unlock(&fh_lock);
	if (fh->file.ops->release)
		fh->file.ops->release(&fh->o);
	fh_free(fh);
	return 0;
}

static int tfs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct tfs_node node;

	int err;

	/* truncate(2) of a tracefs file succeeds and changes nothing */
	err = resolve(path, &node);
	setattr_reply = !err;
	return err;
}

static int tfs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	struct tfs_node node;
	int err = resolve(path, &node);

	setattr_reply = !err;
	return err;
}

static int tfs_poll(const char *path, struct fuse_file_info *fi, struct fuse_pollhandle *ph,
		    unsigned int *reventsp)
{
	struct tfs_fh *fh = fh_of(fi);

	if (ph) {
		pthread_mutex_lock(&fh_lock);
		if (fh->ph)
			fuse_pollhandle_destroy(fh->ph);
		fh->ph = ph;
		pthread_mutex_unlock(&fh_lock);
	}
	if (fh->file.ops->poll)
		*reventsp = fh->file.ops->poll(&fh->o);
	else /* what the VFS answers for a file without poll */
		*reventsp = POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM;
	return 0;
}

void tfs_fuse_poll_wake(void)
{
	pthread_mutex_lock(&fh_lock);
	for (struct tfs_fh *fh = open_files; fh; fh = fh->next) {
		if (!fh->ph)
			continue;
		fuse_notify_poll(fh->ph);
		fuse_pollhandle_destroy(fh->ph);
		fh->ph = NULL;
	}
	pthread_mutex_unlock(&fh_lock);
}

static int tfs_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	return -EACCES;
}

static int tfs_eperm_path(const char *path)
{
	return -EPERM;
}

/* NAME of a path "instances/NAME" (nothing else below), or -EPERM. */
static int instance_path(const char *path, const char **name, size_t *len)
{
	const char *p = path, *q;

	while (*p == '/')
		p++;
	if (strncmp(p, "instances/", 10) != 0)
		return -EPERM;
	p += 10;
	while (*p == '/')
		p++;
	*len = strcspn(p, "/");
	*name = p;
	for (q = p + *len; *q == '/'; q++)
		;
	return *len && !*q ? 0 : -EPERM;
}

/* An instance went: forget the chmod/chown of its paths (a new one starts afresh). */
static void attrs_forget(const char *dir, size_t len)
{
	pthread_mutex_lock(&fh_lock);
	for (struct tfs_attr **pa = &attrs; *pa;) {
		struct tfs_attr *a = *pa;

		if (strncmp(a->path, dir, len) == 0 && (a->path[len] == '\0' || a->path[len] == '/')) {
			*pa = a->next;
			free(a->path);
			free(a);
		} else {
			pa = &a->next;
		}
	}
	pthread_mutex_unlock(&fh_lock);
}

static int tfs_rmdir(const char *path)
{
	const char *name;
	size_t len;
	int err = instance_path(path, &name, &len);

	if (!err)
		err = tfs_inst_rmdir(name, len);
	if (!err)
		attrs_forget(path, (size_t)(name + len - path));
	return err;
}

static int tfs_mknod(const char *path, mode_t mode, dev_t dev)
{
	return -EPERM;
}

static int tfs_mkdir(const char *path, mode_t mode)
{
	const char *name;
	size_t len;
	int err = instance_path(path, &name, &len);

	return err ? err : tfs_inst_mkdir(name, len);
}

static int tfs_link(const char *from, const char *to)
{
	return -EPERM;
}

static int tfs_rename(const char *from, const char *to, unsigned int flags)
{
	return -EPERM;
}

static void *tfs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	cfg->attr_timeout = 0; /* lseek(SEEK_END) must reach tfs_getattr */
	return NULL;
}

static const struct fuse_operations tfs_fuse_ops = {
    .init = tfs_init,
    .getattr = tfs_getattr,
    .readdir = tfs_readdir,
    .open = tfs_open_file,
    .read = tfs_read,
    .write = tfs_write,
    .release = tfs_release,
    .truncate = tfs_truncate,
    .utimens = tfs_utimens,
    .chmod = tfs_chmod,
    .chown = tfs_chown,
    .poll = tfs_poll,
    .create = tfs_create,
    .mknod = tfs_mknod,
    .mkdir = tfs_mkdir,
    .rmdir = tfs_rmdir,
    .unlink = tfs_eperm_path,
    .symlink = tfs_link,
    .link = tfs_link,
    .rename = tfs_rename,
};

struct fuse *tfs_fuse_mount(const char *mountpoint, bool debug, const char *opts)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	char all[1200];
	struct fuse *f;

	clock_gettime(CLOCK_REALTIME, &mount_time);
	/*
	 * Only the owner may use the tree unless opts has allow_other (or allow_root):
	 * then default_permissions has the kernel check the files' modes, which keep
	 * everyone else out until the owner changes them.  A later fsname= wins.
	 */
	if (snprintf(all, sizeof(all), "fsname=utracefs,subtype=utracefs,default_permissions%s",
		     opts ? opts : "") >= (int)sizeof(all))
		return NULL;
	if (fuse_opt_add_arg(&args, "utracefs") || fuse_opt_add_arg(&args, "-o") ||
	    fuse_opt_add_arg(&args, all) || (debug && fuse_opt_add_arg(&args, "-d"))) {
		fuse_opt_free_args(&args);
		return NULL;
	}
	f = fuse_new(&args, &tfs_fuse_ops, sizeof(tfs_fuse_ops), NULL);
	fuse_opt_free_args(&args);
	if (!f)
		return NULL;
	if (fuse_mount(f, mountpoint)) {
		fuse_destroy(f);
		return NULL;
	}
	return f;
}

int tfs_fuse_loop(struct fuse *f)
{
	struct fuse_session *se = fuse_get_session(f);
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();
	int err;

	if (!cfg)
		return -ENOMEM;
	/* every blocked trace_pipe reader holds a thread: leave room for the rest */
	fuse_loop_cfg_set_max_threads(cfg, 1024);
	fuse_loop_cfg_set_clone_fd(cfg, 0);
	if (fuse_set_signal_handlers(se)) {
		fuse_loop_cfg_destroy(cfg);
		return -EIO;
	}
	if (getenv("UTRACEFS_TEST_RELEASE_DELAY_MS"))
		release_delay_ms = (unsigned int)atoi(getenv("UTRACEFS_TEST_RELEASE_DELAY_MS")) % 2000;
	err = fuse_loop_mt(f, cfg);
	fuse_remove_signal_handlers(se);
	fuse_loop_cfg_destroy(cfg);
	return err;
}

void tfs_fuse_unmount(struct fuse *f)
{
	fuse_unmount(f);
	fuse_destroy(f);
}
