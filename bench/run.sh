#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ib-hook benchmark (issue 6): what one hook run costs next to the seed
# procedure's shell script, next to the floor (process start), and how it
# scales with the size of the main table and the number of interfaces.
#
#   bench/run.sh [--short]
#
# Needs root, iproute2 and a C compiler; IB_HOOK names the binary (default
# build/src/ib-hook). Everything happens in network namespaces this script
# creates and deletes. All commands are started by one launcher
# (bench/launch.c) that entered the namespaces once: it times fork/exec to
# exit with a monotonic clock, runs the rows round by round (so that every
# ratio compares runs made under the same load) and reads the peak RSS from
# wait4(). It prints one table of medians, ratios and targets.
#
# --short: fewer repetitions, and no table of 1 000 000 main routes besides
# the one of 200 000; of the rows of 200 000 copies in T(ib0), whose
# preparations copy them again after --remove --all (each some 15-30 s), one
# run a row (CI runs it so that it cannot rot: with 4 runs a row some 4-6
# minutes, with 8 and 2 more)
set -eu
export LC_ALL=C

top=$(cd "$(dirname "$0")/.." && pwd)
IB_HOOK=${IB_HOOK:-$top/build/src/ib-hook}
short=0
case "${1:-}" in
--short) short=1 ;;
"") ;;
*)
	echo "usage: $0 [--short]" >&2
	exit 2
	;;
esac

if [ "$short" = 1 ]; then
	R1=60 R3=40 R4=20 R4SEED=5 BIG=200000 WARM=3 RC=1 RCR=1
else
	R1=400 R3=200 R4=60 R4SEED=20 BIG=1000000 WARM=5 RC=40 RCR=5
fi

