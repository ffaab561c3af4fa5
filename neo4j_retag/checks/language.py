"""Every word list the checks use, with its scope: which languages it covers and what happens
in the others. A list entry is a word of a language, never a word of one corpus (a unit test
fails on an entry that occurs in only one test corpus).

Scope. The lists cover English and German (the languages the project is measured on:
docs/evaluation.md); a text in another language gets the language-neutral parts of each check
only (a sentence still ends at its punctuation, a name is still a capitalised word, content
words are still the longer words), so a check there is weaker, never wrong in another way.
"""

from __future__ import annotations

# abbreviations after which a full stop does not end a sentence ("Mr. Smith", "z. B. das")
ABBREVIATIONS = frozenset("""
mr mrs ms dr st mt jr sr prof rev gen col capt lt sgt cpl no nos vs etc approx dept est
fig figs inc ltd co corp vol vols pp ed eds jan feb mar apr jun jul aug sep sept oct nov dec
e.g i.e cf al
bzw ca nr usw vgl ggf evtl inkl bspw z.b d.h u.a s.o s.u o.ä u.ä hr fr str abs
""".split())  # noqa: SIM905
