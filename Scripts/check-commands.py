#!/usr/bin/env python3
"""Every command of the tools names itself (`CommandConfiguration(commandName: ...)`).

swift-argument-parser derives a command's name from its type's name when the configuration
gives none, with `String(describing:)`: a dynamic cast that, the first time for each type, scans
every protocol conformance the program holds. In `ubiquity`, whose libraries hold tens of
thousands, that was two fifths of every invocation's start (a 130 MB binary: 18 ms of CPU for
`ubiquity --version`, 12 ms with every name given; proposal 0019). A command added without its
name brings that back; this check fails instead.

usage: Scripts/check-commands.py [ROOT]        (exit 1 naming each command without its name)
"""
import os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
COMMAND = re.compile(r"struct (\w+)\s*:[^{]*\b(?:Async)?ParsableCommand\b[^{]*\{")
CONFIGURATION = re.compile(r"static (?:let|var) configuration\s*(?::\s*CommandConfiguration\s*)?=\s*CommandConfiguration\(")
problems = []
for base, _, names in os.walk(os.path.join(root, "Sources")):
    for n in sorted(names):
        if not n.endswith(".swift"):
            continue
        path = os.path.join(base, n)
        text = open(path, encoding="utf-8").read()
        for command in COMMAND.finditer(text):
            # The command's own configuration: the first one after its declaration, before the
            # next command's declaration.
            following = COMMAND.search(text, command.end())
            body = text[command.end():following.start() if following else len(text)]
            configuration = CONFIGURATION.search(body)
            line = text.count("\n", 0, command.start()) + 1
            if configuration is None:
                problems.append(f"{os.path.relpath(path, root)}:{line}: {command.group(1)} has no configuration (give it CommandConfiguration(commandName: ...))")
                continue
            # Its arguments: up to the parenthesis that closes it.
            depth, i = 1, configuration.end()
            while i < len(body) and depth:
                depth += {"(": 1, ")": -1}.get(body[i], 0)
                i += 1
            if not re.match(r"\s*commandName\s*:", body[configuration.end():i]):
                problems.append(f"{os.path.relpath(path, root)}:{line}: {command.group(1)}'s CommandConfiguration gives no commandName")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
