#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/vm/image.sh RELEASE: print the path of a disk image (raw ext4) of
# Debian RELEASE with its own kernel, rdma-core and rdmacm-utils and the
# network stack a host of that release is configured with here, plus its
# kernel and initrd beside it, for tests/vm/rping.sh:
#
#   bullseye  Debian 11, kernel 5.10: ifupdown (networking.service)
#   bookworm  Debian 12, kernel 6.1:  systemd-networkd, networkd-dispatcher
#   trixie    Debian 13, kernel 6.12: NetworkManager
#
# The two NICs are named ib0 and ib1, each gets soft-RoCE at boot after the
# network stack gave it its address and ran its hooks (the stack's
# configuration itself is written by the test). Built with mmdebstrap from the host's apt mirror
# and cached under /var/cache/ib-hook-ci/ keyed by a hash of this script,
# the mirror lines and the packages, so a second run costs nothing.
set -eu -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../pkg/lib.sh"
CACHE=${IB_HOOK_CI_CACHE:-/var/cache/ib-hook-ci}
RELEASE=${1:-bookworm}
PKGS=linux-image-amd64,systemd,systemd-sysv,udev,dbus,kmod,procps,iproute2,rdma-core,ibverbs-providers,rdmacm-utils,strace
case $RELEASE in
bullseye) STACK=networking.service PKGS=$PKGS,ifupdown ;;
bookworm) STACK=systemd-networkd.service PKGS=$PKGS,networkd-dispatcher,iputils-ping ;;
trixie) STACK=NetworkManager.service PKGS=$PKGS,network-manager ;;
*)
	echo "image.sh: unknown release '$RELEASE'" >&2
	exit 2
	;;
esac

mkdir -p "$CACHE"
sources=$(mirror_lines "$RELEASE")
key=$( (cat "$0"; echo "$RELEASE $sources"; echo "$PKGS") | sha256sum | cut -c1-16)
dir=$CACHE/vm-$RELEASE-$key
# one builder at a time (.ci/prepare.sh builds ahead in the background)
exec 9>"$dir.lock"
flock 9
if [ -f "$dir/done" ]; then
	echo "$dir"
	exit 0
fi
rm -rf "$dir" "$dir.tmp"
mkdir -p "$dir.tmp/root"
echo "$sources" >"$dir.tmp/sources.list"
# Boot time under TCG (issue 41: 150-210 s to the agent on a loaded 2-core
# host, three boots a pair): an initrd of the modules the VM boots from and
# its share (initramfs-tools MODULES=list, written before the kernel's
# package makes the initrd: 6 MB, not 36), the 9p modules loaded there
# rather than by the agent's mount at the end of udev's coldplug, no driver
# for the q35 board's devices the test has no use for, and no unit that
# loads or mounts what it does not use (each module or unit costs seconds
# under TCG). What the test proves (the stack's hooks, then soft-RoCE, on
# every boot) is untouched.
timeout -k 10 600 mmdebstrap --variant=apt --include="$PKGS" \
	--essential-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d" &&
		echo MODULES=list >"$1/etc/initramfs-tools/conf.d/ci" &&
		printf "%s\n" virtio_pci virtio_blk ext4 crc32c_generic 9pnet_virtio 9p \
			>"$1/usr/share/initramfs-tools/modules.d/ci"' \
	--customize-hook='rm -f "$1"/etc/hostname' \
	"$RELEASE" "$dir.tmp/root" "$dir.tmp/sources.list" >"$dir.tmp/mmdebstrap.log" 2>&1 ||
	{ tail -n 20 "$dir.tmp/mmdebstrap.log" >&2; exit 1; }
root=$dir.tmp/root
cp "$root"/boot/vmlinuz-* "$dir.tmp/vmlinuz"
cp "$root"/boot/initrd.img-* "$dir.tmp/initrd.img"
# the board's devices that udev's coldplug would load drivers for
printf 'blacklist %s\n' lpc_ich i2c_i801 i2c_smbus iTCO_wdt iTCO_vendor_support pcspkr \
	serio_raw joydev evdev cfg80211 drm \
	>"$root/etc/modprobe.d/ci-blacklist.conf"
