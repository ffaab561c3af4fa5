// The vector indexes, their state and dimension.
SHOW VECTOR INDEXES YIELD name, state, options
RETURN name, state, options.indexConfig.`vector.dimensions` AS dimensions
