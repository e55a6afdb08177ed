#!/usr/bin/env python3
"""Run lanesum's coreutils personalities beside GNU's and compare every byte.

    scripts/gnu-differential.py [--bin target/release/lanesum] [--seed N] [--fuzz N]

* `cksum` and `sum` against the newest GNU coreutils Debian ships (sid; 9.10 when this
  was written), whose .deb and C library are downloaded once into target/gnu-coreutils
  and run from there with their own dynamic loader: nothing is installed.
* `md5sum`, `sha*sum` and `b2sum` against the installed coreutils (9.1 on Debian 12),
  whose behaviour lanesum keeps for those names (docs/cksum.md).

Each case runs both programs by the same name (argv[0]) in the same folder of odd file
names, and compares exit status, stdout and stderr. Fixed cases cover every algorithm,
output format, option conflict and closed standard descriptor; the fuzzed ones feed
`--check` lines that GNU wrote, mutated at random (bytes dropped, inserted, replaced,
lines cut), under every reporting option, and random option lists to cksum and sum.
Differences GNU itself introduced after 9.9 (the version lanesum follows for `cksum`) are
recognised by changed_after_9_9 and counted apart.

Not part of scripts/test.sh: it needs the Debian archive. The tests in
crates/lanesum-cli/tests hold golden outputs of the same behaviours, so CI runs anywhere.
Exit status 1 if any case differs.
"""

import argparse
import lzma
import os
import random
import shutil
import subprocess
import sys
import tempfile
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIRROR = "http://deb.debian.org/debian"

# 9.10 changed cksum's option validation ("cksum now validates its options more
# consistently"): where -t/--text, -b/--binary or --tag meet another conflict, it reports
# another one first, and `--text --tag` fails where 9.9 (and lanesum, which follows 9.9)
# took the later option. Both fail as usage errors, or 9.10 refuses what 9.9 ran.
MODE_OPTIONS = {"-t", "--text", "-b", "--binary", "--tag"}


def changed_after_9_9(tool, args, gnu, ours):
    if tool != "cksum" or not MODE_OPTIONS & set(args):
        return False
    hint = b"--help' for more information.\n"
    both_usage = gnu[0] == ours[0] == 1 and gnu[2].endswith(hint) and ours[2].endswith(hint)
    text_then_tag = gnu[0] == 1 and b"--text mode is only supported" in gnu[2] and ours[0] == 0
    return both_usage or text_then_tag


# lanesum's own algorithm names, which its cksum also takes (GNU: unknown).
OWN_NAMES = ["sha3-256", "blake3", "xxh3", "crc32c", "crc64nvme", "shake128", "blake2b-256"]

FILES = {
    "a": b"hello\n",
    "b": b"world\n",
    "empty": b"",
    "back\\slash": b"hello\n",
    "new\nline": b"hello\n",
    "sp ace": b"x" * 1000,
    "big": bytes(range(256)) * 700,
    "cr\rname": b"cr\n",
    "-dash": b"dash\n",
    "tab\tname": b"t\n",
}
NAMED = ["a", "empty", "back\\slash", "new\nline", "sp ace", "big", "cr\rname", "tab\tname"]
CKSUM_ALGS = [
    "sysv",
    "bsd",
    "crc",
    "crc32b",
    "md5",
    "sha1",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "blake2b",
    "sm3",
]
SUM_TOOLS = ["md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum"]


def packages_index(cache):
    path = os.path.join(cache, "Packages")
    if not os.path.exists(path):
        url = f"{MIRROR}/dists/sid/main/binary-amd64/Packages.xz"
        with urllib.request.urlopen(url, timeout=120) as r:
            data = lzma.decompress(r.read())
        with open(path, "wb") as f:
            f.write(data)
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "replace")


def fetch_deb(cache, index, package):
    """Extract sid's `package` into cache/root; returns its version."""
    stanza = next(s for s in index.split("\n\n") if s.startswith(f"Package: {package}\n"))
    fields = dict(line.split(": ", 1) for line in stanza.splitlines() if ": " in line)
    deb = os.path.join(cache, os.path.basename(fields["Filename"]))
    if not os.path.exists(deb):
        with urllib.request.urlopen(f"{MIRROR}/{fields['Filename']}", timeout=120) as r:
            data = r.read()
        with open(deb, "wb") as f:
            f.write(data)
    subprocess.run(["dpkg-deb", "-x", deb, os.path.join(cache, "root")], check=True)
    return fields["Version"]


