#!/usr/bin/env bash
# The data folder of the build tree: ProvPerf and ConsPerf of the build, each started from an
# empty folder, find the dictionary, enum table, MsgData.xml and the default item list 350k.xml
# in <build>/share/rwfperf and run against each other; -? names that folder. Without a data
# folder (or with an input file that is nowhere) each tool exits 2 and its error names every
# place it looked in.
set -u
. "$(dirname "$0")/cli.sh"
cli_begin data-folder
data=$(realpath "$bin/../share/rwfperf")

for f in RDMFieldDictionary enumtype.def MsgData.xml 350k.xml gen_items.sh; do
    [ -f "$data/$f" ] && ok "data folder holds $f" || bad "no $f in $data"
done

# The pair from empty folders.
mkdir p c
cd p
start_tool prov.out ProvPerf -p 0 -runTime 30
prov=$last_pid
port=$(prov_port prov.out)
cd ../c
if [ -z "$port" ]; then
    bad "ProvPerf from an empty folder did not start"
    show ../p/prov.out
else
    run_tool cons.out ConsPerf -p "$port" -itemCount 1000 -steadyStateTime 3
    if [ "$rc" = 0 ] && has ConsSummary.out "  Refreshes received: 1000" &&
        ! has cons.out "Unable to load"; then
        ok "ConsPerf and ProvPerf from empty folders: every image, status 0"
    else
        bad "ConsPerf from an empty folder: status $rc"
        show cons.out
    fi
fi
kill -INT "$prov" 2>/dev/null
wait "$prov" 2>/dev/null
cd ..

# -? names the folder, and where it came from.
run_tool usage.out ConsPerf -?
if [ "$rc" = 0 ] && grep -qx "  $data" usage.out &&
    has usage.out "(\$RWFPERF_DATA_DIR, else <bin>/../share/rwfperf):"; then
    ok "-? names the data folder"
else
    bad "-? does not name $data"
    show usage.out
fi

# No data folder: every place looked in, exit 2.
export RWFPERF_DATA_DIR=$work/no-such-folder
mkdir empty
cd empty
here=$(pwd -P)
run_tool prov.out ProvPerf -p 0 -runTime 1
want="RDMFieldDictionary not found; looked in $here/RDMFieldDictionary (working folder),"
want="$want $RWFPERF_DATA_DIR/RDMFieldDictionary (data folder named by \$RWFPERF_DATA_DIR, which"
want="$want does not exist)"
if [ "$rc" = 2 ] && has prov.out "Unable to load the dictionary: $want"; then
    ok "ProvPerf without its dictionary: exit 2, both places named"
else
    bad "ProvPerf without its dictionary: status $rc"
    show prov.out
fi
run_tool cons.out ConsPerf -p 1 -itemCount 10
want="Error: Failed to load item list from file '350k.xml': 350k.xml not found; looked in"
want="$want $here/350k.xml (working folder), $RWFPERF_DATA_DIR/350k.xml"
if [ "$rc" = 2 ] && has cons.out "$want"; then
    ok "ConsPerf without its item list: exit 2, both places named"
else
    bad "ConsPerf without its item list: status $rc"
    show cons.out
fi
run_tool niprov.out NIProvPerf -p 1 -itemCount 10 -runTime 1
if [ "$rc" = 2 ] && has niprov.out "not found; looked in $here/" &&
    has niprov.out "(working folder), $RWFPERF_DATA_DIR/"; then
    ok "NIProvPerf without its input files: exit 2, both places named"
else
    bad "NIProvPerf without its input files: status $rc"
    show niprov.out
fi
unset RWFPERF_DATA_DIR

# The data folder is there, the file named is not.
run_tool cons2.out ConsPerf -p 1 -itemFile nosuch.xml
want="nosuch.xml not found; looked in $here/nosuch.xml (working folder), $data/nosuch.xml"
want="$want (data folder)"
if [ "$rc" = 2 ] && has cons2.out "$want"; then
    ok "ConsPerf -itemFile nosuch.xml: exit 2, both places named"
else
    bad "ConsPerf -itemFile nosuch.xml: status $rc"
    show cons2.out
fi
run_tool prov2.out ProvPerf -p 0 -msgFile sub/nosuch.xml -runTime 1
if [ "$rc" = 2 ] && has prov2.out "sub/nosuch.xml not found; looked in $here/sub/nosuch.xml"; then
    ok "ProvPerf -msgFile sub/nosuch.xml: exit 2, the place named"
else
    bad "ProvPerf -msgFile sub/nosuch.xml: status $rc"
    show prov2.out
fi
cli_end
