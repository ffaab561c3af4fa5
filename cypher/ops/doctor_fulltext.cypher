CALL db.index.fulltext.listAvailableAnalyzers() YIELD analyzer
WITH collect(analyzer) AS analyzers
RETURN 'english' IN analyzers AS english
