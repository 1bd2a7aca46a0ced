#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# CI for the RPM (issue 21): build ib-hook.spec with plain rpmbuild (Debian's
# rpm: none of Fedora's macro packages, so the spec's fallbacks are used),
# rpmlint, then compare the RPM with the .deb: the same program, unit, man
# page, NetworkManager entry, schema and completion, scriptlets that do what
# the maintainer scripts do; the differences are the intended ones listed
# below. Prints "PASS: name" or "FAIL: name" per check. Needs root (apt).
#
#   .ci/rpm.sh [PATH-TO-DEB]
set -u
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$top/.ci/lib.sh"

install_missing rpmbuild:rpm rpmlint:rpmlint rpm2cpio:rpm2cpio cpio:cpio meson:meson \
	pkg-config:pkgconf || { echo "FAIL: rpm prerequisites"; exit 1; }

tmp=$(mktemp -d /var/tmp/ib-hook-rpm-ci.XXXXXX)
trap 'rm -rf --one-file-system "$tmp"' EXIT
trap 'exit 130' INT TERM
failed=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; failed=$((failed + 1)); }
log() { sed 's/^/    /' "$1"; }

# --- the intended differences between the .deb and the RPM ---------------
# Only in the .deb: the hook links of the Debian-family stacks, the
# changelog and copyright Debian policy puts in every package's doc dir, and
# lintian's overrides.
deb_only='^/etc/network/if-(up|post-down)\.d/ib-hook$|^/etc/networkd-dispatcher/(routable|configured|off|no-carrier)\.d/ib-hook$|^/usr/share/doc/ib-hook/(changelog\.Debian\.gz|copyright)$|^/usr/share/lintian/overrides/ib-hook$'
# Only in the RPM: README.md as %doc (Debian's is the package description),
# and the build-id links rpm adds to every package with an ELF file.
rpm_only='^/usr/share/doc/ib-hook/README\.md$|^/usr/lib/\.build-id/'
# Paths compared after: the unit in /usr/lib/systemd/system (the .deb, built
# for Debian 10+ and Ubuntu 18.04, uses /lib, which merged /usr makes the
# same), man pages with any compression.
normalize() { sed -E 's|^/lib/systemd/|/usr/lib/systemd/|; s/\.(gz|xz|bz2|zst)$//' | LC_ALL=C sort; }
# --------------------------------------------------------------------------

version=$(sed -n "s/^[[:space:]]*version : '\([^']*\)',.*/\1/p" "$top/meson.build" | head -n 1)
spec_version=$(sed -n 's/^Version:[[:space:]]*//p' "$top/ib-hook.spec")
if [ -n "$version" ] && [ "$version" = "$spec_version" ]; then
	pass "rpm-version (ib-hook.spec and meson.build: $version)"
else
	fail "rpm-version (ib-hook.spec says '$spec_version', meson.build '$version')"
fi

# 1. plain rpmbuild: the source tarball as %autosetup wants it, made by the
# command ib-hook.spec documents (from a committed tree; a tree with changes
# not yet committed is copied as it is)
start=$(date +%s)
mkdir -p "$tmp/rpmbuild/SOURCES"
tar_cmd=$(sed -n 's/^#[[:space:]]*\(git archive .*\)$/\1/p' "$top/ib-hook.spec")
case $tar_cmd in
*"ib-hook-$spec_version/ "*"ib-hook-$spec_version.tar.gz"*) ;;
*) fail "rpm-tarball-command (ib-hook.spec documents '$tar_cmd' for $spec_version)" ;;
esac
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1 && [ -z "$(git -C "$top" status --porcelain)" ]; then
	(cd "$tmp/rpmbuild/SOURCES" && GIT_DIR=$(git -C "$top" rev-parse --absolute-git-dir) &&
		export GIT_DIR && eval "$tar_cmd") &&
		[ -s "$tmp/rpmbuild/SOURCES/ib-hook-$spec_version.tar.gz" ] ||
		{ fail "rpm source tarball ($tar_cmd)"; exit 1; }
	pass "rpm-tarball ($tar_cmd)"
