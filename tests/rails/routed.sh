#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPEC section 9, reference state: a routed rail fabric, the hook run by
# networkd-dispatcher for each port with no configuration but the ports'
# names. Every directed pair of ports of the two hosts (32), same rail and
# across rails, IPv4 and IPv6, answers a ping from the source port's address
# and leaves through that port; main and every foreign rule and table stay
# as they were; a second run changes nothing; remove leaves nothing.
# Layouts: a default per port (metrics 100-103), a fabric aggregate per port;
# and main with a route to each port's own rail only, where T(X) holds the
# same, so that the pairs across rails stay as main routes them (out of the
# destination's rail, dropped by its leaf): what ib-hook does not do.
. "$(dirname "$0")/fabric.sh"
t_require python3 ping

for layout in ${RAILS_LAYOUTS:-defaults aggregates rails-only}; do
	T_NS_BEFORE=$T_NS
	fabric "$layout"
	for h in a b; do rstate "$h" >"$T_DIR/$h.before"; done

	v4=$(pairs 4)
	cp "$T_DIR/failed" "$T_DIR/failed.before"
	[ "$layout" != rails-only ] || sed 's/^/#  failed before: /' "$T_DIR/failed.before"
	if [ "$layout" = rails-only ]; then
		expect_eq "$layout: before ib-hook, the 8 IPv4 pairs on one rail pass" 8 "$v4"
	else
		expect_eq "$layout: before ib-hook, every IPv4 pair from ports 1-3 fails ($v4 of 32 pass)" \
			24 "$(grep -c ' ib[123] ->' "$T_DIR/failed.before")"
		v6=$(pairs 6)
		expect_eq "$layout: before ib-hook, every IPv6 pair from ports 1-3 fails ($v6 of 32 pass)" \
			24 "$(grep -c ' ib[123] ->' "$T_DIR/failed")"
	fi
	if [ "$layout" = defaults ]; then
		nsx a "$IB_HOOK" --config "$T_DIR/host.conf" --check 10.2.1.1 fd00:2:b::2 >"$T_DIR/check" 2>&1
		expect_eq "$layout: before ib-hook, --check across rails fails" 1 "$?"
		expect_eq "  wrong-port from ports 1-3" 6 "$(grep -c '^ib[123] .*: wrong-port' "$T_DIR/check")"
	fi
	for h in a b; do
		expect_rc "$layout: host $h: the hook runs for each port" 0 hook_all "$h"
	done
	if [ "$layout" = defaults ]; then
		nsx a "$IB_HOOK" --config "$T_DIR/host.conf" --check 10.2.1.1 fd00:2:b::2 >"$T_DIR/check" 2>&1
		expect_eq "$layout: after, --check across rails is ok from every address" 0 "$?"
		expect_eq "  8 lines ok (4 ports, IPv4 and IPv6)" 8 "$(grep -c ': ok' "$T_DIR/check")"
		sed 's/^/#  /' "$T_DIR/check"
	fi
	for h in a b; do
		for rl in $RAILS; do
			t=$(table_of "$h" "ib$rl")
			check "$layout: host $h: T(ib$rl) holds the copy of main's IPv4 route through ib$rl" \
				grep -q "via $(gw4 "$h" "$rl") dev ib$rl proto kernel" \
				<(ip -n "$(ns "$h")" route show table "$t")
			check "$layout: host $h: T(ib$rl) holds the copy of the RA default through ib$rl" \
				grep -q "^default via fe80::1 dev ib$rl proto kernel metric 1024" \
				<(ip -n "$(ns "$h")" -6 route show table "$t")
			y=$(((rl + 1) % 4))
			[ "$layout" = rails-only ] && y=$rl
			expect_eq "$layout: host $h: ip route get from ib$rl's address to the other host's ib$y leaves through ib$rl" \
				"ib$rl" "$(ip -n "$(ns "$h")" route get "$(addr4 "$(other "$h")" "$y")" \
					from "$(addr4 "$h" "$rl")" | sed -n 's/.* dev \([^ ]*\).*/\1/p')"
		done
	done
	v4=$(pairs 4)
	cp "$T_DIR/failed" "$T_DIR/failed4"
	v6=$(pairs 6)
	if [ "$layout" = rails-only ]; then
		expect_eq "$layout: IPv4: the 8 pairs on one rail answer, out of their source port" 8 "$v4"
		expect_eq "$layout: IPv4: the 24 pairs across rails do not" 24 \
			"$(grep -c -E 'ib([0-3]) -> ib([0-3])' "$T_DIR/failed4")"
		grep -E 'ib([0-3]) -> ib\1 ' "$T_DIR/failed4" | sed 's/^/#  same rail failed: /'
	else
		expect_eq "$layout: IPv4: every directed pair answers, out of its source port" 32 "$v4"
	fi
	sed 's/^/#  failed: /' "$T_DIR/failed4"
	expect_eq "$layout: IPv6: every directed pair answers, out of its source port" 32 "$v6"
	sed 's/^/#  failed: /' "$T_DIR/failed"

	for h in a b; do
		rstate "$h" >"$T_DIR/$h.after"
		nsx "$h" "$IB_HOOK" --config "$T_DIR/host.conf" --status >"$T_DIR/status" 2>&1
		check "$layout: host $h: --status says ok" test $? = 0
		expect_eq "$layout: host $h: main is byte-identical" \
			"$(grep -v ' table ' "$T_DIR/$h.before" | grep -v '^[0-9]*:')" \
			"$(grep -v ' table ' "$T_DIR/$h.after" | grep -v '^[0-9]*:')"
		hook_all "$h" 2>"$T_DIR/err2"
		expect_eq "$layout: host $h: a second run says nothing" "" "$(cat "$T_DIR/err2")"
		expect_eq "$layout: host $h: a second run changes nothing" "$(cat "$T_DIR/$h.after")" "$(rstate "$h")"
		for rl in $RAILS; do
			hook "$h" "$T_DIR/host.conf" IFACE="ib$rl" STATE=off ADDR=dummy \
				OperationalState=off AdministrativeState=configured >>"$T_DIR/off" 2>&1 ||
				echo "ib$rl: exit $?" >>"$T_DIR/off"
		done
		expect_eq "$layout: host $h: remove leaves the namespace as before" \
			"$(cat "$T_DIR/$h.before")" "$(rstate "$h")"
		grep -v -e ': deleted' "$T_DIR/off" | sed 's/^/#  remove: /'
		: >"$T_DIR/off"
	done
	for nsn in $T_NS; do
		case " $T_NS_BEFORE " in *" $nsn "*) ;; *) ns_del "$nsn" ;; esac
	done
done
done_testing
