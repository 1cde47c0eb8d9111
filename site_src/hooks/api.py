"""MkDocs hook: the static JSON API at stable URLs.

`prescient build` writes the API under docs/generated/api/ (generated/ is the one folder it owns:
generator/site/api.py); the site serves those files at /api/, so a reader's script fetches
/api/boards/tournament/overall.json whatever the hub's pages are called.
"""

from mkdocs.structure.files import File, Files

SOURCE = "generated/api/"


def on_files(files: Files, config) -> Files:
    for file in [f for f in files if f.src_uri.startswith(SOURCE)]:
        files.remove(file)
        files.append(File(file.src_uri, file.src_dir, file.dest_dir, file.use_directory_urls, dest_uri="api/" + file.src_uri.removeprefix(SOURCE)))
    return files
