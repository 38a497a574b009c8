// SPDX-License-Identifier: MIT
/*
 * term.c: a terminal's width, colour, line folding and the pager
 * (term.h). Assumes the text it measures was escaped by core/display.h
 * (no control byte but '\n' and our own SGR sequences).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/display.h"
#include "out/term.h"

/* ---- colour ---------------------------------------------------------- */

int term_color_parse(const char *s, enum term_color *ret)
{
	if (!strcmp(s, "auto"))
		*ret = TERM_COLOR_AUTO;
	else if (!strcmp(s, "never"))
		*ret = TERM_COLOR_NEVER;
	else if (!strcmp(s, "always"))
		*ret = TERM_COLOR_ALWAYS;
	else
		return -EINVAL;
	return 0;
}

bool term_color_on(enum term_color when, int fd)
{
	const char *nc = getenv("NO_COLOR"), *t = getenv("TERM");

	if (when != TERM_COLOR_AUTO)
		return when == TERM_COLOR_ALWAYS;
	if (nc && *nc)
		return false;
	if (t && !strcmp(t, "dumb"))
		return false;
	return isatty(fd) == 1;
}

/* The page's colours (share/html/page.js CAUSE_COLORS, where "other", a
 * column of report's, takes fault's); tests/e2e/term.sh checks they agree. */
static const struct {
	const char *cause;
	uint32_t rgb;
} cause_rgb[] = {
	{ "disk", 0x1f77b4 },	 { "swap", 0x9467bd }, { "reclaim", 0x8c564b },
	{ "gpu", 0xe377c2 },	 { "cpu", 0xd62728 },  { "runq", 0xff7f0e },
	{ "io", 0x17becf },	 { "wait", 0x2ca02c }, { "fault", 0x7f7f7f },
	{ "unknown", 0xbcbd22 }, { "other", 0x7f7f7f },
};

/* The xterm 256-colour index nearest to RGB: the 6x6x6 cube or the grey
 * ramp, whichever is closer. */
static int rgb_to_256(uint32_t rgb)
{
	static const int lv[6] = { 0, 95, 135, 175, 215, 255 };
	int c[3] = { (int)(rgb >> 16) & 255, (int)(rgb >> 8) & 255, (int)rgb & 255 };
	int idx[3], d_cube = 0, d_grey = 0, grey, g, k;

	for (k = 0; k < 3; k++) {
		int best = 0;

		for (int i = 1; i < 6; i++)
			if (abs(lv[i] - c[k]) < abs(lv[best] - c[k]))
				best = i;
		idx[k] = best;
		d_cube += (lv[best] - c[k]) * (lv[best] - c[k]);
	}
	g = (c[0] + c[1] + c[2]) / 3;
	grey = g < 8 ? 0 : g > 238 ? 23 : (g - 8 + 5) / 10;
	if (grey > 23)
		grey = 23;
	for (k = 0; k < 3; k++)
		d_grey += (8 + 10 * grey - c[k]) * (8 + 10 * grey - c[k]);
	if (d_grey < d_cube)
		return 232 + grey;
	return 16 + 36 * idx[0] + 6 * idx[1] + idx[2];
}

const char *term_cause_sgr(const char *cause)
{
	static char sgr[sizeof(cause_rgb) / sizeof(cause_rgb[0])][16];

	for (size_t i = 0; cause && i < sizeof(cause_rgb) / sizeof(cause_rgb[0]); i++) {
		if (strcmp(cause, cause_rgb[i].cause))
			continue;
		if (!sgr[i][0])
			snprintf(sgr[i], sizeof(sgr[i]), "\033[38;5;%dm", rgb_to_256(cause_rgb[i].rgb));
		return sgr[i];
	}
	return NULL;
}

/* ---- width ----------------------------------------------------------- */

size_t term_width(int fd)
{
	struct winsize ws;
	const char *c = getenv("COLUMNS");

	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	if (c && *c) {
		char *end;
		long v = strtol(c, &end, 10);

		if (!*end && v >= 20 && v <= 10000)
			return (size_t)v;
	}
	return 80;
}

/* The bytes of the character or SGR sequence at S (N > 0 left) into *LEN,
 * its columns returned. */
static size_t char_width(const char *s, size_t n, size_t *len)
{
	char one[5];
	size_t l;

	if (s[0] == '\033' && n > 1 && s[1] == '[') {
		for (l = 2; l < n && !((unsigned char)s[l] >= 0x40 && (unsigned char)s[l] <= 0x7e);
		     l++)
			;
		*len = l < n ? l + 1 : n;
		return 0;
	}
	l = display_utf8((const unsigned char *)s, n, NULL);
	if (!l) {
		*len = 1;
		return 1;
	}
	memcpy(one, s, l);
	one[l] = '\0';
	*len = l;
	return display_width(one);
}

size_t term_text_width(const char *s, size_t n)
{
	size_t w = 0, i = 0, len;

	while (i < n) {
		w += char_width(s + i, n - i, &len);
		i += len;
	}
	return w;
}

/* ---- folding --------------------------------------------------------- */

