/* SPDX-License-Identifier: MIT */
/*
 * db_libpq.h: libpq, loaded at its first use (db_libpq.c).
 *
 * libpq brings about twenty libraries with it (OpenSSL, GnuTLS, Kerberos,
 * LDAP, SASL); linked in, the loader maps and relocates all of them at the
 * start of every command, including the many that never reach a server
 * (report on a frame log, stalls, record). Loaded with dlopen, only a
 * command that talks to a server pays for them. The build still takes
 * libpq's header (the types, and SS_HAVE_LIBPQ); the library is found at
 * run time under its soname, and where it is missing a command that needs
 * it says so.
 */
#ifndef SS_DB_DB_LIBPQ_H
#define SS_DB_DB_LIBPQ_H

#ifdef SS_HAVE_LIBPQ
#include <libpq-fe.h>

#include "core/strbuf.h"

/* the functions stallscope calls, under their own names */
struct pq_api {
	PGconn *(*PQconnectdb)(const char *conninfo);
	ConnStatusType (*PQstatus)(const PGconn *conn);
	void (*PQfinish)(PGconn *conn);
	char *(*PQerrorMessage)(const PGconn *conn);
	PQnoticeProcessor (*PQsetNoticeProcessor)(PGconn *conn, PQnoticeProcessor proc,
						  void *arg);
	PGresult *(*PQexec)(PGconn *conn, const char *query);
	PGresult *(*PQexecParams)(PGconn *conn, const char *command, int nParams,
				  const Oid *paramTypes, const char *const *paramValues,
				  const int *paramLengths, const int *paramFormats,
				  int resultFormat);
	ExecStatusType (*PQresultStatus)(const PGresult *res);
	char *(*PQresultErrorMessage)(const PGresult *res);
	int (*PQntuples)(const PGresult *res);
	char *(*PQgetvalue)(const PGresult *res, int tup_num, int field_num);
	int (*PQgetisnull)(const PGresult *res, int tup_num, int field_num);
	void (*PQclear)(PGresult *res);
	PQconninfoOption *(*PQconninfoParse)(const char *conninfo, char **errmsg);
	void (*PQconninfoFree)(PQconninfoOption *connOptions);
	void (*PQfreemem)(void *ptr);
};

/* Valid once pq_load returned 0. */
extern struct pq_api pq;

/* Loads libpq once (later calls answer as the first did): 0, or -ENOTSUP
 * with why in ERR (may be NULL). */
int pq_load(struct strbuf *err);
#endif

#endif
