// SPDX-License-Identifier: MIT
/*
 * wrapper.c: wrapper.h's look through the wrappers in front of a program.
 * A table of wrappers, each with the options its own getopt declares (from
 * each tool's manual: env(1), nice(1), taskset(1), ionice(1), chrt(1),
 * timeout(1), stdbuf(1), setsid(1), time(1), xvfb-run(1), flatpak-run(1),
 * wine(1), sh(1)); one walk over the words, and one level of recursion per
 * shell command string or `env -S` string, WRAPPER_DEPTH at most. Words are
 * never expanded: a program word with `$` or a backquote is not a name.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/argsplit.h"
#include "core/grow.h"
#include "core/wrapper.h"

#define WRAPPER_DEPTH 4		/* nested sh -c / env -S strings looked into */
#define WRAPPER_HOPS 32		/* wrappers looked through in one command line */
#define COMM_LEN 15		/* the kernel's TASK_COMM_LEN less its NUL */

enum wkind {
	W_PLAIN,	/* options, positional words, then the program */
	W_ENV,		/* env: also VAR=VALUE words, `-` and -S STRING */
	W_SHELL,	/* sh and the like: -c STRING, else a script */
	W_WINE,		/* wine [start [/switches]] PROGRAM.exe: the last hop */
	W_PROTON,	/* proton run PROGRAM.exe: as wine */
	W_FLATPAK,	/* flatpak [options] run [options] APP-ID: the last hop */
	W_GAMESCOPE,	/* gamescope [options] -- PROGRAM */
};

struct wspec {
	const char *name;	/* its base name */
	enum wkind kind;
	const char *short_val;	/* short options that take a value */
	const char *long_val;	/* long options that take a value, each between blanks */
	const char *no_cmd;	/* short options that act on a process: no program follows */
	const char *long_no_cmd;	/* the same, long */
	int npos;		/* positional words before the program; -1: one when all digits */
};

static const struct wspec wrappers[] = {
	{ "mangohud", W_PLAIN, "", "", "", "", 0 },		/* [--dlsym] */
	{ "gamemoderun", W_PLAIN, "", "", "", "", 0 },
	{ "prime-run", W_PLAIN, "", "", "", "", 0 },
	{ "primusrun", W_PLAIN, "", "", "", "", 0 },
	{ "optirun", W_PLAIN, "bc", " bridge compressor ", "", "", 0 },
	{ "steam-run", W_PLAIN, "", "", "", "", 0 },
	{ "nohup", W_PLAIN, "", "", "", "", 0 },
	{ "setsid", W_PLAIN, "", "", "", "", 0 },		/* -c -f -w */
	{ "env", W_ENV, "uCS", " unset chdir split-string ", "", "", 0 },
	{ "nice", W_PLAIN, "n", " adjustment ", "", "", 0 },	/* -N legacy: digits as flags */
	{ "ionice", W_PLAIN, "cnpPu", " class classdata pid pgid uid ", "pPu", " pid pgid uid ",
	  0 },
	{ "taskset", W_PLAIN, "", "", "p", " pid ", 1 },	/* -c: the list is the positional */
	{ "chrt", W_PLAIN, "TPD", " sched-runtime sched-period sched-deadline ", "pm",
	  " pid max ", -1 },
	{ "timeout", W_PLAIN, "sk", " signal kill-after ", "", "", 1 },
	{ "stdbuf", W_PLAIN, "ioe", " input output error ", "", "", 0 },
	{ "time", W_PLAIN, "fo", " format output ", "", "", 0 },
	{ "xvfb-run", W_PLAIN, "efnpsw",
	  " error-file auth-file server-num xauth-protocol server-args wait ", "", "", 0 },
	{ "gamescope", W_GAMESCOPE, "", "", "", "", 0 },
	{ "sh", W_SHELL, "oO", " rcfile init-file ", "", "", 0 },
	{ "bash", W_SHELL, "oO", " rcfile init-file ", "", "", 0 },
	{ "dash", W_SHELL, "oO", "", "", "", 0 },
	{ "zsh", W_SHELL, "oO", "", "", "", 0 },
	{ "ksh", W_SHELL, "oO", "", "", "", 0 },
	{ "mksh", W_SHELL, "oO", "", "", "", 0 },
	{ "wine", W_WINE, "", "", "", "", 0 },
	{ "wine64", W_WINE, "", "", "", "", 0 },
	{ "wine-stable", W_WINE, "", "", "", "", 0 },
	{ "wine64-stable", W_WINE, "", "", "", "", 0 },
	{ "wine-development", W_WINE, "", "", "", "", 0 },
	{ "proton", W_PROTON, "", "", "", "", 0 },
	{ "flatpak", W_FLATPAK, "", "", "", "", 0 },
};

