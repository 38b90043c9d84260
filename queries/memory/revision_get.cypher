// An item as it was at one version (the base a stale write is merged against).
:param id => 'dec-0123456789ab';
:param version => 1;
MATCH (r:Revision {key: $id + '@' + toString($version)})
RETURN properties(r) AS props;
