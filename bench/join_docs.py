#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Synthetic documents of the fleet view (issue 39): the joined inventory of
H hosts x P ports in one subnet and every host's answer of --check --fleet
--json, in version 1 (a record per pair) or version 2 (routes by class,
ARP probed once per address by one other host), healthy or with faults
injected; and, for the faults, the failing pairs the join must name (cause
and place), computed here on their own. Deterministic: the same arguments
give the same bytes. Nothing touches the network.

    bench/join_docs.py --hosts H --ports P [--version 1|2] [--fault KIND:H:P[:K:Q]]...
                       --out DIR [--expect FILE]

Hosts are n1..nH, ports ib0..ib(P-1); port p of host h holds 10.H.L.(p+1)/8
(H, L: h's high and low byte) and hardware address 02:00:00:H:L:p. Faults:
no-rule (the port's rule lost: the main table sends from its address
through ib0), wrong-port (its table sends through the next port),
arp-flux (it answers ARP for its host's other addresses), port-down,
no-answer (nothing answers ARP for its address), address-conflict H:P:K:Q
(port Q of K lists P of H's address), hwaddr-conflict H:P:K:Q (Q of K has
P of H's hardware address), neigh-stale H:P:K:Q (version 2: H's neighbour
table holds Q of K's address on P with another port's hardware address),
cm-wrong-port H:P (version 2: the ports have RDMA devices, mlx5_P, and RDMA
CM, asked for one peer of each source address's one class as past 32 peers,
resolves the one from P of H through the next port's device: so does every
peer of the class).
rp-strict H:P (rp_filter=1 on the port: harmless alone; with a neigh-stale
entry of a peer that maps another address of H to P's hardware address, the
peer's replies to that address are dropped at P: named at the entry's holder).
--rack N: the inventory names each host's rack ("group"), N hosts each.
--silent H: host nH's answer is left out (version 2); the probers are then
chosen as step 2 chooses them (sample.c's rendezvous hashing, --probers K of
them: O(addresses x hosts), for small fleets), and the pairs whose
destination address only nH was to ask are unknown, as are nH's own.
"""
import argparse
import os
import sys

M64 = (1 << 64) - 1


def _mix(x):
    """sample.c's mix: splitmix64's finaliser"""
    x ^= x >> 30
    x = (x * 0xbf58476d1ce4e5b9) & M64
    x ^= x >> 27
    x = (x * 0x94d049bb133111eb) & M64
    return x ^ (x >> 31)


def host_hash(name):
    """sample_host_hash: FNV-1a of the name, mixed"""
    h = 0xcbf29ce484222325
    for c in name.encode():
        h = ((h ^ c) * 0x100000001b3) & M64
    return _mix(h)


def score(hh, a):
    """sample_score of a host (its hash) for an IPv4 address a (dotted)"""
    x = 2  # AF_INET
    for b in (int(o) for o in a.split(".")):
        x = (((x << 8) | b) ^ ((x >> 56) * 0x100000001b3)) & M64
    return _mix(_mix(x) ^ hh)


def addr(h, p):
    return f"10.{h >> 8}.{h & 255}.{p + 1}"


def hw(h, p):
    return f"02:00:00:{h >> 8:02x}:{h & 255:02x}:{p:02x}"


class Fleet:
    def __init__(self, hosts, ports, faults, rack=0, silent=0, probers=1):
        self.H, self.P, self.rack = hosts, ports, rack
        self.silent_host, self.k = silent, probers
        self.f = {}
        for spec in faults:
            w = spec.split(":")
            k = w[0]
            at = (int(w[1]), int(w[2]))
            other = (int(w[3]), int(w[4])) if len(w) > 4 else None
            self.f.setdefault(k, []).append((at, other))
        self.addr = {(h, p): addr(h, p) for h in range(1, hosts + 1) for p in range(ports)}
        self.hw = {(h, p): hw(h, p) for h in range(1, hosts + 1) for p in range(ports)}
        for at, other in self.f.get("address-conflict", []):
            self.addr[other] = self.addr[at]
        for at, other in self.f.get("hwaddr-conflict", []):
            self.hw[other] = self.hw[at]
        self.down = {at for at, _ in self.f.get("port-down", [])}
        self.norule = {at for at, _ in self.f.get("no-rule", [])}
        self.wrong = {at for at, _ in self.f.get("wrong-port", [])}
        self.flux = {at for at, _ in self.f.get("arp-flux", [])}
        self.silent = {at for at, _ in self.f.get("no-answer", [])}
        self.neigh = {(at, o) for at, o in self.f.get("neigh-stale", [])}
        self.cmwrong = {at for at, _ in self.f.get("cm-wrong-port", [])}
        self.rdma = bool(self.cmwrong)
        self.rpstrict = {at for at, _ in self.f.get("rp-strict", [])}
        self.hwc = {x for at, o in self.f.get("hwaddr-conflict", []) for x in (at, o)}
        self.adc = {x for at, o in self.f.get("address-conflict", []) for x in (at, o)}

    def ports_of(self):
        return [(h, p) for h in range(1, self.H + 1) for p in range(self.P)]

    def route(self, x):
        """(dev, table) from x's address to every peer"""
        h, p = x
        if x in self.norule:
            return "ib0", 254
        if x in self.wrong:
            return f"ib{(p + 1) % self.P}", 1000 + p
        return f"ib{p}", 1000 + p

    def answers(self, y):
        """the hardware addresses that answer ARP for y's address"""
        if y in self.silent:
            return []
        out = [self.hw[y]]
        h, q = y
        for fh, fp in self.flux:
            if fh == h and fp != q:
                out.append(self.hw[(fh, fp)])
        for at, o in self.f.get("address-conflict", []):
            if y in (at, o):
                out = [self.hw[at], self.hw[o]]
        return out

    def inventory(self, out):
        for h in range(1, self.H + 1):
            ps = []
            for p in range(self.P):
                x = (h, p)
                rdma = ('{"device":"mlx5_%d","port":1,"state":"ACTIVE","link_layer":"InfiniBand",'
                        '"gids":[]}' % p) if self.rdma else "null"
                ps.append(
                    '{"interface":"ib%d","up":%s,"hwaddr":"%s","addresses":["%s/8"],'
                    '"routed":%s,"arp_ignore":%d,"arp_filter":0,"rp_filter":%d,'
                    '"accept_local":0,"local_delivery":false,"rdma":%s}'
                    % (p, "false" if x in self.down else "true", self.hw[x], self.addr[x],
                       "false" if x in self.norule else "true", 0 if x in self.flux else 1,
                       1 if x in self.rpstrict else 0, rdma))
            group = ',"group":"rack%d"' % ((h - 1) // self.rack + 1) if self.rack else ""
            out.write('{"version":1,"host":"n%d"%s,"ports":[%s]}\n' % (h, group, ",".join(ps)))

    def v1(self, out):
        for h in range(1, self.H + 1):
            out.write('{"version":1,"host":"n%d","rdma_cm":"not asked","probes":[' % h)
            first = True
            for p in range(self.P):
                x = (h, p)
                dev, table = self.route(x)
                head = '{"interface":"ib%d","address":"%s","peer_host":"n' % (p, self.addr[x])
                tail = '","route_dev":"%s","route_table":%d,"route_via":null,"arp":' % (dev, table)
                for k in range(1, self.H + 1):
                    if k == h:
                        continue
                    for q in range(self.P):
                        y = (k, q)
                        arp = "null" if x in self.down else \
                            "[" + ",".join('"%s"' % a for a in self.answers(y)) + "]"
                        out.write('%s%s%d","peer_interface":"ib%d","peer":"%s%s%s,"rdma_cm":null}'
                                  % ("" if first else ",", head, k, q, self.addr[y], tail, arp))
                        first = False
            out.write("]}\n")

    def first_up(self, k):
        for p in range(self.P):
            if (k, p) not in self.down:
                return (k, p)
        return None

    def probers(self, y):
        """the ports asking for y's address: the next host's first port that is up, or
        (with --silent) the k best hosts by sample.c's rendezvous hashing, each from its
        first up port (one subnet: every up port's prefix holds every address)"""
        if not self.silent_host:
            x = self.first_up(y[0] % self.H + 1)
            return [x] if x else []
        if not hasattr(self, "hh"):
            self.hh = {k: host_hash("n%d" % k) for k in range(1, self.H + 1)}
            self.chosen = {}
        if y not in self.chosen:
            cand = [k for k in range(1, self.H + 1) if k != y[0] and self.first_up(k)]
            cand.sort(key=lambda k: (-score(self.hh[k], self.addr[y]), k))
            self.chosen[y] = [self.first_up(k) for k in cand[:self.k]]
        return self.chosen[y]

    def hole(self, y):
        """every prober of y's address sent no answers"""
        return bool(self.silent_host) and all(x[0] == self.silent_host for x in self.probers(y))

    def v2(self, out):
        asks = {}
        for y in self.ports_of():
            for x in self.probers(y):
                asks.setdefault(x[0], []).append((x, y))
        for h in range(1, self.H + 1):
            if h == self.silent_host:
                continue
            src = []
            for p in range(self.P):
                x = (h, p)
                dev, table = self.route(x)
                src.append('{"interface":"ib%d","address":"%s","classes":[{"peers":"rest",'
                           '"route_dev":"%s","route_table":%d,"route_via":null}]}'
                           % (p, self.addr[x], dev, table))
            arp = ['{"interface":"ib%d","address":"%s","peer":"%s","answers":[%s]}'
                   % (x[1], self.addr[x], self.addr[y],
                      ",".join('"%s"' % a for a in self.answers(y)))
                   for x, y in asks.get(h, [])]
            neigh = ['{"interface":"ib%d","peer":"%s","lladdr":"%s","state":"permanent"}'
                     % (at[1], self.addr[o], self.hw[(o[0], (o[1] + 1) % self.P)])
                     for at, o in self.neigh if at[0] == h]
            # RDMA CM: one peer of the one class (the next host's same port), past 32 peers
            cm = ['{"interface":"ib%d","address":"%s","peer":"%s","rdma_cm":{"device":"mlx5_%d",'
                  '"port":1}}' % (p, self.addr[(h, p)], self.addr[(h % self.H + 1, p)],
                                  (p + 1) % self.P if (h, p) in self.cmwrong else p)
                  for p in range(self.P) if self.rdma and (h, p) not in self.down and self.H > 1]
            out.write('{"version":2,"host":"n%d","rdma_cm":"%s","stale":[],'
                      '"probing":{"probers":%d,"rate":2000,"window_ms":%d,"requests":%d,'
                      '"retries":0,"answered":%d},"sources":[%s],"arp":[%s],'
                      '"rdma_cm_probes":[%s],"neigh":[%s]}\n'
                      % (h, "asked" if self.rdma else "not asked", self.k, 1 + len(arp) // 2,
                         len(arp),
                         len(arp), ",".join(src), ",".join(arp), ",".join(cm), ",".join(neigh)))

    def expect(self, out):
        """every failing pair: FROM-HOST FROM-PORT TO-HOST TO-PORT CAUSE AT-HOST AT-PORT"""
        for x in self.ports_of():
            for y in self.ports_of():
                if x[0] == y[0]:
                    continue
                c = self.cause(x, y)
                if c:
                    out.write("n%d ib%d n%d ib%d %s n%d ib%d\n"
                              % (x[0], x[1], y[0], y[1], c[0], c[1][0], c[1][1]))

    def cause(self, x, y):
        """the judge's order (fleet.c): down, hardware and address conflicts, routes, ARP, neighbours"""
        for z in (x, y):
            if z in self.down:
                return "port-down", z
        for z in (x, y):
            if z in self.hwc:
                return "hwaddr-conflict", z
        if x[0] == self.silent_host:
            return "unknown", x
        for z in (y, x):
            if z in self.adc:
                return "address-conflict", z
        for z in (x, y):
            if z in self.norule:
                return "no-rule", z
            if z in self.wrong:
                return "wrong-port", z
        hole = self.hole(y)
        for a in [] if hole else self.answers(y):
            if a != self.hw[y]:
                return "arp-flux", next(z for z in self.ports_of() if self.hw[z] == a)
        if not hole and not self.answers(y):
            return "no-answer", y
        if (x, y) in self.neigh:
            return "neigh-stale", x
        # the reply: y's host holds x's address as another port z of x's host, rp_filter=1
        z = (x[0], (x[1] + 1) % self.P)
        if (y, x) in self.neigh and z in self.rpstrict and self.route(x)[0] != "ib%d" % z[1]:
            return "neigh-stale", y
        if x in self.cmwrong:
            return "wrong-port", x
        if hole:
            return "unknown", y
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hosts", type=int, required=True)
    ap.add_argument("--ports", type=int, required=True)
    ap.add_argument("--version", type=int, default=2, choices=(1, 2))
    ap.add_argument("--fault", action="append", default=[])
    ap.add_argument("--out", required=True)
    ap.add_argument("--expect")
    ap.add_argument("--rack", type=int, default=0, help="hosts per rack: the inventory's group")
    ap.add_argument("--silent", type=int, default=0, help="host H's answer left out (version 2)")
    ap.add_argument("--probers", type=int, default=1, choices=(1, 2, 3))
    a = ap.parse_args()
    f = Fleet(a.hosts, a.ports, a.fault, a.rack, a.silent, a.probers)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "inventory.json"), "w") as out:
        f.inventory(out)
    with open(os.path.join(a.out, "answers.json"), "w", buffering=1 << 20) as out:
        (f.v1 if a.version == 1 else f.v2)(out)
    if a.expect:
        with open(a.expect, "w") as out:
            f.expect(out)


if __name__ == "__main__":
    sys.exit(main())
