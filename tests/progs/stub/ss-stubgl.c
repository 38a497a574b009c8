// SPDX-License-Identifier: MIT
/*
 * ss-stubgl: presents exactly N frames into libss-stubgl.so (stubgl.c)
 * through one path the frame hook must catch, with no display and no
 * driver, so every count is exact (tests/e2e/frames-stub.sh). Built twice:
 * ss-stubgl opens the stub with dlopen(RTLD_LOCAL) by its full path, as a
 * program that picks its GL library at run time does; ss-stubgl-linked
 * links it, as a program linked against libGL does.
 *
 *   ss-stubgl MODE N
 *
 *   glx-dlsym     glXSwapBuffers from dlsym() on the handle
 *   glx-gpa       glXGetProcAddress from dlsym(), the swap from it
 *   glx-gpa-arb   glXGetProcAddressARB from dlsym(), the swap from it
 *   glx-oml       glXSwapBuffersMscOML through glXGetProcAddressARB
 *   egl-dlsym     eglSwapBuffers from dlsym() on the handle
 *   egl-gpa       eglGetProcAddress from dlsym(), eglSwapBuffers from it
 *   egl-khr       eglSwapBuffersWithDamageKHR through eglGetProcAddress
 *   egl-ext       eglSwapBuffersWithDamageEXT through eglGetProcAddress
 *   egl-nest      the stub opened RTLD_GLOBAL, then egl-khr: the stub's
 *                 KHR calls eglSwapBuffers through the global scope, so one
 *                 present passes two of the hook's wrappers
 *   plugin        no presents: a plugin opened RTLD_LOCAL finds a function
 *                 of its own dependency with dlsym(RTLD_DEFAULT)
 *   deepbind      the plugin opened RTLD_DEEPBIND presents N times through
 *                 its linked glXSwapBuffers (a limit: not seen)
 *   link          (ss-stubgl-linked only) glXSwapBuffers by a PLT call
 *
 * Prints "stub presents K" (presents the stub saw) and, where the test
 * preloads libss-otherhook.so, "otherhook calls K". Exits 1 on a failed
 * lookup, 2 on a bad mode.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef STUB_DIR
#error "STUB_DIR: where libss-stubgl.so and libss-plugin.so are"
#endif

typedef void (*fn)(void);

#ifdef LINKED
void glXSwapBuffers(void *dpy, unsigned long drawable);
#endif

static void *lib(const char *name, int flags)
{
	void *h = dlopen(name, flags);

	if (!h) {
		fprintf(stderr, "ss-stubgl: %s\n", dlerror());
		exit(1);
	}
	return h;
}

static void *need(void *p, const char *what)
{
	if (!p) {
		fprintf(stderr, "ss-stubgl: no %s\n", what);
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int n = argc > 2 ? atoi(argv[2]) : 10;
	int flags = RTLD_NOW | (strcmp(mode, "egl-nest") ? RTLD_LOCAL : RTLD_GLOBAL);
	void *h = lib(STUB_DIR "/libss-stubgl.so", flags), *hook;
	fn (*glx_gpa)(const unsigned char *) = NULL;
	fn (*egl_gpa)(const char *) = NULL;
	void (*glx_swap)(void *, unsigned long) = NULL;
	int64_t (*oml)(void *, unsigned long, int64_t, int64_t, int64_t) = NULL;
	unsigned int (*egl_swap)(void *, void *) = NULL;
	unsigned int (*damage)(void *, void *, const int32_t *, int32_t) = NULL;
	int (*count)(void) = (int (*)(void))need(dlsym(h, "stub_presents"), "stub_presents");
	void (*set_nest)(int) = (void (*)(int))need(dlsym(h, "stub_set_nest"), "stub_set_nest");

	set_nest(!strcmp(mode, "egl-nest"));
	if (!strcmp(mode, "glx-dlsym")) {
		glx_swap = (void (*)(void *, unsigned long))dlsym(h, "glXSwapBuffers");
	} else if (!strcmp(mode, "glx-gpa") || !strcmp(mode, "glx-gpa-arb") ||
		   !strcmp(mode, "glx-oml")) {
		glx_gpa = (fn(*)(const unsigned char *))need(
			dlsym(h, strcmp(mode, "glx-gpa") ? "glXGetProcAddressARB" : "glXGetProcAddress"),
			"glXGetProcAddress(ARB)");
		if (!strcmp(mode, "glx-oml"))
			oml = (int64_t(*)(void *, unsigned long, int64_t, int64_t, int64_t))glx_gpa(
				(const unsigned char *)"glXSwapBuffersMscOML");
		else
			glx_swap = (void (*)(void *, unsigned long))glx_gpa(
				(const unsigned char *)"glXSwapBuffers");
	} else if (!strcmp(mode, "egl-dlsym")) {
		egl_swap = (unsigned int (*)(void *, void *))dlsym(h, "eglSwapBuffers");
	} else if (!strncmp(mode, "egl-", 4)) {
		egl_gpa = (fn(*)(const char *))need(dlsym(h, "eglGetProcAddress"), "eglGetProcAddress");
		if (!strcmp(mode, "egl-gpa"))
			egl_swap = (unsigned int (*)(void *, void *))egl_gpa("eglSwapBuffers");
		else if (!strcmp(mode, "egl-khr") || !strcmp(mode, "egl-nest"))
			damage = (unsigned int (*)(void *, void *, const int32_t *, int32_t))egl_gpa(
				"eglSwapBuffersWithDamageKHR");
		else if (!strcmp(mode, "egl-ext"))
			damage = (unsigned int (*)(void *, void *, const int32_t *, int32_t))egl_gpa(
				"eglSwapBuffersWithDamageEXT");
		else
			return 2;
	} else if (!strcmp(mode, "plugin")) {
		int (*lookup)(void);

		hook = lib(STUB_DIR "/libss-plugin.so", RTLD_NOW | RTLD_LOCAL);
		lookup = (int (*)(void))need(dlsym(hook, "plugin_lookup"), "plugin_lookup");
		printf("plugin lookup %d\n", lookup());
		n = 0;
	} else if (!strcmp(mode, "deepbind")) {
		void (*present)(int);

		hook = lib(STUB_DIR "/libss-plugin.so", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
		present = (void (*)(int))need(dlsym(hook, "plugin_present"), "plugin_present");
		present(n);
		n = 0;
#ifdef LINKED
	} else if (!strcmp(mode, "link")) {
		glx_swap = glXSwapBuffers;
#endif
	} else {
		fprintf(stderr, "ss-stubgl: unknown mode '%s'\n", mode);
		return 2;
	}
	if (n && !glx_swap && !oml && !egl_swap && !damage) {
		fprintf(stderr, "ss-stubgl: %s: the lookup gave no present\n", mode);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		int32_t rect[4] = { 0, 0, 1, 1 };

		if (glx_swap)
			glx_swap(NULL, 0);
		else if (oml)
			oml(NULL, 0, 0, 0, 0);
		else if (egl_swap)
			egl_swap(NULL, NULL);
		else
			damage(NULL, NULL, rect, 1);
	}
	printf("stub presents %d\n", count());
	hook = dlsym(RTLD_DEFAULT, "otherhook_calls");
	if (hook)
		printf("otherhook calls %d\n", ((int (*)(void))hook)());
	return 0;
}
