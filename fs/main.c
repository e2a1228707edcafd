// SPDX-License-Identifier: MIT
/* main.c - placeholder until the daemon core lands. */
int main(void)
{
	return 1;
}
