/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the utrace command line: what its subcommands share.
 *
 *   main.c       dispatch only: finds the subcommand, handles `help`
 *   util.c       messages, reading and writing tracefs files, paths next to the binary
 *   mnt.c        is a utracefs mounted here? mounting and unmounting it
 *   optdefs.c    the default value of every option (for reset and stat)
 *   record_run.c how record starts, watches and stops CMD (exec, hold socket, signals)
 *                (profile.c starts CMD the same way)
 *   <name>.c     one subcommand each, as a struct cli_command
 *   shim/        libutrace-tracecmd.so, preloaded into trace-cmd by tracecmd.c
 *
 * Exit statuses: 0 success, 1 failure (a file system or system error), 2 bad usage.
 * Every message goes to stderr, prefixed with "utrace CMD: ".
 */
#ifndef UT_CMD_H
#define UT_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

struct cli_command {
	const char *name;
	const char *summary; /* one line for `utrace help` */
	const char *usage;   /* full text for `utrace CMD -h` */
	int (*run)(int argc, char **argv); /* argv[0] is the subcommand's name */
};

extern const struct cli_command cli_cmd_mount, cli_cmd_umount, cli_cmd_cflags, cli_cmd_record,
	cli_cmd_report, cli_cmd_show, cli_cmd_start, cli_cmd_stop, cli_cmd_reset, cli_cmd_list,
	cli_cmd_stat, cli_cmd_snapshot, cli_cmd_extract, cli_cmd_tracecmd, cli_cmd_stack,
	cli_cmd_profile;

/* ---- messages (util.c) --------------------------------------------------------- */

/* The prefix of every message ("utrace record"); set by main before running a command. */
void cli_set_name(const char *name);
const char *cli_name(void);
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "utrace CMD: PATH: strerror(-err)"; returns CLI_FAIL. */
int cli_file_error(const char *path, int err);
/* Bad usage: the message, then "Try 'utrace CMD -h'."; returns CLI_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print cmd->usage on stdout; returns CLI_OK. */
int cli_print_usage(const struct cli_command *cmd);

/*
 * Parse the options every subcommand shares with its own: OPTSTRING in getopt
 * syntax ('+' first stops at the first operand).  Returns the option character,
 * -1 at the end (optind is then the first operand), 'h' for -h/--help, or '?'
 * after printing a message for an unknown option or a missing argument.
 * Call with *first = true to restart parsing (getopt keeps global state).
 */
int cli_getopt(int argc, char **argv, const char *optstring, bool *first);
/*
 * cli_getopt with long options besides --help (an array ended by a zeroed entry;
 * each returns its val).
 */
struct option;
int cli_getopt_long(int argc, char **argv, const char *optstring, const struct option *longopts,
		    bool *first);

/*
 * For subcommands with no options but -h and at most max_operands operands:
 * returns -1 when the command should go on (*operand = the operand or NULL),
 * else the exit status to return (usage printed, or a usage error).
 */
int cli_parse_simple(int argc, char **argv, const struct cli_command *cmd, int max_operands,
		     char **operand);

/* ---- tracefs files (util.c) ---------------------------------------------------- */

/* DIR/NAME into buf; -ENAMETOOLONG when it does not fit. */
int cli_path(char *buf, size_t size, const char *dir, const char *name);
/* Write VALUE plus a newline to DIR/NAME, as `echo VALUE > DIR/NAME` does.  0 or -errno. */
int cli_write_file(const char *dir, const char *name, const char *value);
/* The same, printing "PATH: strerror" on failure.  0 or CLI_FAIL. */
int cli_set(const char *dir, const char *name, const char *value);
/* Whole file into a malloc'ed NUL-terminated buffer.  0 or -errno. */
int cli_read_file(const char *path, char **out, size_t *len);
/* Like cli_read_file on DIR/NAME, with the trailing newline removed. */
int cli_read_value(const char *dir, const char *name, char **out);
/* Copy the file at PATH to fd OUT.  0, or -errno with *failed_path set to what failed. */
int cli_copy(const char *path, int out, const char **failed_path);
/* Empty the trace buffer: open DIR/trace with O_TRUNC.  0 or CLI_FAIL (message printed). */
int cli_clear_trace(const char *dir);
/* Can NAME name a directory of instances/ (not empty, ".", ".." or with a '/')? */
bool cli_instance_name_ok(const char *name);
/*
 * The directory of instance NAME of the mount mnt (mnt/instances/NAME): 0, or
 * CLI_USAGE/CLI_FAIL (said) when the name is bad or there is no such instance.
 */
