#!/usr/bin/env python3
"""Size figures of reserve/: lines, modules, the longest functions.

    tools/code_figures.py [--top N] [ROOT]

Lines are physical lines of the .py files under ROOT (reserve/ by
default); a function's length runs from its ``def`` (decorators
excluded) to its last line, nested functions counted in their parent
and on their own.
"""
import argparse
import ast
import pathlib

REPO = pathlib.Path(__file__).resolve().parent.parent


def functions(path):
    """(length, 'file:qualified name') of each function in a module."""
    tree = ast.parse(path.read_text(), str(path))
    found = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                found.append((child.end_lineno - child.lineno + 1,
                              '%s:%s' % (path.relative_to(REPO), name)))
                walk(child, name + '.')
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + '.')
    walk(tree, '')
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('root', nargs='?', default=str(REPO / 'reserve'))
    parser.add_argument('--top', type=int, default=5)
    args = parser.parse_args()
    paths = sorted(pathlib.Path(args.root).resolve().rglob('*.py'))
    lines = sum(len(p.read_text().splitlines()) for p in paths)
    every = sorted((f for p in paths for f in functions(p)), reverse=True)
    print('modules: %d' % len(paths))
    print('lines: %d' % lines)
    print('functions: %d' % len(every))
    print('longest functions:')
    for length, name in every[:args.top]:
        print('  %4d  %s' % (length, name))


if __name__ == '__main__':
    main()
