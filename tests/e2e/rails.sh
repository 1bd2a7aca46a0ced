#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end test of routed rails (SPEC section 9, issue 33 done-means 4):
# the package on a booted Debian 12 host whose four ports systemd-networkd
# configures, in tests/rails/fabric.sh's routed fabric.
#
#   tests/e2e/rails.sh PATH-TO-DEB     (root)
#
# The root comes from tests/e2e/root.sh (networkd, cached); it is booted with
# `systemd-nspawn -b --private-network --volatile=overlay` and is host a of
# the fabric: its ports ib0-ib3 are veths into the rail routers' namespaces
# (strict rp_filter, joined by a spine), each with a .network file: a /31 and
# an IPv6 /64, `Gateway=` the rail router's address with a metric per port
# (100-103), IPv6 `Gateway=fe80::1`. Host b is a plain namespace with policy
# routing of its own (no ib-hook). ib-hook's only configuration is the
# ports' names (veths are not matched by default). Before the package, the
# pairs from ports 1-3 fail; after `dpkg -i`, every directed pair from a's
# four ports to b's four, IPv4 and IPv6, answers a ping from the source
# address, out of the source port (packet counters), main and the rules as
# before; and so after `networkctl reconfigure` and a restart of networkd.
# With ib-hook's watcher and networkd-dispatcher stopped, networkd's
# foreign-route cleanup deletes a hand-made copy in T(X) and leaves
# ib-hook's. The host's network namespace is never changed.
#
# Output: TAP. Exit 0 all passed, 1 a check failed, 77 a prerequisite is
# missing.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/rails/fabric.sh
. "$here/../rails/fabric.sh"
# shellcheck source=tests/e2e/container.sh
. "$here/container.sh"
export LC_ALL=C.UTF-8
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
DEB=${1:?usage: rails.sh PATH-TO-DEB}
TIME_LIMIT=${E2E_TIME_LIMIT:-300}

[ "$(id -u)" = 0 ] || skip "must run as root"
for t in mmdebstrap systemd-nspawn nsenter ping tar timeout; do
	command -v "$t" >/dev/null 2>&1 || skip "'$t' is missing"
done
[ -f "$DEB" ] || { not_ok "no .deb '$DEB'"; done_testing; }

WORK='' WATCHDOG=''
MACHINE=ibhook-rails-$$
host_state() { ip rule show; ip -6 rule show; ip -o link show | awk -F': ' '{print $2}' | sort; }
HOST_BEFORE=$(host_state)
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	[ -n "$WATCHDOG" ] && kill "$WATCHDOG" 2>/dev/null
	remove_work
	ip netns del "$(ns a)" 2>/dev/null
	t_cleanup
	exit $rc
}
trap cleanup EXIT
trap 'not_ok "interrupted"; exit 1' INT
trap 'not_ok "time limit of ${TIME_LIMIT}s exceeded"; exit 1' TERM
start_watchdog "$TIME_LIMIT"
diag() { sed 's/^/#   /'; }

echo "# ib-hook end-to-end test: routed rails, systemd-networkd in a booted bookworm container"
TAR=$("$here/root.sh" networkd bookworm) || {
	[ $? = 77 ] && skip "no Debian mirror configured"
	not_ok "building the bookworm root"
	done_testing
}
unpack_root "$TAR" ib-hook-rails || { not_ok "unpacking $TAR"; done_testing; }
systemctl --root="$ROOT" enable systemd-networkd.service systemd-networkd.socket >/dev/null 2>&1
systemctl --root="$ROOT" disable systemd-networkd-wait-online.service >/dev/null 2>&1
mkdir -p "$ROOT/etc/systemd/network"
for rl in $RAILS; do
	cat >"$ROOT/etc/systemd/network/10-ib$rl.network" <<-NETWORK
	[Match]
	Name=ib$rl

	[Network]
	Address=$(addr4 a "$rl")/31
	Address=$(addr6 a "$rl")/64
	IPv6AcceptRA=no

	[Route]
	Gateway=$(gw4 a "$rl")
	Metric=$((100 + rl))

	[Route]
	Gateway=fe80::1
	Metric=$((100 + rl))
	NETWORK
done
printf '[Match]\nName=ib0 ib1 ib2 ib3\n' >"$ROOT/etc/ib-hook.conf"
cp "$DEB" "$ROOT/root/ib-hook.deb"

