#!/usr/bin/env python3
"""Every test case a Catch2 binary lists is exactly one ctest entry.

catch_discover_tests splits a name at ';' (a CMake list separator), which turns
one test case into entries whose filters match nothing. This check compares,
per binary, the test cases it lists with the ctest entries under its prefix.

usage: check_test_count.py BUILD_DIR BINARY=PREFIX ...
"""
import json
import subprocess
import sys


def main() -> int:
    build, pairs = sys.argv[1], sys.argv[2:]
    if not pairs:
        print("check_test_count: no binaries given", file=sys.stderr)
        return 2
    shown = subprocess.run(["ctest", "--test-dir", build, "-N", "--show-only=json-v1"],
                           check=True, capture_output=True, text=True).stdout
    names = [t["name"] for t in json.loads(shown)["tests"]]
    failed = False
    for pair in pairs:
        binary, prefix = pair.split("=", 1)
        # Catch2 v2 exits with the number of test cases listed, not 0.
        listed = subprocess.run([binary, "--list-test-names-only"], capture_output=True,
                                text=True).stdout.splitlines()
        listed = [n for n in listed if n.strip()]
        prefix = prefix.strip()  # ctest drops the prefix's trailing space
        entries = [n for n in names if n.startswith(prefix)]
        bad = [n for n in listed if ";" in n]
        print(f"{prefix} {len(listed)} test cases, {len(entries)} ctest entries")
        if len(listed) != len(entries) or bad:
            failed = True
            for n in bad:
                print(f"  a name with ';' splits into several ctest entries: {n}", file=sys.stderr)
            if not bad:
                print(f"  {binary}: {len(listed)} listed, {len(entries)} registered", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
