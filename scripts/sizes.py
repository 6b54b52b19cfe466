#!/usr/bin/env python3
"""Lists .rs files under crates/*/src over a line limit and functions over a line limit.

Functions are found roughly: a line declaring `fn name`, then braces counted (strings and
comments ignored only as far as `//` line comments) to the closing brace. Test files
(`tests.rs`, files under `tests/`) and `#[cfg(test)] mod tests` blocks are skipped.
"""
import glob, re, sys

FILE_LIMIT = int(sys.argv[1]) if len(sys.argv) > 1 else 800
FN_LIMIT = int(sys.argv[2]) if len(sys.argv) > 2 else 120
FN = re.compile(r'^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(unsafe\s+)?(async\s+)?fn\s+(\w+)')


def code_lines(lines):
    """The lines before a file's `#[cfg(test)]` module, if any."""
    for i, l in enumerate(lines):
        if l.startswith('#[cfg(test)]') and i + 1 < len(lines) and 'mod ' in lines[i + 1]:
            return lines[:i]
    return lines


for path in sorted(glob.glob('crates/*/src/**/*.rs', recursive=True)):
    if path.endswith('tests.rs') or '/tests/' in path:
        continue
    lines = open(path).read().split('\n')
    code = code_lines(lines)
    if len(code) > FILE_LIMIT:
        print(f'FILE {path} {len(code)} (of {len(lines)})')
    i = 0
    while i < len(code):
        m = FN.match(code[i])
        if m:
            depth, j, opened = 0, i, False
            while j < len(code):
                t = code[j].split('//')[0]
                t = re.sub(r"'.'|'\\.'|\"(\\.|[^\"])*\"", '', t)
                depth += t.count('{') - t.count('}')
                if '{' in t:
                    opened = True
                if opened and depth <= 0:
                    break
                if not opened and t.rstrip().endswith(';'):
                    break
                j += 1
            n = j - i + 1
            if opened and n > FN_LIMIT:
                print(f'FN   {path}:{i + 1} {m.group(6)} {n}')
            i += 1
        else:
            i += 1