int cli_instance_dir(char *buf, size_t size, const char *mnt, const char *name);
/*
 * The same for an instance that is made when it is missing (mkdir, as trace-cmd
 * does for -B); *made says whether it was.  0, or CLI_USAGE/CLI_FAIL (said).
 */
int cli_instance_make(char *buf, size_t size, const char *mnt, const char *name, bool *made);
/* rmdir of an instance's directory (EBUSY retried a while).  0, or CLI_FAIL (said). */
int cli_remove_instance(const char *dir);
/* fn(its directory, its name, arg) for every instance, by name; the OR of what fn returns. */
int cli_for_each_instance(const char *mnt, int (*fn)(const char *dir, const char *name, void *),
			  void *arg);
/* The session -B NAME names: the mount mnt itself (NAME NULL) or its instance NAME. */
int cli_session_dir(char *buf, size_t size, const char *mnt, const char *name);
/* cli_mounted_dir into mnt, then cli_session_dir into dir: 0 or CLI_FAIL/CLI_USAGE (said). */
int cli_mounted_session(char *mnt, size_t msize, char *dir, size_t dsize, const char *name);
/* -c CPU: a CPU number (digits only).  0, or CLI_USAGE (said). */
int cli_parse_cpu(const char *arg, int *cpu);
/* FILE, or per_cpu/cpuCPU/FILE when cpu >= 0, into buf.  0 or -ENAMETOOLONG. */
int cli_cpu_file(char *buf, size_t size, int cpu, const char *file);
/* Does dir/name exist (an instance lacks some of the top's files)? */
bool cli_file_exists(const char *dir, const char *name);
/* One CPU's buffer_size_kb of session dir ("7 (expanded: 1408)" is 1408); 0: unknown. */
unsigned long cli_buffer_kb(const char *dir);
/* --file-version ARG of trace.dat: 6 or 7 into *version; else CLI_USAGE after a message. */
int cli_parse_file_version(const char *arg, int *version);
/* `echo > FILE` (newline) or `: > FILE`: an open with O_TRUNC; 0 or CLI_FAIL (said). */
int cli_empty_file(const char *dir, const char *name, bool newline);

/* ---- where things are ------------------------------------------------------------ */

/* The directory of the running utrace binary (from /proc/self/exe).  0 or -errno. */
int cli_self_dir(char *buf, size_t size);
/* A file relative to the binary's directory ("utracefs", "../lib/libutrace.so"). */
int cli_sibling(char *buf, size_t size, const char *rel);
/* The value to give LD_PRELOAD: OLD (may be NULL or empty) with LIB appended. */
int cli_preload_value(char *buf, size_t size, const char *old, const char *lib);
/*
 * The tracing directory a command works on: ARG when given (a MOUNTPOINT operand),
 * else ut_tracing_dir() ($UTRACE_TRACING, else ${XDG_RUNTIME_DIR:-/tmp}/utrace-UID/tracing),
 * always absolute: a relative ARG or $UTRACE_TRACING is taken from the working
 * directory (the runtime refuses a relative $UTRACE_TRACING).
 */
int cli_tracing_dir(char *buf, size_t size, const char *arg);
/* Is $UTRACE_TRACING set to a relative path (that commands make absolute)? */
bool cli_tracing_env_relative(void);

