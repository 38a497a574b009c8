// SPDX-License-Identifier: MIT
/*
 * ss-d3d11: presents exactly N frames with Direct3D 11 through DXGI: a
 * device and a windowed swap chain of one buffer (DXGI_SWAP_EFFECT_DISCARD),
 * then ClearRenderTargetView and IDXGISwapChain::Present(0, 0) (no sync
 * interval) a frame. Under Wine, wined3d draws and presents from its
 * command-stream thread (tests/e2e/wine.sh).
 *
 *   ss-d3d11.exe [N]
 */
#define COBJMACROS
#include "common.h"
/* the interface ids are defined here: no dxguid library */
#include <initguid.h>
#include <d3d11.h>

int main(int argc, char **argv)
{
	int n = frames_arg(argc, argv), i;
	DXGI_SWAP_CHAIN_DESC sd = {0};
	ID3D11RenderTargetView *rtv;
	ID3D11DeviceContext *ctx;
	ID3D11Texture2D *back;
	IDXGISwapChain *chain;
	ID3D11Device *dev;
	HRESULT hr;
	HWND hwnd;

	hwnd = make_window("ss-d3d11", WS_OVERLAPPEDWINDOW);
	sd.BufferDesc.Width = WIN_W;
	sd.BufferDesc.Height = WIN_H;
	sd.BufferDesc.Format = DXGI_FORMAT_R8G8B8A8_UNORM;
	sd.SampleDesc.Count = 1;
	sd.BufferUsage = DXGI_USAGE_RENDER_TARGET_OUTPUT;
	sd.BufferCount = 1;
	sd.OutputWindow = hwnd;
	sd.Windowed = TRUE;
	sd.SwapEffect = DXGI_SWAP_EFFECT_DISCARD;
	hr = D3D11CreateDeviceAndSwapChain(NULL, D3D_DRIVER_TYPE_HARDWARE, NULL, 0, NULL, 0,
					   D3D11_SDK_VERSION, &sd, &chain, &dev, NULL, &ctx);
	if (FAILED(hr))
		skip("D3D11CreateDeviceAndSwapChain failed: no Direct3D 11 device here");
	hr = IDXGISwapChain_GetBuffer(chain, 0, &IID_ID3D11Texture2D, (void **)&back);
	if (FAILED(hr))
		die("IDXGISwapChain::GetBuffer", hr);
	hr = ID3D11Device_CreateRenderTargetView(dev, (ID3D11Resource *)back, NULL, &rtv);
	if (FAILED(hr))
		die("ID3D11Device::CreateRenderTargetView", hr);
	for (i = 0; i < n; i++) {
		const float color[4] = {(float)(i % 2), 0.2f, 0.4f, 1.0f};

		ID3D11DeviceContext_OMSetRenderTargets(ctx, 1, &rtv, NULL);
		ID3D11DeviceContext_ClearRenderTargetView(ctx, rtv, color);
		hr = IDXGISwapChain_Present(chain, 0, 0);
		if (FAILED(hr))
			die("IDXGISwapChain::Present", hr);
		pump();
	}
	ID3D11RenderTargetView_Release(rtv);
	ID3D11Texture2D_Release(back);
	ID3D11DeviceContext_Release(ctx);
	IDXGISwapChain_Release(chain);
	ID3D11Device_Release(dev);
	DestroyWindow(hwnd);
	return done(n);
}
