// SPDX-License-Identifier: MIT
/* main.c - placeholder until the command line lands. */
int main(void)
{
	return 1;
}
