// SPDX-License-Identifier: MIT
/*
 * ss-winex11.c: winex11.so, a stand-in for Wine's X11 driver (only its
 * file name matters): puts an image with XPutImage, as Wine does when it
 * flushes a window's GDI surface. ss-xput's `wine` mode opens it; no put
 * of a library of that name is a frame (docs/HOOKS.md, software presents).
 */
#include <X11/Xlib.h>

__attribute__((visibility("default"))) void ss_winex11_put(Display *dpy, Drawable d, GC gc,
							     XImage *image, unsigned w,
							     unsigned h);

void ss_winex11_put(Display *dpy, Drawable d, GC gc, XImage *image, unsigned w, unsigned h)
{
	XPutImage(dpy, d, gc, image, 0, 0, 0, 0, w, h);
}
