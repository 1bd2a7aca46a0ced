# SPDX-License-Identifier: GPL-2.0-or-later
# What the fleet tests share (after ../lib.sh): hosts h1..h$HOSTS, each a
# network namespace reading $cfg (%h: its name), and the three steps run
# through a parallel shell, pdsh with its exec module standing in for ssh
# (IB_HOOK_FLEET_SHELL=clush: clush). The test sets HOSTS, PORTS and cfg.
shell=${IB_HOOK_FLEET_SHELL:-pdsh}
t_require "$shell" python3 unshare
if [ "$shell" = pdsh ]; then
	pdsh -V 2>&1 | grep -q 'rcmd modules:.*exec' || skip "pdsh has no exec module"
fi

here=$(cd "$(dirname "$0")" && pwd)
# step 2 answers version 2 (issue 39); IB_HOOK_FLEET_FORMAT=1 runs a test on
# version 1 (every pair), which page.sh does: the join reads both

# `on HOST CMD...`: what ssh would do, with the host's own name (a UTS namespace)
cat >"$T_DIR/on" <<ON
#!/bin/sh
h=\$1
shift
exec ip netns exec "$T_PFX\$h" unshare --uts sh -c 'hostname "\$0" && exec "\$@"' "\$h" "\$@"
ON
chmod +x "$T_DIR/on"
# fleet [-x HOST] CMD...: CMD on every host at once, %h its name (the README's recipe)
fleet() {
	"$shell" -R exec -f 32 -N -w "h[1-$HOSTS]" "$@"
}
# the three steps, into $T_DIR/inventory.json, answers.json, matrix.json (and .txt, .html)
steps() {
	fleet "$T_DIR/on" %h "$IB_HOOK" --config "$cfg" --inventory >"$T_DIR/inventory.json" &&
		fleet "$T_DIR/on" %h "$IB_HOOK" --check --fleet "$T_DIR/inventory.json" --json \
			>"$T_DIR/answers.json" &&
		"$IB_HOOK" --join --fleet "$T_DIR/inventory.json" --json "$T_DIR/answers.json" \
			>"$T_DIR/matrix.json"
	[ $? -le 1 ] || return 1
	"$IB_HOOK" --join --fleet "$T_DIR/inventory.json" "$T_DIR/answers.json" >"$T_DIR/matrix.txt"
	"$IB_HOOK" --join --fleet "$T_DIR/inventory.json" --html <"$T_DIR/answers.json" >"$T_DIR/matrix.html"
	[ $? -le 1 ]
}
# expect KIND [HOST PORT [BACK]]: the matrix says exactly what KIND at HOST PORT breaks
# (BACK: the file of the ports whose replies from HOST PORT leave through another port);
# expect routes CAUSE FILE: what the bad routes of FILE break (expect.py)
expect() {
	what=$(echo "$1" "${2:-}" "${3:-}")
	[ "$1" = routes ] && what="$2 (the bad routes)"
	if FLEET_LOCAL_HOST=${lh:-} python3 "$here/expect.py" "$T_DIR/matrix.json" $HOSTS $PORTS "$@" \
		>"$T_DIR/expect"; then
		ok "${family:-}$what: exactly the pairs it breaks, and at its place"
	else
		not_ok "${family:-}$what: the matrix says otherwise"
		sed 's/^/#/' "$T_DIR/expect"
		sed -n '1,12s/^/#  /p' "$T_DIR/matrix.txt"
	fi
	sed 's/^/# /' "$T_DIR/expect" | tail -n 1
}
# carries HOST PORT FROM TO [-6]: whether the reply from FROM (PORT's address
# on HOST) to TO, whose route leaves through another port, still carries the
# pair, as the reply's route was measured (doc/fleet.md, tests/vm/reply.sh):
# the route exists, a lookup bound to PORT finds one through it (`ip route
# get fibmatch TO from FROM oif PORT`), and (IPv4) PORT's effective
# arp_filter (all or its own) is not 1. An IPv6 lookup given a source may
# answer another device's route even bound (a default of a lower metric):
# that is no route through PORT, as step 2 reads it too (probe.c)
carries() {
	ip -n "$(ns "$1")" ${5:-} route get "$4" from "$3" 2>/dev/null | grep -q ' dev ' || return 1
	ip -n "$(ns "$1")" ${5:-} route get fibmatch "$4" from "$3" oif "$2" 2>/dev/null |
		grep -q " dev $2\( \|\$\)" || return 1
	[ "${5:-}" = -6 ] && return 0
	[ "$(ip netns exec "$(ns "$1")" sysctl -n "net.ipv4.conf.$2.arp_filter")" != 1 ] &&
		[ "$(ip netns exec "$(ns "$1")" sysctl -n net.ipv4.conf.all.arp_filter)" != 1 ]
}
# arp_asked: the ARP probes the last step 2 made, every host's together (the
# `arp` records of answers version 2: only the probes a host made)
arp_asked() {
	python3 -c 'import json, sys
print(sum(len(json.loads(l).get("arp", [])) for l in open(sys.argv[1]) if l.strip()))' "$T_DIR/answers.json"
}
# valid TITLE FILE: each line of FILE is one document TITLE of doc/ib-hook-fleet.schema.json
valid() {
	[ -s "$2" ] || return 1
	while IFS= read -r line; do
		printf '%s\n' "$line" |
			python3 "$here/../validate-json.py" "$here/../../doc/ib-hook-fleet.schema.json" "$1" ||
			return 1
	done <"$2"
}
# valid_all: the last steps' documents are valid
valid_all() {
	check "  the inventory is one valid document per host" valid inventory "$T_DIR/inventory.json"
	check "  so are the answers" valid answers "$T_DIR/answers.json"
	check "  and the matrix" valid matrix "$T_DIR/matrix.json"
}
# healthy SUMMARY: with ib-hook on every host, the three steps (their time
# into $took) find every pair ok, and the summary line is SUMMARY
healthy() {
	apply
	start=$(date +%s.%N)
	check "steps 1-3 with ib-hook on every host" steps
	took=$(echo "$(date +%s.%N) - $start" | bc)
	expect none
	check "  the summary is folded like clush -b" grep -qx "$1" "$T_DIR/matrix.txt"
}
# next_round N: round N's seed, the run's for the first, each next one more; into RANDOM
next_round() {
	[ "$1" = 1 ] || seed=$((seed + 1))
	RANDOM=$seed
	echo "# round $1: seed $seed"
}
apply() {
	fleet "$@" "$T_DIR/on" %h "$IB_HOOK" --config "$cfg" --all 2>"$T_DIR/apply.err"
}

