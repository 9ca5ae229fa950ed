#!/usr/bin/env python3
"""The stack each function of a generated file needs, calls included, as GCC counts it.

Reads the call graphs GCC writes with -fstack-usage -fcallgraph-info=su (FILE.ci, one per
object) and prints, for every function, the bytes on its deepest path of calls within the
file (its own frame plus the deepest callee's, recursively) and the functions outside the
file that path can reach (libm: sinf, sqrtf, ...; their own stack is not in the figure).

usage: stack_paths.py FILE.ci [FILE.ci ...]   ->  lines "NAME<TAB>BYTES<TAB>external,calls"
NAME is the function's unqualified name (ur5_like::mass_matrix -> mass_matrix).
"""
import re
import sys


def read_graph(paths):
    nodes, edges = {}, {}
    node = re.compile(r'node: \{ title: "([^"]+)" label: "([^"]*)"')
    edge = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')
    for path in paths:
        with open(path) as f:
            for line in f:
                if m := node.match(line):
                    label = m.group(2).split("\\n")
                    size = re.match(r"(\d+) bytes", label[-1])
                    nodes[m.group(1)] = (label[0], int(size.group(1)) if size else None)
                elif m := edge.match(line):
                    edges.setdefault(m.group(1), set()).add(m.group(2))
    return nodes, edges


def short_name(signature):
    head = signature.split("(")[0].split(" ")[-1]
    return head.split("::")[-1]


def worst(title, nodes, edges, memo, visiting=()):
    if title in memo:
        return memo[title]
    name, size = nodes.get(title, (title, None))
    if size is None:  # outside the file (libm, memset)
        return 0, {short_name(name)}
    deepest, outside = 0, set()
    for callee in sorted(edges.get(title, ())):
        if callee in visiting or callee == title:
            continue
        b, o = worst(callee, nodes, edges, memo, visiting + (title,))
        deepest = max(deepest, b)
        outside |= o
    memo[title] = (size + deepest, outside)
    return memo[title]


def main():
    nodes, edges = read_graph(sys.argv[1:])
    memo = {}
    for title in sorted(nodes, key=lambda t: nodes[t][0]):
        name, size = nodes[title]
        if size is None:
            continue
        b, outside = worst(title, nodes, edges, memo)
        print(f"{short_name(name)}\t{b}\t{','.join(sorted(o.replace('__builtin_', '') for o in outside))}")


if __name__ == "__main__":
    main()
