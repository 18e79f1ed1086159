#!/bin/sh
# Prints an item list of N MarketPrice items named RDT1 ... RDTN, in the layout of the ETA
# tools' sample list: RDT1 enabled for posts and generic messages, RDT2 to RDT7 for posts,
# the rest plain. The generic flag is written as `generic`, the attribute the ETA C tools
# read (ours accept `genMsg` as well).
#
#   data/gen_items.sh N > items.xml        e.g. data/gen_items.sh 350000 > 350k.xml
#
# Exit status 2 when N is not a whole number from 1 to 100,000,000.
set -eu
usage() { echo "usage: $0 N   (N items, 1 to 100000000)" >&2; exit 2; }
[ $# -eq 1 ] || usage
case "$1" in
''|*[!0-9]*) usage ;;
esac
[ "${#1}" -le 9 ] && [ "$1" -ge 1 ] && [ "$1" -le 100000000 ] || usage

awk -v n="$1" 'BEGIN {
    print "<itemList>"
    for (i = 1; i <= n; i++) {
        if (i == 1)
            print "    <item domain=\"MarketPrice\" name=\"RDT1\" post=\"true\" generic=\"true\"/>"
        else if (i <= 7)
            print "    <item domain=\"MarketPrice\" name=\"RDT" i "\" post=\"true\"/>"
        else
            print "    <item domain=\"MarketPrice\" name=\"RDT" i "\"/>"
    }
    print "</itemList>"
}'
