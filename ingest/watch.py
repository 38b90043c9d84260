"""`kg ingest --watch`: keep one repository's graph current while its files change.

The Ingestor keeps every parse in memory between runs, so a change costs a walk, a hash of each file, the parse
of what changed and the writes of one small transaction. File events only wake the loop up; what changed is
decided by content hashes, as in any run, so a burst of events or an editor's save-by-rename is handled alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from kg.ingest.pipeline import Ingestor, IngestReport
from watchfiles import watch as file_events


def watch(ingestor: Ingestor, stop_after: int | None = None) -> Iterator[IngestReport]:
    """Yield a report after each batch of changes that touched the graph; `stop_after` ends after that many."""
    seen = 0
    ingestor.warm()
    for events in file_events(ingestor.root, debounce=200, step=50):
        report = ingestor.run(touched=[Path(path) for _, path in events])
        if report.written or report.deleted:
            yield report
            seen += 1
            if stop_after is not None and seen >= stop_after:
                return