die() {
	echo "bench: $*" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
[ -x "$IB_HOOK" ] || die "no ib-hook binary at $IB_HOOK (set IB_HOOK)"
IP=$(command -v ip) || die "needs ip (iproute2)"
BASH_BIN=$(command -v bash)
IB_HOOK=$(cd "$(dirname "$IB_HOOK")" && pwd)/$(basename "$IB_HOOK")

pfx="ibb$$-"
T=$(mktemp -d /tmp/ib-hook-bench.XXXXXX)
namespaces=""
cleanup() {
	for n in $namespaces; do
		ip netns pids "$n" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
		ip netns del "$n" 2>/dev/null || true
	done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ns_new() {
	ip netns add "$pfx$1"
	namespaces="$namespaces $pfx$1"
	ip -n "$pfx$1" link set lo up
}

log() { echo "bench: $*" >&2; }

# static when libc.a is there: a small launcher keeps the peak RSS floor low
${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -static -o "$T/launch" "$top/bench/launch.c" 2>/dev/null ||
	${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -o "$T/launch" "$top/bench/launch.c" ||
	die "cannot build the launcher"

# peers live here, so that only the ib* ends are candidates for ib-hook
ns_new peer

# --- one interface: memserver34 (items 1, 2, 3, 5) -------------------------
# ns_host NAME: ib0 172.16.34.1/16 and ib1 172.16.34.2/16, ib1 is measured
ns_host() {
	ns_new "$1"
	for i in 0 1; do
		ip -n "$pfx$1" link add ib$i type veth peer name "$1p$i" netns "${pfx}peer"
		ip -n "${pfx}peer" link set "$1p$i" up
		ip -n "$pfx$1" link set ib$i up
		ip -n "$pfx$1" addr add 172.16.34.$((i + 1))/16 dev ib$i
	done
}

cat >"$T/one.conf" <<EOF
# the seed procedure's end state: table 942 for ib1, main duplicate deleted
[Match]
Name=ib*
[Routing]
MainRoute=delete
[Tables]
ib0=941
ib1=942
EOF

# the seed procedure's script for memserver34's ib1, as people write it
cat >"$T/seed-one.sh" <<'EOF'
#!/bin/bash
ip route del 172.16.0.0/16 dev ib1
ip route add 172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2 table 942
ip rule add from 172.16.34.2 table 942
EOF

# back to the kernel's state after `ip addr add` (untimed, before each fresh run);
# exact deletes, no flush: `route flush` in batch mode dumps the whole main table
cat >"$T/reset-one.batch" <<'EOF'
rule del from 172.16.34.2 table 942
route del 172.16.0.0/16 dev ib1 table 942
route append 172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2
EOF
cat >"$T/reset-one.sh" <<EOF
$IP -4 -force -batch $T/reset-one.batch >/dev/null 2>&1
echo 0 >/proc/sys/net/ipv4/conf/ib1/arp_ignore
echo 0 >/proc/sys/net/ipv4/conf/ib1/arp_announce
EOF
cat >"$T/applied-one.sh" <<EOF
. $T/reset-one.sh
$IB_HOOK -c $T/one.conf -i ib1 >/dev/null 2>&1
EOF

# the same with prefix routes only: what the copies of main's routes cost (a dump of
# main filtered by device in the kernel, which walks main)
sed 's/^\[Routing\]$/[Routing]\nGatewayRoutes=no/' "$T/one.conf" >"$T/one-nocopy.conf"
cat >"$T/applied-one-nocopy.sh" <<EOF
. $T/reset-one.sh
$IB_HOOK -c $T/one-nocopy.conf -i ib1 >/dev/null 2>&1
EOF

# --- routed rails: 8 ports, a /31 each and main's default through each port's
# gateway (metrics 100-107), as systemd-networkd leaves it (SPEC section 9) ---
cat >"$T/rails.conf" <<'EOF'
[Match]
Name=ib*
EOF
ns_rails() {
	local k
	ns_new rails8
	for ((k = 0; k < 8; k++)); do
		ip -n "${pfx}rails8" link add ib$k type veth peer name rails8p$k netns "${pfx}peer"
		ip -n "${pfx}peer" link set rails8p$k up
		ip -n "${pfx}rails8" link set ib$k up
		ip -n "${pfx}rails8" addr add 10.$k.0.1/31 dev ib$k
		ip -n "${pfx}rails8" route add default via 10.$k.0.0 dev ib$k proto static metric $((100 + k))
		echo "echo 0 >/proc/sys/net/ipv4/conf/ib$k/arp_ignore; echo 0 >/proc/sys/net/ipv4/conf/ib$k/arp_announce"
	done >"$T/rails8-sysctl.sh"
	# ib-hook's own remove is exact (its record): the untimed reset
	cat >"$T/reset-rails8.sh" <<EOF
$IB_HOOK -c $T/rails.conf --all --remove >/dev/null 2>&1
. $T/rails8-sysctl.sh
EOF
	cat >"$T/applied-rails8.sh" <<EOF
. $T/reset-rails8.sh
$IB_HOOK -c $T/rails.conf --all >/dev/null 2>&1
EOF
}

# --- --all over N interfaces with 2 addresses each (item 4) ----------------
cat >"$T/all.conf" <<'EOF'
[Match]
Name=ib*
[Routing]
MainRoute=delete
EOF

# ns_many NAME N: ib0..ibN-1, each 172.16.1.K/16 and fd00:16::K/64, plus the
# seed script per interface and the reset of all of them
ns_many() {
	local name=$1 n=$2 k idx t
	ns_new "$name"
	: >"$T/$name-links.batch"
	for ((k = 0; k < n; k++)); do
		echo "link add ib$k type veth peer name ${name}p$k netns ${pfx}peer" >>"$T/$name-links.batch"
	done
	ip -n "$pfx$name" -batch "$T/$name-links.batch"
	: >"$T/$name-up.batch"
	: >"$T/$name-peer.batch"
	: >"$T/$name-reset4.batch"
	: >"$T/$name-reset6.batch"
	echo "#!/bin/bash" >"$T/seed-$name.sh"
	for ((k = 0; k < n; k++)); do
		echo "link set ${name}p$k up" >>"$T/$name-peer.batch"
		{
			echo "link set ib$k up"
			echo "addr add 172.16.1.$((k + 1))/16 dev ib$k"
			echo "addr add fd00:16::$((k + 1))/64 dev ib$k nodad"
		} >>"$T/$name-up.batch"
	done
	ip -n "${pfx}peer" -batch "$T/$name-peer.batch"
	ip -n "$pfx$name" -batch "$T/$name-up.batch"
	echo "#!/bin/sh" >"$T/reset-$name.sh"
	for ((k = 0; k < n; k++)); do
		# T(ibK) = TableBase + ifindex, as ib-hook computes it
		idx=$(ip -n "$pfx$name" -o link show dev ib$k | cut -d: -f1)
		t=$((1000 + idx))
		cat >"$T/seed-$name-ib$k.sh" <<EOF
#!/bin/bash
ip route del 172.16.0.0/16 dev ib$k
ip route add 172.16.0.0/16 dev ib$k proto kernel scope link src 172.16.1.$((k + 1)) table $t
ip rule add from 172.16.1.$((k + 1)) table $t
ip -6 route del fd00:16::/64 dev ib$k
ip -6 route add fd00:16::/64 dev ib$k proto kernel table $t
ip -6 rule add from fd00:16::$((k + 1)) table $t
EOF
		echo "$BASH_BIN $T/seed-$name-ib$k.sh" >>"$T/seed-$name.sh"
		{
			echo "rule del from 172.16.1.$((k + 1)) table $t"
			echo "route del 172.16.0.0/16 dev ib$k table $t"
			echo "route append 172.16.0.0/16 dev ib$k proto kernel scope link src 172.16.1.$((k + 1))"
		} >>"$T/$name-reset4.batch"
		{
			echo "rule del from fd00:16::$((k + 1)) table $t"
			echo "route del fd00:16::/64 dev ib$k table $t"
			echo "route append fd00:16::/64 dev ib$k proto kernel metric 256"
		} >>"$T/$name-reset6.batch"
		echo "echo 0 >/proc/sys/net/ipv4/conf/ib$k/arp_ignore; echo 0 >/proc/sys/net/ipv4/conf/ib$k/arp_announce" >>"$T/reset-$name.sh"
	done
	cat >>"$T/reset-$name.sh" <<EOF
$IP -4 -force -batch $T/$name-reset4.batch >/dev/null 2>&1
$IP -6 -force -batch $T/$name-reset6.batch >/dev/null 2>&1
true
EOF
	cat >"$T/applied-$name.sh" <<EOF
. $T/reset-$name.sh
$IB_HOOK -c $T/all.conf --all >/dev/null 2>&1
EOF
}

# settle NS: wait for carrier and IPv6 DAD (link-local addresses and their
# local routes appear asynchronously after link up)
settle() {
	local i links ll
	for ((i = 0; i < 100; i++)); do
		links=$(ip -n "$pfx$1" -o link show | grep -vc ': lo:')
		ll=$(ip -n "$pfx$1" -6 -o addr show scope link | grep -vc tentative || true)
		if [ "$links" = "$ll" ] && [ -z "$(ip -n "$pfx$1" -6 addr show tentative)" ]; then
			sleep 0.2
			return 0
		fi
		sleep 0.1
	done
	die "$1: links did not settle (IPv6 DAD)"
}

# state NS: rules, routes and sysctls, sorted (reset may reorder equal routes)
state() {
	ip netns exec "$pfx$1" sh -c '
		ip -4 rule show; ip -6 rule show
		ip -4 route show table all; ip -6 route show table all
		for f in /proc/sys/net/ipv4/conf/ib*/arp_ignore /proc/sys/net/ipv4/conf/ib*/arp_announce; do
			echo "$f $(cat "$f")"
		done' | sort
}

# check NS WHAT CMD...: run CMD in NS, then reset; the reset must restore the state
check_reset() {
	local n=$1 reset=$2 want_rules=$3
	shift 3
	local before after rules
	before=$(state "$n")
	ip netns exec "$pfx$n" "$@" >/dev/null 2>&1 || die "$n: '$*' failed"
	rules=$(ip netns exec "$pfx$n" sh -c 'ip -4 rule show; ip -6 rule show' | grep -c 'from [0-9a-f:.]* lookup [0-9]' || true)
	[ "$rules" = "$want_rules" ] || die "$n: '$*' left $rules source rules, not $want_rules"
	ip netns exec "$pfx$n" sh "$reset"
	after=$(state "$n")
	[ "$before" = "$after" ] || {
		diff <(echo "$before") <(echo "$after") >&2 || true
		die "$n: $reset does not restore the state after '$*'"
	}
}

log "setting up namespaces"
ns_host one
settle one
check_reset one "$T/reset-one.sh" 1 "$BASH_BIN" "$T/seed-one.sh"
check_reset one "$T/reset-one.sh" 1 "$IB_HOOK" -c "$T/one.conf" -i ib1
[ "$(ip netns exec "${pfx}one" sh -c ". $T/applied-one.sh; ip route get 172.16.16.1 from 172.16.34.2" | grep -o 'dev [a-z0-9]*')" = "dev ib1" ] ||
	die "ib-hook did not route 172.16.34.2 through ib1"
ip netns exec "${pfx}one" sh "$T/reset-one.sh"

# the main table of a router: BIG /24 routes through an uplink veth
big_routes() {
	awk -v n="$2" 'BEGIN { for (i = 0; i < n; i++)
		printf "route add %d.%d.%d.0/24 dev up0\n", 32 + int(i / 65536), int(i / 256) % 256, i % 256 }' >"$T/routes.batch"
	ns_host "$1"
	ip -n "$pfx$1" link add up0 type veth peer name "$1up" netns "${pfx}peer"
	ip -n "${pfx}peer" link set "$1up" up
	ip -n "$pfx$1" link set up0 up
	ip -n "$pfx$1" addr add 10.0.0.1/8 dev up0
	ip -n "$pfx$1" -batch "$T/routes.batch"
	rm -f "$T/routes.batch"
	settle "$1"
}
log "loading 200000 routes into a main table"
big_routes r200k 200000
# a routed host (issue 44): 200 000 routes of main through ib0's gateway, which
# T(ib0) copies and the record holds; ib1 is measured, as above
log "loading 200000 routes through a managed port into a main table"
awk 'BEGIN { for (i = 0; i < 200000; i++)
	printf "route add %d.%d.%d.0/24 via 172.16.0.1 dev ib0 proto static\n", 32 + int(i / 65536), int(i / 256) % 256, i % 256 }' >"$T/routes.batch"
ns_host c200k
ip -n "${pfx}c200k" -batch "$T/routes.batch"
rm -f "$T/routes.batch"
settle c200k
if [ "$BIG" = 1000000 ]; then
	log "loading 1000000 routes into a main table"
	big_routes r1m 1000000
fi

for n in 2 16 64; do
	log "creating $n interfaces with 2 addresses each"
	ns_many "a$n" "$n"
done
log "creating 8 rails"
ns_rails
for n in 2 16 64; do
	settle "a$n"
done
check_reset a64 "$T/reset-a64.sh" 128 "$BASH_BIN" "$T/seed-a64.sh"
check_reset a64 "$T/reset-a64.sh" 128 "$IB_HOOK" -c "$T/all.conf" --all
# the "already applied" preparations must leave ib-hook's state behind
check_reset a64 "$T/reset-a64.sh" 128 sh "$T/applied-a64.sh"
check_reset one "$T/reset-one.sh" 1 sh "$T/applied-one.sh"
check_reset rails8 "$T/reset-rails8.sh" 8 sh "$T/applied-rails8.sh"
[ "$(ip netns exec "${pfx}rails8" sh -c ". $T/applied-rails8.sh; ip route get 10.1.0.7 from 10.5.0.1" | grep -o 'dev [a-z0-9]*')" = "dev ib5" ] ||
	die "ib-hook did not route 10.5.0.1 through ib5"

H1="$IB_HOOK -c $T/one.conf -i ib1"
HA="$IB_HOOK -c $T/all.conf --all"
S1="$IB_HOOK -c $T/one.conf --status -i ib1"
H1N="$IB_HOOK -c $T/one-nocopy.conf -i ib1"
HR="$IB_HOOK -c $T/rails.conf --all"
HR1="$IB_HOOK -c $T/rails.conf -i ib3"
S1N="$IB_HOOK -c $T/one-nocopy.conf --status -i ib1"
HB="$IB_HOOK -c $T/one.conf --all"
HBN="$IB_HOOK -c $T/one-nocopy.conf --all"
{
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' \
		seed "$R1" "${pfx}one" - "$T/reset-one.sh" "$BASH_BIN $T/seed-one.sh" \
		fresh_j "$R1" "${pfx}one" j "$T/reset-one.sh" "$H1" \
		fresh "$R1" "${pfx}one" - "$T/reset-one.sh" "$H1" \
		applied "$R1" "${pfx}one" - "$T/applied-one.sh" "$H1" \
		version "$R1" "${pfx}one" - - "$IB_HOOK --version" \
		iprule "$R1" "${pfx}one" - - "$IP rule show" \
		fresh_200k "$R3" "${pfx}r200k" - "$T/reset-one.sh" "$H1" \
		applied_200k "$R3" "${pfx}r200k" - "$T/applied-one.sh" "$H1" \
		status "$R3" "${pfx}one" - "$T/applied-one.sh" "$S1" \
		status_200k "$R3" "${pfx}r200k" - "$T/applied-one.sh" "$S1" \
		status_200k_nocopy "$R3" "${pfx}r200k" - "$T/applied-one-nocopy.sh" "$S1N" \
		all2_200k "$R4" "${pfx}r200k" - "$T/applied-one.sh" "$HB" \
		all2_200k_nocopy "$R4" "${pfx}r200k" - "$T/applied-one-nocopy.sh" "$HBN" \
		applied_nocopy "$R3" "${pfx}one" - "$T/applied-one-nocopy.sh" "$H1N" \
		applied_200k_nocopy "$R3" "${pfx}r200k" - "$T/applied-one-nocopy.sh" "$H1N" \
		rails8_fresh "$R4" "${pfx}rails8" - "$T/reset-rails8.sh" "$HR" \
		rails8_applied "$R4" "${pfx}rails8" - "$T/applied-rails8.sh" "$HR" \
		rails8_one "$R4" "${pfx}rails8" - "$T/applied-rails8.sh" "$HR1"
	if [ "$BIG" = 1000000 ]; then
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' \
			fresh_1m "$R3" "${pfx}r1m" - "$T/reset-one.sh" "$H1" \
			applied_1m "$R3" "${pfx}r1m" - "$T/applied-one.sh" "$H1" \
			status_1m "$R3" "${pfx}r1m" - "$T/applied-one.sh" "$S1"
	fi
	for n in 2 16 64; do
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' \
			all${n}_fresh "$R4" "${pfx}a$n" - "$T/reset-a$n.sh" "$HA" \
			all${n}_applied "$R4" "${pfx}a$n" - "$T/applied-a$n.sh" "$HA"
	done
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' \
		seed64 "$R4SEED" "${pfx}a64" - "$T/reset-a64.sh" "$BASH_BIN $T/seed-a64.sh"
} >"$T/spec"

log "measuring (${R1} runs per single-interface row, ${R3} per big-table row, ${R4} per --all row, ${R4SEED} of 64 seed runs)"
load=$(cut -d' ' -f1-3 /proc/loadavg)
# in the background, so that an interrupt reaches the cleanup at once
ip netns exec "${pfx}one" "$T/launch" -w "$WARM" "$T/spec" >"$T/results" &
wait $! || die "the launcher failed"

# --- 200 000 copies in T(ib0) (issue 44, item 3) ---------------------------
# Rows of their own, in rounds of their own: each preparation applies every
# port (--all, untimed: after --remove --all it copies the 200 000 routes
# again, seconds of the kernel's work), then ib1 as the rows above. The empty
# host and the host whose 200 000 routes leave through an unmanaged port run
# in the same rounds, for the ratios.
cat >"$T/copies-applied.sh" <<EOF
$IB_HOOK -c $T/one.conf --all >/dev/null 2>&1
. $T/applied-one.sh
EOF
HS="$IB_HOOK -c $T/one.conf --status"
HRM="$IB_HOOK -c $T/one.conf --remove --all"
printf '%s\t%s\t%s\t%s\t%s\t%s\n' \
	c_applied_empty "$RC" "${pfx}one" - "$T/applied-one.sh" "$H1" \
	c_applied_unmanaged "$RC" "${pfx}r200k" - "$T/applied-one.sh" "$H1" \
	c_applied "$RC" "${pfx}c200k" - "$T/copies-applied.sh" "$H1" \
	c_all "$RC" "${pfx}c200k" - "$T/copies-applied.sh" "$HB" \
	c_status "$RC" "${pfx}c200k" - "$T/copies-applied.sh" "$HS" \
	c_remove "$RCR" "${pfx}c200k" - "$T/copies-applied.sh" "$HRM" >"$T/spec-copies"
log "measuring 200000 copies in T(ib0) (${RC} runs per row, ${RCR} of --remove --all)"
ip netns exec "${pfx}one" "$T/launch" -w 1 "$T/spec-copies" | grep -v '^launcher' >>"$T/results" &
wait $! || die "the launcher failed (copies)"

# --- with the watcher (issue 38, item 11) ----------------------------------
# A watcher of the namespace with the same configuration follows main and
# keeps T(X)'s copies: a hook or -i run leaves them to it and does not walk
# main. Its rows run after the others, in the same namespaces (a watcher
# there would repair the resets of the rows above), the state already
# applied: the watcher is started (once) by the untimed preparation, inside
# the launcher's private /run, and killed with the namespaces.
for n in one r200k c200k; do
	cat >"$T/watch-$n.sh" <<EOF
if [ -f $T/w-$n.pid ] && kill -0 "\$(cat $T/w-$n.pid)" 2>/dev/null; then exit 0; fi
setsid $IB_HOOK -c $T/one.conf --watch </dev/null >/dev/null 2>&1 &
echo \$! >$T/w-$n.pid
i=0
while [ \$i -lt 400 ]; do
	$IB_HOOK -c $T/one.conf -i ib1 --dry-run 2>/dev/null | grep -q "watcher's" && exit 0
	sleep 0.05
	i=\$((i + 1))
done
exit 1
EOF
done
# the rows of 200 000 copies ended with --remove --all: the watcher's first
# pass copies them again, seconds of the kernel's work, which its row waits for
cat >"$T/watch-c200k-ready.sh" <<EOF
sh $T/watch-c200k.sh || exit 1
i=0
while [ \$i -lt 600 ]; do
	$IP route show table 941 exact 35.13.63.0/24 | grep -q . && exit 0
	sleep 0.5
	i=\$((i + 1))
done
exit 1
EOF
ip netns exec "${pfx}one" sh "$T/applied-one.sh"
ip netns exec "${pfx}r200k" sh "$T/applied-one.sh"
printf '%s\t%s\t%s\t%s\t%s\t%s\n' \
	w_applied "$R3" "${pfx}one" - "$T/watch-one.sh" "$H1" \
	w_applied_200k "$R3" "${pfx}r200k" - "$T/watch-r200k.sh" "$H1" \
	w_applied_c200k "$R3" "${pfx}c200k" - "$T/watch-c200k-ready.sh" "$H1" \
	w_status_200k "$R4" "${pfx}r200k" - "$T/watch-r200k.sh" "$S1" \
	w_all2_200k "$R4" "${pfx}r200k" - "$T/watch-r200k.sh" "$HB" >"$T/spec-watch"
log "measuring with the watcher running (${R3} runs per row, ${R4} for --all and --status)"
ip netns exec "${pfx}one" "$T/launch" -w "$WARM" "$T/spec-watch" | grep -v '^launcher' >>"$T/results" &
wait $! || die "the launcher failed (with the watcher)"

# --- the table --------------------------------------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
version=$("$IB_HOOK" --version)
echo "ib-hook benchmark$([ "$short" = 1 ] && echo " (--short)"): $version, $(nproc) CPU(s) $cpu, kernel $(uname -r), $("$IP" -V | sed 's/^ip utility, //; s/, libbpf.*//'), load average before: $load"
echo "runs per row: $R1 (items 1-2), $R3 (item 3), $R4 (--all), $R4SEED (64 seed runs), interleaved; ib-hook with MainRoute=delete and the default arp_ignore=2 arp_announce=2 (2 sysctl writes the seed script does not do)"
awk -v big="$BIG" -v short="$short" '
function ms(us) { return sprintf("%.2f ms", us / 1000) }
function mib(kb) { return sprintf("%.1f MiB", kb / 1024) }
function row(key, label, ref, reflabel,   r) {
	if (!(key in med))
		return
	r = ""
	if (ref != "" && (ref in med))
		r = sprintf("%.2fx %s", med[key] / med[ref], reflabel)
	printf "%-42s %10s %15s %9s %10s %8s  %s%s\n", label, ms(med[key]),
		sprintf("%.2f..%.2f", p25[key] / 1000, p75[key] / 1000), sprintf("%.2f", mn[key] / 1000),
		ms(cpu[key]), mib(rss[key]), r, fail[key] ? sprintf("  [%d of %d runs FAILED]", fail[key], n[key]) : ""
}
function target(label, value, op, want, unit,   ok) {
	ok = op == ">=" ? value >= want : value <= want
	printf "  %-56s %-10s %9s  %s\n", label, op " " want unit, sprintf("%.2f", value) unit,
		ok ? "PASS" : "MISS"
}
$1 == "launcher" { launcher = $2; next }
{ n[$1] = $2; med[$1] = $3; p25[$1] = $4; p75[$1] = $5; mn[$1] = $6; rss[$1] = $8; fail[$1] = $9; cpu[$1] = $10 }
END {
	bk = big == 1000000 ? "1m" : "200k"
	bl = big == 1000000 ? "1 000 000" : "200 000"
	printf "%-42s %10s %15s %9s %10s %8s  %s\n", "wall clock, fork/exec to exit", "median", "p25..p75 ms", "min ms", "CPU med", "peak RSS", "ratio of medians"
	print "1. one interface (ib1, 1 address), same work as the seed script"
	row("seed", "  seed script (bash + 3 ip), fresh state", "", "")
	row("fresh_j", "  ib-hook apply, fresh, logging to journal", "seed", "of seed")
	row("fresh", "  ib-hook apply, fresh, no journal", "seed", "of seed")
	row("applied", "  ib-hook apply, already applied", "seed", "of seed")
	print "2. floor"
	row("version", "  ib-hook --version", "", "")
	row("iprule", "  ip rule show", "version", "of --version")
	print "3. main table size (apply, no journal)"
	row("fresh", "  0 routes, fresh", "", "")
	row("fresh_200k", "  200 000 routes, fresh", "fresh", "of 0 routes")
	row("fresh_1m", "  1 000 000 routes, fresh", "fresh", "of 0 routes")
	row("applied", "  0 routes, already applied", "", "")
	row("applied_200k", "  200 000 routes, already applied", "applied", "of 0 routes")
	row("applied_1m", "  1 000 000 routes, already applied", "applied", "of 0 routes")
	row("applied_nocopy", "  0 routes, applied, GatewayRoutes=no", "", "")
	row("applied_200k_nocopy", "  200 000 routes, applied, GatewayRoutes=no", "applied_nocopy", "of 0 routes")
	row("all2_200k", "  --all (ib0, ib1), 200 000 routes, applied", "all2_200k_nocopy", "of GatewayRoutes=no")
	row("all2_200k_nocopy", "  --all (ib0, ib1), 200 000, GatewayRoutes=no", "", "")
	print "3c. the watcher running (a hook or -i run leaves the copies in T to it; already applied)"
	row("w_applied", "  0 routes", "applied", "of no watcher")
	row("w_applied_200k", "  200 000 routes", "w_applied", "of 0 routes")
	row("w_status_200k", "  --status -i ib1, 200 000 routes", "status", "of 0 routes, no watcher")
	row("w_all2_200k", "  --all (ib0, ib1), 200 000 routes", "all2_200k", "of no watcher")
	print "3d. 200 000 routes of main through ib0, copied into T(ib0) (already applied)"
	row("c_applied_empty", "  -i ib1, empty host", "", "")
	row("c_applied_unmanaged", "  -i ib1, 200 000 through an unmanaged port", "c_applied_empty", "of empty")
	row("c_applied", "  -i ib1, 200 000 copies in T(ib0)", "c_applied_unmanaged", "of unmanaged")
	row("w_applied_c200k", "  -i ib1, 200 000 copies, watcher running", "w_applied", "of empty, watcher")
	row("c_all", "  --all (ib0, ib1), 200 000 copies", "", "")
	row("c_status", "  --status, 200 000 copies", "", "")
	row("c_remove", "  --remove --all, 200 000 copies", "", "")
	print "3b. --status -i ib1 (already applied) by main table size: fib lookups, no dump of main"
	row("status", "  0 routes", "", "")
	row("status_200k", "  200 000 routes", "status", "of 0 routes")
	row("status_200k_nocopy", "  200 000 routes, GatewayRoutes=no", "status", "of 0 routes")
	row("status_1m", "  1 000 000 routes", "status", "of 0 routes")
	print "4. --all, 2 addresses (IPv4 + IPv6) per interface"
	row("all2_fresh", "  --all,  2 interfaces, fresh", "fresh", "of 1 apply")
	row("all16_fresh", "  --all, 16 interfaces, fresh", "fresh", "of 1 apply")
	row("all64_fresh", "  --all, 64 interfaces, fresh", "fresh", "of 1 apply")
	row("all2_applied", "  --all,  2 interfaces, already applied", "applied", "of 1 apply")
	row("all16_applied", "  --all, 16 interfaces, already applied", "applied", "of 1 apply")
	row("all64_applied", "  --all, 64 interfaces, already applied", "applied", "of 1 apply")
	row("seed64", "  64 seed script runs (bash + 6 ip each)", "all64_fresh", "of --all 64")
	print "4b. routed rails: --all, 8 ports, a /31 and a default through its gateway each"
	row("rails8_fresh", "  --all, 8 rails, fresh (8 prefix routes, 8 copies)", "fresh", "of 1 apply")
	row("rails8_applied", "  --all, 8 rails, already applied", "applied", "of 1 apply")
	row("rails8_one", "  -i ib3, 8 rails, already applied", "applied", "of 1 apply")
	printf "5. peak RSS (wait4 ru_maxrss; the launcher itself: %s)\n", mib(launcher)
	maxrss = 0
	for (k in rss)
		if (k != "version" && k != "iprule" && k != "seed" && k != "seed64" && k !~ /^status/ && rss[k] > maxrss) {
			maxrss = rss[k]
			maxkey = k
		}
	printf "  %-42s %s\n", "largest apply (" maxkey ")", mib(maxrss)
	printf "  %-42s %s\n", "apply, fresh, logging to journal", mib(rss["fresh_j"])
	printf "  %-42s %s\n", "apply, already applied", mib(rss["applied"])
	printf "  %-42s %s\n", "--version", mib(rss["version"])
	print "targets (same run)                                         target     measured  verdict"
	target("seed script / apply, fresh, journal", med["seed"] / med["fresh_j"], ">=", 3, "x")
	target("seed script / apply, fresh, no journal", med["seed"] / med["fresh"], ">=", 3, "x")
	target("seed script / apply, already applied", med["seed"] / med["applied"], ">=", 3, "x")
	target("apply, fresh, journal / --version", med["fresh_j"] / med["version"], "<=", 1.25, "x")
	target("apply, fresh, no journal / --version", med["fresh"] / med["version"], "<=", 1.25, "x")
	target("apply, already applied / --version", med["applied"] / med["version"], "<=", 1.25, "x")
	target("apply fresh, " bl " / 0 main routes", med["fresh_" bk] / med["fresh"], "<=", 1.1, "x")
	target("apply applied, " bl " / 0 main routes", med["applied_" bk] / med["applied"], "<=", 1.1, "x")
	target("--status, " bl " / 0 main routes", med["status_" bk] / med["status"], "<=", 1.1, "x")
	target("apply applied, watcher, 200 000 / 0 main routes", med["w_applied_200k"] / med["w_applied"], "<=", 1.1, "x")
	target("-i ib1, 200 000 copies / through an unmanaged port", med["c_applied"] / med["c_applied_unmanaged"], "<=", 1.1, "x")
	target("-i ib1, watcher, 200 000 copies / empty host", med["w_applied_c200k"] / med["w_applied"], "<=", 1.1, "x")
	target("--all, 200 000 copies (s)", med["c_all"] / 1e6, "<=", 1, "")
	target("--status, 200 000 copies (s)", med["c_status"] / 1e6, "<=", 1, "")
	target("--remove --all, 200 000 copies (s)", med["c_remove"] / 1e6, "<=", 1, "")
	target("64 seed runs / --all 64, fresh", med["seed64"] / med["all64_fresh"], ">=", 20, "x")
	target("--all 64 / one apply, fresh", med["all64_fresh"] / med["fresh"], "<=", 10, "x")
	target("--all 64 / one apply, already applied", med["all64_applied"] / med["applied"], "<=", 10, "x")
	target("peak RSS of one apply (MiB)", rss["fresh_j"] / 1024, "<=", 4, "")
	for (k in fail)
		if (fail[k])
			bad = 1
	if (bad)
		print "WARNING: some timed runs exited non-zero (see [FAILED] above)"
}' "$T/results"
