// SPDX-License-Identifier: MIT
/* html_history.c: the history page (html_history.h). */
#include <errno.h>
#include <stdio.h>

#include "out/html_history.h"
#include "out/html_int.h"

/* cmake/html.cmake embeds these (cmake/embed.cmake), each NUL-terminated. */
extern const unsigned char ss_html_uplot_js[], ss_html_uplot_css[], ss_html_uplot_license[],
	ss_html_history_js[], ss_html_history_css[];
extern const size_t ss_html_uplot_js_len, ss_html_uplot_css_len, ss_html_uplot_license_len,
	ss_html_history_js_len, ss_html_history_css_len;

int html_history_write(FILE *f, const char *title, const char *data, size_t len)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"stallscope " STALLSCOPE_VERSION "\">\n<title>",
	      f);
	html_put_escaped(f, title);
	fputs("</title>\n<style>\n", f);
	fwrite(ss_html_uplot_css, 1, ss_html_uplot_css_len, f);
	fputs("\n", f);
	fwrite(ss_html_history_css, 1, ss_html_history_css_len, f);
	fputs("</style>\n</head>\n<body>\n<div id=\"ss-app\"><p class=\"ss-loading\">Loading... "
	      "(this page needs JavaScript)</p></div>\n"
	      "<script type=\"application/json\" id=\"ss-data\">", f);
	html_put_script_json(f, data, len);
	fputs("</script>\n<script>\n/* uPlot (https://github.com/leeoniya/uPlot), vendored "
	      "from the npm registry; its licence:\n", f);
	html_put_script_text(f, (const char *)ss_html_uplot_license, ss_html_uplot_license_len);
	fputs("*/\n", f);
	html_put_script_text(f, (const char *)ss_html_uplot_js, ss_html_uplot_js_len);
	fputs("\n</script>\n<script>\n", f);
	html_put_script_text(f, (const char *)ss_html_history_js, ss_html_history_js_len);
	fputs("\n</script>\n</body>\n</html>\n", f);
	return ferror(f) ? -EIO : 0;
}
