// SPDX-License-Identifier: MIT
/*
 * hook.c: finding the shim's files and writing the environment that loads
 * them into a child (hook.h). The values are computed once by hook_vars()
 * from a getter over some environment, then either put into a copied
 * environment array (hook_env_new) or into this process's (hook_setenv).
 *
 * Assumes list variables use ':' as separator (LD_PRELOAD also accepts
 * spaces; a value we append to keeps whatever it had) and that an entry
 * already present, compared as a whole ':'-separated item, must not be
 * added twice (a stallscope run inside a stallscope run keeps one copy).
 */
#include <errno.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "frames/hook.h"
#include "stallscope-ring.h"

#ifndef SS_SHIM_LIBDIR
#define SS_SHIM_LIBDIR "/usr/local/lib/stallscope"
#endif
#ifndef SS_VK_LAYER_DIR
#define SS_VK_LAYER_DIR "/usr/local/share/vulkan/explicit_layer.d"
#endif

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Fills P from DIR's build-tree layout (DIR/lib, DIR/vklayer/manifest);
 * returns how many were found. */
static int find_in(const char *dir, struct hook_paths *p)
{
	char path[PATH_MAX + 64];
	int found = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, HOOK_PRELOAD_LIB);
	if (!p->preload[0] && strlen(path) < sizeof(p->preload) && is_file(path)) {
		strcpy(p->preload, path);
		found++;
	}
	snprintf(path, sizeof(path), "%s/lib32/%s", dir, HOOK_PRELOAD_LIB);
	if (!p->preload32[0] && strlen(path) < sizeof(p->preload32) && is_file(path))
		strcpy(p->preload32, path);
	snprintf(path, sizeof(path), "%s/vklayer/%s", dir, HOOK_LAYER_MANIFEST);
	if (!p->layer_dir[0] && strlen(path) < sizeof(p->layer_dir) && is_file(path)) {
		snprintf(p->layer_dir, sizeof(p->layer_dir), "%s/vklayer", dir);
		found++;
	}
	return found;
}

int hook_find(const char *exe, struct hook_paths *ret)
{
	struct hook_paths p = { .preload = "" };
	char real[PATH_MAX], path[PATH_MAX + 64];
	const char *env = getenv(HOOK_DIR_ENV);

	if (env && *env && realpath(env, real))
		find_in(real, &p);
	if (!exe)
		exe = (const char *)getauxval(AT_EXECFN);
	if (exe && realpath(exe, real))
		find_in(dirname(real), &p);
	snprintf(path, sizeof(path), "%s/%s", SS_SHIM_LIBDIR, HOOK_PRELOAD_LIB);
	if (!p.preload[0] && strlen(path) < sizeof(p.preload) && is_file(path))
		strcpy(p.preload, path);
	snprintf(path, sizeof(path), "%s/32/%s", SS_SHIM_LIBDIR, HOOK_PRELOAD_LIB);
	if (!p.preload32[0] && strlen(path) < sizeof(p.preload32) && is_file(path))
		strcpy(p.preload32, path);
	snprintf(path, sizeof(path), "%s/%s", SS_VK_LAYER_DIR, HOOK_LAYER_MANIFEST);
	if (!p.layer_dir[0] && strlen(SS_VK_LAYER_DIR) < sizeof(p.layer_dir) && is_file(path))
		strcpy(p.layer_dir, SS_VK_LAYER_DIR);
	if (!p.preload[0] && !p.layer_dir[0])
		return -ENOENT;
	*ret = p;
	return 0;
}

/* ------------------------------------------------------------ the values */

#define HOOK_NVARS 6

struct hook_var {
	const char *key;
	char *value;		/* malloc'd */
};

/* Whether ':'-separated LIST holds ITEM as a whole entry. */
static int list_has(const char *list, const char *item)
{
	size_t n = strlen(item);

	for (const char *s = list; s && *s;) {
		const char *end = strpbrk(s, ": ");
		size_t len = end ? (size_t)(end - s) : strlen(s);

		if (len == n && memcmp(s, item, n) == 0)
			return 1;
		if (!end)
			break;
		s = end + 1;
	}
	return 0;
}

/* OLD with ITEM added (after it when APPEND, else before), malloc'd. */
static char *list_add(const char *old, const char *item, int append)
{
	char *s;
	int rc;

	if (!old || !*old)
		return strdup(item);
	if (list_has(old, item))
		return strdup(old);
	rc = append ? asprintf(&s, "%s:%s", old, item) : asprintf(&s, "%s:%s", item, old);
	return rc < 0 ? NULL : s;
}

/*
 * LD_PRELOAD with LIB first and every other copy of the library (an entry
 * whose file name is HOOK_PRELOAD_LIB: another build, an installed one)
 * left out, malloc'd. First, because a hook before ours (MangoHud) would
 * take the program's presents and call the driver without passing them
 * on; alone, because two copies would stamp each present twice. The other
 * entries keep their order; ld.so's separators (':' and ' ') become ':'.
 */
static char *preload_first(const char *old, const char *lib)
{
	struct strbuf sb = STRBUF_INIT;
	size_t nb = strlen(HOOK_PRELOAD_LIB);
	int err = sb_adds(&sb, lib);

	for (const char *s = old; s && *s && !err;) {
		size_t len = strcspn(s, ": ");

		if (len && !(len >= nb && memcmp(s + len - nb, HOOK_PRELOAD_LIB, nb) == 0 &&
			     (len == nb || s[len - nb - 1] == '/')))
			err = sb_addc(&sb, ':') < 0 || sb_add(&sb, s, len) < 0;
		s += len;
		s += *s != '\0';
	}
	if (err) {
		sb_release(&sb);
		return NULL;
	}
	return sb_detach(&sb);
}

