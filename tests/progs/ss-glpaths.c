// SPDX-License-Identifier: MIT
/*
 * ss-glpaths: presents exactly N frames through one of the ways a program
 * reaches GLX or EGL without linking either, for the frame hook's tests
 * (tests/e2e/frames-paths.sh, docs/HOOKS.md). It links neither libGL nor
 * libEGL: it opens them with dlopen(RTLD_LOCAL), as SDL, GLFW, glmark2 and
 * engines that pick their GL library at run time do.
 *
 *   ss-glpaths MODE [N] [--thread]
 *
 *   glx-global   glXSwapBuffers from dlsym(RTLD_DEFAULT): the preloaded
 *                wrapper, whose RTLD_NEXT finds nothing (libGL is not global)
 *   glx-dlsym    glXSwapBuffers from dlsym() on its libGL.so.1 handle
 *   glx-libglx   the same on a libGLX.so.0 handle (GLVND's GLX library)
 *   glx-gpa      glXGetProcAddressARB from dlsym() on the handle, the swap
 *                from it (SDL2's way)
 *   glx-oml      glXSwapBuffersMscOML through glXGetProcAddressARB (77 where
 *                the server has no GLX_OML_sync_control)
 *   glx-twice    libGL opened by two threads at once, each taking the swap
 *                from its own handle; the main thread presents a quarter of
 *                the frames, then the second thread the rest
 *   egl-dlsym    eglSwapBuffers from dlsym() on its libEGL.so.1 handle
 *   egl-gpa      eglGetProcAddress from dlsym(), eglSwapBuffers from it
 *   egl-damage   eglSwapBuffersWithDamageKHR (or EXT) through
 *                eglGetProcAddress (77 without either extension)
 *
 * With --thread the presents come from a second thread, not the main one.
 * Prints "present TID" for every thread that presents, before its first
 * present, and "main TID". Exits 77 without an X display or the library.
 */
#include <EGL/egl.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define GLX_RGBA 4
#define GLX_DOUBLEBUFFER 5
#define GL_COLOR_BUFFER_BIT 0x4000
/* A pause after each present: a presenting thread then lives for a few of
 * the recorder's samples (every 10 ms), which is when it can be followed. */
#define FRAME_GAP_US 2000

typedef void (*fn)(void);

static const char *mode;
static int frames = 60;
static Display *dpy;
static Window win;

/* the GL calls every mode makes, and the present the mode chose */
static void (*clear_color)(float, float, float, float);
static void (*clear)(unsigned int);
static void (*glx_swap)(Display *, unsigned long);
static void (*glx_swap2)(Display *, unsigned long);	/* glx-twice: the second thread's */
static int64_t (*glx_oml)(Display *, unsigned long, int64_t, int64_t, int64_t);
static EGLBoolean (*egl_swap)(EGLDisplay, EGLSurface);
static EGLBoolean (*egl_damage)(EGLDisplay, EGLSurface, EGLint *, EGLint);
static EGLDisplay edpy;
static EGLSurface esurf;

static void *need_sym(void *h, const char *name)
{
	void *p = dlsym(h, name);

	if (!p) {
		fprintf(stderr, "ss-glpaths: no %s: %s\n", name, dlerror());
		exit(77);
	}
	return p;
}

static void *need_lib(const char *soname)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "ss-glpaths: cannot open %s: %s\n", soname, dlerror());
		exit(77);
	}
	return h;
}

static void say(const char *what)
{
	printf("%s %ld\n", what, (long)syscall(SYS_gettid));
	fflush(stdout);
}

static Window make_window(XVisualInfo *vi)
{
	XSetWindowAttributes swa = { 0 };
	Window w;

	swa.colormap = XCreateColormap(dpy, RootWindow(dpy, vi->screen), vi->visual, AllocNone);
	w = XCreateWindow(dpy, RootWindow(dpy, vi->screen), 0, 0, 64, 64, 0, vi->depth,
			  InputOutput, vi->visual, CWColormap, &swa);
	XMapWindow(dpy, w);
	return w;
}

/* ------------------------------------------------------------ GLX */

