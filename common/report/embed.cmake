# cmake -DIN=<file> -DOUT=<file.c> -P embed.cmake: writes OUT, a C file defining
# `const char rpt_chart_gp[]` with IN's bytes and a final NUL (the chart template built into
# rwfperf-report).
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n    " bytes "${bytes}")
file(WRITE ${OUT} "/* Made from chart.gp at build time by embed.cmake: do not edit. */\n"
    "extern const char rpt_chart_gp[];\n"
    "const char rpt_chart_gp[] = {\n    ${bytes}0x00};\n")
