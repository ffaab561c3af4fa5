// The reports ReTAG may retrieve at one scope and level: those of communities with at least
// $min_size entities (RETAG_MIN_COMMUNITY_SIZE; a community of one entity is its description,
// not a summary of a community). A community without a size (older data) counts.
MATCH (c:Community {scope: $scope, level: $level})
WHERE c.report_status = 'ok' AND coalesce(c.size, $min_size) >= $min_size
RETURN count(c) AS reports
