#!/bin/bash
# The packaged units under a real systemd: lab-b boots Debian's systemd as
# PID 1 (the lab's systemd guest), lab-a is a plain guest beside it.
# lab-needs: systemd
# lab-timeout: 300

lab_need_peer
if [[ $LAB_ROLE == b ]]; then
	check_eq "PID 1 is systemd" systemd "$(cat /proc/1/comm)"
	state=$(systemctl is-system-running)
	echo "systemctl is-system-running: $state"
	systemctl --no-pager list-units --state=failed
	# The overlay: a write here never reaches the host's root.
	echo lab >/usr/share/rdmactl-lab-probe
	lab_put overlay-written 1
fi
if [[ $LAB_ROLE == a ]]; then
	lab_get overlay-written >/dev/null
	[[ -e /usr/share/rdmactl-lab-probe ]] && fail "the systemd guest's write reached the shared root"
fi
lab_barrier done
