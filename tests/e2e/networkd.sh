#!/bin/bash
# End-to-end test (issue 8): the ib-hook package on a booted Debian 12 system
# with systemd-networkd and networkd-dispatcher.
#
#   tests/e2e/networkd.sh [PATH-TO-DEB]     full test (needs root)
#   tests/e2e/networkd.sh --smoke           boot/networkd/dispatcher plumbing
#                                           only, with a dummy hook script
#
# Without an argument the newest ../ib-hook_*.deb next to the source tree is
# used. Unpacks a bookworm root (tests/e2e/root.sh: mmdebstrap, mirror from
# the host's apt sources, cached), installs the .deb with dpkg -i inside a private mount
# and network namespace, boots the root with
# `systemd-nspawn -b --private-network --volatile=overlay` and runs commands
# in it with nsenter. The host's network namespace is never changed: every
# link, address, route and rule of this test lives inside the container.
#
# Output: one "ok - ..." / "not ok - ..." line per check, "# ..." for
# diagnostics. Exit 0 all passed, 1 a check failed, 77 a prerequisite is
# missing (not root, no mmdebstrap/systemd-nspawn/nsenter, no .deb).
#
# Environment: E2E_KEEP=1 keeps the work directory (root and console log),
# E2E_SUITE (default bookworm), E2E_TMPDIR (default /var/tmp),
# E2E_TIME_LIMIT (default 570 seconds for the whole test).

set -u
export LC_ALL=C.UTF-8
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

SUITE=${E2E_SUITE:-bookworm}
TIME_LIMIT=${E2E_TIME_LIMIT:-570}
SMOKE=0
DEB=

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)

skip() { echo "1..0 # SKIP $*"; echo "SKIP: $*" >&2; exit 77; }

case ${1:-} in
--smoke) SMOKE=1 ;;
-h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
'')
	DEB=$(ls -t "$srcdir"/../ib-hook_*.deb 2>/dev/null | head -n 1)
	[ -n "$DEB" ] || skip "no ib-hook .deb given and none found in $(cd "$srcdir/.." && pwd) (build it with dpkg-buildpackage, or pass its path)"
	;;
*) DEB=$1 ;;
esac
if [ $SMOKE = 0 ]; then
	[ -f "$DEB" ] || { echo "not ok - .deb '$DEB' does not exist"; exit 1; }
	DEB=$(cd "$(dirname "$DEB")" && pwd)/$(basename "$DEB")
fi

# --- prerequisites -------------------------------------------------------
[ "$(id -u)" = 0 ] || skip "must run as root (mmdebstrap, systemd-nspawn)"
for t in mmdebstrap systemd-nspawn nsenter unshare dpkg-deb findmnt lsns ip timeout; do
	command -v "$t" >/dev/null 2>&1 ||
		skip "'$t' is missing (apt-get install mmdebstrap systemd-container iproute2 util-linux)"
done
unshare --net --mount true 2>/dev/null || skip "cannot create network/mount namespaces here"

# --- bookkeeping ---------------------------------------------------------
FAILS=0 CHECKS=0
ok() { CHECKS=$((CHECKS + 1)); echo "ok - $*"; REASON=; }
notok() { CHECKS=$((CHECKS + 1)); FAILS=$((FAILS + 1)); echo "not ok - $*"; REASON=; }
diag() { sed 's/^/#   /'; }
note() { echo "# $*"; }
# check DESCRIPTION COMMAND...: ok/not ok on the command's exit status
check() { local d=$1; shift; if "$@"; then ok "$d"; else notok "$d${REASON:+: $REASON}"; fi; REASON=; }
REASON=

T_START=$SECONDS
elapsed() { echo $((SECONDS - T_START)); }

WORK=
NSPAWN_PID=
LEADER=
MACHINE=ibhook-e2e-$$
WATCHDOG=

host_state() {
	# Everything on the host this test could conceivably leave behind.
	{
		echo "== ip -4 rule"; ip -4 rule show
		echo "== ip -6 rule"; ip -6 rule show
		echo "== links"; ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | sort
	} 2>&1
}
host_mounts() { findmnt -rn -o TARGET | grep -v '^/run/netns/' | sort; }

