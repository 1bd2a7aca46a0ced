#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The "Running a lab" recipes, run for real (issue 24): three booted Debian 12
# hosts node01..node03, reached over SSH from a control side, get ib-hook
# from the Ansible playbook contrib/ansible/ib-hook.yml (first as a dry run,
# --check, which must pass and install nothing); doc/lab.md's clush and pdsh
# lines, the LBNL NHC check contrib/nhc/ib-hook.nhc and the node_exporter
# textfile timer contrib/node-exporter/ then run against them, before and
# after a port drifts on node03, and with a typo in a drop-in on node02,
# which every check must report (issue 29, items 11-13). The fleet view's
# clush recipe (doc/fleet.md) and contrib/ansible/ib-hook-fleet.yml run
# before and after the drift: all pairs between hosts ok, then the drift at
# node03's ib1 and nowhere else (issue 31).
#
#   tests/lab/lab.sh PATH-TO-DEB     (root; CI: .ci/lab.sh)
#
# The hosts are systemd-nspawn containers (-b --volatile=overlay) of a root
# cached by tests/e2e/root.sh (kind "lab": ifupdown, openssh-server, python3,
# python3-apt, sudo, jq, prometheus-node-exporter), each in a network namespace of
# its own with eth0 (management, 192.168.77.1N/24) and ib0, ib1 (172.16.N.1
# and 172.16.N.2/16), configured by ifupdown at boot. Their peers are on two
# bridges in the lab's namespace, where the control side runs (ip netns exec)
# with its own /root and /etc/hosts (a private mount namespace): an SSH key
# and known_hosts the test makes. ib-hook is not installed in the root: the
# playbook installs it. /etc/ib-hook.conf (Name=ib0 ib1) stands in for the
# IPoIB ports, which veth pairs are not. The host's network namespace is
# never changed.
#
# Output: "PASS: lab: ..." / "FAIL: lab: ..." per check, "# ..." diagnostics.
# Exit 0 all passed, 1 a check failed, 77 a prerequisite is missing.
set -u
export LC_ALL=C.UTF-8
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
DEB=${1:?usage: lab.sh PATH-TO-DEB}
TIME_LIMIT=${LAB_TIME_LIMIT:-480}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
page=$top/doc/lab.md
fleet_page=$top/doc/fleet.md
CONTRIB=$top/contrib

skip() { echo "SKIP: $*" >&2; exit 77; }
[ "$(id -u)" = 0 ] || skip "must run as root"
for t in mmdebstrap systemd-nspawn nsenter unshare tar timeout ip ssh ssh-keygen \
	ansible-playbook clush pdsh dshbak curl jq; do
	command -v "$t" >/dev/null 2>&1 || skip "'$t' is missing"
done
[ -f "$DEB" ] || { echo "FAIL: lab: no .deb '$DEB'"; exit 1; }
DEB=$(cd "$(dirname "$DEB")" && pwd)/$(basename "$DEB")

FAILS=0
REASON=
pass() { echo "PASS: lab: $*"; }
fail() { FAILS=$((FAILS + 1)); echo "FAIL: lab: $*"; }
diag() { sed 's/^/#   /'; }
check() { local d=$1; shift; if "$@"; then pass "$d"; else fail "$d${REASON:+: $REASON}"; fi; REASON=; }

# snippet NAME [PAGE]: the fenced block after <!-- lab-test: NAME --> in
# PAGE (default doc/lab.md)
snippet() {
	awk -v m="<!-- lab-test: $1 -->" '
		$0 == m { f = 1; next }
		f && !g && /^```/ { g = 1; next }
		g && /^```$/ { exit }
		g { print }' "${2:-$page}"
}
for s in ports clush pdsh; do
	[ -n "$(snippet "$s")" ] || { echo "FAIL: lab: doc/lab.md has no '$s' snippet"; exit 1; }
done
[ -n "$(snippet fleet-clush "$fleet_page")" ] || { echo "FAIL: lab: doc/fleet.md has no 'fleet-clush' snippet"; exit 1; }
for f in ansible/ib-hook.yml ansible/ib-hook-fleet.yml nhc/ib-hook.nhc node-exporter/ib-hook-textfile \
	node-exporter/ib-hook-textfile.service node-exporter/ib-hook-textfile.timer; do
	[ -s "$CONTRIB/$f" ] || { echo "FAIL: lab: no contrib/$f"; exit 1; }
done

