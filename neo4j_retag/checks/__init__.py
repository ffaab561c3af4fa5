"""Checks on text, in one room: how a source is cut into sentences, which words say nothing
(one language module, ``language``, holds every word list with its scope), and whether a
written sentence says what its evidence says. Plain string work, no I/O: the index, the LLM
client and the query side all use it."""
