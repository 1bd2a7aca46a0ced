#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Where the time of one ib-hook run goes (the closing note of issue 6): for
# --version, an apply that finds nothing to do, a fresh apply and a fresh
# apply that logs to a journal, it prints instructions per shared object
# (valgrind --tool=callgrind), system calls (strace -c), symbol bindings
# (LD_DEBUG=statistics) and peak RSS. Instruction counts do not depend on the
# load of the machine, so they show what a change saves even on a busy host.
#
#   bench/profile.sh [KEEP_DIR]
#
# Needs root, valgrind, strace, iproute2 and a C compiler; IB_HOOK names the
# binary (default build/src/ib-hook). The raw profiles stay in KEEP_DIR when
# given (callgrind_annotate KEEP_DIR/cg.applied). Runs in network namespaces
# it creates and deletes, through the launcher of bench/run.sh.
set -eu
export LC_ALL=C

top=$(cd "$(dirname "$0")/.." && pwd)
IB_HOOK=${IB_HOOK:-$top/build/src/ib-hook}
keep=${1:-}

die() {
	echo "profile: $*" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
[ -x "$IB_HOOK" ] || die "no ib-hook binary at $IB_HOOK (set IB_HOOK)"
for cmd in valgrind callgrind_annotate strace ip; do
	command -v "$cmd" >/dev/null || die "needs $cmd"
done
IP=$(command -v ip)
IB_HOOK=$(cd "$(dirname "$IB_HOOK")" && pwd)/$(basename "$IB_HOOK")

pfx="ibp$$-"
T=$(mktemp -d /tmp/ib-hook-profile.XXXXXX)
chmod 0755 "$T"
cleanup() {
	for n in one peer; do
		ip netns pids "$pfx$n" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
		ip netns del "$pfx$n" 2>/dev/null || true
	done
	if [ -n "$keep" ]; then
		mkdir -p "$keep" && cp "$T"/cg.* "$T"/strace.* "$T"/ld.* "$keep"/ 2>/dev/null || true
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

${CC:-cc} -std=gnu11 -O2 -static -o "$T/launch" "$top/bench/launch.c" 2>/dev/null ||
	${CC:-cc} -std=gnu11 -O2 -o "$T/launch" "$top/bench/launch.c" || die "cannot build the launcher"

# the namespace of bench/run.sh item 1: memserver34, ib1 is measured
ip netns add "${pfx}peer"
ip netns add "${pfx}one"
ip -n "${pfx}one" link set lo up
for i in 0 1; do
	ip -n "${pfx}one" link add ib$i type veth peer name p$i netns "${pfx}peer"
	ip -n "${pfx}peer" link set p$i up
	ip -n "${pfx}one" link set ib$i up
	ip -n "${pfx}one" addr add 172.16.34.$((i + 1))/16 dev ib$i
done
printf '[Match]\nName=ib*\n[Routing]\nMainRoute=delete\n[Tables]\nib0=941\nib1=942\n' >"$T/one.conf"
chmod 0644 "$T/one.conf"
printf 'rule del from 172.16.34.2 table 942\nroute del 172.16.0.0/16 dev ib1 table 942\nroute append 172.16.0.0/16 dev ib1 proto kernel scope link src 172.16.34.2\n' >"$T/reset.batch"
cat >"$T/reset.sh" <<EOF
$IP -4 -force -batch $T/reset.batch >/dev/null 2>&1
echo 0 >/proc/sys/net/ipv4/conf/ib1/arp_ignore
echo 0 >/proc/sys/net/ipv4/conf/ib1/arp_announce
EOF
cat >"$T/applied.sh" <<EOF
. $T/reset.sh
$IB_HOOK -c $T/one.conf -i ib1 >/dev/null 2>&1
EOF
sleep 2

CG="$(command -v valgrind) --tool=callgrind --dump-instr=no"
ST="$(command -v strace) -f -c -o"
LD="/usr/bin/env LD_DEBUG=statistics LD_DEBUG_OUTPUT="
{
	# name, journal flag, prepare, arguments
	for run in "version - - --version" "applied - $T/applied.sh -c $T/one.conf -i ib1" \
		"fresh - $T/reset.sh -c $T/one.conf -i ib1" "fresh_j j $T/reset.sh -c $T/one.conf -i ib1"; do
		set -- $run
		name=$1 j=$2 prep=$3
		shift 3
		printf '%s\t1\t%s\t%s\t%s\t%s\n' \
			"cg_$name" "${pfx}one" "$j" "$prep" "$CG --callgrind-out-file=$T/cg.$name $IB_HOOK $*" \
			"st_$name" "${pfx}one" "$j" "$prep" "$ST $T/strace.$name $IB_HOOK $*" \
			"ld_$name" "${pfx}one" "$j" "$prep" "$LD$T/ld.$name $IB_HOOK $*" \
			"rss_$name" "${pfx}one" "$j" "$prep" "$IB_HOOK $*"
	done
} >"$T/spec"
ip netns exec "${pfx}one" "$T/launch" -w 0 "$T/spec" >"$T/results"

printf '%-26s %10s %10s %10s %10s %10s %9s %9s %8s\n' "run" "Ir total" "ld.so" "libc" "libnl*" "ib-hook" "syscalls" "bindings" "peak RSS"
for name in version applied fresh fresh_j; do
	# self cost per object: the [/path] suffix of callgrind_annotate's lines
	callgrind_annotate --inclusive=no --threshold=100 "$T/cg.$name" 2>/dev/null | awk -v name="$name" \
		-v sys="$(awk '/total$/ { print $4 }' "$T/strace.$name")" \
		-v rel="$(sed -n 's/.*final number of relocations: *//p' "$T"/ld.$name.* | tail -n1)" \
		-v rss="$(awk -v n="rss_$name" '$1 == n { print $8 }' "$T/results")" '
		/PROGRAM TOTALS/ { gsub(",", "", $1); total = $1; next }
		/^ *[0-9,]+ +\(/ {
			ir = $1; gsub(",", "", ir)
			obj = $NF
			if (obj ~ /ld-linux/) ld += ir
			else if (obj ~ /libc\.so/) libc += ir
			else if (obj ~ /libnl/) nl += ir
			else if (obj ~ /\/ib-hook\]/) own += ir
		}
		END {
			printf "%-26s %10d %10d %10d %10d %10d %9s %9s %6.1f MiB\n", name, total, ld, libc, nl, own,
				sys, rel, rss / 1024
		}'
done
echo "(ld.so: loading, relocation and lazy symbol binding; fresh_j also loads libsystemd and its dependencies)"
echo
echo "top functions (self Ir) of the apply that finds nothing to do:"
callgrind_annotate --inclusive=no "$T/cg.applied" 2>/dev/null | sed -n '/file:function/,$p' | sed -n '3,17p'
echo
echo "system calls of the fresh apply that logs to the journal:"
awk 'NF >= 5 && $1 ~ /^[0-9.]+$/ && $NF != "total" { printf "  %-16s %5d\n", $NF, $4 }' "$T/strace.fresh_j" | sort -k2 -rn | head -20
