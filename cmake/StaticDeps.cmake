# Every run of the program loads SQLite, RE2, cmark-gfm, gumbo, xxhash and
# libstdc++. As shared libraries they cost a start ~5 ms on this project's
# machines: the loader maps each, resolves its symbols and writes its
# relocated pointer tables page by page, and a first write to a page is
# expensive under a hypervisor (README, "What a process costs to start").
# With UMWELT_STATIC_DEPS (the default) they are linked from their static
# archives; a library with no archive beside it stays shared. The libraries
# loaded on use (libcurl, libgit2, libmicrohttpd, the modules) are not
# affected: they are C interfaces opened with dlopen (umwelt/dynlib.h).

# umwelt_prefer_static(TARGET): TARGET, a pkg-config imported target, links
# lib<name>.a in place of each lib<name>.so that has one beside it.
function(umwelt_prefer_static target)
  if(NOT UMWELT_STATIC_DEPS)
    return()
  endif()
  get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
  set(out)
  foreach(lib IN LISTS libs)
    if(lib MATCHES "^(.*)\\.so$")
      # Its own if: ${CMAKE_MATCH_1} in the same condition would be expanded
      # before the match runs.
      if(EXISTS "${CMAKE_MATCH_1}.a")
        set(lib "${CMAKE_MATCH_1}.a")
      endif()
    endif()
    list(APPEND out "${lib}")
  endforeach()
  set_property(TARGET ${target} PROPERTY INTERFACE_LINK_LIBRARIES "${out}")
endfunction()

# umwelt_static_runtime(TARGET): the executable TARGET carries its own copy of
# libstdc++ and libgcc. Only for the program: the modules it loads keep the
# shared libstdc++ behind their C interfaces, and the tests link C++ libraries
# (cpp-httplib) whose objects must share one runtime with them. Sanitized
# builds keep the shared runtime the sanitizers expect.
if(UMWELT_STATIC_DEPS AND NOT UMWELT_SANITIZE AND NOT UMWELT_BUILD_FUZZ)
  set(UMWELT_STATIC_RUNTIME ON)
else()
  set(UMWELT_STATIC_RUNTIME OFF)
endif()
function(umwelt_static_runtime target)
  if(UMWELT_STATIC_RUNTIME)
    target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
  endif()
endfunction()