static void *(*make_current)(Display *, unsigned long, void *);
static void *ctx;

static void *open_twice(void *arg)
{
	void *h = need_lib("libGL.so.1");

	glx_swap2 = (void (*)(Display *, unsigned long))need_sym(h, "glXSwapBuffers");
	return arg;
}

static void glx_setup(void)
{
	int attrs[] = { GLX_RGBA, GLX_DOUBLEBUFFER, 0 };
	XVisualInfo *(*choose)(Display *, int, int *);
	void *(*create)(Display *, XVisualInfo *, void *, int);
	fn (*gpa)(const unsigned char *);
	const char *(*query)(Display *, int);
	XVisualInfo *vi;
	pthread_t th;
	void *gl;

	if (!strcmp(mode, "glx-twice"))
		pthread_create(&th, NULL, open_twice, NULL);
	gl = need_lib("libGL.so.1");
	choose = (XVisualInfo * (*)(Display *, int, int *)) need_sym(gl, "glXChooseVisual");
	create = (void *(*)(Display *, XVisualInfo *, void *, int))need_sym(gl, "glXCreateContext");
	make_current = (void *(*)(Display *, unsigned long, void *))need_sym(gl, "glXMakeCurrent");
	clear_color = (void (*)(float, float, float, float))need_sym(gl, "glClearColor");
	clear = (void (*)(unsigned int))need_sym(gl, "glClear");
	if (!strcmp(mode, "glx-global")) {
		glx_swap = (void (*)(Display *, unsigned long))dlsym(RTLD_DEFAULT, "glXSwapBuffers");
		if (!glx_swap) /* not preloaded: nothing global defines it */
			glx_swap = (void (*)(Display *, unsigned long))need_sym(gl, "glXSwapBuffers");
	} else if (!strcmp(mode, "glx-dlsym") || !strcmp(mode, "glx-twice")) {
		glx_swap = (void (*)(Display *, unsigned long))need_sym(gl, "glXSwapBuffers");
	} else if (!strcmp(mode, "glx-libglx")) {
		glx_swap = (void (*)(Display *, unsigned long))need_sym(need_lib("libGLX.so.0"),
									"glXSwapBuffers");
	} else if (!strcmp(mode, "glx-gpa") || !strcmp(mode, "glx-oml")) {
		gpa = (fn(*)(const unsigned char *))need_sym(gl, "glXGetProcAddressARB");
		if (!strcmp(mode, "glx-gpa")) {
			glx_swap = (void (*)(Display *, unsigned long))gpa(
				(const unsigned char *)"glXSwapBuffers");
		} else {
			query = (const char *(*)(Display *, int))need_sym(gl, "glXQueryExtensionsString");
			if (!strstr(query(dpy, DefaultScreen(dpy)), "GLX_OML_sync_control")) {
				fprintf(stderr, "ss-glpaths: no GLX_OML_sync_control here\n");
				exit(77);
			}
			glx_oml = (int64_t(*)(Display *, unsigned long, int64_t, int64_t, int64_t))gpa(
				(const unsigned char *)"glXSwapBuffersMscOML");
		}
		if (!glx_swap && !glx_oml) {
			fprintf(stderr, "ss-glpaths: glXGetProcAddressARB gave no present\n");
			exit(1);
		}
	} else {
		fprintf(stderr, "ss-glpaths: unknown mode '%s'\n", mode);
		exit(2);
	}
	if (!strcmp(mode, "glx-twice"))
		pthread_join(th, NULL);
	vi = choose(dpy, DefaultScreen(dpy), attrs);
	if (!vi) {
		fprintf(stderr, "ss-glpaths: no GLX visual\n");
		exit(77);
	}
	win = make_window(vi);
	ctx = create(dpy, vi, NULL, 1);
}

static void glx_present(int i, void (*swap)(Display *, unsigned long))
{
	clear_color((float)(i & 1), 0, 0, 1);
	clear(GL_COLOR_BUFFER_BIT);
	if (glx_oml)
		glx_oml(dpy, win, 0, 0, 0);
	else
		swap(dpy, win);
}

