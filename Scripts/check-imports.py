#!/usr/bin/env python3
"""Imports that guard the layers (issue 39): no file imports one of this package's modules
without using it, and no `@_spi(Engine)` import uses no SPI.

A module's names are what its sources declare: types, functions, properties, cases,
typealiases, operators' functions, and the members its extensions add (a member used with a dot
on another module's type, such as `Duration.nanoseconds`, counts). An import is unused when the
file mentions none of them. Names shared with the importing module are not counted as uses, so
a file never passes on its own declarations. An `@_spi(Engine)` import is needed only when the
file mentions a name declared under `@_spi(Engine)`. Modules of other packages (Foundation,
SwiftNIO, …) are not checked: their names are not read here; the compiler's own warning covers
`package import`s used in no package declaration.

usage: Scripts/check-imports.py [--plant FILE:MODULE] [ROOT]        (exit 1 naming each problem)

The names are read by patterns, not by the compiler: a module whose names are common words
(`parse`, `text`) may pass for used where it is not. An import this check calls unused is
unused: every one it flagged was removed and the package still built.
"""
import os, re, sys

# --plant FILE:MODULE reads FILE as if it began with `import MODULE` (CI's proof that the
# check fails on an unused import: it must then exit 1).
args = sys.argv[1:]
plant = None
if len(args) >= 2 and args[0] == "--plant":
    plant, args = tuple(args[1].split(":", 1)), args[2:]
root = args[0] if args else os.path.join(os.path.dirname(__file__), "..")
sources = os.path.join(root, "Sources")
tests = os.path.join(root, "Tests")

DECL = re.compile(r"^\s*(?P<attrs>(?:@\w+(?:\([^)]*\))?\s+)*)(?:(?:public|package|internal|open|fileprivate|private|final|static|class|override|mutating|nonmutating|nonisolated|indirect|convenience|required|lazy|weak|unowned|dynamic|@inlinable|@usableFromInline|@discardableResult)\s+)*"
                  r"(?:func|var|let|struct|class|enum|protocol|typealias|actor|case|subscript|init)\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*|\(|`[^`]+`)?", re.M)
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
IMPORT = re.compile(r"^(?P<attrs>(?:@\w+(?:\([^)]*\))?\s+)*)(?:public |package |internal |@preconcurrency )*import (?:struct |class |enum |func |protocol |var |typealias )?(?P<module>\w+)", re.M)


def swift_files(folder):
    for base, _, names in os.walk(folder):
        for n in sorted(names):
            if n.endswith(".swift"):
                yield os.path.join(base, n)


def strip(text):
    """The text without comments and without string literals' text; what is interpolated in a
    string (`\\(UbiquityLimits.maximumKeys)`) is kept: names there are uses."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif text[i] == '"':
            quote = '"""' if text.startswith('"""', i) else '"'
            i += len(quote)
            while i < n and not text.startswith(quote, i):
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "(":
                    depth, j = 1, i + 2
                    while j < n and depth:
                        depth += {"(": 1, ")": -1}.get(text[j], 0)
                        j += 1
                    out.append(" " + text[i + 2 : j - 1] + " ")
                    i = j
                elif text[i] == "\\":
                    i += 2
                else:
                    i += 1
            i += len(quote)
            out.append('""')
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


modules = {}
for name in sorted(os.listdir(sources)):
    folder = os.path.join(sources, name)
    if os.path.isdir(folder):
        modules[name] = list(swift_files(folder))

declared, spi = {}, {}
for module, files in modules.items():
    names, engine = set(), set()
    for path in files:
        text = strip(open(path, encoding="utf-8").read())
        # A file that declares an SPI type (or extends one as SPI): its members are SPI too.
        spi_file = re.search(r"@_spi\(Engine\)\s+(?:public\s+)?(?:final\s+)?(?:class|struct|enum|actor|extension)\b", text) is not None
        for m in DECL.finditer(text):
            n = m.group("name")
            if not n or n == "(":
                continue
            n = n.strip("`")
            # Top-level declarations and members (one level in, or two for a nested type's);
            # a function's local names (deeper) are nobody's to use.
            start = text.rfind("\n", 0, m.start()) + 1
            indent = len(text[start:m.end()]) - len(text[start:m.end()].lstrip(" "))
            if indent > 8:
                continue
            if indent == 8 and not re.match(r"\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|open|fileprivate|private|final|static|class|override|mutating|nonisolated|indirect|convenience|required|lazy)\s+)+", text[start:m.end()]):
                continue
            names.add(n)
            if spi_file or "@_spi(Engine)" in (m.group("attrs") or ""):
                engine.add(n)
        # Members of an extension of an @_spi type count as SPI too: `@_spi(Engine) extension T`.
        for m in re.finditer(r"@_spi\(Engine\)\s+(?:public\s+)?extension\s+([\w.]+)[^{]*\{", text):
            engine.add(m.group(1).split(".")[0])
        # An enum's cases, several to a line (`case signed, invalid(String)`).
        for m in re.finditer(r"^( *)(?:indirect\s+)?case\s+([A-Za-z_][^\n]*)$", text, re.M):
            if len(m.group(1)) <= 8:
                names.update(re.findall(r"(?:^|,)\s*([A-Za-z_]\w*)", re.sub(r"\([^)]*\)", "", m.group(2))))
        names.add(module)
    # A C target's names: the functions and types its public headers declare.
    include = os.path.join(sources, module, "include")
    for base, _, headers in os.walk(include):
        for h in headers:
            if h.endswith(".h"):
                header = re.sub(r"//[^\n]*|/\*.*?\*/", "", open(os.path.join(base, h), encoding="utf-8").read(), flags=re.S)
                names.update(re.findall(r"\b([A-Za-z_]\w*)\s*\(", header))
                names.update(re.findall(r"\btypedef\b[^;]*?\b([A-Za-z_]\w*)\s*;", header))
    declared[module], spi[module] = names, engine

problems = []
for folder in (sources, tests):
    for path in swift_files(folder):
        raw = open(path, encoding="utf-8").read()
        rel = os.path.relpath(path, root)
        if plant and rel == plant[0]:
            raw = "import %s\n" % plant[1] + raw
        own = rel.split(os.sep)[1]
        own_names = declared.get(own, set())
        body = strip(raw)
        imports = list(IMPORT.finditer(body))
        code = IMPORT.sub(" ", body)
        words = set(WORD.findall(code))
        for m in imports:
            module = m.group("module")
            # A re-export is used by the module's clients, not by the file.
            if module not in declared or module == own or "@_exported" in m.group("attrs"):
                continue
            line = body[: m.start()].count("\n") + 1
            used = (declared[module] - own_names) & words
            if not used:
                problems.append("%s:%d: imports %s and uses nothing of it" % (rel, line, module))
                continue
            if "@_spi(Engine)" in m.group("attrs") and not (spi[module] & words):
                problems.append("%s:%d: imports %s with @_spi(Engine) and uses no SPI of it" % (rel, line, module))

for p in problems:
    print("check-imports:", p)
if problems:
    print("check-imports: %d problem(s)" % len(problems))
    sys.exit(1)
print("check-imports: every import of this package's modules is used; every @_spi import uses SPI")
