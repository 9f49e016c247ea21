#!/usr/bin/env python3
# Writes difflib.json: sequence pairs with CPython's difflib.SequenceMatcher(None, a, b).ratio(),
# the expected values of TestRatioMatchesCPython. Run: python3 difflib_gen.py > difflib.json
import difflib, json, random

random.seed(7)
cases = [([], []), (["a"], []), (list("abcd"), list("bcde")), (list("private"), list("privet")),
         (["x", "", "", "y"], ["x", "", "y", ""])]
# Long sequences cross CPython's autojunk threshold (len(b) >= 200): popular elements such as
# the empty cell are dropped from the index, which changes the ratio.
for n in (150, 199, 200, 250, 400):
    b = [random.choice(["", "", "", "a", "b", "c"] + [str(i) for i in range(40)]) for _ in range(n)]
    a = [x if random.random() < 0.8 else random.choice(["", "z", "q"]) for x in b]
    if n % 2:
        a = a[n // 3:] + a[:n // 3]
    cases.append((a, b))
print(json.dumps([{"a": a, "b": b, "ratio": difflib.SequenceMatcher(None, a, b).ratio()} for a, b in cases]))