/* ------------------------------------------------------------ EGL */

static EGLBoolean (*egl_make_current)(EGLDisplay, EGLSurface, EGLSurface, EGLContext);
static EGLContext ectx;

static void egl_setup(void)
{
	static const EGLint cfg_attrs[] = { EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RENDERABLE_TYPE,
					    EGL_OPENGL_ES2_BIT, EGL_RED_SIZE, 1, EGL_NONE };
	static const EGLint ctx_attrs[] = { EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE };
	EGLDisplay (*get_display)(EGLNativeDisplayType);
	EGLBoolean (*init)(EGLDisplay, EGLint *, EGLint *);
	EGLBoolean (*choose)(EGLDisplay, const EGLint *, EGLConfig *, EGLint, EGLint *);
	EGLBoolean (*get_attrib)(EGLDisplay, EGLConfig, EGLint, EGLint *);
	EGLBoolean (*bind_api)(EGLenum);
	EGLContext (*create_ctx)(EGLDisplay, EGLConfig, EGLContext, const EGLint *);
	EGLSurface (*create_surf)(EGLDisplay, EGLConfig, EGLNativeWindowType, const EGLint *);
	const char *(*query)(EGLDisplay, EGLint);
	fn (*gpa)(const char *) = NULL;
	XVisualInfo tmpl = { 0 }, *vi;
	EGLConfig cfg;
	EGLint n, vid;
	void *egl;

	egl = need_lib("libEGL.so.1");
	get_display = (EGLDisplay(*)(EGLNativeDisplayType))need_sym(egl, "eglGetDisplay");
	init = (EGLBoolean(*)(EGLDisplay, EGLint *, EGLint *))need_sym(egl, "eglInitialize");
	choose = (EGLBoolean(*)(EGLDisplay, const EGLint *, EGLConfig *, EGLint, EGLint *))need_sym(
		egl, "eglChooseConfig");
	get_attrib = (EGLBoolean(*)(EGLDisplay, EGLConfig, EGLint, EGLint *))need_sym(
		egl, "eglGetConfigAttrib");
	bind_api = (EGLBoolean(*)(EGLenum))need_sym(egl, "eglBindAPI");
	create_ctx = (EGLContext(*)(EGLDisplay, EGLConfig, EGLContext, const EGLint *))need_sym(
		egl, "eglCreateContext");
	create_surf = (EGLSurface(*)(EGLDisplay, EGLConfig, EGLNativeWindowType,
				     const EGLint *))need_sym(egl, "eglCreateWindowSurface");
	egl_make_current = (EGLBoolean(*)(EGLDisplay, EGLSurface, EGLSurface, EGLContext))need_sym(
		egl, "eglMakeCurrent");
	query = (const char *(*)(EGLDisplay, EGLint))need_sym(egl, "eglQueryString");
	edpy = get_display((EGLNativeDisplayType)dpy);
	if (edpy == EGL_NO_DISPLAY || !init(edpy, NULL, NULL) ||
	    !choose(edpy, cfg_attrs, &cfg, 1, &n) || n < 1) {
		fprintf(stderr, "ss-glpaths: no EGL display or config on X\n");
		exit(77);
	}
	get_attrib(edpy, cfg, EGL_NATIVE_VISUAL_ID, &vid);
	tmpl.visualid = (VisualID)vid;
	vi = XGetVisualInfo(dpy, VisualIDMask, &tmpl, &n);
	if (!vi) {
		fprintf(stderr, "ss-glpaths: no X visual for the EGL config\n");
		exit(77);
	}
	win = make_window(vi);
	bind_api(EGL_OPENGL_ES_API);
	ectx = create_ctx(edpy, cfg, EGL_NO_CONTEXT, ctx_attrs);
	esurf = create_surf(edpy, cfg, (EGLNativeWindowType)win, NULL);
	if (ectx == EGL_NO_CONTEXT || esurf == EGL_NO_SURFACE) {
		fprintf(stderr, "ss-glpaths: cannot create an EGL context or surface\n");
		exit(77);
	}
	if (strcmp(mode, "egl-dlsym"))
		gpa = (fn(*)(const char *))need_sym(egl, "eglGetProcAddress");
	if (!strcmp(mode, "egl-dlsym")) {
		egl_swap = (EGLBoolean(*)(EGLDisplay, EGLSurface))need_sym(egl, "eglSwapBuffers");
	} else if (!strcmp(mode, "egl-gpa")) {
		egl_swap = (EGLBoolean(*)(EGLDisplay, EGLSurface))gpa("eglSwapBuffers");
	} else if (!strcmp(mode, "egl-damage")) {
		const char *ext = query(edpy, EGL_EXTENSIONS);
		const char *name = strstr(ext, "EGL_KHR_swap_buffers_with_damage")
					   ? "eglSwapBuffersWithDamageKHR"
				   : strstr(ext, "EGL_EXT_swap_buffers_with_damage")
					   ? "eglSwapBuffersWithDamageEXT"
					   : NULL;

		if (!name) {
			fprintf(stderr, "ss-glpaths: no EGL_*_swap_buffers_with_damage here\n");
			exit(77);
		}
		egl_damage = (EGLBoolean(*)(EGLDisplay, EGLSurface, EGLint *, EGLint))gpa(name);
	} else {
		fprintf(stderr, "ss-glpaths: unknown mode '%s'\n", mode);
		exit(2);
	}
	if (!egl_swap && !egl_damage) {
		fprintf(stderr, "ss-glpaths: eglGetProcAddress gave no present\n");
		exit(1);
	}
	clear_color = (void (*)(float, float, float, float))(gpa ? gpa("glClearColor") : NULL);
	clear = (void (*)(unsigned int))(gpa ? gpa("glClear") : NULL);
}

