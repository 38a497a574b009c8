// SPDX-License-Identifier: MIT
/*
 * vkslow.c: libVkLayer_ss_slowpipe.so, the Vulkan layer VK_LAYER_SS_slowpipe,
 * a planted slow pipeline compile for the layer's API spans
 * (tests/e2e/shim-apispans.sh). ss-vkwait enables it by name, which puts it
 * below the layers of VK_INSTANCE_LAYERS (stallscope's among them): its
 * vkCreateGraphicsPipelines keeps the CPU busy for SS_SLOWPIPE_MS
 * milliseconds (default 300) and returns VK_SUCCESS with null pipelines,
 * without calling down (the program never uses them; the create infos need
 * not be valid). Everything else goes to the next layer. One instance and
 * one device at a time: a test layer.
 *
 * For a real program (vkcube, tests/e2e/shim-vkcube.sh), which creates its
 * pipelines before its first present and then draws with them:
 * SS_SLOWPIPE_DOWN=1 calls the next layer's vkCreateGraphicsPipelines after
 * the busy time (real pipelines), and SS_SLOWPIPE_STALE=N makes the Nth
 * vkQueuePresentKHR (presented as usual) return VK_ERROR_OUT_OF_DATE_KHR,
 * as a resized window does: the program recreates its swapchain and its
 * pipelines between two frames, and only the creates after that present
 * are slowed.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>
#include <vulkan/vk_layer.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *p);

static PFN_vkGetInstanceProcAddr next_gipa;
static PFN_vkGetDeviceProcAddr next_gdpa;
static VkInstance the_instance;
static PFN_vkCreateGraphicsPipelines next_create_pipelines;
static PFN_vkQueuePresentKHR next_present;
static unsigned presents;

static VKAPI_ATTR VkResult VKAPI_CALL slow_CreateInstance(const VkInstanceCreateInfo *ci,
							    const VkAllocationCallbacks *alloc,
							    VkInstance *ret)
{
	VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)ci->pNext;
	PFN_vkCreateInstance create;
	VkResult res;

	while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
			 link->function == VK_LAYER_LINK_INFO))
		link = (VkLayerInstanceCreateInfo *)link->pNext;
	if (!link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	create = (PFN_vkCreateInstance)next_gipa(VK_NULL_HANDLE, "vkCreateInstance");
	if (!create)
		return VK_ERROR_INITIALIZATION_FAILED;
	res = create(ci, alloc, ret);
	if (res == VK_SUCCESS)
		the_instance = *ret;
	return res;
}

static VKAPI_ATTR VkResult VKAPI_CALL slow_CreateDevice(VkPhysicalDevice phys,
							  const VkDeviceCreateInfo *ci,
							  const VkAllocationCallbacks *alloc,
							  VkDevice *ret)
{
	VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)ci->pNext;
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkCreateDevice create;

	while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
			 link->function == VK_LAYER_LINK_INFO))
		link = (VkLayerDeviceCreateInfo *)link->pNext;
	if (!link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	create = (PFN_vkCreateDevice)gipa(the_instance, "vkCreateDevice");
	if (!create)
		return VK_ERROR_INITIALIZATION_FAILED;
	VkResult res = create(phys, ci, alloc, ret);
	if (res == VK_SUCCESS) {
		next_create_pipelines = (PFN_vkCreateGraphicsPipelines)next_gdpa(
			*ret, "vkCreateGraphicsPipelines");
		next_present = (PFN_vkQueuePresentKHR)next_gdpa(*ret, "vkQueuePresentKHR");
	}
	return res;
}

/* SS_SLOWPIPE_STALE's present number, 0 when unset */
static unsigned stale_at(void)
{
	const char *env = getenv("SS_SLOWPIPE_STALE");

	return env ? (unsigned)atoi(env) : 0;
}

static VKAPI_ATTR VkResult VKAPI_CALL slow_QueuePresentKHR(VkQueue queue,
							     const VkPresentInfoKHR *info)
{
	VkResult res = next_present ? next_present(queue, info) : VK_ERROR_DEVICE_LOST;

	if (++presents == stale_at() && res == VK_SUCCESS)
		return VK_ERROR_OUT_OF_DATE_KHR;
	return res;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static VKAPI_ATTR VkResult VKAPI_CALL slow_CreateGraphicsPipelines(
	VkDevice device, VkPipelineCache cache, uint32_t n,
	const VkGraphicsPipelineCreateInfo *ci, const VkAllocationCallbacks *alloc, VkPipeline *ret)
{
	const char *env = getenv("SS_SLOWPIPE_MS");
	const char *down = getenv("SS_SLOWPIPE_DOWN");
	uint64_t end = now_ns() + (uint64_t)(env ? atoi(env) : 300) * 1000000ull;
	volatile unsigned long x = 0;

	if (presents >= stale_at())
		while (now_ns() < end)
			x++;
	if (down && *down == '1')
		return next_create_pipelines ? next_create_pipelines(device, cache, n, ci, alloc, ret)
					     : VK_ERROR_INITIALIZATION_FAILED;
	for (uint32_t i = 0; i < n; i++)
		ret[i] = VK_NULL_HANDLE;
	return VK_SUCCESS;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL slow_GetDeviceProcAddr(VkDevice device,
									 const char *name)
{
	if (!strcmp(name, "vkGetDeviceProcAddr"))
		return (PFN_vkVoidFunction)slow_GetDeviceProcAddr;
	if (!strcmp(name, "vkCreateGraphicsPipelines"))
		return (PFN_vkVoidFunction)slow_CreateGraphicsPipelines;
	if (!strcmp(name, "vkQueuePresentKHR") && stale_at())
		return (PFN_vkVoidFunction)slow_QueuePresentKHR;
	return next_gdpa ? next_gdpa(device, name) : NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL slow_GetInstanceProcAddr(VkInstance instance,
									   const char *name)
{
	if (!strcmp(name, "vkGetInstanceProcAddr"))
		return (PFN_vkVoidFunction)slow_GetInstanceProcAddr;
	if (!strcmp(name, "vkCreateInstance"))
		return (PFN_vkVoidFunction)slow_CreateInstance;
	if (!strcmp(name, "vkCreateDevice"))
		return (PFN_vkVoidFunction)slow_CreateDevice;
	if (!strcmp(name, "vkGetDeviceProcAddr"))
		return (PFN_vkVoidFunction)slow_GetDeviceProcAddr;
	if (!strcmp(name, "vkCreateGraphicsPipelines"))
		return (PFN_vkVoidFunction)slow_CreateGraphicsPipelines;
	return next_gipa ? next_gipa(instance, name) : NULL;
}

VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *p)
{
	if (!p || p->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT ||
	    p->loaderLayerInterfaceVersion < 2)
		return VK_ERROR_INITIALIZATION_FAILED;
	p->loaderLayerInterfaceVersion = 2;
	p->pfnGetInstanceProcAddr = slow_GetInstanceProcAddr;
	p->pfnGetDeviceProcAddr = slow_GetDeviceProcAddr;
	p->pfnGetPhysicalDeviceProcAddr = NULL;
	return VK_SUCCESS;
}
