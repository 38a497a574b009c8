// SPDX-License-Identifier: MIT
/*
 * ss-sdl2: presents exactly N frames with SDL_GL_SwapWindow, as SDL2
 * games do, for the frame hook's tests (tests/e2e/frames-paths.sh). SDL2
 * opens libGL itself (dlopen, RTLD_LOCAL) and takes glXGetProcAddressARB
 * from that handle with dlsym, then the swap from it: a path the preload
 * hook sees only through its dlsym (docs/HOOKS.md).
 *
 *   ss-sdl2 [N] [--thread] [--es]
 *
 * --thread presents from a second thread; --es asks SDL for an OpenGL ES 2
 * context through EGL (SDL_VIDEO_X11_FORCE_EGL; without it SDL takes GLES
 * from GLX's ES profile). Prints "present TID" and "main TID". Sleeps 2 ms after each present.
 * Exits 77 without an X display or GL.
 */
#include <SDL.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define GL_COLOR_BUFFER_BIT 0x4000
/* A pause after each present: a presenting thread then lives for a few of
 * the recorder's samples (every 10 ms), which is when it can be followed. */
#define FRAME_GAP_US 2000

static SDL_Window *win;
static SDL_GLContext ctx;
static int frames = 60;

static void say(const char *what)
{
	printf("%s %ld\n", what, (long)syscall(SYS_gettid));
	fflush(stdout);
}

static int present(void *arg)
{
	void (*clear_color)(float, float, float, float) =
		(void (*)(float, float, float, float))SDL_GL_GetProcAddress("glClearColor");
	void (*clear)(unsigned int) = (void (*)(unsigned int))SDL_GL_GetProcAddress("glClear");

	SDL_GL_MakeCurrent(win, ctx);
	SDL_GL_SetSwapInterval(0);
	say("present");
	for (int i = 0; i < frames; i++) {
		if (clear_color && clear) {
			clear_color((float)(i & 1), 0, 0, 1);
			clear(GL_COLOR_BUFFER_BIT);
		}
		SDL_GL_SwapWindow(win);
		usleep(FRAME_GAP_US);
	}
	SDL_GL_MakeCurrent(win, NULL);
	return arg != NULL;
}

int main(int argc, char **argv)
{
	int threaded = 0, es = 0;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--thread"))
			threaded = 1;
		else if (!strcmp(argv[i], "--es"))
			es = 1;
		else
			frames = atoi(argv[i]);
	if (es)
		SDL_SetHint(SDL_HINT_VIDEO_X11_FORCE_EGL, "1");
	if (SDL_Init(SDL_INIT_VIDEO) != 0) {
		fprintf(stderr, "ss-sdl2: SDL_Init: %s\n", SDL_GetError());
		return 77;
	}
	if (es) {
		SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_ES);
		SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 2);
		SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 0);
	}
	win = SDL_CreateWindow("ss-sdl2", 0, 0, 64, 64, SDL_WINDOW_OPENGL);
	ctx = win ? SDL_GL_CreateContext(win) : NULL;
	if (!ctx) {
		fprintf(stderr, "ss-sdl2: no GL window or context: %s\n", SDL_GetError());
		return 77;
	}
	SDL_GL_MakeCurrent(win, NULL);
	say("main");
	if (threaded) {
		SDL_Thread *th = SDL_CreateThread(present, "ss-present", NULL);

		SDL_WaitThread(th, NULL);
	} else {
		present(NULL);
	}
	SDL_GL_DeleteContext(ctx);
	SDL_DestroyWindow(win);
	SDL_Quit();
	return 0;
}
