// SPDX-License-Identifier: MIT
/*
 * sdt_loop.c - <sys/sdt.h> probes in loops, for tests/integration/111_sdt_window.sh.
 *
 *   sdt_loop N GUARDED MID [-t]
 *                    GUARDED and MID: the link-time addresses of the probes
 *                    ut_loop:guarded and ut_loop:mid (readelf -n).  Wait (at most
 *                    20 s) until both are armed (their semaphores count up), print
 *                    how each site is armed ("guarded jmp"), run the loop of each
 *                    N times, print "sum S" and "pid P"; -t: SIGTRAP not blocked
 *   sdt_loop list    exit at once (the runtime announces the probes)
 *
 * ut_loop:guarded is `if (semaphore) STAP_PROBE3(...)` in a loop, built at -O2:
 * the je that skips its nop lands right after it.  Its loop runs with SIGTRAP
 * blocked: were its site an int3, the kernel would kill the process at the first
 * hit.  ut_loop:mid (assembly with its note written by hand) has a je from 7 bytes
 * before its nop land right after it: no patch window, so an int3 it stays.
 *
 * How a site is armed is read from the code itself, against the file's bytes:
 * "off" (as in the file), "trap" (an int3 at the probe, the rest as in the file),
 * "jmp" (a jmp rel32 put in at the probe or at most 4 bytes before it).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sdt_note.h"
#include "xol_sdt.c" /* guarded_loop(), the probe ut_loop:guarded */

unsigned short ut_loop_mid_semaphore __attribute__((section(".probes"), used));

/* long mid_fn(long x): 1 if x is 0, else 6; the probe (x as arg1) is skipped when x is 0 */
long mid_fn(long x);
__asm__(".text\n"
	".globl mid_fn\n"
	".type mid_fn, @function\n"
	"mid_fn:\n"
	"	xor %eax, %eax\n"
	"	test %rdi, %rdi\n"
	"	je 1f\n"
	"	mov $5, %eax\n"
	"990:	nop\n"
	"1:	add $1, %rax\n"
	"	ret\n"
	".size mid_fn, . - mid_fn\n"
	SDT_NOTE("ut_loop", "mid", "8@%rdi", "", "ut_loop_mid_semaphore"));

static uintptr_t bias;
static const ElfW(Phdr) * phdr;
static int phnum;

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	bias = info->dlpi_addr;
	phdr = info->dlpi_phdr;
	phnum = info->dlpi_phnum;
	return 1;
}

/* How the site at link-time address loc is armed now (see the top). */
static const char *site_mode(int fd, uintptr_t loc)
{
	uint8_t mem[9], file[9];
	off_t off = -1;

	for (int i = 0; i < phnum; i++)
		if (phdr[i].p_type == PT_LOAD && loc - 4 >= phdr[i].p_vaddr &&
		    loc + 5 <= phdr[i].p_vaddr + phdr[i].p_filesz)
			off = (off_t)(loc - 4 - phdr[i].p_vaddr + phdr[i].p_offset);
	if (off < 0 || pread(fd, file, sizeof(file), off) != sizeof(file))
		return "unknown";
	memcpy(mem, (const void *)(bias + loc - 4), sizeof(mem));
	if (!memcmp(mem, file, sizeof(mem)))
		return "off";
	if (mem[4] == 0xcc && !memcmp(mem, file, 4) && !memcmp(mem + 5, file + 5, 4))
		return "trap";
	for (int s = 0; s <= 4; s++)
		if (mem[s] == 0xe9 && !memcmp(mem, file, (size_t)s) &&
		    !memcmp(mem + s + 5, file + s + 5, sizeof(mem) - (size_t)s - 5))
			return "jmp";
	return "other";
}

int main(int argc, char **argv)
{
	uint64_t trap = 1ull << (SIGTRAP - 1);
	long n, sum = 0;
	int fd, i;

	if (argc == 2 && !strcmp(argv[1], "list"))
		return 0;
	if (argc != 4 && !(argc == 5 && !strcmp(argv[4], "-t")))
		return 2;
	n = atol(argv[1]);
	dl_iterate_phdr(first_object, NULL);
	fd = open("/proc/self/exe", O_RDONLY);
	for (i = 0; i < 2000 && !(ut_loop_guarded_semaphore && ut_loop_mid_semaphore); i++)
		usleep(10000);
	if (i == 2000)
		printf("not armed\n");
	printf("guarded %s\n", site_mode(fd, strtoul(argv[2], NULL, 0)));
	printf("mid %s\n", site_mode(fd, strtoul(argv[3], NULL, 0)));
	fflush(stdout);
	/* the raw system call: the runtime keeps SIGTRAP out of sigprocmask's masks */
	if (argc == 4)
		syscall(SYS_rt_sigprocmask, SIG_BLOCK, &trap, NULL, 8);
	sum += guarded_loop(n, 7);
	syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &trap, NULL, 8);
	for (long k = 0; k < n; k++)
		sum += mid_fn(k);
	printf("sum %ld\npid %d\n", sum, (int)getpid());
	return 0;
}
