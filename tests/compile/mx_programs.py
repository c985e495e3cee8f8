# SPDX-License-Identifier: GPL-2.0-only
"""What the compile matrix's programs (mx_main.c, mx_main.cpp) record under
SESSION, shared by tests/compile/test_matrix.py and tests/e2e/test_sdt.py."""

# Everything of mx and mxlib; mxf:value only for 3 <= v < 6.
SESSION = ('<ust-session version="1">\n'
           '  <enable pattern="mx:*"/>\n'
           '  <enable pattern="mxlib:*"/>\n'
           '  <enable pattern="mxf:value" filter="v &gt;= 3 &amp;&amp; v &lt; 6"/>\n'
           '</ust-session>\n')


def request(i, path, ratio):
    b = list(path.encode())
    return ("mx:request", {"id": i, "id16": i, "path": path, "ratio": ratio,
                           "head": b[:2], "_chars_length": len(b), "chars": b})


def expected(lang):
    """Every event the program of lang records, in order."""
    ev = []
    for i in range(3):
        ev += [("mx:req_begin", {"i": i}),
               ("mx:mark", {"i": i, "s": "str", "l": i * 1000000000}),
               ("mx:probe", {"n": i, "who": "main", "data": 0}),
               request(i, "/req", i / 4.0),
               ("mx:req_end", {})]
    ev += [("mxf:value", {"v": v}) for v in (3, 4, 5)]
    ev += [("mx:nothing", {}), ("mx:noargs", {})]
    for n in (1, 2):
        ev += [("mx:shared", {"from": n}), request(100 + n, "shared", 0.5)]
    ev += [request(7, "from_c", 0.75), ("mx:from_c", {"n": 7})]
    if lang == "c++":
        ev += [("mx:tmpl", {"size": 4, "value": 4}), ("mx:tmpl", {"size": 8, "value": 8}),
               ("mx:lambda", {"x": 1}), ("mx:lambda", {"x": 2}),
               ("mx:member", {"id": 42, "name": "srv"}), request(42, "srv", 2.0),
               ("mx:ns", {"n": 3})]
        ev += [("mx:everywhere", {"from": 1})]
        for i in range(2):
            ev += [("mxlib:loop", {"i": i}), ("mxlib:call", {"i": i, "what": "lib"})]
        ev += [("mx:everywhere", {"from": 2}), ("mx:after_dlclose", {"ok": 1}),
               ("mx:everywhere", {"from": 3})]
    return ev
