"""Minimise a file that shows a fault: delete lines (.lag) or elements (robot files) while
the same check still fails (tests/random/run.py --shrink FILE)."""
import os
import re
import shutil
import xml.etree.ElementTree as ET

import pipeline


def signature(tools, path, work):
    """The first failing check of path, or None when it passes or is refused."""
    res = pipeline.run_one(tools, path, work, 4)
    if res.outcome != "fault":
        return None
    check, message = res.failures[0]
    if check.startswith("lagc_"):   # the same message, numbers and places aside
        error = re.search(r"error: [^\n]*", message) or re.search(r"^[^\n]*", message)
        check += ": " + re.sub(r"\d[\d.eE+-]*", "#", error.group(0))
    return check


def shrink_lines(text, keeps):
    """Delete one statement at a time (never the model line), from the end, while keeps()."""
    lines = text.splitlines()
    changed = True
    while changed:
        changed = False
        for i in range(len(lines) - 1, -1, -1):
            if lines[i].startswith("model ") or i >= len(lines):
                continue
            trial = lines[:i] + lines[i + 1:]
            if keeps("\n".join(trial) + "\n"):
                lines, changed = trial, True
        changed = changed or shrink_lists(lines, keeps)
    return "\n".join(lines) + "\n"


def shrink_lists(lines, keeps):
    """Drop one name of a `coordinate`/`input` list, or one summand of a statement."""
    for i, line in enumerate(lines):
        m = re.match(r"^(coordinate|input) (.*)$", line)
        parts = m.group(2).split(", ") if m else []
        for k in range(len(parts)):
            if len(parts) > 1:
                trial = lines[:i] + [f"{m.group(1)} " + ", ".join(parts[:k] + parts[k + 1:])] + lines[i + 1:]
                if keeps("\n".join(trial) + "\n"):
                    lines[:] = trial
                    return True
    return False


def shrink_xml(text, keeps):
    """Delete one element at a time (the last ones first) while keeps(); ends when none can go."""
    k = None
    while True:
        root = ET.fromstring(text)
        pairs = [(p, c) for p in root.iter() for c in list(p)]
        k = len(pairs) - 1 if k is None else min(k, len(pairs) - 1)
        if k < 0:
            return text
        parent, child = pairs[k]
        parent.remove(child)
        trial = ET.tostring(root, encoding="unicode")
        if keeps(trial):
            text = trial
        k -= 1
    return text


def shrink_attributes(text, keeps):
    """Delete one attribute at a time while keeps() (after the elements are gone)."""
    k = 0
    while True:
        root = ET.fromstring(text)
        attrs = [(e, a) for e in root.iter() for a in sorted(e.attrib)]
        if k >= len(attrs):
            return text
        element, name = attrs[k]
        del element.attrib[name]
        trial = ET.tostring(root, encoding="unicode")
        if keeps(trial):
            text = trial
        else:
            k += 1


def shrink_file(tools, path, work):
    """Shrink path in place of a copy PATH.min; print the result."""
    work = os.path.join(work, "shrink")
    target = signature(tools, path, work)
    if target is None:
        print(f"{path}: no fault to shrink")
        return 1
    ext = os.path.splitext(path)[1]
    trial_path = os.path.join(work, "trial" + ext)
    runs = [0]

    def keeps(text):
        runs[0] += 1
        with open(trial_path, "w", encoding="utf-8") as f:
            f.write(text)
        return signature(tools, trial_path, work) == target

    text = open(path, encoding="utf-8").read()
    small = shrink_lines(text, keeps) if ext == ".lag" else shrink_attributes(shrink_xml(text, keeps), keeps)
    out = path + ".min" + ext
    with open(out, "w", encoding="utf-8") as f:
        f.write(small)
    print(f"{target}: {len(text.splitlines())} -> {len(small.splitlines())} lines in {runs[0]} runs; wrote {out}")
    print(small)
    shutil.rmtree(work, ignore_errors=True)
    return 0
