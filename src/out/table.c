// SPDX-License-Identifier: MIT
/* table.c: aligned text tables and CSV (table.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/display.h"
#include "core/grow.h"
#include "core/strbuf.h"
#include "out/table.h"

struct table {
	size_t ncols;
	char **cells;	/* row-major; header row first */
	size_t n, alloc;
	const char **sgr;	/* NULL, or a colour per cell (table_set_sgr) */
	size_t sgr_alloc;
	int hide_header;	/* table_hide_header */
	/* streamed (table_measure, table_print_row): the widths and the
	 * alignment of the rows measured, and whether the header is out */
	size_t *mw;
	int *mright;
	size_t mrows;
	int head_out;
};

struct table *table_new(size_t ncols, const char *const *headers)
{
	struct table *t = calloc(1, sizeof(*t));
	size_t i;

	if (!t)
		return NULL;
	t->ncols = ncols;
	for (i = 0; i < ncols; i++) {
		if (table_add(t, headers[i]) < 0) {
			table_free(t);
			return NULL;
		}
	}
	return t;
}

void table_free(struct table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->sgr);
	free(t->mw);
	free(t->mright);
	free(t);
}

int table_add(struct table *t, const char *cell)
{
	char *c;

	if (ARRAY_GROW(t->cells, t->alloc, t->n + 1) < 0)
		return -ENOMEM;
	c = strdup(cell ? cell : "-");
	if (!c)
		return -ENOMEM;
	t->cells[t->n++] = c;
	return 0;
}

int table_set_sgr(struct table *t, const char *sgr)
{
	size_t had = t->sgr ? t->sgr_alloc : 0;

	if (!t->n)
		return 0;
	if (ARRAY_GROW(t->sgr, t->sgr_alloc, t->n) < 0)
		return -ENOMEM;
	if (t->sgr_alloc > had)
		memset(t->sgr + had, 0, (t->sgr_alloc - had) * sizeof(*t->sgr));
	t->sgr[t->n - 1] = sgr;
	return 0;
}

int table_addf(struct table *t, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (r == 0)
		r = table_add(t, sb.buf);
	sb_release(&sb);
	return r;
}

int table_add_num(struct table *t, double v, int decimals)
{
	if (isnan(v))
		return table_add(t, "-");
	return table_addf(t, "%.*f", decimals, v);
}

void table_hide_header(struct table *t)
{
	t->hide_header = 1;
}

size_t table_rows(const struct table *t)
{
	return t->ncols ? t->n / t->ncols - 1 : 0;
}

size_t table_width(const struct table *t)
{
	size_t rows = t->ncols ? t->n / t->ncols : 0, total = 0;

	for (size_t c = 0; c < t->ncols; c++) {
		size_t w = 0;

		for (size_t r = 0; r < rows; r++) {
			const char *cell = t->cells[r * t->ncols + c];
			struct strbuf sb = STRBUF_INIT;
			size_t cw = strlen(cell);

			if (display_escape(&sb, cell, strlen(cell), 0) == 0)
				cw = display_width(sb.buf);
			sb_release(&sb);
			if (cw > w)
				w = cw;
		}
		total += w + (c + 1 < t->ncols ? 2 : 0);
	}
	return total;
}

static int is_numeric(const char *s)
{
	char *end;

	if (!strcmp(s, "-"))
		return 1;
	strtod(s, &end);
	return end != s && (*end == '\0' || *end == '%');
}

/* Pads to W columns with blanks: S takes SW. */
static void pad(FILE *f, size_t w, size_t sw)
{
	for (; sw < w; sw++)
		fputc(' ', f);
}

/* CELL as shown (display_escape: a newline in a path must not break the
 * row) into *SHOWN (malloc'd) and its display width (a multibyte name
 * takes its columns, not its bytes) into *CW. 0 or -ENOMEM. */
static int cell_shown(const char *cell, char **shown, size_t *cw)
{
	struct strbuf sb = STRBUF_INIT;

	if (display_escape(&sb, cell, strlen(cell), 0) < 0 || !(*shown = sb_detach(&sb))) {
		sb_release(&sb);
		return -ENOMEM;
	}
	*cw = display_width(*shown);
	return 0;
}

/* Row R (0: the header) counted in the widths W and, a row of data, in
 * RIGHT (a column is right-aligned when every cell of its data is a
 * number). 0 or -ENOMEM. */
static int measure_row(const struct table *t, size_t r, size_t *w, int *right)
{
	for (size_t c = 0; c < t->ncols; c++) {
		size_t i = r * t->ncols + c, cw;
		char *shown;

		if (cell_shown(t->cells[i], &shown, &cw) < 0)
			return -ENOMEM;
		free(shown);
		if (cw > w[c])
			w[c] = cw;
		if (r > 0 && !is_numeric(t->cells[i]))
			right[c] = 0;
	}
	return 0;
}