else
	echo "# the tree has changes not committed: the tarball is a copy of it, not git archive"
	copy_tree "$top" "$tmp/ib-hook-$spec_version" &&
		tar -C "$tmp" -czf "$tmp/rpmbuild/SOURCES/ib-hook-$spec_version.tar.gz" "ib-hook-$spec_version" ||
		{ fail "rpm source tarball"; exit 1; }
fi
# --nodeps: Debian's rpm database knows none of the BuildRequires; the
# build tools are Debian's (the Build-Depends of debian/control)
if rpmbuild --define "_topdir $tmp/rpmbuild" --define 'debug_package %{nil}' --nodeps \
	-bb "$top/ib-hook.spec" >"$tmp/rpmbuild.log" 2>&1; then
	ok_tests=$(sed -n 's/^Ok:[[:space:]]*\([0-9]*\).*/\1/p' "$tmp/rpmbuild.log" | tail -n 1)
	if [ "${ok_tests:-0}" -gt 0 ]; then
		pass "rpmbuild -bb ib-hook.spec (no Fedora macros; unit tests: $ok_tests ok, $(($(date +%s) - start)) s)"
	else
		tail -n 40 "$tmp/rpmbuild.log" | sed 's/^/    /'
		fail "rpmbuild -bb ib-hook.spec (%check ran no unit test)"
	fi
else
	tail -n 40 "$tmp/rpmbuild.log" | sed 's/^/    /'
	fail "rpmbuild -bb ib-hook.spec"
	exit 1
fi
rpm=$(find "$tmp/rpmbuild/RPMS" -name 'ib-hook-*.rpm' | head -n 1)
echo "# $rpm"

# 2. rpmlint. Errors fail the step, except these, each not a defect of the
# package (anything else, e.g. a file in /var/run, fails):
#   no-signature            CI does not sign; a release is signed by its build system
#   no-packager-tag         Debian's rpmlint wants it; Fedora forbids Packager in specs
#   no-group-tag            Group is obsolete in Fedora's guidelines
#   explicit-lib-dependency systemd-libs: libsystemd is dlopen'ed, so rpm finds no
#                           automatic dependency; the explicit one says what it opens
#   hardcoded-library-path in %{_prefix}/lib/NetworkManager: NetworkManager reads
#                           its entries there on every architecture (not %{_libdir})
#   hardcoded-library-path in %{_prefix}/lib/cni: the CNI plugin directory of
#                           podman and CRI-O on every architecture (doc/pods.md)
rpmlint_ignored='no-signature|no-packager-tag|no-group-tag|explicit-lib-dependency systemd-libs|hardcoded-library-path in %\{_prefix\}/lib/(NetworkManager|cni)'
rpmlint "$rpm" "$top/ib-hook.spec" >"$tmp/rpmlint.log" 2>&1
errors=$(grep -E '^[^ ]+: E: ' "$tmp/rpmlint.log" | grep -Ev ": E: ($rpmlint_ignored)( |/|$)")
warnings=$(grep -cE '^[^ ]+: W: ' "$tmp/rpmlint.log")
grep -E '^[^ ]+: [EW]: ' "$tmp/rpmlint.log" | sed 's/^/    /'
if [ -z "$errors" ]; then
	pass "rpmlint (no errors, $warnings warnings)"
else
	fail "rpmlint ($(echo "$errors" | wc -l) errors)"
fi

