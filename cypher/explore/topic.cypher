// A topic and its communities: the ReTAG topic subgraph's community tree, root level first.
// Browser:  :param topic => 'Topic0'      (a topic label such as 'Topic0', or the topic's name)
// List the topics first with:  MATCH (t:Topic) RETURN t.label, t.name, t.description
MATCH (t:Topic)
WHERE t.label = $topic OR t.name = $topic
MATCH (c:Community)-[o:OF_TOPIC]->(t)
OPTIONAL MATCH (c)-[p:PARENT_OF]->(child:Community)
RETURN t, c, o, p, child, c.level AS level, c.title AS title, c.rating AS rating
ORDER BY c.level, c.id
LIMIT 300
