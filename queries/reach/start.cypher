// Where a walk along calls starts: the element id of the symbol $qname of repository $repo (no row: no such
// symbol). kg/navigate/reach.py walks from there one step at a time (reach/step).
:params {repo: 'tinyshop', qname: 'shop.models.Order.subtotal_cents'};
MATCH (start:Symbol {key: $repo + ':' + $qname})
RETURN elementId(start) AS id, start.qname AS name;
