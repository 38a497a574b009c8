// SPDX-License-Identifier: MIT
/*
 * apicall.c: the names and kinds of the API calls the frame hook times.
 */
#include <stddef.h>
#include <string.h>

#include "core/apicall.h"
#include "stallscope-ring.h"

static const struct {
	const char *name;
	enum api_kind kind;
} calls[SS_API_N] = {
	[SS_API_GL_COMPILE_SHADER] = { "glCompileShader", API_KIND_COMPILE },
	[SS_API_GL_LINK_PROGRAM] = { "glLinkProgram", API_KIND_COMPILE },
	/* drivers that defer a compile (Mesa's threaded compiles, radeonsi's
	 * shader cache) finish it where the program asks for its status */
	[SS_API_GL_GET_PROGRAMIV] = { "glGetProgramiv", API_KIND_COMPILE },
	[SS_API_GL_GET_SHADERIV] = { "glGetShaderiv", API_KIND_COMPILE },
	[SS_API_GL_PROGRAM_BINARY] = { "glProgramBinary", API_KIND_COMPILE },
	[SS_API_GL_FINISH] = { "glFinish", API_KIND_FENCE },
	[SS_API_GL_READ_PIXELS] = { "glReadPixels", API_KIND_OTHER },
	[SS_API_GL_CLIENT_WAIT_SYNC] = { "glClientWaitSync", API_KIND_FENCE },
	[SS_API_VK_CREATE_GRAPHICS_PIPELINES] = { "vkCreateGraphicsPipelines", API_KIND_COMPILE },
	[SS_API_VK_CREATE_COMPUTE_PIPELINES] = { "vkCreateComputePipelines", API_KIND_COMPILE },
	[SS_API_VK_CREATE_SHADER_MODULE] = { "vkCreateShaderModule", API_KIND_COMPILE },
	[SS_API_VK_WAIT_FOR_FENCES] = { "vkWaitForFences", API_KIND_FENCE },
	[SS_API_VK_QUEUE_WAIT_IDLE] = { "vkQueueWaitIdle", API_KIND_FENCE },
	[SS_API_VK_DEVICE_WAIT_IDLE] = { "vkDeviceWaitIdle", API_KIND_FENCE },
	[SS_API_VK_ACQUIRE_NEXT_IMAGE] = { "vkAcquireNextImageKHR", API_KIND_OTHER },
	[SS_API_VK_QUEUE_SUBMIT] = { "vkQueueSubmit", API_KIND_OTHER },
};

const char *api_call_name(uint32_t call)
{
	return call < SS_API_N ? calls[call].name : NULL;
}

enum api_kind api_call_kind(const char *name)
{
	for (size_t i = 1; name && i < SS_API_N; i++)
		if (calls[i].name && !strcmp(calls[i].name, name))
			return calls[i].kind;
	return API_KIND_OTHER;
}
