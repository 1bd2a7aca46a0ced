/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* the fd holding the lock, or -ETIMEDOUT after timeout_sec, or another -errno */
int lock_take(const char *path, unsigned int timeout_sec);
