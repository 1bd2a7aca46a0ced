#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The mutation check (issue 32): do the tests catch a broken ib-hook?
#
# Each mutation below breaks one core behaviour with a one-line sed on a copy
# of the source (git ls-files of this tree, so uncommitted edits count),
# which is built in a scratch directory; the suites are then run against it
# and the tests that failed are listed. A mutation counts as caught only when
# tests of at least two different suites fail; the script exits 1 if one is
# not (or a sed no longer applies: the code moved, fix the sed). The tree is
# first run unchanged: a test that fails there counts for no mutation.
#
#   tests/mutate.sh                 every mutation, suites unit netns hooks fault random watch
#   tests/mutate.sh NAME...         only those
#   MUTATE_SUITES="unit netns" tests/mutate.sh
#   MUTATE_DIR=/var/tmp/m           scratch directory (default: a mktemp -d, removed after)
#
# Needs root (the integration suites); CPU heavy (a build and the suites per
# mutation): not run by CI. Run it with `nice -n 10`. It never touches the host's
# network namespace: the suites make their own.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
suites=${MUTATE_SUITES:-unit netns hooks fault random watch}
work=${MUTATE_DIR:-}
mkdir -p "${work:-/tmp}"
if [ -z "$work" ]; then
	work=$(mktemp -d /tmp/ib-hook-mutate.XXXXXX)
	trap 'rm -rf "$work"' EXIT
fi

# name@file@sed expression@what it breaks
mutations='rule@src/host/plan.c@s/r = push_rule(p, IBH_OP_RULE_ADD, &want, x, o->link.ifindex);/r = 0;/@no rule is installed
table-route@src/host/plan.c@s/r = push_route(p, IBH_OP_ROUTE_ADD, IBH_REC_ROUTE, &want, x, o->link.ifindex);/r = 0;/@no prefix route in T(X)
ipv6-rule@src/host/plan.c@s/r = push_rule(p, IBH_OP_RULE_ADD, &want, x, o->link.ifindex);/r = want.src.family == AF_INET6 ? 0 : push_rule(p, IBH_OP_RULE_ADD, \&want, x, o->link.ifindex);/@no IPv6 rule
refuse-all@src/host/plan.c@s#^\t/\* before routing: a mode change#\tif (action == IBH_ACTION_APPLY) { refuse(\&p, -EEXIST, "a rule is in the way"); goto done; }\n&#@every apply refused
arp-sysctl@src/host/plan.c@s/if (c->sysctl\[k\] == IBH_SYSCTL_KEEP || o->sysctl\[k\] == c->sysctl\[k\])/if (1)/@ARP sysctls not set
main-restore@src/host/plan.c@s/} else if (action == IBH_ACTION_REMOVE && c->main_route == IBH_MAIN_DELETE &&/} else if (0 \&\& c->main_route == IBH_MAIN_DELETE \&\&/@MainRoute=delete: main route not given back on remove
foreign-rule@src/host/plan.c@s/if (!owner && (link_known(o) || j < 0))/if (0)/@a foreign rule in a table of its own is deleted
status-exit@src/host/engine.c@s/return ok || req->mode != IBH_MODE_STATUS ? IBH_OK : IBH_FAILED;/return (void)ok, IBH_OK;/; s/res = v == IBH_VERDICT_DRIFT || v == IBH_VERDICT_REFUSED ? IBH_FAILED : IBH_OK;/res = v == IBH_VERDICT_REFUSED ? IBH_FAILED : IBH_OK;/@--status exits 0 on drift (both places that say so)
check-wrong-port@src/host/check.c@s/because(l, IBH_CHECK_WRONG_PORT, "the route from %s leaves through %s, not %s", a,/because(l, IBH_CHECK_OK, "the route from %s leaves through %s, not %s", a,/@--check does not report wrong-port
watch-repair@src/kernel/netlink.c@s/^\tev->events++;$/\tev->events++;\n\treturn NL_OK;/@the watcher ignores every notification
record@src/host/record.c@/^int record_write(const char \*path, const char \*text)$/{n;s/^{$/{\n\treturn (void)path, (void)text, 0;/}@the record is never written
json@src/host/report.c@s/^\tfprintf(f, "]}");$/\tfprintf(f, "]");/@invalid JSON (an unclosed object, every link)
json-rdma@src/host/report.c@s/fprintf(f, ",\\"port\\":%u}", o->rdma.port);/fprintf(f, ",\\"port\\":%u", o->rdma.port);/@invalid JSON (unclosed "rdma", only with an RDMA port)'

want=${*:-$(printf '%s\n' "$mutations" | cut -d@ -f1)}
files=$(cd "$top" && git ls-files)
status=0
results=$work/results
: >"$results"

args=
for s in $suites; do
	args="$args --suite $s"
done

# build (and mutate with $3) a copy in $work/$1, run the suites; $work/$1/failed lists what failed
run() {
	src=$work/$1/src
	build=$work/$1/build
	rm -rf "$work/$1"
	mkdir -p "$src"
	(cd "$top" && printf '%s\n' "$files" | tar -cf - -T -) | tar -xf - -C "$src"
	if [ -n "$3" ]; then
		sed -i "$3" "$src/$2"
		if cmp -s "$top/$2" "$src/$2"; then
			echo "$1: the sed no longer changes $2: fix the mutation" | tee -a "$results"
			return 1
		fi
	fi
	if ! { meson setup -Dwerror=false "$build" "$src" >"$work/$1/build.log" 2>&1 &&
	       ninja -C "$build" >>"$work/$1/build.log" 2>&1; }; then
		echo "$1: does not build (see $work/$1/build.log)" | tee -a "$results"
		return 1
	fi
	# shellcheck disable=SC2086
	meson test -C "$build" $args >"$work/$1/test.log" 2>&1
	python3 - "$build/meson-logs/testlog.json" >"$work/$1/failed" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t["result"] in ("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS"):
        print(t["name"].split(":", 1)[-1].replace(" ", ""))
EOF
}

run unchanged "" "" || exit 1
if [ -s "$work/unchanged/failed" ]; then
	echo "unchanged: fail without a mutation, counted for none: $(echo $(cat "$work/unchanged/failed"))" |
		tee -a "$results"
fi

for name in $want; do
	line=$(printf '%s\n' "$mutations" | grep "^$name@") || {
		echo "unknown mutation '$name'" >&2
		exit 2
	}
	file=$(printf '%s\n' "$line" | cut -d@ -f2)
	expr=$(printf '%s\n' "$line" | cut -d@ -f3)
	what=$(printf '%s\n' "$line" | cut -d@ -f4)
	if ! run "$name" "$file" "$expr"; then
		status=1
		continue
	fi
	caught=$(grep -vxF -f "$work/unchanged/failed" "$work/$name/failed")
	nsuites=$(printf '%s\n' "$caught" | sed -n 's|/.*||p' | sort -u | grep -c .)
	verdict=caught
	if [ "$nsuites" -lt 2 ]; then
		verdict="NOT CAUGHT by two suites"
		status=1
	fi
	printf '%s (%s): %s; %s tests in %s suites: %s\n' "$name" "$what" "$verdict" \
		"$(printf '%s\n' "$caught" | grep -c .)" "$nsuites" "$(echo $caught)" | tee -a "$results"
done
echo
echo "mutation check, suites: $suites"
cat "$results"
exit $status
