// The server's transaction memory limits (`doctor`): one transaction's, all transactions'.
SHOW SETTINGS YIELD name, value
WHERE name IN ['db.memory.transaction.max', 'dbms.memory.transaction.total.max']
RETURN name, value