# 2b. rpm -i then rpm -e in a scratch root leaves the root as it was: every
# directory the package creates is its own. The root holds the directories
# that RHEL's filesystem and systemd packages own; scriptlets are off (they
# are checked below, and the scratch root has no shell to run them).
root=$tmp/rpmroot
base_dirs='/usr/sbin /usr/share/man/man8 /usr/share/doc /usr/lib/systemd/system'
tree() { (cd "$root" && find . -mindepth 1 ! -path './var/lib/rpm*' ! -path './usr/lib/sysimage/rpm*' | LC_ALL=C sort); }
for d in $base_dirs; do mkdir -p "$root$d"; done
if rpm --root "$root" --initdb && before=$(tree) &&
   rpm --root "$root" -i --nodeps --noscripts "$rpm" >"$tmp/rpm-i.log" 2>&1 &&
   n_files=$(rpm --root "$root" -ql ib-hook | wc -l) &&
   rpm --root "$root" -e --noscripts ib-hook >>"$tmp/rpm-i.log" 2>&1; then
	left=$(diff <(echo "$before") <(tree) | sed -n 's/^> //p')
	if [ -z "$left" ]; then
		pass "rpm-erase (rpm -i, rpm -e in a scratch root with$(echo " $base_dirs" | sed 's/ /, /g; s/^,//'): $n_files paths installed, none left)"
	else
		printf '%s\n' "$left" | sed 's/^/    left: /'
		fail "rpm-erase (rpm -e left $(printf '%s\n' "$left" | wc -l) paths)"
	fi
else
	log "$tmp/rpm-i.log"
	fail "rpm-erase (rpm -i / rpm -e in a scratch root)"
fi

# 3. the program in the RPM runs
mkdir "$tmp/x" && (cd "$tmp/x" && rpm2cpio "$rpm" | cpio -idm --quiet) 2>/dev/null
if out=$("$tmp/x/usr/sbin/ib-hook" --version 2>&1) && [ "${out#*"$spec_version"}" != "$out" ]; then
	pass "rpm-program ($out)"
else
	echo "    $out"
	fail "rpm-program (ib-hook --version from the RPM)"
fi

# 4. the same files as the .deb
deb=${1:-}
if [ -z "$deb" ]; then
	deb=$(build_deb "$top" "$tmp") || { fail "rpm-vs-deb (no .deb)"; exit 1; }
fi
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { p = $6; sub(/^\./, "", p); print p }' >"$tmp/deb.files"
rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$rpm" | awk '$1 !~ /^d/ { print $2 }' >"$tmp/rpm.files"
grep -Ev "$deb_only" "$tmp/deb.files" | normalize >"$tmp/deb.cmp"
grep -Ev "$rpm_only" "$tmp/rpm.files" | normalize >"$tmp/rpm.cmp"
missing=0
for want in /usr/sbin/ib-hook /usr/lib/systemd/system/ib-hook.service /usr/share/man/man8/ib-hook.8 \
	/usr/lib/NetworkManager/dispatcher.d/90-ib-hook /usr/share/doc/ib-hook/ib-hook.schema.json \
	/usr/share/bash-completion/completions/ib-hook /usr/share/doc/ib-hook/examples/ib-hook.conf; do
	grep -qx "$want" "$tmp/rpm.cmp" || { echo "    not in the RPM: $want"; missing=1; }
done
if diff -u "$tmp/deb.cmp" "$tmp/rpm.cmp" >"$tmp/files.diff" && [ "$missing" = 0 ]; then
	pass "rpm-vs-deb files ($(wc -l <"$tmp/rpm.cmp") the same; deb only: $(grep -cE "$deb_only" "$tmp/deb.files") hook links, Debian docs and lintian overrides; rpm only: README.md, build-id link)"
else
	log "$tmp/files.diff"
	fail "rpm-vs-deb files"
fi
# NetworkManager's entry: in the .deb a link to the program, in the RPM a
# script that runs it (SELinux: see ib-hook.spec), owned by root, 0755
entry=$tmp/x/usr/lib/NetworkManager/dispatcher.d/90-ib-hook
deb_link=$(dpkg-deb -c "$deb" | awk '$6 ~ /90-ib-hook$/ { print $8 }')
mode=$(rpm -qp --qf '[%{FILENAMES} %{FILEMODES:perms} %{FILEUSERNAME}\n]' "$rpm" |
	awk '$1 ~ /90-ib-hook$/ { print $2, $3 }')