/* flatpak run's options that take a value (flatpak-run(1)); GOption takes
 * them attached (--arch=x86_64) or as the next word */
static const char flatpak_run_val[] =
	" arch branch command cwd commit runtime runtime-version runtime-commit env unset-env"
	" env-fd share unshare socket nosocket device nodevice allow disallow filesystem"
	" nofilesystem add-policy remove-policy persist talk-name no-talk-name own-name"
	" system-talk-name system-no-talk-name system-own-name app-path usr-path"
	" instance-id-fd parent-pid ";

static const struct wspec *find(const char *base)
{
	for (size_t i = 0; i < sizeof(wrappers) / sizeof(wrappers[0]); i++)
		if (!strcmp(wrappers[i].name, base))
			return &wrappers[i];
	return NULL;
}

/* wrapper.h */
bool wrapper_is(const char *name)
{
	return name && find(name);
}

/* The part of PATH after its last '/' (and '\\' with BACKSLASH). */
static const char *base_name(const char *path, bool backslash)
{
	const char *b = path;

	for (const char *p = path; *p; p++)
		if (*p == '/' || (backslash && *p == '\\'))
			b = p + 1;
	return b;
}

/* Whether the long option NAME (LEN bytes) is in LIST (" a b c "). */
static bool in_list(const char *list, const char *name, size_t len)
{
	for (const char *p = list; (p = strstr(p, " ")) && p[1]; p++)
		if (!strncmp(p + 1, name, len) && p[1 + len] == ' ')
			return true;
	return false;
}

static void set_name(struct wrapper_name *ret, const char *name, size_t len)
{
	if (len >= WRAPPER_NAME_MAX)
		len = WRAPPER_NAME_MAX - 1;
	memcpy(ret->name, name, len);
	ret->name[len] = '\0';
}

/* Appends NAME to the wrappers looked through; once full, ends with "...". */
static void add_via(struct wrapper_name *ret, const char *name)
{
	size_t len = strlen(ret->via), n = strlen(name);

	if (len >= 3 && !strcmp(ret->via + len - 3, "..."))
		return;
	if (len + 1 + n + 5 > WRAPPER_VIA_MAX) {	/* room for " ..." after it */
		snprintf(ret->via + len, WRAPPER_VIA_MAX - len, "%s...", len ? " " : "");
		return;
	}
	snprintf(ret->via + len, WRAPPER_VIA_MAX - len, "%s%s", len ? " " : "", name);
}

/*
 * Skips S's options from word I of W (N words), as a getopt that stops at
 * the first word that is not an option; with SHELL_C, notes a -c among a
 * shell's flags (which also start with '+'). Returns the index of the first
 * word after them (N when none), or -1 when an option says that no program
 * follows (a process id to act on).
 */
