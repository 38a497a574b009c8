// SPDX-License-Identifier: MIT
/*
 * ss-d3d12: presents exactly N frames with Direct3D 12 through DXGI: a
 * device, a direct command queue, a flip-model swap chain of two buffers
 * made for that queue, and a frame of one command list (barrier to render
 * target, ClearRenderTargetView, barrier to present), executed, then
 * IDXGISwapChain::Present(0, 0), waiting on a fence before the next frame.
 * Under Wine, d3d12 is vkd3d on the host's Vulkan and DXGI presents with
 * vkQueuePresentKHR through winevulkan (tests/e2e/wine.sh). d3d12.dll is
 * opened at run time: skips (77), saying why, where this Wine has no
 * d3d12.dll, no Direct3D 12 device or no DXGI swap chain for one.
 *
 *   ss-d3d12.exe [N]
 */
#define COBJMACROS
#include "common.h"
/* the interface ids are defined here: no dxguid library */
#include <initguid.h>
#include <d3d12.h>
#include <dxgi1_4.h>

#define BUFFERS 2

static void barrier(ID3D12GraphicsCommandList *list, ID3D12Resource *res,
		    D3D12_RESOURCE_STATES from, D3D12_RESOURCE_STATES to)
{
	D3D12_RESOURCE_BARRIER b = {0};

	b.Type = D3D12_RESOURCE_BARRIER_TYPE_TRANSITION;
	b.Transition.pResource = res;
	b.Transition.Subresource = D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES;
	b.Transition.StateBefore = from;
	b.Transition.StateAfter = to;
	ID3D12GraphicsCommandList_ResourceBarrier(list, 1, &b);
}

