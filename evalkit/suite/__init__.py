"""Tools over whole suites (``evalkit suite``): the label checks of pairs
(:mod:`evalkit.suite.checks`, ``evalkit suite validate --checks``) and the importers that build
pairs from other benchmarks (:mod:`evalkit.suite.importers`, ``evalkit suite import``).

They run episodes, score them and read stopping rules, so they sit above the harness, the
metrics and the rules in the layer order (DESIGN §1); the suite format itself, its loader and
export are :mod:`evalkit.scenarios`.
"""
