/* SPDX-License-Identifier: MIT */
/*
 * hot.h: SS_HOT marks the functions of the recorder's every-sample path
 * (the loop, the sampler's sample, the exact slot reads, the writer's
 * sample, the latency histogram). GCC and Clang put them together in
 * .text.hot, a few pages instead of ones spread over the whole binary: a
 * sample runs after a 10 ms sleep with the caches and TLBs cold, and on the
 * development VM each code page the path touches costs it more than its
 * work (issue 31: docs/FORMAT.md, "What it costs"). Pure: no I/O.
 */
#ifndef SS_CORE_HOT_H
#define SS_CORE_HOT_H

#if defined(__GNUC__)
#define SS_HOT __attribute__((hot))
#else
#define SS_HOT
#endif

#endif