# shellcheck source=tests/e2e/container.sh
. "$top/tests/e2e/container.sh"
HOSTS="node01 node02 node03"
LAB=ibhlab-$$ # the lab's network namespace: bridges and the control side
W='' WATCHDOG=
declare -A PID LEAD ROOTS WORKS
host_state() {
	ip -4 rule show
	ip -6 rule show
	ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^(ib[01]|eth0|n0[1-3]-.*|br-.*)$'
}
HOST_BEFORE=$(host_state)
stop_all() {
	local h
	for h in $HOSTS; do
		[ -n "${PID[$h]:-}" ] && kill -TERM "${PID[$h]}" 2>/dev/null
	done
	for h in $HOSTS; do
		[ -n "${PID[$h]:-}" ] || continue
		NSPAWN_PID=${PID[$h]}
		stop_container # waits, SIGKILL after 20 s
		PID[$h]=
	done
}
cleanup() {
	local rc=$? h
	trap - EXIT INT TERM
	[ -n "$WATCHDOG" ] && kill "$WATCHDOG" 2>/dev/null
	stop_all
	for h in $HOSTS; do
		ip netns del "$LAB-$h" 2>/dev/null
		WORK=${WORKS[$h]:-}
		remove_work
	done
	ip netns del "$LAB" 2>/dev/null
	[ -n "$W" ] && rm -rf --one-file-system "$W"
	exit $rc
}
trap cleanup EXIT
# fd 3: the test's stdout, for the traps (they may run inside a function
# whose output is redirected to a log)
exec 3>&1
trap 'fail "interrupted" >&3; exit 1' INT
trap 'fail "time limit of ${TIME_LIMIT}s exceeded" >&3; exit 1' TERM

echo "# the lab recipes of doc/lab.md against three booted bookworm hosts"
TAR=$("$top/tests/e2e/root.sh" lab bookworm) || {
	[ $? = 77 ] && skip "no Debian mirror configured"
	fail "building the bookworm root of kind lab"
	exit 1
}
echo "# root $(basename "$TAR") (${SECONDS}s)"
start_watchdog "$TIME_LIMIT"
T0=$SECONDS
W=$(mktemp -d /var/tmp/ib-hook-lab.XXXXXX) || exit 1
mkdir -m 0700 "$W/home" "$W/home/.ssh"
ssh-keygen -q -t ed25519 -N '' -C ib-hook-lab -f "$W/home/.ssh/id_ed25519"
printf '127.0.0.1\tlocalhost\n' >"$W/hosts"

# --- the network: a namespace per host, bridges in the lab's namespace
ip netns add "$LAB" || { fail "ip netns add $LAB"; exit 1; }
ip -n "$LAB" link set lo up
ip -n "$LAB" link add br-mgmt type bridge
ip -n "$LAB" link add br-ib type bridge
ip -n "$LAB" addr add 192.168.77.1/24 dev br-mgmt
ip -n "$LAB" link set br-mgmt up
ip -n "$LAB" link set br-ib up
n=0
for h in $HOSTS; do
	n=$((n + 1))
	ip netns add "$LAB-$h" || { fail "ip netns add $LAB-$h"; exit 1; }
	for p in eth0 ib0 ib1; do
		ip -n "$LAB" link add "$h-$p" type veth peer name "$p" netns "$LAB-$h" || { fail "veth $h-$p"; exit 1; }
		br=ib
		[ $p = eth0 ] && br=mgmt
		ip -n "$LAB" link set "$h-$p" master "br-$br" up
	done
	MACHINE=ibhlab$$-$h
	unpack_root "$TAR" "ib-hook-lab-$h" || { fail "unpacking $TAR"; exit 1; }
	WORKS[$h]=$WORK ROOTS[$h]=$ROOT
	echo "$h" >"$ROOT/etc/hostname"
	cat >"$ROOT/etc/network/interfaces" <<-IFACES
	auto lo
	iface lo inet loopback

	auto eth0
	iface eth0 inet static
		address 192.168.77.1$n/24

	auto ib0
	iface ib0 inet static
		address 172.16.$n.1/16

	auto ib1
	iface ib1 inet static
		address 172.16.$n.2/16
	IFACES
	printf '[Match]\nName=ib0 ib1\n' >"$ROOT/etc/ib-hook.conf"
	systemctl --root="$ROOT" enable networking.service >/dev/null 2>&1
	# a host key of its own, known to the control side
	rm -f "$ROOT"/etc/ssh/ssh_host_*
	ssh-keygen -q -t ed25519 -N '' -C "$h" -f "$ROOT/etc/ssh/ssh_host_ed25519_key"
	echo "$h,192.168.77.1$n $(cut -d' ' -f1-2 "$ROOT/etc/ssh/ssh_host_ed25519_key.pub")" >>"$W/home/.ssh/known_hosts"
	install -d -m 0700 "$ROOT/root/.ssh"
	install -m 0600 "$W/home/.ssh/id_ed25519.pub" "$ROOT/root/.ssh/authorized_keys"
	printf '192.168.77.1%s\t%s\n' "$n" "$h" >>"$W/hosts"
