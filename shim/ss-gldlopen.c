// SPDX-License-Identifier: MIT
/*
 * ss-gldlopen: a GLX program that does not link libGL but opens it with
 * dlopen(RTLD_LOCAL), as engines that pick their GL library at run time do,
 * for the shim's live tests. `ss-gldlopen global N` takes glXSwapBuffers
 * from the global scope (dlsym(RTLD_DEFAULT)): with the shim preloaded that
 * is the shim's wrapper, whose RTLD_NEXT lookup finds nothing (libGL is not
 * global) so it must open libGL by soname. `ss-gldlopen handle N` takes it
 * from its own handle, the documented limit: the shim does not see those
 * presents. Prints "main TID". Exits 77 without an X display or libGL.
 */
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define GLX_RGBA 4
#define GLX_DOUBLEBUFFER 5
#define GL_COLOR_BUFFER_BIT 0x4000

int main(int argc, char **argv)
{
	int attrs[] = { GLX_RGBA, GLX_DOUBLEBUFFER, 0 };
	int frames = argc > 2 ? atoi(argv[2]) : 50;
	int global = argc > 1 && strcmp(argv[1], "global") == 0;
	XVisualInfo *(*choose)(Display *, int, int *);
	void *(*create)(Display *, XVisualInfo *, void *, int);
	int (*make_current)(Display *, unsigned long, void *);
	void (*swap)(Display *, unsigned long);
	void (*clear_color)(float, float, float, float);
	void (*clear)(unsigned int);
	XSetWindowAttributes swa = { 0 };
	XVisualInfo *vi;
	Display *dpy;
	Window win;
	void *gl, *ctx;

	gl = dlopen("libGL.so.1", RTLD_NOW | RTLD_LOCAL);
	dpy = XOpenDisplay(NULL);
	if (!gl || !dpy) {
		fprintf(stderr, "ss-gldlopen: no libGL.so.1 or no X display\n");
		return 77;
	}
	choose = (XVisualInfo * (*)(Display *, int, int *)) dlsym(gl, "glXChooseVisual");
	create = (void *(*)(Display *, XVisualInfo *, void *, int))dlsym(gl, "glXCreateContext");
	make_current = (int (*)(Display *, unsigned long, void *))dlsym(gl, "glXMakeCurrent");
	clear_color = (void (*)(float, float, float, float))dlsym(gl, "glClearColor");
	clear = (void (*)(unsigned int))dlsym(gl, "glClear");
	swap = (void (*)(Display *, unsigned long))dlsym(global ? RTLD_DEFAULT : gl,
							 "glXSwapBuffers");
	if (!swap && global) /* not preloaded: nothing global defines it */
		swap = (void (*)(Display *, unsigned long))dlsym(gl, "glXSwapBuffers");
	if (!choose || !create || !make_current || !clear_color || !clear || !swap)
		return 77;
	vi = choose(dpy, DefaultScreen(dpy), attrs);
	if (!vi)
		return 77;
	swa.colormap = XCreateColormap(dpy, RootWindow(dpy, vi->screen), vi->visual, AllocNone);
	win = XCreateWindow(dpy, RootWindow(dpy, vi->screen), 0, 0, 64, 64, 0, vi->depth,
			    InputOutput, vi->visual, CWColormap, &swa);
	XMapWindow(dpy, win);
	ctx = create(dpy, vi, NULL, 1);
	make_current(dpy, win, ctx);
	printf("main %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	for (int i = 0; i < frames; i++) {
		clear_color((float)(i & 1), 0, 0, 1);
		clear(GL_COLOR_BUFFER_BIT);
		swap(dpy, win);
	}
	make_current(dpy, 0, NULL);
	XCloseDisplay(dpy);
	return 0;
}