for u in modprobe@drm modprobe@dm_mod modprobe@efi_pstore modprobe@fuse modprobe@loop \
	systemd-pstore systemd-binfmt proc-sys-fs-binfmt_misc.automount sys-kernel-debug.mount \
	sys-kernel-tracing.mount dev-hugepages.mount getty@tty1 e2scrub_reap \
	dpkg-db-backup.timer fstrim.timer; do
	case $u in *.*) ;; *) u=$u.service ;; esac
	ln -sf /dev/null "$root/etc/systemd/system/$u"
done

cat >"$root/etc/fstab" <<'FSTAB'
/dev/vda / ext4 rw,errors=remount-ro 0 1
FSTAB
# the test's agent: runs the shell scripts the host drops into the 9p share
# (cmd.N) and leaves their output (out.N) and exit code (rc.N) there
cat >"$root/usr/local/sbin/ci-agent" <<'AGENT'
#!/bin/sh
mkdir -p /ci
mountpoint -q /ci || mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 ci /ci || exit 1
echo up >/ci/agent.$(cat /proc/sys/kernel/random/boot_id)
while :; do
	for c in /ci/cmd.*; do
		[ -e "$c" ] || continue
		n=${c#/ci/cmd.}
		sh "$c" >/ci/out.$n 2>&1
		echo $? >/ci/rc.$n.tmp
		rm -f "$c"
		mv /ci/rc.$n.tmp /ci/rc.$n
	done
	sleep 0.2
done
AGENT
chmod 755 "$root/usr/local/sbin/ci-agent"
cat >"$root/etc/systemd/system/ci-agent.service" <<'UNIT'
[Unit]
Description=ib-hook CI agent (9p share)
After=local-fs.target
[Service]
ExecStart=/usr/local/sbin/ci-agent
Restart=always
[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/ci-agent.service "$root/etc/systemd/system/multi-user.target.wants/ci-agent.service"
# the two ports are named like the IPoIB ports of the README's hosts: the
# NIC in PCI slot 3 is ib0, slot 4 ib1 (Ethernet links all the same: ib-hook
# finds them through RDMA netlink, not by their name or link type)
for p in 0 1; do
	printf '[Match]\nPath=pci-0000:00:0%s.0\n[Link]\nName=ib%s\n' $((p + 3)) $p \
		>"$root/etc/systemd/network/10-ib$p.link"
done
# the site's soft-RoCE, as a site that sets it up from a unit or script
# has it: one rxe device per port, added only once the port has its address
# and the network stack's hooks for it have run (rxe-late). On every boot the
# stack's hooks (ib-hook's among them) thus see the address and no RDMA
# device; a real host with mlx5_ib loading after mlx5_core configured the
# netdev, or a script after network-online.target, races the same way.
# /run/ci-order records the order: one "hook" line per hook run (the stack's
# own marker hook, named to run after ib-hook's), one "rxe" line per device.
cat >"$root/usr/local/sbin/ci-order" <<'HOOK'
#!/bin/sh
# the stack's hook for a port ran: is its address there, its RDMA device not?
PATH=/usr/sbin:/usr/bin:/sbin:/bin
p=${IFACE:-${1:-}}
case $p in ib0 | ib1) ;; *) exit 0 ;; esac
a=$(ip -4 -o addr show dev "$p" scope global | awk '{print $4}' | paste -sd, -)
d=$(rdma link show 2>/dev/null | grep -w "netdev $p" | awk '{print $2}' | paste -sd, -)
echo "$(date +%s.%N) hook $p address=${a:-none} rdma=${d:-none}" >>/run/ci-order
[ -n "$a" ] && touch "/run/ci-hook.$p"
exit 0
HOOK
cat >"$root/usr/local/sbin/rxe-late" <<'RXE'
#!/bin/sh
# rxe-late PORT: soft-RoCE on PORT once it has an address and the stack's
# hooks for it ran (60 s at most for the hooks)
PATH=/usr/sbin:/usr/bin:/sbin:/bin
p=$1
until ip -4 -o addr show dev "$p" scope global | grep -q .; do sleep 0.2; done
i=0
while [ ! -e "/run/ci-hook.$p" ] && [ $i -lt 300 ]; do
	sleep 0.2
	i=$((i + 1))
