#!/usr/bin/env python3
"""Says how many tests a ctest run skipped and why, from its JUnit report (ctest --output-junit).

    scripts/skips.py <junit.xml>

A test program skips as a whole (exit status 77: ctest lists it as "not run") or skips some of
its cases (a CMocka case that calls skip(): the program passes). Either way the program prints
"SKIP: <why>" for each; this counts both, groups them by reason, and prints the counts of the
cases that ran. Exit status 0 (it only reports)."""
import re
import sys
import xml.etree.ElementTree as ET


def reason_of(line):
    """The reason of a SKIP line without the run's own paths and numbers, to group by."""
    why = line[len("SKIP: "):].strip()
    why = re.sub(r"/\S*/(shared|vectors|data)/", r"\1/", why)
    return why


def main(path):
    root = ET.parse(path).getroot()
    cases = root.iter("testcase")
    programs = ran = skipped_programs = skipped_cases = cmocka_passed = 0
    reasons = {}
    for tc in cases:
        programs += 1
        out = tc.findtext("system-out") or ""
        whole = tc.get("status") == "notrun" and tc.find("skipped") is not None
        skips = [l for l in out.splitlines() if l.startswith("SKIP: ")]
        for m in re.finditer(r"\[  PASSED  \] (\d+) test", out):
            cmocka_passed += int(m.group(1))
        if whole:
            skipped_programs += 1
            why = reason_of(skips[0]) if skips else "exit status 77 (no reason printed)"
            reasons.setdefault(why, []).append(tc.get("name") + " (whole)")
            continue
        ran += 1
        for s in skips:
            skipped_cases += 1
            reasons.setdefault(reason_of(s), []).append(tc.get("name"))
    print(f"tests: {programs} programs, {ran} ran ({cmocka_passed} CMocka cases passed), "
          f"{skipped_programs} skipped whole, {skipped_cases} cases skipped inside programs")
    for why, names in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
        shown = ", ".join(sorted(set(names))[:6])
        more = len(set(names)) - 6
        print(f"  skipped {len(names):3d} x  {why}")
        print(f"                {shown}{f' (+{more} more)' if more > 0 else ''}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
