// SPDX-License-Identifier: MIT
/*
 * ss-vkwait: a headless Vulkan program with a planted fence wait, for the
 * layer's API spans (tests/e2e/shim-apispans.sh). On the first physical
 * device (the test picks lavapipe), it marks 60 fps frames with
 * stallscope_frame() and, between two, waits WAIT_MS for a fence nothing
 * will signal (vkWaitForFences returns VK_TIMEOUT), then calls
 * vkQueueWaitIdle on an idle queue (well under a millisecond: no span).
 * With "pipe", it enables the test layer VK_LAYER_SS_slowpipe (vkslow.c,
 * found through VK_ADD_LAYER_PATH; enabled by the program, so below the
 * layers of VK_INSTANCE_LAYERS) and, between two more frames, calls
 * vkCreateGraphicsPipelines, which that layer makes a 300 ms busy compile.
 *
 *   ss-vkwait [WAIT_MS [pipe]]   (default 300)
 *
 * Prints "wait result R" (2: VK_TIMEOUT). Exits 1 when Vulkan gives no
 * device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#include "stallscope.h"

static void frames(int n)
{
	struct timespec ts = { 0, 16 * 1000 * 1000 };

	for (int i = 0; i < n; i++) {
		nanosleep(&ts, NULL);
		stallscope_frame();
	}
}

int main(int argc, char **argv)
{
	unsigned int wait_ms = argc > 1 ? (unsigned int)atoi(argv[1]) : 300;
	int pipe = argc > 2 && !strcmp(argv[2], "pipe");
	const char *slow = "VK_LAYER_SS_slowpipe";
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
				  .pApplicationName = "ss-vkwait",
				  .apiVersion = VK_API_VERSION_1_0 };
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
				     .pApplicationInfo = &app,
				     .enabledLayerCount = pipe ? 1 : 0,
				     .ppEnabledLayerNames = &slow };
	VkGraphicsPipelineCreateInfo gci = {
		.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO
	};
	VkPipeline pipeline = VK_NULL_HANDLE;
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
					.queueFamilyIndex = 0,
					.queueCount = 1,
					.pQueuePriorities = &prio };
	VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
				   .queueCreateInfoCount = 1,
				   .pQueueCreateInfos = &qci };
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkInstance inst;
	VkPhysicalDevice phys;
	uint32_t n = 1;
	VkDevice dev;
	VkQueue queue;
	VkFence fence;
	VkResult r;

	if (vkCreateInstance(&ici, NULL, &inst) != VK_SUCCESS) {
		fprintf(stderr, "ss-vkwait: no Vulkan instance\n");
		return 1;
	}
	r = vkEnumeratePhysicalDevices(inst, &n, &phys);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || !n ||
	    vkCreateDevice(phys, &dci, NULL, &dev) != VK_SUCCESS) {
		fprintf(stderr, "ss-vkwait: no Vulkan device\n");
		return 1;
	}
	vkGetDeviceQueue(dev, 0, 0, &queue);
	if (vkCreateFence(dev, &fci, NULL, &fence) != VK_SUCCESS)
		return 1;
	frames(40);
	r = vkWaitForFences(dev, 1, &fence, VK_TRUE, wait_ms * 1000000ull);
	frames(30);
	vkQueueWaitIdle(queue);
	frames(30);
	if (pipe) {
		VkResult pr = vkCreateGraphicsPipelines(dev, VK_NULL_HANDLE, 1, &gci, NULL,
							&pipeline);

		printf("pipeline result %d\n", (int)pr);
		frames(30);
	}
	printf("wait result %d\n", (int)r);
	vkDestroyFence(dev, fence, NULL);
	vkDestroyDevice(dev, NULL);
	vkDestroyInstance(inst, NULL);
	return 0;
}
