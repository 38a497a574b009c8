/* SPDX-License-Identifier: MIT */
/*
 * gitbuild.h: the build a source tree is at, for record --build-of and
 * bench --build-of: `git -C DIR describe --always --dirty`, the one program
 * stallscope runs on its own, and only when asked (docs/HISTORY.md).
 *
 * git is started with an argv vector (no shell) from $PATH; as root under
 * sudo it runs as the user who ran sudo (child_cred_sudo), as the recorded
 * program does, so a tree of theirs is read with their rights and git's
 * safe.directory check sees its owner. DIR must be a directory.
 */
#ifndef SS_LINUX_GITBUILD_H
#define SS_LINUX_GITBUILD_H

#include <stddef.h>

#include "core/strbuf.h"

/*
 * The tree DIR's build into RET (LEN bytes, BUILD_MAX + 1 is enough): git
 * describe's one line. Returns 0, or a negative errno with ERR naming DIR:
 * -ENOTDIR (not a directory), -ENOENT (no git on PATH), -EINVAL (git
 * failed: its first line of stderr; or printed no build name), others.
 */
int gitbuild_describe(const char *dir, char *ret, size_t len, struct strbuf *err);

#endif
