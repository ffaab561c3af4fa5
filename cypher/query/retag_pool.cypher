// The reports ReTAG may retrieve at one scope and level.
MATCH (c:Community {scope: $scope, level: $level})
WHERE c.report_status = 'ok'
RETURN count(c) AS reports
