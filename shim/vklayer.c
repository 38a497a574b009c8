// SPDX-License-Identifier: MIT
/*
 * vklayer.c: the Vulkan layer VK_LAYER_STALLSCOPE_frames
 * (libVkLayer_stallscope_frames.so with its manifest
 * VkLayer_stallscope_frames.json). It wraps vkQueuePresentKHR: the present
 * goes down the chain, and when it returns every swapchain it presented
 * successfully gets one stamp in the run's frame ring. It also times the
 * device calls known to block or compile (vkCreate*Pipelines,
 * vkCreateShaderModule, vkWaitForFences, vkQueueWaitIdle, vkDeviceWaitIdle,
 * vkAcquireNextImageKHR, vkQueueSubmit) and writes a span into the ring for
 * one that took 1 ms or more (docs/HOOKS.md, "API calls"). Everything else
 * goes straight to the next layer or driver: this layer only intercepts
 * what it needs to build its chain (instance and device creation and
 * destruction, the two GetProcAddrs).
 *
 * Written against the loader's layer interface (Khronos, Vulkan-Loader
 * docs/LoaderLayerInterface.md; vk_layer.h): the loader calls the exported
 * vkNegotiateLoaderLayerInterfaceVersion (interface version 2) and gets this
 * layer's GetInstanceProcAddr/GetDeviceProcAddr; vkCreateInstance and
 * vkCreateDevice find the next layer's GetProcAddr in the
 * VK_LAYER_LINK_INFO element of the loader's create-info chain and advance
 * it for the layers below. Dispatchable handles (instance, physical device,
 * device, queue) start with the loader's dispatch pointer, which is the key
 * of the per-instance and per-device tables here; a queue shares its
 * device's key.
 *
 * Assumes few instances and devices (a list under a mutex; a present takes
 * the mutex once, uncontended). Without STALLSCOPE_RING the layer passes
 * presents through and stamps nothing.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <vulkan/vulkan.h>
#include <vulkan/vk_layer.h>

#include "stamp.h"

SS_EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *p);

/* ---------------------------------------------------------- the tables */

struct vk_inst {
	struct vk_inst *next;
	void *key;
	VkInstance instance;
	PFN_vkGetInstanceProcAddr gipa;		/* the next layer's */
	PFN_vkDestroyInstance destroy;
};

struct vk_dev {
	struct vk_dev *next;
	void *key;
	VkDevice device;
	PFN_vkGetDeviceProcAddr gdpa;		/* the next layer's */
	PFN_vkDestroyDevice destroy;
	PFN_vkQueuePresentKHR present;		/* NULL without VK_KHR_swapchain */
	PFN_vkCreateGraphicsPipelines gfx_pipes;	/* the timed calls: the next's */
	PFN_vkCreateComputePipelines comp_pipes;
	PFN_vkCreateShaderModule shader_module;
	PFN_vkWaitForFences wait_fences;
	PFN_vkQueueWaitIdle queue_idle;
	PFN_vkDeviceWaitIdle device_idle;
	PFN_vkAcquireNextImageKHR acquire;
	PFN_vkQueueSubmit submit;
};

static pthread_mutex_t vk_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vk_inst *vk_insts;
static struct vk_dev *vk_devs;

static void *vk_key(const void *dispatchable)
{
	return *(void *const *)dispatchable;
}

/* The entry of KEY, a copy in *ret; 0 if found, -1 if not. */
static int inst_get(void *key, struct vk_inst *ret)
{
	int found = -1;

	pthread_mutex_lock(&vk_lock);
	for (struct vk_inst *i = vk_insts; i; i = i->next)
		if (i->key == key) {
			*ret = *i;
			found = 0;
			break;
		}
	pthread_mutex_unlock(&vk_lock);
	return found;
}

static int dev_get(void *key, struct vk_dev *ret)
{
	int found = -1;

	pthread_mutex_lock(&vk_lock);
	for (struct vk_dev *d = vk_devs; d; d = d->next)
		if (d->key == key) {
			*ret = *d;
			found = 0;
			break;
		}
	pthread_mutex_unlock(&vk_lock);
	return found;
}

/* ------------------------------------------------------------ instance */

