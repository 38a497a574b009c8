// SPDX-License-Identifier: MIT
/*
 * ss-glfw: presents exactly N frames with glfwSwapBuffers, for the frame
 * hook's tests (tests/e2e/frames-paths.sh). GLFW opens libGL or libEGL
 * itself (dlopen) and takes the swap from that handle with dlsym: a path
 * the preload hook sees only through its dlsym (docs/HOOKS.md).
 *
 *   ss-glfw [glx|egl|gles] [N] [--thread]
 *
 * glx: OpenGL through GLX (GLFW's default on X11); egl: OpenGL through EGL;
 * gles: OpenGL ES 2 through EGL. --thread presents from a second thread.
 * glfwCreateWindow presents once itself (it clears the new window and
 * swaps, on the main thread), so a run sees N + 1 presents.
 * Prints "present TID" and "main TID". Sleeps 2 ms after each present. Exits 77 without an X display or
 * the API.
 */
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define GL_COLOR_BUFFER_BIT 0x4000
/* A pause after each present: a presenting thread then lives for a few of
 * the recorder's samples (every 10 ms), which is when it can be followed. */
#define FRAME_GAP_US 2000

static GLFWwindow *win;
static int frames = 60;

static void say(const char *what)
{
	printf("%s %ld\n", what, (long)syscall(SYS_gettid));
	fflush(stdout);
}

/* GL through glfwGetProcAddress: linking libGL would put it in the global
 * scope, which is another path (ss-gltest's). */
static void *present(void *arg)
{
	void (*clear_color)(float, float, float, float);
	void (*clear)(unsigned int);

	glfwMakeContextCurrent(win);
	glfwSwapInterval(0);
	clear_color = (void (*)(float, float, float, float))glfwGetProcAddress("glClearColor");
	clear = (void (*)(unsigned int))glfwGetProcAddress("glClear");
	say("present");
	for (int i = 0; i < frames; i++) {
		if (clear_color && clear) {
			clear_color((float)(i & 1), 0, 0, 1);
			clear(GL_COLOR_BUFFER_BIT);
		}
		glfwSwapBuffers(win);
		usleep(FRAME_GAP_US);
	}
	glfwMakeContextCurrent(NULL);
	return arg;
}

static void on_error(int code, const char *what)
{
	fprintf(stderr, "ss-glfw: GLFW error %d: %s\n", code, what);
}

int main(int argc, char **argv)
{
	const char *api = "glx";
	int threaded = 0;
	pthread_t th;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--thread"))
			threaded = 1;
		else if (argv[i][0] >= '0' && argv[i][0] <= '9')
			frames = atoi(argv[i]);
		else
			api = argv[i];
	glfwSetErrorCallback(on_error);
	if (!glfwInit())
		return 77;
	if (!strcmp(api, "egl") || !strcmp(api, "gles"))
		glfwWindowHint(GLFW_CONTEXT_CREATION_API, GLFW_EGL_CONTEXT_API);
	else if (strcmp(api, "glx")) {
		fprintf(stderr, "ss-glfw: unknown API '%s'\n", api);
		return 2;
	}
	if (!strcmp(api, "gles")) {
		glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
		glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 2);
	}
	win = glfwCreateWindow(64, 64, "ss-glfw", NULL, NULL);
	if (!win) {
		glfwTerminate();
		return 77;
	}
	say("main");
	if (threaded) {
		pthread_create(&th, NULL, present, NULL);
		pthread_join(th, NULL);
	} else {
		present(NULL);
	}
	glfwDestroyWindow(win);
	glfwTerminate();
	return 0;
}
