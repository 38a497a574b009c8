// SPDX-License-Identifier: MIT
/*
 * glhook.c: libstallscope-frames.so, loaded into a program with LD_PRELOAD.
 * It defines glXSwapBuffers, eglSwapBuffers and eglSwapBuffersWithDamage-
 * KHR/EXT, each calling the real function and then stamping the present into
 * the run's frame ring (after the call returns: the frame has been handed
 * over). glXGetProcAddress(ARB) and eglGetProcAddress hand out these
 * wrappers for those names, so programs that look the swap up still pass
 * through here.
 *
 * The real functions come from dlsym(RTLD_NEXT); when that finds nothing (a
 * program that dlopen()ed libGL or libEGL privately and reached a wrapper
 * through the global scope or a GetProcAddress) they come from the library
 * opened by soname. Without STALLSCOPE_RING every wrapper is a plain
 * pass-through.
 *
 * Assumes GLX/EGL's C ABI only (no GL headers needed): Display * and
 * EGLDisplay/EGLSurface are pointers, GLXDrawable an unsigned long (XID),
 * EGLBoolean an unsigned int, EGLint a 32-bit int. Known limit: a program
 * that takes glXSwapBuffers or glXGetProcAddressARB with dlsym() on its own
 * handle of libGL (SDL2's GL path does) calls the real function directly and
 * is not seen; docs/HOOKS.md says what to do then.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define SS_SHIM_TLS __attribute__((tls_model("initial-exec")))
#include "stamp.h"

typedef void (*ss_fn)(void);
typedef void (*glx_swap_fn)(void *dpy, unsigned long drawable);
typedef ss_fn (*gpa_fn)(const unsigned char *name);
typedef unsigned int (*egl_swap_fn)(void *dpy, void *surface);
typedef unsigned int (*egl_damage_fn)(void *dpy, void *surface, int32_t *rects, int32_t n);
typedef ss_fn (*egl_gpa_fn)(const char *name);

/* The wrapped functions (exported; their prototypes for -Wmissing-prototypes). */
SS_EXPORT void glXSwapBuffers(void *dpy, unsigned long drawable);
SS_EXPORT ss_fn glXGetProcAddress(const unsigned char *name);
SS_EXPORT ss_fn glXGetProcAddressARB(const unsigned char *name);
SS_EXPORT unsigned int eglSwapBuffers(void *dpy, void *surface);
SS_EXPORT unsigned int eglSwapBuffersWithDamageKHR(void *dpy, void *surface, int32_t *rects,
						   int32_t n);
SS_EXPORT unsigned int eglSwapBuffersWithDamageEXT(void *dpy, void *surface, int32_t *rects,
						   int32_t n);
SS_EXPORT ss_fn eglGetProcAddress(const char *name);

/* ----------------------------------------------------- the real functions */

enum api { API_GLX, API_EGL };

static const char *const sonames[][3] = {
	[API_GLX] = { "libGLX.so.0", "libGL.so.1", NULL },
	[API_EGL] = { "libEGL.so.1", NULL, NULL },
};

/* The next definition of NAME after this library, else NAME in API's
 * library opened by soname (already loaded in every case that matters). */
static void *real_sym(const char *name, enum api api)
{
	void *p = dlsym(RTLD_NEXT, name);

	for (int i = 0; !p && sonames[api][i]; i++) {
		void *h = dlopen(sonames[api][i], RTLD_LAZY | RTLD_NOLOAD);

		if (!h)
			h = dlopen(sonames[api][i], RTLD_LAZY | RTLD_LOCAL);
		if (h)
			p = dlsym(h, name);
	}
	return p;
}

/* Resolved once, on first use; a race resolves the same value twice. */
static void *_Atomic real_glx_swap, *_Atomic real_glx_gpa, *_Atomic real_glx_gpa_arb;
static void *_Atomic real_egl_swap, *_Atomic real_egl_khr, *_Atomic real_egl_ext;
static void *_Atomic real_egl_gpa;

static void *get_real(void *_Atomic *slot, const char *name, enum api api)
{
	void *p = atomic_load_explicit(slot, memory_order_relaxed);

	if (!p) {
		p = real_sym(name, api);
		if (p)
			atomic_store_explicit(slot, p, memory_order_relaxed);
	}
	return p;
}

