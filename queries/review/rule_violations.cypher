// Which import dependencies break the architecture rules? For each DEPENDS_ON with an import between reviewed
// modules: a lower layer importing a higher one ($layers lists layers top first; a module is in the first layer
// one of whose regular expressions matches its dotted name), a $forbidden dependency, or two members of an
// $independent group importing each other; unless an $allowed exception matches. `kg review` builds these
// parameters from .agent/architecture.yaml and prints them with the report.
:params {repo: 'tinyshop', exclude: ['(.*/)?tests(/.*)?'], layers: [{name: 'orders', modules: ['shop\\.cart(\\..*)?']}, {name: 'domain', modules: ['shop\\.(models|pricing|storage)(\\..*)?']}], forbidden: [{rule: 'forbidden: shop.storage → shop.models', reason: 'storage keeps plain data', source: ['shop\\.storage(\\..*)?'], target: ['shop\\.models(\\..*)?']}], independent: [{rule: 'independent: shop.pricing, shop.storage', reason: '', members: ['shop\\.pricing(\\..*)?', 'shop\\.storage(\\..*)?']}], allowed: []};
MATCH (a:Module {repo: $repo})-[d:DEPENDS_ON]->(b:Module)
WHERE 'IMPORTS' IN d.kinds AND NOT any(x IN $exclude WHERE a.path =~ x OR b.path =~ x)
  AND NOT any(ok IN $allowed WHERE any(p IN ok.source WHERE a.qname =~ p) AND any(p IN ok.target WHERE b.qname =~ p))
WITH a, b, d,
     head([i IN range(0, size($layers) - 1) WHERE any(p IN $layers[i].modules WHERE a.qname =~ p)]) AS la,
     head([i IN range(0, size($layers) - 1) WHERE any(p IN $layers[i].modules WHERE b.qname =~ p)]) AS lb
WITH a, b, d,
     CASE WHEN lb < la
       THEN [{rule: 'layers: ' + $layers[la].name + ' must not depend on ' + $layers[lb].name, reason: 'a lower layer imports a higher one'}]
       ELSE [] END
     + [f IN $forbidden WHERE any(p IN f.source WHERE a.qname =~ p) AND any(p IN f.target WHERE b.qname =~ p)
        | {rule: f.rule, reason: f.reason}]
     + [g IN $independent
        WHERE head([i IN range(0, size(g.members) - 1) WHERE a.qname =~ g.members[i]])
              <> head([i IN range(0, size(g.members) - 1) WHERE b.qname =~ g.members[i]])
        | {rule: g.rule, reason: g.reason}] AS broken
UNWIND broken AS rule
RETURN rule.rule AS rule, rule.reason AS reason, a.qname AS source, b.qname AS target, a.path AS path,
       d.line AS line, d.weight AS weight
ORDER BY rule, source, target;
