"""Bounded by construction (issue 32 item 4): a composed report of a hub community stays
within REPORT_MAX_TOKENS, keeping the findings with most evidence and counting the rest; a
summary's listing of many descriptions keeps the best-attested ones whole and says how many
were left out."""

import json

from neo4j_retag.index.elements import ranked_listing
from neo4j_retag.index.report_reuse import composed_props
from neo4j_retag.tokens import count


def _hub(n_claims=750, n_rels=40):
    ents = [{"key": k, "name": k.title(), "description": f"{k.title()} runs the port. " * 50,
             "degree": d} for k, d in (("hub", 400), ("dock", 3), ("crane", 2))]
    rels = [{"source_key": "hub", "target_key": "dock", "source": "Hub", "target": "Dock",
             "description": f"Relationship {i}: " + "they trade. " * 200, "combined_degree": 403,
             "weight": float(i)} for i in range(n_rels)]
    claims = [{"key": "hub", "entity": "Hub", "type": "fact", "status": "TRUE",
               "description": f"Claim {i} about the hub. " * 20, "evidence": 1 + (i == 7) * 9}
              for i in range(n_claims)]
    return {"entities": ents, "relationships": rels, "claims": claims}


def test_a_hub_communitys_composed_report_is_bounded_and_ranked_by_evidence():
    props = composed_props(_hub(), max_tokens=1500)
    assert count(props["full_content"]) <= 1500
    findings = json.loads(props["findings"])
    assert findings[0]["summary"] == "Hub and Dock" and "Relationship 39:" in findings[0][
        "explanation"]  # the relationship with most evidence (weight) first
    assert findings[-1]["summary"] == "Not shown"
    assert props["report_left_out"] == 40 + 750 - (len(findings) - 1)
    assert f"{props['report_left_out']} more relationships and claims" in findings[-1][
        "explanation"]
    assert all(len(f["explanation"]) <= 610 for f in findings[:-1])


def test_a_small_communitys_composed_report_keeps_everything():
    props = composed_props(_hub(n_claims=2, n_rels=1), max_tokens=4000)
    findings = json.loads(props["findings"])
    assert props["report_left_out"] == 0 and len(findings) == 3
    assert "Not shown" not in props["full_content"]


def test_the_claim_with_most_evidence_is_kept_first():
    h = _hub(n_claims=30, n_rels=0)
    findings = json.loads(composed_props(h, max_tokens=800)["findings"])
    assert "Claim 7 about" in findings[0]["explanation"]


def test_a_listing_of_400_descriptions_keeps_the_best_attested_and_counts_the_rest():
    descriptions = [f"Fragment {i:03d} of the harbour story." for i in range(400)]
    descriptions += ["Zebra fragment, given by many text units."] * 5  # sorts last by name
    listing = ranked_listing("Harbour", descriptions, 500, "cl100k_base")
    lines = listing.splitlines()
    assert lines[0] == "- Zebra fragment, given by many text units."  # evidence first
    assert count(listing) <= 500 + 30
    assert lines[-1].startswith(f"- ({401 - (len(lines) - 1)} more descriptions")
