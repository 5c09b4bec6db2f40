// SPDX-License-Identifier: MIT
/* launch/launch: launcher names and the remote command line. */
#include <errno.h>
#include <stdlib.h>

#include "launch/launch.h"
#include "test.h"

static void names_round_trip(void)
{
	enum launcher l;
	int i;

	for (i = 0; i < LAUNCHER_COUNT; i++) {
		CHECK_INT(launcher_parse(launcher_name((enum launcher)i), &l), 0);
		CHECK_INT(l, i);
	}
	CHECK_INT(launcher_parse("mpirun", &l), -EINVAL);
	CHECK_INT(launcher_parse("", &l), -EINVAL);
	CHECK_STR(launcher_name(LAUNCHER_COUNT), "unknown");
}

static void shell_join_quotes_what_needs_it(void)
{
	char *argv[] = { "/opt/rdmactl/bin/rdmactl", "-j", "doctor", "--skip", "gpudirect,peer",
			 "it's", "a b", "$HOME", "", "x;rm -rf /", NULL };
	char *s = launch_shell_join(argv);

	CHECK_STR(s, "/opt/rdmactl/bin/rdmactl -j doctor --skip gpudirect,peer 'it'\\''s' 'a b' "
		     "'$HOME' '' 'x;rm -rf /'");
	free(s);
}

int main(void)
{
	RUN("launch", names_round_trip);
	RUN("launch", shell_join_quotes_what_needs_it);
	TEST_EXIT();
}
