/* SPDX-License-Identifier: MIT */
/* Every command's entry point and option table; the table is in main.c. */
#ifndef RDMACTL_CMDS_H
#define RDMACTL_CMDS_H

#include "base/opt.h"

struct ctx;

int cmd_devices(struct ctx *ctx, int argc, char **argv);
int cmd_ports(struct ctx *ctx, int argc, char **argv);
int cmd_gids(struct ctx *ctx, int argc, char **argv);
int cmd_limits(struct ctx *ctx, int argc, char **argv);
int cmd_snapshot(struct ctx *ctx, int argc, char **argv);
int cmd_doctor(struct ctx *ctx, int argc, char **argv);
int cmd_env(struct ctx *ctx, int argc, char **argv);
int cmd_probe(struct ctx *ctx, int argc, char **argv);
int cmd_report(struct ctx *ctx, int argc, char **argv);
int cmd_completion(struct ctx *ctx, int argc, char **argv);
int cmd_complete(struct ctx *ctx, int argc, char **argv);
int cmd_help(struct ctx *ctx, int argc, char **argv);
int cmd_version(struct ctx *ctx, int argc, char **argv);

extern const struct opt devices_opts[];
extern const struct opt probe_opts[];
extern const struct opt_modes probe_modes;
extern const struct opt doctor_opts[];
extern const struct opt_modes doctor_modes;
extern const struct opt env_opts[];
extern const struct opt ports_opts[];
extern const struct opt gids_opts[];
extern const struct opt limits_opts[];
extern const struct opt snapshot_opts[];
extern const struct opt report_opts[];

#endif
