/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib-hook as a chained CNI plugin (SPEC section 11): the program runs this
 * instead of its options when the runtime's CNI_COMMAND is set.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

/* a CNI call: CNI_COMMAND is set and there are no arguments */
bool cni_called(int argc);
/* the CNI protocol over in and out; returns the exit code */
int cni_main(FILE *in, FILE *out, const char *lock_path);
