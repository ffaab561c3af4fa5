// Remove topics, their labels on entities and their communities (the general graph stays).
MATCH (t:Topic)
OPTIONAL MATCH (e:Entity) WHERE t.label IN labels(e)
REMOVE e:$(t.label);
MATCH (c:Community) WHERE c.scope <> 'general' DETACH DELETE c;
MATCH (t:Topic) DETACH DELETE t;
