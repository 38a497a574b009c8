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
 *
 * The slow calls the hook times (tests/e2e/shim-apispans.sh): glLinkProgram
 * and glCompileShader keep the CPU busy for as many milliseconds as their
 * argument says (a planted compile), glClientWaitSync sleeps its timeout
 * (a planted fence wait), glFinish does nothing; each counts itself
 * (stub_calls()).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

typedef void (*fn)(void);

static int presents, nest, calls;

EXPORT int stub_calls(void);
EXPORT void glLinkProgram(unsigned int program);
EXPORT void glCompileShader(unsigned int shader);
EXPORT unsigned int glClientWaitSync(void *sync, unsigned int flags, uint64_t timeout);
EXPORT void glFinish(void);

int stub_calls(void)
{
	return calls;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void busy_ms(unsigned int ms)
{
	uint64_t end = now_ns() + ms * 1000000ull;
	volatile unsigned long x = 0;

	while (now_ns() < end)
		x++;
}

void glLinkProgram(unsigned int program)
{
	calls++;
	busy_ms(program);
}

void glCompileShader(unsigned int shader)
{
	calls++;
	busy_ms(shader);
}

unsigned int glClientWaitSync(void *sync, unsigned int flags, uint64_t timeout)
{
	struct timespec ts = { (time_t)(timeout / 1000000000u), (long)(timeout % 1000000000u) };

	calls++;
	nanosleep(&ts, NULL);
	return 0x911C;	/* GL_CONDITION_SATISFIED */
}

void glFinish(void)
{
	calls++;
}

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
	if (!strcmp(n, "glLinkProgram"))
		return (fn)glLinkProgram;
	if (!strcmp(n, "glCompileShader"))
		return (fn)glCompileShader;
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
	if (!strcmp(name, "glClientWaitSync"))
		return (fn)glClientWaitSync;
	return NULL;
}