boot || { not_ok "the container did not boot"; tail -n 30 "$CONSOLE" | diag; done_testing; }
ok "booted bookworm: $(ct networkctl --version | head -n 1) (${SECONDS} s)"
# the container's namespace as host a of the fabric (not in T_NS: t_cleanup
# kills the processes of its namespaces)
ip netns attach "$(ns a)" "$LEADER" || { not_ok "ip netns attach"; done_testing; }
ns_new b
quiet b
routers
for rl in $RAILS; do
	rail_port a "$rl"
	rail_port b "$rl"
	addr b "ib$rl" "$(addr4 b "$rl")/31"
	addr b "ib$rl" "$(addr6 b "$rl")/64"
	ip -n "$(ns b)" route add default via "$(gw4 b "$rl")" dev "ib$rl" table $((10 + rl))
	ip -n "$(ns b)" -6 route add default via fe80::1 dev "ib$rl" table $((10 + rl))
	ip -n "$(ns b)" rule add from "$(addr4 b "$rl")" lookup $((10 + rl))
	ip -n "$(ns b)" -6 rule add from "$(addr6 b "$rl")" lookup $((10 + rl))
done

# configured: networkd has configured the four ports and main holds their
# gateway routes, IPv4 and IPv6
configured() {
	local out
	out=$(ct networkctl list --no-legend 2>/dev/null) || return 1
	[ "$(echo "$out" | grep -Ec ' ib[0-3] +ether +routable +configured')" = 4 ] &&
		[ "$(ip -n "$(ns a)" route show default | grep -c 'proto static')" = 4 ] &&
		[ "$(ip -n "$(ns a)" -6 route show default | grep -c 'proto static')" = 4 ]
}
if wait_until 30 configured; then
	ok "networkd configured ib0-ib3 from their .network files"
else
	not_ok "networkd did not configure ib0-ib3 within 30 s"
	ct networkctl list --no-legend | diag
	ct journalctl -b -u systemd-networkd --no-pager -o cat | tail -n 20 | diag
	{ ip -n "$(ns a)" route; ip -n "$(ns a)" -6 route; } | diag
	done_testing
fi
{ ip -n "$(ns a)" route show default; ip -n "$(ns a)" -6 route show default; } | diag

# main_and_rules: main and every rule, IPv4 and IPv6 (ib-hook's rules apart)
main_and_rules() {
	ip -n "$(ns a)" route show table main
	ip -n "$(ns a)" -6 route show table main
	ip -n "$(ns a)" rule show | grep -Ev ' lookup 10[0-9]{2}( |$)'
	ip -n "$(ns a)" -6 rule show | grep -Ev ' lookup 10[0-9]{2}( |$)'
}
BEFORE=$(main_and_rules)
v4=$(pairs 4 a)
f4=$(grep -c ' ib[123] ->' "$T_DIR/failed")
v6=$(pairs 6 a)
f6=$(grep -c ' ib[123] ->' "$T_DIR/failed")
expect_eq "before the package: IPv4: the 12 pairs from ports 1-3 fail ($v4 of 16 pass)" 12 "$f4"
expect_eq "before the package: IPv6: the 12 pairs from ports 1-3 fail ($v6 of 16 pass)" 12 "$f6"
expect_eq "before the package: the 8 pairs from ib0 answer, out of ib0" 8 "$((v4 + v6))"

CT_TIMEOUT=120 ct dpkg -i --force-confold /root/ib-hook.deb >"$T_DIR/dpkg.log" 2>&1
expect_eq "dpkg -i $(basename "$DEB")" 0 "$?"
grep '^ib[0-3]: ' "$T_DIR/dpkg.log" | diag

# status_ok: ib-hook --status in the container says every port is ok
status_ok() { ct ib-hook --status >"$T_DIR/status" 2>&1; }
# copies: each port's table holds the copies of its two gateway routes
copies() {
	local rl t
	for rl in $RAILS; do
		t=$(table_of a "ib$rl")
		ip -n "$(ns a)" route show table "$t" |
			grep -q "^default via $(gw4 a "$rl") dev ib$rl proto kernel metric $((100 + rl)) *\$" ||
			{ REASON="T(ib$rl) lacks the copy of its IPv4 default"; return 1; }
		ip -n "$(ns a)" -6 route show table "$t" |
			grep -q "^default via fe80::1 dev ib$rl proto kernel metric $((100 + rl)) " ||
			{ REASON="T(ib$rl) lacks the copy of its IPv6 default"; return 1; }
	done
}
# all_pairs WHEN: every pair from a answers, out of its source port
all_pairs() {
	expect_eq "$1: IPv4: all 16 pairs answer, out of the source port" 16 "$(pairs 4 a)"
	diag <"$T_DIR/failed"
	expect_eq "$1: IPv6: all 16 pairs answer, out of the source port" 16 "$(pairs 6 a)"
	diag <"$T_DIR/failed"
}

check "after dpkg -i: ib-hook --status says ok" wait_until 20 status_ok
diag <"$T_DIR/status"
REASON=
check "after dpkg -i: each T(X) holds the copies of X's IPv4 and IPv6 defaults" copies
[ -z "$REASON" ] || echo "# $REASON"
expect_eq "after dpkg -i: main and the rules are byte-identical" "$BEFORE" "$(main_and_rules)"
all_pairs "after dpkg -i"

