"""Write the generated pages: only files whose bytes changed, and remove files no longer generated."""

from __future__ import annotations

from pathlib import Path

from ..store.atomic import write_bytes_atomic


def write_tree(root: Path, files: dict[str, bytes]) -> list[str]:
    """Make ``root`` hold exactly ``files`` (relative path -> bytes). Return the paths changed.

    The pages are generated from the ledgers on every build, so they are written without fsync."""
    changed = [rel for rel, data in sorted(files.items()) if write_bytes_atomic(root / rel, data, durable=False)]
    for path in sorted(root.rglob("*"), reverse=True):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and rel not in files:
            path.unlink()
            changed.append(rel)
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    return changed