/* ---- the mount (mnt.c) ------------------------------------------------------------ */

enum cli_mnt_state {
	CLI_MNT_NONE,  /* nothing is mounted there */
	CLI_MNT_LIVE,  /* a utracefs that answers */
	CLI_MNT_STALE, /* a utracefs whose daemon is gone (ENOTCONN) */
	CLI_MNT_OTHER, /* some other file system */
};

/*
 * Find the top mount at the absolute path MNTPT in a mountinfo stream; copies its
 * file system type and source.  Returns 1 when found, 0 when not.
 */
int cli_mountinfo_find(const char *mountinfo, const char *mntpt, char *fstype, size_t tsize,
		       char *source, size_t ssize);
/* Is this a utracefs mount, from the type and source mountinfo shows? */
bool cli_is_utracefs(const char *fstype, const char *source);
enum cli_mnt_state cli_mount_state(const char *dir);
/*
 * Mount utracefs at DIR (creating it, and missing parents with mode 0700) unless a
 * live one is there already; a stale one is unmounted first.  A DIR whose socket
 * name (DIR.sock) does not fit in sun_path is refused before anything is created.  Returns 0 when it
 * mounted, 1 when one was mounted already, -errno after printing why it failed.
 * opts: utracefs's -o (FUSE mount options), or NULL.
 */
int cli_mount(const char *dir, const char *opts);
/* Unmount DIR with fusermount3 (lazy: -z, even if busy).  0, or -errno after printing why. */
int cli_umount(const char *dir, bool lazy);
/* For commands that need the mount: 0, or CLI_FAIL after "no utracefs mounted at DIR". */
int cli_need_mount(const char *dir);
/* cli_tracing_dir(NULL) into buf, then cli_need_mount: 0 or CLI_FAIL after a message. */
int cli_mounted_dir(char *buf, size_t size);

/*
 * Run ARGV (argv[0] searched in PATH) and wait for it.  Returns its exit status,
 * 128 + signal when killed, or -errno when it could not be started.
 */
int cli_run_wait(char *const argv[]);

/* ---- record (record.c) ----------------------------------------------------------- */

#define CLI_RECORD_DEFAULT_OUTPUT "trace.dat" /* as trace-cmd */
#define CLI_RECORD_DEFAULT_TEXT "utrace.txt"  /* record --text */
#define CLI_GRAPH_TRACER "function_graph" /* the tracer -g selects functions for */

#define CLI_RECORD_FILTERS_MAX 64
struct cli_record_opts {
	const char *tracer; /* -p; -g alone implies function_graph */
	const char *graph_funcs; /* -g FUNC, space-separated when repeated; NULL: none */
	const char *filter_funcs;  /* -l FUNC (set_ftrace_filter), likewise */
	const char *notrace_funcs; /* -n FUNC (set_ftrace_notrace), likewise */
	const char *pids;	   /* -P PID (set_ftrace_pid), likewise; CMD is added */
	const char *events;	   /* -e SYSTEM:EVENT (set_event), likewise */
	/* -f FILTER after -e EVENT: that event's (or system's) filter, as trace-cmd */
	unsigned int nr_filters;
	struct cli_event_filter {
		const char *event, *filter;
	} filters[CLI_RECORD_FILTERS_MAX];
	const char *output; /* -o, default CLI_RECORD_DEFAULT_OUTPUT (_TEXT); "-" is stdout */
	const char *net;    /* -N HOST:PORT as given (a trace-cmd listener); NULL: -o */
	char net_host[256], net_port[32]; /* -N split: [v6addr]:PORT or the last ':' */
	bool text;	    /* --text: the text of the trace file, not trace.dat */
	int file_version;   /* --file-version: of trace.dat, 6 or 7 */
	unsigned long buffer_kb; /* -b: buffer_size_kb for the run; 0: as it is */
	const char *instance;	 /* -B: record into instances/NAME (made if missing); NULL: top */
	char **cmd;	    /* NULL-terminated */
};
/* Returns -1 when the recording should go on, else the exit status to return. */
int cli_record_parse(int argc, char **argv, struct cli_record_opts *o);

