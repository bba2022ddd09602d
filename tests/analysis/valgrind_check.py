#!/usr/bin/env python3
"""Reads a valgrind memcheck XML report and fails on what the project's own code did.

valgrind_check.py REPORT.xml PROGRAM_PATH

An error counts when its innermost frame that is not valgrind's or the C library's
allocator lies in PROGRAM_PATH (the clnetsim binary): an invalid read or write, a use of
uninitialised memory or a bad free in clnetsim's code, or a leak whose block clnetsim
allocated itself (malloc, calloc, realloc or strdup called from clnetsim). What drivers
allocate and keep (PoCL's compiler, the ICD loader) is theirs, and the glibc loader's
known false positives are not clnetsim's either; OpenCL objects that clnetsim fails to
release are caught by the device tests' reference counts instead."""
import sys
import xml.etree.ElementTree as ET

ALLOCATORS = {"malloc", "calloc", "realloc", "strdup", "strndup", "posix_memalign",
              "aligned_alloc", "free"}
LEAKS = {"Leak_DefinitelyLost", "Leak_IndirectlyLost"}
IGNORED_LEAKS = {"Leak_PossiblyLost", "Leak_StillReachable"}


def frames(error):
    stack = error.find("stack")
    return [] if stack is None else stack.findall("frame")


def innermost_own_frame(error):
    """The first frame past valgrind's replacements and the allocator functions."""
    for f in frames(error):
        obj = f.findtext("obj") or ""
        fn = f.findtext("fn") or ""
        if "vgpreload" in obj or fn in ALLOCATORS:
            continue
        return f
    return None


def describe(error):
    what = error.findtext("kind")
    text = error.findtext("what") or (error.find("xwhat").findtext("text")
                                      if error.find("xwhat") is not None else "")
    lines = [f"{what}: {text}"]
    for f in frames(error)[:12]:
        lines.append(f"    {f.findtext('fn') or '?'} ({f.findtext('obj') or '?'})")
    return "\n".join(lines)


def main():
    report, program = sys.argv[1], sys.argv[2]
    root = ET.parse(report).getroot()
    ours, theirs = [], 0
    for error in root.findall("error"):
        kind = error.findtext("kind")
        if kind in IGNORED_LEAKS:
            continue
        f = innermost_own_frame(error)
        own = f is not None and (f.findtext("obj") or "") == program
        if own:
            ours.append(error)
        else:
            theirs += 1
    for error in ours:
        print(describe(error))
    leaks = sum(1 for e in ours if e.findtext("kind") in LEAKS)
    print(f"valgrind: {len(ours)} errors in clnetsim's code ({leaks} leaks), "
          f"{theirs} in libraries (not counted)")
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main())