static int skip_opts(const struct wspec *s, const char *const *w, int i, int n, bool *shell_c)
{
	while (i < n) {
		const char *a = w[i];

		if (!strcmp(a, "--"))
			return i + 1;
		if (!((a[0] == '-' || (s->kind == W_SHELL && a[0] == '+')) && a[1]))
			return i;
		if (a[0] == '-' && a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

			if (in_list(s->long_no_cmd, a + 2, len))
				return -1;
			i += !eq && in_list(s->long_val, a + 2, len) ? 2 : 1;
			continue;
		}
		for (size_t k = 1; a[k]; k++) {
			if (strchr(s->no_cmd, a[k]))
				return -1;
			if (shell_c && a[k] == 'c')
				*shell_c = true;
			if (strchr(s->short_val, a[k])) {
				if (!a[k + 1])
					i++;	/* the value is the next word */
				break;		/* else attached: -n5 */
			}
		}
		i++;
	}
	return i;
}

/* Whether A is a shell assignment NAME=VALUE (NAME an identifier). */
static bool assignment(const char *a)
{
	if (!(isalpha((unsigned char)a[0]) || a[0] == '_'))
		return false;
	for (a++; *a && *a != '='; a++)
		if (!(isalnum((unsigned char)*a) || *a == '_'))
			return false;
	return *a == '=';
}

static int look(const char *const *w, int n, int depth, struct wrapper_name *ret);

/* Commands a shell string runs before its program (builtins and the like),
 * skipped; and words that make a string more than a list of simple
 * commands (control structures, the shell's end), where the look gives up. */
static const char *const sh_skip[] = {
	"cd", "echo", "printf", "sleep", "export", "set", "unset", "true", "false", ":",
	"test", "[", "ulimit", "umask", "trap", "wait", "read", "shift", "source", ".",
	"alias", "local", "declare", "typeset", "readonly", "pushd", "popd", "mkdir", "rm",
	"cp", "mv", "ln", "touch", "cat", "chmod", "kill", "type", "hash", "jobs", "let",
	"getopts", "times", "builtin", NULL
};
static const char *const sh_stop[] = {
	"if", "then", "elif", "else", "fi", "for", "while", "until", "do", "done", "case",
	"esac", "{", "}", "(", ")", "[[", "function", "exit", "return", "eval", NULL
};
static const char SEP[] = ";";	/* a separator token, told apart by its address */

static bool listed(const char *const *list, const char *w)
{
	for (; *list; list++)
		if (!strcmp(*list, w))
			return true;
	return false;
}

/* Whether W is in LIST, in any case (Wine's switches). */
static bool listed_case(const char *const *list, const char *w)
{
	for (; *list; list++)
		if (!strcasecmp(*list, w))
			return true;
	return false;
}

/* Whether C at S[I] separates commands: ; & | but not in a redirection
 * (>&2, <&0, &>file, >|file). */
static bool sep_char(const char *s, size_t i)
{
	char c = s[i];

	if (c == ';')
		return true;
	if (c == '&')
		return !(i && (s[i - 1] == '>' || s[i - 1] == '<')) && s[i + 1] != '>';
	if (c == '|')
		return !(i && s[i - 1] == '>');
	return false;
}

/* Whether W is a redirection (>log, 2>&1, <in): digits, then < or >. */
static bool redirection(const char *w)
{
	size_t d = strspn(w, "0123456789");

	return w[d] == '<' || w[d] == '>';
}

/* Frees TOK's words (not the SEP marks) and TOK. */
static void tokens_free(char **tok, int n)
{
	for (int i = 0; tok && i < n; i++)
		if (tok[i] != SEP)
			free(tok[i]);
	free(tok);
}

/* V's N words cut at separator characters into words and SEP marks, in a new
 * array (tokens_free); the count, or -1 (no memory). */
