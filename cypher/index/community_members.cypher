// Communities' member entities with their degree (index/topic_communities.py: a topic's most
// central entities first).
UNWIND $ids AS cid
MATCH (c:Community {id: cid})
RETURN cid AS id, COLLECT { MATCH (e:Entity)-[:IN_COMMUNITY]->(c)
                            RETURN {key: e.key, name: e.name, degree: e.degree} } AS members
