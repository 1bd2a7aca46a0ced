#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The page at cluster scale (issue 39), in a real browser: synthetic answers
# (bench/join_docs.py, version 2) of 1,024 hosts x 8 ports with five faults
# joined into one page, folded into blocks of hosts (a cell per pair of
# blocks, coloured by its worst verdict, with the count of failing pairs);
# headless Chromium renders it within its timeout, its DOM holds every block
# and the fault's colours, and its screenshot is not blank (the colours of
# its pixels counted). 128 x 8 (a cell per host pair) stays under 5 MB; 300
# hosts whose inventory names their racks are folded by rack.
# Skips without chromium, and says so (CI installs it).
# IB_HOOK_FLEET_SCREENSHOT=FILE keeps the screenshot (doc/fleet-1024.png).
. "$(dirname "$0")/../lib.sh"
src=${IB_HOOK_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
t_require python3
browser=$(command -v chromium || command -v chromium-browser) ||
	skip "needs chromium to render the page (apt-get install chromium)"
trap 'rm -rf "$T_DIR"' EXIT

python3 "$src/bench/join_docs.py" --hosts 128 --ports 8 --fault arp-flux:10:3 --out "$T_DIR/128"
"$IB_HOOK" --join --fleet "$T_DIR/128/inventory.json" --html "$T_DIR/128/answers.json" >"$T_DIR/128.html"
size=$(stat -c %s "$T_DIR/128.html")
echo "# the page of 128 x 8: $size bytes"
check "the page of 128 x 8: a cell per host pair (128 x 128), under 5 MB" \
	test "$(grep -o '<td class="[a-z-]*" title=' "$T_DIR/128.html" | wc -l)" = 16384 -a "$size" -lt 5000000

python3 "$src/bench/join_docs.py" --hosts 1024 --ports 8 --fault arp-flux:100:3 --fault port-down:300:1 \
	--fault no-rule:517:2 --fault no-answer:800:5 --fault hwaddr-conflict:900:1:901:2 --out "$T_DIR/1024"
"$IB_HOOK" --join --fleet "$T_DIR/1024/inventory.json" --html "$T_DIR/1024/answers.json" >"$T_DIR/page.html"
size=$(stat -c %s "$T_DIR/page.html")
echo "# the page of 1,024 x 8: $size bytes"
check "the page of 1,024 x 8: hosts folded into 64 blocks by name, under 1 MB" \
	test "$(grep -o '<td class="[a-z-]*" title=' "$T_DIR/page.html" | wc -l)" = 4096 -a "$size" -lt 1000000

python3 "$src/bench/join_docs.py" --hosts 300 --ports 2 --rack 40 --fault no-rule:45:1 --out "$T_DIR/racks"
"$IB_HOOK" --join --fleet "$T_DIR/racks/inventory.json" --html "$T_DIR/racks/answers.json" >"$T_DIR/racks.html"
check "300 hosts in racks of 40 the inventory names: folded by rack (8 x 8 blocks), rack2 -> rack1 no-rule" \
	test "$(grep -o '<td class="[a-z-]*" title=' "$T_DIR/racks.html" | wc -l)" = 64 -a \
	"$(grep -c '<td class="no-rule" title="rack2 -&gt; rack1: ' "$T_DIR/racks.html")" = 1

chrome() {
	timeout $((120 * T_SCALE)) "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$T_DIR/chromium" "$@" "file://$T_DIR/page.html" 2>/dev/null
}
chrome --window-size=1000,760 --screenshot="$T_DIR/page.png" >/dev/null
check "Chromium renders it ($("$browser" --version 2>/dev/null | head -n 1))" test -s "$T_DIR/page.png"
[ -z "${IB_HOOK_FLEET_SCREENSHOT:-}" ] || cp "$T_DIR/page.png" "$IB_HOOK_FLEET_SCREENSHOT"
chrome --dump-dom >"$T_DIR/dom.html"
check "  its DOM has every block, and the blocks of each fault's colour" python3 -c '
import html.parser, sys
class P(html.parser.HTMLParser):
    blocks, kinds = 0, set()
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "td" and "title" in a:
            P.blocks += 1
            P.kinds.add(a.get("class"))
P().feed(open(sys.argv[1]).read())
print("# %d blocks: %s" % (P.blocks, " ".join(sorted(P.kinds))))
sys.exit(not (P.blocks == 4096 and {"ok", "arp-flux", "port-down", "no-rule", "no-answer", "hwaddr-conflict"} <= P.kinds))' "$T_DIR/dom.html"

# the screenshot's pixels: PNG unfiltered with zlib alone (no imaging library)
check "  the screenshot is not blank: the verdicts' colours are in it" python3 -c '
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
pos, idat = 8, b""
while pos < len(d):
    n, kind = struct.unpack(">I4s", d[pos:pos + 8])
    body = d[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
bpp = {2: 3, 6: 4}[ctype]
raw, stride, prev, colours = zlib.decompress(idat), w * bpp, bytearray(w * bpp), {}
for y in range(h):
    f, row = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = row[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: row[i] = (row[i] + a) & 255
        elif f == 2: row[i] = (row[i] + b) & 255
        elif f == 3: row[i] = (row[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp * 4):
        k = bytes(row[x:x + 3])
        colours[k] = colours.get(k, 0) + 1
    prev = row
want = {"ok": b"\x4c\xaf\x50", "arp-flux": b"\xff\x98\x00", "no-rule": b"\xf4\x43\x36"}
print("# %dx%d, %d colours; %s" % (w, h, len(colours), ", ".join("%s %d px" % (k, colours.get(v, 0)) for k, v in want.items())))
sys.exit(not (len(colours) > 20 and all(colours.get(v, 0) > 100 for v in want.values())))' "$T_DIR/page.png"
done_testing