/*
 * -g, -l, -n and -P may be given several times, as with trace-cmd: the words are
 * joined with spaces into one write (*dst points into buf), which the file parses
 * as a list.  0, or CLI_USAGE after a message.
 */
struct cli_word_list {
	const char *opt; /* "-g" */
	char buf[4096];
};
int cli_add_word(struct cli_word_list *l, const char **dst, const char *word);
/* -P: a process or thread id, checked for a clear message. */
int cli_add_pid(struct cli_word_list *l, const char **dst, const char *arg);
/* `echo VALUE > DIR/NAME` with O_TRUNC (filters replace their list).  0 or -errno. */
int cli_write_replace(const char *dir, const char *name, const char *value);
/* FUNCS into a filter file, saying what failed for option opt.  0 or CLI_FAIL. */
int cli_set_funcs(const char *dir, const char *file, const char *opt, const char *funcs);
/* Append pid to DIR/set_ftrace_pid.  0 or CLI_FAIL (said). */
int cli_add_cmd_pid(const char *dir, pid_t pid);

/* ---- record: running CMD (record_run.c) ------------------------------------------ */

/*
 * The tracing directory and the runtime a command that runs CMD uses (record,
 * profile), each PATH_MAX bytes, and whether CMD can run: -1 to go on, else the
 * exit status to return (said; 127/126 as a shell for CMD).
 */
int cli_traced_paths(const char *cmd, char *dir, char *lib);
/* Where execvp would find NAME: 0, or -ENOENT / -EACCES as execvp would fail. */
int cli_find_program(const char *name);

/*
 * The output file: opened before the run, so that one that cannot be written
 * fails first, but emptied only once CMD runs (cli_output_start); one record
 * created is removed again when CMD never ran.  "-" is stdout.
 */
struct cli_output {
	const char *path;
	int fd;
	bool created; /* by record (empty) */
	bool started; /* CMD ran: the old content is gone */
};
/* 0, or CLI_FAIL after a message. */
int cli_output_open(struct cli_output *out, const char *path);
void cli_output_start(struct cli_output *out);
/* 0, or CLI_FAIL after a message when the close failed. */
int cli_output_close(struct cli_output *out);

/* SIGTERM, SIGHUP, SIGINT, SIGQUIT are caught from now on (see record_run.c). */
void cli_catch_stop_signals(void);
/* The last of them received, or 0. */
int cli_stop_signal(void);
/*
 * Fork and exec CMD with LIB preloaded, UTRACE_RECORD_HOLD=hold_fd and exec_fd the
 * write end of the exec pipe.  The pid, -EINTR when a stop signal came first (CMD
 * is not started), or -errno.  SIGTERM and SIGHUP are passed on to it until reaped.
 */
pid_t cli_start_traced(char **cmd, const char *lib, const char *dir, int hold_fd, int exec_fd);
/* Did exec succeed?  0, or the errno the child wrote on fd; closes fd. */
int cli_exec_result(int fd);
/*
 * What CMD says on sock before main(): 'r' (its sites are named, it waits for
 * "g"), 'n' (it has no patch sites), or 0 when it says nothing (not traced, or
 * exec'd away: it closed the socket) or ended.
 */
int cli_wait_ready(int sock, pid_t pid);
/* Wait for CMD and reap it: its exit status, 128 + signal, or -errno. */
int cli_reap(pid_t pid);
/*
 * Start CMD held (cli_start_traced with a hold socket and the exec pipe): true
 * when it runs, with its pid and *sock the socket to cli_wait_ready on and send
 * "g" (closed by the caller); false when it did not start, with *status its exit
 * status (an exec that failed is said), 128 + a stop signal, or -errno.
 */