stop_container() {
	[ -n "$NSPAWN_PID" ] || return 0
	if kill -0 "$NSPAWN_PID" 2>/dev/null; then
		# systemd-nspawn turns SIGTERM into an orderly shutdown of the container
		kill -TERM "$NSPAWN_PID" 2>/dev/null
		for _ in $(seq 1 60); do kill -0 "$NSPAWN_PID" 2>/dev/null || break; sleep 0.25; done
		if kill -0 "$NSPAWN_PID" 2>/dev/null; then
			kill -KILL "$NSPAWN_PID" 2>/dev/null
			[ -n "$LEADER" ] && kill -KILL "$LEADER" 2>/dev/null
		fi
	fi
	wait "$NSPAWN_PID" 2>/dev/null
	NSPAWN_PID=
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	[ -n "$WATCHDOG" ] && kill "$WATCHDOG" 2>/dev/null
	stop_container
	if [ -n "$WORK" ] && [ -d "$WORK" ]; then
		if [ "${E2E_KEEP:-0}" = 1 ]; then
			echo "# kept $WORK" >&2
		elif findmnt -rn -o TARGET | grep -q "^$WORK"; then
			echo "# not removing $WORK: something is still mounted below it" >&2
		else
			rm -rf --one-file-system "$WORK"
		fi
	fi
	exit $rc
}
trap cleanup EXIT
trap 'echo "not ok - interrupted"; exit 1' INT
trap 'echo "not ok - overall time limit of ${TIME_LIMIT}s exceeded (or terminated)"; exit 1' TERM

# Overall bound: the watchdog sends SIGTERM to this shell.
# (fds closed so that a pipe reading our output does not wait for it)
(
	trap 'kill "$sp" 2>/dev/null; exit 0' TERM
	sleep "$TIME_LIMIT" & sp=$!
	wait "$sp" && kill -TERM $$
) </dev/null >/dev/null 2>&1 &
WATCHDOG=$!

# Commands inside the booted container. nsenter -a joins all of its
# namespaces (mount, pid, net, uts, ipc, cgroup), so the commands see the
# container's own /run, D-Bus, journal and network.
ct() {
	timeout -k 5 "${CT_TIMEOUT:-30}" nsenter -t "$LEADER" -a -- \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 SYSTEMD_PAGER= "$@"
}

# wait_until SECONDS COMMAND...: poll every 0.5 s; 0 as soon as it succeeds
wait_until() {
	local t=$1 end; shift
	end=$((SECONDS + t))
	while :; do
		"$@" && return 0
		[ $SECONDS -ge $end ] && return 1
		sleep 0.5
	done
}

echo "# ib-hook end-to-end test: systemd-networkd + networkd-dispatcher in a booted $SUITE container"
[ $SMOKE = 1 ] && echo "# smoke mode: dummy hook script, no package" || echo "# package: $DEB"

HOST_BEFORE=$(host_state)
MOUNTS_BEFORE=$(host_mounts)

WORK=$(mktemp -d "${E2E_TMPDIR:-/var/tmp}/ib-hook-e2e.XXXXXX") || { echo "not ok - mktemp"; exit 1; }
ROOT=$WORK/root

# --- 1. the root ---------------------------------------------------------
# minbase with systemd-networkd and networkd-dispatcher, cached by root.sh
# (shared with tests/e2e/rails.sh); the package's Depends are in it
if TAR=$("$here/root.sh" networkd "$SUITE" 2>"$WORK/root.log") &&
	mkdir "$ROOT" && tar -C "$ROOT" -xf "$TAR"; then
	ok "$SUITE root from tests/e2e/root.sh ($(basename "$TAR"), $(elapsed)s)"
else
	notok "no $SUITE root from tests/e2e/root.sh; last lines of its log:"
	tail -n 20 "$WORK/root.log" | diag
	exit 1
fi

# Files of the booted system: machine id, hostname, networkd enabled, veth
# pairs ib0/ib0p and ib1/ib1p created by networkd from .netdev files, and the
# memserver34 addresses on ib0/ib1 (what netplan's `renderer: networkd`
# writes for static addresses).
systemd-id128 new >"$ROOT/etc/machine-id" 2>/dev/null ||
	od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$ROOT/etc/machine-id"
