// The entities a text unit produced join the subgraph of each topic the text unit concerns
// (topic assignment; run after every assignment: new entities of old text units join too).
MATCH (c:Chunk)-[:ABOUT_TOPIC]->(t:Topic)
MATCH (c)-[:MENTIONS]->(e:Entity)
SET e:$(t.label)
