#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fleet view's page (--join --html) in a real browser: 8 hosts x 4 ports
# in one subnet (network namespaces on one bridge, as tests/fleet/fleet.sh
# builds them, the three steps run host by host without a parallel shell),
# ib-hook applied everywhere and ARP flux at one port (at random). Headless
# Chromium renders the page (a screenshot) and dumps its DOM, which must
# hold a cell per directed pair and every arp-flux cell of the page, each
# naming that host and port. Without Chromium the test skips and says so:
# CI installs it (.ci/run). IB_HOOK_FLEET_SCREENSHOT=PATH keeps the
# screenshot (doc/fleet.png); IB_HOOK_FLEET_SEED repeats a run. Step 2
# answers version 1 here (every pair; IB_HOOK_FLEET_FORMAT=2 for version 2):
# the one test that joins what a real step 2 writes in the old form.
. "$(dirname "$0")/../lib.sh"
export IB_HOOK_FLEET_FORMAT=${IB_HOOK_FLEET_FORMAT:-1}
t_require unshare
browser=$(command -v chromium || command -v chromium-browser) ||
	skip "needs chromium to render the page (apt-get install chromium)"

HOSTS=8
PORTS=4
printf '[Match]\nName=%s\n' "$(seq -f 'ib%g' -s ' ' 0 $((PORTS - 1)))" | conf fleet
ns_new sw
ip -n "$(ns sw)" link add br0 type bridge || exit 1
ip -n "$(ns sw)" link set br0 up
for h in $(seq 1 $HOSTS); do
	ns_new "h$h"
	for p in $(seq 0 $((PORTS - 1))); do
		veth "h$h" "ib$p" "h${h}i$p" sw
		ip -n "$(ns sw)" link set "h${h}i$p" master br0
		addr "h$h" "ib$p" "10.11.$h.$((p + 1))/16"
	done
done
# on HOST CMD...: CMD in HOST's namespace under HOST's own host name
on() {
	local h=$1
	shift
	ip netns exec "$(ns "$h")" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$h" "$@"
}
# each step on every host at once, as a parallel shell runs it
for h in $(seq 1 $HOSTS); do
	on "h$h" "$IB_HOOK" --config "$T_DIR/fleet.conf" --all 2>>"$T_DIR/apply.err" &
done
wait
seed=${IB_HOOK_FLEET_SEED:-$(date +%s)}
RANDOM=$seed
echo "# seed $seed (IB_HOOK_FLEET_SEED=$seed repeats it)"
fh=h$((RANDOM % HOSTS + 1)) fp=ib$((RANDOM % PORTS))
nsx "$fh" sysctl -qw "net.ipv4.conf.$fp.arp_ignore=0" "net.ipv4.conf.$fp.arp_filter=0"
for h in $(seq 1 $HOSTS); do
	on "h$h" "$IB_HOOK" --config "$T_DIR/fleet.conf" --inventory >"$T_DIR/inventory.h$h" &
done
wait
cat "$T_DIR"/inventory.h* >"$T_DIR/inventory.json"
for h in $(seq 1 $HOSTS); do
	on "h$h" "$IB_HOOK" --check --fleet "$T_DIR/inventory.json" --json >"$T_DIR/answer.h$h" &
done
wait
cat "$T_DIR"/answer.h* >"$T_DIR/answers.json"
"$IB_HOOK" --join --fleet "$T_DIR/inventory.json" --html "$T_DIR/answers.json" >"$T_DIR/page.html"
check "--join --html: a page, with ARP flux at $fh $fp" test -s "$T_DIR/page.html"

# cells FILE HOST PORT: "CELLS FLUX", the pair cells of the HTML in FILE and
# those of them that say arp-flux at HOST PORT
cells() {
	python3 -c '
import html.parser, sys
class P(html.parser.HTMLParser):
    cells, flux = 0, 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "td" and "cell" in (a.get("class") or "").split():
            P.cells += 1
            P.flux += "arp-flux" in a["class"].split() and (": arp-flux at %s %s: " % (sys.argv[2], sys.argv[3])) in (a.get("title") or "")
P().feed(open(sys.argv[1]).read())
print(P.cells, P.flux)' "$@"
}
want=$(cells "$T_DIR/page.html" "$fh" "$fp")
pairs=$((HOSTS * PORTS * (HOSTS * PORTS - 1)))
check "  the page has a cell per directed pair ($pairs), some arp-flux at $fh $fp ($want)" \
	test "${want% *}" = "$pairs" -a "${want#* }" -gt 0

chrome() {
	timeout $((120 * T_SCALE)) "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$T_DIR/chromium" "$@" "file://$T_DIR/page.html" 2>/dev/null
}
chrome --window-size=1300,1100 --screenshot="$T_DIR/page.png" >/dev/null
check "the page renders in $("$browser" --version 2>/dev/null | head -n 1)" test -s "$T_DIR/page.png"
[ -z "${IB_HOOK_FLEET_SCREENSHOT:-}" ] || cp "$T_DIR/page.png" "$IB_HOOK_FLEET_SCREENSHOT"
chrome --dump-dom >"$T_DIR/dom.html"
expect_eq "  its DOM has every cell of the page, and every arp-flux cell at $fh $fp" \
	"$want" "$(cells "$T_DIR/dom.html" "$fh" "$fp")"
done_testing
