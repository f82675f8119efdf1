# umwelt_soname(OUT LIBRARY...): OUT is the SONAME of the first shared library
# among LIBRARY (full paths, as pkg-config's *_LINK_LIBRARIES give them), read
# with objdump, so that dlopen loads the version the code was compiled against.
function(umwelt_soname out)
  foreach(lib IN LISTS ARGN)
    if(lib MATCHES "\\.so")
      execute_process(COMMAND objdump -p "${lib}" OUTPUT_VARIABLE dump RESULT_VARIABLE rc ERROR_QUIET)
      if(rc EQUAL 0 AND dump MATCHES "SONAME +([^ \n]+)")
        # Global, so that `umwelt --version` can name what it loads on use.
        set(${out} "${CMAKE_MATCH_1}" CACHE INTERNAL "soname loaded on use")
        return()
      endif()
    endif()
  endforeach()
  message(FATAL_ERROR "umwelt_soname: no SONAME found in ${ARGN}")
endfunction()
