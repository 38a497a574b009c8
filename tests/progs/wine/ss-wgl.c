// SPDX-License-Identifier: MIT
/*
 * ss-wgl: presents exactly N frames with OpenGL through WGL: a pixel format
 * with double buffering, a context, wglSwapIntervalEXT(0) where the driver
 * has it, then glClear and SwapBuffers(hdc) a frame. Under Wine the present
 * is winex11's glXSwapBuffers on the host's libGL (tests/e2e/wine.sh).
 *
 *   ss-wgl.exe [N]
 */
#include "common.h"
#include <GL/gl.h>

typedef BOOL(WINAPI *swap_interval_fn)(int);

int main(int argc, char **argv)
{
	int n = frames_arg(argc, argv), i;
	PIXELFORMATDESCRIPTOR pfd = {0};
	swap_interval_fn swap_interval;
	HWND hwnd;
	HGLRC ctx;
	HDC dc;
	int fmt;

	hwnd = make_window("ss-wgl", WS_OVERLAPPEDWINDOW);
	dc = GetDC(hwnd);
	pfd.nSize = sizeof(pfd);
	pfd.nVersion = 1;
	pfd.dwFlags = PFD_DRAW_TO_WINDOW | PFD_SUPPORT_OPENGL | PFD_DOUBLEBUFFER;
	pfd.iPixelType = PFD_TYPE_RGBA;
	pfd.cColorBits = 24;
	fmt = ChoosePixelFormat(dc, &pfd);
	if (!fmt)
		skip("no double-buffered OpenGL pixel format");
	if (!SetPixelFormat(dc, fmt, &pfd))
		die("SetPixelFormat", (long)GetLastError());
	ctx = wglCreateContext(dc);
	if (!ctx || !wglMakeCurrent(dc, ctx))
		skip("no OpenGL context (wglCreateContext)");
	swap_interval = (swap_interval_fn)(void (*)(void))wglGetProcAddress("wglSwapIntervalEXT");
	if (swap_interval)
		swap_interval(0);
	for (i = 0; i < n; i++) {
		glClearColor((float)(i % 2), 0.2f, 0.4f, 1.0f);
		glClear(GL_COLOR_BUFFER_BIT);
		if (!SwapBuffers(dc))
			die("SwapBuffers", (long)GetLastError());
		pump();
	}
	wglMakeCurrent(NULL, NULL);
	wglDeleteContext(ctx);
	ReleaseDC(hwnd, dc);
	DestroyWindow(hwnd);
	return done(n);
}
