#!/usr/bin/env python3
"""Renders each man page given (mandoc -T utf8) and fails when its text has
unbalanced brackets or quotes: ( ) [ ] { } ‘ ’ “ ”. Prints each problem as
page:line: what, and exits 1 if there is any.

  python3 Packaging/check-man.py Packaging/man/*.1
"""
import re
import subprocess
import sys

PAIRS = {")": "(", "]": "[", "}": "{", "’": "‘", "”": "“"}
OPENS = set(PAIRS.values())


def problems(page):
    text = subprocess.run(["mandoc", "-T", "utf8", page], check=True, capture_output=True, text=True).stdout
    text = re.sub(r".\x08", "", text)  # overstrike (bold, underline)
    found, stack = [], []
    for number, line in enumerate(text.splitlines(), 1):
        for column, ch in enumerate(line, 1):
            if ch in OPENS:
                if ch in "‘“" and stack and stack[-1][0] == ch:
                    found.append(f"{page}:{number}:{column}: {ch!r} opens inside another {ch!r} (quotes do not nest): {line.strip()}")
                stack.append((ch, number, column))
            elif ch in PAIRS:
                if stack and stack[-1][0] == PAIRS[ch]:
                    stack.pop()
                else:
                    expected = f"a close of {stack[-1][0]!r} from line {stack[-1][1]}" if stack else "nothing open"
                    found.append(f"{page}:{number}:{column}: {ch!r} closes {expected}: {line.strip()}")
    for ch, number, column in stack:
        found.append(f"{page}:{number}:{column}: {ch!r} is never closed")
    return found


if __name__ == "__main__":
    all_problems = [p for page in sys.argv[1:] for p in problems(page)]
    for p in all_problems:
        print(p)
    sys.exit(1 if all_problems else 0)
