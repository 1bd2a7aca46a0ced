#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The mutation check (issue 32): do the tests catch a broken ib-hook?
#
# Each mutation below breaks one core behaviour with a one-line sed on a copy
# of the source (git ls-files of this tree, so uncommitted edits count),
# which is built in a scratch directory; the suites are then run against it
# and the tests that failed are listed. A mutation counts as caught only when
# tests of at least two different suites fail; the script exits 1 if one is
# not (or a sed no longer applies: the code moved, fix the sed).
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
if [ -z "$work" ]; then
	work=$(mktemp -d /tmp/ib-hook-mutate.XXXXXX)
	trap 'rm -rf "$work"' EXIT
fi

# name|file|sed expression|what it breaks
mutations='rule|src/plan.c|s/r = push_rule(p, IBH_OP_RULE_ADD, &want, x, o->link.ifindex);/r = 0;/|no rule is installed
table-route|src/plan.c|s/r = push_route(p, IBH_OP_ROUTE_ADD, IBH_REC_ROUTE, &want, x, o->link.ifindex);/r = 0;/|no prefix route in T(X)
ipv6-rule|src/plan.c|s/r = push_rule(p, IBH_OP_RULE_ADD, &want, x, o->link.ifindex);/r = want.src.family == AF_INET6 ? 0 : push_rule(p, IBH_OP_RULE_ADD, \&want, x, o->link.ifindex);/|no IPv6 rule
refuse-all|src/plan.c|s#^\t/\* before routing: a mode change#\tif (action == IBH_ACTION_APPLY) { refuse(\&p, -EEXIST, "a rule is in the way"); goto done; }\n&#|every apply refused
arp-sysctl|src/plan.c|s/if (c->sysctl\[k\] == IBH_SYSCTL_KEEP || o->sysctl\[k\] == c->sysctl\[k\])/if (1)/|ARP sysctls not set
main-restore|src/plan.c|s/} else if (action == IBH_ACTION_REMOVE && c->main_route == IBH_MAIN_DELETE &&/} else if (0 \&\& c->main_route == IBH_MAIN_DELETE \&\&/|MainRoute=delete: main route not given back on remove
foreign-rule|src/plan.c|s/if (!owner && (link_known(o) || j < 0))/if (0)/|a foreign rule in a table of its own is deleted
status-exit|src/engine.c|s/return ok || req->mode != IBH_MODE_STATUS ? IBH_OK : IBH_FAILED;/return (void)ok, IBH_OK;/|--status exits 0 on drift
check-wrong-port|src/check.c|s/because(l, IBH_CHECK_WRONG_PORT, "the route from %s leaves through %s, not %s", a,/because(l, IBH_CHECK_OK, "the route from %s leaves through %s, not %s", a,/|--check does not report wrong-port
watch-repair|src/netlink.c|s/^\tev->events++;$/\tev->events++;\n\treturn NL_OK;/|the watcher ignores every notification
record|src/record.c|/^int record_write(const char \*path, const char \*text)$/{n;s/^{$/{\n\treturn (void)path, (void)text, 0;/}|the record is never written
json|src/report.c|s/^\tfprintf(f, "]}");$/\tfprintf(f, "]");/|invalid JSON (an unclosed object, every link)
json-rdma|src/report.c|s/fprintf(f, ",\\"port\\":%u}", o->rdma.port);/fprintf(f, ",\\"port\\":%u", o->rdma.port);/|invalid JSON (unclosed "rdma", only with an RDMA port)'

want=${*:-$(printf '%s\n' "$mutations" | cut -d'|' -f1)}
files=$(cd "$top" && git ls-files)
status=0
results=$work/results
: >"$results"

for name in $want; do
	line=$(printf '%s\n' "$mutations" | grep "^$name|") || {
		echo "unknown mutation '$name'" >&2
		exit 2
	}
	file=$(printf "%s\n" "$line" | cut -d'|' -f2)
	expr=$(printf "%s\n" "$line" | cut -d'|' -f3)
	what=$(printf "%s\n" "$line" | cut -d'|' -f4)
	src=$work/$name/src
	build=$work/$name/build
	rm -rf "$work/$name"
	mkdir -p "$src"
	(cd "$top" && echo "$files" | tar -cf - -T -) | tar -xf - -C "$src"
	sed -i "$expr" "$src/$file"
	if cmp -s "$top/$file" "$src/$file"; then
		echo "$name: the sed no longer changes $file: fix the mutation" | tee -a "$results"
		status=1
		continue
	fi
	if ! { meson setup -Dwerror=false "$build" "$src" >"$work/$name/build.log" 2>&1 &&
	       ninja -C "$build" >>"$work/$name/build.log" 2>&1; }; then
		echo "$name: does not build (see $work/$name/build.log)" | tee -a "$results"
		status=1
		continue
	fi
	args=
	for s in $suites; do
		args="$args --suite $s"
	done
	# shellcheck disable=SC2086
	meson test -C "$build" $args >"$work/$name/test.log" 2>&1
	caught=$(python3 - "$build/meson-logs/testlog.json" <<'EOF'
import json, sys
bad = ("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS")
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t["result"] in bad:
        print(t["name"].split(":", 1)[-1].replace(" ", ""))
EOF
)
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
