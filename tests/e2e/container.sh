# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Sourced by tests/e2e/ifupdown.sh, tests/e2e/networkmanager.sh and bench/restore.sh: boot a root with
# `systemd-nspawn -b --keep-unit --register=no --private-network
# --volatile=overlay` and run commands in it with nsenter. The caller sets
# ROOT, MACHINE and CONSOLE (log file), and calls stop_container from its
# EXIT trap. Every link, address, route and rule lives in the container's
# own network namespace.

NSPAWN_PID='' LEADER=''

# wait_until SECONDS COMMAND...: poll every 0.5 s; 0 as soon as it succeeds
wait_until() {
	local t=$1 end
	shift
	end=$((SECONDS + t))
	while :; do
		"$@" && return 0
		[ $SECONDS -ge $end ] && return 1
		sleep 0.5
	done
}

# ct COMMAND...: in all of the container's namespaces, clean environment
ct() {
	timeout -k 5 "${CT_TIMEOUT:-30}" nsenter -t "$LEADER" -a -- \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 SYSTEMD_PAGER= "$@"
}

# the container's PID 1: the nspawn child whose innermost PID is 1
find_leader() {
	local c
	for c in $(pgrep -P "$NSPAWN_PID"); do
		[ "$(awk '/^NSpid:/ {print $NF}' "/proc/$c/status" 2>/dev/null)" = 1 ] &&
			{ LEADER=$c; return 0; }
	done
	return 1
}
booted() {
	case $(CT_TIMEOUT=10 ct systemctl is-system-running 2>/dev/null) in
	running | degraded) return 0 ;;
	esac
	return 1
}

# boot: start the container and wait until systemd reports running/degraded
boot() {
	systemd-nspawn -b --keep-unit --register=no --private-network --volatile=overlay \
		-D "$ROOT" -M "$MACHINE" </dev/null >>"$CONSOLE" 2>&1 &
	NSPAWN_PID=$!
	wait_until 30 find_leader || { echo "# container did not start" >&2; return 1; }
	[ "$(readlink "/proc/$LEADER/ns/net")" != "$(readlink /proc/self/ns/net)" ] ||
		{ echo "# container shares the host's network namespace" >&2; return 1; }
	wait_until 90 booted || { echo "# container did not boot" >&2; return 1; }
}

stop_container() {
	[ -n "$NSPAWN_PID" ] || return 0
	if kill -0 "$NSPAWN_PID" 2>/dev/null; then
		# systemd-nspawn turns SIGTERM into an orderly shutdown of the container
		kill -TERM "$NSPAWN_PID" 2>/dev/null
		for _ in $(seq 1 80); do kill -0 "$NSPAWN_PID" 2>/dev/null || break; sleep 0.25; done
		kill -0 "$NSPAWN_PID" 2>/dev/null && kill -KILL "$NSPAWN_PID" 2>/dev/null
	fi
	wait "$NSPAWN_PID" 2>/dev/null
	NSPAWN_PID='' LEADER=''
}

# unpack_root TAR PREFIX: WORK (a new /var/tmp/PREFIX.XXXXXX), ROOT (TAR
# unpacked there, with a machine id of its own and MACHINE as host name) and
# CONSOLE (the log file boot appends to)
unpack_root() {
	WORK=$(mktemp -d "/var/tmp/$2.XXXXXX") || return 1
	ROOT=$WORK/root
	CONSOLE=$WORK/console.log
	mkdir "$ROOT" && tar -C "$ROOT" -xf "$1" || return 1
	systemd-id128 new >"$ROOT/etc/machine-id"
	echo "$MACHINE" >"$ROOT/etc/hostname"
}

# remove_work: stop the container, then remove WORK unless something is
# still mounted below it
remove_work() {
	stop_container
	[ -n "${WORK:-}" ] && [ -d "$WORK" ] || return 0
	if findmnt -rn -o TARGET | grep -q "^$WORK"; then
		echo "# not removing $WORK: still mounted" >&2
	else
		rm -rf --one-file-system "$WORK"
	fi
}

# start_watchdog SECONDS: SIGTERM to this shell after SECONDS; WATCHDOG is
# its PID (its fds are closed: a pipe reading the test's output does not
# wait for it)
start_watchdog() {
	(
		trap 'kill "$sp" 2>/dev/null; exit 0' TERM
		sleep "$1" &
		sp=$!
		wait "$sp" && kill -TERM $$
	) </dev/null >/dev/null 2>&1 &
	# shellcheck disable=SC2034 # the caller's cleanup kills it
	WATCHDOG=$!
}

# install_deb ROOT DEB: dpkg -i in a chroot inside a private mount and
# network namespace (the maintainer scripts never see the host's network);
# an /etc/ib-hook.conf written before is kept
install_deb() {
	cp "$2" "$1/root/ib-hook.deb" &&
		unshare --mount --net --propagation private -- sh -c '
		mount -t proc proc "$1/proc" && mount -t sysfs sysfs "$1/sys" &&
		mount -t tmpfs tmpfs "$1/run" &&
		chroot "$1" dpkg -i --force-confold /root/ib-hook.deb' sh "$1"
}

# veth_unit ROOT BEFORE-UNIT: a oneshot unit, enabled in ROOT and ordered
# before BEFORE-UNIT, that creates the veth pairs ib0/ib0p and ib1/ib1p (the
# IPoIB ports of the tests) with the peers up
veth_unit() {
	cat >"$1/etc/systemd/system/ib-veth.service" <<-UNIT
	[Unit]
	Description=veth pairs ib0/ib0p and ib1/ib1p (the test's IPoIB ports)
	Before=$2
	DefaultDependencies=no
	[Service]
	Type=oneshot
	RemainAfterExit=yes
	ExecStart=/sbin/ip link add ib0 type veth peer name ib0p
	ExecStart=/sbin/ip link add ib1 type veth peer name ib1p
	ExecStart=/sbin/ip link set ib0p up
	ExecStart=/sbin/ip link set ib1p up
	[Install]
	WantedBy=multi-user.target
	UNIT
	systemctl --root="$1" enable ib-veth.service >/dev/null 2>&1
}