done

# --- boot the three at once
for h in $HOSTS; do
	systemd-nspawn -b --keep-unit --register=no --network-namespace-path="/run/netns/$LAB-$h" \
		--capability=CAP_NET_ADMIN \
		--volatile=overlay -D "${ROOTS[$h]}" -M "ibhlab$$-$h" </dev/null >>"${WORKS[$h]}/console.log" 2>&1 &
	PID[$h]=$!
done
for h in $HOSTS; do
	NSPAWN_PID=${PID[$h]}
	LEADER=
	if ! wait_until 30 find_leader; then
		# systemd-nspawn itself could not start a container here (no
		# namespaces, cgroups or capabilities for it): nothing to test
		tail -n 20 "${WORKS[$h]}/console.log" | diag
		skip "containers cannot boot here: $(grep . "${WORKS[$h]}/console.log" | tail -n 1)"
	fi
	LEAD[$h]=$LEADER
	if [ "$(stat -L -c %i "/proc/$LEADER/ns/net")" != "$(stat -L -c %i "/run/netns/$LAB-$h")" ]; then
		fail "$h: not in its network namespace"
		exit 1
	fi
done
for h in $HOSTS; do
	LEADER=${LEAD[$h]}
	wait_until 90 booted || { fail "$h did not boot"; tail -n 30 "${WORKS[$h]}/console.log" | diag; exit 1; }
done
on() { local h=$1; shift; LEADER=${LEAD[$h]} ct "$@"; }
# systemd-nspawn 252 with --network-namespace-path leaves the container a
# /sys/class/net of the namespace nspawn started in, not of its own (no ib0
# or ib1 there): the fleet view asks the kernel for hardware addresses over
# netlink, so the hosts are left as nspawn makes them
for h in $HOSTS; do
	echo "# $h: /sys/class/net/ib1 $(on "$h" sh -c 'test -e /sys/class/net/ib1 && echo is || echo is not') there"
done
pass "three hosts booted ($(on node01 systemctl --version | head -n 1)) in $((SECONDS - T0))s"

# control CMD...: in the lab's namespace, with the test's /root and /etc/hosts
control() {
	ip netns exec "$LAB" unshare --mount --propagation private -- sh -c '
		mount --bind "$1/hosts" /etc/hosts && mount --bind "$1/home" /root || exit 125
		shift; cd /root && exec env -i PATH=/root/ctl/usr/sbin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=dumb ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 \
			ANSIBLE_SSH_ARGS="-o ControlMaster=no" ANSIBLE_PIPELINING=1 "$@"' sh "$W" "$@"
}
sshd_up() { control ssh -o BatchMode=yes -o ConnectTimeout=5 "$1" true 2>/dev/null; }
for h in $HOSTS; do
	wait_until 30 sshd_up "$h" || REASON="ssh $h: $(control ssh -o BatchMode=yes -o ConnectTimeout=5 "$h" true 2>&1 | tail -n 2 | tr '\n' '|')"
	check "$h: reached from the control side by SSH with the test's key and known_hosts" sshd_up "$h"
done
if [ $FAILS != 0 ]; then
	on node01 ip -br addr | diag
	on node01 systemctl --no-pager --failed | diag
	on node01 journalctl -b --no-pager -u networking.service -u ssh.service | tail -n 20 | diag
	exit 1
fi

# --- the playbook, as written
cp "$CONTRIB/ansible/ib-hook.yml" "$W/home/site.yml"
cp "$DEB" "$W/home/"
# the control node has ib-hook too, for the fleet view's --join: the .deb's
# files unpacked under /root/ctl, on the control side's PATH
dpkg-deb -x "$DEB" "$W/home/ctl" || { fail "dpkg-deb -x $DEB"; exit 1; }
printf '[rdma]\nnode01\nnode02\nnode03\n' >"$W/home/hosts.ini"
play() { # play N [ARG...]: run the playbook; its output in $W/play-N.log, its status in PLAY_RC
	local t=$SECONDS n=$1
	shift
	control timeout 180 ansible-playbook -i hosts.ini -e "ib_hook_deb=$(basename "$DEB")" "$@" site.yml >"$W/play-$n.log" 2>&1
	PLAY_RC=$?
	echo "# ansible-playbook run $n${1:+ $*}: exit $PLAY_RC in $((SECONDS - t))s"
	sed -n '/^PLAY RECAP/,$p' "$W/play-$n.log" | diag
}
recap() { # recap HOST FIELD: the number in the PLAY RECAP line
	sed -n "/^PLAY RECAP/,\$ s/^$1 .* $2=\([0-9]*\).*/\1/p" "$W/play-$PLAY_N.log"
}
all_recap() { # all_recap FIELD OP N: FIELD OP N on every host
	local h v
	for h in $HOSTS; do
		v=$(recap "$h" "$1")
		[ -n "$v" ] && test "$v" "$2" "$3" || { REASON="$h: $1=${v:-none}"; return 1; }
	done
}

