"""Local services the project starts itself: Neo4j + GDS from Maven, and llama.cpp's server."""