int main(int argc, char **argv)
{
	int n = frames_arg(argc, argv), i;
	D3D12_COMMAND_QUEUE_DESC qd = {0};
	D3D12_DESCRIPTOR_HEAP_DESC hd = {0};
	D3D12_CPU_DESCRIPTOR_HANDLE rtv[BUFFERS];
	DXGI_SWAP_CHAIN_DESC1 sd = {0};
	ID3D12Resource *back[BUFFERS];
	ID3D12GraphicsCommandList *list;
	ID3D12CommandAllocator *alloc;
	ID3D12DescriptorHeap *heap;
	ID3D12CommandQueue *queue;
	IDXGISwapChain1 *chain1;
	IDXGISwapChain3 *chain;
	IDXGIFactory2 *factory;
	ID3D12Device *dev;
	ID3D12Fence *fence;
	UINT64 fence_value = 0;
	UINT rtv_step;
	HANDLE event;
	PFN_D3D12_CREATE_DEVICE create_device;
	HMODULE d3d12;
	HRESULT hr;
	HWND hwnd;

	d3d12 = LoadLibraryA("d3d12.dll");
	if (!d3d12)
		skip("no d3d12.dll: this Wine has no Direct3D 12");
	create_device =
	    (PFN_D3D12_CREATE_DEVICE)(void (*)(void))GetProcAddress(d3d12, "D3D12CreateDevice");
	if (!create_device)
		skip("d3d12.dll has no D3D12CreateDevice");
	hwnd = make_window("ss-d3d12", WS_OVERLAPPEDWINDOW);
	hr = create_device(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&dev);
	if (FAILED(hr)) {
		printf("skip: D3D12CreateDevice failed (0x%08lx): no Direct3D 12 device here "
		       "(vkd3d needs a Vulkan device)\n",
		       (unsigned long)hr);
		fflush(stdout);
		ExitProcess(77);
	}
	qd.Type = D3D12_COMMAND_LIST_TYPE_DIRECT;
	hr = ID3D12Device_CreateCommandQueue(dev, &qd, &IID_ID3D12CommandQueue, (void **)&queue);
	if (FAILED(hr))
		die("ID3D12Device::CreateCommandQueue", hr);
	hr = CreateDXGIFactory1(&IID_IDXGIFactory2, (void **)&factory);
	if (FAILED(hr))
		die("CreateDXGIFactory1", hr);
	sd.Width = WIN_W;
	sd.Height = WIN_H;
	sd.Format = DXGI_FORMAT_R8G8B8A8_UNORM;
	sd.SampleDesc.Count = 1;
	sd.BufferUsage = DXGI_USAGE_RENDER_TARGET_OUTPUT;
	sd.BufferCount = BUFFERS;
	sd.SwapEffect = DXGI_SWAP_EFFECT_FLIP_DISCARD;
	hr = IDXGIFactory2_CreateSwapChainForHwnd(factory, (IUnknown *)queue, hwnd, &sd, NULL, NULL,
						  &chain1);
	if (FAILED(hr)) {
		printf("skip: IDXGIFactory2::CreateSwapChainForHwnd on a Direct3D 12 queue "
		       "failed (0x%08lx)\n",
		       (unsigned long)hr);
		fflush(stdout);
		ExitProcess(77);
	}
	hr = IDXGISwapChain1_QueryInterface(chain1, &IID_IDXGISwapChain3, (void **)&chain);
	if (FAILED(hr))
		die("IDXGISwapChain1::QueryInterface(IDXGISwapChain3)", hr);
	hd.Type = D3D12_DESCRIPTOR_HEAP_TYPE_RTV;
	hd.NumDescriptors = BUFFERS;
	hr = ID3D12Device_CreateDescriptorHeap(dev, &hd, &IID_ID3D12DescriptorHeap, (void **)&heap);
	if (FAILED(hr))
		die("ID3D12Device::CreateDescriptorHeap", hr);
	rtv_step =
	    ID3D12Device_GetDescriptorHandleIncrementSize(dev, D3D12_DESCRIPTOR_HEAP_TYPE_RTV);
	/* a method that returns a struct takes a pointer to it in the ABI
	 * (mingw-w64's C macro for it needs WIDL_C_INLINE_WRAPPERS) */
	heap->lpVtbl->GetCPUDescriptorHandleForHeapStart(heap, &rtv[0]);
	for (i = 0; i < BUFFERS; i++) {
		rtv[i].ptr = rtv[0].ptr + (SIZE_T)i * rtv_step;
		hr = IDXGISwapChain3_GetBuffer(chain, (UINT)i, &IID_ID3D12Resource,
					       (void **)&back[i]);
		if (FAILED(hr))
			die("IDXGISwapChain3::GetBuffer", hr);
		ID3D12Device_CreateRenderTargetView(dev, back[i], NULL, rtv[i]);
	}
	hr = ID3D12Device_CreateCommandAllocator(dev, D3D12_COMMAND_LIST_TYPE_DIRECT,
						 &IID_ID3D12CommandAllocator, (void **)&alloc);
	if (FAILED(hr))
		die("ID3D12Device::CreateCommandAllocator", hr);
	hr = ID3D12Device_CreateCommandList(dev, 0, D3D12_COMMAND_LIST_TYPE_DIRECT, alloc, NULL,
					    &IID_ID3D12GraphicsCommandList, (void **)&list);
	if (FAILED(hr))
		die("ID3D12Device::CreateCommandList", hr);
	ID3D12GraphicsCommandList_Close(list);
	hr = ID3D12Device_CreateFence(dev, 0, D3D12_FENCE_FLAG_NONE, &IID_ID3D12Fence,
				      (void **)&fence);
	if (FAILED(hr))
		die("ID3D12Device::CreateFence", hr);
	event = CreateEventA(NULL, FALSE, FALSE, NULL);
	for (i = 0; i < n; i++) {
		const float color[4] = {(float)(i % 2), 0.2f, 0.4f, 1.0f};
		UINT b = IDXGISwapChain3_GetCurrentBackBufferIndex(chain);

		ID3D12CommandAllocator_Reset(alloc);
		ID3D12GraphicsCommandList_Reset(list, alloc, NULL);
		barrier(list, back[b], D3D12_RESOURCE_STATE_PRESENT,
			D3D12_RESOURCE_STATE_RENDER_TARGET);
		ID3D12GraphicsCommandList_ClearRenderTargetView(list, rtv[b], color, 0, NULL);
		barrier(list, back[b], D3D12_RESOURCE_STATE_RENDER_TARGET,
			D3D12_RESOURCE_STATE_PRESENT);
		hr = ID3D12GraphicsCommandList_Close(list);
		if (FAILED(hr))
			die("ID3D12GraphicsCommandList::Close", hr);
		ID3D12CommandQueue_ExecuteCommandLists(queue, 1, (ID3D12CommandList **)&list);
		hr = IDXGISwapChain3_Present(chain, 0, 0);
		if (FAILED(hr))
			die("IDXGISwapChain3::Present", hr);
		/* the next frame reuses the allocator: wait for this one */
		ID3D12CommandQueue_Signal(queue, fence, ++fence_value);
		if (ID3D12Fence_GetCompletedValue(fence) < fence_value) {
			ID3D12Fence_SetEventOnCompletion(fence, fence_value, event);
			WaitForSingleObject(event, INFINITE);
		}
		pump();
	}
	CloseHandle(event);
	ID3D12Fence_Release(fence);
	ID3D12GraphicsCommandList_Release(list);
	ID3D12CommandAllocator_Release(alloc);
	for (i = 0; i < BUFFERS; i++)
		ID3D12Resource_Release(back[i]);
	ID3D12DescriptorHeap_Release(heap);
	IDXGISwapChain3_Release(chain);
	IDXGISwapChain1_Release(chain1);
	IDXGIFactory2_Release(factory);
	ID3D12CommandQueue_Release(queue);
	ID3D12Device_Release(dev);
	DestroyWindow(hwnd);
	return done(n);
}
