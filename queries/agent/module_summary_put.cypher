// Store a module's summary (responsibility, public interface, dependencies, notes) and how it was made
// (`structural` from the graph, `llm` from the model), with the hash of the content it describes.
:param repo => 'calc';
:param path => 'calc/ops.py';
:param summary => {summary: 'Arithmetic on two numbers.', summary_interface: ['def add(a, b)'], summary_dependencies: [], summary_notes: 'called by calc/cli.py', summary_kind: 'structural'};
MATCH (m:Module {repo: $repo, path: $path})
SET m += $summary, m.summary_hash = m.hash, m.summarized_at = datetime();
