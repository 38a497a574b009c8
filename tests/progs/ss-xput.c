// SPDX-License-Identifier: MIT
/*
 * ss-xput.c: a software-rendered X11 program of our own for the frame
 * hook's tests (frames-software.sh): presents exactly N frames of 320x240
 * to a window with XShmPutImage (`shm N`) or XPutImage (`put N`), 100 a
 * second, and around them puts what is no frame: 32x32 images into a
 * pixmap (a cursor or an icon) before, 100x100 ones into the window (a
 * widget, under half the frame) after. `wine N` puts N frames through a
 * stand-in for Wine's X11 driver (winex11.so: no frame), then N with
 * XPutImage. `dlsym N` puts with an XPutImage taken by dlsym() on a handle
 * of libX11 (as SDL2 built to load X11 itself does). Prints "present TID". Exit 0; 77 when the display or MIT-SHM
 * is not there (skipped), 1 on another failure.
 *
 *   ss-xput shm|put|wine|dlsym N
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XShm.h>

enum { W = 320, H = 240 };

static XImage *image_new(Display *dpy, Visual *vis, int depth, int w, int h)
{
	char *data = calloc((size_t)w * h, 4);

	return data ? XCreateImage(dpy, vis, (unsigned)depth, ZPixmap, 0, data, (unsigned)w,
				   (unsigned)h, 32, 0)
		    : NULL;
}

int main(int argc, char **argv)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	XShmSegmentInfo shm = { 0 };
	XImage *frame, *small, *medium;
	Display *dpy;
	Visual *vis;
	Window win;
	Pixmap pix;
	void (*wine_put)(Display *, Drawable, GC, XImage *, unsigned, unsigned) = NULL;
	int (*put)(Display *, Drawable, GC, XImage *, int, int, int, int, unsigned, unsigned) =
		XPutImage;
	bool use_shm;
	int n, depth, scr;
	GC gc;

	if (argc != 3 || (strcmp(argv[1], "shm") && strcmp(argv[1], "put") &&
			  strcmp(argv[1], "wine") && strcmp(argv[1], "dlsym")) ||
	    (n = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: ss-xput shm|put|wine|dlsym N\n");
		return 2;
	}
	use_shm = !strcmp(argv[1], "shm");
	if (!strcmp(argv[1], "dlsym")) {
		void *h = dlopen("libX11.so.6", RTLD_NOW | RTLD_LOCAL);

		put = h ? (int (*)(Display *, Drawable, GC, XImage *, int, int, int, int, unsigned,
				   unsigned))dlsym(h, "XPutImage")
			: NULL;
		if (!put) {
			fprintf(stderr, "ss-xput: %s\n", dlerror());
			return 1;
		}
	}
	if (!strcmp(argv[1], "wine")) {
		void *h = dlopen(WINEX11_SO, RTLD_NOW | RTLD_LOCAL);

		wine_put = h ? (void (*)(Display *, Drawable, GC, XImage *, unsigned,
					 unsigned))dlsym(h, "ss_winex11_put")
			     : NULL;
		if (!wine_put) {
			fprintf(stderr, "ss-xput: %s\n", dlerror());
			return 1;
		}
	}
	if (!(dpy = XOpenDisplay(NULL))) {
		fprintf(stderr, "ss-xput: no display\n");
		return 77;
	}
	scr = DefaultScreen(dpy);
	vis = DefaultVisual(dpy, scr);
	depth = DefaultDepth(dpy, scr);
	win = XCreateSimpleWindow(dpy, RootWindow(dpy, scr), 0, 0, W, H, 0, 0, 0);
	XMapWindow(dpy, win);
	gc = XCreateGC(dpy, win, 0, NULL);
	pix = XCreatePixmap(dpy, win, 32, 32, (unsigned)depth);
	small = image_new(dpy, vis, depth, 32, 32);
	medium = image_new(dpy, vis, depth, 100, 100);
	if (use_shm) {
		if (!XShmQueryExtension(dpy)) {
			fprintf(stderr, "ss-xput: no MIT-SHM\n");
			return 77;
		}
		frame = XShmCreateImage(dpy, vis, (unsigned)depth, ZPixmap, NULL, &shm, W, H);
		if (!frame)
			return 1;
		shm.shmid = shmget(IPC_PRIVATE, (size_t)frame->bytes_per_line * H, IPC_CREAT | 0600);
		if (shm.shmid < 0)
			return 1;
		shm.shmaddr = frame->data = shmat(shm.shmid, NULL, 0);
		shmctl(shm.shmid, IPC_RMID, NULL);
		shm.readOnly = False;
		if (shm.shmaddr == (void *)-1 || !XShmAttach(dpy, &shm))
			return 1;
	} else {
		frame = image_new(dpy, vis, depth, W, H);
	}
	if (!frame || !small || !medium)
		return 1;
	XSync(dpy, False);
	printf("present %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);

	for (int i = 0; i < 3; i++)	/* an icon: no frame */
		XPutImage(dpy, pix, gc, small, 0, 0, 0, 0, 32, 32);
	for (int i = 0; wine_put && i < n; i++) {	/* Wine's flushes: no frame */
		wine_put(dpy, win, gc, frame, W, H);
		XSync(dpy, False);
		nanosleep(&tick, NULL);
	}
	for (int i = 0; i < n; i++) {
		memset(frame->data, i & 0xff, (size_t)frame->bytes_per_line * H);
		if (use_shm)
			XShmPutImage(dpy, win, gc, frame, 0, 0, 0, 0, W, H, False);
		else
			put(dpy, win, gc, frame, 0, 0, 0, 0, W, H);
		XSync(dpy, False);
		nanosleep(&tick, NULL);
	}
	for (int i = 0; i < 3; i++)	/* a widget, under half the frame: no frame */
		XPutImage(dpy, win, gc, medium, 0, 0, 0, 0, 100, 100);
	XSync(dpy, False);
	if (use_shm)
		XShmDetach(dpy, &shm);
	XCloseDisplay(dpy);
	return 0;
}
