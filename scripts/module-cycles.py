#!/usr/bin/env python3
"""Report import cycles between the modules of a Rust crate.

    scripts/module-cycles.py SRC_DIR [--collapse MOD]...

A module depends on another when its code names it: `use crate::a::b`, a path `crate::a::x`,
`super::x`, `self::child::x`, or a path starting with the name of one of its own child
modules (`pool::Pool`). A module declaring a child (`mod pool;`) does not by that alone depend
on it. Test code (`#[cfg(test)]` modules and items) is left out: tests sit above everything
and nothing imports them, so they can never close a cycle. `--collapse MOD` treats MOD and
everything below it as one module (a kernel family's folder, whose files may share helpers
both ways). Prints each cycle (a strongly connected group of modules) and exits 1 if there is
any; prints the number of modules and edges and exits 0 otherwise.
"""

import argparse
import os
import re
import sys

ITEM_START = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*([;{])", re.M)
PATH = re.compile(r"\b(crate|super|self)((?:\s*::\s*(?:[A-Za-z_][A-Za-z0-9_]*|\{))+)")
EXTERNAL = ("<external>",)
IDENT_PATH = re.compile(r"(?<![A-Za-z0-9_:])([a-z_][a-z0-9_]*)\s*::\s*([A-Za-z_][A-Za-z0-9_]*|\{)")


def strip_comments_and_strings(text):
    """Blank out comments, string and char literals (keeping newlines and offsets)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == "'":
            # A char literal ('a', '\n', '\u{..}'), not a lifetime ('a).
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching_brace(text, open_at):
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(text) - 1


def is_test_gated(text, start):
    """Whether the item starting at `start` is preceded by a #[cfg(test)]-like attribute."""
    before = text[:start].rstrip()
    while before.endswith("]"):
        open_at = before.rfind("#[")
        if open_at < 0:
            break
        attr = before[open_at:]
        if re.match(r"#\[\s*cfg\s*\(\s*(test|all\s*\(\s*test)", attr):
            return True
        before = before[:open_at].rstrip()
    return False


def remove_test_items(text):
    """Blank out every item gated on cfg(test): inline modules, functions, uses, impls."""
    out = list(text)
    for m in re.finditer(r"#\[\s*cfg\s*\(\s*(test|all\s*\(\s*test)[^\]]*\]", text):
        # The item after the attribute(s): up to its matching brace or semicolon.
        j = m.end()
        while True:
            rest = text[j:]
            k = len(rest) - len(rest.lstrip())
            if rest[k:].startswith("#["):
                j = text.find("]", j + k) + 1
            else:
                j += k
                break
        semi = text.find(";", j)
        brace = text.find("{", j)
        if brace >= 0 and (semi < 0 or brace < semi):
            end = matching_brace(text, brace)
        else:
            end = semi if semi >= 0 else len(text) - 1
        for x in range(m.start(), end + 1):
            if out[x] != "\n":
                out[x] = " "
    return "".join(out)


def expand_use_tree(tree):
    """'a::{b, c::{d, e}}' -> ['a::b', 'a::c::d', 'a::c::e']."""
    tree = re.sub(r"\s+", "", tree)
    i = tree.find("{")
    if i < 0:
        return [tree]
    prefix = tree[:i]
    inner = tree[i + 1:matching_brace(tree, i)]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    result = []
    for p in parts:
        if p:
            result += [prefix + q for q in expand_use_tree(p)]
    return result


class Crate:
    def __init__(self, src, collapse):
        self.src = os.path.abspath(src)
        self.collapse = collapse
        self.modules = {}  # path (tuple) -> file
        self.children = {}  # path -> set of child names
        root = None
        for name in ("lib.rs", "main.rs"):
            if os.path.exists(os.path.join(self.src, name)):
                root = os.path.join(self.src, name)
                break
        if root is None:
            sys.exit(f"{src}: no lib.rs or main.rs")
        self.load((), root, mod_rs=True)

    def load(self, path, file, mod_rs):
        with open(file, encoding="utf-8") as f:
            text = remove_test_items(strip_comments_and_strings(f.read()))
        self.modules[path] = text
        self.children.setdefault(path, set())
        base = os.path.dirname(file) if mod_rs else os.path.splitext(file)[0]
        for m in ITEM_START.finditer(text):
            name, kind = m.group(3), m.group(4)
            if kind == "{":
                # An inline module: its text stays with the parent (rare outside tests).
                continue
            self.children[path].add(name)
            path_attr = re.search(r'#\[\s*path\s*=\s*"([^"]+)"\s*\]\s*$', text[:m.start()].rstrip() + "\n")
            if path_attr:
                child = os.path.join(base, path_attr.group(1))
                self.load(path + (name,), child, mod_rs=child.endswith("mod.rs"))
                continue
            flat = os.path.join(base, name + ".rs")
            nested = os.path.join(base, name, "mod.rs")
            if os.path.exists(flat):
                self.load(path + (name,), flat, mod_rs=False)
            elif os.path.exists(nested):
                self.load(path + (name,), nested, mod_rs=True)

    def node(self, path):
        for c in self.collapse:
            if path[:len(c)] == c:
                return c
        return path

    def resolve(self, here, segs):
        """The deepest known module a path names, or None."""
        if not segs:
            return None
        head, rest = segs[0], segs[1:]
        if head == "crate":
            base = ()
        elif head == "self":
            base = here
        elif head == "super":
            base = here[:-1]
            while rest and rest[0] == "super":
                base, rest = base[:-1], rest[1:]
        elif head in self.children.get(here, ()):
            base, rest = here + (head,), rest
        else:
            return None
        target = base
        for i, s in enumerate(rest):
            if target + (s,) in self.modules:
                target = target + (s,)
                continue
            # An item a module re-exports (`pub use inner::Item;`) is the inner one's.
            source = self.reexports.get(target, {}).get(s)
            if source is EXTERNAL:
                return None
            if source is not None and source != target:
                return source
            break
        return target

    def find_reexports(self):
        """Each module's `pub use` items: name -> the module they come from."""
        self.reexports = {}
        for path, text in self.modules.items():
            table = {}
            for m in re.finditer(r"\bpub(\([^)]*\))?\s+use\s+([^;]+);", text):
                for p in expand_use_tree(m.group(2)):
                    segs = [x for x in p.split("::") if x]
                    if not segs or segs[-1] == "*":
                        continue
                    last = segs[-1]
                    alias = re.search(r"\bas(\w+)$", last)
                    item = alias.group(1) if alias else last
                    table[item] = segs[:-1]
            self.reexports[path] = table
        # Resolve the sources once every table is known (a chain of re-exports is followed
        # one step: enough for `crate::Name`).
        for path, table in self.reexports.items():
            for item, segs in list(table.items()):
                # None: another crate's item (`pub use bytes::Bytes`).
                table[item] = self.resolve_plain(path, segs) or EXTERNAL

    def resolve_plain(self, here, segs):
        saved, self.reexports = self.reexports, {}
        try:
            return self.resolve(here, segs) if segs else None
        finally:
            self.reexports = saved

    def edges(self):
        self.find_reexports()
        edges = {}
        for path, text in self.modules.items():
            targets = set()
            for m in re.finditer(r"\buse\s+([^;]+);", text):
                for p in expand_use_tree(m.group(1)):
                    segs = [s for s in p.split("::") if s and s != "*"]
                    segs = [re.sub(r"\bas\b.*", "", s) for s in segs]
                    t = self.resolve(path, segs)
                    if t is not None:
                        targets.add(t)
            for m in PATH.finditer(text):
                if m.group(2).rstrip().endswith("{"):
                    continue  # a use tree, read above
                segs = [m.group(1)] + [s for s in re.split(r"\s*::\s*", m.group(2)) if s and s != "{"]
                t = self.resolve(path, segs)
                if t is not None:
                    targets.add(t)
            for m in IDENT_PATH.finditer(text):
                if m.group(1) in self.children.get(path, ()):
                    t = self.resolve(path, [m.group(1), m.group(2)])
                    if t is not None:
                        targets.add(t)
            a = self.node(path)
            for t in targets:
                b = self.node(t)
                if b != a:
                    edges.setdefault(a, set()).add(b)
        return edges


def cycles(nodes, edges):
    """Tarjan's strongly connected components with more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def name(path):
    return "::".join(("crate",) + path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("--collapse", action="append", default=[], help="a module treated as one with everything below it")
    args = ap.parse_args()
    crate = Crate(args.src, [tuple(c.split("::")) for c in args.collapse])
    edges = crate.edges()
    nodes = {crate.node(p) for p in crate.modules}
    found = cycles(nodes, edges)
    for comp in found:
        comp_set = set(comp)
        print(f"{args.src}: cycle among {', '.join(sorted(name(c) for c in comp))}:")
        for a in sorted(comp):
            for b in sorted(edges.get(a, ())):
                if b in comp_set:
                    print(f"    {name(a)} -> {name(b)}")
    if found:
        return 1
    n_edges = sum(len(v) for v in edges.values())
    print(f"{args.src}: {len(nodes)} modules, {n_edges} imports, no cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
