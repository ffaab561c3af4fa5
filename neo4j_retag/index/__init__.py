"""The indexing side (Edge et al. 2024 §3.1; ReTAG §3.2.1), in pipeline order: `documents` ->
`extract` -> `elements` (MERGE, description summaries) -> `communities` (GDS Leiden) ->
`reports` -> `topics`; `pipeline` runs them all, resumably."""