if [ "$mode" = "-rwxr-xr-x root" ] && [ -f "$entry" ] && ! [ -L "$entry" ] &&
   [ "$(head -n 1 "$entry")" = "#!/bin/sh" ] &&
   grep -qx 'exec /usr/sbin/ib-hook "\$@"' "$entry" &&
   out=$(sed "s|/usr/sbin/ib-hook|$tmp/x/usr/sbin/ib-hook|" "$entry" | sh -s -- --version) &&
   [ "${out#*"$spec_version"}" != "$out" ] &&
   case $deb_link in */sbin/ib-hook) true ;; *) false ;; esac; then
	pass "rpm-nm-entry (a script that execs /usr/sbin/ib-hook, $mode; the .deb's links to $deb_link)"
else
	sed 's/^/    /' "$entry" 2>/dev/null
	fail "rpm-nm-entry ($mode; the .deb's: $deb_link)"
fi

# 5. scriptlets: what the maintainer scripts do, in the same order.
# Intended differences: the .deb enables and starts the watcher (debhelper),
# the RPM applies the systemd preset (Fedora: a package does not enable its
# own service); the .deb starts networkd-dispatcher where systemd-networkd
# runs and keeps a changed 0.1.0 conffile, neither of which exists on RHEL.
rpm -qp --scripts "$rpm" >"$tmp/rpm.scripts"
mkdir "$tmp/deb" && dpkg-deb -e "$deb" "$tmp/deb/DEBIAN"
section() { # section NAME: the RPM scriptlet NAME (postinstall, preuninstall, postuninstall)
	awk -v want="$1" '/^[a-z]+ scriptlet/ { on = ($1 == want) ; next } on' "$tmp/rpm.scripts"
}
# before.sh FILE A B: in FILE, a line matching A comes before one matching B
cat >"$tmp/before.sh" <<'EOF'
awk -v a="$2" -v b="$3" '$0 ~ a && !ia { ia = NR } $0 ~ b && !ib { ib = NR }
	END { exit !(ia && ib && ia < ib) }' "$1"
EOF
section postinstall >"$tmp/post"
section preuninstall >"$tmp/preun"
section postuninstall >"$tmp/postun"
check_script() { # check_script NAME COMMAND...: one PASS/FAIL line
	local name=$1
	shift
	if "$@"; then pass "rpm-scriptlet $name"; else fail "rpm-scriptlet $name"; fi
}
check_script "post applies at once, as postinst does" \
	sh -c 'grep -q "ib-hook --all 2>&1 </dev/null" "$1" && grep -q "ib-hook --all 2>&1 </dev/null" "$2"' \
	sh "$tmp/post" "$tmp/deb/DEBIAN/postinst"
check_script "post applies the watcher's preset (the .deb enables it)" \
	grep -qE 'systemctl --no-reload preset ib-hook.service|systemd-update-helper install-system-units ib-hook.service' "$tmp/post"
check_script "preun on erase stops the watcher, then takes back what ib-hook installed, as prerm does" \
	sh -c 'grep -q "ib-hook --all --remove" "$1" && grep -q "ib-hook --all --remove" "$2"' \
	sh "$tmp/preun" "$tmp/deb/DEBIAN/prerm"
check_script "preun: the watcher stopped before the removal (prerm: the same order)" \
	sh -c 'sh "$0" "$1" "disable --now|remove-system-units" "--all --remove" &&
		sh "$0" "$2" "deb-systemd-invoke.*stop|invoke-rc.d.*stop" "--all --remove"' \
	"$tmp/before.sh" "$tmp/preun" "$tmp/deb/DEBIAN/prerm"
check_script "preun takes back only on erase, not on upgrade" \
	grep -qE '^if \[ "\$1" -eq 0 \].*' "$tmp/preun"
check_script "postun restarts the watcher on upgrade" \
	grep -qE 'try-restart ib-hook.service|mark-restart-system-units ib-hook.service' "$tmp/postun"
check_script "no scriptlet fails the transaction (each ends in ':')" \
	sh -c 'for f; do [ "$(grep -v "^[[:space:]]*$" "$f" | tail -n 1)" = ":" ] || exit 1; done' \
	sh "$tmp/post" "$tmp/preun" "$tmp/postun"
if [ "$failed" -ne 0 ]; then
	log "$tmp/rpm.scripts"
fi

[ "$failed" -eq 0 ]
