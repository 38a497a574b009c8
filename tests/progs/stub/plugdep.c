// SPDX-License-Identifier: MIT
/* plugdep.c: libss-plugdep.so, the plugin's dependency (plugin.c). */
__attribute__((visibility("default"))) int plugdep_value(void);

int plugdep_value(void)
{
	return 42;
}
