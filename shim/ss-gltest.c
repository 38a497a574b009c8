// SPDX-License-Identifier: MIT
/*
 * ss-gltest: a test program that presents in two ways at once, for the
 * shim's live tests. The main thread opens a GLX window and presents FRAMES
 * times (default 100): half by calling glXSwapBuffers, half through the
 * pointer glXGetProcAddressARB returns (both must reach the shim). A second
 * thread marks MARKS frames (default 50) with the marker API
 * (include/stallscope.h). It prints "main TID" and "marker TID" so the test
 * can tell the two sources apart by thread as well as by source.
 *
 * Assumes an X server (Xvfb in the tests) with GLX; exits 77 without one.
 */
#include <GL/gl.h>
#include <GL/glx.h>
#include <X11/Xlib.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "stallscope.h"

static int marks = 50;

static void *marker(void *arg)
{
	pthread_setname_np(pthread_self(), "ss-marker");
	printf("marker %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	for (int i = 0; i < marks; i++) {
		stallscope_frame();
		usleep(1000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int attrs[] = { GLX_RGBA, GLX_DOUBLEBUFFER, GLX_RED_SIZE, 1, None };
	int frames = argc > 1 ? atoi(argv[1]) : 100;
	void (*swap)(Display *, GLXDrawable);
	XSetWindowAttributes swa = { 0 };
	Display *dpy;
	XVisualInfo *vi;
	GLXContext ctx;
	pthread_t th;
	Window win;

	if (argc > 2)
		marks = atoi(argv[2]);
	dpy = XOpenDisplay(NULL);
	if (!dpy) {
		fprintf(stderr, "ss-gltest: no X display\n");
		return 77;
	}
	vi = glXChooseVisual(dpy, DefaultScreen(dpy), attrs);
	if (!vi) {
		fprintf(stderr, "ss-gltest: no GLX visual\n");
		return 77;
	}
	swa.colormap = XCreateColormap(dpy, RootWindow(dpy, vi->screen), vi->visual, AllocNone);
	win = XCreateWindow(dpy, RootWindow(dpy, vi->screen), 0, 0, 64, 64, 0, vi->depth,
			    InputOutput, vi->visual, CWColormap, &swa);
	XMapWindow(dpy, win);
	ctx = glXCreateContext(dpy, vi, NULL, True);
	glXMakeCurrent(dpy, win, ctx);
	swap = (void (*)(Display *, GLXDrawable))glXGetProcAddressARB(
		(const GLubyte *)"glXSwapBuffers");
	if (!swap) {
		fprintf(stderr, "ss-gltest: glXGetProcAddressARB has no glXSwapBuffers\n");
		return 1;
	}
	printf("main %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	pthread_create(&th, NULL, marker, NULL);
	for (int i = 0; i < frames; i++) {
		glClearColor((float)(i & 1), 0, 0, 1);
		glClear(GL_COLOR_BUFFER_BIT);
		if (i & 1)
			swap(dpy, win);
		else
			glXSwapBuffers(dpy, win);
	}
	pthread_join(th, NULL);
	glXMakeCurrent(dpy, None, NULL);
	glXDestroyContext(dpy, ctx);
	XDestroyWindow(dpy, win);
	XCloseDisplay(dpy);
	return 0;
}
