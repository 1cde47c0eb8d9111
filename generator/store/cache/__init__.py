"""How a command avoids reading, parsing and deriving twice: every cache, behind one door.

- ``reads``: ``ReadCache``, one per command, owned by its ``store.hub.Hub``: the files it parsed
  and wrote (wrapping the plain ``csvio.read_table`` / ``csvio.write_table``), their digests, and
  the values derived from them in typed slots (``Slot``)
- ``disk``: ``DiskCache``, what outlives a command (the nightly's parsed ledgers and its derive),
  in a folder outside the hub, keyed by the bytes of the files; ``Hub.opened`` opens and closes it

Every reader gives the same frames with or without them (``prescient verify`` never uses the disk cache).
"""

from .disk import DiskCache, default_dir
from .reads import ReadCache, Share, Slot, file_signature, signatures

__all__ = ["DiskCache", "ReadCache", "Share", "Slot", "default_dir", "file_signature", "signatures"]
