"""Answers and outputs scored: nugget recall per method, ReTAG ablations, report recall,
the answer checks, grounding and the model's output quality."""
