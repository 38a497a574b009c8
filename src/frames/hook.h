/* SPDX-License-Identifier: MIT */
/*
 * hook.h: what `stallscope record` does so that an unmodified program stamps
 * its presents into the run's frame ring: find the GL/EGL preload library
 * and the Vulkan layer's manifest, and prepare the child's environment.
 *
 * The environment (docs/HOOKS.md says why each):
 *   STALLSCOPE_RING=<ring name>                 always (the marker API needs it too)
 *   LD_PRELOAD=<dir>/libstallscope-frames.so:<old>        with HOOK_GL; first, other
 *                                                          copies of it dropped
 *   (with a 32-bit build beside it: LD_PRELOAD=libstallscope-frames.so:<old>
 *    and LD_LIBRARY_PATH=<dir>:<dir32>:<old>, so that ld.so loads the one of
 *    the program's ELF class and passes over the other without a word)
 *   ASAN_OPTIONS=<old>:verify_asan_link_order=0           with HOOK_GL
 *   VK_ADD_LAYER_PATH=<manifest dir>:<old>                with HOOK_VK
 *   VK_INSTANCE_LAYERS=<old>:VK_LAYER_STALLSCOPE_frames   with HOOK_VK
 *
 * Where the files are: $STALLSCOPE_SHIM_DIR if set (the library and a
 * vklayer/ directory holding the manifest, as in the build tree), else next
 * to the stallscope binary (the build tree: <build>/libstallscope-frames.so,
 * <build>/lib32/libstallscope-frames.so and <build>/vklayer/), else the
 * install prefix compiled in (<libdir>/stallscope/, <libdir>/stallscope/32/
 * and <datadir>/vulkan/explicit_layer.d/).
 *
 * Errors are negative errno values; nothing here prints.
 */
#ifndef SS_FRAMES_HOOK_H
#define SS_FRAMES_HOOK_H

#include <limits.h>

#define HOOK_PRELOAD_LIB "libstallscope-frames.so"
#define HOOK_LAYER_NAME "VK_LAYER_STALLSCOPE_frames"
#define HOOK_LAYER_MANIFEST "VkLayer_stallscope_frames.json"
#define HOOK_DIR_ENV "STALLSCOPE_SHIM_DIR"

enum hook_what {
	HOOK_GL = 1 << 0,	/* the LD_PRELOAD library: glXSwapBuffers, eglSwapBuffers* */
	HOOK_VK = 1 << 1,	/* the Vulkan layer: vkQueuePresentKHR */
	HOOK_ALL = HOOK_GL | HOOK_VK,
};

struct hook_paths {
	char preload[PATH_MAX];		/* absolute path of libstallscope-frames.so, "" if not found */
	char preload32[PATH_MAX];	/* its 32-bit build (lib32/, or 32/ when installed), "" if none */
	char layer_dir[PATH_MAX];	/* directory holding HOOK_LAYER_MANIFEST, "" if not found */
};

/*
 * Finds the preload library and the layer manifest for the stallscope
 * binary at EXE (NULL: this process's own executable, from AT_EXECFN).
 * Returns 0 with *ret filled when at least one was found (the other's path
 * is ""), -ENOENT when neither was.
 */
int hook_find(const char *exe, struct hook_paths *ret);

/*
 * Builds a child's environment: a copy of ENV (NULL-terminated, e.g.
 * environ) with STALLSCOPE_RING set to RING_NAME and, for each hook in WHAT
 * whose file P has, the variables above (appended to any value ENV already
 * has, never twice). Returns 0 and *ret_envp, a NULL-terminated array the
 * caller frees with hook_env_free (for execve/execvpe), or -ENOMEM or
 * -EINVAL (no RING_NAME).
 */
int hook_env_new(char *const *env, const char *ring_name, const struct hook_paths *p,
		 unsigned what, char ***ret_envp);

/* Frees an array from hook_env_new and its strings. NULL-safe. */
void hook_env_free(char **envp);

/*
 * The same change made with setenv() to this process's environment (for a
 * child between fork and exec, or a single-threaded parent before it
 * forks). Returns 0 or -ENOMEM/-EINVAL.
 */
int hook_setenv(const char *ring_name, const struct hook_paths *p, unsigned what);

#endif
