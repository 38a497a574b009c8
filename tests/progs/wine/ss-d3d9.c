// SPDX-License-Identifier: MIT
/*
 * ss-d3d9: presents exactly N frames with Direct3D 9: a windowed device
 * with D3DPRESENT_INTERVAL_IMMEDIATE, then Clear and Present a frame. Under
 * Wine, wined3d draws with OpenGL (or Vulkan with WINE_D3D_CONFIG=
 * renderer=vulkan) and presents from its command-stream thread
 * (tests/e2e/wine.sh).
 *
 *   ss-d3d9.exe [N]
 */
#define COBJMACROS
#include "common.h"
#include <d3d9.h>

int main(int argc, char **argv)
{
	int n = frames_arg(argc, argv), i;
	D3DPRESENT_PARAMETERS pp = {0};
	IDirect3DDevice9 *dev;
	IDirect3D9 *d3d;
	HRESULT hr;
	HWND hwnd;

	hwnd = make_window("ss-d3d9", WS_OVERLAPPEDWINDOW);
	d3d = Direct3DCreate9(D3D_SDK_VERSION);
	if (!d3d)
		skip("Direct3DCreate9 failed: no Direct3D 9 here");
	pp.Windowed = TRUE;
	pp.SwapEffect = D3DSWAPEFFECT_DISCARD;
	pp.BackBufferFormat = D3DFMT_UNKNOWN;
	pp.BackBufferWidth = WIN_W;
	pp.BackBufferHeight = WIN_H;
	pp.BackBufferCount = 1;
	pp.hDeviceWindow = hwnd;
	pp.PresentationInterval = D3DPRESENT_INTERVAL_IMMEDIATE;
	hr = IDirect3D9_CreateDevice(d3d, D3DADAPTER_DEFAULT, D3DDEVTYPE_HAL, hwnd,
				     D3DCREATE_SOFTWARE_VERTEXPROCESSING, &pp, &dev);
	if (FAILED(hr))
		skip("IDirect3D9::CreateDevice failed: no Direct3D 9 device here");
	for (i = 0; i < n; i++) {
		hr = IDirect3DDevice9_Clear(dev, 0, NULL, D3DCLEAR_TARGET,
					    D3DCOLOR_XRGB(255 * (i % 2), 50, 100), 1.0f, 0);
		if (FAILED(hr))
			die("IDirect3DDevice9::Clear", hr);
		hr = IDirect3DDevice9_Present(dev, NULL, NULL, NULL, NULL);
		if (FAILED(hr))
			die("IDirect3DDevice9::Present", hr);
		pump();
	}
	IDirect3DDevice9_Release(dev);
	IDirect3D9_Release(d3d);
	DestroyWindow(hwnd);
	return done(n);
}