done
a=$(ip -4 -o addr show dev "$p" scope global | awk '{print $4}' | paste -sd, -)
echo "$(date +%s.%N) rxe $p address=$a: rdma link add rxe_$p" >>/run/ci-order
exec rdma link add "rxe_$p" type rxe netdev "$p"
RXE
chmod 755 "$root/usr/local/sbin/ci-order" "$root/usr/local/sbin/rxe-late"
case $RELEASE in
bullseye) hookdirs=etc/network/if-up.d name=zz-ci-order ;;
bookworm) hookdirs="etc/networkd-dispatcher/routable.d etc/networkd-dispatcher/configured.d" name=zz-ci-order ;;
trixie) hookdirs=etc/NetworkManager/dispatcher.d name=99-ci-order ;;
esac
for d in $hookdirs; do
	mkdir -p "$root/$d"
	ln -sf /usr/local/sbin/ci-order "$root/$d/$name"
done
cat >"$root/etc/systemd/system/rxe@.service" <<'UNIT'
[Unit]
Description=soft-RoCE on %i, once the port has its address
BindsTo=sys-subsystem-net-devices-%i.device
After=sys-subsystem-net-devices-%i.device network-online.target
Wants=network-online.target
[Service]
Type=simple
RemainAfterExit=yes
ExecStart=/usr/local/sbin/rxe-late %i
ExecStop=-rdma link delete rxe_%i
UNIT
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
for p in ib0 ib1; do
	ln -sf /etc/systemd/system/rxe@.service "$root/etc/systemd/system/multi-user.target.wants/rxe@$p.service"
done
case $RELEASE in
bookworm)
	# enabled as "systemctl enable" does it (with its D-Bus alias, which
	# networkctl needs)
	systemctl --root="$root" enable systemd-networkd.service >/dev/null 2>&1
	ln -sf /dev/null "$root/etc/systemd/system/systemd-networkd-wait-online.service"
	;;
trixie)
	# only the test's keyfile profiles: no "Wired connection N" of its own
	mkdir -p "$root/etc/NetworkManager/conf.d"
	printf '[main]\nno-auto-default=*\n' >"$root/etc/NetworkManager/conf.d/90-ci.conf"
	ln -sf /dev/null "$root/etc/systemd/system/NetworkManager-wait-online.service"
	;;
esac
[ -e "$root/etc/systemd/system/multi-user.target.wants/$STACK" ] ||
	[ -e "$root/etc/systemd/system/network-online.target.wants/$STACK" ] ||
	systemctl --root="$root" enable "$STACK" >/dev/null 2>&1
# systemd's 90 s for a device to appear and a unit to start, under TCG on a
# loaded host (issue 49: with the host at load 9, udev's coldplug named ib0
# and ib1 after 90 s, the rxe@ units' dependencies failed for good, and the
# pair waited for rxe devices that never came; networkd-dispatcher's start
# timed out too): ten minutes, the pair's own bounds say when it is too slow
# (DefaultDeviceTimeoutSec from systemd 252; 247 takes the start timeout)
mkdir -p "$root/etc/systemd/system.conf.d"
printf '[Manager]\nDefaultTimeoutStartSec=600s\nDefaultDeviceTimeoutSec=600s\n' \
	>"$root/etc/systemd/system.conf.d/90-ci-tcg.conf"
ln -sf /dev/null "$root/etc/systemd/system/apt-daily.timer"
ln -sf /dev/null "$root/etc/systemd/system/apt-daily-upgrade.timer"
ln -sf /dev/null "$root/etc/systemd/system/man-db.timer"
passwd -R "$root" -d root >/dev/null
truncate -s 1536M "$dir.tmp/disk.raw"
mke2fs -q -t ext4 -d "$root" "$dir.tmp/disk.raw"
rm -rf "$root"
touch "$dir.tmp/done"
mv "$dir.tmp" "$dir"
# an image of an earlier version of this script is 1.6 GB nobody will use
# again (vm-rdma-*: the bookworm image's name before the matrix)
for old in "$CACHE"/vm-"$RELEASE"-* "$CACHE"/vm-rdma-*; do
	[ "$old" = "$dir" ] || case $old in *.tmp) ;; *) rm -rf --one-file-system "$old" ;; esac
done
echo "$dir"