def wrappers(cache, tools_dir, lanesum):
    """Folders `gnu`, `gnu91` and `lanesum`, each with the tools under their own names."""
    root = os.path.join(cache, "root")
    lib = os.path.join(root, "usr/lib/x86_64-linux-gnu")
    dirs = {k: os.path.join(tools_dir, k) for k in ("gnu", "gnu91", "lanesum")}
    for d in dirs.values():
        os.makedirs(d, exist_ok=True)
    for tool in ["cksum", "sum"] + SUM_TOOLS:
        w = os.path.join(dirs["gnu"], tool)
        with open(w, "w") as f:
            f.write(
                f"#!/bin/sh\nexec {lib}/ld-linux-x86-64.so.2 --library-path {lib} "
                f'--argv0 {tool} {root}/usr/bin/{tool} "$@"\n'
            )
        os.chmod(w, 0o755)
        os.symlink(shutil.which(tool) or f"/usr/bin/{tool}", os.path.join(dirs["gnu91"], tool))
        os.symlink(lanesum, os.path.join(dirs["lanesum"], tool))
    return dirs


class Runner:
    def __init__(self, work, dirs):
        self.work, self.dirs = work, dirs
        self.total = self.differ = self.known = 0

    def run(self, which, tool, args, stdin=b""):
        env = dict(os.environ, PATH=self.dirs[which] + ":/usr/bin:/bin", LC_ALL="C")
        env.pop("POSIXLY_CORRECT", None)
        # A last argument "<&-" or ">&-": the shell closes that descriptor first.
        if args and args[-1] in ("<&-", ">&-"):
            args = ["sh", "-c", f'exec {tool} "$@" {args[-1]}', tool] + args[:-1]
            tool, args = args[0], args[1:]
        p = subprocess.run(
            [tool] + args, input=stdin, capture_output=True, cwd=self.work, check=False, env=env
        )
        return p.returncode, p.stdout, p.stderr

    def case(self, tool, args, stdin=b"", note="", gnu="gnu", expect_same=True):
        self.total += 1
        g = self.run(gnu, tool, args, stdin)
        ours = self.run("lanesum", tool, args, stdin)
        if (g == ours) == expect_same:
            return g
        if changed_after_9_9(tool, args, g, ours):
            self.known += 1
            return g
        self.differ += 1
        print(f"--- {tool} {args!r} stdin={stdin[:60]!r} {note}")
        if not expect_same:
            print("  expected lanesum to differ (its own algorithm name)")
        for what, a, b in zip(("status", "stdout", "stderr"), g, ours):
            if a != b:
                print(f"  {what}: GNU     {a!r}\n  {' ' * len(what)}  lanesum {b!r}")
        return g

    def write(self, name, data):
        with open(os.path.join(self.work, name), "wb") as f:
            f.write(data)


def mutate(rnd, line):
    alphabet = b" \t\\()=*-#\r\n0aAzZ+/"
    b = bytearray(line)
    for _ in range(rnd.choice([0, 1, 1, 2, 3])):
        if not b:
            break
        op, i = rnd.randrange(4), rnd.randrange(len(b))
        if op == 0:
            del b[i]
        elif op == 1:
            b.insert(i, rnd.choice(alphabet))
        elif op == 2:
            b[i] = rnd.choice(alphabet)
        else:
            b = b[:i] + b"\n"
    return bytes(b)


