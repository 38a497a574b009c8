// SPDX-License-Identifier: MIT
/*
 * glhook.c: libstallscope-frames.so, loaded into a program with LD_PRELOAD
 * (first in the list: record puts it there). It stamps every GLX and EGL
 * present into the run's frame ring, whichever way the program reached the
 * present function:
 *
 *   - linked (a PLT call): this library defines glXSwapBuffers,
 *     eglSwapBuffers and eglSwapBuffersWithDamageKHR/EXT, and so comes
 *     before libGL, libGLX and libEGL in the program's search order;
 *   - looked up through glXGetProcAddress(ARB) or eglGetProcAddress: this
 *     library defines those as well and hands out its wrappers for the
 *     present names (and for the GetProcAddresses themselves);
 *   - looked up with dlsym() on a handle of the program's own (SDL, GLFW,
 *     glmark2: dlopen("libGL.so.1") + dlsym): this library defines dlsym
 *     and hands out its wrappers for those names when the lookup is made on
 *     a handle or RTLD_DEFAULT. Every other lookup, and every RTLD_NEXT
 *     one, is forwarded to the next dlsym by a tail jump (below), so that
 *     the C library sees the caller's own return address, which is what
 *     RTLD_NEXT and a plugin's RTLD_DEFAULT scope are computed from.
 *
 * The same ways are taken for the software presents of programs that draw
 * on the CPU (XShmPutImage, XPutImage, and libwayland-client's array
 * marshallers, where a wl_surface commit lands): see "software presents"
 * below for which of those calls count.
 *
 * Each wrapper calls the real function and then stamps the present (after
 * the call returns: the frame has been handed over). Two copies of each
 * wrapper exist, because the two paths lead to different real functions:
 * the exported one calls what the program would have called through its
 * PLT (dlsym(RTLD_NEXT): another preloaded hook such as MangoHud, or
 * libGL), the handed-out one calls what the program's own lookup returned
 * (the first such value: a later lookup that returns another keeps the
 * first). A per-thread depth makes a present that passes through two of
 * these wrappers (a layer between that calls the present again) count once.
 * The addresses handed out are always this library's own (hidden
 * symbols), never a name another library could interpose.
 *
 * Without STALLSCOPE_RING nothing is substituted and every wrapper is a
 * plain pass-through. docs/HOOKS.md says which paths are caught, how, and
 * what is not (RTLD_DEEPBIND, dlvsym, 32-bit programs without a 32-bit
 * build).
 *
 * Assumes glibc (dlvsym finds the C library's dlsym; symbol versions
 * GLIBC_2.34 and the architecture's first) on x86-64 or i386, where the
 * dlsym entry below is written in assembly; elsewhere this library catches
 * the linked and GetProcAddress paths only. Assumes GLX/EGL's C ABI only
 * (no GL headers needed): Display * and EGLDisplay/EGLSurface are pointers,
 * GLXDrawable an unsigned long (XID), EGLBoolean an unsigned int, EGLint a
 * 32-bit int.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SS_SHIM_TLS __attribute__((tls_model("initial-exec")))
#include "stamp.h"

#if defined(__x86_64__) || defined(__i386__)
#define SS_HOOK_DLSYM 1
#else
#define SS_HOOK_DLSYM 0
#endif

#define SS_HIDDEN __attribute__((visibility("hidden")))

/* Defines the exported NAME as an alias of the hidden IMPL. */
#define SS_ALIAS(name, impl) \
	extern __typeof(impl) name __attribute__((alias(#impl), visibility("default")))

typedef void (*ss_fn)(void);
typedef void (*glx_swap_fn)(void *dpy, unsigned long drawable);
typedef int64_t (*glx_oml_fn)(void *dpy, unsigned long drawable, int64_t msc, int64_t div,
			      int64_t rem);
typedef ss_fn (*glx_gpa_fn)(const unsigned char *name);
typedef unsigned int (*egl_swap_fn)(void *dpy, void *surface);
typedef unsigned int (*egl_damage_fn)(void *dpy, void *surface, const int32_t *rects, int32_t n);
typedef ss_fn (*egl_gpa_fn)(const char *name);
typedef void *(*dlsym_fn)(void *handle, const char *name);
typedef int (*x_put_fn)(void *dpy, unsigned long d, void *gc, void *image, int sx, int sy, int dx,
			int dy, unsigned int w, unsigned int h);
typedef int (*x_shm_fn)(void *dpy, unsigned long d, void *gc, void *image, int sx, int sy, int dx,
			int dy, unsigned int w, unsigned int h, int send_event);
/* libwayland-client's union wl_argument: the size of a pointer; an int32, a uint32
 * or a pointer (an object, a string, an array) */
union wl_arg {
	int32_t i;
	uint32_t u;
	void *o;
};
typedef void *(*wl_af_fn)(void *proxy, uint32_t opcode, const void *iface, uint32_t version,
			  uint32_t flags, union wl_arg *args);
typedef void *(*wl_ac_fn)(void *proxy, uint32_t opcode, union wl_arg *args, const void *iface);
typedef void *(*wl_acv_fn)(void *proxy, uint32_t opcode, union wl_arg *args, const void *iface,
			   uint32_t version);
typedef void (*wl_a_fn)(void *proxy, uint32_t opcode, union wl_arg *args);
typedef const char *(*wl_class_fn)(void *proxy);
typedef uint32_t (*wl_id_fn)(void *proxy);

/* ------------------------------------------------------------ the hooks */

enum api { API_GLX, API_EGL, API_X11, API_WL, API_GL };

enum hook_id {
	H_GLX_SWAP,
	H_GLX_GPA,
	H_GLX_GPA_ARB,
	H_GLX_OML,
	H_EGL_SWAP,
	H_EGL_KHR,
	H_EGL_EXT,
	H_EGL_GPA,
	H_XPUT,
	H_XSHM,
	H_WL_AF,
	H_WL_AC,
	H_WL_ACV,
	H_WL_A,
	H_GL_COMPILE,
	H_GL_LINK,
	H_GL_GETPROG,
	H_GL_GETSHADER,
	H_GL_PROGBIN,
	H_GL_FINISH,
	H_GL_READPIX,
	H_GL_WAITSYNC,
	H_N
};

struct hook {
	const char *name;
	enum api api;
	bool ext;		/* an extension: found through the API's GetProcAddress */
	void *own;		/* the exported wrapper (hidden name), or NULL: not exported */
	void *found;		/* the wrapper handed out by lookups */
	void *_Atomic next_real;	/* what `own` calls; resolved on first use */
	void *_Atomic found_real;	/* what `found` calls; the first lookup's */
};

static void own_glx_swap(void *dpy, unsigned long drawable);
static void found_glx_swap(void *dpy, unsigned long drawable);
static ss_fn own_glx_gpa(const unsigned char *name);
static ss_fn found_glx_gpa(const unsigned char *name);
static ss_fn own_glx_gpa_arb(const unsigned char *name);
static ss_fn found_glx_gpa_arb(const unsigned char *name);
static int64_t found_glx_oml(void *dpy, unsigned long drawable, int64_t msc, int64_t div,
			     int64_t rem);
static unsigned int own_egl_swap(void *dpy, void *surface);
static unsigned int found_egl_swap(void *dpy, void *surface);
static unsigned int own_egl_khr(void *dpy, void *surface, const int32_t *rects, int32_t n);
static unsigned int found_egl_khr(void *dpy, void *surface, const int32_t *rects, int32_t n);
static unsigned int own_egl_ext(void *dpy, void *surface, const int32_t *rects, int32_t n);
static unsigned int found_egl_ext(void *dpy, void *surface, const int32_t *rects, int32_t n);
static ss_fn own_egl_gpa(const char *name);
static ss_fn found_egl_gpa(const char *name);
static int own_xput(void *dpy, unsigned long d, void *gc, void *image, int sx, int sy, int dx,
		    int dy, unsigned int w, unsigned int h);
static int found_xput(void *dpy, unsigned long d, void *gc, void *image, int sx, int sy, int dx,
		      int dy, unsigned int w, unsigned int h);
static int own_xshm(void *dpy, unsigned long d, void *gc, void *image, int sx, int sy, int dx,
		    int dy, unsigned int w, unsigned int h, int send_event);
static int found_xshm(void *dpy, unsigned long d, void *gc, void *image, int sx, int sy, int dx,
		      int dy, unsigned int w, unsigned int h, int send_event);
static void *own_wl_af(void *proxy, uint32_t opcode, const void *iface, uint32_t version,
		       uint32_t flags, union wl_arg *args);
static void *found_wl_af(void *proxy, uint32_t opcode, const void *iface, uint32_t version,
			 uint32_t flags, union wl_arg *args);
static void *own_wl_ac(void *proxy, uint32_t opcode, union wl_arg *args, const void *iface);
static void *found_wl_ac(void *proxy, uint32_t opcode, union wl_arg *args, const void *iface);
static void *own_wl_acv(void *proxy, uint32_t opcode, union wl_arg *args, const void *iface,
			uint32_t version);
static void *found_wl_acv(void *proxy, uint32_t opcode, union wl_arg *args, const void *iface,
			  uint32_t version);
static void own_wl_a(void *proxy, uint32_t opcode, union wl_arg *args);
static void found_wl_a(void *proxy, uint32_t opcode, union wl_arg *args);

/* The timed GL calls ("API calls that stall" below): NAME's wrappers
 * own_NAME and found_NAME with parameters P, and the type NAME_fn. */
#define SPAN_DECL(nm, R, P) \
	typedef R(*nm##_fn) P; \
	static R own_##nm P; \
	static R found_##nm P
SPAN_DECL(gl_compile, void, (unsigned int shader));
SPAN_DECL(gl_link, void, (unsigned int program));
SPAN_DECL(gl_getprog, void, (unsigned int program, unsigned int pname, int *params));
SPAN_DECL(gl_getshader, void, (unsigned int shader, unsigned int pname, int *params));
SPAN_DECL(gl_progbin, void, (unsigned int program, unsigned int format, const void *binary,
			     int length));
SPAN_DECL(gl_finish, void, (void));
SPAN_DECL(gl_readpix, void, (int x, int y, int w, int h, unsigned int format, unsigned int type,
			     void *data));
SPAN_DECL(gl_waitsync, unsigned int, (void *sync, unsigned int flags, uint64_t timeout));

#define HOOK(n, a, e, o, f) { n, a, e, (void *)(o), (void *)(f), NULL, NULL }
static struct hook hooks[H_N] = {
	[H_GLX_SWAP] = HOOK("glXSwapBuffers", API_GLX, false, own_glx_swap, found_glx_swap),
	[H_GLX_GPA] = HOOK("glXGetProcAddress", API_GLX, false, own_glx_gpa, found_glx_gpa),
	[H_GLX_GPA_ARB] = HOOK("glXGetProcAddressARB", API_GLX, false, own_glx_gpa_arb,
			       found_glx_gpa_arb),
	/* not exported: a program that looks for it must not find it where
	 * the driver has none */
	[H_GLX_OML] = HOOK("glXSwapBuffersMscOML", API_GLX, true, NULL, found_glx_oml),
	[H_EGL_SWAP] = HOOK("eglSwapBuffers", API_EGL, false, own_egl_swap, found_egl_swap),
	[H_EGL_KHR] = HOOK("eglSwapBuffersWithDamageKHR", API_EGL, true, own_egl_khr,
			   found_egl_khr),
	[H_EGL_EXT] = HOOK("eglSwapBuffersWithDamageEXT", API_EGL, true, own_egl_ext,
			   found_egl_ext),
	[H_EGL_GPA] = HOOK("eglGetProcAddress", API_EGL, false, own_egl_gpa, found_egl_gpa),
	/* software presents (below, "software presents") */
	[H_XPUT] = HOOK("XPutImage", API_X11, false, own_xput, found_xput),
	[H_XSHM] = HOOK("XShmPutImage", API_X11, false, own_xshm, found_xshm),
	[H_WL_AF] = HOOK("wl_proxy_marshal_array_flags", API_WL, false, own_wl_af, found_wl_af),
	[H_WL_AC] = HOOK("wl_proxy_marshal_array_constructor", API_WL, false, own_wl_ac,
			 found_wl_ac),
	[H_WL_ACV] = HOOK("wl_proxy_marshal_array_constructor_versioned", API_WL, false,
			  own_wl_acv, found_wl_acv),
	[H_WL_A] = HOOK("wl_proxy_marshal_array", API_WL, false, own_wl_a, found_wl_a),
	/* timed calls ("API calls that stall") */
	[H_GL_COMPILE] = HOOK("glCompileShader", API_GL, false, own_gl_compile, found_gl_compile),
	[H_GL_LINK] = HOOK("glLinkProgram", API_GL, false, own_gl_link, found_gl_link),
	[H_GL_GETPROG] = HOOK("glGetProgramiv", API_GL, false, own_gl_getprog, found_gl_getprog),
	[H_GL_GETSHADER] = HOOK("glGetShaderiv", API_GL, false, own_gl_getshader,
				found_gl_getshader),
	[H_GL_PROGBIN] = HOOK("glProgramBinary", API_GL, false, own_gl_progbin, found_gl_progbin),
	[H_GL_FINISH] = HOOK("glFinish", API_GL, false, own_gl_finish, found_gl_finish),
	[H_GL_READPIX] = HOOK("glReadPixels", API_GL, false, own_gl_readpix, found_gl_readpix),
	[H_GL_WAITSYNC] = HOOK("glClientWaitSync", API_GL, false, own_gl_waitsync,
			       found_gl_waitsync),
};

/* The hook of NAME, or NULL. Cheap for the names no hook has (every gl*
 * function a loader asks for): those fail the prefix test. */
static struct hook *hook_of(const char *name)
{
	if (!name || !((name[0] == 'g' && name[1] == 'l' && name[2] == 'X') ||
		       (name[0] == 'e' && name[1] == 'g' && name[2] == 'l') ||
		       (name[0] == 'X' && (name[1] == 'P' || name[1] == 'S')) ||
		       (name[0] == 'w' && name[1] == 'l' && name[2] == '_' && name[3] == 'p') ||
		       (name[0] == 'g' && name[1] == 'l' &&
			name[2] && strchr("CLGPFR", name[2]))))
		return NULL;
	for (int i = 0; i < H_N; i++)
		if (strcmp(name, hooks[i].name) == 0)
			return &hooks[i];
	return NULL;
}

/* Whether P is one of this library's wrappers: never taken as a real
 * function (calling it would call itself). */
static bool is_ours(const void *p)
{
	for (int i = 0; i < H_N; i++)
		if (p == hooks[i].own || p == hooks[i].found)
			return true;
	return false;
}

/* ------------------------------------------------------------ the C library's dlsym */

#if SS_HOOK_DLSYM

/* The C library's dlsym, for this library's own lookups, and the next
 * dlsym after this library's (another preloaded hook's, such as
 * MangoHud's, or the C library's), which every lookup not ours is
 * forwarded to. The assembly below jumps through ss_next_dlsym. */
static dlsym_fn libc_dlsym;
SS_HIDDEN dlsym_fn ss_next_dlsym;
static __thread bool in_dl_init SS_SHIM_TLS;

#if defined(__x86_64__)
#define SS_GLIBC_BASE "GLIBC_2.2.5"
#elif defined(__i386__)
#define SS_GLIBC_BASE "GLIBC_2.0"
#endif

static void die(const char *what)
{
	static const char pre[] = "libstallscope-frames.so: ";
	ssize_t ignored;

	ignored = write(2, pre, sizeof(pre) - 1);
	ignored = write(2, what, strlen(what));
	ignored = write(2, "\n", 1);
	(void)ignored;
	abort();
}

/* Finds both dlsyms, once (a race finds the same values twice).
 * dlvsym asks for a version, so it passes over the unversioned dlsym of
 * this library and of any other hook, to the C library's. */
static void dl_init(void)
{
	static const char *const versions[] = { "GLIBC_2.34", SS_GLIBC_BASE };
	dlsym_fn c = NULL, next;

	if (__atomic_load_n(&ss_next_dlsym, __ATOMIC_ACQUIRE))
		return;
	if (in_dl_init)
		die("dlsym called while looking for the C library's dlsym");
	in_dl_init = true;
	for (size_t i = 0; !c && i < sizeof(versions) / sizeof(versions[0]); i++)
		if (versions[i])
			c = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", versions[i]);
	if (!c)
		die("cannot find the C library's dlsym (dlvsym found no GLIBC_2.34 or "
		    SS_GLIBC_BASE " version)");
	__atomic_store_n(&libc_dlsym, c, __ATOMIC_RELEASE);
	next = (dlsym_fn)c(RTLD_NEXT, "dlsym");
	__atomic_store_n(&ss_next_dlsym, next ? next : c, __ATOMIC_RELEASE);
	in_dl_init = false;
}

static void *sym(void *handle, const char *name)
{
	dl_init();
	return libc_dlsym(handle, name);
}
#else
#define sym dlsym
#endif /* SS_HOOK_DLSYM */

/* ------------------------------------------------------------ the ring */

static pthread_once_t attach_once = PTHREAD_ONCE_INIT;

/* Whether a recorder listens: maps the ring on first call. */
static bool active(void)
{
	pthread_once(&attach_once, ss_shim_attach);
	return ss_shim_ring != NULL;
}

/*
 * NAME as the library holding function F defines it: its own scope (the
 * library, then its dependencies), never one of our wrappers; NULL when
 * there is none or F is not in a library that can be named.
 */
static void *in_library_of(const void *f, const char *name)
{
	Dl_info info;
	void *h, *p;

	if (!f || !dladdr(f, &info) || !info.dli_fname || !info.dli_fname[0])
		return NULL;
	h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return NULL;
	p = sym(h, name);
	dlclose(h);
	return p && !is_ours(p) ? p : NULL;
}

/*
 * What a lookup of hook H hands the program when the real lookup returned
 * P: the wrapper (P becomes its real function, if it is the first). When P
 * is one of our exported wrappers already, a library that was asked
 * (ANSWERED_BY, its GetProcAddress) handed out its own function's address
 * through its GOT, which resolved to ours: its own definition is then the
 * real function. Without one, P stays (our exported wrapper, whose real
 * function is the next after us).
 */
static void *hand_out(struct hook *h, void *p, const void *answered_by)
{
	void *none = NULL, *q;

	if (!p)
		return NULL;
	if (is_ours(p)) {
		q = in_library_of(answered_by, h->name);
		if (!q)
			return p;
		p = q;
	}
	atomic_compare_exchange_strong(&h->found_real, &none, p);
	return h->found;
}

/* The same by name, for the GetProcAddresses (GPA answered): P unchanged
 * for names no hook has. */
static ss_fn hand_out_name(const char *name, ss_fn p, const void *gpa)
{
	struct hook *h;

	if (!p || !(h = hook_of(name)) || !active())
		return p;
	return (ss_fn)hand_out(h, (void *)p, gpa);
}

/* ------------------------------------------------------------ dlsym */

#if SS_HOOK_DLSYM
/*
 * Called by the dlsym entry with its arguments: the wrapper to return for
 * a lookup of NAME on HANDLE, or NULL to forward the call unchanged (every
 * name no hook has, RTLD_NEXT, a lookup that fails, no recorder). Leaves
 * ss_next_dlsym set, for the forward.
 */
SS_HIDDEN void *ss_dlsym_pick(void *handle, const char *name);
void *ss_dlsym_pick(void *handle, const char *name)
{
	struct hook *h;
	void *p;

	dl_init();
	if (handle == RTLD_NEXT || !(h = hook_of(name)) || !active())
		return NULL;
	/* The next dlsym, so a hook after us (MangoHud's dlsym) still gets its
	 * say. RTLD_DEFAULT is asked too: the C library answers it with our
	 * exported wrapper whoever the caller (we come first in the global
	 * scope), but a hook's dlsym may answer with its own function. */
	p = ss_next_dlsym(handle, name);
	return p ? hand_out(h, p, NULL) : NULL;
}

/*
 * dlsym itself: ss_dlsym_pick, then either return its wrapper or jump (not
 * call) to the next dlsym with the caller's arguments and return address
 * untouched. A call would make the C library see this library as the
 * caller: RTLD_NEXT would then search after us instead of after the
 * caller, and a plugin's RTLD_DEFAULT would lose the plugin's own scope.
 */
#define ASM_BEGIN(name) ".text\n.globl " name "\n.type " name ", @function\n.p2align 4\n" \
	name ":\n	.cfi_startproc\n" ASM_ENDBR
#define ASM_END(name) "	.cfi_endproc\n.size " name ", .-" name "\n"
#if defined(__x86_64__)
#ifdef __CET__
#define ASM_ENDBR "	endbr64\n"
#else
#define ASM_ENDBR ""
#endif
__asm__(ASM_BEGIN("dlsym")
	"	pushq %rdi\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	pushq %rsi\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	subq $8, %rsp\n" /* 16-byte aligned at the call */
	"	.cfi_adjust_cfa_offset 8\n"
	"	call ss_dlsym_pick\n"
	"	addq $8, %rsp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	popq %rsi\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	popq %rdi\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	testq %rax, %rax\n"
	"	jz 1f\n"
	"	ret\n"
	"1:	jmpq *ss_next_dlsym(%rip)\n"
	ASM_END("dlsym"));
#elif defined(__i386__)
#ifdef __CET__
#define ASM_ENDBR "	endbr32\n"
#else
#define ASM_ENDBR ""
#endif
__asm__(ASM_BEGIN("dlsym")
	"	subl $4, %esp\n" /* 16-byte aligned at the call */
	"	.cfi_adjust_cfa_offset 4\n"
	"	pushl 12(%esp)\n" /* name */
	"	.cfi_adjust_cfa_offset 4\n"
	"	pushl 12(%esp)\n" /* handle */
	"	.cfi_adjust_cfa_offset 4\n"
	"	call ss_dlsym_pick\n"
	"	addl $12, %esp\n"
	"	.cfi_adjust_cfa_offset -12\n"
	"	testl %eax, %eax\n"
	"	jz 1f\n"
	"	ret\n"
	"1:	call 2f\n"
	"2:	popl %ecx\n"
	"	addl $_GLOBAL_OFFSET_TABLE_+(.-2b), %ecx\n"
	"	jmp *ss_next_dlsym@GOTOFF(%ecx)\n"
	ASM_END("dlsym"));
#endif
#endif /* SS_HOOK_DLSYM */

/* ------------------------------------------------------------ real functions */

/* The file names of the loaded libraries, in load order, for by_search. */
struct loaded {
	char *name[256];
	size_t n;
};

static int collect(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct loaded *l = ctx;

	(void)size;
	if (!info->dlpi_name || !info->dlpi_name[0])
		return 0;	/* the program itself, the vDSO */
	if (l->n == sizeof(l->name) / sizeof(l->name[0]))
		return 1;
	l->name[l->n] = strdup(info->dlpi_name);
	if (l->name[l->n])
		l->n++;
	return 0;
}

/*
 * NAME from the first loaded library (in load order, this one left out)
 * that has it: what RTLD_NEXT would have found had the program's GL
 * library been global. Loads nothing. The names are collected first:
 * dlopen is not called with dl_iterate_phdr's lock held.
 */
static void *by_search(const char *name)
{
	struct loaded l = { .n = 0 };
	void *p = NULL;

	dl_iterate_phdr(collect, &l);
	for (size_t i = 0; i < l.n; i++) {
		void *h = p ? NULL : dlopen(l.name[i], RTLD_LAZY | RTLD_NOLOAD);

		if (h) {
			p = sym(h, name);
			if (p && is_ours(p))
				p = NULL;
			dlclose(h);
		}
		free(l.name[i]);
	}
	return p;
}

static ss_fn real_gpa(enum hook_id id, const char *name);

/*
 * What the exported wrapper of H calls: the next definition after this
 * library (what the program's PLT call would have reached without us);
 * when there is none (the program's libGL is not in the global scope and
 * it reached the exported wrapper through RTLD_DEFAULT), what its own
 * lookup returned, else the first loaded library's (by_search) or, for an
 * extension, what the real GetProcAddress gives.
 */
static void *real_next(struct hook *h)
{
	void *p = atomic_load_explicit(&h->next_real, memory_order_relaxed);

	if (p)
		return p;
	p = sym(RTLD_NEXT, h->name);
	if (!p || is_ours(p))
		p = atomic_load(&h->found_real);
	if (!p)
		p = by_search(h->name);
	if (!p && h->ext)
		p = (void *)real_gpa(h->api == API_EGL ? H_EGL_GPA : H_GLX_GPA_ARB, h->name);
	if (!p || is_ours(p))
		return NULL;
	atomic_store_explicit(&h->next_real, p, memory_order_relaxed);
	return p;
}

/* What the handed-out wrapper of H calls: the first real its lookups
 * returned (set before it was handed out). */
static void *real_found(struct hook *h)
{
	void *p = atomic_load_explicit(&h->found_real, memory_order_relaxed);

	return p ? p : real_next(h);
}

/* NAME through the real GetProcAddress of hook ID, our wrappers left out. */
static ss_fn real_gpa(enum hook_id id, const char *name)
{
	void *g = real_next(&hooks[id]);
	ss_fn p;

	if (!g)
		return NULL;
	p = id == H_EGL_GPA ? ((egl_gpa_fn)g)(name) : ((glx_gpa_fn)g)((const unsigned char *)name);
	return p && !is_ours((void *)p) ? p : NULL;
}

/* ------------------------------------------------------------ presents */

/* How deep this thread is in our present wrappers (and the Vulkan
 * layer's): only the outermost stamps, and a software present made inside
 * one (Mesa's llvmpipe puts its image with XShmPutImage inside
 * glXSwapBuffers; its Wayland EGL and Vulkan commit a wl_shm buffer) is
 * part of that present, not one of its own. */
static __thread unsigned depth SS_SHIM_TLS;

/* Whether this process has presented through GLX, EGL or Vulkan: from then
 * on its software presents are not counted (a GL program's splash, its
 * decorations' or a software cursor's images are not its frames). */
static atomic_bool gpu_presented;

static void gpu_stamp(uint32_t source)
{
	atomic_store_explicit(&gpu_presented, true, memory_order_relaxed);
	ss_shim_stamp(source);
}

/*
 * For the Vulkan layer (libVkLayer_stallscope_frames.so, which declares
 * these weak: they are there when this library is preloaded): around the
 * next layer's vkQueuePresentKHR, so that what the driver does inside it
 * (a wl_shm commit of lavapipe's Wayland WSI) is not a present of its
 * own. PRESENTED: the present stamped a frame.
 */
SS_EXPORT void stallscope_shim_present_begin(void);
SS_EXPORT void stallscope_shim_present_end(int presented);
void stallscope_shim_present_begin(void)
{
	depth++;
}

void stallscope_shim_present_end(int presented)
{
	if (depth)
		depth--;
	if (presented)
		atomic_store_explicit(&gpu_presented, true, memory_order_relaxed);
}

static void glx_swap(void *real, void *dpy, unsigned long drawable)
{
	if (!real)
		return;
	depth++;
	((glx_swap_fn)real)(dpy, drawable);
	if (--depth == 0)
		gpu_stamp(SS_SRC_GLX);
}

static void own_glx_swap(void *dpy, unsigned long drawable)
{
	glx_swap(real_next(&hooks[H_GLX_SWAP]), dpy, drawable);
}

static void found_glx_swap(void *dpy, unsigned long drawable)
{
	glx_swap(real_found(&hooks[H_GLX_SWAP]), dpy, drawable);
}

/* An error is -1; anything else is the swap's number, a present. */
static int64_t found_glx_oml(void *dpy, unsigned long drawable, int64_t msc, int64_t div,
			     int64_t rem)
{
	glx_oml_fn real = (glx_oml_fn)real_found(&hooks[H_GLX_OML]);
	int64_t n;

	if (!real)
		return -1;
	depth++;
	n = real(dpy, drawable, msc, div, rem);
	if (--depth == 0 && n != -1)
		gpu_stamp(SS_SRC_GLX);
	return n;
}

/* An EGL present counts only when it returned EGL_TRUE. */
static unsigned int egl_swap(void *real, void *dpy, void *surface)
{
	unsigned int ok;

	if (!real)
		return 0;
	depth++;
	ok = ((egl_swap_fn)real)(dpy, surface);
	if (--depth == 0 && ok)
		gpu_stamp(SS_SRC_EGL);
	return ok;
}

static unsigned int egl_damage(void *real, void *dpy, void *surface, const int32_t *rects,
			       int32_t n)
{
	unsigned int ok;

	if (!real)
		return 0;
	depth++;
	ok = ((egl_damage_fn)real)(dpy, surface, rects, n);
	if (--depth == 0 && ok)
		gpu_stamp(SS_SRC_EGL);
	return ok;
}

static unsigned int own_egl_swap(void *dpy, void *surface)
{
	return egl_swap(real_next(&hooks[H_EGL_SWAP]), dpy, surface);
}

static unsigned int found_egl_swap(void *dpy, void *surface)
{
	return egl_swap(real_found(&hooks[H_EGL_SWAP]), dpy, surface);
}

static unsigned int own_egl_khr(void *dpy, void *surface, const int32_t *rects, int32_t n)
{
	return egl_damage(real_next(&hooks[H_EGL_KHR]), dpy, surface, rects, n);
}

static unsigned int found_egl_khr(void *dpy, void *surface, const int32_t *rects, int32_t n)
{
	return egl_damage(real_found(&hooks[H_EGL_KHR]), dpy, surface, rects, n);
}

static unsigned int own_egl_ext(void *dpy, void *surface, const int32_t *rects, int32_t n)
{
	return egl_damage(real_next(&hooks[H_EGL_EXT]), dpy, surface, rects, n);
}

static unsigned int found_egl_ext(void *dpy, void *surface, const int32_t *rects, int32_t n)
{
	return egl_damage(real_found(&hooks[H_EGL_EXT]), dpy, surface, rects, n);
}

/* ------------------------------------------------------------ software presents */

/*
 * Programs that draw on the CPU (SDL's software renderer, emulators,
 * terminals, Mesa's own llvmpipe) present by putting an image: on X11 with
 * XShmPutImage (source xshm) or XPutImage (xput), on Wayland by committing
 * a wl_shm buffer to a window's surface (wlshm). Each is stamped after the
 * real call returns, and only
 *
 *   - outside a GLX, EGL or Vulkan present (depth 0: the driver's own puts
 *     and commits inside one are that present), and
 *   - while the process has presented through none of them (gpu_presented).
 *
 * X11: the same calls also draw cursors, icons and small widgets, so a put
 * counts only when it covers at least X_MIN_AREA pixels and at least half
 * the largest put of the process so far. A put made by Wine's X11 driver
 * (winex11) is never counted: it flushes a window's GDI surface on Wine's
 * own schedule, not the program's frames, and a Direct3D or OpenGL game
 * under Wine presents through GL or Vulkan. A program that puts one frame
 * as several pieces counts the large ones; docs/HOOKS.md has the limits.
 */
#define X_MIN_AREA 8192u	/* px; a 64x64 cursor is 4096, a Game Boy's screen 23040 */

static _Atomic uint64_t x_largest;	/* px, the largest put of the process so far */
static const void *_Atomic x_last_caller;	/* the last caller found not to be Wine's */

/* Whether the code at CALLER is Wine's X11 driver (winex11.so, or
 * winex11.drv.so before Wine 6). */
static bool x_wine_caller(const void *caller)
{
	Dl_info info;
	const char *base;

	if (caller == atomic_load_explicit(&x_last_caller, memory_order_relaxed))
		return false;
	if (!dladdr(caller, &info) || !info.dli_fname)
		return false;
	base = strrchr(info.dli_fname, '/');
	base = base ? base + 1 : info.dli_fname;
	if (!strncmp(base, "winex11.", 8))
		return true;
	atomic_store_explicit(&x_last_caller, caller, memory_order_relaxed);
	return false;
}

static void x_put_done(uint32_t source, unsigned int w, unsigned int h, const void *caller)
{
	uint64_t area = (uint64_t)w * h;
	uint64_t big = atomic_load_explicit(&x_largest, memory_order_relaxed);

	if (depth || atomic_load_explicit(&gpu_presented, memory_order_relaxed) ||
	    x_wine_caller(caller))
		return;
	while (area > big &&
	       !atomic_compare_exchange_weak_explicit(&x_largest, &big, area, memory_order_relaxed,
						      memory_order_relaxed))
		;
	if (area >= X_MIN_AREA && 2 * area >= big)
		ss_shim_stamp(source);
}

static int x_put(const void *caller, void *real, void *dpy, unsigned long d, void *gc,
		 void *image, int sx, int sy, int dx, int dy, unsigned int w, unsigned int h)
{
	int ret;

	if (!real)
		return 0;
	ret = ((x_put_fn)real)(dpy, d, gc, image, sx, sy, dx, dy, w, h);
	if (ss_shim_ring && image)
		x_put_done(SS_SRC_XPUT, w, h, caller);
	return ret;
}

static int own_xput(void *dpy, unsigned long d, void *gc, void *image, int sx, int sy, int dx,
		    int dy, unsigned int w, unsigned int h)
{
	return x_put(__builtin_return_address(0), real_next(&hooks[H_XPUT]), dpy, d, gc, image, sx, sy, dx, dy, w, h);
}

static int found_xput(void *dpy, unsigned long d, void *gc, void *image, int sx, int sy, int dx,
		      int dy, unsigned int w, unsigned int h)
{
	return x_put(__builtin_return_address(0), real_found(&hooks[H_XPUT]), dpy, d, gc, image, sx, sy, dx, dy, w, h);
}

/* XShmPutImage returns True when the request was sent. */
static int x_shm(const void *caller, void *real, void *dpy, unsigned long d, void *gc,
		 void *image, int sx, int sy, int dx, int dy, unsigned int w, unsigned int h,
		 int send_event)
{
	int ok;

	if (!real)
		return 0;
	ok = ((x_shm_fn)real)(dpy, d, gc, image, sx, sy, dx, dy, w, h, send_event);
	if (ss_shim_ring && ok)
		x_put_done(SS_SRC_XSHM, w, h, caller);
	return ok;
}

static int own_xshm(void *dpy, unsigned long d, void *gc, void *image, int sx, int sy, int dx,
		    int dy, unsigned int w, unsigned int h, int send_event)
{
	return x_shm(__builtin_return_address(0), real_next(&hooks[H_XSHM]), dpy, d, gc, image,
		     sx, sy, dx, dy, w, h, send_event);
}

static int found_xshm(void *dpy, unsigned long d, void *gc, void *image, int sx, int sy, int dx,
		      int dy, unsigned int w, unsigned int h, int send_event)
{
	return x_shm(__builtin_return_address(0), real_found(&hooks[H_XSHM]), dpy, d, gc, image,
		     sx, sy, dx, dy, w, h, send_event);
}

/*
 * Wayland. A request reaches libwayland-client's wire through one of its
 * four wl_proxy_marshal_array* functions: the header's inlines
 * (wl_surface_commit, ...) call the variadic wl_proxy_marshal_flags (or,
 * built against libwayland before 1.20, wl_proxy_marshal and
 * wl_proxy_marshal_constructor*), which call those through the library's
 * own PLT, where ours come first. The requests followed (wayland.xml,
 * xdg-shell.xml):
 *
 *   wl_shm_pool.create_buffer (0)   the buffer it returns is a shm buffer
 *   wl_buffer.destroy (0)           no longer one
 *   xdg_wm_base.get_xdg_surface (2), zxdg_shell_v6.get_xdg_surface (2),
 *   wl_shell.get_shell_surface (0)  its surface argument is a window
 *   zwp_fullscreen_shell_v1.present_surface (1),
 *   .present_surface_for_mode (2)   the same, its first argument
 *   wl_surface.attach (1)           the surface's next content: a shm buffer or not
 *   wl_surface.commit (6)           a present when a window's surface
 *                                   commits a shm buffer attached since
 *                                   its last commit
 *   wl_surface.destroy (0)          forgotten
 *
 * A cursor's surface, a sub-surface and a drag icon are never windows; a
 * commit without a new buffer (a frame callback, a region) is no frame.
 * Surfaces are known by object id, so that a proxy wrapper of one (Mesa's
 * EGL and WSI commit through those) is the same surface; buffers by
 * address (what create_buffer returned is what attach is given). The
 * tables are small and bounded: what does not fit is not followed (a
 * commit that then does not count, never one counted twice).
 */
enum { WL_SHM_MAX = 1024, WL_SURF_MAX = 64 };

enum wl_act { WL_NONE, WL_STAMP, WL_SHM_NEW };

struct wl_surf {
	uint32_t id;		/* the wl_surface's object id */
	bool window;		/* given a window role */
	bool shm;		/* a shm buffer attached since the last commit */
};

static pthread_mutex_t wl_lock = PTHREAD_MUTEX_INITIALIZER;
static void *wl_shm_bufs[WL_SHM_MAX];
static size_t wl_nshm;
static struct wl_surf wl_surfs[WL_SURF_MAX];
static size_t wl_nsurf;
static wl_class_fn _Atomic wl_get_class;
static wl_id_fn _Atomic wl_get_id;

/* Index of P among the shm buffers, or -1. */
static int wl_shm_find(const void *p)
{
	for (size_t i = 0; i < wl_nshm; i++)
		if (wl_shm_bufs[i] == p)
			return (int)i;
	return -1;
}

/* The entry of the surface with object ID, made when MAKE (NULL when it
 * is not there or the table is full). */
static struct wl_surf *wl_surf_of(uint32_t id, bool make)
{
	for (size_t i = 0; i < wl_nsurf; i++)
		if (wl_surfs[i].id == id)
			return &wl_surfs[i];
	if (!make || !id || wl_nsurf == WL_SURF_MAX)
		return NULL;
	wl_surfs[wl_nsurf] = (struct wl_surf){ .id = id };
	return &wl_surfs[wl_nsurf++];
}

/* wl_proxy_get_class and wl_proxy_get_id of the library whose marshaller
 * REAL is: false when it has none. */
static bool wl_fns(const void *real, wl_class_fn *ret_class, wl_id_fn *ret_id)
{
	wl_class_fn c = atomic_load_explicit(&wl_get_class, memory_order_acquire);
	wl_id_fn i = atomic_load_explicit(&wl_get_id, memory_order_relaxed);

	if (!c) {
		i = (wl_id_fn)in_library_of(real, "wl_proxy_get_id");
		c = (wl_class_fn)in_library_of(real, "wl_proxy_get_class");
		if (!c || !i)
			return false;
		atomic_store_explicit(&wl_get_id, i, memory_order_relaxed);
		atomic_store_explicit(&wl_get_class, c, memory_order_release);
	}
	*ret_class = c;
	*ret_id = i;
	return true;
}

/* What request OPCODE with ARGS on PROXY means, before it is sent (a
 * destroy frees the proxy): WL_STAMP for a present, WL_SHM_NEW when the
 * proxy it returns is a shm buffer. */
static enum wl_act wl_before(const void *real, void *proxy, uint32_t opcode, union wl_arg *args)
{
	const char *cls;
	enum wl_act act = WL_NONE;
	struct wl_surf *s;
	wl_class_fn class_of;
	wl_id_fn id_of;
	int i;

	if (!ss_shim_ring || !proxy || !wl_fns(real, &class_of, &id_of) || !(cls = class_of(proxy)))
		return WL_NONE;
	pthread_mutex_lock(&wl_lock);
	if (!strcmp(cls, "wl_surface")) {
		s = wl_surf_of(id_of(proxy), false);
		if (s && opcode == 1)
			s->shm = args && args[0].o && wl_shm_find(args[0].o) >= 0;
		else if (s && opcode == 6) {
			if (s->window && s->shm && !depth &&
			    !atomic_load_explicit(&gpu_presented, memory_order_relaxed))
				act = WL_STAMP;
			s->shm = false;
		} else if (s && opcode == 0) {
			*s = wl_surfs[--wl_nsurf];
		}
	} else if (!strcmp(cls, "wl_shm_pool") && opcode == 0) {
		act = WL_SHM_NEW;
	} else if (!strcmp(cls, "wl_buffer") && opcode == 0) {
		if ((i = wl_shm_find(proxy)) >= 0)
			wl_shm_bufs[i] = wl_shm_bufs[--wl_nshm];
	} else if (args && ((opcode == 2 && (!strcmp(cls, "xdg_wm_base") ||
					     !strcmp(cls, "zxdg_shell_v6"))) ||
			    (opcode == 0 && !strcmp(cls, "wl_shell")))) {
		if (args[1].o && (s = wl_surf_of(id_of(args[1].o), true)))
			s->window = true;
	} else if (args && (opcode == 1 || opcode == 2) &&
		   !strcmp(cls, "zwp_fullscreen_shell_v1")) {
		if (args[0].o && (s = wl_surf_of(id_of(args[0].o), true)))
			s->window = true;
	}
	pthread_mutex_unlock(&wl_lock);
	return act;
}

/* After the request was sent: RET is what the marshaller returned. */
static void wl_after(enum wl_act act, void *ret)
{
	if (act == WL_STAMP) {
		ss_shim_stamp(SS_SRC_WLSHM);
	} else if (act == WL_SHM_NEW && ret) {
		pthread_mutex_lock(&wl_lock);
		if (wl_nshm < WL_SHM_MAX && wl_shm_find(ret) < 0)
			wl_shm_bufs[wl_nshm++] = ret;
		pthread_mutex_unlock(&wl_lock);
	}
}

static void *wl_af(void *real, void *proxy, uint32_t opcode, const void *iface, uint32_t version,
		   uint32_t flags, union wl_arg *args)
{
	enum wl_act act;
	void *ret;

	if (!real)
		return NULL;
	act = wl_before(real, proxy, opcode, args);
	ret = ((wl_af_fn)real)(proxy, opcode, iface, version, flags, args);
	wl_after(act, ret);
	return ret;
}

static void *own_wl_af(void *proxy, uint32_t opcode, const void *iface, uint32_t version,
		       uint32_t flags, union wl_arg *args)
{
	return wl_af(real_next(&hooks[H_WL_AF]), proxy, opcode, iface, version, flags, args);
}

static void *found_wl_af(void *proxy, uint32_t opcode, const void *iface, uint32_t version,
			 uint32_t flags, union wl_arg *args)
{
	return wl_af(real_found(&hooks[H_WL_AF]), proxy, opcode, iface, version, flags, args);
}

static void *wl_ac(void *real, void *proxy, uint32_t opcode, union wl_arg *args,
		   const void *iface)
{
	enum wl_act act;
	void *ret;

	if (!real)
		return NULL;
	act = wl_before(real, proxy, opcode, args);
	ret = ((wl_ac_fn)real)(proxy, opcode, args, iface);
	wl_after(act, ret);
	return ret;
}

static void *own_wl_ac(void *proxy, uint32_t opcode, union wl_arg *args, const void *iface)
{
	return wl_ac(real_next(&hooks[H_WL_AC]), proxy, opcode, args, iface);
}

static void *found_wl_ac(void *proxy, uint32_t opcode, union wl_arg *args, const void *iface)
{
	return wl_ac(real_found(&hooks[H_WL_AC]), proxy, opcode, args, iface);
}

static void *wl_acv(void *real, void *proxy, uint32_t opcode, union wl_arg *args,
		    const void *iface, uint32_t version)
{
	enum wl_act act;
	void *ret;

	if (!real)
		return NULL;
	act = wl_before(real, proxy, opcode, args);
	ret = ((wl_acv_fn)real)(proxy, opcode, args, iface, version);
	wl_after(act, ret);
	return ret;
}

static void *own_wl_acv(void *proxy, uint32_t opcode, union wl_arg *args, const void *iface,
			uint32_t version)
{
	return wl_acv(real_next(&hooks[H_WL_ACV]), proxy, opcode, args, iface, version);
}

static void *found_wl_acv(void *proxy, uint32_t opcode, union wl_arg *args, const void *iface,
			  uint32_t version)
{
	return wl_acv(real_found(&hooks[H_WL_ACV]), proxy, opcode, args, iface, version);
}

static void wl_a(void *real, void *proxy, uint32_t opcode, union wl_arg *args)
{
	enum wl_act act;

	if (!real)
		return;
	act = wl_before(real, proxy, opcode, args);
	((wl_a_fn)real)(proxy, opcode, args);
	wl_after(act, NULL);
}

static void own_wl_a(void *proxy, uint32_t opcode, union wl_arg *args)
{
	wl_a(real_next(&hooks[H_WL_A]), proxy, opcode, args);
}

static void found_wl_a(void *proxy, uint32_t opcode, union wl_arg *args)
{
	wl_a(real_found(&hooks[H_WL_A]), proxy, opcode, args);
}

/* ------------------------------------------------------------ GetProcAddress */

/* The real lookup, then our wrapper for a hooked name; only where the real
 * one returned a function (a NULL still says "not supported"). */
static ss_fn glx_gpa(void *real, const unsigned char *name)
{
	ss_fn p = real ? ((glx_gpa_fn)real)(name) : NULL;

	return hand_out_name((const char *)name, p, real);
}

static ss_fn own_glx_gpa(const unsigned char *name)
{
	return glx_gpa(real_next(&hooks[H_GLX_GPA]), name);
}

static ss_fn found_glx_gpa(const unsigned char *name)
{
	return glx_gpa(real_found(&hooks[H_GLX_GPA]), name);
}

static ss_fn own_glx_gpa_arb(const unsigned char *name)
{
	return glx_gpa(real_next(&hooks[H_GLX_GPA_ARB]), name);
}

static ss_fn found_glx_gpa_arb(const unsigned char *name)
{
	return glx_gpa(real_found(&hooks[H_GLX_GPA_ARB]), name);
}

static ss_fn egl_gpa(void *real, const char *name)
{
	ss_fn p = real ? ((egl_gpa_fn)real)(name) : NULL;

	return hand_out_name(name, p, real);
}

static ss_fn own_egl_gpa(const char *name)
{
	return egl_gpa(real_next(&hooks[H_EGL_GPA]), name);
}

static ss_fn found_egl_gpa(const char *name)
{
	return egl_gpa(real_found(&hooks[H_EGL_GPA]), name);
}

/* ------------------------------------------------------------ API calls that stall */

/*
 * The GL calls known to block or compile (docs/HOOKS.md, "API calls"): each
 * wrapper reads the clock around the real call and writes a span into the
 * ring when it took SS_SPAN_MIN_NS or more. Without a ring no clock is
 * read. They are reached the ways the presents are: linked (exported
 * below), through the GetProcAddresses and through dlsym.
 */
#define SPAN_VOID(nm, hid, call, P, A) \
	static void own_##nm P \
	{ \
		void *real_ = real_next(&hooks[hid]); \
		uint64_t t0_ = ss_shim_span_begin(); \
		if (!real_) \
			return; \
		((nm##_fn)real_) A; \
		ss_shim_span(call, t0_); \
	} \
	static void found_##nm P \
	{ \
		void *real_ = real_found(&hooks[hid]); \
		uint64_t t0_ = ss_shim_span_begin(); \
		if (!real_) \
			return; \
		((nm##_fn)real_) A; \
		ss_shim_span(call, t0_); \
	}

SPAN_VOID(gl_compile, H_GL_COMPILE, SS_API_GL_COMPILE_SHADER, (unsigned int shader), (shader))
SPAN_VOID(gl_link, H_GL_LINK, SS_API_GL_LINK_PROGRAM, (unsigned int program), (program))
SPAN_VOID(gl_getprog, H_GL_GETPROG, SS_API_GL_GET_PROGRAMIV,
	  (unsigned int program, unsigned int pname, int *params), (program, pname, params))
SPAN_VOID(gl_getshader, H_GL_GETSHADER, SS_API_GL_GET_SHADERIV,
	  (unsigned int shader, unsigned int pname, int *params), (shader, pname, params))
SPAN_VOID(gl_progbin, H_GL_PROGBIN, SS_API_GL_PROGRAM_BINARY,
	  (unsigned int program, unsigned int format, const void *binary, int length),
	  (program, format, binary, length))
SPAN_VOID(gl_finish, H_GL_FINISH, SS_API_GL_FINISH, (void), ())
SPAN_VOID(gl_readpix, H_GL_READPIX, SS_API_GL_READ_PIXELS,
	  (int x, int y, int w, int h, unsigned int format, unsigned int type, void *data),
	  (x, y, w, h, format, type, data))

/* glClientWaitSync returns GL_WAIT_FAILED (0x911D) when it cannot wait. */
static unsigned int gl_waitsync(void *real, void *sync, unsigned int flags, uint64_t timeout)
{
	uint64_t t0 = ss_shim_span_begin();
	unsigned int r;

	if (!real)
		return 0x911D;
	r = ((gl_waitsync_fn)real)(sync, flags, timeout);
	ss_shim_span(SS_API_GL_CLIENT_WAIT_SYNC, t0);
	return r;
}

static unsigned int own_gl_waitsync(void *sync, unsigned int flags, uint64_t timeout)
{
	return gl_waitsync(real_next(&hooks[H_GL_WAITSYNC]), sync, flags, timeout);
}

static unsigned int found_gl_waitsync(void *sync, unsigned int flags, uint64_t timeout)
{
	return gl_waitsync(real_found(&hooks[H_GL_WAITSYNC]), sync, flags, timeout);
}

SS_ALIAS(glXSwapBuffers, own_glx_swap);
SS_ALIAS(glXGetProcAddress, own_glx_gpa);
SS_ALIAS(glXGetProcAddressARB, own_glx_gpa_arb);
SS_ALIAS(eglSwapBuffers, own_egl_swap);
SS_ALIAS(eglSwapBuffersWithDamageKHR, own_egl_khr);
SS_ALIAS(eglSwapBuffersWithDamageEXT, own_egl_ext);
SS_ALIAS(eglGetProcAddress, own_egl_gpa);
SS_ALIAS(XPutImage, own_xput);
SS_ALIAS(XShmPutImage, own_xshm);
SS_ALIAS(wl_proxy_marshal_array_flags, own_wl_af);
SS_ALIAS(wl_proxy_marshal_array_constructor, own_wl_ac);
SS_ALIAS(wl_proxy_marshal_array_constructor_versioned, own_wl_acv);
SS_ALIAS(wl_proxy_marshal_array, own_wl_a);
SS_ALIAS(glCompileShader, own_gl_compile);
SS_ALIAS(glLinkProgram, own_gl_link);
SS_ALIAS(glGetProgramiv, own_gl_getprog);
SS_ALIAS(glGetShaderiv, own_gl_getshader);
SS_ALIAS(glProgramBinary, own_gl_progbin);
SS_ALIAS(glFinish, own_gl_finish);
SS_ALIAS(glReadPixels, own_gl_readpix);
SS_ALIAS(glClientWaitSync, own_gl_waitsync);

__attribute__((constructor)) static void glhook_init(void)
{
	active();
#if SS_HOOK_DLSYM
	dl_init();
#endif
}