static void egl_present(int i)
{
	EGLint rect[4] = { 0, 0, 64, 64 };

	if (clear_color && clear) {
		clear_color((float)(i & 1), 0, 0, 1);
		clear(GL_COLOR_BUFFER_BIT);
	}
	if (egl_damage)
		egl_damage(edpy, esurf, rect, 1);
	else
		egl_swap(edpy, esurf);
}

/* ------------------------------------------------------------ presenting */

/* Presents frames FROM .. TO-1 on the calling thread. */
static void present(int from, int to, void (*swap)(Display *, unsigned long))
{
	int is_egl = !strncmp(mode, "egl", 3);

	if (is_egl)
		egl_make_current(edpy, esurf, esurf, ectx);
	else
		make_current(dpy, win, ctx);
	say("present");
	for (int i = from; i < to; i++) {
		if (is_egl)
			egl_present(i);
		else
			glx_present(i, swap);
		usleep(FRAME_GAP_US);
	}
	if (is_egl)
		egl_make_current(edpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	else
		make_current(dpy, 0, NULL);
}

static void *present_all(void *arg)
{
	present(0, frames, glx_swap);
	return arg;
}

static void *present_rest(void *arg)
{
	present(frames / 4, frames, glx_swap2);
	return arg;
}

int main(int argc, char **argv)
{
	int threaded = 0;
	pthread_t th;

	if (argc < 2) {
		fprintf(stderr, "usage: ss-glpaths MODE [N] [--thread]\n");
		return 2;
	}
	mode = argv[1];
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--thread"))
			threaded = 1;
		else
			frames = atoi(argv[i]);
	XInitThreads();
	dpy = XOpenDisplay(NULL);
	if (!dpy) {
		fprintf(stderr, "ss-glpaths: no X display\n");
		return 77;
	}
	if (!strncmp(mode, "egl", 3))
		egl_setup();
	else
		glx_setup();
	say("main");
	if (!strcmp(mode, "glx-twice")) {
		/* a quarter here, the rest from another thread through the
		 * swap that thread took from its own handle */
		present(0, frames / 4, glx_swap);
		pthread_create(&th, NULL, present_rest, NULL);
		pthread_join(th, NULL);
	} else if (threaded) {
		pthread_create(&th, NULL, present_all, NULL);
		pthread_join(th, NULL);
	} else {
		present_all(NULL);
	}
	XCloseDisplay(dpy);
	return 0;
}
