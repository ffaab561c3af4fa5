// The indexes (constraints included: each has a backing index of its name) and their state;
// ensure_schema skips its script when every one it creates is there and ONLINE.
SHOW INDEXES YIELD name, state
RETURN name, state
