// What the topics were mined from (index/topic_basis.py).
MERGE (b:Meta {id: 'topics'})
SET b = $basis, b.id = 'topics'