settled() { configured && status_ok && copies; }
# mon_start / mon_stop: the container's address notifications, in $T_DIR/mon
MON=''
mon_start() {
	ip -n "$(ns a)" monitor address >"$T_DIR/mon" 2>&1 &
	MON=$!
}
mon_stop() { kill "$MON"; wait "$MON" 2>/dev/null; }
# readdressed: since mon_start, each port's IPv4 address was set (again)
readdressed() {
	local rl
	for rl in $RAILS; do
		grep -Eq "^[0-9]+: ib$rl +inet $(addr4 a "$rl")/31 " "$T_DIR/mon" || return 1
	done
}
for action in "networkctl reconfigure ib0 ib1 ib2 ib3" "systemctl restart systemd-networkd"; do
	t0=$SECONDS
	mon_start
	# shellcheck disable=SC2086 # the action's words
	ct $action >"$T_DIR/action.log" 2>&1 || { not_ok "'$action' failed"; diag <"$T_DIR/action.log"; }
	REASON=
	check "'$action': networkd sets the ports' addresses again" wait_until 30 readdressed
	mon_stop
	check "'$action': networkd configures the ports again, --status ok, copies there" \
		wait_until 30 settled
	[ -z "$REASON" ] || echo "# $REASON"
	echo "# settled $((SECONDS - t0)) s after '$action'"
	all_pairs "after '$action'"
done

# networkd's foreign-route cleanup (ManageForeignRoutes=yes) on its own: the
# watcher and the dispatcher stopped, hand-made copies (proto static) put into
# T(ib1). Measured with networkd 252: a restart deletes no route; `networkctl
# reconfigure ib1` deletes the hand-made IPv6 copy and leaves ib-hook's, and
# takes ib1's addresses away and back, on which the kernel drops every IPv4
# route through ib1 in every table (the watcher puts T(ib1)'s back: above).
ct systemctl stop ib-hook.service networkd-dispatcher.service
t1=$(table_of a ib1)
# ours FAMILY: T(ib1)'s routes but the hand-made ones
ours() { ip -n "$(ns a)" "-$1" route show table "$t1" | grep -v 'proto static'; }
hand_made() { ip -n "$(ns a)" "-$1" route show table "$t1" proto static; }
ip -n "$(ns a)" route add 10.77.0.0/16 via "$(gw4 a 1)" dev ib1 proto static metric 101 table "$t1"
ip -n "$(ns a)" -6 route add fd77::/16 via fe80::1 dev ib1 proto static metric 101 table "$t1"
OURS4=$(ours 4) OURS6=$(ours 6)
mon_start
ct systemctl restart systemd-networkd
check "no watcher, no dispatcher: networkd restarted, addresses set again" wait_until 30 readdressed
mon_stop
wait_until 30 configured
expect_eq "... ib-hook's IPv4 routes in T(ib1) stay" "$OURS4" "$(ours 4)"
expect_eq "... ib-hook's IPv6 routes in T(ib1) stay" "$OURS6" "$(ours 6)"
echo "# hand-made copies in T(ib1) after the restart: $(hand_made 4 | wc -l) IPv4, $(hand_made 6 | wc -l) IPv6"
mon_start
ct networkctl reconfigure ib1
grep_ib1() { grep -Eq "^[0-9]+: ib1 +inet $(addr4 a 1)/31 " "$T_DIR/mon"; }
check "no watcher, no dispatcher: 'networkctl reconfigure ib1' sets ib1's address again" \
	wait_until 30 grep_ib1
mon_stop
hand_made_gone() { local r; r=$(hand_made 6) && [ -z "$r" ]; } # (a query that fails is no absence)
check "... networkd deletes the hand-made IPv6 copy in T(ib1)" wait_until 20 hand_made_gone
wait_until 30 configured
expect_eq "... and leaves ib-hook's IPv6 routes there" "$OURS6" "$(ours 6)"
echo "# IPv4 routes in T(ib1) after the reconfigure: $(ip -n "$(ns a)" route show table "$t1" | wc -l)"
ct systemctl start ib-hook.service networkd-dispatcher.service
check "the watcher started again: --status ok" wait_until 20 status_ok

CT_TIMEOUT=20 ct systemctl poweroff >/dev/null 2>&1
stopped() { ! kill -0 "$NSPAWN_PID" 2>/dev/null; }
check "the container powers off" wait_until 60 stopped
stop_container
ip netns del "$(ns a)"
expect_eq "the host's rules and links are as before" "$HOST_BEFORE" "$(host_state)"
echo "# ${SECONDS} s"
done_testing
