// The text units that mention communities' entities (index/topic_communities.py: a community
// joins the topic whose text units it shares most).
UNWIND $ids AS cid
MATCH (c:Community {id: cid})
RETURN cid AS id, COLLECT { MATCH (c)<-[:IN_COMMUNITY]-(:Entity)<-[:MENTIONS]-(u:Chunk)
                            RETURN DISTINCT u.id } AS units