bool cli_start_held(char **cmd, const char *lib, const char *mnt, pid_t *pid, int *sock,
		    int *status);

/* ---- record and extract: trace.dat (rawrec.c) -------------------------------------- */

/*
 * Every CPU's trace_pipe_raw of a session, drained into temporary files (in the
 * output's directory) by a thread while a command runs (record) or at once
 * (extract), then written as one trace.dat.
 */
struct cli_rawrec;
/* Open the session dir's pipes and the files; 0, or CLI_FAIL after a message. */
/* raw: "trace_pipe_raw" or "snapshot_raw". */
int cli_rawrec_open(struct cli_rawrec **r, const char *dir, const char *output, const char *raw,
		    bool progress);
/* Hold room in the (empty) output fd for the file's metadata, if it is a regular file. */
void cli_rawrec_reserve(struct cli_rawrec *r, int fd);
/* The events taken so far. */
unsigned long long cli_rawrec_events(const struct cli_rawrec *r);
/* Drain in the background from now on; 0, or CLI_FAIL after a message. */
int cli_rawrec_start(struct cli_rawrec *r);
/* Take what is left (everything, without start) and close the pipes. */
void cli_rawrec_stop(struct cli_rawrec *r);
struct cli_rawrec_out {
	const char *mnt;  /* the mount: event formats, saved_cmdlines, kallsyms */
	const char *dir;  /* the session: trace_clock, per_cpu stats */
	const char *path; /* for messages */
	int fd;		  /* the output (empty; one that cannot seek gets a copy) */
	int version;	  /* of trace.dat: 6 or 7 */
};
/* Write the trace.dat; 0, or CLI_FAIL after a message (a file cut short is valid). */
int cli_rawrec_write(struct cli_rawrec *r, const struct cli_rawrec_out *o);
/*
 * A latency tracer's recording: a trace.dat whose data is the text of the session's
 * `trace` file, read now (trace-cmd's latency file, tracedat.h).  0, or CLI_FAIL after
 * a message.
 */
int cli_latency_write(const struct cli_rawrec_out *o);
/*
 * Is NAME a tracer whose recording is its trace file's text at the end, not a stream
 * of events?  trace-cmd record's list: irqsoff, preemptoff, preemptirqsoff, wakeup,
 * wakeup_rt.
 */
bool cli_is_latency_tracer(const char *name);
/* record -N: where the recording goes. */
struct cli_rawrec_net {
	const char *mnt, *dir; /* as cli_rawrec_out's */
	const char *host, *port;
	const char *dest; /* "HOST:PORT" as given, for messages */
	int version;	  /* of trace.dat: 6 or 7 */
};
/*
 * Send the recording to a `trace-cmd listen` server (cmd/tcmsg.h), which saves it as a
 * trace.dat of that version; 0, or CLI_FAIL after a message naming dest.
 */
int cli_rawrec_send(struct cli_rawrec *r, const struct cli_rawrec_net *o);
void cli_rawrec_free(struct cli_rawrec *r);

/* ---- stat (stat.c) --------------------------------------------------------------- */

/* The number after "KEY: " in a per_cpu/cpuN/stats text.  0 or -ENOENT. */
int cli_stats_value(const char *stats, const char *key, unsigned long long *val);
/*
 * The events each CPU's buffer lost (overrun + dropped events of per_cpu/cpuN/stats):
 * one line on stderr per CPU that lost some ("CPU N: N events lost (...)").
 * Returns the total lost.
 */
unsigned long long cli_report_lost(const char *dir);
/* Events written to the buffers since they were last emptied (entries + overrun). */
unsigned long long cli_events_written(const char *dir);

/* ---- options (optdefs.c) ------------------------------------------------------- */

/* Default of option NAME as the kernel has it: 1, 0, or -1 when unknown. */
int cli_option_default(const char *name, bool inst);

#endif