/* Row R's line, laid out by W and RIGHT. -ENOMEM leaves the line out. */
static int print_row(const struct table *t, FILE *f, size_t r, const size_t *w, const int *right)
{
	char **shown = calloc(t->ncols ? t->ncols : 1, sizeof(*shown));
	size_t *cw = calloc(t->ncols ? t->ncols : 1, sizeof(*cw));
	int ret = shown && cw ? 0 : -ENOMEM;

	for (size_t c = 0; !ret && c < t->ncols; c++)
		ret = cell_shown(t->cells[r * t->ncols + c], &shown[c], &cw[c]);
	for (size_t c = 0; !ret && c < t->ncols; c++) {
		size_t i = r * t->ncols + c;
		int last = c + 1 == t->ncols;
		const char *sgr = t->sgr && i < t->sgr_alloc ? t->sgr[i] : NULL;

		if (right[c])
			pad(f, w[c], cw[c]);
		if (sgr)
			fputs(sgr, f);
		fputs(shown[c], f);
		if (sgr)
			fputs("\033[m", f);
		if (!right[c] && !last)
			pad(f, w[c], cw[c]);
		fputs(last ? "\n" : "  ", f);
	}
	for (size_t c = 0; shown && c < t->ncols; c++)
		free(shown[c]);
	free(shown);
	free(cw);
	return ret;
}

/*
 * Cells are shown escaped and aligned by display width (cell_shown). CSV
 * keeps the cells as they are: its quoting carries them.
 */
void table_print(const struct table *t, FILE *f)
{
	size_t rows = t->ncols ? t->n / t->ncols : 0, r, c;
	size_t *w = calloc(t->ncols ? t->ncols : 1, sizeof(*w));
	int *right = calloc(t->ncols ? t->ncols : 1, sizeof(*right));

	if (!w || !right)
		goto out;
	for (c = 0; c < t->ncols; c++)
		right[c] = rows > 1;
	for (r = 0; r < rows; r++)
		if (measure_row(t, r, w, right) < 0)
			goto out;
	for (r = t->hide_header ? 1 : 0; r < rows; r++)
		if (print_row(t, f, r, w, right) < 0)
			break;
out:
	free(w);
	free(right);
}

/* The rows after the header dropped (a streamed table's, handed on). */
static void drop_rows(struct table *t)
{
	for (size_t i = t->ncols; i < t->n; i++) {
		free(t->cells[i]);
		if (t->sgr && i < t->sgr_alloc)
			t->sgr[i] = NULL;
	}
	if (t->n > t->ncols)
		t->n = t->ncols;
}

int table_measure(struct table *t)
{
	size_t rows = t->ncols ? t->n / t->ncols : 0;
	int r = 0;

	if (!t->mw) {
		t->mw = calloc(t->ncols ? t->ncols : 1, sizeof(*t->mw));
		t->mright = calloc(t->ncols ? t->ncols : 1, sizeof(*t->mright));
		if (!t->mw || !t->mright)
			return -ENOMEM;
		for (size_t c = 0; c < t->ncols; c++)
			t->mright[c] = 1;
		r = measure_row(t, 0, t->mw, t->mright);
	}
	for (size_t k = 1; !r && k < rows; k++, t->mrows++)
		r = measure_row(t, k, t->mw, t->mright);
	drop_rows(t);
	return r;
}

int table_print_row(struct table *t, FILE *f)
{
	size_t rows = t->ncols ? t->n / t->ncols : 0;
	int r = t->mw ? 0 : -EINVAL;

	/* table_print's right-alignment wants a row of data */
	for (size_t c = 0; !r && !t->mrows && c < t->ncols; c++)
		t->mright[c] = 0;
	if (!r && !t->head_out && !t->hide_header)
		r = print_row(t, f, 0, t->mw, t->mright);
	t->head_out = 1;
	for (size_t k = 1; !r && k < rows; k++)
		r = print_row(t, f, k, t->mw, t->mright);
	drop_rows(t);
	return r;
}

/* A number as a spreadsheet reads one: [+-]digits[.digits][e[+-]digits][%]. */
static int csv_number(const char *s)
{
	size_t d = 0;

	if (*s == '+' || *s == '-')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		d++;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			d++;
	if (!d)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (*s < '0' || *s > '9')
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s == '%')
		s++;
	return !*s;
}

/*
 * A text cell that a spreadsheet would take for a formula: one that starts
 * with '=', '+', '-', '@', a tab or a carriage return (OWASP's list for CSV
 * injection), and is neither a number ("-3.5", "+2e-3", "-12%": a
 * spreadsheet reads those as the numbers they are) nor our "-" (no value).
 * "=HYPERLINK(...)" in a program name would otherwise run when the CSV is
 * opened.
 */
static int csv_formula(const char *s)
{
	if (!*s || !strchr("=+-@\t\r", *s))
		return 0;
	return strcmp(s, "-") != 0 && !csv_number(s);
}

void csv_field(FILE *f, const char *s)
{
	const char *p;
	int quote = strpbrk(s, ",\"\r\n") != NULL;

	if (quote)
		fputc('"', f);
	if (csv_formula(s))
		fputc('\'', f);
	for (p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	if (quote)
		fputc('"', f);
}

void table_print_csv(const struct table *t, FILE *f)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		const char *s = t->cells[i];

		csv_field(f, s);
		fputc((i + 1) % t->ncols ? ',' : '\n', f);
	}
}
