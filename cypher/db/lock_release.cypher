MATCH (l:Meta {id: 'lock', owner: $owner})
DELETE l