static int tokens(char **v, int n, char ***ret)
{
	size_t cap = 0;
	int m = 0;
	char **tok = NULL;

	for (int i = 0; i < n; i++) {
		const char *w = v[i];
		size_t len = strlen(w), from = 0;

		for (size_t k = 0; k <= len; k++) {
			bool cut = k == len || sep_char(w, k);

			if (!cut)
				continue;
			if (ARRAY_GROW(tok, cap, (size_t)m + 2) < 0)	/* a word and a mark */
				goto oom;
			if (k > from || (k == len && len == 0)) {
				if (!(tok[m] = strndup(w + from, k - from)))
					goto oom;
				m++;
			}
			if (k < len && (m == 0 || tok[m - 1] != SEP))
				tok[m++] = (char *)SEP;
			from = k + 1;
		}
	}
	*ret = tok;
	return m;
oom:
	tokens_free(tok, m);
	return -1;
}

/*
 * The program of a shell command string S (sh -c S): S split like a shell
 * (argsplit, nothing expanded), cut into simple commands at ; && || | &; in
 * each, VAR=VALUE words, redirections and `exec [-c] [-l] [-a NAME]` or
 * `command [-p]` skipped; the first command that is not a builtin of
 * sh_skip is looked at. 0 with *ret named,
 * or -1 when it names nothing (empty, unterminated quote, only builtins, a
 * control structure, an expansion).
 */
static int shell_string(const char *s, int depth, struct wrapper_name *ret)
{
	struct strbuf err = STRBUF_INIT;
	char **v = NULL, **tok = NULL;
	int n = argsplit(s, &v, &err), nt = -1, k = 0, r = -1;

	sb_release(&err);
	if (n > 0)
		nt = tokens(v, n, &tok);
	for (int cmd = 0; nt > 0 && k < nt && cmd < 16; cmd++) {
		int end, j;

		while (k < nt && tok[k] == SEP)
			k++;
		for (end = k; end < nt && tok[end] != SEP; end++)
			;
		for (j = k; j < end && (assignment(tok[j]) || redirection(tok[j])); j++)
			;
		if (j < end && (!strcmp(tok[j], "exec") || !strcmp(tok[j], "command"))) {
			for (j++; j < end && tok[j][0] == '-'; j++) {
				if (!strcmp(tok[j], "--")) {
					j++;
					break;
				}
				if (!strcmp(tok[j], "-a"))
					j++;
			}
		}
		if (j < end && listed(sh_stop, tok[j]))
			break;
		if (j < end && !listed(sh_skip, tok[j])) {
			r = look((const char *const *)tok + j, end - j, depth, ret);
			break;
		}
		k = end;
	}
	tokens_free(tok, nt > 0 ? nt : 0);
	argsplit_free(v);
	return r;
}

/* env -S STRING at word I: `env` + STRING's words + the words after, looked
 * at again (the string holds env's options and assignments too). */
static int env_split(const char *const *w, int n, int i, const char *str, int depth,
		     size_t via_len, struct wrapper_name *ret)
{
	struct strbuf err = STRBUF_INIT;
	char **v = NULL;
	int m = argsplit(str, &v, &err), r = -1;
	const char **nw;

	sb_release(&err);
	if (m < 0)
		return -1;
	nw = calloc((size_t)(1 + m + (n - i)), sizeof(*nw));
	if (nw) {
		ret->via[via_len] = '\0';	/* the look again names env */
		nw[0] = w[0];
		for (int k = 0; k < m; k++)
			nw[1 + k] = v[k];
		for (int k = i; k < n; k++)
			nw[1 + m + (k - i)] = w[k];
		r = look(nw, 1 + m + (n - i), depth + 1, ret);
	}
	free(nw);
	argsplit_free(v);
	return r;
}

/* env's options and assignments from word 1: the program's index (N when
 * none), or -2 when an -S string was looked at again (its result in *R). */