def cksum_cases(r):
    r.case("cksum", [])
    r.case("cksum", [], b"hello\n")
    r.case("cksum", ["-"], b"hello\n")
    r.case("cksum", ["a", "missing", "dir", "b"])
    r.case("cksum", ["--", "-dash"])
    formats = (
        [],
        ["--untagged"],
        ["--tag"],
        ["--base64"],
        ["--untagged", "--base64"],
        ["-z"],
        ["--untagged", "-z"],
        ["--raw"],
        ["--untagged", "-b"],
        ["--untagged", "-t"],
        ["-b"],
        ["-t"],
    )
    for alg in CKSUM_ALGS:
        for fmt in formats:
            r.case("cksum", ["-a", alg] + fmt + NAMED)
            r.case("cksum", ["-a", alg] + fmt, b"hello\n")
        r.case("cksum", ["-a", alg, "--raw", "a", "b"])
    lengths = {
        "sha2": ["224", "256", "384", "512", "160", ""],
        "sha3": ["224", "256", "384", "512", "128", ""],
        "blake2b": ["8", "160", "512", "513", "7", "0", "abc"],
        "md5": ["128"],
        "crc": ["32"],
    }
    for alg, ls in lengths.items():
        for bits in ls:
            for fmt in ([], ["--untagged"], ["--base64"]):
                r.case("cksum", ["-a", alg, "-l", bits] + fmt + ["a", "new\nline"])
    for args in (
        ["-a", "bogus"],
        ["-a", "SHA256"],
        ["-a", "Md5"],
        ["-a", "bl"],
        ["-a"],
        ["-l", "256"],
        ["--bogus"],
        ["-x"],
        ["--algo=md5", "a"],
        ["-l256", "-asha3"],
        ["--text", "--tag", "a"],
        ["--tag", "--text", "a"],
        ["--raw", "--base64", "a"],
        ["--untagged", "--tag", "a"],
        ["--zero", "a"],
        ["--ignore-missing", "a"],
        ["--quiet", "a"],
        ["--status", "a"],
        ["--strict", "a"],
        ["-w", "a"],
        ["--check", "--tag", "a"],
        ["--check", "--untagged", "a"],
        ["--check", "--base64", "a"],
        ["--check", "--raw", "a"],
        ["--check", "-b", "a"],
        ["--check", "-t", "a"],
        ["-c", "-z", "a"],
        ["-c", "-a", "crc", "a"],
        ["--debug", "missing", "a", "b"],
        ["--debug", "dir", "a"],
        ["--debug", "-a", "crc32b", "a", "missing", "b"],
        ["--debug", "-a", "md5", "a"],
        ["--debug", "-a", "bsd", "a"],
        ["--debug", "-a", "crc", "--raw", "a"],
    ):
        r.case("cksum", args)
    for args in (
        ["<&-"],
        ["a", "-", "<&-"],
        ["a", "<&-"],
        ["-c", "<&-"],
        ["-c", "-", "a", "<&-"],
        ["a", ">&-"],
        ["-a", "md5", "a", ">&-"],
        ["--status", "-c", "missing", ">&-"],
    ):
        r.case("cksum", args)
        r.case("sum", args[-2:])
        r.case("md5sum", args, gnu="gnu91")
    for name in OWN_NAMES:
        r.case("cksum", ["-a", name, "a"], expect_same=False)
    for opts in (
        [],
        ["-r"],
        ["-s"],
        ["--sysv"],
        ["-r", "-s"],
        ["-s", "-r"],
        ["--bogus"],
        ["--sy"],
        ["-a", "md5"],
        ["-c"],
    ):
        r.case("sum", opts + NAMED)
        r.case("sum", opts, b"hello\n")
        r.case("sum", opts + ["missing", "a", "dir"])


def check_lines(r, which, tool, runs):
    lines = []
    for args in runs:
        _, out, _ = r.run(which, tool, args + NAMED)
        lines += out.replace(b"\0", b"\n").splitlines(keepends=True)
    return lines + [
        b"d41d8cd98f00b204e9800998ecf8427e  missing-file\n",
        b"MD5 (missing-file) = d41d8cd98f00b204e9800998ecf8427e\n",
    ]