static VKAPI_ATTR VkResult VKAPI_CALL ss_CreateInstance(const VkInstanceCreateInfo *ci,
							  const VkAllocationCallbacks *alloc,
							  VkInstance *ret)
{
	VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)ci->pNext;
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkCreateInstance create;
	struct vk_inst *in;
	VkResult res;

	while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
			 link->function == VK_LAYER_LINK_INFO))
		link = (VkLayerInstanceCreateInfo *)link->pNext;
	if (!link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
	if (!create)
		return VK_ERROR_INITIALIZATION_FAILED;
	res = create(ci, alloc, ret);
	if (res != VK_SUCCESS)
		return res;
	in = calloc(1, sizeof(*in));
	if (!in)
		return VK_ERROR_OUT_OF_HOST_MEMORY;	/* the instance leaks; so would the app */
	in->key = vk_key(*ret);
	in->instance = *ret;
	in->gipa = gipa;
	in->destroy = (PFN_vkDestroyInstance)gipa(*ret, "vkDestroyInstance");
	pthread_mutex_lock(&vk_lock);
	in->next = vk_insts;
	vk_insts = in;
	pthread_mutex_unlock(&vk_lock);
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL ss_DestroyInstance(VkInstance instance,
						      const VkAllocationCallbacks *alloc)
{
	struct vk_inst *found = NULL;

	if (!instance)
		return;
	pthread_mutex_lock(&vk_lock);
	for (struct vk_inst **p = &vk_insts; *p; p = &(*p)->next)
		if ((*p)->key == vk_key(instance)) {
			found = *p;
			*p = found->next;
			break;
		}
	pthread_mutex_unlock(&vk_lock);
	if (found && found->destroy)
		found->destroy(instance, alloc);
	free(found);
}

/* -------------------------------------------------------------- device */

static VKAPI_ATTR VkResult VKAPI_CALL ss_CreateDevice(VkPhysicalDevice phys,
							const VkDeviceCreateInfo *ci,
							const VkAllocationCallbacks *alloc,
							VkDevice *ret)
{
	VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)ci->pNext;
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkGetDeviceProcAddr gdpa;
	PFN_vkCreateDevice create;
	struct vk_inst in;
	struct vk_dev *d;
	VkResult res;

	while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
			 link->function == VK_LAYER_LINK_INFO))
		link = (VkLayerDeviceCreateInfo *)link->pNext;
	if (!link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	/* A physical device shares its instance's dispatch key. */
	create = (PFN_vkCreateDevice)gipa(inst_get(vk_key(phys), &in) == 0 ? in.instance
									 : VK_NULL_HANDLE,
					  "vkCreateDevice");
	if (!create)
		return VK_ERROR_INITIALIZATION_FAILED;
	res = create(phys, ci, alloc, ret);
	if (res != VK_SUCCESS)
		return res;
	d = calloc(1, sizeof(*d));
	if (!d)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	d->key = vk_key(*ret);
	d->device = *ret;
	d->gdpa = gdpa;
	d->destroy = (PFN_vkDestroyDevice)gdpa(*ret, "vkDestroyDevice");
	d->present = (PFN_vkQueuePresentKHR)gdpa(*ret, "vkQueuePresentKHR");
	d->gfx_pipes = (PFN_vkCreateGraphicsPipelines)gdpa(*ret, "vkCreateGraphicsPipelines");
	d->comp_pipes = (PFN_vkCreateComputePipelines)gdpa(*ret, "vkCreateComputePipelines");
	d->shader_module = (PFN_vkCreateShaderModule)gdpa(*ret, "vkCreateShaderModule");
	d->wait_fences = (PFN_vkWaitForFences)gdpa(*ret, "vkWaitForFences");
	d->queue_idle = (PFN_vkQueueWaitIdle)gdpa(*ret, "vkQueueWaitIdle");
	d->device_idle = (PFN_vkDeviceWaitIdle)gdpa(*ret, "vkDeviceWaitIdle");
	d->acquire = (PFN_vkAcquireNextImageKHR)gdpa(*ret, "vkAcquireNextImageKHR");
	d->submit = (PFN_vkQueueSubmit)gdpa(*ret, "vkQueueSubmit");
	pthread_mutex_lock(&vk_lock);
	d->next = vk_devs;
	vk_devs = d;
	pthread_mutex_unlock(&vk_lock);
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL ss_DestroyDevice(VkDevice device,
						    const VkAllocationCallbacks *alloc)
{
	struct vk_dev *found = NULL;

	if (!device)
		return;
	pthread_mutex_lock(&vk_lock);
	for (struct vk_dev **p = &vk_devs; *p; p = &(*p)->next)
		if ((*p)->key == vk_key(device)) {
			found = *p;
			*p = found->next;
			break;
		}
	pthread_mutex_unlock(&vk_lock);
	if (found && found->destroy)
		found->destroy(device, alloc);
	free(found);
}

/* The preloaded GL library's, when it is there (glhook.c): what the driver
 * does inside a present (lavapipe's Wayland WSI commits a wl_shm buffer)
 * is not a software present of its own. */
extern void stallscope_shim_present_begin(void) __attribute__((weak, visibility("default")));
extern void stallscope_shim_present_end(int presented)
	__attribute__((weak, visibility("default")));

static VKAPI_ATTR VkResult VKAPI_CALL ss_QueuePresentKHR(VkQueue queue,
							   const VkPresentInfoKHR *info)
{
	struct vk_dev d;
	VkResult res;
	int n = 0;

	if (dev_get(vk_key(queue), &d) < 0 || !d.present)
		return VK_ERROR_DEVICE_LOST;	/* a queue of no device we made: cannot be */
	if (stallscope_shim_present_begin)
		stallscope_shim_present_begin();
	res = d.present(queue, info);
	/* One stamp per swapchain the present reached; VK_SUBOPTIMAL_KHR (> 0)
	 * still presented, an error did not. */
	for (uint32_t i = 0; i < info->swapchainCount; i++)
		if (info->pResults ? info->pResults[i] >= 0 : res >= 0) {
			ss_shim_stamp(SS_SRC_VK);
			n++;
		}
	if (stallscope_shim_present_end)
		stallscope_shim_present_end(n > 0);
	return res;
}

/* ----------------------------------------------------- API calls that stall */

/*
 * Each: the next layer's function of the device (a queue shares its
 * device's key), timed; a span when it took SS_SPAN_MIN_NS or more. No
 * clock is read without a ring. A handle of no device we made cannot be.
 */
#define VK_SPAN(field, call, handle, args) \
	struct vk_dev d; \
	uint64_t t0; \
	VkResult res; \
	if (dev_get(vk_key(handle), &d) < 0 || !d.field) \
		return VK_ERROR_DEVICE_LOST; \
	t0 = ss_shim_span_begin(); \
	res = d.field args; \
	ss_shim_span(call, t0); \
	return res

static VKAPI_ATTR VkResult VKAPI_CALL ss_CreateGraphicsPipelines(
	VkDevice device, VkPipelineCache cache, uint32_t n,
	const VkGraphicsPipelineCreateInfo *ci, const VkAllocationCallbacks *alloc, VkPipeline *ret)
{
	VK_SPAN(gfx_pipes, SS_API_VK_CREATE_GRAPHICS_PIPELINES, device,
		(device, cache, n, ci, alloc, ret));
}

static VKAPI_ATTR VkResult VKAPI_CALL ss_CreateComputePipelines(
	VkDevice device, VkPipelineCache cache, uint32_t n,
	const VkComputePipelineCreateInfo *ci, const VkAllocationCallbacks *alloc, VkPipeline *ret)
{
	VK_SPAN(comp_pipes, SS_API_VK_CREATE_COMPUTE_PIPELINES, device,
		(device, cache, n, ci, alloc, ret));
}

static VKAPI_ATTR VkResult VKAPI_CALL ss_CreateShaderModule(
	VkDevice device, const VkShaderModuleCreateInfo *ci, const VkAllocationCallbacks *alloc,
	VkShaderModule *ret)
{
	VK_SPAN(shader_module, SS_API_VK_CREATE_SHADER_MODULE, device, (device, ci, alloc, ret));
}

static VKAPI_ATTR VkResult VKAPI_CALL ss_WaitForFences(VkDevice device, uint32_t n,
							 const VkFence *fences, VkBool32 all,
							 uint64_t timeout)
{
	VK_SPAN(wait_fences, SS_API_VK_WAIT_FOR_FENCES, device, (device, n, fences, all, timeout));
}

static VKAPI_ATTR VkResult VKAPI_CALL ss_QueueWaitIdle(VkQueue queue)
{
	VK_SPAN(queue_idle, SS_API_VK_QUEUE_WAIT_IDLE, queue, (queue));
}

static VKAPI_ATTR VkResult VKAPI_CALL ss_DeviceWaitIdle(VkDevice device)
{
	VK_SPAN(device_idle, SS_API_VK_DEVICE_WAIT_IDLE, device, (device));
}

static VKAPI_ATTR VkResult VKAPI_CALL ss_AcquireNextImageKHR(VkDevice device,
							       VkSwapchainKHR swapchain,
							       uint64_t timeout, VkSemaphore sem,
							       VkFence fence, uint32_t *index)
{
	VK_SPAN(acquire, SS_API_VK_ACQUIRE_NEXT_IMAGE, device,
		(device, swapchain, timeout, sem, fence, index));
}

static VKAPI_ATTR VkResult VKAPI_CALL ss_QueueSubmit(VkQueue queue, uint32_t n,
						       const VkSubmitInfo *submits, VkFence fence)
{
	VK_SPAN(submit, SS_API_VK_QUEUE_SUBMIT, queue, (queue, n, submits, fence));
}

/* Our wrapper of the timed device call NAME when the next layer has it
 * (NEXT), else NULL; *timed says whether NAME is one of them. */
static PFN_vkVoidFunction span_wrapper(const char *name, bool next, bool *timed)
{
	static const struct {
		const char *name;
		PFN_vkVoidFunction fn;
	} w[] = {
		{ "vkCreateGraphicsPipelines", (PFN_vkVoidFunction)ss_CreateGraphicsPipelines },
		{ "vkCreateComputePipelines", (PFN_vkVoidFunction)ss_CreateComputePipelines },
		{ "vkCreateShaderModule", (PFN_vkVoidFunction)ss_CreateShaderModule },
		{ "vkWaitForFences", (PFN_vkVoidFunction)ss_WaitForFences },
		{ "vkQueueWaitIdle", (PFN_vkVoidFunction)ss_QueueWaitIdle },
		{ "vkDeviceWaitIdle", (PFN_vkVoidFunction)ss_DeviceWaitIdle },
		{ "vkAcquireNextImageKHR", (PFN_vkVoidFunction)ss_AcquireNextImageKHR },
		{ "vkQueueSubmit", (PFN_vkVoidFunction)ss_QueueSubmit },
	};

	*timed = false;
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (!strcmp(name, w[i].name)) {
			*timed = true;
			return next ? w[i].fn : NULL;
		}
	return NULL;
}

/* ---------------------------------------------------------- the lookups */

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL ss_GetDeviceProcAddr(VkDevice device,
								       const char *name);

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL ss_GetInstanceProcAddr(VkInstance instance,
									 const char *name)
{
	PFN_vkVoidFunction next, ours;
	struct vk_inst in;
	bool timed;

	if (!strcmp(name, "vkGetInstanceProcAddr"))
		return (PFN_vkVoidFunction)ss_GetInstanceProcAddr;
	if (!strcmp(name, "vkCreateInstance"))
		return (PFN_vkVoidFunction)ss_CreateInstance;
	if (!strcmp(name, "vkDestroyInstance"))
		return (PFN_vkVoidFunction)ss_DestroyInstance;
	if (!strcmp(name, "vkCreateDevice"))
		return (PFN_vkVoidFunction)ss_CreateDevice;
	if (!strcmp(name, "vkGetDeviceProcAddr"))
		return (PFN_vkVoidFunction)ss_GetDeviceProcAddr;
	if (!strcmp(name, "vkDestroyDevice"))
		return (PFN_vkVoidFunction)ss_DestroyDevice;
	if (!instance || inst_get(vk_key(instance), &in) < 0)
		return NULL;
	if (!strcmp(name, "vkQueuePresentKHR"))
		return in.gipa(instance, name) ? (PFN_vkVoidFunction)ss_QueuePresentKHR : NULL;
	next = in.gipa(instance, name);
	ours = span_wrapper(name, next != NULL, &timed);
	return timed ? ours : next;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL ss_GetDeviceProcAddr(VkDevice device,
								       const char *name)
{
	PFN_vkVoidFunction next, ours;
	struct vk_dev d;
	bool timed;

	if (!strcmp(name, "vkGetDeviceProcAddr"))
		return (PFN_vkVoidFunction)ss_GetDeviceProcAddr;
	if (!device || dev_get(vk_key(device), &d) < 0)
		return NULL;
	if (!strcmp(name, "vkDestroyDevice"))
		return (PFN_vkVoidFunction)ss_DestroyDevice;
	if (!strcmp(name, "vkQueuePresentKHR"))
		return d.present ? (PFN_vkVoidFunction)ss_QueuePresentKHR : NULL;
	next = d.gdpa(device, name);
	ours = span_wrapper(name, next != NULL, &timed);
	return timed ? ours : next;
}

/* ------------------------------------------------------- the interface */

/* The loader's first call (interface version 2): returns VK_SUCCESS with
 * this layer's two GetProcAddrs, or VK_ERROR_INITIALIZATION_FAILED for a
 * structure it does not know. */
VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *p)
{
	if (!p || p->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT || p->loaderLayerInterfaceVersion < 2)
		return VK_ERROR_INITIALIZATION_FAILED;
	p->loaderLayerInterfaceVersion = 2;
	p->pfnGetInstanceProcAddr = ss_GetInstanceProcAddr;
	p->pfnGetDeviceProcAddr = ss_GetDeviceProcAddr;
	p->pfnGetPhysicalDeviceProcAddr = NULL;
	return VK_SUCCESS;
}

__attribute__((constructor)) static void vklayer_init(void)
{
	ss_shim_attach();
}

/* The loader unloads the layer with its last instance; a program that makes
 * instances again maps the ring again, so give this mapping back. */
__attribute__((destructor)) static void vklayer_fini(void)
{
	struct ss_ring *r = ss_shim_ring;

	ss_shim_ring = NULL;
	if (r)
		munmap(r, ss_ring_size(r->hdr.capacity));
}