/* One line (no '\n') of N bytes to F, folded to WIDTH. */
static void fold_line(FILE *f, const char *s, size_t n, size_t width)
{
	size_t lead = 0, cont, indent = 0;

	while (lead < n && s[lead] == ' ')
		lead++;
	cont = lead + 4 < width / 2 ? lead + 4 : width / 2;
	while (n) {
		size_t i = 0, w = indent, blank = 0, len;
		bool cut = false;

		/* the longest piece that fits: to the last blank, else the width */
		while (i < n) {
			size_t cw = char_width(s + i, n - i, &len);

			if (w + cw > width && w > indent) {
				cut = true;
				break;
			}
			if (s[i] == ' ' && i > (indent ? 0 : lead))
				blank = i;
			w += cw;
			i += len;
		}
		if (cut && s[i] == ' ')
			blank = i;	/* the piece fits to the blank after it */
		if (cut && blank)
			i = blank;
		fprintf(f, "%*s", (int)indent, "");
		{
			size_t e = i;

			while (e > 0 && cut && s[e - 1] == ' ')
				e--;
			fwrite(s, 1, e, f);
		}
		fputc('\n', f);
		s += i;
		n -= i;
		while (n && *s == ' ') {
			s++;
			n--;
		}
		indent = cont;
	}
}

int term_fold(FILE *f, const char *text, size_t len, size_t width)
{
	while (len) {
		const char *nl = memchr(text, '\n', len);
		size_t n = nl ? (size_t)(nl - text) : len;

		if (!n)
			fputc('\n', f);
		else if (term_text_width(text, n) <= width) {
			fwrite(text, 1, n, f);
			fputc('\n', f);
		} else
			fold_line(f, text, n, width);
		text += n + (nl ? 1 : 0);
		len -= n + (nl ? 1 : 0);
	}
	return ferror(f) ? -EIO : 0;
}

/* ---- the pager ------------------------------------------------------- */

const char *term_pager_cmd(void)
{
	const char *p = getenv("PAGER");

	if (!p)
		return "less -FRX";
	if (!*p || !strcmp(p, "cat"))
		return NULL;
	return p;
}

/* CMD split at blanks into ARGV (at most MAX - 1 words) in BUF, when it has
 * nothing a shell would read otherwise; false when it needs the shell. */
static bool split_plain(const char *cmd, char *buf, size_t bufsz, char **argv, size_t max)
{
	size_t n = 0;
	char *save = NULL, *w;

	if (cmd[strcspn(cmd, "|&;<>()$`\\\"'*?[#~=%\n")] || strlen(cmd) >= bufsz)
		return false;
	strcpy(buf, cmd);
	for (w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (n + 1 >= max)
			return false;
		argv[n++] = w;
	}
	argv[n] = NULL;
	return n > 0;
}

/* The pager running, for the signal handler; the signals it takes over
 * and their handlers before. */
static volatile pid_t pager_pid;
static const int pager_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
#define NSIGS (sizeof(pager_sigs) / sizeof(pager_sigs[0]))
static void (*pager_old[NSIGS])(int);

/*
 * A signal that ends us while the pager shows our text (Ctrl-C, which the
 * pager ignores; SIGPIPE when the person quit it early): close our end,
 * wait for the pager to end, so that the shell gets the terminal back from
 * it and not from us before it, then end by the signal as we would have.
 * Only async-signal-safe calls.
 */
static void pager_signal(int sig)
{
	int saved = errno;

	close(1);
	if (pager_pid > 0)
		waitpid(pager_pid, NULL, 0);
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

int term_pager_start(struct term_pager *p, const char *cmd)
{
	char buf[512], *argv[32];
	bool plain = split_plain(cmd, buf, sizeof(buf), argv, 32);
	int data[2], err[2], e = 0;
	ssize_t got;
	pid_t pid;

	p->pid = 0;
	p->saved_fd = -1;
	fflush(stdout);
	if (pipe2(data, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		e = -errno;
		close(data[0]);
		close(data[1]);
		return e;
	}
	pid = fork();
	if (pid < 0) {
		e = -errno;
		close(data[0]);
		close(data[1]);
		close(err[0]);
		close(err[1]);
		return e;
	}
	if (pid == 0) {
		if (dup2(data[0], 0) < 0)
			e = errno;
		if (!e) {
			setenv("LESS", "FRX", 0);
			if (plain)
				execvp(argv[0], argv);
			else
				execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			e = errno;
		}
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(data[0]);
	close(err[1]);
	do
		got = read(err[0], &e, sizeof(e));
	while (got < 0 && errno == EINTR);
	close(err[0]);
	if (got == (ssize_t)sizeof(e)) {	/* the exec failed */
		close(data[1]);
		waitpid(pid, NULL, 0);
		return -(e ? e : ENOEXEC);
	}
	p->saved_fd = dup(1);
	if (p->saved_fd < 0 || dup2(data[1], 1) < 0) {
		e = -errno;
		close(data[1]);
		if (p->saved_fd >= 0)
			close(p->saved_fd);
		p->saved_fd = -1;
		waitpid(pid, NULL, 0);
		return e;
	}
	close(data[1]);
	p->pid = pid;
	pager_pid = pid;
	for (size_t k = 0; k < NSIGS; k++)
		pager_old[k] = signal(pager_sigs[k], pager_signal);
	return 0;
}

void term_pager_end(struct term_pager *p)
{
	if (!p->pid)
		return;
	fflush(stdout);
	dup2(p->saved_fd, 1);	/* closes the pipe: the pager sees its end */
	close(p->saved_fd);
	while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
		;
	for (size_t k = 0; k < NSIGS; k++)
		signal(pager_sigs[k], pager_old[k] == SIG_ERR ? SIG_DFL : pager_old[k]);
	pager_pid = 0;
	p->pid = 0;
	p->saved_fd = -1;
}
