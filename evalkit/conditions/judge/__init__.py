"""Judging final text: the LLM-judge panel (:mod:`.panel`) and the scoring of readers against
a labelled file (:mod:`.evaluate`, ``evalkit judge eval``). DESIGN §5."""
