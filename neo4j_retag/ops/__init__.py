"""Operating the product: `doctor` (is everything there) and `stats` (what the graph holds)."""
