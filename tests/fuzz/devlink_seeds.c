// SPDX-License-Identifier: MIT
/*
 * Seeds of fuzz_devlink, written from the messages the unit tests parse
 * (tests/unit/devlink_msgs.h) so both stay one set (`make fuzz-devlink-seeds`):
 *   corpus/devlink/family     the controller's answer for "devlink"
 *   corpus/devlink/devs       `devlink dev show` on a BlueField-2's Arm side
 *   corpus/devlink/ports      `devlink port show` there
 *   corpus/devlink/eswitch    an eswitch mode, then an EOPNOTSUPP error
 */
#include <stdio.h>
#include <stdlib.h>

#include "../unit/devlink_msgs.h"

static void save(const char *dir, const char *name, const struct msgs *m)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/devlink/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(m->buf, 1, m->len, f) != m->len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static struct msgs m;
	const char *dir = argc > 1 ? argv[1] : "tests/fuzz/corpus";

	msg_family(&m, MSG_DEVLINK_ID);
	save(dir, "family", &m);
	m.len = 0;
	msgs_bf2_devs(&m);
	save(dir, "devs", &m);
	m.len = 0;
	msgs_bf2_ports(&m);
	save(dir, "ports", &m);
	m.len = 0;
	msg_eswitch(&m, MSG_BF2_ECPF, DEVLINK_ESWITCH_MODE_SWITCHDEV);
	msg_error(&m, EOPNOTSUPP);
	save(dir, "eswitch", &m);
	return 0;
}
