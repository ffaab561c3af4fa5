MATCH (c:Community {scope: $scope})
DETACH DELETE c