first_recap() { all_recap changed -gt 0 && all_recap failed -eq 0 && all_recap unreachable -eq 0; }
# the admin's first dry run, on hosts that have never had ib-hook: it
# passes, says what it would do, and changes nothing
PLAY_N=0
play 0 --check
if [ "$PLAY_RC" != 0 ]; then
	grep -E '^(fatal|failed|ERROR)|FAILED|msg' "$W/play-0.log" | head -n 20 | diag
fi
REASON="exit $PLAY_RC"
check "playbook --check on new hosts: exit 0" test "$PLAY_RC" = 0
check "playbook --check on new hosts: changed on every host, failed and unreachable on none" first_recap
n=$(grep -c '^changed: \[node0[1-3]\] => {' "$W/play-0.log")
REASON="$n hosts"
check "playbook --check on new hosts: each says ib-hook would be installed" \
	sh -c '[ "$1" = 3 ] && grep -q "it would be copied and installed" "$2"' sh "$n" "$W/play-0.log"
for h in $HOSTS; do
	v=$(on "$h" sh -c 'dpkg-query -W -f "\${Status}" ib-hook 2>/dev/null; ls /etc/ib-hook.conf.d 2>/dev/null')
	REASON="'$v'"
	check "$h: playbook --check installed and wrote nothing" test -z "$v" -o "$v" = "unknown ok not-installed"
done

PLAY_N=1
play 1
if [ "$PLAY_RC" != 0 ]; then
	grep -E '^(fatal|failed|ERROR)|FAILED|msg' "$W/play-1.log" | head -n 20 | diag
fi
REASON="exit $PLAY_RC"
check "playbook, first run: exit 0" test "$PLAY_RC" = 0
check "playbook, first run: changed on every host, failed and unreachable on none" first_recap
VERSION=$(dpkg-deb -f "$DEB" Version)
for h in $HOSTS; do
	v=$(on "$h" dpkg-query -W -f '${Status} ${Version}' ib-hook 2>&1)
	REASON="'$v'"
	check "$h: ib-hook $VERSION installed by the playbook" test "$v" = "install ok installed $VERSION"
done
want=$(sed -n '/content: |/,/notify:/p' "$CONTRIB/ansible/ib-hook.yml" | sed '1d;$d' | sed 's/^          //')
for h in $HOSTS; do
	got=$(on "$h" cat /etc/ib-hook.conf.d/50-lab.conf 2>&1)
	REASON="'$(echo "$got" | tr '\n' '|')'"
	check "$h: the drop-in /etc/ib-hook.conf.d/50-lab.conf is the recipe's" test "$got" = "$want"
done
hcount=$(grep -c '^RUNNING HANDLER \[reload ib-hook\]' "$W/play-1.log")
REASON="$hcount RUNNING HANDLER lines"
check "playbook, first run: the handler 'reload ib-hook' ran" test "$hcount" = 1
# the state the drop-in asks for: tables 941/942, no prefix route of ib0/ib1 in main
lab_state() { # lab_state HOST N
	local rules main
	rules=$(on "$1" ip -4 rule show)
	main=$(on "$1" ip -4 route show table main)
	echo "$rules" | grep -Eq "from 172\.16\.$2\.1 lookup 941( |\$)" &&
		echo "$rules" | grep -Eq "from 172\.16\.$2\.2 lookup 942( |\$)" &&
		[ "$(on "$1" ip -4 route show table 942 | sed 's/[[:space:]]*$//')" = "172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.$2.2" ] &&
		! echo "$main" | grep -q 'dev ib[01]' && return 0
	REASON="rules: $(echo "$rules" | tr '\n\t' '| '); table 942: $(on "$1" ip -4 route show table 942 | tr '\n' '|'); main: $(echo "$main" | tr '\n' '|')"
	return 1
}
n=0
for h in $HOSTS; do
	n=$((n + 1))
	check "$h: the watcher applied the drop-in on reload (tables 941/942, MainRoute=delete)" lab_state "$h" $n
	reloads=$(on "$h" journalctl -b -u ib-hook.service -o cat --no-pager | grep -c '^Reload')
	REASON="$reloads 'Reload...' lines of systemd about ib-hook.service"
	check "$h: systemd reloaded ib-hook.service" test "$reloads" -ge 1
done
grep -E '^(TASK|RUNNING HANDLER|changed|ok|fatal)' "$W/play-1.log" | head -n 40 | diag

