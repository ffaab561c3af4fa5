// Drop every GDS in-memory projection of this database (a reset must not leave stale ones).
CALL gds.graph.list() YIELD graphName, database
WITH graphName WHERE database = $database
CALL gds.graph.drop(graphName, false) YIELD graphName AS dropped
RETURN count(dropped) AS projections
