// SPDX-License-Identifier: MIT
/*
 * stubgl.c: libss-stubgl.so, a stand-in for libGL and libEGL in the frame
 * hook's exact tests (tests/e2e/frames-stub.sh): every present the hook can
 * catch (glXSwapBuffers, glXSwapBuffersMscOML, eglSwapBuffers,
 * eglSwapBuffersWithDamageKHR/EXT) and the two GetProcAddresses, with no
 * driver behind them. Each present counts itself (stub_presents()), so a
 * test can tell that the hook passed every call on exactly once.
 *
 * Built without -Bsymbolic, on purpose: the GetProcAddresses hand out the
 * addresses of the exported functions through the GOT, which resolve to
 * the hook's exported wrappers when it is preloaded (the hook must then
 * find the stub's own functions). Internal calls go to static functions,
 * never through the PLT, except in nest mode (stub_set_nest(1)):
 * eglSwapBuffersWithDamageKHR then presents by calling eglSwapBuffers
 * through the global scope (dlsym(RTLD_DEFAULT)), as a careless layer
 * might; with the stub global, one present passes the hook's wrappers
 * twice (the nesting it must count once).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef void (*fn)(void);

static int presents, nest;

EXPORT int stub_presents(void);
EXPORT void stub_set_nest(int on);
EXPORT void glXSwapBuffers(void *dpy, unsigned long drawable);
EXPORT int64_t glXSwapBuffersMscOML(void *dpy, unsigned long drawable, int64_t msc, int64_t div,
				    int64_t rem);
EXPORT fn glXGetProcAddress(const unsigned char *name);
EXPORT fn glXGetProcAddressARB(const unsigned char *name);
EXPORT unsigned int eglSwapBuffers(void *dpy, void *surface);
EXPORT unsigned int eglSwapBuffersWithDamageKHR(void *dpy, void *surface, const int32_t *rects,
						int32_t n);
EXPORT unsigned int eglSwapBuffersWithDamageEXT(void *dpy, void *surface, const int32_t *rects,
						int32_t n);
EXPORT fn eglGetProcAddress(const char *name);

int stub_presents(void)
{
	return presents;
}

void stub_set_nest(int on)
{
	nest = on;
}

static fn glx_gpa(const char *n)
{
	if (!strcmp(n, "glXSwapBuffers"))
		return (fn)glXSwapBuffers;
	if (!strcmp(n, "glXSwapBuffersMscOML"))
		return (fn)glXSwapBuffersMscOML;
	return NULL;
}

static unsigned int egl_present(void)
{
	presents++;
	return 1;
}

void glXSwapBuffers(void *dpy, unsigned long drawable)
{
	presents++;
}

int64_t glXSwapBuffersMscOML(void *dpy, unsigned long drawable, int64_t msc, int64_t div,
			     int64_t rem)
{
	return ++presents;
}

fn glXGetProcAddressARB(const unsigned char *name)
{
	return glx_gpa((const char *)name);
}

fn glXGetProcAddress(const unsigned char *name)
{
	return glx_gpa((const char *)name);
}

unsigned int eglSwapBuffers(void *dpy, void *surface)
{
	return egl_present();
}

unsigned int eglSwapBuffersWithDamageKHR(void *dpy, void *surface, const int32_t *rects,
					 int32_t n)
{
	unsigned int (*swap)(void *, void *);

	if (!nest)
		return egl_present();
	swap = (unsigned int (*)(void *, void *))dlsym(RTLD_DEFAULT, "eglSwapBuffers");
	return swap ? swap(dpy, surface) : 0;
}

unsigned int eglSwapBuffersWithDamageEXT(void *dpy, void *surface, const int32_t *rects,
					 int32_t n)
{
	return egl_present();
}

fn eglGetProcAddress(const char *name)
{
	if (!strcmp(name, "eglSwapBuffers"))
		return (fn)eglSwapBuffers;
	if (!strcmp(name, "eglSwapBuffersWithDamageKHR"))
		return (fn)eglSwapBuffersWithDamageKHR;
	if (!strcmp(name, "eglSwapBuffersWithDamageEXT"))
		return (fn)eglSwapBuffersWithDamageEXT;
	return NULL;
}
