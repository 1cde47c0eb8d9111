"""How a command avoids reading, parsing and deriving twice: every cache, behind one door.

- ``disk``: ``DiskCache``, what outlives a command (the nightly's parsed ledgers and its derive),
  in a folder outside the hub, keyed by the bytes of the files
"""
