// SPDX-License-Identifier: MIT
/*
 * ss-vulkan: presents exactly N frames with Vulkan on a Win32 surface: the
 * loader (vulkan-1.dll) opened at run time, an instance with
 * VK_KHR_win32_surface, the first device with a queue that draws and
 * presents, a swap chain in IMMEDIATE mode (MAILBOX, then FIFO, where the
 * driver has no IMMEDIATE), then a frame: acquire, one command buffer that
 * clears the image and hands it to the presentation engine, submit,
 * vkQueuePresentKHR, wait for the queue. Under Wine, winevulkan passes the
 * calls to the host's loader, where our layer stamps the present
 * (tests/e2e/wine.sh). Skips (77) without a loader, an instance, a device
 * or a surface here.
 *
 *   ss-vulkan.exe [N]
 *
 * Built against the host's Vulkan headers (VK_NO_PROTOTYPES: every
 * function comes from vkGetInstanceProcAddr / vkGetDeviceProcAddr).
 */
#include "common.h"
#define VK_NO_PROTOTYPES
#define VK_USE_PLATFORM_WIN32_KHR
#include <vulkan/vulkan.h>

#define MAX_IMAGES 8

static PFN_vkGetInstanceProcAddr gipa;
static VkInstance inst;

/* ifn(name): an instance function; 1 when this Vulkan has none */
static PFN_vkVoidFunction ifn(const char *name)
{
	PFN_vkVoidFunction f = gipa(inst, name);

	if (!f) {
		printf("error: no %s\n", name);
		fflush(stdout);
		ExitProcess(1);
	}
	return f;
}

