// SPDX-License-Identifier: MIT
/*
 * plugin.c: libss-plugin.so, a plugin the test program opens with
 * dlopen(RTLD_LOCAL). It depends on libss-plugdep.so and finds
 * plugdep_value() with dlsym(RTLD_DEFAULT): the C library searches the
 * caller's scope, which holds the plugin's own dependencies, so this works
 * only when the frame hook's dlsym forwards the lookup with the plugin as
 * the caller. plugin_present() presents through glXSwapBuffers linked from
 * libss-stubgl.so (the DEEPBIND limit of docs/HOOKS.md).
 */
#include <dlfcn.h>

#define EXPORT __attribute__((visibility("default")))

int plugdep_value(void);
void glXSwapBuffers(void *dpy, unsigned long drawable);

EXPORT int plugin_lookup(void);
EXPORT void plugin_present(int n);

int plugin_lookup(void)
{
	int (*f)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "plugdep_value");

	return f ? f() : -1;
}

void plugin_present(int n)
{
	for (int i = 0; i < n; i++)
		glXSwapBuffers(0, 0);
}
