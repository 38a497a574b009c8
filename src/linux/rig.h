/* SPDX-License-Identifier: MIT */
/*
 * rig.h: the machine a run is made on, as the results database keeps it
 * (db.h's struct db_rig): a stable id and what the machine is.
 *
 * The id is NAME when given (record --rig, bench --rig, STALLSCOPE_RIG),
 * else "m-" and 16 hex digits of a hash of /etc/machine-id with our own key
 * (so the machine id itself, which systemd asks programs not to show, is
 * never written), else "host-" and the host name.
 */
#ifndef SS_LINUX_RIG_H
#define SS_LINUX_RIG_H

struct rig_facts {
	char id[300];
	char host[256];
	char kernel[128];
	char cpu[128];		/* /proc/cpuinfo's model name; "" unknown */
	char gpu[128];		/* the DRM drivers (/sys/class/drm), comma-joined; "" none */
	int cpus;
	long long mem_kb;	/* MemTotal; 0 unknown */
};

/* Fills *RET from the files under ROOT ("" for the live system; tests give
 * a fixture tree) and the running kernel. Never fails: what cannot be read
 * is left empty (0). */
void rig_probe(const char *root, const char *name, struct rig_facts *ret);

#endif