static int skip_env(const struct wspec *s, const char *const *w, int n, int depth,
		    size_t via_len, struct wrapper_name *ret, int *r)
{
	int i = 1;

	while (i < n) {
		const char *a = w[i], *val = NULL;
		int next = i + 1;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-")) {	/* -i */
			i++;
			continue;
		}
		if (a[0] != '-')
			break;
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

			if (len == 12 && !strncmp(a + 2, "split-string", 12)) {
				val = eq ? eq + 1 : (i + 1 < n ? w[i + 1] : NULL);
				next = eq ? i + 1 : i + 2;
			} else {
				i += !eq && in_list(s->long_val, a + 2, len) ? 2 : 1;
				continue;
			}
		} else {
			for (size_t k = 1; a[k]; k++) {
				if (a[k] != 'S' && !strchr(s->short_val, a[k]))
					continue;	/* a flag: -i, -0, -v */
				if (a[k + 1])	/* attached: -uNAME, -S'a b' */
					val = a + k + 1;
				else	/* the next word: -u NAME, -S 'a b' */
					val = i + 1 < n ? w[i + 1] : NULL, next = i + 2;
				if (a[k] != 'S') {
					val = NULL;	/* -u NAME, -C DIR */
					break;
				}
				if (!val)
					return n;	/* -S with nothing: env itself */
				break;
			}
			if (!val) {
				i = next;
				continue;
			}
		}
		if (!val || depth >= WRAPPER_DEPTH)
			return n;
		*r = env_split(w, n, next, val, depth, via_len, ret);
		return -2;
	}
	while (i < n && strchr(w[i], '='))	/* env takes any word with '=' */
		i++;
	return i;
}

/* Wine's program from word I: `start`, its switches, then the program;
 * named after it without ".exe". 0, or -1 when none follows. */
static int wine_program(const char *const *w, int n, int i, struct wrapper_name *ret)
{
	static const char *const flags[] = { "/wait", "/min", "/max", "/b", "/l", "/low",
					     "/normal", "/high", "/realtime", "/abovenormal",
					     "/belownormal", NULL };
	static const char *const vals[] = { "/d", "/node", "/affinity", NULL };
	const char *b;
	size_t len;

	if (i < n && !strcmp(w[i], "start")) {
		for (i++; i < n && w[i][0] == '/'; i++) {
			if (!strcasecmp(w[i], "/unix")) {	/* /unix PATH */
				i++;
				break;
			}
			if (listed_case(vals, w[i]))
				i++;	/* /d DIR */
			else if (!listed_case(flags, w[i]))
				break;	/* a path: the program */
		}
	}
	if (i >= n || w[i][0] == '-')
		return -1;	/* wine --version: wine itself */
	b = base_name(w[i], true);
	len = strlen(b);
	if (len > 4 && !strcasecmp(b + len - 4, ".exe"))
		len -= 4;
	if (!len)
		return -1;
	set_name(ret, b, len);
	return 0;
}

/* flatpak's app from word 1: past flatpak's options, `run` and its
 * options; named after the ID's last part, lowercased (a flatpak ID is
 * CamelCase, the program inside it mostly not: net.supertuxkart.SuperTuxKart
 * runs supertuxkart). 0, or -1 when there is no `run APP`. */
