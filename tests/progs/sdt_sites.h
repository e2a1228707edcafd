/* SPDX-License-Identifier: MIT */
/*
 * sdt_sites.h - for the SDT test programs (95_sdt.sh): find the <sys/sdt.h>
 * probe sites of the loaded objects by reading their .note.stapsdt sections from
 * their files, so that a program can print the byte at each site ("90": the nop
 * is there, a probe is not armed) and wait until the sites it needs are armed.
 */
#ifndef SDT_SITES_H
#define SDT_SITES_H

#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct sdt_site {
	char obj[64], provider[32], name[32];
	const unsigned char *addr;
};
static struct sdt_site sdt_sites[64];
static int sdt_nr;

static void sdt_read_notes(const char *path, uintptr_t bias)
{
	FILE *f = fopen(path, "rb");
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	char *names = NULL, *notes = NULL;
	uint64_t base_addr = 0;

	if (!f || fread(&eh, sizeof(eh), 1, f) != 1 || eh.e_shentsize != sizeof(Elf64_Shdr))
		goto out;
	sh = (Elf64_Shdr *)calloc(eh.e_shnum, sizeof(*sh));
	if (fseek(f, (long)eh.e_shoff, SEEK_SET) ||
	    fread(sh, sizeof(*sh), eh.e_shnum, f) != eh.e_shnum)
		goto out;
	names = (char *)malloc(sh[eh.e_shstrndx].sh_size);
	fseek(f, (long)sh[eh.e_shstrndx].sh_offset, SEEK_SET);
	if (fread(names, 1, sh[eh.e_shstrndx].sh_size, f) != sh[eh.e_shstrndx].sh_size)
		goto out;
	for (int i = 0; i < eh.e_shnum; i++)
		if (!strcmp(names + sh[i].sh_name, ".stapsdt.base"))
			base_addr = sh[i].sh_addr;
	for (int i = 0; i < eh.e_shnum; i++) {
		size_t off = 0, len = sh[i].sh_size;

		if (strcmp(names + sh[i].sh_name, ".note.stapsdt"))
			continue;
		notes = (char *)malloc(len);
		fseek(f, (long)sh[i].sh_offset, SEEK_SET);
		if (fread(notes, 1, len, f) != len)
			goto out;
		while (off + 12 <= len && sdt_nr < 64) {
			uint32_t *h = (uint32_t *)(notes + off);
			char *desc = notes + off + 12 + ((h[0] + 3) & ~3u);
			uint64_t pc, base;
			struct sdt_site *s = &sdt_sites[sdt_nr++];

			memcpy(&pc, desc, 8);
			memcpy(&base, desc + 8, 8);
			snprintf(s->obj, sizeof(s->obj), "%s", strrchr(path, '/') + 1);
			snprintf(s->provider, sizeof(s->provider), "%s", desc + 24);
			snprintf(s->name, sizeof(s->name), "%s", desc + 24 + strlen(desc + 24) + 1);
			s->addr = (const unsigned char *)(bias + pc + (base_addr - base));
			off = (size_t)(desc - notes) + ((h[1] + 3) & ~3u);
		}
	}
out:
	free(notes);
	free(names);
	free(sh);
	if (f)
		fclose(f);
}

static int sdt_one(struct dl_phdr_info *info, size_t size, void *first)
{
	const char *name = info->dlpi_name;

	if (*(int *)first) {
		*(int *)first = 0;
		name = "/proc/self/exe";
	}
	if (name && strchr(name, '/'))
		sdt_read_notes(name, info->dlpi_addr);
	return 0;
}

/* Every site of every object loaded now. */
static void sdt_find(void)
{
	int first = 1;

	sdt_nr = 0;
	dl_iterate_phdr(sdt_one, &first);
}

/* "WHEN provider:name=XX ...": the first byte of each site of provider */
static void sdt_print(const char *when, const char *provider)
{
	printf("%s", when);
	for (int i = 0; i < sdt_nr; i++)
		if (!strcmp(sdt_sites[i].provider, provider))
			printf(" %s=%02x", sdt_sites[i].name, sdt_sites[i].addr[0]);
	printf("\n");
	fflush(stdout);
}

/* Wait (at most 20 s) until every site of provider:name is no longer the nop; 1 if so. */
static int sdt_wait_armed(const char *provider, const char *name)
{
	struct timespec ms = {0, 1000000};
	int found = 0;

	for (int i = 0; i < sdt_nr; i++) {
		const struct sdt_site *s = &sdt_sites[i];

		if (strcmp(s->provider, provider) || strcmp(s->name, name))
			continue;
		found = 1;
		for (int t = 0; t < 20000 && s->addr[0] == 0x90; t++)
			nanosleep(&ms, NULL);
		if (s->addr[0] == 0x90)
			return 0;
	}
	return found;
}

#endif
