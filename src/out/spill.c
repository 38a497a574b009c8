// SPDX-License-Identifier: MIT
/* spill.c: unlinked temporary files (spill.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "out/spill.h"

/* An unlinked temporary file in DIR, or a negative errno. */
static int tmp_in(const char *dir)
{
	char path[4096];
	int fd = -1;

#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
#endif
	/* a file system without O_TMPFILE: a name, unlinked at once */
	if (snprintf(path, sizeof(path), "%s/.stallscope-spill-XXXXXX", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

int spill_fd(const char *dir)
{
	const char *tmp = getenv("TMPDIR");
	int fd = -ENOENT;

	/* DIR; where it takes none (a device's directory), $TMPDIR, /tmp */
	if (dir && *dir)
		fd = tmp_in(dir);
	if (fd < 0 && tmp && *tmp)
		fd = tmp_in(tmp);
	if (fd < 0)
		fd = tmp_in("/tmp");
	return fd;
}
