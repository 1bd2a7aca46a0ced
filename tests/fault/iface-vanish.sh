#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The interface disappears while ib-hook runs: one loop deletes and re-creates
# the veth ib0 (new ifindex, so a new computed table each time) while another
# applies, as networkd-dispatcher and a person would, for FAULT_SECONDS
# (default 10). A dispatcher run never fails because its interface went away
# (exit 0), a run by hand fails only with "not found" (exit 2), nothing
# crashes, and once the churn stops one last apply leaves exactly one rule per
# address, none of them pointing at the table of a link that is gone.
. "$(dirname "$0")/../lib.sh"
t_require

seconds=${FAULT_SECONDS:-10}
port_host h ib0 172.16.34.1/16 ib1 172.16.34.2/16
hn=$(ns h)
addr h ib1 2001:db8:34::2/64

# ifindex of every link of the namespace, one per line
links() {
	ip -n "$hn" -o link show | cut -d: -f1
}

# ib-hook's rules (its priority) as "ADDRESS TABLE", IPv4 and IPv6
our_rules() {
	{
		ip -n "$hn" rule show
		ip -n "$hn" -6 rule show
	} | sed -n 's/^1000:[[:space:]]*from \([^ ]*\) lookup \([0-9]*\).*/\1 \2/p'
}

expect_rc "apply to the stable ib1 first" 0 ibh h --config "$T_DIR/h.conf" --iface ib1

churn() {
	end=$((SECONDS + seconds))
	while [ "$SECONDS" -lt "$end" ]; do
		ip -n "$hn" link del ib0 2>/dev/null
		ip -n "$hn" link add ib0 type veth peer name pib0 2>/dev/null
		ip -n "$hn" link set pib0 up 2>/dev/null
		ip -n "$hn" link set ib0 up 2>/dev/null
		ip -n "$hn" addr add 172.16.34.1/16 dev ib0 2>/dev/null
		ip -n "$hn" addr add 2001:db8:34::1/64 dev ib0 nodad 2>/dev/null
	done
	# the churn stops with ib0 present and addressed
	ip -n "$hn" link show ib0 >/dev/null 2>&1 || {
		ip -n "$hn" link add ib0 type veth peer name pib0
		ip -n "$hn" link set pib0 up
		ip -n "$hn" link set ib0 up
	}
	ip -n "$hn" addr replace 172.16.34.1/16 dev ib0
	ip -n "$hn" addr replace 2001:db8:34::1/64 dev ib0 nodad
}
churn &
churner=$!

runs=0
end=$((SECONDS + seconds))
: >"$T_DIR/rcs"
: >"$T_DIR/errs"
while [ "$SECONDS" -lt "$end" ]; do
	hook h "$T_DIR/h.conf" IFACE=ib0 STATE=routable >/dev/null 2>>"$T_DIR/errs"
	echo "hook $?" >>"$T_DIR/rcs"
	ibh h --config "$T_DIR/h.conf" --iface ib0 >/dev/null 2>>"$T_DIR/errs"
	echo "iface $?" >>"$T_DIR/rcs"
	runs=$((runs + 2))
done
wait "$churner"
sort "$T_DIR/errs" | uniq -c | sort -rn | head -5 | sed "s/^/# stderr: /"
echo "# $runs runs during the churn: $(sort "$T_DIR/rcs" | uniq -c | tr -s ' \n' ' ')"

expect_eq "every dispatcher run during the churn exits 0" "" \
	"$(grep '^hook ' "$T_DIR/rcs" | grep -v '^hook 0$' | sort | uniq -c)"
expect_eq "a run by hand exits 0, or 2 while ib0 is missing" "" \
	"$(grep '^iface ' "$T_DIR/rcs" | grep -v -e '^iface 0$' -e '^iface 2$' | sort | uniq -c)"
expect_eq "no error but 'not found' during the churn" "" \
	"$(grep -i -e error -e failed -e 'cannot' "$T_DIR/errs" | grep -v "interface 'ib0' not found" | sort | uniq -c | head -5)"

expect_rc "one last apply (dispatcher)" 0 hook h "$T_DIR/h.conf" IFACE=ib0 STATE=routable
expect_rc "and for ib1" 0 hook h "$T_DIR/h.conf" IFACE=ib1 STATE=routable

idx0=$(ip -n "$hn" -o link show ib0 | cut -d: -f1)
idx1=$(ip -n "$hn" -o link show ib1 | cut -d: -f1)
expect_eq "exactly one rule per address, each to its own link's table" \
	"172.16.34.1 $((1000 + idx0))
172.16.34.2 $((1000 + idx1))
2001:db8:34::1 $((1000 + idx0))
2001:db8:34::2 $((1000 + idx1))" "$(our_rules | sort)"
dead=
while read -r _ t; do
	links | grep -qx "$((t - 1000))" || dead="$dead $t"
done < <(our_rules)
expect_eq "no rule points to the table of a link that is gone" "" "$dead"
expect_eq "no route left in a table of a link that is gone" "" \
	"$(ip -n "$hn" route show table all | grep -E ' table 1[0-9]{3}( |$)' | grep -v -e "table $((1000 + idx0))" -e "table $((1000 + idx1))")"
expect_rc "--status agrees" 0 ibh h --config "$T_DIR/h.conf" --status
expect_rc "remove ib0 and ib1" 0 ibh h --config "$T_DIR/h.conf" --all --remove
expect_eq "no rule of ib-hook left after remove" "" "$(our_rules)"
done_testing
