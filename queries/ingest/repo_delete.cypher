// Forget a repository: its modules, symbols, documents, chunks and observed tests (`kg observe`) with all their
// edges, then the External nodes nothing points at any more, then the Repo node itself.
:param repo => 'flask';
MATCH (n)
WHERE (n:Module OR n:Symbol OR n:Document OR n:Chunk OR n:ObservedTest OR n:TestScope OR n:ObservedRun) AND n.repo = $repo
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 5000 ROWS;