def fuzz(r, rnd, count):
    ck = []
    for alg, bits in [
        ("md5", None),
        ("sha1", None),
        ("sha256", None),
        ("sha2", "384"),
        ("sha3", "256"),
        ("sha3", "512"),
        ("blake2b", None),
        ("blake2b", "128"),
        ("sm3", None),
        ("sha512", None),
        ("sha224", None),
    ]:
        ab = ["-a", alg] + (["-l", bits] if bits else [])
        ck += check_lines(
            r,
            "gnu",
            "cksum",
            [
                ab + f
                for f in (
                    [],
                    ["--untagged"],
                    ["--base64"],
                    ["--untagged", "--base64"],
                    ["--untagged", "-b"],
                )
            ],
        )
    sums = {
        t: check_lines(
            r,
            "gnu91",
            t,
            [[], ["--tag"], ["-b"]]
            + ([["-l", "128"], ["-l", "128", "--tag"]] if t == "b2sum" else []),
        )
        for t in SUM_TOOLS
    }
    ck_opts = [
        [],
        ["--quiet"],
        ["--status"],
        ["--strict"],
        ["-w"],
        ["--ignore-missing"],
        ["-a", "md5"],
        ["-a", "sha2"],
        ["-a", "sha3"],
        ["-a", "blake2b"],
        ["-a", "sha2", "-l", "384"],
        ["-a", "blake2b", "-l", "128"],
        ["-w", "--strict", "--ignore-missing"],
    ]
    for _ in range(count):
        if rnd.random() < 0.5:
            tool, gnu, src, opts = "cksum", "gnu", ck, rnd.choice(ck_opts)
        else:
            tool = rnd.choice(SUM_TOOLS)
            src = sums[tool] if rnd.random() < 0.85 else sums[rnd.choice(SUM_TOOLS)]
            gnu, opts = "gnu91", rnd.choice(ck_opts[:6] + ck_opts[-1:])
            if tool == "b2sum" and rnd.random() < 0.3:
                opts = ["-l", "128"] + opts
        content = b"".join(mutate(rnd, rnd.choice(src)) for _ in range(rnd.randrange(1, 6)))
        r.write("ck", content)
        r.case(tool, ["-c"] + opts + ["ck"], note=f"ck={content!r}", gnu=gnu)


def fuzz_options(r, rnd, count):
    """Random option lists for cksum and sum: order-dependent conflicts and combinations."""
    pool = [
        ["-a", "md5"],
        ["-a", "sha2"],
        ["-a", "sha3"],
        ["-a", "blake2b"],
        ["-a", "crc"],
        ["-a", "bsd"],
        ["-a", "crc32b"],
        ["-a", "sm3"],
        ["-l", "256"],
        ["-l", "128"],
        ["-l", "512"],
        ["--untagged"],
        ["--tag"],
        ["--base64"],
        ["--raw"],
        ["-z"],
        ["-b"],
        ["-t"],
        ["-c"],
        ["-w"],
        ["--strict"],
        ["--quiet"],
        ["--status"],
        ["--ignore-missing"],
        ["--debug"],
        ["--"],
        ["-r"],
        ["-s"],
    ]
    operands = ["a", "empty", "new\nline", "missing", "-", "dir"]
    for _ in range(count):
        args = [w for o in rnd.sample(pool, rnd.randrange(1, 5)) for w in o]
        args += rnd.sample(operands, rnd.randrange(0, 3))
        r.case(rnd.choice(["cksum", "cksum", "sum"]), args, b"hello\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/lanesum"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fuzz", type=int, default=2000, help="fuzzed --check cases")
    a = ap.parse_args()
    cache = os.path.join(ROOT, "target/gnu-coreutils")
    os.makedirs(cache, exist_ok=True)
    index = packages_index(cache)
    version = fetch_deb(cache, index, "coreutils")
    fetch_deb(cache, index, "libc6")
    with tempfile.TemporaryDirectory() as tmp:
        dirs = wrappers(cache, os.path.join(tmp, "tools"), os.path.abspath(a.bin))
        work = os.path.join(tmp, "work")
        os.makedirs(os.path.join(work, "dir"))
        r = Runner(work, dirs)
        for name, data in FILES.items():
            r.write(name, data)
        cksum_cases(r)
        fuzz(r, random.Random(a.seed), a.fuzz)
        fuzz_options(r, random.Random(a.seed), a.fuzz // 2)
    print(
        f"GNU coreutils {version} (cksum, sum) and the installed one (md5sum ...): "
        f"{r.total} cases, {r.differ} differ, {r.known} known differences after 9.9",
        file=sys.stderr,
    )
    return 1 if r.differ else 0


if __name__ == "__main__":
    sys.exit(main())
