# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced first by a CI step that runs ib-hook in network namespaces of its
# own outside tests/run (which does the same for the suites): the step goes
# on in a private mount namespace with an empty tmpfs on /run/ib-hook, so
# the records ib-hook keeps of those namespaces are the step's own and go
# with it instead of staying in the host's /run/ib-hook (the cold run of
# 2026-11-27 left five there: the Valgrind cycle's and the benchmark's).
# Where no mount namespace can be made, the step goes on as it is.
if [ -z "${IB_HOOK_CI_OWN_RUN:-}" ] && unshare --mount --propagation private true 2>/dev/null; then
	IB_HOOK_CI_OWN_RUN=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
if [ "${IB_HOOK_CI_OWN_RUN:-}" = 1 ]; then
	mkdir -p /run/ib-hook && mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /run/ib-hook || exit 1
	IB_HOOK_CI_OWN_RUN=2
fi