echo "$MACHINE" >"$ROOT/etc/hostname"
systemctl --root="$ROOT" enable systemd-networkd.service systemd-networkd.socket >/dev/null 2>&1
# networkd-wait-online would only delay boot for the peers; not needed here
systemctl --root="$ROOT" disable systemd-networkd-wait-online.service >/dev/null 2>&1
mkdir -p "$ROOT/etc/systemd/network"
for i in 0 1; do
	cat >"$ROOT/etc/systemd/network/10-ib$i.netdev" <<-EOF
	[NetDev]
	Name=ib$i
	Kind=veth

	[Peer]
	Name=ib${i}p
	EOF
	cat >"$ROOT/etc/systemd/network/10-ib$i.network" <<-EOF
	[Match]
	Name=ib$i

	[Network]
	Address=172.16.34.$((i + 1))/16
	IPv6AcceptRA=no
	EOF
	cat >"$ROOT/etc/systemd/network/10-ib${i}p.network" <<-EOF
	[Match]
	Name=ib${i}p

	[Network]
	LinkLocalAddressing=no
	IPv6AcceptRA=no
	EOF
done

if [ $SMOKE = 1 ]; then
	for st in routable off; do
		cat >"$ROOT/etc/networkd-dispatcher/$st.d/50-e2e-dummy" <<-'EOF'
		#!/bin/sh
		logger -t ib-hook-dummy "IFACE=$IFACE STATE=$STATE"
		echo "$IFACE $STATE" >>/run/e2e-dummy-hook.log
		EOF
		chmod 0755 "$ROOT/etc/networkd-dispatcher/$st.d/50-e2e-dummy"
	done
