// SPDX-License-Identifier: MIT
/* The cluster probe's run over any carrier of its steps (see stepper.h). */
#include "mesh/stepper.h"

static int run_all(const struct stepper *sp, const struct schedule *s, bool retest)
{
	size_t k;
	int ret = 0;

	for (k = 0; k < s->n && !ret; k++)
		ret = sp->step(sp->arg, &s->steps[k], retest ? 0 : s->steps[k].round);
	return ret;
}

int stepper_run(const struct stepper *sp, const struct schedule *s, bool retest,
		size_t *retest_steps)
{
	struct schedule rs = { 0 };
	int ret = run_all(sp, s, false);

	*retest_steps = 0;
	if (ret || !retest)
		return ret;
	ret = linkmap_analyse(sp->map) ?: linkmap_retests(sp->map, &rs);
	if (!ret && rs.n) {
		if (sp->more)
			sp->more(sp->arg, rs.n);
		ret = run_all(sp, &rs, true);
		*retest_steps = rs.n;
	}
	schedule_free(&rs);
	return ret;
}