/* Remembers P as the real function in SLOT unless one is known already. */
static void set_real(void *_Atomic *slot, void *p)
{
	void *none = NULL;

	if (p)
		atomic_compare_exchange_strong(slot, &none, p);
}

/* ------------------------------------------------------------------ GLX */

void glXSwapBuffers(void *dpy, unsigned long drawable)
{
	glx_swap_fn real = (glx_swap_fn)get_real(&real_glx_swap, "glXSwapBuffers", API_GLX);

	if (!real)
		return;
	real(dpy, drawable);
	ss_shim_stamp(SS_SRC_GLX);
}

static ss_fn glx_gpa(void *_Atomic *slot, const char *which, const unsigned char *name)
{
	gpa_fn gpa = (gpa_fn)get_real(slot, which, API_GLX);
	ss_fn p = gpa ? gpa(name) : NULL;

	if (p && name && strcmp((const char *)name, "glXSwapBuffers") == 0) {
		set_real(&real_glx_swap, (void *)p);
		return (ss_fn)glXSwapBuffers;
	}
	return p;
}

ss_fn glXGetProcAddress(const unsigned char *name)
{
	return glx_gpa(&real_glx_gpa, "glXGetProcAddress", name);
}

ss_fn glXGetProcAddressARB(const unsigned char *name)
{
	return glx_gpa(&real_glx_gpa_arb, "glXGetProcAddressARB", name);
}

/* ------------------------------------------------------------------ EGL */

/* An extension function: exported by few libEGLs, always reachable through
 * the real eglGetProcAddress. */
static void *egl_ext(void *_Atomic *slot, const char *name)
{
	void *p = get_real(slot, name, API_EGL);
	egl_gpa_fn gpa;

	if (p)
		return p;
	gpa = (egl_gpa_fn)get_real(&real_egl_gpa, "eglGetProcAddress", API_EGL);
	p = gpa ? (void *)gpa(name) : NULL;
	set_real(slot, p);
	return p;
}

unsigned int eglSwapBuffers(void *dpy, void *surface)
{
	egl_swap_fn real = (egl_swap_fn)get_real(&real_egl_swap, "eglSwapBuffers", API_EGL);
	unsigned int ok;

	if (!real)
		return 0;
	ok = real(dpy, surface);
	if (ok)
		ss_shim_stamp(SS_SRC_EGL);
	return ok;
}

unsigned int eglSwapBuffersWithDamageKHR(void *dpy, void *surface, int32_t *rects, int32_t n)
{
	egl_damage_fn real = (egl_damage_fn)egl_ext(&real_egl_khr, "eglSwapBuffersWithDamageKHR");
	unsigned int ok;

	if (!real)
		return 0;
	ok = real(dpy, surface, rects, n);
	if (ok)
		ss_shim_stamp(SS_SRC_EGL);
	return ok;
}

unsigned int eglSwapBuffersWithDamageEXT(void *dpy, void *surface, int32_t *rects, int32_t n)
{
	egl_damage_fn real = (egl_damage_fn)egl_ext(&real_egl_ext, "eglSwapBuffersWithDamageEXT");
	unsigned int ok;

	if (!real)
		return 0;
	ok = real(dpy, surface, rects, n);
	if (ok)
		ss_shim_stamp(SS_SRC_EGL);
	return ok;
}

ss_fn eglGetProcAddress(const char *name)
{
	egl_gpa_fn gpa = (egl_gpa_fn)get_real(&real_egl_gpa, "eglGetProcAddress", API_EGL);
	ss_fn p = gpa ? gpa(name) : NULL;

	/* Only where the real one exists: a NULL says "not supported". */
	if (!p || !name)
		return p;
	if (strcmp(name, "eglSwapBuffers") == 0) {
		set_real(&real_egl_swap, (void *)p);
		return (ss_fn)eglSwapBuffers;
	}
	if (strcmp(name, "eglSwapBuffersWithDamageKHR") == 0) {
		set_real(&real_egl_khr, (void *)p);
		return (ss_fn)eglSwapBuffersWithDamageKHR;
	}
	if (strcmp(name, "eglSwapBuffersWithDamageEXT") == 0) {
		set_real(&real_egl_ext, (void *)p);
		return (ss_fn)eglSwapBuffersWithDamageEXT;
	}
	return p;
}

/* ------------------------------------------------------------------ load */

__attribute__((constructor)) static void glhook_init(void)
{
	ss_shim_attach();
}
