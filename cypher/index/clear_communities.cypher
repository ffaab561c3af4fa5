// A scope's :Community nodes go before its hierarchy is rebuilt, in transactions of 1,000
// communities (one transaction holding tens of thousands of communities and their
// memberships is several times slower). Run with Graph.run_script (an auto-commit session).
MATCH (c:Community {scope: $scope})
CALL (c) { DETACH DELETE c } IN TRANSACTIONS OF 1000 ROWS
