// SPDX-License-Identifier: MIT
/*
 * ss-stubapi: a 60 fps program on the stub libGL (stubgl.c) with planted
 * slow API calls, for the hook's API spans (tests/e2e/shim-apispans.sh).
 * Opens the stub RTLD_LOCAL, presents with glXSwapBuffers from dlsym, and
 * between two presents makes, one stall each:
 *
 *   glLinkProgram(LINK_MS)      through glXGetProcAddressARB: the CPU busy
 *   glCompileShader(2)          through dlsym on the handle: a 2 ms span, no stall
 *   glClientWaitSync(WAIT_MS)   through eglGetProcAddress: asleep
 *
 *   ss-stubapi [LINK_MS [WAIT_MS]]   (defaults 300 and 250)
 *
 * Prints "stub calls K" (slow calls the stub saw: 3) and "stub presents K".
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef STUB_DIR
#error "STUB_DIR: where libss-stubgl.so is"
#endif

typedef void (*fn)(void);

static void *need(void *p, const char *what)
{
	if (!p) {
		fprintf(stderr, "ss-stubapi: no %s (%s)\n", what, dlerror());
		exit(1);
	}
	return p;
}

static void frames(void (*swap)(void *, unsigned long), int n)
{
	struct timespec ts = { 0, 16 * 1000 * 1000 };

	for (int i = 0; i < n; i++) {
		nanosleep(&ts, NULL);
		swap(NULL, 0);
	}
}

int main(int argc, char **argv)
{
	unsigned int link_ms = argc > 1 ? (unsigned int)atoi(argv[1]) : 300;
	unsigned int wait_ms = argc > 2 ? (unsigned int)atoi(argv[2]) : 250;
	void *h = need(dlopen(STUB_DIR "/libss-stubgl.so", RTLD_NOW | RTLD_LOCAL), "stub");
	void (*swap)(void *, unsigned long) =
		(void (*)(void *, unsigned long))need(dlsym(h, "glXSwapBuffers"), "glXSwapBuffers");
	fn (*glx_gpa)(const unsigned char *) =
		(fn(*)(const unsigned char *))need(dlsym(h, "glXGetProcAddressARB"), "gpa");
	fn (*egl_gpa)(const char *) = (fn(*)(const char *))need(dlsym(h, "eglGetProcAddress"),
								 "eglGetProcAddress");
	void (*link)(unsigned int) = (void (*)(unsigned int))need(
		(void *)glx_gpa((const unsigned char *)"glLinkProgram"), "glLinkProgram");
	void (*compile)(unsigned int) =
		(void (*)(unsigned int))need(dlsym(h, "glCompileShader"), "glCompileShader");
	unsigned int (*wait)(void *, unsigned int, uint64_t) =
		(unsigned int (*)(void *, unsigned int, uint64_t))need(
			(void *)egl_gpa("glClientWaitSync"), "glClientWaitSync");
	int (*calls)(void) = (int (*)(void))need(dlsym(h, "stub_calls"), "stub_calls");
	int (*presents)(void) = (int (*)(void))need(dlsym(h, "stub_presents"), "stub_presents");

	frames(swap, 40);
	link(link_ms);
	frames(swap, 30);
	compile(2);
	frames(swap, 30);
	wait(NULL, 1, wait_ms * 1000000ull);
	frames(swap, 30);
	printf("stub calls %d\n", calls());
	printf("stub presents %d\n", presents());
	return 0;
}
