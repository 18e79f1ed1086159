# Writes OUT, a C file defining rwfperf_git_rev() (version.h) with the git revision of the
# source folder SRC, or REV when given (a build outside a git checkout). Run at every build; the
# file is rewritten only when the revision changed, so that nothing else is rebuilt.
#   cmake -DSRC=<source folder> -DOUT=<file> [-DREV=<revision>] -P git_rev.cmake
if(NOT REV)
    execute_process(COMMAND git rev-parse --short=12 HEAD
                    WORKING_DIRECTORY ${SRC}
                    OUTPUT_VARIABLE REV OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE rc ERROR_QUIET)
    if(NOT rc EQUAL 0 OR NOT REV)
        set(REV "unknown")
    endif()
endif()
set(text "/* Generated at build time by common/base/git_rev.cmake: do not edit. */
#include \"version.h\"

const char *rwfperf_git_rev(void)
{
    return \"${REV}\";
}
")
set(old "")
if(EXISTS ${OUT})
    file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
    file(WRITE ${OUT} "${text}")
endif()
