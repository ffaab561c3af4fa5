"""The labelled set of real replies and the answer checks measured on it."""
