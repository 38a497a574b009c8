/* SPDX-License-Identifier: MIT */
/*
 * apicall.h: the graphics API calls the frame hook times (enum ss_api_call
 * in stallscope-ring.h): their names, and what kind of wait each is, for
 * the stalls that overlap one (docs/CAUSES.md, "API calls").
 */
#ifndef SS_CORE_APICALL_H
#define SS_CORE_APICALL_H

#include <stdint.h>

enum api_kind {
	API_KIND_OTHER,		/* may block on anything (glReadPixels, vkQueueSubmit) */
	API_KIND_COMPILE,	/* compiles or links shaders or pipelines on the CPU */
	API_KIND_FENCE,		/* waits for the GPU to finish */
};

/* The name of ring call number CALL ("glLinkProgram"), NULL for another. */
const char *api_call_name(uint32_t call);
/* The kind of the call named NAME (any name: OTHER when unknown). */
enum api_kind api_call_kind(const char *name);

#endif
