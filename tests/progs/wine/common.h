// SPDX-License-Identifier: MIT
/*
 * common.h: what the Windows test programs share (tests/e2e/wine.sh): the
 * frame count from the command line, one small top-level window, the
 * message pump, and how a program says it cannot run here. Each program
 * includes it once; the functions are static.
 *
 * Every program presents exactly N frames (argv[1], default 120), one clear
 * and one present a frame, no vertical sync, prints "presented N" and exits
 * 0. A program that cannot run on this machine (no such API in this Wine, no
 * device) prints "skip: why" and exits 77; any other failure prints
 * "error: what" and exits 1.
 */
#ifndef SS_WINE_COMMON_H
#define SS_WINE_COMMON_H

#include <windows.h>
#include <stdio.h>
#include <stdlib.h>

#define WIN_W 160
#define WIN_H 120

/* skip(why): this machine cannot run the program: exit 77 */
static inline void skip(const char *why)
{
	printf("skip: %s\n", why);
	fflush(stdout);
	ExitProcess(77);
}

/* die(what, hr): a call failed: print it with its HRESULT or error, exit 1 */
static inline void die(const char *what, long hr)
{
	printf("error: %s (0x%08lx)\n", what, (unsigned long)hr);
	fflush(stdout);
	ExitProcess(1);
}

/* frames_arg: N from argv[1] (1..1000000), 120 without it; 2 on a bad one */
static inline int frames_arg(int argc, char **argv)
{
	char *end;
	long n;

	if (argc < 2)
		return 120;
	n = strtol(argv[1], &end, 10);
	if (*end || n < 1 || n > 1000000) {
		printf("usage: %s [N]\n", argv[0]);
		ExitProcess(2);
	}
	return (int)n;
}

/* pump: handles the window's pending messages; never blocks */
static inline void pump(void)
{
	MSG msg;

	while (PeekMessageA(&msg, NULL, 0, 0, PM_REMOVE)) {
		TranslateMessage(&msg);
		DispatchMessageA(&msg);
	}
}

/* make_window: a visible WIN_W x WIN_H top-level window of class NAME */
static inline HWND make_window(const char *name, DWORD style)
{
	WNDCLASSA wc = {0};
	RECT r = {0, 0, WIN_W, WIN_H};
	HWND hwnd;

	wc.style = CS_OWNDC;
	wc.lpfnWndProc = DefWindowProcA;
	wc.hInstance = GetModuleHandleA(NULL);
	wc.lpszClassName = name;
	if (!RegisterClassA(&wc))
		die("RegisterClass", (long)GetLastError());
	AdjustWindowRect(&r, style, FALSE);
	hwnd = CreateWindowA(name, name, style | WS_VISIBLE, 0, 0, r.right - r.left,
			     r.bottom - r.top, NULL, NULL, wc.hInstance, NULL);
	if (!hwnd)
		die("CreateWindow", (long)GetLastError());
	pump();
	return hwnd;
}

/* done: the program presented N frames */
static inline int done(int n)
{
	printf("presented %d\n", n);
	fflush(stdout);
	return 0;
}

#endif
