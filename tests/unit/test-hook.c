// SPDX-License-Identifier: MIT
/*
 * test-hook.c: the child environment hook_env_new() builds (src/frames/
 * hook.c): the ring always, the preload library first in LD_PRELOAD (and
 * any other copy of it left out), the layer path and name for the Vulkan loader, nothing added twice; and
 * hook_find() over a directory laid out as the build tree.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "t.h"
#include "frames/hook.h"

static const char *get(char **env, const char *key)
{
	size_t n = strlen(key);

	for (; *env; env++)
		if (strncmp(*env, key, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

static size_t count(char **env)
{
	size_t n = 0;

	while (env[n])
		n++;
	return n;
}

static const struct hook_paths paths = {
	.preload = "/b/libstallscope-frames.so",
	.layer_dir = "/b/vklayer",
};

static void test_fresh(void)
{
	char *base[] = { "HOME=/root", "PATH=/bin", NULL };
	char **env = NULL;

	CHECK_INT(hook_env_new(base, "/stallscope-1-0", &paths, HOOK_ALL, &env), 0);
	CHECK_STR(get(env, "STALLSCOPE_RING"), "/stallscope-1-0");
	CHECK_STR(get(env, "LD_PRELOAD"), "/b/libstallscope-frames.so");
	CHECK_STR(get(env, "VK_ADD_LAYER_PATH"), "/b/vklayer");
	CHECK_STR(get(env, "VK_INSTANCE_LAYERS"), "VK_LAYER_STALLSCOPE_frames");
	CHECK_STR(get(env, "HOME"), "/root");
	CHECK_STR(get(env, "ASAN_OPTIONS"), "verify_asan_link_order=0");
	CHECK_INT(count(env), 7);
	hook_env_free(env);
}

static void test_append(void)
{
	char *base[] = { "LD_PRELOAD=/x/a.so /x/b.so", "VK_INSTANCE_LAYERS=VK_LAYER_X",
			 "ASAN_OPTIONS=detect_leaks=1",
			 "VK_ADD_LAYER_PATH=/x/layers", "STALLSCOPE_RING=/old", "A=1", NULL };
	char **env = NULL, **again = NULL;

	CHECK_INT(hook_env_new(base, "/stallscope-2-1", &paths, HOOK_ALL, &env), 0);
	CHECK_STR(get(env, "STALLSCOPE_RING"), "/stallscope-2-1");
	/* first: a hook before ours would take the presents and not pass them on */
	CHECK_STR(get(env, "LD_PRELOAD"), "/b/libstallscope-frames.so:/x/a.so:/x/b.so");
	CHECK_STR(get(env, "VK_INSTANCE_LAYERS"), "VK_LAYER_X:VK_LAYER_STALLSCOPE_frames");
	CHECK_STR(get(env, "VK_ADD_LAYER_PATH"), "/b/vklayer:/x/layers");
	CHECK_STR(get(env, "ASAN_OPTIONS"), "detect_leaks=1:verify_asan_link_order=0");
	CHECK_INT(count(env), 6);
	/* Hooking an environment already hooked adds nothing twice. */
	CHECK_INT(hook_env_new(env, "/stallscope-2-2", &paths, HOOK_ALL, &again), 0);
	CHECK_STR(get(again, "LD_PRELOAD"), "/b/libstallscope-frames.so:/x/a.so:/x/b.so");
	CHECK_STR(get(again, "VK_INSTANCE_LAYERS"), "VK_LAYER_X:VK_LAYER_STALLSCOPE_frames");
	CHECK_STR(get(again, "STALLSCOPE_RING"), "/stallscope-2-2");
	CHECK_STR(get(again, "ASAN_OPTIONS"), "detect_leaks=1:verify_asan_link_order=0");
	hook_env_free(env);
	hook_env_free(again);
}

/* `mangohud stallscope record`: MangoHud's libraries came first; ours goes
 * before them. Another copy of ours (an installed one, another build) is
 * dropped, or each present would be stamped twice; a library whose name
 * only ends the same way is not ours. */
static void test_first(void)
{
	char *base[] = { "LD_PRELOAD=libMangoHud_dlsym.so:libMangoHud.so", NULL };
	char *other[] = { "LD_PRELOAD=/usr/lib/stallscope/libstallscope-frames.so::/x/a.so "
			  "libstallscope-frames.so /x/mylibstallscope-frames.so:",
			  NULL };
	char **env = NULL;

	CHECK_INT(hook_env_new(base, "/r", &paths, HOOK_GL, &env), 0);
	CHECK_STR(get(env, "LD_PRELOAD"),
		  "/b/libstallscope-frames.so:libMangoHud_dlsym.so:libMangoHud.so");
	hook_env_free(env);
	CHECK_INT(hook_env_new(other, "/r", &paths, HOOK_GL, &env), 0);
	CHECK_STR(get(env, "LD_PRELOAD"),
		  "/b/libstallscope-frames.so:/x/a.so:/x/mylibstallscope-frames.so");
	hook_env_free(env);
}

/* With a 32-bit build beside it: the bare name first in LD_PRELOAD, both
 * directories first on LD_LIBRARY_PATH (each once, the rest kept in order),
 * so that ld.so loads the one of the program's class. */
