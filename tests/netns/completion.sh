#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bash completion (completion/ib-hook): options, interface names with the
# managed ones first, configuration files. Runs the completion function as
# bash does, in a namespace holding managed and unmanaged links.
. "$(dirname "$0")/common.sh"
t_require

port_host mem ib1 172.16.34.2/16 ib0 172.16.34.1/16
# ib-hook as the completion finds it on PATH, reading this test's config
mkdir -p "$T_DIR/bin" "$T_DIR/confs/sub"
printf '#!/bin/sh\nexec "%s" --config "%s" "$@"\n' "$IB_HOOK" "$T_DIR/mem.conf" >"$T_DIR/bin/ib-hook"
chmod 0755 "$T_DIR/bin/ib-hook"
: >"$T_DIR/confs/lab.conf"
: >"$T_DIR/confs/notes.txt"

# complete WORDS...: COMPREPLY, one per line, for the command line WORDS
# (the last word is the one being completed)
complete_words() {
	nsx mem env PATH="$T_DIR/bin:$PATH" bash -c '
		. "$1"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_ib_hook ib-hook "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"
	' complete "$IB_HOOK_SOURCE_ROOT/completion/ib-hook" "$@"
}

expect_eq "--st completes to --status" "--status" "$(complete_words ib-hook --st)"
expect_eq "--w completes to --wait and --watch" "--watch
--wait" "$(complete_words ib-hook --w)"
# the managed ports first (in --status order), then the other links
ifaces=$(complete_words ib-hook --iface "")
expect_eq "--iface: the managed ib1 and ib0 first" "ib1
ib0" "$(printf '%s\n' "$ifaces" | head -n 2)"
check "--iface: then the others (lo, pib0)" sh -c 'printf "%s\n" "$1" | tail -n +3 | grep -qx lo && printf "%s\n" "$1" | tail -n +3 | grep -qx pib0' - "$ifaces"
expect_eq "--iface p: pib0 and pib1" "pib0
pib1" "$(complete_words ib-hook --iface p | sort)"
expect_eq "--config: .conf files and directories" "$T_DIR/confs/lab.conf
$T_DIR/confs/sub" "$(complete_words ib-hook --config "$T_DIR/confs/" | sort)"
done_testing