#define IFN(name) PFN_##name name = (PFN_##name)ifn(#name)
#define CHECK(call)                                                                                \
	do {                                                                                       \
		VkResult r_ = (call);                                                              \
		if (r_ != VK_SUCCESS)                                                              \
			die(#call, (long)r_);                                                      \
	} while (0)

int main(int argc, char **argv)
{
	int n = frames_arg(argc, argv), i;
	const char *inst_ext[] = {VK_KHR_SURFACE_EXTENSION_NAME,
				  VK_KHR_WIN32_SURFACE_EXTENSION_NAME};
	const char *dev_ext[] = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
	VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
	VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
	VkWin32SurfaceCreateInfoKHR sci = {.sType =
					       VK_STRUCTURE_TYPE_WIN32_SURFACE_CREATE_INFO_KHR};
	VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
	VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
	VkSwapchainCreateInfoKHR swci = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
	VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
	VkCommandBufferAllocateInfo cbai = {.sType =
						VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
	VkSemaphoreCreateInfo semi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
	VkPresentModeKHR modes[16], mode = VK_PRESENT_MODE_FIFO_KHR;
	VkImage images[MAX_IMAGES];
	VkCommandBuffer cmd[MAX_IMAGES];
	VkPhysicalDevice phys[8], pd = VK_NULL_HANDLE;
	VkSurfaceFormatKHR formats[32];
	VkSurfaceCapabilitiesKHR caps;
	VkSemaphore acquired, drawn;
	uint32_t count, qf = 0, nimg, j, k;
	float prio = 1.0f;
	VkSwapchainKHR chain;
	VkSurfaceKHR surface;
	VkCommandPool pool;
	HMODULE loader;
	VkDevice dev;
	VkQueue queue;
	HWND hwnd;

	loader = LoadLibraryA("vulkan-1.dll");
	if (!loader)
		skip("no vulkan-1.dll: this Wine has no Vulkan loader");
	gipa = (PFN_vkGetInstanceProcAddr)(void (*)(void))GetProcAddress(loader,
									 "vkGetInstanceProcAddr");
	if (!gipa)
		skip("vulkan-1.dll has no vkGetInstanceProcAddr");
	hwnd = make_window("ss-vulkan", WS_OVERLAPPEDWINDOW);

	app.pApplicationName = "ss-vulkan";
	app.apiVersion = VK_API_VERSION_1_0;
	ici.pApplicationInfo = &app;
	ici.enabledExtensionCount = 2;
	ici.ppEnabledExtensionNames = inst_ext;
	{
		IFN(vkCreateInstance);
		if (vkCreateInstance(&ici, NULL, &inst) != VK_SUCCESS)
			skip("vkCreateInstance with VK_KHR_win32_surface failed: no Vulkan driver "
			     "here");
	}
	IFN(vkEnumeratePhysicalDevices);
	IFN(vkGetPhysicalDeviceQueueFamilyProperties);
	IFN(vkGetPhysicalDeviceSurfaceSupportKHR);
	IFN(vkGetPhysicalDeviceSurfaceCapabilitiesKHR);
	IFN(vkGetPhysicalDeviceSurfaceFormatsKHR);
	IFN(vkGetPhysicalDeviceSurfacePresentModesKHR);
	IFN(vkCreateWin32SurfaceKHR);
	IFN(vkCreateDevice);
	IFN(vkGetDeviceProcAddr);

	sci.hinstance = GetModuleHandleA(NULL);
	sci.hwnd = hwnd;
	if (vkCreateWin32SurfaceKHR(inst, &sci, NULL, &surface) != VK_SUCCESS)
		skip("vkCreateWin32SurfaceKHR failed: no surface for a window here");
	count = 8;
	vkEnumeratePhysicalDevices(inst, &count, phys);
	for (j = 0; j < count && pd == VK_NULL_HANDLE; j++) {
		VkQueueFamilyProperties qfp[16];
		uint32_t nq = 16;

		vkGetPhysicalDeviceQueueFamilyProperties(phys[j], &nq, qfp);
		for (k = 0; k < nq; k++) {
			VkBool32 ok = VK_FALSE;

			vkGetPhysicalDeviceSurfaceSupportKHR(phys[j], k, surface, &ok);
			if (ok && (qfp[k].queueFlags & VK_QUEUE_GRAPHICS_BIT)) {
				pd = phys[j];
				qf = k;
				break;
			}
		}
	}
	if (pd == VK_NULL_HANDLE)
		skip("no Vulkan device with a queue that draws and presents to the window");

	qci.queueFamilyIndex = qf;
	qci.queueCount = 1;
	qci.pQueuePriorities = &prio;
	dci.queueCreateInfoCount = 1;
	dci.pQueueCreateInfos = &qci;
	dci.enabledExtensionCount = 1;
	dci.ppEnabledExtensionNames = dev_ext;
	CHECK(vkCreateDevice(pd, &dci, NULL, &dev));
#define DFN(name) PFN_##name name = (PFN_##name)vkGetDeviceProcAddr(dev, #name)
	DFN(vkGetDeviceQueue);
	DFN(vkCreateSwapchainKHR);
	DFN(vkGetSwapchainImagesKHR);
	DFN(vkAcquireNextImageKHR);
	DFN(vkQueuePresentKHR);
	DFN(vkQueueSubmit);
	DFN(vkQueueWaitIdle);
	DFN(vkDeviceWaitIdle);
	DFN(vkCreateCommandPool);
	DFN(vkAllocateCommandBuffers);
	DFN(vkBeginCommandBuffer);
	DFN(vkEndCommandBuffer);
	DFN(vkCmdPipelineBarrier);
	DFN(vkCmdClearColorImage);
	DFN(vkCreateSemaphore);
	vkGetDeviceQueue(dev, qf, 0, &queue);

	CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(pd, surface, &caps));
	count = 32;
	vkGetPhysicalDeviceSurfaceFormatsKHR(pd, surface, &count, formats);
	if (!count)
		skip("the surface has no format");
	count = 16;
	vkGetPhysicalDeviceSurfacePresentModesKHR(pd, surface, &count, modes);
	for (j = 0; j < count; j++)
		if (modes[j] == VK_PRESENT_MODE_IMMEDIATE_KHR ||
		    (modes[j] == VK_PRESENT_MODE_MAILBOX_KHR && mode == VK_PRESENT_MODE_FIFO_KHR))
			mode = modes[j];
	swci.surface = surface;
	swci.minImageCount = caps.minImageCount < 2 ? 2 : caps.minImageCount;
	if (caps.maxImageCount && swci.minImageCount > caps.maxImageCount)
		swci.minImageCount = caps.maxImageCount;
	swci.imageFormat = formats[0].format;
	swci.imageColorSpace = formats[0].colorSpace;
	swci.imageExtent = caps.currentExtent;
	if (swci.imageExtent.width == 0xffffffffu) {
		swci.imageExtent.width = WIN_W;
		swci.imageExtent.height = WIN_H;
	}
	swci.imageArrayLayers = 1;
	swci.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	swci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
	swci.preTransform = caps.currentTransform;
	swci.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
	swci.presentMode = mode;
	swci.clipped = VK_TRUE;
	CHECK(vkCreateSwapchainKHR(dev, &swci, NULL, &chain));
	nimg = MAX_IMAGES;
	CHECK(vkGetSwapchainImagesKHR(dev, chain, &nimg, images));

	/* one command buffer an image, recorded once: clear it, hand it over */
	pci.queueFamilyIndex = qf;
	CHECK(vkCreateCommandPool(dev, &pci, NULL, &pool));
	cbai.commandPool = pool;
	cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
	cbai.commandBufferCount = nimg;
	CHECK(vkAllocateCommandBuffers(dev, &cbai, cmd));
	for (j = 0; j < nimg; j++) {
		VkCommandBufferBeginInfo bi = {.sType =
						   VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
		VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
		VkImageMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
		VkClearColorValue color = {{(float)(j % 2), 0.2f, 0.4f, 1.0f}};

		b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
		b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
		b.image = images[j];
		b.subresourceRange = range;
		CHECK(vkBeginCommandBuffer(cmd[j], &bi));
		b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
		b.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
		b.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
		vkCmdPipelineBarrier(cmd[j], VK_PIPELINE_STAGE_TRANSFER_BIT,
				     VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0, NULL, 1, &b);
		vkCmdClearColorImage(cmd[j], images[j], VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
				     &color, 1, &range);
		b.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
		b.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
		b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
		b.dstAccessMask = 0;
		vkCmdPipelineBarrier(cmd[j], VK_PIPELINE_STAGE_TRANSFER_BIT,
				     VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, NULL, 0, NULL, 1,
				     &b);
		CHECK(vkEndCommandBuffer(cmd[j]));
	}
	CHECK(vkCreateSemaphore(dev, &semi, NULL, &acquired));
	CHECK(vkCreateSemaphore(dev, &semi, NULL, &drawn));

	for (i = 0; i < n; i++) {
		VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
		VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
		VkPresentInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
		uint32_t img;
		VkResult r;

		r = vkAcquireNextImageKHR(dev, chain, UINT64_MAX, acquired, VK_NULL_HANDLE, &img);
		if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR)
			die("vkAcquireNextImageKHR", (long)r);
		si.waitSemaphoreCount = 1;
		si.pWaitSemaphores = &acquired;
		si.pWaitDstStageMask = &stage;
		si.commandBufferCount = 1;
		si.pCommandBuffers = &cmd[img];
		si.signalSemaphoreCount = 1;
		si.pSignalSemaphores = &drawn;
		CHECK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE));
		pi.waitSemaphoreCount = 1;
		pi.pWaitSemaphores = &drawn;
		pi.swapchainCount = 1;
		pi.pSwapchains = &chain;
		pi.pImageIndices = &img;
		r = vkQueuePresentKHR(queue, &pi);
		if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR)
			die("vkQueuePresentKHR", (long)r);
		/* the semaphores and command buffers are reused next frame */
		CHECK(vkQueueWaitIdle(queue));
		pump();
	}
	vkDeviceWaitIdle(dev);
	/* the process ends here; the driver frees what is left */
	DestroyWindow(hwnd);
	return done(n);
}
