// Mining failed (or topics were cleared): the next topic build mines again.
MATCH (b:Meta {id: 'topics'}) DELETE b
