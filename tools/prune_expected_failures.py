"""Removes from tests/expected_failures.py the tests a pytest run reported as
XPASS (they pass now). Usage: run pytest with -rX into a log, then
    python tools/prune_expected_failures.py LOG [LOG ...]
"""
import os
import re
import sys

PATH = os.path.join(os.path.dirname(__file__), "..", "tests", "expected_failures.py")


def xpassed(logs):
    keys = set()
    for log in logs:
        for line in open(log, errors="replace"):
            m = re.match(r"XPASS (?:\[\d+\] )?tests/(\S+)", line)
            if m:
                keys.add(m.group(1))
    return keys


def main(logs):
    keys = xpassed(logs)
    lines = open(PATH).read().splitlines(keepends=True)
    out, skip, removed = [], False, []
    for line in lines:
        m = re.match(r"    ['\"](.+)['\"]:\n", line)
        if m:
            skip = m.group(1) in keys
            if skip:
                removed.append(m.group(1))
                continue
        elif skip and line.startswith("        "):
            continue
        else:
            skip = False
        out.append(line)
    open(PATH, "w").write("".join(out))
    print(f"removed {len(removed)} of {len(keys)} XPASS tests:")
    for key in removed:
        print("  " + key)


if __name__ == "__main__":
    main(sys.argv[1:])