static void test_32bit(void)
{
	static const struct hook_paths both = {
		.preload = "/b/libstallscope-frames.so",
		.preload32 = "/b/lib32/libstallscope-frames.so",
		.layer_dir = "/b/vklayer",
	};
	char *base[] = { "LD_PRELOAD=/x/a.so:/old/libstallscope-frames.so",
			 "LD_LIBRARY_PATH=/opt/lib:/b:/usr/lib", NULL };
	char *bare[] = { NULL };
	char **env = NULL, **again = NULL;

	CHECK_INT(hook_env_new(base, "/r", &both, HOOK_GL, &env), 0);
	CHECK_STR(get(env, "LD_PRELOAD"), "libstallscope-frames.so:/x/a.so");
	CHECK_STR(get(env, "LD_LIBRARY_PATH"), "/b:/b/lib32:/opt/lib:/usr/lib");
	CHECK_INT(hook_env_new(env, "/r", &both, HOOK_GL, &again), 0);
	CHECK_STR(get(again, "LD_PRELOAD"), "libstallscope-frames.so:/x/a.so");
	CHECK_STR(get(again, "LD_LIBRARY_PATH"), "/b:/b/lib32:/opt/lib:/usr/lib");
	hook_env_free(env);
	hook_env_free(again);
	CHECK_INT(hook_env_new(bare, "/r", &both, HOOK_ALL, &env), 0);
	CHECK_STR(get(env, "LD_PRELOAD"), "libstallscope-frames.so");
	CHECK_STR(get(env, "LD_LIBRARY_PATH"), "/b:/b/lib32");
	hook_env_free(env);
	/* without GL, nothing of it */
	CHECK_INT(hook_env_new(base, "/r", &both, HOOK_VK, &env), 0);
	CHECK_STR(get(env, "LD_LIBRARY_PATH"), "/opt/lib:/b:/usr/lib");
	hook_env_free(env);
}

static void test_none(void)
{
	char *base[] = { "LD_PRELOAD=/x/a.so", NULL };
	char **env = NULL;

	/* --no-hook: the ring alone, for the marker API. */
	CHECK_INT(hook_env_new(base, "/r", &paths, 0, &env), 0);
	CHECK_STR(get(env, "STALLSCOPE_RING"), "/r");
	CHECK_STR(get(env, "LD_PRELOAD"), "/x/a.so");
	CHECK(get(env, "VK_INSTANCE_LAYERS") == NULL);
	hook_env_free(env);
	CHECK_INT(hook_env_new(base, "/r", &paths, HOOK_VK, &env), 0);
	CHECK_STR(get(env, "LD_PRELOAD"), "/x/a.so");
	CHECK_STR(get(env, "VK_ADD_LAYER_PATH"), "/b/vklayer");
	hook_env_free(env);
	CHECK_INT(hook_env_new(NULL, "/r", NULL, HOOK_ALL, &env), 0);
	CHECK_INT(count(env), 1);
	hook_env_free(env);
	CHECK_INT(hook_env_new(base, NULL, &paths, HOOK_ALL, &env), -EINVAL);
	hook_env_free(NULL);
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f)
		fclose(f);
}

static void test_find(void)
{
	char dir[] = "/tmp/ss-test-hook-XXXXXX", path[256], exe[256];
	struct hook_paths p;

	if (!mkdtemp(dir))
		t_skip("no temporary directory");
	snprintf(exe, sizeof(exe), "%s/stallscope", dir);
	touch(exe);
	unsetenv(HOOK_DIR_ENV);
	snprintf(path, sizeof(path), "%s/%s", dir, HOOK_PRELOAD_LIB);
	touch(path);
	snprintf(path, sizeof(path), "%s/vklayer", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/vklayer/%s", dir, HOOK_LAYER_MANIFEST);
	touch(path);
	CHECK_INT(hook_find(exe, &p), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, HOOK_PRELOAD_LIB);
	CHECK_STR(p.preload, path);
	snprintf(path, sizeof(path), "%s/vklayer", dir);
	CHECK_STR(p.layer_dir, path);
	/* The 32-bit build, where there is one: lib32/ beside it. */
	snprintf(path, sizeof(path), "%s/lib32", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/lib32/%s", dir, HOOK_PRELOAD_LIB);
	touch(path);
	CHECK_INT(hook_find(exe, &p), 0);
	CHECK_STR(p.preload32, path);
	unlink(path);
	snprintf(path, sizeof(path), "%s/lib32", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/vklayer", dir);
	/* The override wins over the binary's directory. */
	setenv(HOOK_DIR_ENV, dir, 1);
	CHECK_INT(hook_find("/nonexistent/stallscope", &p), 0);
	CHECK_STR(p.layer_dir, path);
	unsetenv(HOOK_DIR_ENV);
	snprintf(path, sizeof(path), "%s/vklayer/%s", dir, HOOK_LAYER_MANIFEST);
	unlink(path);
	snprintf(path, sizeof(path), "%s/vklayer", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/%s", dir, HOOK_PRELOAD_LIB);
	unlink(path);
	unlink(exe);
	rmdir(dir);
}

int main(void)
{
	T_RUN(test_fresh);
	T_RUN(test_append);
	T_RUN(test_first);
	T_RUN(test_32bit);
	T_RUN(test_none);
	T_RUN(test_find);
	return t_exit();
}