/* LD_LIBRARY_PATH: the directories of libraries A and B first (A's, then
 * B's), then OLD's entries but those two; malloc'd, NULL on ENOMEM. */
static char *lib_path(const char *old, const char *a, const char *b)
{
	struct strbuf sb = STRBUF_INIT;
	char *da = strdup(a), *db = strdup(b);
	const char *dir_a = NULL, *dir_b = NULL;
	int err = !da || !db;

	if (!err) {
		dir_a = dirname(da);
		dir_b = dirname(db);
		err = sb_addf(&sb, "%s:%s", dir_a, dir_b) < 0;
	}
	for (const char *p = old; p && *p && !err;) {
		size_t len = strcspn(p, ":");
		bool ours = (len == strlen(dir_a) && !memcmp(p, dir_a, len)) ||
			    (len == strlen(dir_b) && !memcmp(p, dir_b, len));

		if (!ours)
			err = sb_addc(&sb, ':') < 0 || sb_add(&sb, p, len) < 0;
		p += len;
		p += *p == ':';
	}
	free(da);
	free(db);
	if (err) {
		sb_release(&sb);
		return NULL;
	}
	return sb_detach(&sb);
}

static const char *env_get(char *const *env, const char *key)
{
	size_t n = strlen(key);

	for (; env && *env; env++)
		if (strncmp(*env, key, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

static void vars_free(struct hook_var *v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i].value);
}

/* Computes the variables to set from ENV; returns how many (>= 1) or -errno. */
static int hook_vars(char *const *env, const char *ring_name, const struct hook_paths *p,
		     unsigned what, struct hook_var v[HOOK_NVARS])
{
	int n = 0;

	if (!ring_name || !*ring_name)
		return -EINVAL;
	v[n].key = SS_RING_ENV;
	v[n++].value = strdup(ring_name);
	if ((what & HOOK_GL) && p && p->preload[0]) {
		v[n].key = "LD_PRELOAD";
		if (!p->preload32[0]) {
			v[n++].value = preload_first(env_get(env, "LD_PRELOAD"), p->preload);
		} else {
			/* both builds: by the bare name, found in the library path,
			 * where ld.so skips the one of the other ELF class */
			v[n++].value = preload_first(env_get(env, "LD_PRELOAD"), HOOK_PRELOAD_LIB);
			v[n].key = "LD_LIBRARY_PATH";
			v[n++].value = lib_path(env_get(env, "LD_LIBRARY_PATH"), p->preload,
						p->preload32);
		}
		/* A program built with ASan refuses to start when a preloaded
		 * library comes before its runtime; ours interposes nothing ASan
		 * needs, so tell it not to check. */
		v[n].key = "ASAN_OPTIONS";
		v[n++].value = list_add(env_get(env, "ASAN_OPTIONS"), "verify_asan_link_order=0", 1);
	}
	if ((what & HOOK_VK) && p && p->layer_dir[0]) {
		v[n].key = "VK_ADD_LAYER_PATH";
		v[n++].value = list_add(env_get(env, "VK_ADD_LAYER_PATH"), p->layer_dir, 0);
		v[n].key = "VK_INSTANCE_LAYERS";
		v[n++].value = list_add(env_get(env, "VK_INSTANCE_LAYERS"), HOOK_LAYER_NAME, 1);
	}
	for (int i = 0; i < n; i++)
		if (!v[i].value) {
			vars_free(v, n);
			return -ENOMEM;
		}
	return n;
}

int hook_env_new(char *const *env, const char *ring_name, const struct hook_paths *p,
		 unsigned what, char ***ret_envp)
{
	struct hook_var v[HOOK_NVARS];
	size_t len = 0, n = 0;
	char **out;
	int nv;

	nv = hook_vars(env, ring_name, p, what, v);
	if (nv < 0)
		return nv;
	for (char *const *e = env; e && *e; e++)
		len++;
	out = calloc(len + (size_t)nv + 1, sizeof(*out));
	if (!out)
		goto nomem;
	for (char *const *e = env; e && *e; e++) {
		int replaced = 0;

		for (int i = 0; i < nv; i++) {
			size_t kl = strlen(v[i].key);

			if (strncmp(*e, v[i].key, kl) == 0 && (*e)[kl] == '=')
				replaced = 1;
		}
		if (replaced)
			continue;
		out[n] = strdup(*e);
		if (!out[n++])
			goto nomem;
	}
	for (int i = 0; i < nv; i++)
		if (asprintf(&out[n++], "%s=%s", v[i].key, v[i].value) < 0) {
			out[--n] = NULL;
			goto nomem;
		}
	vars_free(v, nv);
	*ret_envp = out;
	return 0;

nomem:
	vars_free(v, nv);
	hook_env_free(out);
	return -ENOMEM;
}

void hook_env_free(char **envp)
{
	if (!envp)
		return;
	for (char **e = envp; *e; e++)
		free(*e);
	free(envp);
}

int hook_setenv(const char *ring_name, const struct hook_paths *p, unsigned what)
{
	extern char **environ;
	struct hook_var v[HOOK_NVARS];
	int nv, err = 0;

	nv = hook_vars(environ, ring_name, p, what, v);
	if (nv < 0)
		return nv;
	for (int i = 0; i < nv && !err; i++)
		if (setenv(v[i].key, v[i].value, 1) < 0)
			err = -errno;
	vars_free(v, nv);
	return err;
}
