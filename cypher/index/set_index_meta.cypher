MERGE (m:Meta {id: 'index'})
SET m += $props
