/* SPDX-License-Identifier: MIT */
/*
 * rundir_int.h: what rundir.c (reading a run directory) and rundir_make.c
 * (making one) share, and nothing outside them includes: where a recording's
 * files grow while it runs, and their names there.
 */
#ifndef SS_RUN_RUNDIR_INT_H
#define SS_RUN_RUNDIR_INT_H

/* The recorder keeps a recording's files in TMP_DIR while it runs, named
 * TMP_PREFIX PID-STAMP-RANDOM.EXT (EXT: rundir_tmp_ext). */
#define TMP_DIR "/dev/shm"
#define TMP_PREFIX "stallscope-"

/* The extension in tmpfs of run directory file F ("ini", "ssr", "log",
 * "out"); NULL for one that never grows there (interference.log). */
const char *rundir_tmp_ext(int f);

#endif
