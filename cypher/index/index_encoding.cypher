// the tokenizer the index was chunked with (null before the first ingest)
MERGE (m:Meta {id: 'index'})
RETURN m.encoding AS encoding