else
	cp "$DEB" "$ROOT/tmp/ib-hook.deb"
	# dpkg -i in a private mount + network namespace: the maintainer scripts
	# see their own /proc, /sys and an empty network, never the host's.
	if unshare --mount --net --propagation private -- sh -c '
		mount -t proc proc "$1/proc" && mount -t sysfs sysfs "$1/sys" &&
		mount -t tmpfs tmpfs "$1/run" && chroot "$1" dpkg -i /tmp/ib-hook.deb' sh "$ROOT" \
		>"$WORK/dpkg-i.log" 2>&1; then
		ok "dpkg -i $(basename "$DEB") in the root (chroot, private netns)"
	else
		notok "dpkg -i $(basename "$DEB") failed in the chroot (must never fail in a chroot):"
		diag <"$WORK/dpkg-i.log"
		exit 1
	fi
	# kept for the reinstall on the booted host (/tmp may be a tmpfs there)
	mv "$ROOT/tmp/ib-hook.deb" "$ROOT/root/ib-hook.deb"
	links=$(ls -l "$ROOT"/etc/networkd-dispatcher/*/ib-hook 2>/dev/null | wc -l)
	check "package installed networkd-dispatcher hooks ($links symlinks)" test "$links" -ge 2
	printf '[Match]\nName=ib0 ib1\n' >"$ROOT/etc/ib-hook.conf"
	chmod 0644 "$ROOT/etc/ib-hook.conf"
fi

# --- boot ---------------------------------------------------------------
note "booting with systemd-nspawn -b --private-network --volatile=overlay"
systemd-nspawn -b --keep-unit --register=no --private-network --volatile=overlay \
	-D "$ROOT" -M "$MACHINE" </dev/null >"$WORK/console.log" 2>&1 &
NSPAWN_PID=$!

find_leader() {
	# The container's PID 1: the nspawn child whose innermost PID is 1.
	local c
	for c in $(pgrep -P "$NSPAWN_PID"); do
		if [ "$(awk '/^NSpid:/ {print $NF}' "/proc/$c/status" 2>/dev/null)" = 1 ]; then
			LEADER=$c
			return 0
		fi
	done
	return 1
}
if ! wait_until 30 find_leader; then
	notok "container did not start within 30 s; console:"
	tail -n 30 "$WORK/console.log" | diag
	exit 1
fi
CT_NETNS=$(readlink "/proc/$LEADER/ns/net")
CT_PIDNS=$(readlink "/proc/$LEADER/ns/pid")
HOST_NETNS=$(readlink /proc/self/ns/net)
if [ "$CT_NETNS" != "$HOST_NETNS" ]; then
	ok "container PID 1 is host pid $LEADER, private network namespace $CT_NETNS"
else
	notok "container shares the host network namespace; stopping"
	exit 1
fi

booted() {
	local s
	s=$(CT_TIMEOUT=10 ct systemctl is-system-running 2>/dev/null)
	BOOTSTATE=$s
	case $s in running|degraded) return 0 ;; esac
	return 1
}
BOOTSTATE=
if wait_until 90 booted; then
	ok "container booted ($BOOTSTATE) at $(elapsed)s"
	[ "$BOOTSTATE" = degraded ] && ct systemctl --failed --no-legend 2>&1 | diag
else
	notok "container not booted within 90 s (state '$BOOTSTATE'); console:"
	tail -n 30 "$WORK/console.log" | diag
	exit 1
fi
note "inside: $(ct systemctl --version | head -n 1), networkd-dispatcher $(ct dpkg-query -W -f '${Version}' networkd-dispatcher)"

# --- 2. networkd configures ib0/ib1 ---------------------------------------
links_ready() {
	local out
	out=$(ct networkctl list --no-legend 2>/dev/null) || return 1
	LINKS=$out
	echo "$out" | grep -Eq '^ *[0-9]+ ib0 +ether +routable +configured' &&
		echo "$out" | grep -Eq '^ *[0-9]+ ib1 +ether +routable +configured'
}
LINKS=
if wait_until 30 links_ready; then
	ok "networkd configured veth ib0/ib1 (routable, configured)"
else
	notok "networkd did not configure ib0/ib1 within 30 s; networkctl:"
	echo "$LINKS" | diag
	ct ip -br addr | diag
	exit 1
fi
ct ip -br addr show | grep '^ib' | diag

# --- smoke mode ends here -------------------------------------------------
if [ $SMOKE = 1 ]; then
	dummy_ran() { ct grep -qx "ib0 routable" /run/e2e-dummy-hook.log && ct grep -qx "ib1 routable" /run/e2e-dummy-hook.log; }
	check "networkd-dispatcher ran the routable.d hook for ib0 and ib1" wait_until 20 dummy_ran
	ct ip link set ib1 down
	dummy_off() { ct grep -qx "ib1 off" /run/e2e-dummy-hook.log; }
	check "networkd-dispatcher ran the off.d hook after 'ip link set ib1 down'" wait_until 20 dummy_off
	ct ip link set ib1 up
	ct journalctl -t ib-hook-dummy -o cat --no-pager | diag
fi

# --- 3. the reference state (SPEC section 7), reached with no manual call --
T0='' T1=''
if [ $SMOKE = 0 ]; then
	IDX0=$(ct cat /sys/class/net/ib0/ifindex)
	IDX1=$(ct cat /sys/class/net/ib1/ifindex)
	T0=$((1000 + IDX0))
	T1=$((1000 + IDX1))
fi
EXP_T0="172.16.0.0/16 dev ib0 proto kernel scope link src 172.16.34.1"
EXP_T1="172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2"

# rule_count ADDR TABLE: number of "from ADDR lookup TABLE" rules
rule_count() { ct ip -4 rule show | grep -Ec "^[0-9]+:[[:space:]]+from $1 lookup $2( |\$)"; }

# ref_state: 0 when the SPEC section 7 state is complete; REASON says why not
ref_state() {
	local rules c0 c1 r0 r1 get pref
	rules=$(ct ip -4 rule show) || { REASON="ip rule failed"; return 1; }
	c0=$(echo "$rules" | grep -Ec "^[0-9]+:[[:space:]]+from 172\.16\.34\.1 lookup $T0( |\$)")
	c1=$(echo "$rules" | grep -Ec "^[0-9]+:[[:space:]]+from 172\.16\.34\.2 lookup $T1( |\$)")
	r0=$(ct ip -4 route show table "$T0" 2>/dev/null | sed 's/[[:space:]]*$//')
	r1=$(ct ip -4 route show table "$T1" 2>/dev/null | sed 's/[[:space:]]*$//')
	get=$(ct ip -4 route get 172.16.16.1 from 172.16.34.2)
	if [ "$c0" != 1 ] || [ "$c1" != 1 ]; then
		REASON="expected one rule each 'from 172.16.34.1 lookup $T0' and 'from 172.16.34.2 lookup $T1', ip rule is: $(echo "$rules" | tr '\n\t' '| ')"
		return 1
	fi
	for pref in $(echo "$rules" | grep -E "from 172\.16\.34\.[12] lookup" | cut -d: -f1); do
		if [ "$pref" -ge 32766 ]; then REASON="rule priority $pref is not before main (32766)"; return 1; fi
	done
	if [ "$r1" != "$EXP_T1" ]; then REASON="table $T1 is '$(echo "$r1" | tr '\n' '|')', expected '$EXP_T1'"; return 1; fi
	if [ "$r0" != "$EXP_T0" ]; then REASON="table $T0 is '$(echo "$r0" | tr '\n' '|')', expected '$EXP_T0'"; return 1; fi
	case $get in
	*" dev ib1 "*) ;;
	*) REASON="'ip route get 172.16.16.1 from 172.16.34.2' says '$get'"; return 1 ;;
	esac
	return 0
}

# ref_state_settled SECONDS: the state appears within SECONDS and is still
# complete 3 s later (networkd deletes foreign state asynchronously)
ref_state_settled() {
	wait_until "$1" ref_state || return 1
	sleep 3
	ref_state
}

if [ $SMOKE = 0 ]; then
	if ref_state_settled 20; then
		ok "reference state after boot, no manual ib-hook call: rules to $T0/$T1 once each, table $T1 '$EXP_T1', route get via ib1"
	else
		notok "reference state not reached within 20 s of networkd configuring ib0/ib1: $REASON"
		ct networkctl list --no-legend | diag
		ct journalctl -b --no-pager -u networkd-dispatcher -t ib-hook -n 30 | diag
	fi
	ct ip rule show | diag
	ct ip route show table "$T1" 2>/dev/null | diag

	# (ip rule prints "proto kernel" only with -d)
	nk=$(ct ip -d -4 rule show | grep -E "from 172\.16\.34\.[12] lookup ($T0|$T1) " | grep -c "proto kernel")
	REASON="$(ct ip -d -4 rule show | grep -E "lookup ($T0|$T1)" | tr '\n\t' '| ')"
	check "ib-hook's two rules carry protocol kernel (SPEC 3.3)" test "$nk" = 2
	ran_by_dispatcher() {
		local j
		j=$(ct journalctl -b -t ib-hook -o json --no-pager 2>/dev/null)
		echo "$j" | grep -q '"ib0"' && echo "$j" | grep -q '"ib1"'
	}
	check "networkd-dispatcher ran the hook at boot (journal has ib-hook messages for ib0 and ib1)" ran_by_dispatcher
	ACTIVE=$(ct systemctl is-active networkd-dispatcher.service)
	check "networkd-dispatcher.service is active ($ACTIVE)" test "$ACTIVE" = active
	ct systemctl is-active systemd-networkd.service >/dev/null ||
		notok "systemd-networkd is not active"
	WACTIVE=$(ct systemctl is-active ib-hook.service)
	check "the watcher, ib-hook.service, started at boot ($WACTIVE)" test "$WACTIVE" = active

	# how long T(ib1) is missing after a networkd restart, polled every ~5 ms
	gap_ms() {
		ct sh -c 'systemctl restart systemd-networkd; gone=""; back=""; i=0
			while [ $i -lt 400 ]; do
				if ip route show table '"$T1"' | grep -q "src 172.16.34.2"; then
					[ -n "$gone" ] && [ -z "$back" ] && back=$(date +%s%N)
				else
					[ -z "$gone" ] && gone=$(date +%s%N)
					back=""
				fi
				i=$((i + 1))
			done
			if [ -z "$gone" ]; then echo 0; elif [ -z "$back" ]; then echo never; else echo $(( (back - gone) / 1000000 )); fi'
	}
	with_watcher=$(gap_ms)
	wait_until 20 links_ready || true
	ref_state_settled 15 || true
	ct systemctl stop ib-hook.service
	dispatcher_only=$(gap_ms)
	wait_until 20 links_ready || true
	ref_state_settled 15 || true
	ct systemctl start ib-hook.service
	note "T($T1) missing after 'systemctl restart systemd-networkd': ${with_watcher} ms with the watcher, ${dispatcher_only} ms with networkd-dispatcher only"
	check "with the watcher, T($T1) comes back after a networkd restart (${with_watcher} ms)" test "$with_watcher" != never
	ct systemctl reload ib-hook.service
	sleep 1
	WACTIVE=$(ct systemctl is-active ib-hook.service)
	reloaded() {
		[ "$WACTIVE" = active ] && ct journalctl -b -u ib-hook.service --no-pager -o cat | grep -q 're-read' && return 0
		REASON="journal of ib-hook.service: $(ct journalctl -b -u ib-hook.service --no-pager -o cat | tail -n 6 | tr '\n' '|')"
		return 1
	}
	check "systemctl reload ib-hook: still active ($WACTIVE) and the config re-read" reloaded

	# --- 4. networkd restarts, reloads, reconfigures --------------------
	for action in "systemctl restart systemd-networkd" "networkctl reload" "networkctl reconfigure ib1"; do
		t0=$SECONDS
		nlog0=$(ct journalctl -b -t ib-hook -o cat --no-pager | wc -l)
		# shellcheck disable=SC2086
		if ! ct $action >"$WORK/action.log" 2>&1; then
			notok "'$action' failed:"
			diag <"$WORK/action.log"
			continue
		fi
		sleep 1
		if ref_state; then immediate="still there 1 s later"; else immediate="missing 1 s later ($REASON)"; fi
		wait_until 20 links_ready || note "networkd did not report ib0/ib1 configured again within 20 s"
		if ref_state_settled 15; then
			nlog=$(( $(ct journalctl -b -t ib-hook -o cat --no-pager | wc -l) - nlog0 ))
			if [ "$nlog" -gt 0 ]; then how="restored by the hook: $nlog change(s) logged"; else how="untouched: no ib-hook change logged"; fi
			ok "rules and table routes present after '$action' ($how; $immediate; settled after $((SECONDS - t0)) s)"
			[ "$nlog" -gt 0 ] && ct journalctl -b -t ib-hook -o cat --no-pager | tail -n "$nlog" | diag
		else
			notok "rules and table routes not present within 15 s after '$action': $REASON"
			ct journalctl -b --no-pager -t ib-hook -n 10 | diag
		fi
	done

	# --- 5. ib1 down and up -----------------------------------------------
	before=$(rule_count 172.16.34.2 "$T1")
	ct ip link set ib1 down
	# (a query that fails is no absence)
	no_rule_ib1() {
		local r
		r=$(ct ip route show table "$T1") && [ -z "$r" ] && ct ip -4 rule show >/dev/null &&
			[ "$(rule_count 172.16.34.2 "$T1")" = 0 ]
	}
	if [ "$before" != 1 ]; then
		notok "'ip link set ib1 down': cannot tell, there was no rule for ib1 before (count $before)"
	elif wait_until 20 no_rule_ib1; then
		ok "'ip link set ib1 down': rule and table $T1 gone (the hook ran for 'off')"
	else
		notok "'ip link set ib1 down': after 20 s ip rule still has 'from 172.16.34.2 lookup $T1' $(rule_count 172.16.34.2 "$T1") time(s), table $T1: '$(ct ip route show table "$T1" 2>/dev/null | tr '\n' '|')'"
	fi
	c0=$(rule_count 172.16.34.1 "$T0")
	check "ib0's rule untouched while ib1 is down (count $c0)" test "$c0" = 1
	ct ip link set ib1 up
	if ref_state_settled 20; then
		ok "'ip link set ib1 up': rule back once, table $T1 and route get as before"
	else
		notok "'ip link set ib1 up': reference state not back within 20 s: $REASON"
	fi
	# and a second bounce must not duplicate anything
	ct ip link set ib1 down
	wait_until 20 no_rule_ib1 || true
	ct ip link set ib1 up
	if ref_state_settled 20; then
		ok "second down/up of ib1: rule once, no duplicate"
	else
		notok "second down/up of ib1: $REASON"
	fi

	# --- 6. the hook's journal messages ----------------------------------
	JSON=$(ct journalctl -b -t ib-hook -o json --no-pager)
	ct journalctl -b -t ib-hook -o short-monotonic --no-pager | diag
	has_fields() {
		# one entry names interface $1 and carries an action and table $2
		echo "$JSON" | grep -E "\"(INTERFACE|IB_HOOK_IFACE|IFACE)\":\"$1\"" |
			grep -E '"(IB_HOOK_ACTION|ACTION)":"[^"]+"' |
			grep -Eq "\"(IB_HOOK_TABLE|TABLE)\":\"$2\""
	}
	check "journalctl -t ib-hook: entries for ib1 with interface, action and table $T1 fields" has_fields ib1 "$T1"
	check "journalctl -t ib-hook: entries for ib0 with interface, action and table $T0 fields" has_fields ib0 "$T0"
	actions=$(echo "$JSON" | grep -E '"(INTERFACE|IB_HOOK_IFACE|IFACE)":"ib1"' |
		grep -oE '"(IB_HOOK_ACTION|ACTION)":"[^"]+"' | sed 's/.*:"//; s/"$//' | sort -u | paste -sd' ' -)
	n=$(echo "$actions" | wc -w)
	check "journal shows both apply and remove actions for ib1 (actions: ${actions:-none})" test "$n" -ge 2
	ident=$(echo "$JSON" | grep -c '"SYSLOG_IDENTIFIER":"ib-hook"')
	check "messages use SYSLOG_IDENTIFIER=ib-hook ($ident entries)" test "$ident" -ge 2

	# --- 6b. a person's run and postinst report, piped, in the journal too
	ct systemctl stop ib-hook.service
	CURSOR=$(ct journalctl -n 0 --show-cursor --no-pager | sed -n 's/^-- cursor: //p')
	ct sh -c 'ib-hook --all --remove 2>&1 | cat' >"$WORK/by-hand.log"
	check "ib-hook --all --remove piped: one line per rule taken back on stderr" \
		grep -q '^ib1: deleted rule from 172.16.34.2 ' "$WORK/by-hand.log"
	# reinstalling runs postinst on the booted system: it applies and says so
	CT_TIMEOUT=120 ct sh -c 'dpkg -i /root/ib-hook.deb </dev/null' >"$WORK/reinstall.log" 2>&1
	check "dpkg -i on the booted host: postinst prints the rules it added" \
		grep -q '^ib1: added rule from 172.16.34.2 ' "$WORK/reinstall.log"
	grep '^ib[01]: ' "$WORK/reinstall.log" | diag
	ct journalctl -t ib-hook --after-cursor "$CURSOR" -o cat --no-pager >"$WORK/since.log" 2>&1
	check "... both runs left the same lines in the journal" \
		sh -c 'grep -q "^ib1: deleted rule from 172.16.34.2 " "$1" && grep -q "^ib1: added rule from 172.16.34.2 " "$1"' sh "$WORK/since.log"
	WACTIVE=$(ct systemctl is-active ib-hook.service)
	check "dpkg -i started ib-hook.service again ($WACTIVE)" test "$WACTIVE" = active
	check "the reference state after the reinstall" ref_state_settled 10

	# --- 7. dpkg -P -------------------------------------------------------
	other_rules() { ct ip -4 rule show | grep -Ev "lookup ($T0|$T1)( |\$)"; ct ip -6 rule show; }
	RULES_BEFORE=$(other_rules)
	MAIN_BEFORE=$(ct ip route show table main; ct ip -6 route show table main)
	ADDR_BEFORE=$(ct ip -br addr show)
	if CT_TIMEOUT=120 ct dpkg -P ib-hook >"$WORK/dpkg-P.log" 2>&1; then
		ok "dpkg -P ib-hook"
	else
		notok "dpkg -P ib-hook failed:"
		diag <"$WORK/dpkg-P.log"
	fi
	gone() {
		local n0 n1 t0r t1r
		n0=$(ct ip rule show | grep -Ec "lookup $T0( |\$)")
		n1=$(ct ip rule show | grep -Ec "lookup $T1( |\$)")
		t0r=$(ct ip route show table "$T0" 2>/dev/null; ct ip -6 route show table "$T0" 2>/dev/null)
		t1r=$(ct ip route show table "$T1" 2>/dev/null; ct ip -6 route show table "$T1" 2>/dev/null)
		[ "$n0$n1" = 00 ] && [ -z "$t0r$t1r" ] && return 0
		REASON="rules to $T0/$T1: $n0/$n1, table $T0: '$t0r', table $T1: '$t1r'"
		return 1
	}
	check "after dpkg -P: no rule points to $T0/$T1 and both tables are empty" gone
	check "after dpkg -P: the other rules are unchanged" test "$(other_rules)" = "$RULES_BEFORE"
	check "after dpkg -P: main table unchanged" test "$(ct ip route show table main; ct ip -6 route show table main)" = "$MAIN_BEFORE"
	check "after dpkg -P: addresses unchanged" test "$(ct ip -br addr show)" = "$ADDR_BEFORE"
	stopped() { ! ct systemctl is-active -q ib-hook.service; }
	check "after dpkg -P: ib-hook.service stopped" stopped
	left=$(ct sh -c 'ls -d /etc/networkd-dispatcher/*/ib-hook /etc/network/if-*.d/ib-hook /usr/lib/NetworkManager/dispatcher.d/90-ib-hook /usr/sbin/ib-hook /lib/systemd/system/ib-hook.service /usr/lib/systemd/system/ib-hook.service /etc/systemd/system/multi-user.target.wants/ib-hook.service 2>/dev/null')
	REASON="left: $(echo "$left" | tr '\n' ' ')"
	check "after dpkg -P: no hook symlinks, binary or unit left" test -z "$left"
	check "after dpkg -P: the administrator's /etc/ib-hook.conf stays" ct test -f /etc/ib-hook.conf
	# networkd-dispatcher keeps working without the hook (no dangling links)
	ct ip link set ib1 down; ct ip link set ib1 up
	sleep 2
	ndfail=$(ct journalctl -b -u networkd-dispatcher --since "-10s" --no-pager -o cat 2>/dev/null | grep -iE 'error|fail|traceback' | head -n 3)
	REASON=$ndfail
	check "networkd-dispatcher runs cleanly after purge" test -z "$ndfail"
fi

# --- 8. power off, nothing left on the host ------------------------------
CT_TIMEOUT=20 ct systemctl poweroff >/dev/null 2>&1
stopped() { ! kill -0 "$NSPAWN_PID" 2>/dev/null; }
if wait_until 60 stopped; then
	wait "$NSPAWN_PID"
	rc=$?
	NSPAWN_PID=
	check "container powered off (systemd-nspawn exit $rc)" test "$rc" = 0
else
	notok "container still running 60 s after 'systemctl poweroff'; killing it"
	stop_container
fi
sleep 0.5
HOST_AFTER=$(host_state)
if [ "$HOST_AFTER" = "$HOST_BEFORE" ]; then
	ok "host: ip rule, ip -6 rule and links unchanged"
else
	notok "host network namespace changed:"
	diff <(echo "$HOST_BEFORE") <(echo "$HOST_AFTER") | diag
fi
ns_left() {
	local f
	lsns -n -o NS -t net | grep -qx "${CT_NETNS//[^0-9]/}" && { REASON="net namespace $CT_NETNS still has processes"; return 1; }
	lsns -n -o NS -t pid | grep -qx "${CT_PIDNS//[^0-9]/}" && { REASON="pid namespace $CT_PIDNS still has processes"; return 1; }
	for f in /run/netns/* /var/run/netns/*; do
		[ -e "$f" ] || continue
		[ "$(stat -L -c %i "$f" 2>/dev/null)" = "${CT_NETNS//[^0-9]/}" ] && { REASON="$f is the container's namespace"; return 1; }
	done
	return 0
}
check "host: the container's network and pid namespaces are gone" ns_left
MOUNTS_AFTER=$(host_mounts)
newm=$(comm -13 <(echo "$MOUNTS_BEFORE") <(echo "$MOUNTS_AFTER"))
# Only mounts this test could have made count; others belong to concurrent jobs.
others=$(echo "$newm" | grep -v -e "^$WORK" -e '^/run/systemd/nspawn' -e "$MACHINE" | grep -v '^$')
[ -n "$others" ] && note "new host mounts not made by this test (another job?): $(echo "$others" | tr '\n' ' ')"
newm=$(echo "$newm" | grep -e "^$WORK" -e '^/run/systemd/nspawn' -e "$MACHINE")
REASON="new mounts: $(echo "$newm" | tr '\n' ' ')"
check "host: no new mounts" test -z "$newm"
REASON="still exists"
check "host: no /run/systemd/nspawn/propagate/$MACHINE left" test ! -e "/run/systemd/nspawn/propagate/$MACHINE"
if [ "${E2E_KEEP:-0}" != 1 ]; then
	rm -rf --one-file-system "$WORK"
	check "host: work directory removed" test ! -e "$WORK"
fi

echo "1..$CHECKS"
echo "# $((CHECKS - FAILS))/$CHECKS passed in $(elapsed) s"
[ $FAILS = 0 ]