static int flatpak_app(const char *const *w, int n, struct wrapper_name *ret)
{
	static const struct wspec run = { "flatpak run", W_PLAIN, "", flatpak_run_val, "", "", 0 };
	int i = skip_opts(&run, w, 1, n, NULL);	/* flatpak's own: --user, -v, ... */
	size_t len;
	const char *id, *dot;

	if (i < 0 || i >= n || strcmp(w[i], "run"))
		return -1;
	i = skip_opts(&run, w, i + 1, n, NULL);
	if (i < 0 || i >= n)
		return -1;
	id = w[i];
	len = strcspn(id, "/");	/* ID//BRANCH, ID/ARCH/BRANCH */
	dot = id;
	for (size_t k = 0; k < len; k++)
		if (id[k] == '.')
			dot = id + k + 1;
	len -= (size_t)(dot - id);
	if (!len)
		return -1;
	set_name(ret, dot, len);
	for (char *p = ret->name; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return 0;
}

/* Whether WORD's base name can name a program: not empty, nothing the
 * shell would have expanded. */
static bool nameable(const char *word)
{
	const char *b = base_name(word, false);

	return *b && !strpbrk(b, "$`");
}

/*
 * Names the program of W (N words, W[0] the first program word). 0 with
 * ret->name set and the wrappers looked through added to ret->via, or -1
 * when W names nothing (no word, an empty one, an expansion).
 */
static int look(const char *const *w, int n, int depth, struct wrapper_name *ret)
{
	if (n < 1 || !nameable(w[0]))
		return -1;
	for (int hop = 0;; hop++) {
		const char *base = base_name(w[0], false);
		const struct wspec *s = hop < WRAPPER_HOPS ? find(base) : NULL;
		size_t via_len = strlen(ret->via);
		bool shell_c = false;
		int i = 1, r = -1;

		if (!s) {
			set_name(ret, base, strlen(base));
			return 0;
		}
		add_via(ret, base);
		switch (s->kind) {
		case W_WINE:
			r = wine_program(w, n, 1, ret);
			goto named;
		case W_PROTON:
			if (n > 1 && (!strcmp(w[1], "run") || !strcmp(w[1], "waitforexitandrun") ||
				      !strcmp(w[1], "runinprefix")))
				r = wine_program(w, n, 2, ret);
			goto named;
		case W_FLATPAK:
			r = flatpak_app(w, n, ret);
			goto named;
		case W_GAMESCOPE:
			while (i < n && strcmp(w[i], "--"))
				i++;
			i++;
			break;
		case W_ENV:
			i = skip_env(s, w, n, depth, via_len, ret, &r);
			if (i == -2)
				goto named;
			break;
		case W_SHELL:
			i = skip_opts(s, w, 1, n, &shell_c);
			if (shell_c) {
				if (i >= 0 && i < n && depth < WRAPPER_DEPTH)
					r = shell_string(w[i], depth + 1, ret);
				goto named;
			}
			break;
		case W_PLAIN:
			i = skip_opts(s, w, 1, n, NULL);
			if (i >= 0 && s->npos > 0)
				i += s->npos;
			else if (i >= 0 && i < n && s->npos < 0 &&
				 strspn(w[i], "0123456789") == strlen(w[i]))
				i++;	/* chrt's priority, when given */
			break;
		}
		if (i < 0 || i >= n || !nameable(w[i]))
			goto itself;
		w += i;
		n -= i;
		continue;
named:
		if (r == 0)
			return 0;
itself:		/* nothing after it could be named: the wrapper is the program */
		ret->via[via_len] = '\0';
		set_name(ret, base, strlen(base));
		return 0;
	}
}

/* wrapper.h */
int wrapper_name(int argc, const char *const *argv, struct wrapper_name *ret)
{
	struct wrapper_name got = { { 0 }, { 0 } };

	if (argc < 1 || !argv || !argv[0] || !argv[0][0])
		return -EINVAL;
	for (int i = 0; i < argc; i++)
		if (!argv[i])
			return -EINVAL;
	if (look(argv, argc, 0, &got) < 0)
		return -EINVAL;
	*ret = got;
	return 0;
}

/* Whether FULL, cut to the kernel's 15 bytes when COMM is that long, is COMM;
 * with EXE, whether FULL + ".exe" (any case) is. */
static bool comm_is(const char *full, const char *comm, bool exe)
{
	size_t f = strlen(full), c = strlen(comm), k;

	if (strncmp(full, comm, f < c ? f : c))
		return false;
	if (!exe)
		return f == c || (c == COMM_LEN && f > c);
	if (f >= c)
		return false;
	k = c - f;	/* the part of ".exe" that COMM holds */
	return (k == 4 || (c == COMM_LEN && k < 4)) && !strncasecmp(comm + f, ".exe", k);
}

/* wrapper.h */
bool wrapper_same(const char *guess, const char *comm)
{
	if (!guess || !comm || !*guess || !*comm)
		return false;
	return comm_is(guess, comm, false) || comm_is(guess, comm, true);
}
