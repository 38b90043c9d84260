// A person says two flagged decisions both stand (the conflict was a false alarm): mark the flag between them settled.
:param a => 'dec-0123456789ab';
:param b => 'dec-ba9876543210';
:param author => 'Jane Doe';
MATCH (:Decision {id: $a})-[c:CONFLICTS_WITH]-(:Decision {id: $b})
SET c.settled = true, c.settled_by = $author, c.settled_at = datetime()
RETURN count(c) AS settled;