PLAY_N=2
play 2
REASON="exit $PLAY_RC"
check "playbook, second run: exit 0" test "$PLAY_RC" = 0
second_recap() { all_recap ok -gt 0 && all_recap changed -eq 0 && all_recap failed -eq 0; }
check "playbook, second run: changed=0 on every host (idempotent)" second_recap
REASON="the handler ran"
check "playbook, second run: the handler did not run" sh -c '! grep -q "^RUNNING HANDLER" "$1"' sh "$W/play-2.log"
PLAY_N=4
play 4 --check
REASON="exit $PLAY_RC"
check "playbook --check on the healthy lab: exit 0" test "$PLAY_RC" = 0
check "playbook --check on the healthy lab: changed=0, failed=0 on every host" second_recap
REASON="$(grep -c '^skipping: \[node0[1-3]\]' "$W/play-4.log") skipping lines"
check "playbook --check on the healthy lab: the status ran and the assertion held on every host" \
	sh -c '[ "$(grep -c "^ok: \[node0[1-3]\] => {" "$1")" = 3 ] && [ "$(grep -c "All assertions passed" "$1")" = 3 ]' sh "$W/play-4.log"

# --- the fleet view (doc/fleet.md, issue 31): the clush recipe as written and
# the playbook contrib/ansible/ib-hook-fleet.yml; 3 hosts x 2 ports: 30
# directed pairs, 6 of them between two ports of one host (local)
cp "$CONTRIB/ansible/ib-hook-fleet.yml" "$W/home/fleet.yml"
fleet_clush=$(snippet fleet-clush "$fleet_page" | sed "s/node\[01-40\]/node[01-03]/g")
# matrix_is DIR [HOST PORT]: the matrix of DIR's inventory.json and
# answers.json (joined again, as JSON, on the control side) has the 30 pairs,
# 6 local; without HOST PORT all 24 between hosts are ok; with them, the
# pairs from HOST PORT to the other hosts' ports and back (its rule lost
# under MainRoute=delete, it has no route either way) are not ok, every pair
# not ok is placed at HOST PORT and has it at one end, and all others are ok
matrix_is() {
	local dir=$1
	shift
	REASON=$(control sh -c 'cd "$1" && ib-hook --join --fleet inventory.json --json answers.json' sh "$dir" 2>&1 |
		python3 -c '
import collections, json, sys
drift = tuple(sys.argv[1:3]) or None
try:
    m = json.load(sys.stdin)
except ValueError as e:
    print("no matrix: %s" % e)
    sys.exit(1)
bad, local, causes, into = [], 0, collections.Counter(), 0
for p in m["pairs"]:
    s = (p["from"]["host"], p["from"]["interface"])
    d = (p["to"]["host"], p["to"]["interface"])
    at = p.get("at") and (p["at"]["host"], p["at"]["interface"])
    if s[0] == d[0]:
        local += p["verdict"] == "local"
        continue
    if p["verdict"] == "ok":
        if drift in (s, d):
            bad.append("%s %s -> %s %s ok" % (s + d))
        continue
    causes["%s at %s %s" % ((p["verdict"],) + (at or ("-", "-")))] += 1
    if drift not in (s, d) or at != drift:
        bad.append("%s %s -> %s %s %s at %s" % (s + d + (p["verdict"], at)))
    into += drift == d
said = "%d pairs, %d local, not ok: %s (%d of them into %s)" % (
    len(m["pairs"]), local, dict(causes) or "none", into, " ".join(drift or ("-",)))
print("%s%s" % (said, "; wrong: " + "; ".join(bad) if bad else ""))
sys.exit(bool(bad) or len(m["pairs"]) != 30 or local != 6 or (drift and not causes))' "$@")
	local rc=$?
	echo "# matrix of $dir: $REASON"
	return $rc
}
cells() { [ "$(grep -o '<td class="cell ' "$1" | wc -l)" = 30 ]; }
# fleet_views TAG [HOST PORT]: both recipes, with the matrix matrix_is expects
fleet_views() {
	local tag=$1 t=$SECONDS first want rc n m what=": every pair between hosts ok"
	shift
	want="30 pairs: 24 ok, 0 not ok, 6 local (not judged)"
	if [ $# != 0 ]; then
		want="30 pairs: 16 ok, 8 not ok, 6 local (not judged)"
		what=" shows $1 $2 and nothing else"
	fi
	rm -f "$W/home/inventory.json" "$W/home/answers.json" "$W/home/fleet.html"
	control bash -c "$fleet_clush" >"$W/fleet-clush-$tag.log" 2>&1
	echo "# doc/fleet.md's clush recipe ($tag): $((SECONDS - t))s"
	diag <"$W/fleet-clush-$tag.log"
	n=$(grep -c . "$W/home/inventory.json" 2>/dev/null)
	m=$(grep -c . "$W/home/answers.json" 2>/dev/null)
	REASON="inventory.json: ${n:-no} lines, answers.json: ${m:-no} lines"
	check "fleet view, clush recipe ($tag): one inventory line and one answer line per host" test "$n:$m" = 3:3
	first=$(grep -m 1 ' pairs: ' "$W/fleet-clush-$tag.log")
	REASON="'$first'"
	check "fleet view, clush recipe ($tag): the summary says '$want'" test "${first%%;*}" = "$want"
	check "fleet view, clush recipe ($tag): the matrix$what" matrix_is /root "$@"
	REASON="$(grep -o '<td class="cell ' "$W/home/fleet.html" 2>/dev/null | wc -l) cells"
	check "fleet view, clush recipe ($tag): fleet.html has a cell per pair" cells "$W/home/fleet.html"

	t=$SECONDS
	rm -rf "$W/home/fleet"
	control timeout 180 ansible-playbook -i hosts.ini fleet.yml >"$W/fleet-play-$tag.log" 2>&1
	rc=$?
	echo "# ansible-playbook fleet.yml ($tag): exit $rc in $((SECONDS - t))s"
	sed -n '/^PLAY RECAP/,$p' "$W/fleet-play-$tag.log" | diag
	PLAY_N=fleet-$tag
	cp "$W/fleet-play-$tag.log" "$W/play-$PLAY_N.log"
	if [ $# = 0 ]; then
		REASON="exit $rc, failed=$(recap node01 failed):$(recap node02 failed):$(recap node03 failed)"
		check "fleet view, playbook ($tag): exit 0, failed=0 on every host" \
			sh -c '[ "$1" = 0 ] && [ "$2" = 0:0:0 ]' sh "$rc" "$(recap node01 failed):$(recap node02 failed):$(recap node03 failed)"
	else
		grep -E '^(fatal|failed)|"msg"' "$W/fleet-play-$tag.log" | diag
		REASON="exit $rc, failed=$(recap node01 failed):$(recap node02 failed):$(recap node03 failed)"
		check "fleet view, playbook ($tag): node03 fails saying the pairs placed at its $2, node01 and node02 pass" \
			sh -c '[ "$1" != 0 ] && [ "$2" = 0:0:1 ] && sed -n "/^fatal: \[node03\]/,/^}/p" "$3" | grep -qF "\"msg\": \"8 pair(s) not ok, placed at this host: $4 no-rule;"' \
			sh "$rc" "$(recap node01 failed):$(recap node02 failed):$(recap node03 failed)" "$W/fleet-play-$tag.log" "$2"
	fi
	REASON="see the log"
	check "fleet view, playbook ($tag): the summary '$want' shown" grep -qF "\"$want; ARP probed for " "$W/fleet-play-$tag.log"
	check "fleet view, playbook ($tag): the matrix$what" matrix_is /root/fleet "$@"
	REASON="$(grep -o '<td class="cell ' "$W/home/fleet/fleet.html" 2>/dev/null | wc -l) cells"
	check "fleet view, playbook ($tag): fleet.html has a cell per pair" cells "$W/home/fleet/fleet.html"
}
fleet_views healthy

# --- node_exporter's textfile collector, fed by contrib/node-exporter
install -m 0755 "$CONTRIB/node-exporter/ib-hook-textfile" "$W/home/ib-hook-textfile"
cp "$CONTRIB/node-exporter/ib-hook-textfile.service" "$CONTRIB/node-exporter/ib-hook-textfile.timer" "$W/home/"
for h in $HOSTS; do
	control scp -q -p ib-hook-textfile "$h:/usr/local/sbin/" &&
		control scp -q ib-hook-textfile.service ib-hook-textfile.timer "$h:/etc/systemd/system/" &&
		control ssh "$h" 'systemctl daemon-reload && systemctl enable --now ib-hook-textfile.timer' 2>&1 | diag
done
scrape() { control curl -sS --max-time 5 "http://${1:-node03}:9100/metrics" 2>&1 | grep '^ib_hook_'; }
metrics_ok() {
	local m
	m=$(scrape | sort)
	[ "$m" = 'ib_hook_leftovers 0
ib_hook_port_ok{interface="ib0",verdict="ok"} 1
ib_hook_port_ok{interface="ib1",verdict="ok"} 1
ib_hook_up 1' ] && return 0
	REASON="scraped: '$(echo "$m" | tr '\n' '|')'"
	return 1
}
wait_until 20 metrics_ok
check "node_exporter on node03, scraped over HTTP: ib_hook_port_ok 1 for ib0 and ib1, ib_hook_leftovers 0, ib_hook_up 1" metrics_ok
on node03 systemctl list-timers ib-hook-textfile.timer --no-pager | head -n 2 | diag

# --- the NHC check under a stand-in for NHC: die() as NHC's, the checks of nhc.conf
cat >"$W/home/nhc" <<'NHC'
#!/bin/bash
# a stand-in for LBNL NHC: its die(), its scripts, the checks of nhc.conf
die() { echo "ERROR: nhc: Health check failed: $2"; exit "$1"; }
for f in /etc/nhc/scripts/*.nhc; do . "$f"; done
while read -r match sep check; do
	case $match in '#'* | '') continue ;; esac
	[ "$sep" = '||' ] && eval "$check"
done </etc/nhc/nhc.conf
exit 0
NHC
chmod 0755 "$W/home/nhc"
cp "$CONTRIB/nhc/ib-hook.nhc" "$W/home/ib-hook.nhc"
echo '* || check_ib_hook' >"$W/home/nhc.conf"
for h in $HOSTS; do
	control ssh "$h" 'mkdir -p /etc/nhc/scripts' &&
		control scp -q ib-hook.nhc "$h:/etc/nhc/scripts/" &&
		control scp -q nhc.conf "$h:/etc/nhc/" &&
		control scp -q -p nhc "$h:/usr/local/sbin/nhc" || fail "$h: copying the NHC check"
done
nhc() { NHC_OUT=$(control ssh "$1" nhc 2>&1); NHC_RC=$?; }
nhc node03
REASON="exit $NHC_RC: '$NHC_OUT'"
check "NHC on node03, no drift: passes silently" test "$NHC_RC:$NHC_OUT" = "0:"

# --- a typo in a drop-in on node02: --status exits 2 with no output; NHC
# and the textfile script must say so (issue 29, items 11 and 12)
on node02 sh -c 'printf "[Routing]\nMainRoute=delet\n" >/etc/ib-hook.conf.d/60-typo.conf'
on node02 ib-hook --status --json >/dev/null 2>&1
rc=$?
REASON="exit $rc"
check "node02, a typo in a drop-in: ib-hook --status exits 2" test "$rc" = 2
nhc node02
REASON="exit $NHC_RC: '$NHC_OUT'"
check "NHC on node02, a typo in a drop-in: dies saying --status failed" \
	test "$NHC_RC:$NHC_OUT" = "1:ERROR: nhc: Health check failed: ib-hook: ib-hook --status failed (exit 2); run it by hand"
on node02 systemctl start ib-hook-textfile.service >/dev/null 2>&1
rc=$?
REASON="exit $rc"
check "node02, a typo in a drop-in: ib-hook-textfile.service fails" test "$rc" != 0
m=$(scrape node02 | sort)
REASON="scraped: '$(echo "$m" | tr '\n' '|')'"
check "node_exporter on node02, a typo in a drop-in: ib_hook_up 0 and no port series" test "$m" = "ib_hook_up 0"
on node02 rm /etc/ib-hook.conf.d/60-typo.conf
on node02 systemctl start ib-hook-textfile.service >/dev/null 2>&1
rc=$?
m=$(scrape node02 | grep -c '^ib_hook_up 1$')
REASON="exit $rc, $m 'ib_hook_up 1'"
check "node02, the typo taken out: the service passes, ib_hook_up 1" test "$rc:$m" = 0:1

# --- drift on node03: ib1's rule gone, the watcher stopped so it stays gone
on node03 systemctl stop ib-hook.service
on node03 ip -4 rule del from 172.16.3.2 lookup 942
v=$(on node03 ib-hook --status --json | jq -r '.interfaces[] | select(.name == "ib1") | .verdict')
REASON="ib1: '$v'"
check "node03: ib1 is in drift (rule deleted, watcher stopped)" test "$v" = drift

PLAY_N=3
play 3
msg="['ib1'] not as ib-hook leaves them; see ib-hook --status"
REASON="exit $PLAY_RC"
check "playbook with drift on node03: exit non-zero" test "$PLAY_RC" != 0
REASON="node01 failed=$(recap node01 failed), node02 failed=$(recap node02 failed), node03 failed=$(recap node03 failed)"
check "playbook with drift: node03 failed, node01 and node02 passed" \
	test "$(recap node01 failed):$(recap node02 failed):$(recap node03 failed)" = 0:0:1
got=$(sed -n '/^fatal: \[node03\]/,/^}/p' "$W/play-3.log")
REASON="$(echo "$got" | tr '\n' '|')"
check "playbook with drift: node03 fails with the playbook's message \"$msg\"" \
	sh -c 'printf "%s\n" "$1" | grep -qF "\"msg\": \"$2\""' sh "$got" "$msg"
grep -E '^(fatal|failed)' "$W/play-3.log" | diag
PLAY_N=5
play 5 --check
REASON="exit $PLAY_RC, failed=$(recap node01 failed):$(recap node02 failed):$(recap node03 failed)"
check "playbook --check with drift: node03 fails with the playbook's message, node01 and node02 pass" \
	sh -c '[ "$1" != 0 ] && [ "$2" = 0:0:1 ] && sed -n "/^fatal: \[node03\]/,/^}/p" "$3" | grep -qF "\"msg\": \"$4\""' \
	sh "$PLAY_RC" "$(recap node01 failed):$(recap node02 failed):$(recap node03 failed)" "$W/play-5.log" "$msg"

# --- the fleet line: clush -b and pdsh | dshbak -c
fleet() { snippet "$1" | sed "s/node\[01-40\]/node[01-03]/"; }
# the remote command of both lines is the recipe's per-host line
for s in clush pdsh; do
	remote=$(fleet $s | bash -c 'f() { printf "%s\n" "${@: -1}"; }; eval "f $(sed "s/ | dshbak -c\$//")"')
	REASON="'$remote'"
	check "doc/lab.md: the $s line runs the per-host line on each host" test "$remote" = "$(snippet ports)"
done
clush_out=$(control bash -c "$(fleet clush)" 2>&1)
echo "$clush_out" | diag
pdsh_out=$(control bash -c "$(fleet pdsh)" 2>&1)
echo "$pdsh_out" | diag
# gathered OUTPUT HEADER-OF-TWO: node01 and node02 under one header, with
# ib0 and ib1 ok; node03 under its own, ib0 ok and ib1 in drift with a reason
gathered() {
	local got want
	got=$(printf '%s\n' "$1" | awk '/^-+$/ { d++; next } d % 2 == 1 { h = $0; next } d { print h "|" $0 }')
	want=$(printf '%s|ib0\tok\t\n%s|ib1\tok\t\nnode03|ib0\tok\t\n' "$2" "$2" | sort)
	[ "$(printf '%s\n' "$got" | grep -v '^node03|ib1	drift	.' | sort)" = "$want" ] &&
		[ "$(printf '%s\n' "$got" | grep -c '^node03|ib1	drift	.')" = 1 ]
}
REASON="see above"
check "clush -bw: node01 and node02 gathered as 'node[01-02] (2)' with ib0/ib1 ok, node03 alone with ib1 drift" \
	gathered "$clush_out" 'node[01-02] (2)'
check "pdsh | dshbak -c: node01 and node02 gathered as 'node[01-02]' with ib0/ib1 ok, node03 alone with ib1 drift" \
	gathered "$pdsh_out" 'node[01-02]'

# --- the fleet view with drift: node03's ib1 and nowhere else
fleet_views drift node03 ib1

# --- NHC with drift
nhc node03
REASON="exit $NHC_RC: '$NHC_OUT'"
check "NHC on node03, ib1 in drift: dies with 'ib-hook: ib1 drift'" \
	test "$NHC_RC:$NHC_OUT" = "1:ERROR: nhc: Health check failed: ib-hook: ib1 drift"
nhc node01
REASON="exit $NHC_RC: '$NHC_OUT'"
check "NHC on node01: passes silently" test "$NHC_RC:$NHC_OUT" = "0:"

# --- the metric follows, through the timer (every minute)
metrics_drift() {
	local m
	m=$(scrape | sort)
	[ "$m" = 'ib_hook_leftovers 0
ib_hook_port_ok{interface="ib0",verdict="ok"} 1
ib_hook_port_ok{interface="ib1",verdict="drift"} 0
ib_hook_up 1' ] && return 0
	REASON="scraped: '$(echo "$m" | tr '\n' '|')'"
	return 1
}
t=$SECONDS
wait_until 75 metrics_drift
check "node_exporter on node03, after the timer ran again: ib_hook_port_ok{interface=\"ib1\",verdict=\"drift\"} 0 (waited $((SECONDS - t))s)" metrics_drift

# --- the watcher repairs it; every check agrees again
on node03 systemctl start ib-hook.service
repaired() { [ "$(on node03 ib-hook --status --json | jq -r .ok)" = true ]; }
wait_until 10 repaired
check "node03: the watcher, started again, repairs ib1" repaired

stop_all
REASON="$(diff <(echo "$HOST_BEFORE") <(host_state) | tr '\n' '|')"
check "host: ip rule, ip -6 rule and its links unchanged" test "$(host_state)" = "$HOST_BEFORE"
echo "# $FAILS failed, ${SECONDS}s (${T0}s of them for the root)"
[ $FAILS = 0 ]
