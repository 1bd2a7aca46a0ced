#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# ra.py IFACE: one router advertisement from fe80::1 on IFACE (lifetime 1800 s,
# no prefix), so that the hosts' kernels learn `default via fe80::1 proto ra`
# themselves, as from a leaf switch.
import socket
import struct
import sys

ifindex = socket.if_nametoindex(sys.argv[1])
s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 255)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, ifindex)
s.bind(("fe80::1", 0, 0, ifindex))
# type 134, code 0, checksum (the kernel's), hop limit 64, flags, lifetime, reachable, retrans
s.sendto(struct.pack("!BBHBBHII", 134, 0, 0, 64, 0, 1800, 0, 0), ("ff02::1", 0, 0, ifindex))
