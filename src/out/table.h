/* SPDX-License-Identifier: MIT */
/*
 * table.h: aligned text tables and CSV.
 *
 * A table collects its cells (copied) and prints them with every column as
 * wide as its widest cell: text left-aligned, numbers and "-" right-aligned.
 * The same table prints as CSV (RFC 4180 quoting, formula-like text after a
 * "'": csv_field), so a command builds its rows once for both outputs.
 */
#ifndef SS_OUT_TABLE_H
#define SS_OUT_TABLE_H

#include <stdio.h>

struct table;

/* A table with NCOLS columns named by HEADERS (copied); NULL on ENOMEM. */
struct table *table_new(size_t ncols, const char *const *headers);
void table_free(struct table *t);	/* NULL-safe */

/* Appends one cell to the current row, starting a new row after the last
 * column; a NULL cell prints as "-". Returns 0 or -ENOMEM. */
int table_add(struct table *t, const char *cell);
int table_addf(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A number with DECIMALS places, or "-" when v is NaN. */
int table_add_num(struct table *t, double v, int decimals);

/* Colours the cell added last: table_print writes SGR (an escape sequence,
 * borrowed: it must outlive the table) before it and a reset after it,
 * aligned as if they were not there. CSV leaves it out. 0 or -ENOMEM. */
int table_set_sgr(struct table *t, const char *sgr);

/* table_print leaves the header row out (a table of name-value lines). */
void table_hide_header(struct table *t);

size_t table_rows(const struct table *t);
/* The columns table_print's widest line takes. */
size_t table_width(const struct table *t);
void table_print(const struct table *t, FILE *f);
/*
 * A table too long to hold (a row a stall of a day's record) is printed in
 * two passes over its rows, each row dropped once handed on: first
 * table_measure after each row is added (it counts in the widths and the
 * alignment), then the same rows again, table_print_row after each (the
 * header before the first, unless hidden): the lines table_print would
 * print for them all. 0 or -ENOMEM (-EINVAL: nothing was measured).
 */
int table_measure(struct table *t);
int table_print_row(struct table *t, FILE *f);
void table_print_csv(const struct table *t, FILE *f);

/* Writes S as one CSV field: quoted when it holds a comma, quote or newline
 * (RFC 4180), and after a "'" when a spreadsheet would run it as a formula
 * (text that starts with '=', '+', '-', '@', a tab or a carriage return;
 * numbers such as -3.5 and the "-" of no value stay as they are). */
void csv_field(FILE *f, const char *s);

#endif
