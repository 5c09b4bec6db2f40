// SPDX-License-Identifier: MIT
/* lib/base/opt.c refers to the command table of cmd/main.c; unit tests have none. */
#include <stddef.h>

#include "base/opt.h"

const struct command commands[] = { { 0 } };

const struct command *command_find(const char *name)
{
	(void)name;
	return NULL;
}
