# SPDX-License-Identifier: MIT
#
# The html page's assets, embedded into ss_out (cmake/embed.cmake): the
# vendored uPlot (third_party/uplot, checked here against its SHA256SUMS:
# a changed file is a configure error, scripts/update-uplot.sh makes both),
# the pages' own scripts and style (share/html: page.* the run page,
# history.* the history page) and docs/METRICS.md, whose
# column table gives the page its tooltips.

file(STRINGS ${CMAKE_SOURCE_DIR}/third_party/uplot/SHA256SUMS uplot_sums)
foreach(line ${uplot_sums})
	string(REGEX MATCH "^([0-9a-f]+)  (.+)$" m "${line}")
	file(SHA256 ${CMAKE_SOURCE_DIR}/third_party/uplot/${CMAKE_MATCH_2} got)
	if(NOT got STREQUAL CMAKE_MATCH_1)
		message(FATAL_ERROR "third_party/uplot/${CMAKE_MATCH_2} does not match its "
			"SHA256SUMS (scripts/update-uplot.sh vendors uPlot)")
	endif()
endforeach()

set(html_names ss_html_uplot_js ss_html_uplot_css ss_html_uplot_license ss_html_flame_js
	ss_html_page_js ss_html_page_css ss_html_metrics_md ss_html_history_js ss_html_history_css)
set(html_files ${CMAKE_SOURCE_DIR}/third_party/uplot/uPlot.iife.min.js
	${CMAKE_SOURCE_DIR}/third_party/uplot/uPlot.min.css
	${CMAKE_SOURCE_DIR}/third_party/uplot/LICENSE
	${CMAKE_SOURCE_DIR}/share/html/flame.js
	${CMAKE_SOURCE_DIR}/share/html/page.js
	${CMAKE_SOURCE_DIR}/share/html/page.css
	${CMAKE_SOURCE_DIR}/docs/METRICS.md
	${CMAKE_SOURCE_DIR}/share/html/history.js
	${CMAKE_SOURCE_DIR}/share/html/history.css)
set(html_c ${CMAKE_BINARY_DIR}/gen/html_assets.c)
# a custom command's arguments split at ';': the lists travel with '|'
string(REPLACE ";" "|" html_names_arg "${html_names}")
string(REPLACE ";" "|" html_files_arg "${html_files}")
add_custom_command(OUTPUT ${html_c}
	COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/gen
	COMMAND ${CMAKE_COMMAND} "-DOUT=${html_c}" "-DNAMES=${html_names_arg}" "-DFILES=${html_files_arg}"
		-P ${CMAKE_SOURCE_DIR}/cmake/embed.cmake
	DEPENDS ${html_files} ${CMAKE_SOURCE_DIR}/cmake/embed.cmake
	COMMENT "html assets" VERBATIM)
target_sources(ss_out PRIVATE ${html_c})
