#!/usr/bin/env python3
"""Rewrites inline fully qualified type names in Java sources as imports.

    tools/qualified-names.py FILE.java...

A name is left as it is when importing it would clash (the simple name is imported from elsewhere,
declared in the file or its package, or is a java.lang type): such a clash is rare and reads fine
qualified. SourceRulesTest counts what is left against qualified-names-baseline.txt; after running
this, regenerate that file with --baseline (from the repository's root):

    tools/qualified-names.py --baseline > cairn-core/src/test/resources/io/cairn/core/rules/qualified-names-baseline.txt
"""
import os
import re
import sys

QUALIFIED = re.compile(r'(?<![\w.])(?:java|javax|jdk|io|org|com|net|picocli|software)(?:\.[a-z_][a-z0-9_]*)+\.[A-Z]\w*')
JAVA_LANG = set("""AutoCloseable Boolean Byte Character CharSequence Class ClassCastException ClassLoader Cloneable Comparable Deprecated
Double Enum Error Exception Float FunctionalInterface IllegalArgumentException IllegalStateException IndexOutOfBoundsException Integer
InterruptedException Iterable Long Math NullPointerException Number NumberFormatException Object OutOfMemoryError Override Package
Process ProcessBuilder Record Runnable Runtime RuntimeException SafeVarargs SecurityException Short StackOverflowError StrictMath
String StringBuilder StringBuffer SuppressWarnings System Thread ThreadLocal Throwable UnsupportedOperationException Void Module
ArithmeticException ArrayIndexOutOfBoundsException CloneNotSupportedException ReflectiveOperationException""".split())


def code_mask(src):
    """src with comments, literals and text blocks replaced by spaces (same length)."""
    out = list(src)
    i, n = 0, len(src)
    def blank(a, b):
        for k in range(a, b):
            if out[k] != '\n':
                out[k] = ' '
    while i < n:
        if src.startswith('//', i):
            j = src.find('\n', i)
            j = n if j < 0 else j
            blank(i, j); i = j
        elif src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            blank(i, j); i = j
        elif src.startswith('"""', i):
            j = src.find('"""', i + 3)
            j = n if j < 0 else j + 3
            blank(i, j); i = j
        elif src[i] in '"\'':
            q = src[i]; j = i + 1
            while j < n and src[j] != q and src[j] != '\n':
                j += 2 if src[j] == '\\' else 1
            blank(i + 1, min(j, n)); i = min(n, j + 1)
        else:
            i += 1
    return ''.join(out)


def qualified_in(src):
    mask = code_mask(src)
    found = []
    pos = 0
    for line in mask.split('\n'):
        t = line.strip()
        if not (t.startswith('import ') or t.startswith('package ')):
            for m in QUALIFIED.finditer(line):
                found.append((pos + m.start(), pos + m.end(), m.group()))
        pos += len(line) + 1
    return found


def rewrite(path):
    src = open(path, encoding='utf-8').read()
    pkg_m = re.search(r'^package\s+([\w.]+);', src, re.M)
    pkg = pkg_m.group(1) if pkg_m else ''
    imports = {}
    for m in re.finditer(r'^import\s+([\w.]+)\.(\w+);', src, re.M):
        imports[m.group(2)] = m.group(1) + '.' + m.group(2)
    declared = set(re.findall(r'\b(?:class|interface|enum|record)\s+(\w+)', code_mask(src)))
    directory = os.path.dirname(os.path.abspath(path))
    same_package = {f[:-5] for f in os.listdir(directory) if f.endswith('.java')}
    chosen = dict(imports)
    new_imports = set()
    edits = []
    for start, end, fqn in qualified_in(src):
        simple = fqn.rsplit('.', 1)[1]
        owner = fqn.rsplit('.', 1)[0]
        if chosen.get(simple) == fqn:
            edits.append((start, end, simple))
        elif simple in chosen or simple in declared:
            continue
        elif owner == pkg:
            edits.append((start, end, simple))
        elif simple in same_package or (simple in JAVA_LANG and owner != 'java.lang'):
            continue
        elif owner == 'java.lang':
            edits.append((start, end, simple))
        else:
            chosen[simple] = fqn
            new_imports.add(fqn)
            edits.append((start, end, simple))
    if not edits:
        return 0
    for start, end, simple in sorted(edits, reverse=True):
        src = src[:start] + simple + src[end:]
    src = add_imports(src, sorted(new_imports))
    open(path, 'w', encoding='utf-8').write(src)
    return len(edits)


def add_imports(src, fqns):
    lines = src.split('\n')
    for fqn in fqns:
        stmt = 'import ' + fqn + ';'
        java = fqn.startswith('java.') or fqn.startswith('javax.')
        idx = [k for k, l in enumerate(lines) if l.startswith('import ') and not l.startswith('import static ')]
        group = [k for k in idx if lines[k].startswith('import java.') or lines[k].startswith('import javax.')] if java else \
                [k for k in idx if not (lines[k].startswith('import java.') or lines[k].startswith('import javax.'))]
        if group:
            after = [k for k in group if lines[k] < stmt]
            at = (after[-1] + 1) if after else group[0]
            lines.insert(at, stmt)
        elif idx:
            if java:
                lines[idx[-1] + 1:idx[-1] + 1] = ['', stmt]
            else:
                lines[idx[0]:idx[0]] = [stmt, '']
        else:
            p = next(k for k, l in enumerate(lines) if l.startswith('package '))
            lines[p + 1:p + 1] = ['', stmt]
    return '\n'.join(lines)


def baseline():
    root = os.getcwd()
    print('# Inline qualified type names each file had when SourceRulesTest began counting: the count may only go down.')
    print('# Regenerate after rewriting files (tools/qualified-names.py --baseline > this file).')
    for module in sorted(os.listdir(root)):
        base = os.path.join(root, module, 'src', 'main', 'java')
        if not os.path.isdir(base):
            continue
        for d, _, files in sorted(os.walk(base)):
            for f in sorted(files):
                if f.endswith('.java'):
                    p = os.path.join(d, f)
                    n = len(qualified_in(open(p, encoding='utf-8').read()))
                    if n:
                        print(n, os.path.relpath(p, root))


if __name__ == '__main__':
    if sys.argv[1:] == ['--baseline']:
        baseline()
    else:
        total = 0
        for p in sys.argv[1:]:
            total += rewrite(p)
        print(total, 'names rewritten', file=sys.stderr)
