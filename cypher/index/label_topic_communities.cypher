// Topics made of general communities (TOPIC_MODE=communities): their entities carry the
// topic's label, the topic's subgraph.
UNWIND $topics AS t
UNWIND t.communities AS cid
MATCH (:Community {id: cid, scope: 'general'})<-[:IN_COMMUNITY]-(e:Entity)
SET e:$(t.label)
