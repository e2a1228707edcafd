/* SPDX-License-Identifier: MIT */
/*
 * sdt_note.h - a <sys/sdt.h> note written by hand, for the SDT test programs whose
 * operands a compiler would not choose (sdt_prog.c, sdt_loop.c, sdt_fast.c).
 *
 * SDT_NOTE(provider, name, args, off, sem) is asm text: the .note.stapsdt entry of
 * a probe at the local label 990, defined before it in the same asm.  off is added
 * to the site's and .stapsdt.base's addresses ("", or " + 0x1000" as a prelinked
 * object's notes are); sem is the semaphore's symbol, or "0"; args is written as the
 * asm needs it (%% for % inside an asm with operands).
 */
#ifndef SDT_NOTE_H
#define SDT_NOTE_H

#define SDT_NOTE(provider, name, args, off, sem)                                                   \
	".pushsection .note.stapsdt,\"\",\"note\"\n"                                               \
	".balign 4\n"                                                                              \
	".4byte 992f-991f, 994f-993f, 3\n"                                                         \
	"991: .asciz \"stapsdt\"\n"                                                                \
	"992: .balign 4\n"                                                                         \
	"993: .8byte 990b" off "\n"                                                                \
	".8byte _.stapsdt.base" off "\n"                                                           \
	".8byte " sem "\n"                                                                         \
	".asciz \"" provider "\"\n"                                                                \
	".asciz \"" name "\"\n"                                                                    \
	".asciz \"" args "\"\n"                                                                    \
	"994: .balign 4\n"                                                                         \
	".popsection\n"

#endif
