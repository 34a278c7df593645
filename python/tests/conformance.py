"""The comparison both conformance tests make: run `firepack validate` on every case (two at a time), compare its
report with the second reader's, and list what does not agree."""
from concurrent.futures import ThreadPoolExecutor


def disagreements(cases, run_tool, compare, show, known, shown_bytes=32):
    """Problems to fail on: a case where the two differ and that `known` (case name → reason) does not list, a listed
    case that agrees now (so the list cannot go stale), and a listed name with no case. `run_tool(index, data)` gives
    the tool's report; `compare(name, theirs, data)` → (agree, ours); `show(report)` → text. Prints the tally."""
    names = list(cases)
    with ThreadPoolExecutor(max_workers=2) as pool:
        tool_results = list(pool.map(lambda i: run_tool(i, cases[names[i]]), range(len(names))))
    problems, agreed = [], 0
    for name, theirs in zip(names, tool_results):
        data = cases[name]
        same, ours = compare(name, theirs, data)
        agreed += same
        if not same and name not in known:
            more = " …" if len(data) > shown_bytes else ""
            problems.append(f"{name}: {data[:shown_bytes].hex(' ')}{more} ({len(data)} bytes)\n"
                            f"    tool:   {show(theirs)}\n    reader: {show(ours)}")
        if same and name in known:
            problems.append(f"{name}: listed as a known disagreement but both now say {show(ours)}")
    problems += [f"{name}: listed as a known disagreement but no such case" for name in known if name not in cases]
    print(f"{len(names)} cases, {agreed} agree")
    if problems:
        problems.insert(0, f"{len(problems)} of {len(names)} cases:")
    return problems
