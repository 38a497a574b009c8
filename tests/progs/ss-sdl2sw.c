// SPDX-License-Identifier: MIT
/*
 * ss-sdl2sw.c: SDL2's software renderer presenting exactly N frames (for
 * frames-software.sh): a window without OpenGL, SDL_RENDERER_SOFTWARE,
 * SDL_RenderPresent N times, 100 a second. On X11 SDL puts the window's
 * surface with XShmPutImage (XPutImage without MIT-SHM). Prints
 * "present TID"; exit 77 when SDL has no video here.
 *
 *   ss-sdl2sw N
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <SDL.h>

int main(int argc, char **argv)
{
	SDL_Renderer *ren;
	SDL_Window *win;
	int n = argc == 2 ? atoi(argv[1]) : 0;

	if (n <= 0) {
		fprintf(stderr, "usage: ss-sdl2sw N\n");
		return 2;
	}
	if (SDL_Init(SDL_INIT_VIDEO) < 0) {
		fprintf(stderr, "ss-sdl2sw: %s\n", SDL_GetError());
		return 77;
	}
	win = SDL_CreateWindow("ss-sdl2sw", 0, 0, 320, 240, 0);
	ren = win ? SDL_CreateRenderer(win, -1, SDL_RENDERER_SOFTWARE) : NULL;
	if (!ren) {
		fprintf(stderr, "ss-sdl2sw: %s\n", SDL_GetError());
		return 1;
	}
	printf("present %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		SDL_SetRenderDrawColor(ren, (Uint8)i, 64, 128, 255);
		SDL_RenderClear(ren);
		SDL_RenderPresent(ren);
		SDL_Delay(10);
	}
	SDL_DestroyRenderer(ren);
	SDL_DestroyWindow(win);
	SDL_Quit();
	return 0;
}
