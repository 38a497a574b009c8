// SPDX-License-Identifier: MIT
/*
 * otherhook.c: libss-otherhook.so, another preload hook beside ours, as
 * overlays and tracers are written: its glXSwapBuffers counts the call and
 * forwards to dlsym(RTLD_NEXT, "glXSwapBuffers"). That lookup passes
 * through the frame hook's dlsym, which must forward it with this library
 * as the caller (a tail jump), or RTLD_NEXT would find this very function
 * again and recurse. tests/e2e/frames-stub.sh preloads it before and after
 * the frame hook.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

static int calls;

EXPORT int otherhook_calls(void);
EXPORT void glXSwapBuffers(void *dpy, unsigned long drawable);

int otherhook_calls(void)
{
	return calls;
}

void glXSwapBuffers(void *dpy, unsigned long drawable)
{
	static void (*real)(void *, unsigned long);

	if (!real)
		real = (void (*)(void *, unsigned long))dlsym(RTLD_NEXT, "glXSwapBuffers");
	if (!real || real == glXSwapBuffers) {
		fprintf(stderr, "otherhook: dlsym(RTLD_NEXT, \"glXSwapBuffers\") gave %s\n",
			real ? "this hook itself" : "nothing");
		exit(3);
	}
	calls++;
	real(dpy, drawable);
}
