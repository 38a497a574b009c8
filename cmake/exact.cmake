# SPDX-License-Identifier: MIT
#
# Exact mode (src/linux/bpf/exact.bpf.c): compiled with clang to BPF, its
# skeleton generated with bpftool, the loader (src/linux/exact.c) linked
# with libbpf. Built where all three are and the target is x86_64; without
# them stallscope builds as before and `record` says exact mode was not
# built. The object is CO-RE (src/linux/bpf/vmlinux_min.h): the build
# needs no kernel BTF, the load relocates against the running kernel's.

option(STALLSCOPE_EXACT "build exact mode (needs clang, bpftool, libbpf)" ON)
set(SS_EXACT_BUILT OFF)
if(STALLSCOPE_EXACT AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
	find_program(SS_BPF_CLANG NAMES clang clang-16 clang-15 clang-14)
	find_program(SS_BPFTOOL bpftool PATHS /usr/sbin /sbin)
	pkg_check_modules(LIBBPF IMPORTED_TARGET libbpf>=0.8)
	if(SS_BPF_CLANG AND SS_BPFTOOL AND LIBBPF_FOUND)
		set(SS_EXACT_BUILT ON)
	else()
		message(STATUS "exact mode: not built (clang: ${SS_BPF_CLANG}, "
			"bpftool: ${SS_BPFTOOL}, libbpf: ${LIBBPF_FOUND}; scripts/deps.sh build "
			"installs them)")
	endif()
endif()

if(SS_EXACT_BUILT)
	set(bpf_dir ${CMAKE_BINARY_DIR}/bpf)
	set(bpf_src ${CMAKE_SOURCE_DIR}/src/linux/bpf/exact.bpf.c)
	file(MAKE_DIRECTORY ${bpf_dir})
	add_custom_command(OUTPUT ${bpf_dir}/exact.bpf.o
		COMMAND ${SS_BPF_CLANG} -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror
			-I${CMAKE_SOURCE_DIR}/src -I${CMAKE_SOURCE_DIR}/src/linux/bpf
			-c ${bpf_src} -o ${bpf_dir}/exact.bpf.o
		DEPENDS ${bpf_src} ${CMAKE_SOURCE_DIR}/src/linux/bpf/vmlinux_min.h
			${CMAKE_SOURCE_DIR}/src/core/exact_abi.h
		COMMENT "BPF exact.bpf.o")
	add_custom_command(OUTPUT ${bpf_dir}/exact.skel.h
		COMMAND ${SS_BPFTOOL} gen skeleton ${bpf_dir}/exact.bpf.o name exact_bpf
			> ${bpf_dir}/exact.skel.h
		DEPENDS ${bpf_dir}/exact.bpf.o
		COMMENT "BPF skeleton exact.skel.h")
	add_custom_target(ss_bpf DEPENDS ${bpf_dir}/exact.skel.h)
	add_dependencies(ss_linux ss_bpf)
	target_include_directories(ss_linux PRIVATE ${bpf_dir})
	target_compile_definitions(ss_linux PRIVATE SS_HAVE_EXACT)
	target_link_libraries(ss_linux PUBLIC PkgConfig::LIBBPF)
	message(STATUS "exact mode: built (${SS_BPF_CLANG}, ${SS_BPFTOOL}, libbpf ${LIBBPF_VERSION})")
endif()
